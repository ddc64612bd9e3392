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
    BestKnown, Format, Goal, Known, OptimalMethod, Outcome, Recipe, SolveOptions, Tray,
    fingerprint, format_blocks, format_table, format_tray, optimal_method, parse_goal, parse_tray,
    random_puzzle, read_puzzle, rotated, rotated_goal, solve, walk,
};

/// Klotski (Huarong Dao, "across the pass"): the 2x2 to the bottom middle.
const KLOTSKI: (&str, &str) = (
    "5 4\n0 0 1 0\n0 1 1 2\n0 3 1 3\n2 0 3 0\n2 1 2 2\n2 3 3 3\n3 1 3 1\n3 2 3 2\n4 0 4 0\n4 3 4 3\n",
    "3 1 4 2\n",
);

/// Pennant (Winning Ways): the 2x2 from the top left to the bottom left.
const PENNANT: (&str, &str) = (
    "5 4\n0 0 1 1\n0 2 0 3\n1 2 1 3\n2 0 2 0\n2 1 2 1\n3 0 4 0\n3 1 4 1\n3 2 3 3\n4 2 4 3\n",
    "3 0 4 1\n",
);

/// Hand-written puzzles for the easy level: (name, tray, goal, solvable, comment).
const EASY_BY_HAND: &[(&str, &str, &str, bool, &str)] = &[
    (
        "one.block",
        "1 2\n0 0 0 0\n",
        "0 1 0 1\n",
        true,
        "one 1x1 moves one cell",
    ),
    (
        "already.there",
        "2 2\n0 0 0 0\n1 1 1 1\n",
        "1 1 1 1\n0 0 0 0\n",
        true,
        "the goal holds before any move",
    ),
    (
        "empty.goal",
        "2 2\n0 0 1 0\n",
        "",
        true,
        "an empty goal is met at once",
    ),
    (
        "full.tray",
        "2 2\n0 0 0 0\n0 1 0 1\n1 0 1 0\n1 1 1 1\n",
        "0 0 0 0\n1 1 1 1\n",
        true,
        "a full tray that already meets its goal",
    ),
    (
        "slide.far",
        "1 9\n0 0 0 0\n",
        "0 8 0 8\n",
        true,
        "one slide of eight cells is one move",
    ),
    (
        "swap.columns",
        "2 2\n0 0 0 0\n0 1 1 1\n",
        "0 0 1 0\n0 1 0 1\n",
        false,
        "a 2x1 and a 1x1 cannot trade columns in a 2x2 tray",
    ),
    (
        "no.pass",
        "1 3\n0 0 0 0\n0 1 0 1\n",
        "0 0 0 1\n",
        false,
        "blocks cannot pass each other in one row",
    ),
    (
        "full.deadend",
        "2 2\n0 0 0 1\n1 0 1 1\n",
        "0 0 1 0\n",
        false,
        "a full tray of 1x2s never holds a 2x1",
    ),
    (
        "wedged",
        "3 3\n0 0 0 2\n1 0 1 0\n1 2 1 2\n2 0 2 2\n",
        "1 0 1 2\n",
        false,
        "the 1x3s can never leave their rows",
    ),
    (
        "too.many",
        "2 3\n0 0 0 0\n",
        "0 0 0 0\n1 2 1 2\n",
        false,
        "the goal wants two 1x1s, the tray has one",
    ),
];

/// Random puzzles: (level, name, seed, recipe).
fn random_recipes() -> Vec<(&'static str, String, u64, Recipe)> {
    let mut out = Vec::new();
    let small = |h, w, blocks, walk, goal_blocks| Recipe {
        height: h,
        width: w,
        blocks,
        max_side: 2,
        walk,
        goal_blocks,
    };
    for (i, (h, w)) in [(3, 3), (3, 4), (4, 3), (4, 4), (4, 4), (5, 4)]
        .into_iter()
        .enumerate()
    {
        out.push((
            "easy",
            format!("random.{h}x{w}.{i}"),
            61_000 + i as u64,
            small(h, w, h as usize * 2, 40, 2),
        ));
    }
    for (i, (h, w, blocks)) in [(5, 5, 14), (6, 6, 20), (6, 6, 24), (5, 6, 18), (7, 7, 30)]
        .into_iter()
        .enumerate()
    {
        out.push((
            "hard",
            format!("random.{h}x{w}.{i}"),
            62_000 + i as u64,
            small(h, w, blocks, 400, 3),
        ));
    }
    let big = Recipe {
        height: 256,
        width: 256,
        blocks: 12,
        max_side: 40,
        walk: 200,
        goal_blocks: 4,
    };
    out.push(("hard", "random.256x256".into(), 63_000, big));
    out
}

