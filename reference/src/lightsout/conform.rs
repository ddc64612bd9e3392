//! The CMU 15-122 Lights Out solver battery: usage errors and unreadable
//! or malformed files exit 1 (the handout's `main` returns 1 for every
//! error), solvable boards exit 0 with moves that solve them, unsolvable
//! ones exit 1 with nothing on stdout.

use super::{parse_board, solve_minimum};

use crate::battery::Battery;
use crate::battery::Output;

/// The solver battery.
pub fn solver(b: &mut Battery) {
    let solvable = "3x2\n#OO\n##O\n";
    let f = b.folder(&[("board", solvable.as_bytes())], b"");
    b.case("no arguments", &f, &[], &[], &[1], Output::Empty);
    b.case(
        "two arguments",
        &f,
        &["board", "board"],
        &[],
        &[1],
        Output::Empty,
    );
    b.case("missing board file", &f, &["-"], &[], &[1], Output::Empty);
    b.case(
        "a folder as the board",
        &f,
        &["/"],
        &[],
        &[1],
        Output::Empty,
    );
    b.case(
        "solvable 3x2",
        &f,
        &["board"],
        &["board"],
        &[0],
        Output::Solves,
    );
    for (name, board) in [
        ("malformed: a bad cell", "3x2\n#Ox\n##O\n"),
        ("malformed: too few cells", "3x2\n#OO\n"),
        ("3x2, the handout's 3x2-32", "3x2\n#O#\n#OO\n"),
        ("5x5, one light", "5x5\n#OOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n"),
        ("2x2, all on", "2x2\n##\n##\n"),
        ("4x4, one light", "4x4\nOOOO\nO#OO\nOOOO\nOOOO\n"),
        ("4x4, all on", "4x4\n####\n####\n####\n####\n"),
        ("5x5, all off", "5x5\nOOOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n"),
    ] {
        // Our reference decides: 0 solvable, 1 unsolvable or malformed.
        let status = match parse_board(board.as_bytes()) {
            Ok(parsed) if solve_minimum(&parsed).is_some() => 0,
            _ => 1,
        };
        let status = &status;
        let f = b.folder(&[("board", board.as_bytes())], b"");
        let output = if *status == 0 {
            Output::Solves
        } else {
            Output::Empty
        };
        let puzzle: &[&str] = if *status == 0 { &["board"] } else { &[] };
        b.case(name, &f, &["board"], puzzle, &[*status], output);
    }
}
