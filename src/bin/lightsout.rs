//! `lightsout BOARD`: the 15-122 student solver contract, with a
//! minimum-press solution as CIS 521 asks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{emit, fail, parse_args};
use std::io::Write;

use reference::lightsout::{answer, minimality_note, read_board, solve_minimum, write_moves};

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
    match solve_minimum(&board) {
        None => emit(&answer(None), None),
        Some(solution) => {
            // Streamed: the answer can be hundreds of megabytes.
            eprint!("{}", minimality_note(&solution));
            let mut out = std::io::stdout().lock();
            match write_moves(&solution, &mut out).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                // A closed pipe (`| head`) is the reader's choice.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => fail("lightsout", format!("cannot write the moves: {e}"), 1),
            }
        }
    }
}
