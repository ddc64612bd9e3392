//! `sbp-checker` row by row of `shared/specs/slidingblock-checker.md`,
//! `sbp-solver`'s statuses, `sbp-convert`, and every corpus case.

use std::path::Path;

use predicates::prelude::*;

use crate::support::{bin, corpus, temp_file};

/// A 2x3 tray with 1x1 blocks at 0 0 and 1 1.
const TRAY: &str = "2 3\n0 0 0 0\n1 1 1 1\n";
/// A 1x1 block wanted at 0 2.
const GOAL: &str = "0 2 0 2\n";

/// Runs sbp-checker on the given tray, goal and stdin; returns the status.
fn checker(tray: &str, goal: &str, stdin: &str) -> i32 {
    let (t, g) = (temp_file("init", tray), temp_file("goal", goal));
    let out = bin("sbp-checker")
        .arg(&t.path)
        .arg(&g.path)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(
        out.stdout.is_empty(),
        "the checker prints nothing on stdout"
    );
    out.status.code().expect("exited")
}

#[test]
fn spec_table_moves() {
    let rows: &[(&str, &str, &str, i32)] = &[
        ("valid moves reach goal", TRAY, "0 0 0 2\n", 0),
        ("goal reached, then left", TRAY, "0 0 0 2\n0 2 0 1\n", 1),
        ("no moves, goal not met", TRAY, "", 1),
        ("line with 3 integers", TRAY, "1 2 3\n", 4),
        ("line with 5 integers", TRAY, "0 0 0 2 0\n", 4),
        ("words", TRAY, "up up down down\n", 4),
        ("blank line inside stdin", TRAY, "\n0 0 0 2\n", 4),
        ("a lone newline is a blank line", TRAY, "\n", 4),
        ("blank line after the moves", TRAY, "0 0 0 2\n\n", 4),
        (
            "integer too large for 32 bits",
            TRAY,
            "0 0 0 99999999999\n",
            4,
        ),
        ("negative coordinate", TRAY, "0 0 -1 0\n", 4),
        ("plus sign", TRAY, "+0 0 0 2\n", 4),
        (
            "target outside the tray (4 or 6; we say 6)",
            TRAY,
            "0 0 0 5\n",
            6,
        ),
        ("leading and trailing spaces", TRAY, "  0 0 0 2  \n", 0),
        ("CRLF", TRAY, "0 0 0 2\r\n", 0),
        ("no final newline", TRAY, "0 0 0 2", 0),
        ("two spaces or a tab (accepted)", TRAY, "0  0\t0 2\n", 0),
        ("leading zeros (accepted)", TRAY, "00 0 0 02\n", 0),
        ("diagonal move", TRAY, "0 0 1 2\n", 6),
        ("path blocked", "2 3\n0 0 0 0\n0 1 0 1\n", "0 0 0 2\n", 6),
        (
            "no block has its top-left corner there",
            TRAY,
            "0 1 0 2\n",
            6,
        ),
        (
            "inside a block but not its corner",
            "2 3\n0 0 1 1\n",
            "1 1 1 2\n",
            6,
        ),
        ("move to its own position is a no-op", TRAY, "0 0 0 0\n", 1),
        (
            "impossible move, then a malformed line",
            TRAY,
            "0 0 1 2\n1 2\n",
            4,
        ),
        (
            "malformed stdin and an invalid init",
            "2 3\n0 0 0 9\n",
            "1 2\n",
            4,
        ),
    ];
    for &(case, tray, stdin, want) in rows {
        assert_eq!(checker(tray, GOAL, stdin), want, "{case}");
    }
    assert_eq!(
        checker(TRAY, "0 0 0 0\n", ""),
        0,
        "no moves, goal already met"
    );
}

#[test]
fn spec_table_files() {
    let rows: &[(&str, &str, &str, i32)] = &[
        (
            "overlapping blocks in init",
            "2 3\n0 0 0 1\n0 1 1 1\n",
            GOAL,
            5,
        ),
        ("block outside the tray in init", "2 3\n0 0 0 3\n", GOAL, 5),
        ("block outside the tray in goal", TRAY, "0 3 0 3\n", 5),
        ("inverted block", "2 3\n1 1 0 0\n", GOAL, 5),
        ("header not two integers", "2\n0 0 0 0\n", GOAL, 5),
        ("blank line in init", "2 3\n\n0 0 0 0\n", GOAL, 5),
        ("tray larger than 256", "300 3\n0 0 0 0\n", GOAL, 5),
        ("zero side", "0 3\n", GOAL, 5),
        (
            "block line of 5 integers in init",
            "2 3\n0 0 0 0 0\n",
            GOAL,
            5,
        ),
        ("block line of 5 integers in goal", TRAY, "0 2 0 2 0\n", 5),
        ("empty goal file", TRAY, "", 0),
        (
            "goal names the same position twice",
            TRAY,
            "0 0 0 0\n0 0 0 0\n",
            0,
        ),
        (
            "goal block of a size the tray lacks (1 or 5; we say 1)",
            TRAY,
            "0 0 1 1\n",
            1,
        ),
    ];
    for &(case, tray, goal, want) in rows {
        assert_eq!(checker(tray, goal, ""), want, "{case}");
    }
}

