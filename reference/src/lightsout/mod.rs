//! Lights Out (CMU 15-122, CMU 15-110, UPenn CIS 521): m x n boards where a
//! press toggles a cell and its four orthogonal neighbours.

mod board;
mod chase;
mod check;
mod conform;
mod dense;
mod generate;
mod minimum;
mod parse;
mod questions;
mod replay;
mod solve;

pub use board::{Board, Cell};
pub use check::{
    Game, MoveError, MoveErrorKind, Replay, answer, minimality_note, move_error, parse_move,
    replay, replay_until_won, verify, verify_until_won, write_moves,
};
pub use generate::{rng, scrambled, uniform};
pub use parse::{
    BoardFileError, Found, MAX_CELLS, ParseError, ParseErrorKind, format_board, parse_board,
    read_board,
};
pub use solve::{MAX_EXHAUSTIVE_NULLITY, Minimality, Solution, Solver, solve, solve_minimum};

use std::path::PathBuf;

use crate::battery::Battery;
use crate::family::{Answer, Family, LoadError, LoadOptions, Role, Statuses, Verified, battery_of};

/// The Lights Out family for the harness: one board file per case; the
/// candidate prints moves (15-122 contract), judged against the minimum.
pub struct LightsOut;

/// A board ready to judge, with its minimum-press solution precomputed.
pub struct Graded {
    board: Board,
    minimum: Option<Solution>,
}

impl Family for LightsOut {
    type Puzzle = Graded;
    const NAME: &'static str = "lightsout";
    const LISTING_FORMS: &'static [&'static [&'static str]] = &[&["board"]];
    const STATUSES: Statuses = Statuses::AnswerOrNone;

    fn load(files: &[PathBuf], _options: &LoadOptions) -> Result<Graded, LoadError> {
        let board = read_board(&files[0]).map_err(LoadError::new)?;
        let minimum = solve_minimum(&board);
        Ok(Graded { board, minimum })
    }

    fn verify(p: &Graded, stdout: &[u8]) -> Verified {
        verify(&p.board, stdout)
    }

    fn solvable(p: &Graded) -> Option<bool> {
        Some(p.minimum.is_some())
    }

    fn best_moves(p: &Graded) -> Option<u64> {
        p.minimum.as_ref().map(|s| s.press_count() as u64)
    }

    fn answer(p: &Graded) -> Answer {
        answer(p.minimum.as_ref())
    }

    fn replay(files: &[PathBuf], stdout: &[u8]) -> Option<crate::replay::Replay> {
        match files {
            [board] => replay::replay_answer(board, stdout),
            _ => None,
        }
    }

    /// The functions the handouts ask for, judged by transcript.
    const QUESTIONS: &'static [&'static dyn crate::family::Grader] = questions::QUESTIONS;

    fn battery(role: Role) -> Option<Battery> {
        battery_of(role, &[(Role::Solver, conform::solver)])
    }
}

/// The 15-122 judge of a solver's moves (`lightsout:loplayer`, a course
/// part's `judge`): as [`LightsOut`]'s, but the moves read as the course's
/// own pipe into `loplayer` reads them, no further than the winning move
/// ([`verify_until_won`]): a `board solved` line after it costs nothing.
pub struct LoPlayer;

impl Family for LoPlayer {
    type Puzzle = Graded;
    const NAME: &'static str = "lightsout:loplayer";
    const LISTING_FORMS: &'static [&'static [&'static str]] = LightsOut::LISTING_FORMS;
    const STATUSES: Statuses = LightsOut::STATUSES;

    fn load(files: &[PathBuf], options: &LoadOptions) -> Result<Graded, LoadError> {
        LightsOut::load(files, options)
    }

    fn verify(p: &Graded, stdout: &[u8]) -> Verified {
        verify_until_won(&p.board, stdout)
    }

    fn solvable(p: &Graded) -> Option<bool> {
        LightsOut::solvable(p)
    }

    fn best_moves(p: &Graded) -> Option<u64> {
        LightsOut::best_moves(p)
    }

    fn answer(p: &Graded) -> Answer {
        LightsOut::answer(p)
    }

    fn replay(files: &[PathBuf], stdout: &[u8]) -> Option<crate::replay::Replay> {
        LightsOut::replay(files, stdout)
    }
}
