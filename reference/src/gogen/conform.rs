//! The Gogen solver battery (the statuses of `gogen-solver`): 2 for one
//! or two arguments missing or too many, 3 an unreadable file, 4 a
//! malformed puzzle, 0 and a board that solves it, 1 and nothing on stdout
//! when no board does.

use super::{Recipe, format_exam, random_puzzle};
use crate::lightsout::rng;

use crate::battery::Battery;
use crate::battery::Output;

/// The solver battery.
pub fn solver(b: &mut Battery) {
    let recipe = Recipe {
        givens: vec![(0, 0), (2, 2), (4, 4)],
        words: 12,
        min_len: 3,
        max_len: 6,
    };
    let (puzzle, _) = random_puzzle(&recipe, &mut rng(63_000));
    let exam = format_exam(&puzzle);
    let f = b.folder(&[("puzzle", exam.as_bytes())], b"");
    b.case("no arguments", &f, &[], &[], &[2], Output::Empty);
    b.case(
        "three arguments",
        &f,
        &["puzzle", "puzzle", "puzzle"],
        &[],
        &[2],
        Output::Empty,
    );
    b.case("missing puzzle file", &f, &["-"], &[], &[3], Output::Empty);
    b.case(
        "a folder as the puzzle",
        &f,
        &["/"],
        &[],
        &[3],
        Output::Empty,
    );
    b.case(
        "solvable, exam form",
        &f,
        &["puzzle"],
        &["puzzle"],
        &[0],
        Output::Solves,
    );
    let board = exam.lines().take(5).collect::<Vec<_>>().join("\n") + "\n";
    let words: String = exam.lines().skip(6).map(|w| format!("{w}\n")).collect();
    let f = b.folder(
        &[("board", board.as_bytes()), ("words", words.as_bytes())],
        b"",
    );
    b.case(
        "solvable, board and words",
        &f,
        &["board", "words"],
        &["board", "words"],
        &[0],
        Output::Solves,
    );
    b.case(
        "missing words file",
        &f,
        &["board", "-"],
        &[],
        &[3],
        Output::Empty,
    );
    let odd: &[(&str, &str, i32)] = &[
        (
            "malformed: a row of four cells",
            "ABCD\n.....\n.....\n.....\n.....\n0\n",
            4,
        ),
        (
            "malformed: a letter given twice",
            "A...A\n.....\n.....\n.....\n.....\n0\n",
            4,
        ),
        (
            "malformed: word count does not match",
            "A....\n.....\n.....\n.....\n.....\n2\nAB\n",
            4,
        ),
        (
            "unsolvable: a letter next to itself",
            "A....\n.....\n.....\n.....\n.....\n1\nBOOK\n",
            1,
        ),
    ];
    for (name, text, status) in odd {
        let f = b.folder(&[("puzzle", text.as_bytes())], b"");
        b.case(name, &f, &["puzzle"], &[], &[*status], Output::Empty);
    }
}
