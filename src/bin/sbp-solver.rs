//! `sbp-solver INIT GOAL`: the CS61BL project 3 Solver contract.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use puzzlegrade::{emit, fail, parse_args};
use reference::slidingblock::{Format, PuzzleFileError, SolveOptions, answer, read_puzzle, solve};

/// Solve a sliding-block puzzle: print moves `r c r' c'`, one per line.
/// Exit 0 solved; 1 no solution (nothing on stdout); 2 not exactly two
/// arguments; 3 an argument is not a readable file; 4 init or goal malformed.
#[derive(Parser)]
#[command(
    name = "sbp-solver",
    version,
    override_usage = "sbp-solver [OPTIONS] <init> <goal>"
)]
struct Args {
    /// Breadth-first: a solution with the fewest moves (slower, more memory).
    #[arg(long)]
    optimal: bool,
    /// Give up after this many distinct states (exit 1, said on stderr);
    /// default 40000000, or 250000000 with --optimal.
    #[arg(long)]
    max_states: Option<usize>,
    /// Read the course's older block format, `height width row col`.
    #[arg(long)]
    old_format: bool,
    /// Print the number of states explored and the time on stderr.
    #[arg(long)]
    stats: bool,
    /// The initial tray and the goal.
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let [init, goal] = args.files.as_slice() else {
        return fail(
            "sbp-solver",
            format!("expected 2 arguments (init goal), got {}", args.files.len()),
            2,
        );
    };
    let format = if args.old_format {
        Format::SizeCorner
    } else {
        Format::Corners
    };
    let (tray, goal) = match read_puzzle(init, goal, format) {
        Ok(p) => p,
        Err(e @ PuzzleFileError::Unreadable { .. }) => return fail("sbp-solver", e, 3),
        Err(e) => return fail("sbp-solver", e, 4),
    };
    let start = Instant::now();
    let mut options = if args.optimal {
        SolveOptions::optimal()
    } else {
        SolveOptions::default()
    };
    if let Some(max) = args.max_states {
        options.max_states = max;
    }
    let report = solve(&tray, &goal, &options);
    if args.stats {
        eprintln!(
            "sbp-solver: {} states in {:.2} ms",
            report.states,
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    emit(&answer(&report), Some("sbp-solver"))
}
