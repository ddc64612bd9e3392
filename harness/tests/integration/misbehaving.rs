//! Candidates that misbehave: each gets its exact verdict, and no process
//! they start survives the run.

use predicates::prelude::*;

use crate::support::{Fixture, misbehave};

fn candidate(mode: &str) -> String {
    format!("{} {mode}", misbehave())
}

#[test]
fn right_answers_are_accepted_with_move_counts() {
    let f = Fixture::new();
    f.grade(&candidate("right"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("lightsout/tiny: 2/2 accepted"));
    let rows = f.rows();
    let s = &rows["solvable.txt"];
    assert_eq!(
        (
            s["verdict"].as_str(),
            s["exit_code"].as_str(),
            s["moves"].as_str(),
            s["best_moves"].as_str()
        ),
        ("accepted", "0", "1", "1")
    );
    let u = &rows["unsolvable.txt"];
    assert_eq!(
        (u["verdict"].as_str(), u["exit_code"].as_str()),
        ("accepted", "1")
    );
    assert_eq!(u["detail"], "unsolvable, correctly reported");
    assert_eq!(s["family"], "lightsout");
    assert_eq!(s["suite"], "lightsout/tiny");
    assert_eq!(s["candidate"], candidate("right"));
    f.assert_no_survivors();
}

#[test]
fn wrong_answers_and_wrong_statuses() {
    let f = Fixture::new();
    f.grade(&candidate("wrong"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "wrong-answer  lightsout/tiny/solvable.txt: lights still on after 3 moves (2 lit)",
        ));
    let rows = f.rows();
    assert_eq!(rows["solvable.txt"]["verdict"], "wrong-answer");
    assert_eq!(rows["solvable.txt"]["moves"], "3");
    assert_eq!(rows["unsolvable.txt"]["verdict"], "wrong-exit-status");
    assert_eq!(
        rows["unsolvable.txt"]["detail"],
        "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)"
    );
}

#[test]
fn exit_statuses_outside_the_contract_are_runtime_errors() {
    let f = Fixture::new();
    f.grade(&candidate("exit 3")).assert().code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "runtime-error");
        assert_eq!(row["exit_code"], "3");
        assert_eq!(row["detail"], "exit status 3 (the contract has 0 and 1)");
    }
    let f = Fixture::new();
    f.grade(&candidate("exit 1")).assert().code(1);
    let rows = f.rows();
    assert_eq!(rows["solvable.txt"]["verdict"], "wrong-exit-status");
    assert_eq!(
        rows["solvable.txt"]["detail"],
        "exit 1 (no solution) on a solvable puzzle"
    );
    assert_eq!(rows["unsolvable.txt"]["verdict"], "accepted");
}

#[test]
fn death_by_signal_is_a_runtime_error() {
    let f = Fixture::new();
    f.grade(&candidate("signal")).assert().code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "runtime-error");
        assert_eq!(row["signal"], "SIGABRT");
        assert_eq!(row["exit_code"], "");
        assert_eq!(row["detail"], "killed by SIGABRT");
    }
}

#[test]
fn sleepers_hit_the_time_limit_and_die() {
    let f = Fixture::new();
    f.grade(&candidate("sleep"))
        .args(["--wall-limit", "1s"])
        .assert()
        .code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "time-limit");
        assert_eq!(row["signal"], "SIGTERM");
        assert_eq!(row["detail"], "still running after 1s");
    }
    f.assert_no_survivors();
}

#[test]
fn sigterm_ignored_gets_sigkill_after_the_grace() {
    let f = Fixture::new();
    f.grade(&candidate("ignore-term"))
        .args(["--wall-limit", "1s", "--grace", "200ms"])
        .assert()
        .code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "time-limit");
        assert_eq!(row["signal"], "SIGKILL");
    }
    f.assert_no_survivors();
}

#[test]
fn a_grandchild_holding_stdout_does_not_hang_the_run() {
    // The candidate exits at once with no output while its child sleeps on
    // with stdout open: graded on what it printed, and the child is killed.
    let f = Fixture::new();
    f.grade(&candidate("grandchild"))
        .args(["--wall-limit", "60s"])
        .assert()
        .code(1);
    let rows = f.rows();
    assert_eq!(rows["solvable.txt"]["verdict"], "wrong-answer");
    assert_eq!(
        rows["solvable.txt"]["detail"],
        "lights still on after 0 moves (3 lit)"
    );
    assert_eq!(rows["unsolvable.txt"]["verdict"], "wrong-exit-status");
    // Two candidates, and those of their children that got to start.
    assert!(std::fs::read_to_string(f.pids()).unwrap().lines().count() >= 2);
    f.assert_no_survivors();
}

