//! Grading sliding-block Solvers: the CS61BL suites and the exit statuses
//! the course's run scripts got wrong.

use predicates::prelude::*;

use crate::support::{corpus, grade_suite, misbehave, workspace};

#[test]
fn the_cs61bl_corpus_with_the_reference_is_all_accepted() {
    let Some(corpus) = corpus("cs61bl-slidingblock") else {
        return;
    };
    let (run, rows) = grade_suite(&corpus, &[]);
    run.code(0)
        .stdout(predicate::str::contains(
            "cs61bl-slidingblock/easy: 58/58 accepted",
        ))
        .stdout(predicate::str::contains(
            "cs61bl-slidingblock/hard: 36/36 accepted",
        ));
    assert_eq!(rows.len(), 94);
    let unsolvable = rows.iter().filter(|r| r["exit_code"] == "1").count();
    assert_eq!(unsolvable, 17);
    assert!(rows.iter().all(|r| r["family"] == "slidingblock"));
    // Every solved case has its proven fewest moves from the shipped table
    // (suites/slidingblock/optimal.csv, found by the puzzle's fingerprint),
    // and the reference's default search stays within 1.25x of them on
    // every hard case.
    let row = |case: &str| rows.iter().find(|r| r["case"] == case).unwrap();
    assert_eq!(row("pandemonium+pandemonium.goal")["best_moves"], "88");
    assert_eq!(row("c71+71.goal")["best_moves"], "87");
    assert_eq!(row("dads+dads.goal")["best_moves"], "61");
    for r in &rows {
        if r["exit_code"] != "0" {
            assert_eq!(r["best_moves"], "", "{}", r["case"]);
            continue;
        }
        let moves: u64 = r["moves"].parse().unwrap();
        let best: u64 = r["best_moves"].parse().unwrap();
        assert!(moves >= best, "{}: {moves} < {best}", r["case"]);
        if r["suite"] == "cs61bl-slidingblock/hard" {
            assert!(moves * 4 <= best * 5, "{}: {moves} vs {best}", r["case"]);
        }
    }
}

#[test]
fn claiming_no_solution_is_checked_against_the_reference() {
    // `exit 1` everywhere: right exactly on the unsolvable puzzles. The
    // course's run scripts tested `$?` after another command and so passed
    // or failed these cases regardless; we check the status itself.
    let (run, rows) = grade_suite(
        &workspace().join("suites/slidingblock/easy"),
        &["--candidate", &format!("{} exit 1", misbehave())],
    );
    run.code(1).stdout(predicate::str::contains(
        "slidingblock/easy: 5/16 accepted (11 wrong-exit-status)",
    ));
    let no_pass = rows
        .iter()
        .find(|r| r["case"] == "no.pass+no.pass.goal")
        .unwrap();
    assert_eq!(no_pass["verdict"], "accepted");
    assert_eq!(no_pass["detail"], "unsolvable, correctly reported");
    let one = rows
        .iter()
        .find(|r| r["case"] == "one.block+one.block.goal")
        .unwrap();
    assert_eq!(one["verdict"], "wrong-exit-status");
    assert_eq!(one["detail"], "exit 1 (no solution) on a solvable puzzle");
}

#[test]
fn wrong_moves_and_statuses_for_sliding_blocks() {
    // The verdict and detail of the one case `easy/one.block`.
    let one_block = |candidate: &str| {
        let (run, rows) = grade_suite(
            &workspace().join("suites"),
            &[
                "--family",
                "slidingblock",
                "--filter",
                "easy/one.block",
                "--candidate",
                candidate,
            ],
        );
        run.code(1);
        assert_eq!(rows.len(), 1);
        (rows[0]["verdict"].clone(), rows[0]["detail"].clone())
    };
    assert_eq!(
        one_block(&format!("{} wrong", misbehave())),
        (
            "wrong-answer".into(),
            "output line 1: expected 4 non-negative integers `r c r' c'`, found \"0:0\"".into()
        )
    );
    assert_eq!(
        one_block(&format!("{} exit 4", misbehave())),
        (
            "wrong-exit-status".into(),
            "exit 4 (usage or input error) on a valid puzzle".into()
        )
    );
}

#[test]
fn right_answers_with_two_files_per_case() {
    let (run, _) = grade_suite(
        &workspace().join("suites/slidingblock"),
        &["--candidate", &format!("{} right", misbehave())],
    );
    run.code(0).stdout(predicate::str::contains(
        "slidingblock/hard: 40/40 accepted",
    ));
}

#[test]
fn best_moves_are_the_proven_fewest() {
    // The breadth-first search proves them where it stays under its state
    // cap: Klotski in 90 straight-line moves, the pennant in 62; the
    // default search's answers are a little longer for Klotski.
    let (run, rows) = grade_suite(
        &workspace().join("suites/slidingblock/hard"),
        &["--filter", "a"],
    );
    run.code(0);
    let best = |case: &str| {
        let r = rows.iter().find(|r| r["case"] == case).unwrap();
        (r["moves"].clone(), r["best_moves"].clone())
    };
    assert_eq!(best("klotski+klotski.goal").1, "90");
    assert_eq!(best("pennant+pennant.goal"), ("62".into(), "62".into()));
    let klotski: u64 = best("klotski+klotski.goal").0.parse().unwrap();
    assert!((90..=112).contains(&klotski), "within 1.25x: {klotski}");
    // Klotski amid 85 blocks that never move: the same 90.
    assert_eq!(best("big.klotski.128x128+big.klotski.128x128.goal").1, "90");
}

#[test]
fn best_moves_come_from_the_tables_or_a_search_within_its_cap() {
    // A puzzle in no best-known table: the search finds its 1 move unless
    // `--best-moves-states 0` leaves only the tables.
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("mine");
    std::fs::create_dir(&suite).unwrap();
    std::fs::write(
        suite.join("mine.csv"),
        "initial config file, goal file, comments\nt,t.goal,\n",
    )
    .unwrap();
    std::fs::write(suite.join("t"), "2 3\n0 0 0 0\n0 1 0 1\n1 0 1 0\n").unwrap();
    std::fs::write(suite.join("t.goal"), "1 2 1 2\n").unwrap();
    let best = |args: &[&str]| {
        let (run, rows) = grade_suite(&suite, args);
        run.code(0);
        rows[0]["best_moves"].clone()
    };
    assert_eq!(best(&[]), "1");
    assert_eq!(best(&["--best-moves-states", "0"]), "");
    // Klotski is in the bundled table: 90 even with no search at all.
    let (run, rows) = grade_suite(
        &workspace().join("suites/slidingblock/hard"),
        &[
            "--filter",
            "klotski+klotski.goal",
            "--best-moves-states",
            "0",
        ],
    );
    run.code(0);
    assert_eq!(rows[0]["best_moves"], "90");
}
