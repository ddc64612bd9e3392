//! `sbp-checker INIT GOAL < moves`: the CS61BL project 3 Checker.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::parse_args;
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
    // All of stdin first: a writer must never die of a closed pipe, and the
    // lowest status needs every line seen.
    let mut stdin = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut stdin) {
        eprintln!("sbp-checker: cannot read stdin: {e}");
        return ExitCode::from(4);
    }
    let format = if args.old_format {
        Format::SizeCorner
    } else {
        Format::Corners
    };
    let report = run_checker(&args.files, &stdin, format);
    eprintln!("sbp-checker: {report}");
    ExitCode::from(report.status)
}
