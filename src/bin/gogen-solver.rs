//! `gogen-solver PUZZLE` or `gogen-solver BOARD WORDS`: solve a Gogen.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use puzzlegrade::{emit, fail, parse_args};
use reference::file::FileError;
use reference::gogen::{PuzzleFileError, answer, read_puzzle, solutions};

/// Solve a Gogen puzzle: print the filled board, five lines of five letters.
/// Exit 0 solved; 1 no solution (nothing on stdout); 2 not one or two
/// arguments; 3 an argument is not a readable file; 4 a malformed puzzle.
#[derive(Parser)]
#[command(
    name = "gogen-solver",
    version,
    override_usage = "gogen-solver [OPTIONS] <PUZZLE | BOARD WORDS>"
)]
struct Args {
    /// Also say on stderr whether the solution is unique.
    #[arg(long)]
    unique: bool,
    /// Print the time taken on stderr.
    #[arg(long)]
    stats: bool,
    /// Solve this many times (for benchmarks; `--stats` then gives the
    /// mean and the slowest run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The exam's single puzzle file, or a board file and a words file.
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let puzzle = match read_puzzle(&args.files) {
        Ok(p) => p,
        Err(e @ PuzzleFileError::FileCount(_)) => return fail("gogen-solver", e, 2),
        Err(e @ PuzzleFileError::File(FileError::Unreadable { .. })) => {
            return fail("gogen-solver", e, 3);
        }
        Err(e) => return fail("gogen-solver", e, 4),
    };
    let limit = if args.unique { 2 } else { 1 };
    let (mut total, mut slowest) = (0.0f64, 0.0f64);
    let mut found = Vec::new();
    for _ in 0..args.repeat {
        let start = Instant::now();
        found = solutions(&puzzle, limit);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        total += ms;
        slowest = slowest.max(ms);
    }
    if args.stats {
        eprintln!(
            "gogen-solver: {:.3} ms mean, {slowest:.3} ms slowest of {} runs",
            total / f64::from(args.repeat),
            args.repeat
        );
    }
    if args.unique && !found.is_empty() {
        eprintln!(
            "gogen-solver: {}",
            if found.len() == 1 {
                "the solution is unique"
            } else {
                "the solution is not unique"
            }
        );
    }
    emit(&answer(found.first()), Some("gogen-solver"))
}
