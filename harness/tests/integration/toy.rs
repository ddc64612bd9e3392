//! A family the harness has never heard of (the reference's test-only
//! `toy`: one row of lights, a press toggles two) enters through the
//! family table alone: it is graded, conformed, replayed and contested
//! with no line of the harness naming it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::{harness, read_scorecard};

/// A suite `toy/easy` of three rows (solvable, unsolvable, solvable in
/// three presses) in `dir`, readable by every candidate's user.
fn suite(dir: &Path) -> PathBuf {
    let suite = dir.join("toy/easy");
    std::fs::create_dir_all(&suite).unwrap();
    for (name, row) in [("a.row", "0110\n"), ("b.row", "100\n"), ("c.row", "1001\n")] {
        std::fs::write(suite.join(name), row).unwrap();
    }
    std::fs::write(
        suite.join("easy.csv"),
        "row,expect\na.row,\nb.row,\nc.row,\n",
    )
    .unwrap();
    for p in [dir, &dir.join("toy"), &suite] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    suite
}

/// An executable script `name` in `dir` running `body` (with `"$@"`).
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The reference solver of the toy family, as a candidate command.
fn reference() -> String {
    format!("{} solve --family toy", env!("CARGO_BIN_EXE_harness"))
}

#[test]
fn a_new_family_is_graded_conformed_replayed_and_contested() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = suite(dir.path());

    // Graded: the reference candidate passes every case, with its moves.
    let card = dir.path().join("ref.csv");
    harness()
        .args(["grade", "--suite"])
        .arg(&suite)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    let mut rows = read_scorecard(&card);
    rows.sort_by(|a, b| a["case"].cmp(&b["case"]));
    let got: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["family"].as_str(),
                r["case"].as_str(),
                r["verdict"].as_str(),
                r["moves"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("toy", "a.row", "accepted", "1"),
            ("toy", "b.row", "accepted", ""),
            ("toy", "c.row", "accepted", "3"),
        ]
    );

    // A candidate that always presses 0: judged by the toy's contract.
    let wrong = script(dir.path(), "wrong", "echo 0");
    let card = dir.path().join("wrong.csv");
    let kept = dir.path().join("kept");
    harness()
        .args(["grade", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&wrong)
        .arg("--name")
        .arg("wrong")
        .arg("--keep-output")
        .arg(&kept)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(1);
    let mut rows = read_scorecard(&card);
    rows.sort_by(|a, b| a["case"].cmp(&b["case"]));
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["verdict"].as_str(), r["detail"].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("wrong-answer", "2 lights still on"),
            (
                "wrong-exit-status",
                "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)"
            ),
            ("wrong-answer", "2 lights still on"),
        ]
    );

    // Replayed: the family draws the frames, the page shows them.
    let page = dir.path().join("report.html");
    harness()
        .arg("report")
        .arg(&card)
        .arg("--suite")
        .arg(&suite)
        .arg("--outputs")
        .arg(&kept)
        .arg("--html")
        .arg(&page)
        .assert()
        .code(0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<section class=\"replay\">").count(), 3);
    assert!(html.contains("\"cells\":[\"#O#O\"]"), "a.row after 0");

    // Conformed: the family's Solver battery, and no Checker program.
    let card = dir.path().join("conform.csv");
    harness()
        .args([
            "conform",
            "--role",
            "solver",
            "--family",
            "toy",
            "--candidate",
        ])
        .arg(reference())
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    let cases: Vec<String> = read_scorecard(&card)
        .iter()
        .map(|r| format!("{} {} {}", r["suite"], r["case"], r["verdict"]))
        .collect();
    assert_eq!(
        cases,
        [
            "conform/toy-solver solvable accepted",
            "conform/toy-solver unsolvable accepted",
            "conform/toy-solver missing file accepted",
        ]
    );
    harness()
        .args([
            "conform",
            "--role",
            "checker",
            "--family",
            "toy",
            "--candidate",
        ])
        .arg(reference())
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "toy has no Checker program to conform (its handout asks for a solver)",
        ));

    // Contested: the reference entry solves all three, `wrong` none.
    let entries = dir.path().join("entries");
    for (name, body) in [
        ("ref", format!("exec {} \"$@\"", reference())),
        ("wrong", "echo 0".to_string()),
    ] {
        let entry = entries.join(name);
        std::fs::create_dir_all(&entry).unwrap();
        script(&entry, "run", &body);
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&entries, std::fs::Permissions::from_mode(0o755)).unwrap();
    let board = dir.path().join("board.csv");
    harness()
        .args(["contest", "--runs", "1", "--warmup", "0", "--entries"])
        .arg(&entries)
        .arg("--suite")
        .arg(&suite)
        .arg("--leaderboard")
        .arg(&board)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&board).unwrap();
    let ranks: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(ranks, ["1,ref,3", "2,wrong,0"]);
}
