//! The bundled Gogen suites. `easy` uses the exam's single-file form (a
//! listing `puzzle,expect,comment`): random puzzles with the exam's nine
//! given letters, and a few written by hand. `hard` uses the two-file form
//! (`board,words,expect,comment`): random puzzles with five or fewer given
//! letters and longer words, and puzzles made unsolvable by one extra
//! two-letter word that only a search can refute, and "hub" puzzles on an
//! empty board written by hand. `solved` holds the solutions of six easy
//! puzzles, every letter given (the exam's `valid_solution` question).
//! `newspaper` holds random puzzles in the Evening Standard's form (nine
//! given letters as a 3x3 block, a blank line, the words), all unique.

use std::fs;
use std::path::Path;

use anyhow::{Context, bail};
use reference::gogen::{
    Board, Puzzle, Recipe, SIDE, count_solutions, format_exam, format_newspaper, parse_exam,
    random_puzzle,
};
use reference::lightsout::rng;

/// Hand-written exam-form puzzles: (name, text, comment).
const EASY_BY_HAND: &[(&str, &str, &str)] = &[
    (
        "all.given",
        "ABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWXY\n3\nAGMSY\nEIMQU\nBAFGLKP\n",
        "every letter given; the words only need checking",
    ),
    (
        "no.givens",
        ".....\n.....\n.....\n.....\n.....\n0\n",
        "nothing given, no words: any arrangement of A to Y is right",
    ),
    (
        "far.apart",
        "A....\n.....\n..M..\n.....\n....Y\n2\nAM\nAY\n",
        "A and Y are given in opposite corners but AY must be spelled",
    ),
    (
        "double.letter",
        "A.B.C\n.....\nD.E.F\n.....\nG.H.I\n1\nBOOK\n",
        "BOOK needs O next to itself",
    ),
];

/// Hand-written two-file puzzles for the hard level, all on an empty board:
/// (name, words, comment). Letters that must touch many others ("hubs")
/// defeat solvers that only propagate pairs and then search.
const HARD_BY_HAND: &[(&str, &str, &str)] = &[
    (
        "hub.nine",
        "AB AC AD AE AF AG AH AI AJ",
        "A must touch nine letters; a cell has at most eight neighbours",
    ),
    (
        "hubs.two",
        "AB AC AD AE AF AG AH AI BJ BK BL BM BN BO BP BQ BR",
        "A touches eight letters and B nine: unsolvable",
    ),
    (
        "hubs.four",
        "AB AC AD AE AF BG BH BI BJ BK CL CM CN CO CP DQ DR DS DT DU",
        "four hubs of five or six letters on an empty board: solvable, not uniquely",
    ),
];

/// The random levels: (level, count, seed, recipe, describe).
fn recipes() -> [(&'static str, usize, u64, Recipe); 3] {
    let corners_and_centre = vec![(0, 0), (0, 4), (2, 2), (4, 0), (4, 4)];
    let three = vec![(0, 1), (2, 3), (4, 2)];
    [
        ("easy", 12, 71_000, Recipe::exam(7)),
        (
            "hard",
            8,
            72_000,
            Recipe {
                givens: corners_and_centre,
                words: 10,
                min_len: 5,
                max_len: 9,
            },
        ),
        (
            "hard",
            6,
            73_000,
            Recipe {
                givens: three,
                words: 12,
                min_len: 5,
                max_len: 9,
            },
        ),
    ]
}

/// How many solved boards the `solved` level holds (for the exam's
/// `valid_solution` question: full boards with their words).
const SOLVED: usize = 6;

/// How many puzzles the `newspaper` level holds (the Evening Standard's
/// form: nine given letters as a 3x3 block, a blank line, the words).
const NEWSPAPER: usize = 12;

/// How a level's puzzles are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The exam's single file.
    Exam,
    /// The newspaper's single file.
    Newspaper,
    /// A board file and a words file.
    Split,
}

/// One suite entry: name, puzzle, comment.
type Entry = (String, Puzzle, String);

