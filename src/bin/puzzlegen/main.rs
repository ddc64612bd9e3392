//! `puzzlegen`: writes the bundled suites from fixed seeds, verifies suites
//! against their listings, and prints single generated boards.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use puzzlegrade::parse_args;
use reference::file::listing_dir;
use reference::lightsout::{
    Board, Minimality, Replay, Solver, format_board, read_board, replay, rng, scrambled, uniform,
};

/// Suite tools: generate the bundled suites, verify suites, make boards.
#[derive(Parser)]
#[command(name = "puzzlegen", version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write suites/{lightsout,slidingblock,gogen}/{easy,hard} and their
    /// listings from fixed seeds and hand-written puzzles.
    Suites {
        /// The suites folder to write into.
        #[arg(long, default_value = "suites")]
        out: PathBuf,
    },
    /// Solve and check every board listed under DIR (listings with header
    /// `board,expect,min_presses`) and print a summary; exit 1 on any mismatch.
    Verify {
        /// A folder to search for listings.
        #[arg(default_value = "suites")]
        dir: PathBuf,
    },
    /// Write a suite of COUNT seeded random boards into DIR, with a listing
    /// `DIR/<name of DIR>.csv` (for benchmarks and stress tests).
    LightsoutSuite {
        /// The folder to create.
        dir: PathBuf,
        /// How many boards.
        #[arg(long, default_value_t = 100)]
        count: usize,
        /// Board width.
        #[arg(long, default_value_t = 3)]
        width: usize,
        /// Board height.
        #[arg(long, default_value_t = 3)]
        height: usize,
        /// Seed of the random generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Prove the fewest moves of every sliding-block case in LISTINGs
    /// (CS61BL format) by breadth-first search and write the best-known
    /// table (`suites/slidingblock/optimal.csv` is this for the CS61BL easy
    /// and hard suites; `puzzlegen suites` writes the bundled suites' own).
    Optimal {
        /// CS61BL listings (`initial config file, goal file, comments`).
        #[arg(required = true)]
        listings: Vec<PathBuf>,
        /// Write the table here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The breadth-first search's state cap per case.
        #[arg(long, default_value_t = slidingblock_suites::OPTIMAL_TABLE_STATES)]
        max_states: usize,
    },
    /// Write a contest's unreleased sliding-block puzzles into DIR (a
    /// CS61BL listing named after it): seeded random walks from Klotski,
    /// Pennant and the hard random puzzles, each solvable and at least ten
    /// moves from its goal. Keep the seed from the students, and DIR out of
    /// the suites they see.
    SlidingblockContest {
        /// The folder to create.
        dir: PathBuf,
        /// How many puzzles.
        #[arg(long, default_value_t = 12)]
        count: usize,
        /// Seed of the random generator.
        #[arg(long)]
        seed: u64,
    },
    /// Print one seeded Lights Out board in the 15-122 file format.
    Board {
        /// Width (columns).
        width: usize,
        /// Height (rows).
        height: usize,
        /// Seed of the random generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Scramble an all-off board with this many random presses (always
        /// solvable) instead of drawing every light uniformly.
        #[arg(long)]
        scramble: Option<usize>,
    },
}

