//! `sbp-checker INIT GOAL < moves`: the CS61BL project 3 Checker.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{parse_args, read_stdin};
use reference::slidingblock::{Format, run_checker};

/// Check that the moves on stdin (`r c r' c'` per line) solve the puzzle.
/// Exit 0 solved; 1 moves valid but goal not met; 2 not exactly two
/// arguments; 3 an argument is not a readable file; 4 a stdin line is not
/// four non-negative integers; 5 init or goal malformed or invalid; 6 an
/// impossible move. The lowest status wins; the reason is on stderr.
#[derive(Parser)]
#[command(
    name = "sbp-checker",
    version,
    override_usage = "sbp-checker [OPTIONS] <init> <goal> < moves"
)]
struct Args {
    /// Read the course's older block format, `height width row col`.
    #[arg(long)]
    old_format: bool,
    /// The initial tray and the goal.
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let stdin = match read_stdin("sbp-checker", 4) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let format = if args.old_format {
        Format::SizeCorner
    } else {
        Format::Corners
    };
    let report = run_checker(&args.files, &stdin, format);
    eprintln!("sbp-checker: {report}");
    ExitCode::from(report.status)
}
