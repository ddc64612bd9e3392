//! The bundled sliding-block suites: classic puzzles written out by hand
//! (Klotski, Pennant) in every quarter turn, puzzles that cannot be solved,
//! and random puzzles from fixed seeds. Listings use the CS61BL format
//! (`initial config file, goal file, comments`); each comment starts with
//! the expected outcome.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, bail};
use reference::lightsout::rng;
use reference::slidingblock::{
    BestKnown, Format, Goal, Known, OptimalMethod, Outcome, SolveOptions, Tray, fingerprint,
    format_blocks, format_table, format_tray, optimal_method, read_puzzle, solve, walk,
};

use crate::slidingblock_cases::{self as cases, Case};

/// A contest's unreleased puzzles: `count` trays each reached by a seeded
/// random walk of 100 to 1,000 tries from Klotski or Pennant (in any
/// quarter turn) or a hard random puzzle, with that puzzle's goal; each
/// at least ten moves from it. Moves can be undone, so each is solvable, and no
/// tray is one the suites released. Written into `dir` with a CS61BL
/// listing named after it.
pub fn write_contest(dir: &Path, seed: u64, count: usize) -> anyhow::Result<()> {
    use rand::RngExt;
    let sources: Vec<(String, Tray, Goal)> = cases::contest_sources()?
        .into_iter()
        .map(|c| (c.name, c.tray, c.goal))
        .collect();
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let stem = dir
        .file_name()
        .map_or_else(|| "contest".into(), |n| n.to_string_lossy().into_owned());
    let mut listing = String::from(
        "initial config file, goal file, comments
",
    );
    let mut r = rng(seed);
    let mut i = 0;
    while i < count {
        let (source, tray, goal) = &sources[r.random_range(0..sources.len())];
        let steps = r.random_range(100..=1000usize);
        let t = walk(tray, steps, &mut r);
        // At least ten moves from the goal, by the reference's search.
        match solve(&t, goal, &SolveOptions::default()).outcome {
            Outcome::Solved(moves) if moves.len() >= 10 => {}
            _ => continue,
        }
        let name = format!("{stem}.{i}");
        fs::write(dir.join(&name), format_tray(&t, Format::Corners))?;
        fs::write(
            dir.join(format!("{name}.goal")),
            format_blocks(&goal.blocks, Format::Corners),
        )?;
        writeln!(
            listing,
            "{name},{name}.goal,solvable: {steps} random tries of a move from {source} (seed {seed})"
        )?;
        i += 1;
    }
    fs::write(dir.join(format!("{stem}.csv")), listing)?;
    println!(
        "wrote {} ({count} contest puzzles, seed {seed})",
        dir.display()
    );
    Ok(())
}

/// Writes both levels under `dir` (`dir/easy`, `dir/hard`): each case's
/// files, a CS61BL listing whose comments start with the expected outcome,
/// and the best-known table proving each case's fewest moves (or that it
/// has none), checked against what the case's making proved.
pub fn write(dir: &Path) -> anyhow::Result<()> {
    for (level, puzzles) in [("easy", cases::easy()?), ("hard", cases::hard()?)] {
        write_level(&dir.join(level), level, &puzzles)?;
    }
    Ok(())
}

fn write_level(folder: &Path, level: &str, puzzles: &[Case]) -> anyhow::Result<()> {
    fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let mut listing = String::from("initial config file, goal file, comments\n");
    let suite = format!("slidingblock/{level}");
    let (mut solvable, mut unsolvable) = (0, 0);
    let mut rows = Vec::new();
    for case in puzzles {
        let name = &case.name;
        let goal_file = format!("{name}.goal");
        let row = optimal_row(
            &suite,
            name,
            &goal_file,
            &case.tray,
            &case.goal,
            OPTIMAL_TABLE_STATES,
        );
        let expect = match row.known {
            Known::Fewest(0) if !name.starts_with("already.there") => {
                bail!("{level}/{name}: met before any move, but not named already.there")
            }
            Known::Fewest(_) => {
                solvable += 1;
                "solvable"
            }
            Known::NoSolution => {
                unsolvable += 1;
                "unsolvable"
            }
            Known::Unproven => bail!("{level}/{name}: unproven ({})", row.proof),
        };
        if let Some(made) = case.made
            && made.map(|m| m as u64) != row.known.fewest()
        {
            bail!(
                "{level}/{name}: made as {made:?} moves, the table proves {:?}",
                row.known
            );
        }
        fs::write(folder.join(name), format_tray(&case.tray, Format::Corners))?;
        fs::write(
            folder.join(&goal_file),
            format_blocks(&case.goal.blocks, Format::Corners),
        )?;
        writeln!(listing, "{name},{goal_file},{expect}: {}", case.comment)?;
        rows.push(row);
    }
    fs::write(folder.join(format!("{level}.csv")), listing)?;
    fs::write(folder.join("optimal.csv"), format_table(&rows))?;
    println!(
        "wrote {} ({} puzzles: {solvable} solvable, {unsolvable} unsolvable)",
        folder.display(),
        puzzles.len()
    );
    Ok(())
}

