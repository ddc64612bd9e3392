//! A candidate never reaches the terminal the harness was started from: a
//! rogue (`tests/candidates/tty.c`) that opens `/dev/tty`, types a line
//! into it (TIOCSTI) and takes its foreground (tcsetpgrp) is run by a
//! harness under a pseudo-terminal (`script`), as a TA runs it from a
//! shell; the shell must read nothing afterwards.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::candidates::{gcc, have};

/// A suite with one unsolvable board, readable by every candidate's user.
fn suite(dir: &Path) -> std::path::PathBuf {
    let suite = dir.join("lights/s");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(suite.join("b.txt"), "3x2\n#O#\n#OO\n").unwrap();
    std::fs::write(suite.join("s.csv"), "board,expect\nb.txt,\n").unwrap();
    for p in [dir, &dir.join("lights"), &suite] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    suite
}

#[test]
fn a_candidate_cannot_type_into_the_graders_terminal() {
    if !have("script") && std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none() {
        eprintln!("note: `script` (util-linux) is absent; skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let Some(rogue) = gcc("tty", dir.path()) else {
        return;
    };
    let suite = suite(dir.path());
    let mut sandboxes = vec!["none"];
    if have("bwrap") || std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_some() {
        sandboxes.push("bwrap");
    }
    for sandbox in sandboxes {
        let kept = dir.path().join(format!("kept-{sandbox}"));
        let grade = format!(
            "{} grade --suite {} --candidate {} --sandbox {sandbox} --scorecard {} --force \
             --keep-output {} --format json >/dev/null 2>&1; read -t 2 L; echo \"read: [$L]\"",
            env!("CARGO_BIN_EXE_harness"),
            suite.display(),
            rogue.display(),
            dir.path().join("card.csv").display(),
            kept.display(),
        );
        // The harness's controlling terminal is script's pseudo-terminal;
        // script's own stdin stays open (a pipe) until the shell is done.
        let mut feeder = Command::new("sleep")
            .arg("5")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // A rogue that takes the terminal kills the shell's session, which
        // may then hang: bounded.
        let out = Command::new("timeout")
            .args(["30", "script", "-qec", &grade, "/dev/null"])
            .stdin(feeder.stdout.take().unwrap())
            .output()
            .unwrap();
        let _ = feeder.kill();
        let _ = feeder.wait();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("PWNED"),
            "{sandbox}: typed into the shell: {text}"
        );
        assert!(text.contains("read: []"), "{sandbox}: {text}");
        let said = walkdir::WalkDir::new(&kept)
            .into_iter()
            .filter_map(Result::ok)
            .find(|e| e.path().extension().is_some_and(|x| x == "stdout"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .expect("the rogue's kept stdout");
        assert_eq!(
            said, "tty No such device or address, typed 0, foreground 0\n",
            "{sandbox}"
        );
    }
}

/// Under a terminal the bar ticks while a long case runs: the elapsed
/// time and an ETA move, and the case running now is shown with its time
/// so far (it used to look frozen until a case finished).
#[test]
fn the_terminal_shows_what_runs_while_it_runs() {
    if !have("script") && std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none() {
        eprintln!("note: `script` (util-linux) is absent; skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let suite = suite(dir.path());
    // Three seconds asleep, then the right answer (unsolvable: exit 1).
    let slow = dir.path().join("slow.sh");
    std::fs::write(&slow, "#!/bin/sh\nsleep 3\nexit 1\n").unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let grade = format!(
        "{} grade --suite {} --candidate {} --scorecard {} --force",
        env!("CARGO_BIN_EXE_harness"),
        suite.display(),
        slow.display(),
        dir.path().join("card.csv").display(),
    );
    let out = Command::new("timeout")
        .args(["30", "script", "-qec", &grade, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1/1 accepted"), "{text}");
    assert!(text.contains(" elapsed, ETA "), "{text}");
    // Redrawn while the case runs, with its time so far going up.
    assert!(text.contains("running: lights/s/b.txt 1s"), "{text}");
    assert!(text.contains("running: lights/s/b.txt 2s"), "{text}");
}
