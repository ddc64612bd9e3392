//! `sbp-convert`: converts tray and goal files between the CS61BL block
//! format (`top left bottom right`) and the course's older one
//! (`height width row col`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use puzzlegrade::{fail, parse_args};
use reference::slidingblock::{Format, convert, read_file};

/// Convert a tray (or, with --goal, a goal) file to the other block format
/// and print it.
#[derive(Parser)]
#[command(name = "sbp-convert", version)]
struct Args {
    /// The format to write; the file is read in the other one.
    #[arg(long, value_enum, default_value_t = To::Corners)]
    to: To,
    /// The file is a goal (block lines only, no tray size).
    #[arg(long)]
    goal: bool,
    /// The file to convert.
    file: PathBuf,
}

#[derive(Clone, Copy, ValueEnum)]
enum To {
    /// `top left bottom right` (CS61BL project 3).
    Corners,
    /// `height width row col` (the older format).
    SizeCorner,
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let (from, to) = match args.to {
        To::Corners => (Format::SizeCorner, Format::Corners),
        To::SizeCorner => (Format::Corners, Format::SizeCorner),
    };
    let text = match read_file(&args.file) {
        Ok(t) => t,
        Err(e) => return fail("sbp-convert", e, 3),
    };
    let path = args.file.display();
    match convert(&text, args.goal, from, to) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => fail("sbp-convert", format!("{path}: {e}"), 4),
    }
}