fn main() -> ExitCode {
    let args = match parse_args::<Args>(2) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let result = match args.command {
        Command::Suites { out } => write_suites(&out).map(|()| ExitCode::SUCCESS),
        Command::Verify { dir } => verify(&dir),
        Command::LightsoutSuite {
            dir,
            count,
            width,
            height,
            seed,
        } => {
            if width == 0 || height == 0 {
                eprintln!("puzzlegen: board dimensions must be at least 1x1");
                return ExitCode::from(2);
            }
            let boards = vec![(width, height, Uniform); count];
            write_level(&dir, seed, &boards).map(|()| ExitCode::SUCCESS)
        }
        Command::SlidingblockContest { dir, count, seed } => {
            slidingblock_suites::write_contest(&dir, seed, count).map(|()| ExitCode::SUCCESS)
        }
        Command::Optimal {
            listings,
            out,
            max_states,
        } => slidingblock_suites::optimal_table(&listings, max_states).and_then(|table| {
            match out {
                Some(path) => std::fs::write(&path, table)
                    .with_context(|| format!("cannot write {}", path.display()))?,
                None => print!("{table}"),
            }
            Ok(ExitCode::SUCCESS)
        }),
        Command::Board {
            width,
            height,
            seed,
            scramble,
        } => {
            if width == 0 || height == 0 {
                eprintln!("puzzlegen: board dimensions must be at least 1x1");
                return ExitCode::from(2);
            }
            let mut r = rng(seed);
            let board = match scramble {
                Some(n) => scrambled(width, height, n, &mut r),
                None => uniform(width, height, &mut r),
            };
            print!("{}", format_board(&board));
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("puzzlegen: {e:#}");
        ExitCode::from(2)
    })
}

/// How a suite board is drawn.
#[derive(Clone, Copy)]
enum Draw {
    Uniform,
    Scrambled(usize),
}

use Draw::{Scrambled, Uniform};

/// One bundled suite level: its name, its seed, and its boards as (width, height, draw).
type Level = (&'static str, u64, &'static [(usize, usize, Draw)]);

/// The bundled Lights Out suites.
const LIGHTSOUT_SUITES: &[Level] = &[
    (
        "easy",
        15_122,
        &[
            (2, 2, Uniform),
            (2, 2, Scrambled(3)),
            (3, 2, Uniform),
            (3, 2, Uniform),
            (3, 2, Scrambled(2)),
            (2, 3, Uniform),
            (2, 3, Scrambled(3)),
            (3, 3, Uniform),
            (3, 3, Scrambled(4)),
            (4, 3, Uniform),
            (4, 4, Uniform),
            (4, 4, Uniform),
            (4, 4, Scrambled(5)),
            (5, 4, Uniform),
            (5, 5, Uniform),
            (5, 5, Uniform),
            (5, 5, Uniform),
            (5, 5, Scrambled(6)),
            (5, 5, Scrambled(12)),
        ],
    ),
    (
        "hard",
        15_123,
        &[
            (6, 6, Uniform),
            (6, 6, Scrambled(14)),
            (7, 7, Uniform),
            (8, 8, Uniform),
            (8, 8, Scrambled(30)),
            (9, 9, Uniform),
            (9, 9, Uniform),
            (9, 9, Scrambled(40)),
            (9, 7, Uniform),
            (7, 9, Uniform),
            (9, 8, Scrambled(36)),
            (19, 19, Scrambled(120)),
            (30, 30, Scrambled(300)),
            (100, 100, Uniform),
            (100, 100, Scrambled(2000)),
            (300, 300, Uniform),
            (300, 300, Scrambled(20_000)),
        ],
    ),
    // 15-110's boards: uniformly random 5x5 boards (about a quarter of
    // them solvable), as its `solvable?` is judged on.
    ("5x5", 15_110, &[(5, 5, Uniform); 40]),
];

fn write_suites(out: &Path) -> anyhow::Result<()> {
    for (level, seed, boards) in LIGHTSOUT_SUITES {
        write_level(&out.join("lightsout").join(level), *seed, boards)?;
    }
    slidingblock_suites::write(&out.join("slidingblock"))?;
    gogen_suites::write(&out.join("gogen"))
}

mod gogen_suites;
mod slidingblock_cases;
mod slidingblock_suites;