/// Writes `dir/easy`, `dir/hard`, `dir/solved`, `dir/newspaper` and
/// `dir/challenge` with their listings.
pub fn write(dir: &Path) -> anyhow::Result<()> {
    let mut easy: Vec<Entry> = Vec::new();
    let mut hard: Vec<Entry> = Vec::new();
    let mut solved: Vec<Entry> = Vec::new();
    for &(name, text, comment) in EASY_BY_HAND {
        let puzzle = parse_exam(text).with_context(|| format!("gogen easy {name}"))?;
        easy.push((name.into(), puzzle, comment.into()));
    }
    for &(name, words, comment) in HARD_BY_HAND {
        let puzzle = Puzzle {
            board: Board::default(),
            words: words.split(' ').map(String::from).collect(),
        };
        hard.push((name.into(), puzzle, comment.into()));
    }
    for (level, count, seed, recipe) in recipes() {
        for i in 0..count {
            let seed = seed + i as u64;
            let (puzzle, solution) = random_puzzle(&recipe, &mut rng(seed));
            let note = format!(
                "random, {} letters given, {} words (seed {seed})",
                puzzle.board.occupied().count(),
                puzzle.words.len()
            );
            let label = format!("random.{}g.{i}", recipe.givens.len());
            if level == "easy" {
                if i < SOLVED {
                    let full = Puzzle {
                        board: solution,
                        words: puzzle.words.clone(),
                    };
                    let note = format!("the solution of easy {label}, every letter given");
                    solved.push((format!("solved.{i}"), full, note));
                }
                easy.push((label, puzzle, note));
                continue;
            }
            if i % 2 == 1 {
                let broken = broken(&puzzle, &solution)
                    .with_context(|| format!("gogen hard {label}: no word to break it"))?;
                let note = format!("{note}, plus {}", broken.words.last().expect("added"));
                hard.push((format!("{label}.broken"), broken, note));
            }
            hard.push((label, puzzle, note));
        }
    }
    let mut newspaper: Vec<Entry> = Vec::new();
    let recipe = Recipe {
        min_len: 3,
        max_len: 7,
        ..Recipe::exam(12)
    };
    let mut seed = 74_000;
    while newspaper.len() < NEWSPAPER {
        let (puzzle, _) = random_puzzle(&recipe, &mut rng(seed));
        // Only puzzles whose givens are the nine of the newspaper's grid.
        if format_newspaper(&puzzle).is_some() && puzzle.board.occupied().count() == 9 {
            let note = format!(
                "random, newspaper form, {} words (seed {seed})",
                puzzle.words.len()
            );
            newspaper.push((format!("random.news.{}", newspaper.len()), puzzle, note));
        }
        seed += 1;
    }
    // The exam's question 5 asks for the solution of `gogen-challenge.txt`
    // (the course's file is not ours to ship): our own, in the exam's
    // form, nine letters given as the exam's board, the first seed from
    // 75000 whose solution is unique.
    let mut seed = 75_000;
    let challenge = loop {
        let (puzzle, _) = random_puzzle(&Recipe::exam(8), &mut rng(seed));
        if count_solutions(&puzzle, 2) == 1 {
            let note = format!(
                "the exam's question 5: random, {} letters given, {} words (seed {seed})",
                puzzle.board.occupied().count(),
                puzzle.words.len()
            );
            break ("gogen-challenge".to_string(), puzzle, note);
        }
        seed += 1;
    };
    write_level(
        &dir.join("challenge"),
        "challenge",
        &[challenge],
        Form::Exam,
    )?;
    write_level(&dir.join("easy"), "easy", &easy, Form::Exam)?;
    write_level(&dir.join("solved"), "solved", &solved, Form::Exam)?;
    write_level(
        &dir.join("newspaper"),
        "newspaper",
        &newspaper,
        Form::Newspaper,
    )?;
    write_level(&dir.join("hard"), "hard", &hard, Form::Split)
}

/// `puzzle` plus a two-letter word naming two free letters that are not
/// adjacent in its unique solution (so the new puzzle has none), choosing
/// the pair whose cells are farthest apart in board order.
fn broken(puzzle: &Puzzle, solution: &Board) -> Option<Puzzle> {
    let free: Vec<(usize, usize)> = (0..SIDE * SIDE)
        .map(|i| (i / SIDE, i % SIDE))
        .filter(|&(r, c)| puzzle.board.0[r][c].is_none())
        .collect();
    let pair = free
        .iter()
        .flat_map(|a| free.iter().map(move |b| (*a, *b)))
        .find(|(a, b)| a.0.abs_diff(b.0) == 2 && a.1.abs_diff(b.1) == 2)?;
    let letter = |(r, c): (usize, usize)| char::from(solution.0[r][c].expect("solved"));
    let mut words = puzzle.words.clone();
    words.push(format!("{}{}", letter(pair.0), letter(pair.1)));
    Some(Puzzle {
        board: puzzle.board,
        words,
    })
}

/// Writes one level's files and listing in `form`.
fn write_level(folder: &Path, level: &str, puzzles: &[Entry], form: Form) -> anyhow::Result<()> {
    let split = form == Form::Split;
    fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let listing_path = folder.join(format!("{level}.csv"));
    let mut listing = csv::Writer::from_path(&listing_path)
        .with_context(|| format!("cannot write {}", listing_path.display()))?;
    if split {
        listing.write_record(["board", "words", "expect", "comment"])?;
    } else {
        listing.write_record(["puzzle", "expect", "comment"])?;
    }
    let (mut solvable, mut unsolvable) = (0, 0);
    for (name, puzzle, comment) in puzzles {
        let expect = match count_solutions(puzzle, 1) {
            0 => {
                unsolvable += 1;
                "unsolvable"
            }
            _ => {
                solvable += 1;
                "solvable"
            }
        };
        if name.starts_with("random")
            && !name.ends_with("broken")
            && count_solutions(puzzle, 2) != 1
        {
            bail!("gogen {level}/{name}: not unique");
        }
        if split {
            fs::write(
                folder.join(format!("{name}.board")),
                puzzle.board.to_string(),
            )?;
            let words: String = puzzle.words.iter().map(|w| format!("{w}\n")).collect();
            fs::write(folder.join(format!("{name}.words")), words)?;
            listing.write_record([
                format!("{name}.board"),
                format!("{name}.words"),
                expect.into(),
                comment.clone(),
            ])?;
        } else {
            let text = match form {
                Form::Newspaper => format_newspaper(puzzle)
                    .with_context(|| format!("gogen {level}/{name}: givens off the 3x3 grid"))?,
                _ => format_exam(puzzle),
            };
            fs::write(folder.join(format!("{name}.txt")), text)?;
            listing.write_record([format!("{name}.txt"), expect.into(), comment.clone()])?;
        }
    }
    listing.flush()?;
    println!(
        "wrote {} ({} puzzles: {solvable} solvable, {unsolvable} unsolvable)",
        folder.display(),
        puzzles.len()
    );
    Ok(())
}
