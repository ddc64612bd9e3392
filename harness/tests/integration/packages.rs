//! A Kattis/ICPC problem package, written here with no line of Rust for
//! it, is a suite: its cases read in the format's order, each `.in` on the
//! candidate's stdin, the output judged by the default validator with the
//! package's flags, its answers out of every candidate's reach; a package
//! asking for what is not graded yet is one line, exit 2.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::{harness, read_scorecard};

/// A package `sum` in `dir`: each case two numbers, the answer their sum
/// (a tolerance of 1e-6), a sample and a secret group; readable by every
/// candidate's user.
fn package(dir: &Path, yaml: &str) -> PathBuf {
    let p = dir.join("sum");
    for (path, text) in [
        ("problem.yaml", yaml),
        ("data/sample/1.in", "1 2\n"),
        ("data/sample/1.ans", "3\n"),
        ("data/secret/big/10.in", "0.5 0.25\n"),
        ("data/secret/big/10.ans", "0.75\n"),
        ("data/secret/big/2.in", "1e9 1\n"),
        ("data/secret/big/2.ans", "1000000001\n"),
        ("data/secret/zero.in", "0 0\n"),
        ("data/secret/zero.ans", "0\n"),
    ] {
        let at = p.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    for d in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let mode = if d.file_type().is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    p
}

/// An executable script `name` in `dir` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `(case, verdict, detail)` of each row of `card`, by case (rows come
/// as cases end).
fn rows(card: &Path) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = read_scorecard(card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone(), r["detail"].clone()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_package_is_a_suite_judged_by_its_default_validator() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(
        dir.path(),
        "name: Sum\nvalidation: default\nvalidator_flags: float_tolerance 1e-6\n",
    );
    let grade = |candidate: &Path, name: &str| {
        let card = dir.path().join(format!("{name}.csv"));
        let out = harness()
            .args(["grade", "--no-cache", "--suite"])
            .arg(&sum)
            .arg("--candidate")
            .arg(candidate)
            .arg("--scorecard")
            .arg(&card)
            .output()
            .unwrap();
        (out.status.code(), rows(&card))
    };
    // Reads its case on stdin, given no argument: the sum, printed as
    // awk prints it (1e+09 + 1 as 1000000001; 0.75).
    let honest = script(
        dir.path(),
        "honest",
        "[ $# -eq 0 ] || { echo \"given $*\" >&2; exit 9; }\nawk '{ printf \"%.10g\\n\", $1 + $2 }'",
    );
    let accepted = |case: &str| (case.to_string(), "accepted".to_string(), String::new());
    let order = ["sample/1", "secret/big/10", "secret/big/2", "secret/zero"];
    assert_eq!(
        grade(&honest, "honest"),
        (Some(0), order.map(accepted).to_vec())
    );
    // Within the tolerance, and a word for a number.
    let near = script(
        dir.path(),
        "near",
        "awk '{ s = $1 + $2; if (s == 0) print \"zero\"; else printf \"%.10g\\n\", s + 1e-7 }'",
    );
    let (code, got) = grade(&near, "near");
    assert_eq!(code, Some(1));
    assert_eq!(
        got.last().unwrap(),
        &(
            "secret/zero".into(),
            "wrong-answer".into(),
            "line 1: \"zero\" where a number was expected".into()
        )
    );
    assert!(got[..3].iter().all(|r| r.1 == "accepted"), "{got:?}");
    // A crash is a run-time error; a peek at the answers finds nothing
    // (the package's folder is out of every case's sight).
    let crash = script(dir.path(), "crash", "exit 4");
    let (_, got) = grade(&crash, "crash");
    assert!(
        got.iter().all(
            |r| r.1 == "runtime-error" && r.2 == "exit status 4 (a run that ends well exits 0)"
        ),
        "{got:?}"
    );
    let peek = script(
        dir.path(),
        "peek",
        &format!(
            "cat {}/data/secret/zero.ans 2>/dev/null || echo nothing",
            sum.display()
        ),
    );
    let (_, got) = grade(&peek, "peek");
    let zero = got.iter().find(|r| r.0 == "secret/zero").unwrap();
    assert_eq!(
        zero.1, "wrong-answer",
        "the answer was out of reach: {zero:?}"
    );
}

#[test]
fn a_package_asking_for_what_is_not_graded_yet_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(dir.path(), "validation: custom\n");
    std::fs::create_dir_all(sum.join("output_validators/v")).unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {}: a custom output validator is not graded yet (docs/packages.md)\n",
            sum.join("problem.yaml").display()
        ));
    std::fs::write(
        sum.join("problem.yaml"),
        "validator_flags: float_tolerance x\n",
    )
    .unwrap();
    std::fs::remove_file(sum.join("data/secret/zero.ans")).unwrap();
    let out = harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "harness: {}: validator_flags: float_tolerance x: not a tolerance\n",
            sum.join("problem.yaml").display()
        )
    );
}

/// A package's own time limit (`.timelimit`, as problemtools and Kattis
/// write it) is its cases', judged in CPU time as the run's would be.
#[test]
fn a_packages_own_time_limit_is_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(dir.path(), "validation: default\n");
    std::fs::write(sum.join(".timelimit"), "1\n").unwrap();
    let spin = script(dir.path(), "spin", "while :; do :; done");
    let card = dir.path().join("spin.csv");
    harness()
        .args(["grade", "--no-cache", "--filter", "zero", "--suite"])
        .arg(&sum)
        .arg("--candidate")
        .arg(&spin)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(1);
    let got = rows(&card);
    assert_eq!(got.len(), 1);
    // (CPU time where the run measures it, as root here; else the wall
    // clock's.)
    assert_eq!(got[0].1, "time-limit", "{got:?}");
    assert!(got[0].2.ends_with("over 1s"), "{got:?}");
}
