//! `lightsout-ref BOARD`: the CMU 15-122 staff reference solver's report.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{fail, parse_args};
use reference::lightsout::{read_board, solve_minimum};

/// Print the board, then whether it is solvable and, if it is, the bitmap of
/// squares to press (a minimum-press solution). Exits 0 solvable, 1 not.
#[derive(Parser)]
#[command(
    name = "lightsout-ref",
    version,
    override_usage = "lightsout-ref <board>"
)]
struct Args {
    /// The board file (15-122 format).
    board: PathBuf,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(1) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let board = match read_board(&args.board) {
        Ok(b) => b,
        Err(e) => return fail("lightsout-ref", e, 1),
    };
    print!("Here's the board we're starting with:\n{board}");
    match solve_minimum(&board) {
        Some(solution) => {
            print!(
                "Board is solvable.\nSolution bitmap (the squares marked # need to be pushed to solve):\n{}",
                solution.presses
            );
            ExitCode::SUCCESS
        }
        None => {
            println!("No solution was found!");
            ExitCode::from(1)
        }
    }
}
