//! Discovery, scorecards, bad puzzles, usage errors and the bundled suites.

use predicates::prelude::*;

use crate::support::{Fixture, corpus, grade_suite, harness, misbehave, read_scorecard, workspace};

#[test]
fn bundled_suites_with_the_reference_are_all_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let scorecard = dir.path().join("scorecard.csv");
    harness()
        .current_dir(workspace())
        .args(["grade", "--scorecard"])
        .arg(&scorecard)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("lightsout/easy: 19/19 accepted"))
        .stdout(predicate::str::contains("lightsout/hard: 17/17 accepted"))
        .stdout(predicate::str::contains("lightsout/5x5: 40/40 accepted"))
        .stdout(predicate::str::contains(
            "slidingblock/easy: 16/16 accepted",
        ))
        .stdout(predicate::str::contains(
            "slidingblock/hard: 40/40 accepted",
        ))
        .stdout(predicate::str::contains("gogen/easy: 16/16 accepted"))
        .stdout(predicate::str::contains("gogen/hard: 24/24 accepted"))
        .stdout(predicate::str::contains("gogen/solved: 6/6 accepted"))
        .stdout(predicate::str::contains("gogen/newspaper: 12/12 accepted"))
        .stdout(predicate::str::contains("reference: 191/191 accepted"));
    let rows = read_scorecard(&scorecard);
    assert_eq!(rows.len(), 191);
    assert!(
        rows.iter()
            .all(|r| r["verdict"] == "accepted" && r["candidate"] == "reference")
    );
    assert!(
        rows.iter()
            .any(|r| r["case"] == "300x300-16.txt" && r["moves"] == r["best_moves"])
    );
}

#[test]
fn scorecard_has_the_documented_columns() {
    let f = Fixture::new();
    f.grade(&format!("{} right", misbehave())).assert().code(0);
    let text = std::fs::read_to_string(f.scorecard()).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "candidate,family,suite,case,verdict,detail,exit_code,signal,wall_ms,cpu_ms,max_rss_kb,moves,best_moves,isolation,score"
    );
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn missing_and_malformed_puzzles_are_harness_errors_and_the_run_goes_on() {
    let f = Fixture::with_rows(&[
        ("good.txt", Some("3x2\n#OO\n##O\n")),
        ("missing.txt", None),
        ("bad.txt", Some("2x2\n#O\nOx\n")),
    ]);
    f.grade(&format!("{} right", misbehave()))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "lightsout/tiny: 1/3 accepted (2 harness-error)",
        ));
    let rows = f.rows();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows["good.txt"]["verdict"], "accepted");
    let missing = &rows["missing.txt"];
    assert_eq!(missing["verdict"], "harness-error");
    assert!(
        missing["detail"].starts_with("cannot load puzzle: "),
        "{}",
        missing["detail"]
    );
    assert!(missing["detail"].contains("missing.txt: cannot read: "));
    let bad = &rows["bad.txt"];
    assert_eq!(bad["verdict"], "harness-error");
    assert!(
        bad["detail"].ends_with("bad.txt: line 3: invalid character 'x' (expected '#' or 'O')"),
        "{}",
        bad["detail"]
    );
    assert_eq!(bad["wall_ms"], "", "a bad puzzle is never run");
}

#[test]
fn filter_keeps_matching_cases() {
    let f = Fixture::new();
    f.grade(&format!("{} right", misbehave()))
        .args(["--filter", "unsolv"])
        .assert()
        .code(0);
    let rows = f.rows();
    assert_eq!(rows.len(), 1);
    assert!(rows.contains_key("unsolvable.txt"));
}

#[test]
fn parallel_jobs_grade_every_case_once() {
    let mut rows = Vec::new();
    for i in 0..12 {
        rows.push((format!("b{i:02}.txt"), "3x2\n#OO\n##O\n"));
    }
    let rows: Vec<(&str, Option<&str>)> =
        rows.iter().map(|(n, t)| (n.as_str(), Some(*t))).collect();
    let f = Fixture::with_rows(&rows);
    f.grade(&format!("{} spin 50", misbehave()))
        .args(["--jobs", "3"])
        .assert()
        .code(0);
    // Every row, not a map by case: a case graded twice must fail this.
    let mut cases: Vec<String> = read_scorecard(&f.scorecard())
        .into_iter()
        .map(|r| r["case"].clone())
        .collect();
    cases.sort();
    let want: Vec<String> = (0..12).map(|i| format!("b{i:02}.txt")).collect();
    assert_eq!(cases, want);
}

#[test]
fn usage_and_setup_errors_exit_2() {
    let f = Fixture::new();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--family", "chess"],
            // The test build also knows the test-only toy family.
            "harness: unknown family \"chess\" (known: lightsout, slidingblock, gogen",
        ),
        (
            &["--candidate", "no-such-solver-xyz"],
            "harness: candidate program no-such-solver-xyz is not on PATH",
        ),
        (
            &["--candidate", "./nope/solver"],
            "harness: candidate program ./nope/solver does not exist",
        ),
        (
            &["--time-limit", "0s"],
            "harness: --time-limit must be more than zero",
        ),
        (&["--filter", "zzz"], "harness: no case matches --filter"),
    ];
    for (args, message) in cases {
        let mut cmd = f.grade_without_candidate();
        if !args.contains(&"--candidate") {
            cmd.args(["--candidate", misbehave()]);
        }
        cmd.args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    harness()
        .args(["grade", "--suite", "/nonexistent/suite"])
        .assert()
        .code(2)
        .stderr("harness: suite /nonexistent/suite does not exist\n");
    let empty = tempfile::tempdir().unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(empty.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no suite listing found under"));
    harness()
        .args(["grade", "--time-limit", "soon"])
        .assert()
        .code(2);
    harness().arg("--help").assert().code(0);
}

#[test]
fn solve_prints_the_reference_answer() {
    let f = Fixture::new();
    harness()
        .args(["solve", "--family", "lightsout"])
        .arg(f.suite().join("solvable.txt"))
        .assert()
        .code(0)
        .stdout("1:0\n");
    harness()
        .args(["solve", "--family", "lightsout"])
        .arg(f.suite().join("unsolvable.txt"))
        .assert()
        .code(1)
        .stdout("")
        .stderr("No solution\n");
}

#[test]
fn the_cmu_corpus_grades_like_the_course() {
    let Some(corpus) = corpus("cmu15122-lightsout") else {
        return;
    };
    let (run, rows) = grade_suite(&corpus, &[]);
    run.code(0).stdout(predicate::str::contains(
        "cmu15122-lightsout/boards: 42/42 accepted",
    ));
    let unsolvable = rows.iter().filter(|r| r["best_moves"].is_empty()).count();
    assert_eq!(unsolvable, 15);
}

/// A candidate that prints nothing and exits 0 passes no bundled case but
/// those named for it (`already.there*`: met before any move); every other
/// case needs a real answer.
#[test]
fn doing_nothing_passes_only_the_cases_named_for_it() {
    let (run, rows) = grade_suite(&workspace().join("suites"), &["--candidate", "true"]);
    run.code(1);
    assert_eq!(rows.len(), 191);
    let mut accepted: Vec<&str> = rows
        .iter()
        .filter(|r| r["verdict"] == "accepted")
        .map(|r| r["case"].as_str())
        .collect();
    // Rows come as cases finish.
    accepted.sort_unstable();
    assert_eq!(
        accepted,
        [
            "already.there+already.there.goal",
            "already.there.empty.goal+already.there.empty.goal.goal",
            "already.there.full.tray+already.there.full.tray.goal",
        ]
    );
}
