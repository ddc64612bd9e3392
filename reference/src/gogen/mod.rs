//! Gogen (Imperial College C test): place 'A' to 'Y' on a 5x5 board, each
//! once, so that every word can be spelled by king moves.

mod board;
mod check;
mod conform;
mod generate;
mod parse;
mod questions;
mod solve;

use std::path::PathBuf;

pub use board::{Board, LetterMask, NUM_LETTERS, SIDE};
pub use check::{CheckerReport, Invalid, answer, run_checker, valid_solution, verify};
pub use generate::{Recipe, random_puzzle};
pub use parse::{
    ParseError, ParseErrorKind, Puzzle, PuzzleFileError, format_exam, format_newspaper,
    is_newspaper, parse_board_file, parse_exam, parse_newspaper, parse_single, parse_solution,
    parse_words_file, read_puzzle,
};
pub use solve::{count_solutions, solutions, solve};

use std::sync::OnceLock;

use crate::battery::Battery;
use crate::family::{Answer, Family, LoadError, LoadOptions, Role, Statuses, Verified, battery_of};

/// The Gogen family for the harness: one file (exam form) or two (board,
/// words) per case; the candidate prints the solved board.
pub struct Gogen;

/// A puzzle ready to judge; solved at most once, when first needed.
pub struct Graded {
    puzzle: Puzzle,
    solution: OnceLock<Option<Board>>,
}

impl Graded {
    fn solution(&self) -> Option<&Board> {
        self.solution.get_or_init(|| solve(&self.puzzle)).as_ref()
    }
}

impl Family for Gogen {
    type Puzzle = Graded;
    const NAME: &'static str = "gogen";
    const LISTING_FORMS: &'static [&'static [&'static str]] = &[&["puzzle"], &["board", "words"]];
    const STATUSES: Statuses = Statuses::WithInputErrors;

    fn load(files: &[PathBuf], _options: &LoadOptions) -> Result<Graded, LoadError> {
        Ok(Graded {
            puzzle: read_puzzle(files).map_err(LoadError::new)?,
            solution: OnceLock::new(),
        })
    }

    fn verify(p: &Graded, stdout: &[u8]) -> Verified {
        verify(&p.puzzle, stdout)
    }

    fn solvable(p: &Graded) -> Option<bool> {
        Some(p.solution().is_some())
    }

    fn answer(p: &Graded) -> Answer {
        answer(p.solution())
    }

    /// The functions the handouts ask for, judged by transcript.
    const QUESTIONS: &'static [&'static dyn crate::family::Grader] = questions::QUESTIONS;

    fn battery(role: Role) -> Option<Battery> {
        battery_of(role, &[(Role::Solver, conform::solver)])
    }
}
