//! `harness conform`: our own replicas conform to every battery; a Checker
//! that always exits 0 (as a real student's did, without reading the
//! moves) fails exactly the rows that want another status.

use std::collections::HashMap;

use predicates::prelude::*;

use crate::support::{harness, misbehave, read_scorecard, replica};

fn conform(
    role: &str,
    family: &str,
    candidate: &str,
) -> (
    assert_cmd::assert::Assert,
    HashMap<String, HashMap<String, String>>,
) {
    let dir = tempfile::tempdir().unwrap();
    let scorecard = dir.path().join("c.csv");
    let run = harness()
        .args([
            "conform",
            "--role",
            role,
            "--family",
            family,
            "--candidate",
            candidate,
        ])
        .arg("--scorecard")
        .arg(&scorecard)
        .assert();
    let rows = read_scorecard(&scorecard)
        .into_iter()
        .map(|r| (r["case"].clone(), r))
        .collect();
    (run, rows)
}

#[test]
fn our_replicas_conform_to_every_battery() {
    for (role, family, tool) in [
        ("checker", "slidingblock", "sbp-checker"),
        ("solver", "slidingblock", "sbp-solver"),
        ("solver", "lightsout", "lightsout"),
        ("solver", "gogen", "gogen-solver"),
    ] {
        let (run, rows) = conform(role, family, &replica(tool));
        run.code(0).stdout(predicate::str::contains(format!(
            "conform/{family}-{role}: {n}/{n} accepted",
            n = rows.len()
        )));
        assert!(rows.len() >= 11, "{family} {role}");
    }
}

#[test]
fn a_checker_that_always_says_solved_is_caught() {
    let (run, rows) = conform(
        "checker",
        "slidingblock",
        &format!("{} exit 0", misbehave()),
    );
    run.code(1);
    let row = |case: &str| {
        let r = &rows[case];
        (r["verdict"].clone(), r["detail"].clone())
    };
    assert_eq!(
        row("valid moves reach the goal"),
        ("accepted".into(), "exit 0".into())
    );
    assert_eq!(
        row("blank line inside stdin"),
        ("wrong-exit-status".into(), "exit 0, expected 4".into())
    );
    assert_eq!(
        row("target outside the tray (ambiguous)"),
        ("wrong-exit-status".into(), "exit 0, expected 4 or 6".into())
    );
    assert_eq!(
        row("missing goal file"),
        ("wrong-exit-status".into(), "exit 0, expected 3".into())
    );
    assert_eq!(rows["one argument"]["exit_code"], "0");
}

#[test]
fn a_solver_that_gives_up_everywhere_is_caught_and_roles_are_checked() {
    let (run, rows) = conform("solver", "slidingblock", &format!("{} exit 1", misbehave()));
    run.code(1);
    assert_eq!(rows["unsolvable: blocked for good"]["verdict"], "accepted");
    assert_eq!(rows["solvable: one move"]["detail"], "exit 1, expected 0");
    harness()
        .args([
            "conform",
            "--role",
            "checker",
            "--family",
            "lightsout",
            "--candidate",
            misbehave(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("lightsout has no Checker program"));
}

/// `conform` takes grade's isolation flags, and an existing scorecard is
/// not replaced without `--force` (it was, silently).
#[test]
fn conform_keeps_a_scorecard_and_takes_the_isolation_flags() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("c.csv");
    let run = |extra: &[&str]| {
        harness()
            .args(["conform", "--role", "checker", "--family", "slidingblock"])
            .args(["--candidate", &replica("sbp-checker")])
            .arg("--scorecard")
            .arg(&card)
            .args(extra)
            .assert()
    };
    run(&[]).code(0);
    let before = std::fs::read(&card).unwrap();
    run(&[]).code(2).stderr(predicate::str::contains(
        "c.csv exists; --force replaces it",
    ));
    assert_eq!(std::fs::read(&card).unwrap(), before);
    run(&["--force", "--isolation", "none"])
        .code(0)
        .stderr(predicate::str::contains("isolation: none"));
    let rows = read_scorecard(&card);
    assert!(rows.iter().all(|r| r["isolation"] == "none"), "{rows:?}");
}
