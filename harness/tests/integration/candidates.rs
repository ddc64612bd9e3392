//! Real student-style candidates: C solvers built with gcc (Lights Out and
//! Gogen) and a Python Lights Out solver, graded on the bundled suites
//! (skipped where the compiler or interpreter is missing).

use std::path::{Path, PathBuf};
use std::process::Command;

use predicates::prelude::*;

use crate::support::{harness, workspace};

pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn grade_easy(candidate: &str, scorecard: &Path) {
    harness()
        .args(["grade", "--suite"])
        .arg(workspace().join("suites/lightsout/easy"))
        .args(["--candidate", candidate, "--scorecard"])
        .arg(scorecard)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("lightsout/easy: 19/19 accepted"));
}

/// `harness/tests/candidates/<name>.c` built with `gcc -O2` into `dir`;
/// `None` (with a note) when gcc is absent.
pub fn gcc(name: &str, dir: &Path) -> Option<PathBuf> {
    if !have("gcc") {
        eprintln!("note: gcc is absent; skipping");
        return None;
    }
    let exe = dir.join(name);
    let source = workspace().join(format!("harness/tests/candidates/{name}.c"));
    let status = Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&source)
        .status()
        .unwrap();
    assert!(status.success(), "gcc {}", source.display());
    Some(exe)
}

#[test]
fn a_c_solver_compiled_with_gcc() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = gcc("lightsout", dir.path()) else {
        return;
    };
    grade_easy(exe.to_str().unwrap(), &dir.path().join("s.csv"));
}

#[test]
fn a_python_solver() {
    if !have("python3") {
        eprintln!("note: python3 is absent; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = workspace().join("harness/tests/candidates/lightsout.py");
    grade_easy(
        &format!("python3 {}", script.display()),
        &dir.path().join("s.csv"),
    );
}

#[test]
fn a_c_gogen_solver_on_both_file_forms() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = gcc("gogen", dir.path()) else {
        return;
    };
    // The hand-written hub puzzles of the hard suite take this naive
    // solver tens of seconds (which is their point); the rest are quick.
    for (suite, filter, summary) in [
        ("suites/gogen/easy", "", "gogen/easy: 16/16 accepted"),
        ("suites/gogen/hard", "random", "gogen/hard: 21/21 accepted"),
    ] {
        harness()
            .args(["grade", "--suite"])
            .arg(workspace().join(suite))
            .args(["--filter", filter, "--candidate"])
            .arg(&exe)
            .arg("--scorecard")
            .arg(dir.path().join("s.csv"))
            .arg("--force")
            .assert()
            .code(0)
            .stdout(predicate::str::contains(summary));
    }
}

/// A candidate is started as `execvp` would start it: a script without
/// `#!` is run by `/bin/sh`, and a name on PATH is looked for past a
/// folder the job slot's user may not enter (as root, where that user is
/// not root: a `python3` under /root's pyenv, before /usr/bin's).
#[test]
fn candidates_are_found_and_started_as_execvp_would() {
    use std::os::unix::fs::PermissionsExt;
    // Not in /tmp, which a case's view replaces: nothing names these
    // folders on the command line. (A checkout under /tmp has no such
    // folder to offer.)
    let base = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    if harness::executor::SHARED
        .iter()
        .any(|p| base.starts_with(p))
    {
        eprintln!(
            "note: skipping: the checkout is under a folder every case's view replaces ({}); clone it elsewhere to run this test",
            base.display()
        );
        return;
    }
    let dir = tempfile::tempdir_in(base).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let body = format!(
        "exec {} solve --family lightsout \"$@\"\n",
        env!("CARGO_BIN_EXE_harness")
    );
    let bare = dir.path().join("bare");
    std::fs::write(&bare, &body).unwrap();
    std::fs::set_permissions(&bare, std::fs::Permissions::from_mode(0o755)).unwrap();
    grade_easy(bare.to_str().unwrap(), &dir.path().join("a.csv"));

    let (closed, open) = (dir.path().join("closed"), dir.path().join("open"));
    for (folder, mode) in [(&closed, 0o700), (&open, 0o755)] {
        std::fs::create_dir(folder).unwrap();
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode)).unwrap();
        let script = folder.join("pg-solver");
        std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // The harness's PATH is the candidate's.
    let path = format!("{}:{}:/usr/bin:/bin", closed.display(), open.display());
    harness()
        .env("PATH", path)
        .args(["grade", "--suite"])
        .arg(workspace().join("suites/lightsout/easy"))
        .args(["--candidate", "pg-solver", "--scorecard"])
        .arg(dir.path().join("b.csv"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("lightsout/easy: 19/19 accepted"));
}
