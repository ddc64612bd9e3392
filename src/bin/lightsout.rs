//! `lightsout BOARD`: the 15-122 student solver contract, with a
//! minimum-press solution as CIS 521 asks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{emit, fail, parse_args};
use reference::lightsout::{answer, read_board, solve_minimum};

/// Print the moves `r:c` of a minimum-press solution, one per line, and exit
/// 0; when the board cannot be solved print nothing on stdout, `No solution`
/// on stderr and exit 1. Usage or file errors go to stderr with exit 1.
#[derive(Parser)]
#[command(name = "lightsout", version, override_usage = "lightsout <board name>")]
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
        Err(e) => return fail("lightsout", e, 1),
    };
    emit(&answer(solve_minimum(&board).as_ref()), None)
}
