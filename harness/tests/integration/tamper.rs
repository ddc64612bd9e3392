//! A candidate that rewrites the live suite files changes nobody's
//! verdict: every case's copies are written from the bytes the harness
//! read when it loaded the puzzle, before any candidate ran.

use std::os::unix::fs::PermissionsExt;

use crate::support::{harness, read_scorecard};

#[test]
fn rewriting_the_suite_changes_no_later_case() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("lights/s");
    std::fs::create_dir_all(&suite).unwrap();
    // Two solvable boards, graded one after the other.
    std::fs::write(suite.join("a.txt"), "3x2\n#OO\n##O\n").unwrap();
    std::fs::write(suite.join("b.txt"), "2x2\n##\n##\n").unwrap();
    std::fs::write(suite.join("s.csv"), "board,expect\na.txt,\nb.txt,\n").unwrap();
    // Rewrites every board of the suite, then answers as the reference
    // does on the copy it was given.
    let rogue = dir.path().join("rogue");
    std::fs::write(
        &rogue,
        format!(
            "#!/bin/sh\nfor f in {}/*.txt; do printf 'garbage\\n' > \"$f\"; done\nexec {} solve --family lightsout \"$@\"\n",
            suite.display(),
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&rogue, std::fs::Permissions::from_mode(0o755)).unwrap();
    let card = dir.path().join("card.csv");
    // As the harness's own user (as a normal user always is): the suite is
    // within the candidate's reach.
    harness()
        .args(["grade", "--run-as", "harness", "--jobs", "1", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&rogue)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(suite.join("b.txt")).unwrap(),
        "garbage\n",
        "the rogue did rewrite the suite"
    );
    let verdicts: Vec<(String, String)> = read_scorecard(&card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("a.txt".to_string(), "accepted".to_string()),
            ("b.txt".to_string(), "accepted".to_string())
        ]
    );
}

/// As root, a candidate in a folder its slot's user cannot enter (a
/// `mktemp -d`, 0700) stops the run before the first case, exit 2, naming
/// the folder, the uid and the fix; no scorecard is written. With
/// `--run-as harness` the same candidate runs.
#[test]
fn a_candidate_its_slot_user_cannot_reach_is_a_setup_error() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: not root: candidates run as the harness's own user; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let solver = dir.path().join("solver");
    std::fs::write(
        &solver,
        format!(
            "#!/bin/sh\nexec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&solver, std::fs::Permissions::from_mode(0o755)).unwrap();
    let card = dir.path().join("card.csv");
    let suite = crate::support::workspace().join("suites/lightsout/easy");
    let folder = dir.path().canonicalize().unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&solver)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "cannot be run by uid 60000 (the user its job slot runs as): the folder {} is closed to it; let every user reach it",
            folder.display()
        )))
        .stderr(predicates::str::contains("--run-as harness"));
    assert!(!card.exists(), "nothing written");
    harness()
        .args(["grade", "--run-as", "harness", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&solver)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
}