/// Writes the boards of one level into `dir` with a listing named after `dir`.
fn write_level(dir: &Path, seed: u64, boards: &[(usize, usize, Draw)]) -> anyhow::Result<()> {
    let level = dir
        .file_name()
        .with_context(|| format!("{} has no folder name", dir.display()))?
        .to_string_lossy();
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut r = rng(seed);
    let mut listing = csv::Writer::from_path(dir.join(format!("{level}.csv")))?;
    listing.write_record(["board", "expect", "min_presses"])?;
    let digits = boards.len().saturating_sub(1).to_string().len().max(2);
    for (i, &(w, h, draw)) in boards.iter().enumerate() {
        let board = match draw {
            Uniform => uniform(w, h, &mut r),
            Scrambled(n) => scrambled(w, h, n, &mut r),
        };
        let name = format!("{w}x{h}-{i:0digits$}.txt");
        fs::write(dir.join(&name), format_board(&board))?;
        let (expect, min) = expectation(&board)?;
        listing.write_record([name.as_str(), expect, &min])?;
    }
    listing.flush()?;
    println!("wrote {} ({} boards)", dir.display(), boards.len());
    Ok(())
}

/// The listing's `expect` and `min_presses` for a board.
fn expectation(board: &Board) -> anyhow::Result<(&'static str, String)> {
    match Solver::new(board.width(), board.height()).solve_minimum(board) {
        None => Ok(("unsolvable", String::new())),
        Some(s) if s.minimality == Minimality::Proven => {
            Ok(("solvable", s.press_count().to_string()))
        }
        Some(_) => bail!(
            "minimum not proven for a {}x{} board",
            board.width(),
            board.height()
        ),
    }
}

/// Verifies every `board,expect,min_presses` listing under `dir`.
fn verify(dir: &Path) -> anyhow::Result<ExitCode> {
    let mut listings: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .filter(|p| fs::read_to_string(p).is_ok_and(|t| t.starts_with("board,expect,min_presses")))
        .collect();
    listings.sort();
    if listings.is_empty() {
        bail!(
            "no Lights Out listings (board,expect,min_presses) under {}",
            dir.display()
        );
    }
    let mut all_ok = true;
    for listing in &listings {
        all_ok &= verify_listing(listing)?;
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn verify_listing(listing: &Path) -> anyhow::Result<bool> {
    let base = listing_dir(listing);
    let start = Instant::now();
    let (mut total, mut solvable, mut failures) = (0, 0, Vec::new());
    let mut reader = csv::Reader::from_path(listing)?;
    for (i, row) in reader.records().enumerate() {
        let row = row.with_context(|| format!("{}: line {}", listing.display(), i + 2))?;
        let (name, expect, min) = (&row[0], &row[1], row.get(2).unwrap_or(""));
        total += 1;
        let path = base.join(name);
        let problem = match read_board(&path) {
            Err(e) => Some(e.to_string()),
            Ok(board) => check_board(&board, expect, min, &mut solvable),
        };
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", path.display()));
        }
    }
    let ok = total - failures.len();
    println!(
        "{}: {ok}/{total} boards verified ({solvable} solvable, {} unsolvable) in {:.1?}",
        listing.display(),
        total - solvable,
        start.elapsed()
    );
    for f in &failures {
        println!("  FAILED {f}");
    }
    Ok(failures.is_empty())
}

/// Solves `board` and compares with the listing; `Some(reason)` on mismatch.
fn check_board(board: &Board, expect: &str, min: &str, solvable: &mut usize) -> Option<String> {
    let solution = Solver::new(board.width(), board.height()).solve_minimum(board);
    match (expect, solution) {
        ("unsolvable", None) => None,
        ("solvable", Some(s)) => {
            *solvable += 1;
            let moves: String = s.moves().map(|c| format!("{c}\n")).collect();
            if !matches!(replay(board, moves.as_bytes()), Replay::Solved { .. }) {
                return Some("solution does not verify".into());
            }
            match min.parse::<usize>() {
                Ok(m) if m != s.press_count() => Some(format!(
                    "listing says {m} presses, solver found {}",
                    s.press_count()
                )),
                _ => None,
            }
        }
        (expect, found) => Some(format!(
            "listing says {expect:?}, solver says {}",
            if found.is_some() {
                "solvable"
            } else {
                "unsolvable"
            }
        )),
    }
}
