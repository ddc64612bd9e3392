//! The rogues' gallery: one grading run of hostile candidates beside
//! correct ones. Each gets its exact verdict; no process they start is
//! left afterwards; the suite is byte-identical; the scorecard is whole and
//! not forged; the correct candidates are unaffected. Needs root (a user
//! per job slot) and cgroups: elsewhere it says so and skips, except under
//! PUZZLEGRADE_REQUIRE_ISOLATION (CI), where that is a failure.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{
    Fixture, harness, harness_as_an_ordinary_user, misbehave, read_scorecard, require,
    require_ordinary, require_ordinary_bwrap,
};

/// Every file below `dir`, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The isolation label a run gets here, or why the gallery cannot run.
fn isolation_here() -> Result<String, String> {
    let f = Fixture::new();
    f.grade(&format!("{} right", misbehave()))
        .arg("--filter")
        .arg("unsolvable")
        .assert()
        .code(0);
    let label = read_scorecard(&f.scorecard())[0]["isolation"].clone();
    if label.contains("uid") && label.contains("cgroup") {
        Ok(label)
    } else {
        Err(format!(
            "isolation here is {label} (needs root and cgroups)"
        ))
    }
}

#[test]
fn the_rogues_gallery() {
    if let Err(why) = isolation_here() {
        require(false, &format!("the rogues' gallery: {why}"));
        return;
    }
    let board = "3x2\n#OO\n##O\n";
    let cases: &[(&str, &str, &str)] = &[
        ("right-1", "accepted", ""),
        ("right-2", "accepted", ""),
        ("right-3", "accepted", ""),
        ("stdin", "accepted", ""),
        ("sleeper", "time-limit", "still running after 2s"),
        ("busy", "time-limit", "still running after 2s"),
        ("sigstop", "time-limit", "still running after 2s"),
        ("forkbomb", "time-limit", "still running after 2s"),
        (
            "grandchild",
            "wrong-answer",
            "lights still on after 0 moves (3 lit)",
        ),
        ("setsid", "accepted", ""),
        ("daemon", "accepted", ""),
        ("flood", "output-limit", "stdout over 67108864 bytes ("),
        (
            "stderrflood",
            "accepted",
            "stderr cut at 1048576 bytes of 4194304",
        ),
        (
            "hog",
            "memory-limit",
            "killed by the kernel at the memory limit (268435456 bytes)",
        ),
        ("garbage", "wrong-answer", "move 1 "),
        ("segv", "runtime-error", "killed by SIGSEGV"),
        (
            "exit137",
            "runtime-error",
            "exit status 137 (the contract has 0 and 1)",
        ),
        ("overwrite", "accepted", ""),
        ("fifo", "accepted", ""),
        ("snoop", "accepted", ""),
        ("killparent", "accepted", ""),
        ("forger", "accepted", ""),
        ("longline", "wrong-answer", "move 1 \"yyyy"),
    ];
    let rows: Vec<(String, Option<&str>)> = cases
        .iter()
        .map(|(name, _, _)| (format!("{name}.txt"), Some(board)))
        .collect();
    let rows: Vec<(&str, Option<&str>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let f = Fixture::with_rows(&rows);
    let before = snapshot(&f.suite());
    let label = format!("{} gallery", misbehave());
    harness()
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", &label])
        .arg("--scorecard")
        .arg(f.scorecard())
        .arg("--env")
        .arg(format!("MISBEHAVE_PIDS={}", f.pids().display()))
        .args(["--wall-limit", "2s", "--grace", "200ms", "--jobs", "2"])
        .args(["--memory-limit", "256MiB", "--pids-limit", "32"])
        // Its own users: other tests' runs use the default range at once.
        .assert()
        .code(1);

    let rows = read_scorecard(&f.scorecard());
    assert_eq!(rows.len(), cases.len(), "one row per case");
    let by_case: BTreeMap<&str, _> = rows.iter().map(|r| (r["case"].as_str(), r)).collect();
    for (name, verdict, detail) in cases {
        let row = by_case[format!("{name}.txt").as_str()];
        assert_eq!(
            (row["verdict"].as_str(), row["candidate"].as_str()),
            (*verdict, label.as_str()),
            "{name}: {}",
            row["detail"]
        );
        assert!(
            row["detail"].starts_with(detail),
            "{name}: {:?} does not start with {detail:?}",
            row["detail"]
        );
    }
    // The harness measured each case's own memory, not its own peak: the
    // answers are small programs, whatever ran before them.
    let rss: u64 = by_case["right-3.txt"]["max_rss_kb"].parse().unwrap();
    assert!(rss < 64 * 1024, "right-3 reported {rss} KiB");

    assert_eq!(snapshot(&f.suite()), before, "the suite is byte-identical");
    f.assert_no_survivors();
}

/// Under bubblewrap a candidate has its own PID namespace (its parent is
/// not the harness), a crash is still reported as the signal, and correct
/// answers are accepted.
#[test]
fn bubblewrap_around_each_case() {
    let have = std::process::Command::new("bwrap")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(have, "bwrap is not installed (apt-get install bubblewrap)") {
        return;
    }
    let board = "3x2\n#OO\n##O\n";
    let f = Fixture::with_rows(&[
        ("right.txt", Some(board)),
        ("segv.txt", Some(board)),
        ("killparent.txt", Some(board)),
    ]);
    f.grade(&format!("{} gallery", misbehave()))
        .args(["--sandbox", "bwrap"])
        .assert()
        .code(1);
    let rows = read_scorecard(&f.scorecard());
    let verdict = |case: &str| {
        let r = rows.iter().find(|r| r["case"] == case).unwrap();
        (
            r["verdict"].clone(),
            r["detail"].clone(),
            r["isolation"].clone(),
        )
    };
    assert_eq!(verdict("right.txt").0, "accepted");
    assert!(verdict("right.txt").2.ends_with("+bwrap"));
    assert_eq!(
        (verdict("segv.txt").0, verdict("segv.txt").1),
        ("runtime-error".into(), "killed by SIGSEGV".into())
    );
    assert_eq!(verdict("killparent.txt").0, "accepted");
}

/// When bubblewrap itself cannot start (here: no room for its process
/// under `--pids-limit 1`), the row is `harness-error` naming why, never
/// the candidate's exit 1 ("no solution": accepted on an unsolvable board).
#[test]
fn a_sandbox_that_never_started_is_our_failure() {
    let have = std::process::Command::new("bwrap")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !require(
        have && rustix::process::geteuid().is_root(),
        "needs bwrap and root (a pids cgroup)",
    ) {
        return;
    }
    let f = Fixture::new();
    f.grade(&format!("{} right", misbehave()))
        .args(["--sandbox", "bwrap", "--pids-limit", "1"])
        .assert()
        .code(1);
    let rows = read_scorecard(&f.scorecard());
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["verdict"], "harness-error", "{r:?}");
        assert!(
            r["detail"].starts_with("the sandbox (bwrap) did not start the candidate: bwrap: "),
            "{}",
            r["detail"]
        );
    }
    // Killed for memory before the candidate's exec (an environment of
    // 1.7 MB, copied at each exec, under a 3 MiB limit): never the
    // candidate's memory-limit.
    let big = "x".repeat(120_000);
    let envs: Vec<String> = (0..14).map(|i| format!("BIG{i}={big}")).collect();
    let with_memory = |limit: &str, candidate: &str| {
        let mut cmd = f.grade(candidate);
        cmd.args(["--sandbox", "bwrap", "--force", "--memory-limit", limit]);
        for e in &envs {
            cmd.args(["--env", e]);
        }
        cmd.assert().code(1);
        read_scorecard(&f.scorecard())
    };
    for r in &with_memory("3MiB", &format!("{} right", misbehave())) {
        assert_eq!(r["verdict"], "harness-error", "{r:?}");
        assert!(
            r["detail"].starts_with(
                "the sandbox (bwrap) did not start the candidate: killed by signal 9 before the candidate's exec"
            ),
            "{}",
            r["detail"]
        );
    }
    // The candidate that started and went over its limit: its own verdict.
    for r in &with_memory("32MiB", "python3 -c 'bytearray(256 << 20)'") {
        assert_eq!(r["verdict"], "memory-limit", "{r:?}");
    }
}