#[test]
fn arguments_and_unreadable_files() {
    let (t, g) = (temp_file("init", TRAY), temp_file("goal", GOAL));
    bin("sbp-checker")
        .arg(&t.path)
        .write_stdin("")
        .assert()
        .code(2);
    bin("sbp-checker")
        .arg(&t.path)
        .arg(&g.path)
        .arg(&g.path)
        .write_stdin("")
        .assert()
        .code(2);
    bin("sbp-checker")
        .arg(&t.path)
        .arg("/nonexistent/goal")
        .write_stdin("")
        .assert()
        .code(3)
        .stderr(
            "sbp-checker: /nonexistent/goal: cannot read: No such file or directory (os error 2)\n",
        );
    let dir = tempfile::tempdir().unwrap();
    bin("sbp-checker")
        .arg(dir.path())
        .arg(&g.path)
        .write_stdin("")
        .assert()
        .code(3);
    // A missing file outranks a bad stdin line.
    bin("sbp-checker")
        .arg("/nonexistent/init")
        .arg(&g.path)
        .write_stdin("1 2\n")
        .assert()
        .code(3);
}

#[test]
fn checker_reasons_name_the_line_and_move() {
    let (t, g) = (
        temp_file("init", "2 3\n0 0 0 0\n0 1 0 1\n"),
        temp_file("goal", GOAL),
    );
    let check = |stdin: &str, code: i32, reason: &str| {
        bin("sbp-checker")
            .arg(&t.path)
            .arg(&g.path)
            .write_stdin(stdin.to_string())
            .assert()
            .code(code)
            .stdout("")
            .stderr(format!("sbp-checker: {reason}\n"));
    };
    check(
        "0 0 0 2\n",
        6,
        "move 1 (line 1) \"0 0 0 2\": blocked by the block at 0 1",
    );
    check(
        "0 1 1 1\n0 0 0 1\n",
        1,
        "goal not met after 2 moves: no 1x1 block at 0 2 0 2",
    );
    check("0 1 0 2\n", 0, "goal met after 1 moves");
    check(
        "0 1 0 2\n0 0 1 2\n",
        6,
        "move 2 (line 2) \"0 0 1 2\": diagonal move",
    );
    check(
        "0 1 0 2\nx\n",
        4,
        "moves: line 2: expected 4 non-negative integers `r c r' c'`, found \"x\"",
    );
    let bad = temp_file("bad", "2 3\n0 0 0 1\n0 1 1 1\n");
    bin("sbp-checker")
        .arg(&bad.path)
        .arg(&g.path)
        .write_stdin("")
        .assert()
        .code(5)
        .stderr(format!(
            "sbp-checker: {}: line 3: block 0 1 1 1 overlaps block 0 0 0 1 of line 2\n",
            bad.path.display()
        ));
}

#[test]
fn solver_statuses() {
    let (t, g) = (temp_file("init", TRAY), temp_file("goal", GOAL));
    let out = bin("sbp-solver")
        .arg(&t.path)
        .arg(&g.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    bin("sbp-checker")
        .arg(&t.path)
        .arg(&g.path)
        .write_stdin(out.stdout)
        .assert()
        .code(0);
    // No solution: a 1x1 cannot pass another in a one-row tray.
    let (t1, g1) = (
        temp_file("init", "1 3\n0 0 0 0\n0 1 0 1\n"),
        temp_file("goal", "0 0 0 1\n"),
    );
    bin("sbp-solver")
        .arg(&t1.path)
        .arg(&g1.path)
        .assert()
        .code(1)
        .stdout("")
        .stderr("sbp-solver: no solution\n");
    bin("sbp-solver").arg(&t.path).assert().code(2).stdout("");
    bin("sbp-solver")
        .args(["a", "b", "c"])
        .assert()
        .code(2)
        .stdout("");
    bin("sbp-solver")
        .arg("/nonexistent")
        .arg(&g.path)
        .assert()
        .code(3)
        .stdout("");
    let bad = temp_file("bad", "2 3\n0 0 0 9\n");
    bin("sbp-solver")
        .arg(&bad.path)
        .arg(&g.path)
        .assert()
        .code(4)
        .stdout("")
        .stderr(predicate::str::contains(
            "line 2: block 0 0 0 9 lies outside the 2x3 tray",
        ));
    bin("sbp-solver").arg("--help").assert().code(0);
}

#[test]
fn optimal_mode_finds_the_fewest_moves_or_gives_up_cleanly() {
    // Klotski's little cousin: swap two 1x1s around a hole in a 2x2 tray.
    let (t, g) = (
        temp_file("init", "2 2\n0 0 0 0\n0 1 0 1\n"),
        temp_file("goal", "0 0 0 0\n0 1 0 1\n1 0 1 0\n"),
    );
    bin("sbp-solver").arg(&t.path).arg(&g.path).assert().code(1);
    let g2 = temp_file("goal", "1 1 1 1\n1 0 1 0\n");
    // Two moves in either order are the only shortest answers.
    let out = bin("sbp-solver")
        .args(["--optimal"])
        .arg(&t.path)
        .arg(&g2.path)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        ["0 0 1 0\n0 1 1 1\n", "0 1 1 1\n0 0 1 0\n"].contains(&out.as_str()),
        "{out}"
    );
    bin("sbp-solver")
        .args(["--optimal", "--max-states", "2"])
        .arg(&t.path)
        .arg(&g2.path)
        .assert()
        .code(1)
        .stdout("")
        .stderr("sbp-solver: gave up after 2 states (--max-states); not proven unsolvable\n");
}

