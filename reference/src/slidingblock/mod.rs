//! Sliding-block puzzles (Berkeley CS61BL project 3): rectangular blocks in
//! a tray of at most 256 x 256, a goal naming block positions (any block of
//! that size may fill one), and moves that slide one block in a straight
//! line through empty cells.

mod best;
mod check;
mod conform;
mod embed;
mod explore;
mod generate;
mod layered;
mod outcome;
mod parse;
mod replay;
mod solve;
mod space;
mod tray;

use std::path::PathBuf;
use std::sync::OnceLock;

pub use best::{
    BestKnown, Known, TABLE_HEADER, TableError, best_known, fingerprint, format_table, parse_table,
};
pub use check::{
    Board, CheckerReport, MoveError, MoveErrorKind, answer, replay, run_checker, verify,
};
pub use embed::{embed, frozen};
pub use explore::Layers;
pub use generate::{
    DeepRecipe, Made, Recipe, deep_puzzle, far_puzzle, random_puzzle, unsolvable_puzzle, walk,
};
pub use outcome::{Outcome, SolveReport};
pub use parse::{
    Format, MoveLineError, ParseError, ParseErrorKind, PuzzleFileError, convert, format_blocks,
    format_tray, parse_goal, parse_moves, parse_tray, read_file, read_puzzle,
};
pub use solve::{
    FIRST_BREADTH_FIRST_STATES, OPTIMAL_MAX_STATES, OptimalMethod, SolveOptions, optimal_method,
    solve,
};
pub use tray::{Block, Goal, MAX_SIDE, Move, Shape, Tray, rotated, rotated_goal};

use crate::battery::Battery;
use crate::family::{Answer, Family, LoadError, LoadOptions, Role, Statuses, Verified, battery_of};

/// The sliding-block family for the harness: two files per case (INIT
/// GOAL); the candidate is a Solver printing moves.
pub struct SlidingBlock;

/// A puzzle ready to judge; solved only if the candidate says it cannot be.
pub struct Puzzle {
    tray: Tray,
    goal: Goal,
    solved: OnceLock<SolveReport>,
    fewest: OnceLock<Option<u64>>,
    /// The most states the search for `fewest` may store.
    best_moves_states: usize,
}

impl Puzzle {
    fn report(&self) -> &SolveReport {
        self.solved
            .get_or_init(|| solve(&self.tray, &self.goal, &SolveOptions::default()))
    }
}

impl Family for SlidingBlock {
    type Puzzle = Puzzle;
    const NAME: &'static str = "slidingblock";
    const LISTING_FORMS: &'static [&'static [&'static str]] =
        &[&["initial config file", "goal file"]];
    const STATUSES: Statuses = Statuses::WithInputErrors;

    fn load(files: &[PathBuf], options: &LoadOptions) -> Result<Puzzle, LoadError> {
        let (tray, goal) =
            read_puzzle(&files[0], &files[1], Format::Corners).map_err(LoadError::new)?;
        Ok(Puzzle {
            tray,
            goal,
            solved: OnceLock::new(),
            fewest: OnceLock::new(),
            best_moves_states: options.best_moves_states,
        })
    }

    /// The proven fewest moves: from the shipped best-known tables (by the
    /// puzzle's fingerprint), else when a breadth-first search of at most
    /// [`LoadOptions::best_moves_states`] states finds them (once per
    /// puzzle; 250,000,000 proves even pandemonium, in ~20 s and ~2 GB).
    fn best_moves(p: &Puzzle) -> Option<u64> {
        *p.fewest.get_or_init(|| {
            if let Some(row) = best_known(&p.tray, &p.goal) {
                return row.known.fewest();
            }
            let cap = p.best_moves_states;
            if cap == 0 {
                return None;
            }
            let options = SolveOptions {
                optimal: true,
                max_states: cap,
            };
            match solve(&p.tray, &p.goal, &options).outcome {
                Outcome::Solved(moves) => Some(moves.len() as u64),
                Outcome::NoSolution | Outcome::GaveUp => None,
            }
        })
    }

    fn verify(p: &Puzzle, stdout: &[u8]) -> Verified {
        verify(&p.tray, &p.goal, stdout)
    }

    fn solvable(p: &Puzzle) -> Option<bool> {
        match p.report().outcome {
            Outcome::Solved(_) => Some(true),
            Outcome::NoSolution => Some(false),
            Outcome::GaveUp => None,
        }
    }

    fn answer(p: &Puzzle) -> Answer {
        answer(p.report())
    }

    /// The CS61BL handout asks for a Checker and a Solver.
    const ROLES: &'static [Role] = &[Role::Checker, Role::Solver];

    fn replay(files: &[PathBuf], stdout: &[u8]) -> Option<crate::replay::Replay> {
        match files {
            [init, goal] => replay::replay_answer(init, goal, stdout),
            _ => None,
        }
    }

    fn battery(role: Role) -> Option<Battery> {
        battery_of(
            role,
            &[
                (Role::Checker, conform::checker),
                (Role::Solver, conform::solver),
            ],
        )
    }

    /// The course's older `height width row col` block lines (2010-2012).
    const FORMATS: &'static [&'static str] = &["size-corner"];

    /// The tray (file 0) or goal (file 1) in the older format.
    fn convert(format: &str, index: usize, bytes: &[u8]) -> Result<Vec<u8>, String> {
        match format {
            "size-corner" => convert(bytes, index > 0, Format::Corners, Format::SizeCorner)
                .map(String::into_bytes)
                .map_err(|e| e.to_string()),
            other => Err(format!("slidingblock has no format {other:?}")),
        }
    }
}