/// Every other start failure we can cause is ours too: a scratch place
/// with no room left (a full /dev/shm) makes each row `harness-error`
/// naming it; a bubblewrap that is not there stops the run before any row
/// (exit 2, naming what to install), never a verdict.
#[test]
fn every_start_failure_is_ours() {
    if !require(
        rustix::process::geteuid().is_root() && Path::new("/usr/bin/unshare").exists(),
        "needs root and unshare (a mount namespace with a full /dev/shm)",
    ) {
        return;
    }
    let f = Fixture::new();
    let grade = format!(
        "mount -t tmpfs -o size=1m tmpfs /dev/shm && \
         dd if=/dev/zero of=/dev/shm/full bs=1k count=2000 2>/dev/null; \
         exec {} grade --suite {} --candidate '{} right' --scorecard {}",
        env!("CARGO_BIN_EXE_harness"),
        f.suite().display(),
        misbehave(),
        f.scorecard().display()
    );
    let out = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &grade])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_scorecard(&f.scorecard());
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["verdict"], "harness-error", "{r:?}");
        assert!(r["detail"].contains("No space left on device"), "{r:?}");
    }
    // No bubblewrap on the PATH: the run stops, no scorecard is written.
    let g = Fixture::new();
    let out = g
        .grade(&format!("{} right", misbehave()))
        .args(["--sandbox", "bwrap"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("apt-get install bubblewrap"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!g.scorecard().exists());
}

/// `harness grade` on `f`'s suite with the gallery, run as the ordinary
/// user 61000 (who owns the fixture: the suite and the scorecard are
/// within its candidates' reach), with `extra` arguments.
/// What the isolation label says of cores for `--jobs 2` as an ordinary
/// user: each slot keeps to its cores by affinity, where there are two.
fn cores_part() -> &'static str {
    if std::thread::available_parallelism().map_or(1, usize::from) >= 2 {
        "+cpus"
    } else {
        ""
    }
}