#[test]
fn convert_between_formats() {
    let old = temp_file("old", "3 3\n2 1 0 0\n1 2 2 1\n");
    let new = bin("sbp-convert")
        .arg(&old.path)
        .assert()
        .code(0)
        .stdout("3 3\n0 0 1 0\n2 1 2 2\n");
    let back = temp_file("new", new.get_output().stdout.clone());
    bin("sbp-convert")
        .args(["--to", "size-corner"])
        .arg(&back.path)
        .assert()
        .code(0)
        .stdout("3 3\n2 1 0 0\n1 2 2 1\n");
    let goal = temp_file("goal", "1 1 2 2\n");
    bin("sbp-convert")
        .arg("--goal")
        .arg(&goal.path)
        .assert()
        .code(0)
        .stdout("2 2 2 2\n");
    // The older format read by the solver and checker.
    let (t, g) = (
        temp_file("init", "2 3\n1 1 0 0\n1 1 1 1\n"),
        temp_file("goal", "1 1 0 2\n"),
    );
    let out = bin("sbp-solver")
        .arg("--old-format")
        .arg(&t.path)
        .arg(&g.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    bin("sbp-checker")
        .arg("--old-format")
        .arg(&t.path)
        .arg(&g.path)
        .write_stdin(out.stdout)
        .assert()
        .code(0);
}

/// Solves and checks one corpus case; returns whether it was solvable.
fn solve_and_check(dir: &Path, init: &str, goal: &str) -> bool {
    let (i, g) = (dir.join(init), dir.join(goal));
    let out = bin("sbp-solver").arg(&i).arg(&g).output().unwrap();
    match out.status.code() {
        Some(0) => {
            bin("sbp-checker")
                .arg(&i)
                .arg(&g)
                .write_stdin(out.stdout)
                .assert()
                .code(0);
            true
        }
        Some(1) => {
            assert!(out.stdout.is_empty(), "{init}: output with exit 1");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "sbp-solver: no solution\n",
                "{init}"
            );
            false
        }
        other => panic!("{init} {goal}: sbp-solver exited {other:?}"),
    }
}

#[test]
fn every_corpus_case_has_its_expected_outcome() {
    let Some(dir) = corpus("cs61bl-slidingblock") else {
        return;
    };
    let expected = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    let mut easy = 0;
    for row in expected.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').map(str::trim).collect();
        let solvable = solve_and_check(&dir.join("easy"), cols[0], cols[1]);
        assert_eq!(solvable, cols[2] == "solvable", "{row}");
        easy += 1;
    }
    assert_eq!(easy, 58);
    let hard = std::fs::read_to_string(dir.join("hard.csv")).unwrap();
    let mut count = 0;
    for row in hard.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').map(str::trim).collect();
        assert!(
            solve_and_check(&dir.join("hard"), cols[0], cols[1]),
            "{row}"
        );
        count += 1;
    }
    assert_eq!(count, 36);
}