#[test]
fn a_waiting_parent_and_its_grandchild_both_die_at_the_limit() {
    let f = Fixture::new();
    f.grade(&candidate("grandchild-wait"))
        .args(["--wall-limit", "1s"])
        .assert()
        .code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "time-limit");
    }
    f.assert_no_survivors();
}

#[test]
fn floods_hit_the_output_limit() {
    let f = Fixture::new();
    f.grade(&candidate("flood"))
        .args(["--stdout-limit", "1MiB"])
        .assert()
        .code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "output-limit");
        assert!(
            row["detail"].starts_with("stdout over 1048576 bytes ("),
            "{}",
            row["detail"]
        );
        assert_eq!(row["signal"], "SIGKILL");
    }
    f.assert_no_survivors();
}

/// stderr past its cap is cut and drained, never a verdict by itself: a
/// program that floods stderr and then crashes is reported as the crash.
#[test]
fn stderr_floods_are_cut_never_the_verdict() {
    let f = Fixture::new();
    f.grade(&candidate("flood-stderr-then-abort"))
        .args(["--stderr-limit", "64KiB"])
        .assert()
        .code(1);
    for row in f.rows().values() {
        assert_eq!(row["verdict"], "runtime-error");
        // The excerpt of stderr is bounded too.
        assert_eq!(
            row["detail"],
            format!(
                "killed by SIGABRT; stderr: {}...; stderr cut at 65536 bytes of 4194304",
                "7".repeat(160)
            )
        );
        assert_eq!(row["signal"], "SIGABRT");
    }
    f.assert_no_survivors();
}

/// An answer longer than the part of stdout kept in memory is read back
/// whole: every move counts.
#[test]
fn long_answers_are_judged_whole() {
    let f = Fixture::new();
    f.grade(&candidate("pad 300000"))
        .args(["--filter", "/solvable.txt"])
        .assert()
        .code(0);
    let rows = f.rows();
    let s = &rows["solvable.txt"];
    assert_eq!(
        (s["verdict"].as_str(), s["moves"].as_str()),
        ("accepted", "600001")
    );
}

/// `--cpu-limit` is CPU time, as the course's `ulimit -t 80`: a spinner
/// dies of it, a sleeper does not (the wall-clock safety net catches that
/// one, and the row says so).
#[test]
fn the_cpu_limit_counts_cpu_time() {
    let f = Fixture::new();
    f.grade(&candidate("spin 5000"))
        .args(["--cpu-limit", "1s", "--filter", "/solvable.txt"])
        .assert()
        .code(1);
    let row = &f.rows()["solvable.txt"];
    assert_eq!(
        (row["verdict"].as_str(), row["detail"].as_str()),
        ("time-limit", "CPU time over 1s")
    );
    let f = Fixture::new();
    f.grade(&candidate("sleep"))
        .args([
            "--cpu-limit",
            "1s",
            "--wall-limit",
            "2s",
            "--filter",
            "/solvable.txt",
        ])
        .assert()
        .code(1);
    let row = &f.rows()["solvable.txt"];
    assert_eq!(
        (row["verdict"].as_str(), row["detail"].as_str()),
        (
            "time-limit",
            "stopped by the wall-clock safety net at 2s with 0.00 s of CPU time (the limit is 1s): the rest of the time it was asleep or blocked, not waiting for a core"
        )
    );
    // Without isolation nothing measures a tree's CPU time: the time
    // limit is the wall clock's.
    f.grade(&candidate("sleep"))
        .args(["--time-limit", "1s", "--isolation", "none", "--force"])
        .args(["--filter", "/solvable.txt"])
        .assert()
        .code(1);
    let row = &f.rows()["solvable.txt"];
    assert_eq!(row["verdict"], "time-limit", "{row:?}");
    assert!(row["detail"].contains("1s"), "{row:?}");
}

/// `--time-limit` is CPU time where isolation measures it (as judges
/// count it): a case that waits on a busy machine, or sleeps, under the
/// limit is not stopped by it; the wall-clock net is `--wall-limit`.
#[test]
fn the_time_limit_is_cpu_time_and_the_wall_clock_a_net() {
    let f = Fixture::new();
    // 1.5 s asleep: under a 1 s time limit in CPU time, accepted.
    f.grade(&candidate("cores 1500"))
        .args(["--time-limit", "1s", "--filter", "/solvable.txt"])
        .assert()
        .code(0);
    // The same under a 1 s wall-clock net: stopped.
    f.grade(&candidate("cores 1500"))
        .args(["--time-limit", "1s", "--wall-limit", "1s", "--force"])
        .args(["--filter", "/solvable.txt"])
        .assert()
        .code(1);
    assert_eq!(f.rows()["solvable.txt"]["verdict"], "time-limit");
}