/// A contest's unreleased puzzles: `count` trays each reached by a seeded
/// random walk of 100 to 1,000 tries from Klotski or Pennant (in any
/// quarter turn) or a hard random puzzle, with that puzzle's goal; each
/// at least ten moves from it. Moves can be undone, so each is solvable, and no
/// tray is one the suites released. Written into `dir` with a CS61BL
/// listing named after it.
pub fn write_contest(dir: &Path, seed: u64, count: usize) -> anyhow::Result<()> {
    use rand::RngExt;
    let mut sources: Vec<(String, Tray, Goal)> = Vec::new();
    for (name, (tray, goal)) in [("klotski", KLOTSKI), ("pennant", PENNANT)] {
        let mut t = parse_tray(tray.as_bytes(), Format::Corners)?;
        let mut g = parse_goal(goal.as_bytes(), Format::Corners, &t)?;
        for turn in [0, 90, 180, 270] {
            sources.push((format!("{name}+{turn}"), t.clone(), g.clone()));
            g = rotated_goal(&g, t.height);
            t = rotated(&t);
        }
    }
    for (level, name, seed, recipe) in random_recipes() {
        if level == "hard" && recipe.height <= 7 {
            let (t, g) = random_puzzle(&recipe, &mut rng(seed));
            sources.push((name, t, g));
        }
    }
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

/// One suite entry: name, tray, goal, comment.
type Entry = (String, Tray, Goal, String);

/// Writes both levels under `dir` (`dir/easy`, `dir/hard`).
pub fn write(dir: &Path) -> anyhow::Result<()> {
    let mut levels: Vec<(&str, Vec<Entry>)> = vec![("easy", Vec::new()), ("hard", Vec::new())];
    for &(name, tray, goal, solvable, comment) in EASY_BY_HAND {
        let t =
            parse_tray(tray.as_bytes(), Format::Corners).with_context(|| format!("{name} tray"))?;
        let g = parse_goal(goal.as_bytes(), Format::Corners, &t)
            .with_context(|| format!("{name} goal"))?;
        let found = matches!(
            solve(&t, &g, &SolveOptions::default()).outcome,
            Outcome::Solved(_)
        );
        if found != solvable {
            bail!("{name}: written as solvable={solvable}, the solver says {found}");
        }
        levels[0].1.push((name.into(), t, g, comment.into()));
    }
    for (name, (tray, goal), comment) in [
        ("klotski", KLOTSKI, "Klotski (Huarong Dao)"),
        ("pennant", PENNANT, "Pennant (Winning Ways)"),
    ] {
        let mut t = parse_tray(tray.as_bytes(), Format::Corners)?;
        let mut g = parse_goal(goal.as_bytes(), Format::Corners, &t)?;
        for turn in [0, 90, 180, 270] {
            let label = if turn == 0 {
                name.to_string()
            } else {
                format!("{name}+{turn}")
            };
            let note = if turn == 0 {
                comment.to_string()
            } else {
                format!("{comment}, turned {turn} degrees")
            };
            levels[1].1.push((label, t.clone(), g.clone(), note));
            g = rotated_goal(&g, t.height);
            t = rotated(&t);
        }
    }
    for (level, name, seed, recipe) in random_recipes() {
        let (t, g) = random_puzzle(&recipe, &mut rng(seed));
        let note = format!(
            "random {}x{} tray, {} blocks, {} moves walked from the goal (seed {seed})",
            recipe.height,
            recipe.width,
            t.blocks.len(),
            recipe.walk
        );
        let index = usize::from(level == "hard");
        levels[index].1.push((name, t, g, note));
    }
    for (level, puzzles) in levels {
        let folder = dir.join(level);
        fs::create_dir_all(&folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
        let mut listing = String::from("initial config file, goal file, comments\n");
        let (mut solvable, mut unsolvable) = (0, 0);
        for (name, tray, goal, comment) in &puzzles {
            let expect = match solve(tray, goal, &SolveOptions::default()).outcome {
                Outcome::Solved(_) => {
                    solvable += 1;
                    "solvable"
                }
                Outcome::NoSolution => {
                    unsolvable += 1;
                    "unsolvable"
                }
                Outcome::GaveUp => bail!("{level}/{name}: the solver gave up"),
            };
            fs::write(folder.join(name), format_tray(tray, Format::Corners))?;
            fs::write(
                folder.join(format!("{name}.goal")),
                format_blocks(&goal.blocks, Format::Corners),
            )?;
            writeln!(listing, "{name},{name}.goal,{expect}: {comment}")?;
        }
        fs::write(folder.join(format!("{level}.csv")), listing)?;
        let suite = format!("slidingblock/{level}");
        let rows: Vec<BestKnown> = puzzles
            .iter()
            .map(|(name, tray, goal, _)| {
                let goal_file = format!("{name}.goal");
                optimal_row(&suite, name, &goal_file, tray, goal, OPTIMAL_TABLE_STATES)
            })
            .collect();
        fs::write(folder.join("optimal.csv"), format_table(&rows))?;
        println!(
            "wrote {} ({} puzzles: {solvable} solvable, {unsolvable} unsolvable)",
            folder.display(),
            puzzles.len()
        );
    }
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
