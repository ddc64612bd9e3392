//! Grading sliding-block Solvers: the CS61BL suites and the exit statuses
//! the course's run scripts got wrong.

use predicates::prelude::*;

use crate::support::{corpus, harness, misbehave, read_scorecard, workspace};

#[test]
fn the_cs61bl_corpus_with_the_reference_is_all_accepted() {
    let Some(corpus) = corpus("cs61bl-slidingblock") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scorecard = dir.path().join("s.csv");
    harness()
        .args(["grade", "--suite"])
        .arg(&corpus)
        .arg("--scorecard")
        .arg(&scorecard)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "cs61bl-slidingblock/easy: 58/58 accepted",
        ))
        .stdout(predicate::str::contains(
            "cs61bl-slidingblock/hard: 36/36 accepted",
        ));
    let rows = read_scorecard(&scorecard);
    assert_eq!(rows.len(), 94);
    let unsolvable = rows.iter().filter(|r| r["exit_code"] == "1").count();
    assert_eq!(unsolvable, 17);
    assert!(rows.iter().all(|r| r["family"] == "slidingblock"));
}

#[test]
fn claiming_no_solution_is_checked_against_the_reference() {
    // `exit 1` everywhere: right exactly on the unsolvable puzzles. The
    // course's run scripts tested `$?` after another command and so passed
    // or failed these cases regardless; we check the status itself.
    let dir = tempfile::tempdir().unwrap();
    let scorecard = dir.path().join("s.csv");
    harness()
        .args(["grade", "--suite"])
        .arg(workspace().join("suites/slidingblock/easy"))
        .args([
            "--candidate",
            &format!("{} exit 1", misbehave()),
            "--scorecard",
        ])
        .arg(&scorecard)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "slidingblock/easy: 5/16 accepted (11 wrong-exit-status)",
        ));
    let rows = read_scorecard(&scorecard);
    let no_pass = rows.iter().find(|r| r["case"] == "no.pass").unwrap();
    assert_eq!(no_pass["verdict"], "accepted");
    assert_eq!(no_pass["detail"], "unsolvable, correctly reported");
    let one = rows.iter().find(|r| r["case"] == "one.block").unwrap();
    assert_eq!(one["verdict"], "wrong-exit-status");
    assert_eq!(one["detail"], "exit 1 (no solution) on a solvable puzzle");
}

#[test]
fn wrong_moves_and_statuses_for_sliding_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let scorecard = dir.path().join("s.csv");
    harness()
        .args(["grade", "--family", "slidingblock", "--suite"])
        .arg(workspace().join("suites"))
        .args([
            "--filter",
            "easy/one.block",
            "--candidate",
            &format!("{} wrong", misbehave()),
            "--scorecard",
        ])
        .arg(&scorecard)
        .assert()
        .code(1);
    let rows = read_scorecard(&scorecard);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["verdict"], "wrong-answer");
    assert_eq!(
        rows[0]["detail"],
        "output line 1: expected 4 non-negative integers `r c r' c'`, found \"0:0\""
    );
    harness()
        .args(["grade", "--family", "slidingblock", "--suite"])
        .arg(workspace().join("suites"))
        .args([
            "--filter",
            "easy/one.block",
            "--candidate",
            &format!("{} exit 4", misbehave()),
            "--scorecard",
        ])
        .arg(&scorecard)
        .assert()
        .code(1);
    let rows = read_scorecard(&scorecard);
    assert_eq!(rows[0]["verdict"], "wrong-exit-status");
    assert_eq!(
        rows[0]["detail"],
        "exit 4 (usage or input error) on a valid puzzle"
    );
}

#[test]
fn right_answers_with_two_files_per_case() {
    let dir = tempfile::tempdir().unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(workspace().join("suites/slidingblock"))
        .args([
            "--candidate",
            &format!("{} right", misbehave()),
            "--scorecard",
        ])
        .arg(dir.path().join("s.csv"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "slidingblock/hard: 14/14 accepted",
        ));
}