/// Proves again, with `SolveOptions::optimal()`, every row of a best-known
/// table whose search stored at most `max_states` states, and checks each
/// row's fingerprint against the files it names; returns how many rows
/// were proven again.
fn reprove_table(
    table: &Path,
    dir_of: impl Fn(&str) -> std::path::PathBuf,
    max_states: u64,
) -> usize {
    use reference::slidingblock::{
        Format, Known, Outcome, SolveOptions, fingerprint, parse_table, read_puzzle, solve,
    };
    let text = std::fs::read_to_string(table).unwrap();
    let rows = parse_table(&text).unwrap_or_else(|e| panic!("{}: {e}", table.display()));
    let mut proven = 0;
    for row in rows {
        let dir = dir_of(&row.suite);
        let (tray, goal) =
            read_puzzle(&dir.join(&row.init), &dir.join(&row.goal), Format::Corners).unwrap();
        let name = format!("{} {} {}", row.suite, row.init, row.goal);
        assert_eq!(fingerprint(&tray, &goal), row.fingerprint, "{name}");
        if row.states > max_states || row.known == Known::Unproven {
            continue;
        }
        let report = solve(&tray, &goal, &SolveOptions::optimal());
        let known = match report.outcome {
            Outcome::Solved(moves) => Known::Fewest(moves.len() as u64),
            Outcome::NoSolution => Known::NoSolution,
            Outcome::GaveUp => Known::Unproven,
        };
        assert_eq!(
            (known, report.states as u64),
            (row.known, row.states),
            "{name}"
        );
        proven += 1;
    }
    proven
}

#[test]
fn the_cs61bl_best_known_table_is_proven_again_where_quick() {
    let Some(root) = corpus("cs61bl-slidingblock") else {
        return;
    };
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/slidingblock/optimal.csv");
    // Every case but pandemonium and c71 (~70 M states each: scripts/optimal-table).
    let proven = reprove_table(
        &table,
        |suite| root.join(suite.rsplit('/').next().unwrap()),
        2_000_000,
    );
    assert_eq!(proven, 58 + 36 - 2);
}

#[test]
fn the_bundled_best_known_tables_are_proven_again() {
    let suites = Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
    let proven: usize = ["easy", "hard"]
        .iter()
        .map(|level| {
            let folder = suites.join("slidingblock").join(level);
            // The table holds exactly the listing's cases, in its order.
            let listed: Vec<(String, String)> = csv::ReaderBuilder::new()
                .flexible(true)
                .from_path(folder.join(format!("{level}.csv")))
                .unwrap()
                .records()
                .map(|r| {
                    let r = r.unwrap();
                    (r[0].to_string(), r[1].to_string())
                })
                .collect();
            let text = std::fs::read_to_string(folder.join("optimal.csv")).unwrap();
            let rows = reference::slidingblock::parse_table(&text).unwrap();
            let tabled: Vec<(String, String)> = rows
                .iter()
                .map(|r| (r.init.clone(), r.goal.clone()))
                .collect();
            assert_eq!(listed, tabled, "{level}");
            assert!(
                rows.iter()
                    .all(|r| r.known != reference::slidingblock::Known::Unproven)
            );
            reprove_table(
                &folder.join("optimal.csv"),
                |suite| suites.join(suite),
                u64::MAX,
            )
        })
        .sum();
    // Every bundled case is proven.
    assert_eq!(proven, 16 + 40);
}

/// `puzzlegen slidingblock-contest`: the same seed gives the same puzzles,
/// byte for byte; each is solvable in at least ten moves (the reference's
/// own answer replays through `sbp-checker`), and none is a tray the
/// bundled suites released.
#[test]
fn contest_puzzles_are_fresh_seeded_and_solvable() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str| {
        let out = dir.path().join(name);
        bin("puzzlegen")
            .args(["slidingblock-contest", "--seed", "61", "--count", "5"])
            .arg(&out)
            .assert()
            .success();
        out
    };
    let (a, b) = (make("contest"), make("again"));
    let released: Vec<Vec<u8>> =
        walkdir::WalkDir::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/slidingblock"))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| std::fs::read(e.path()).unwrap())
            .collect();
    let listing = std::fs::read_to_string(a.join("contest.csv")).unwrap();
    assert_eq!(listing.lines().count(), 6, "{listing}");
    for i in 0..5 {
        let name = format!("contest.{i}");
        let tray = std::fs::read(a.join(&name)).unwrap();
        assert_eq!(
            tray,
            std::fs::read(b.join(format!("again.{i}"))).unwrap(),
            "seeded"
        );
        assert!(!released.contains(&tray), "{name} is a released tray");
        let solved = bin("sbp-solver")
            .arg(a.join(&name))
            .arg(a.join(format!("{name}.goal")))
            .assert()
            .code(0);
        let moves = solved.get_output().stdout.clone();
        assert!(
            moves.iter().filter(|&&c| c == b'\n').count() >= 10,
            "{name}: at least ten moves"
        );
        bin("sbp-checker")
            .arg(a.join(&name))
            .arg(a.join(format!("{name}.goal")))
            .write_stdin(moves)
            .assert()
            .code(0);
    }
}