/// The state cap of the best-known tables' breadth-first searches.
pub const OPTIMAL_TABLE_STATES: usize = reference::slidingblock::OPTIMAL_MAX_STATES;

/// The hash-table search (trays over 64 cells) costs ~50 bytes a state and
/// its trays are wide (a 256 x 256 tray's block slides up to 255 cells):
/// it stops at a million, which every CS61BL case stays well under.
const HASH_TABLE_STATES: usize = 1_000_000;

/// Proves the fewest moves of one puzzle (or that there are none) with the
/// breadth-first search, and says how.
pub fn optimal_row(
    suite: &str,
    init: &str,
    goal_file: &str,
    tray: &Tray,
    goal: &Goal,
    max_states: usize,
) -> BestKnown {
    let method = optimal_method(tray, goal);
    let cap = match method {
        OptimalMethod::HashTable => max_states.min(HASH_TABLE_STATES),
        OptimalMethod::Layered | OptimalMethod::GoalCannotFit => max_states,
    };
    let options = SolveOptions {
        optimal: true,
        max_states: cap,
    };
    let report = solve(tray, goal, &options);
    let search = match method {
        OptimalMethod::Layered => "layered breadth-first",
        OptimalMethod::HashTable => "hash-table breadth-first",
        OptimalMethod::GoalCannotFit => "",
    };
    let (known, proof) = match report.outcome {
        _ if method == OptimalMethod::GoalCannotFit => (
            Known::NoSolution,
            "the goal cannot fit the tray's blocks".to_string(),
        ),
        Outcome::Solved(moves) if moves.is_empty() => {
            (Known::Fewest(0), "the start meets the goal".to_string())
        }
        Outcome::Solved(moves) => (
            Known::Fewest(moves.len() as u64),
            format!("{search}: every shorter depth seen in full"),
        ),
        Outcome::NoSolution => (
            Known::NoSolution,
            format!("{search}: every reachable state seen"),
        ),
        Outcome::GaveUp => {
            let found = match solve(tray, goal, &SolveOptions::default()).outcome {
                Outcome::Solved(m) => format!("; the default search finds {} moves", m.len()),
                Outcome::NoSolution | Outcome::GaveUp => String::new(),
            };
            (
                Known::Unproven,
                format!("{search}: gave up at {cap} states{found}"),
            )
        }
    };
    BestKnown {
        suite: suite.to_string(),
        init: init.to_string(),
        goal: goal_file.to_string(),
        fingerprint: fingerprint(tray, goal),
        known,
        states: report.states as u64,
        proof,
        default_states: Some(solve(tray, goal, &SolveOptions::default()).states as u64),
    }
}

/// The best-known table of every case of CS61BL-format `listings`
/// (`initial config file, goal file, comments`); a case is named by its
/// listing's folder and name (`cs61bl-slidingblock/hard`). Prints each row
/// as it is proven.
pub fn optimal_table(listings: &[std::path::PathBuf], max_states: usize) -> anyhow::Result<String> {
    let mut rows = Vec::new();
    for listing in listings {
        let folder = reference::file::listing_dir(listing);
        let suite = format!(
            "{}/{}",
            listing
                .parent()
                .and_then(|p| p.canonicalize().ok())
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default(),
            listing.file_stem().unwrap_or_default().to_string_lossy()
        );
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_path(listing)
            .with_context(|| format!("cannot read {}", listing.display()))?;
        for (i, record) in reader.records().enumerate() {
            let line = i + 2;
            let record = record.with_context(|| format!("{}: line {line}", listing.display()))?;
            let (Some(init), Some(goal)) = (record.get(0), record.get(1)) else {
                bail!(
                    "{}: line {line}: expected init and goal files",
                    listing.display()
                );
            };
            let (tray, g) = read_puzzle(&folder.join(init), &folder.join(goal), Format::Corners)
                .with_context(|| format!("{}: line {line}", listing.display()))?;
            let started = std::time::Instant::now();
            let row = optimal_row(&suite, init, goal, &tray, &g, max_states);
            eprintln!(
                "{suite} {init} {goal}: {:?} ({} states, {:.2} s)",
                row.known,
                row.states,
                started.elapsed().as_secs_f64()
            );
            rows.push(row);
        }
    }
    Ok(format_table(&rows))
}
