//! Gogen (Imperial College C test): place 'A' to 'Y' on a 5x5 board, each
//! once, so that every word can be spelled by king moves.

mod board;
mod check;
mod generate;
mod parse;
mod solve;

use std::path::PathBuf;

pub use board::{Board, LetterMask, NUM_LETTERS, SIDE};
pub use check::{CheckerReport, Invalid, judge, run_checker, valid_solution};
pub use generate::{Recipe, random_puzzle};
pub use parse::{
    ParseError, ParseErrorKind, Puzzle, PuzzleFileError, format_exam, parse_board_file, parse_exam,
    parse_solution, parse_words_file, read_puzzle,
};
pub use solve::{count_solutions, solutions, solve};

use crate::family::{Answer, Family, Judgement, LoadError};

/// The Gogen family for the harness: one file (exam form) or two (board,
/// words) per case; the candidate prints the solved board.
pub struct Gogen;

impl Family for Gogen {
    type Puzzle = Puzzle;
    const NAME: &'static str = "gogen";
    const LISTING_FORMS: &'static [&'static [&'static str]] = &[&["puzzle"], &["board", "words"]];

    fn load(files: &[PathBuf]) -> Result<Puzzle, LoadError> {
        read_puzzle(files).map_err(LoadError::new)
    }

    fn judge(p: &Puzzle, stdout: &[u8], exit_code: i32) -> Judgement {
        judge(p, stdout, exit_code, || solve(p).is_some())
    }

    fn answer(p: &Puzzle) -> Answer {
        match solve(p) {
            Some(board) => Answer {
                stdout: board.to_string(),
                stderr: String::new(),
                exit_code: 0,
            },
            None => Answer {
                stdout: String::new(),
                stderr: "no solution\n".into(),
                exit_code: 1,
            },
        }
    }
}
