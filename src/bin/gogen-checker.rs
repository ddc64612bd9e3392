//! `gogen-checker PUZZLE|BOARD WORDS < solution`: check a Gogen solution.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{parse_args, read_stdin};
use reference::gogen::run_checker;

/// Check the board on stdin (five lines of five letters) against a puzzle.
/// Exit 0 valid; 1 invalid (the reason on stderr: the word and the two
/// letters that are not adjacent, or the missing, repeated or changed
/// letter); 2 not one or two arguments; 3 an argument is not a readable
/// file; 4 a malformed puzzle.
#[derive(Parser)]
#[command(
    name = "gogen-checker",
    version,
    override_usage = "gogen-checker <PUZZLE | BOARD WORDS> < solution"
)]
struct Args {
    /// The exam's single puzzle file, or a board file and a words file.
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let stdin = match read_stdin("gogen-checker", 1) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let report = run_checker(&args.files, &stdin);
    eprintln!("gogen-checker: {}", report.reason);
    ExitCode::from(report.status)
}