fn grade_as_a_normal_user(f: &Fixture, extra: &[&str]) -> std::process::Output {
    harness_as_an_ordinary_user(f.dir.path())
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", &format!("{} gallery", misbehave())])
        .arg("--scorecard")
        .arg(f.scorecard())
        .args(["--jobs", "2", "--wall-limit", "10s"])
        .args(extra)
        .output()
        .unwrap()
}

/// As an ordinary user the default is the strongest isolation the
/// machine allows: bubblewrap, where unprivileged user namespaces work.
/// Candidates that forge a row through the harness's open scorecard
/// (/proc/PID/fd), truncate the scorecard and the suite, ptrace the harness
/// or kill every process they may change nothing: every row is there and
/// accepted, none forged, the suite byte-identical. The tier is said and
/// recorded, with what it lacks.
#[test]
fn as_a_normal_user_the_rogues_cannot_reach_the_harness() {
    if !require_ordinary_bwrap() {
        return;
    }
    let board = "3x2\n#OO\n##O\n";
    let names = ["right", "procfd", "truncate", "ptrace", "killall"];
    let rows: Vec<(String, Option<&str>)> = names
        .iter()
        .map(|n| (format!("{n}.txt"), Some(board)))
        .collect();
    let rows: Vec<(&str, Option<&str>)> = rows.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let f = Fixture::with_rows(&rows);
    let before = snapshot(&f.suite());
    let out = grade_as_a_normal_user(&f, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let label = format!("copies+private+rlimits{}+bwrap", cores_part());
    assert!(stderr.contains(&format!("isolation: {label}")), "{stderr}");
    assert!(
        stderr.contains(
            "not available: another user (the harness is not root): bubblewrap keeps candidates from the harness's processes and files"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("not available: cgroups ("), "{stderr}");
    let card = read_scorecard(&f.scorecard());
    let got: BTreeMap<&str, (&str, &str)> = card
        .iter()
        .map(|r| {
            (
                r["case"].as_str(),
                (r["verdict"].as_str(), r["isolation"].as_str()),
            )
        })
        .collect();
    let want: BTreeMap<&str, (&str, &str)> = names
        .iter()
        .zip(&rows)
        .map(|(_, (n, _))| (*n, ("accepted", label.as_str())))
        .collect();
    assert_eq!(got, want, "every row, none forged");
    assert_eq!(snapshot(&f.suite()), before, "the suite is byte-identical");
}

/// Without a sandbox an ordinary user's candidates reach everything it
/// can: the harness says so.
#[test]
fn as_a_normal_user_without_a_sandbox_the_missing_protections_are_said() {
    if !require_ordinary() {
        return;
    }
    let f = Fixture::with_rows(&[("right.txt", Some("3x2\n#OO\n##O\n"))]);
    let out = grade_as_a_normal_user(&f, &["--sandbox", "none"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let label = format!("copies+rlimits{}", cores_part());
    assert!(stderr.contains(&format!("isolation: {label};")), "{stderr}");
    assert!(
        stderr.contains("not available: a sandbox (--sandbox none): candidates can signal the harness and write what it can"),
        "{stderr}"
    );
    let rows = read_scorecard(&f.scorecard());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["isolation"], label);
}
