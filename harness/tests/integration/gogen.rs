//! Grading Gogen solvers: both file forms, detection by listing header,
//! `--family gogen`, and the verdicts a wrong board or status gets.

use predicates::prelude::*;

use crate::support::{corpus, grade_suite, misbehave, workspace};

#[test]
fn right_answers_in_both_forms_are_accepted() {
    let (run, rows) = grade_suite(
        &workspace().join("suites"),
        &[
            "--family",
            "gogen",
            "--candidate",
            &format!("{} right", misbehave()),
        ],
    );
    run.code(0)
        .stdout(predicate::str::contains("gogen/easy: 16/16 accepted"))
        .stdout(predicate::str::contains("gogen/hard: 24/24 accepted"))
        .stdout(predicate::str::contains("gogen/solved: 6/6 accepted"))
        .stdout(predicate::str::contains("gogen/newspaper: 12/12 accepted"))
        .stdout(predicate::str::contains("gogen/challenge: 1/1 accepted"))
        .stdout(predicate::str::contains("lightsout").not());
    assert_eq!(rows.len(), 59);
    assert!(rows.iter().all(|r| r["family"] == "gogen"));
    let broken = rows
        .iter()
        .find(|r| r["case"] == "random.5g.1.broken.board+random.5g.1.broken.words")
        .unwrap();
    assert_eq!(broken["exit_code"], "1");
    assert_eq!(broken["detail"], "unsolvable, correctly reported");
}

#[test]
fn wrong_boards_and_statuses_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // The verdict and detail of the one case `easy/all.given`; the harness
    // exits 0 exactly when it is accepted.
    let grade = |candidate: &str| {
        let (run, rows) = grade_suite(
            &workspace().join("suites/gogen"),
            &["--filter", "easy/all.given", "--candidate", candidate],
        );
        assert_eq!(rows.len(), 1);
        let accepted = rows[0]["verdict"] == "accepted";
        run.code(if accepted { 0 } else { 1 });
        (rows[0]["verdict"].clone(), rows[0]["detail"].clone())
    };
    assert_eq!(
        grade(&format!("{} wrong", misbehave())),
        (
            "wrong-answer".into(),
            "output line 1: a board row needs 5 cells, found \"0:0\"".into()
        )
    );
    assert_eq!(
        grade(&format!("{} exit 1", misbehave())),
        (
            "wrong-exit-status".into(),
            "exit 1 (no solution) on a solvable puzzle".into()
        )
    );
    assert_eq!(
        grade(&format!("{} exit 4", misbehave())),
        (
            "wrong-exit-status".into(),
            "exit 4 (usage or input error) on a valid puzzle".into()
        )
    );
    // A board that breaks a word: the detail names the word and letters.
    let script = dir.path().join("swap.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'ABCDE\\nFGHIJ\\nKLMNO\\nPQRST\\nUVWXY\\n'\n",
    )
    .unwrap();
    let (verdict, detail) = grade(&format!("sh {}", script.display()));
    assert_eq!(verdict, "accepted", "{detail}");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'ABCDE\\nFGHIJ\\nKLMNO\\nPQRST\\nUVWYX\\n'\n",
    )
    .unwrap();
    assert_eq!(
        grade(&format!("sh {}", script.display())),
        (
            "wrong-answer".into(),
            "the puzzle gives X at 4,3 but the solution has Y".into()
        )
    );
}

#[test]
fn the_imperial_corpus_with_the_reference_is_all_accepted() {
    let Some(corpus) = corpus("imperial-gogen") else {
        return;
    };
    // The corpus has no listing: write one naming its files (the files
    // themselves stay where they are).
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("imperial");
    std::fs::create_dir(&suite).unwrap();
    let mut listing = String::from("board,words\n");
    for level in ["easy", "medium", "hard"] {
        listing.push_str(&format!(
            "{0}/board-{level}.txt,{0}/words-{level}.txt\n",
            corpus.display()
        ));
    }
    std::fs::write(suite.join("imperial.csv"), listing).unwrap();
    // Files outside the listing's folder are refused unless allowed.
    let (run, rows) = grade_suite(&suite, &[]);
    run.code(1);
    assert!(
        rows.iter().all(|r| r["verdict"] == "harness-error"
            && r["detail"].contains("is outside the suite folder"))
    );
    let (run, _) = grade_suite(&suite, &["--allow-outside-suite"]);
    run.code(0)
        .stdout(predicate::str::contains("imperial: 3/3 accepted"));
}
