//! A run's life as a user lives it: Ctrl-C and SIGTERM, `kill -9` and
//! `--resume`, a full disk, an existing scorecard, exports, `--format json`.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::support::{Fixture, harness, misbehave, read_scorecard};

/// A Lights Out suite of `n` copies of the one-press board.
fn suite_of(n: usize) -> Fixture {
    let rows: Vec<(String, &str)> = (0..n)
        .map(|i| (format!("b{i:02}.txt"), "3x2\n#OO\n##O\n"))
        .collect();
    let rows: Vec<(&str, Option<&str>)> =
        rows.iter().map(|(n, t)| (n.as_str(), Some(*t))).collect();
    Fixture::with_rows(&rows)
}

/// A harness started by a test: killed if the test fails before it ends.
struct Running(Option<Child>);

impl Running {
    fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `harness grade` on the fixture as a child process we can signal.
fn spawn(f: &Fixture, candidate: &str, extra: &[&str]) -> Running {
    let child = Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", candidate, "--scorecard"])
        .arg(f.scorecard())
        .args(extra)
        .arg("--env")
        .arg(format!("MISBEHAVE_PIDS={}", f.pids().display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the harness");
    Running(Some(child))
}

/// Waits (at most 20 s) until `ready` holds.
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn signal(child: &Running, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill {sig} failed");
}

/// Exit status and stdout of a child, waiting at most 20 s.
fn finish(mut running: Running) -> (Option<i32>, String) {
    let mut child = running.0.take().expect("a running harness");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return (
                status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            );
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("the harness did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts the harness on `f`, waits until `running` pids are recorded, sends
/// each of `signals` (a short pause between), and returns how it ended.
fn interrupt(
    f: &Fixture,
    mode: &str,
    extra: &[&str],
    running: usize,
    signals: &[&str],
) -> (Option<i32>, String) {
    let child = spawn(f, &format!("{} {mode}", misbehave()), extra);
    wait_until("running candidates", || lines(&f.pids()) >= running);
    for sig in signals {
        std::thread::sleep(Duration::from_millis(200));
        signal(&child, sig);
    }
    finish(child)
}

fn verdicts(f: &Fixture) -> Vec<String> {
    read_scorecard(&f.scorecard())
        .into_iter()
        .map(|r| r["verdict"].clone())
        .collect()
}

#[test]
fn ctrl_c_cancels_every_unfinished_case_and_kills_every_candidate() {
    for (sig, code, why) in [
        ("-INT", 130, "interrupted (SIGINT)"),
        ("-TERM", 143, "terminated (SIGTERM)"),
    ] {
        let f = suite_of(6);
        let extra = ["--jobs", "2", "--wall-limit", "60s"];
        let (status, stdout) = interrupt(&f, "sleep", &extra, 2, &[sig]);
        assert_eq!(status, Some(code), "{stdout}");
        assert!(
            stdout.contains(&format!("{why}: 6 case(s) cancelled")),
            "{stdout}"
        );
        assert_eq!(verdicts(&f), vec!["cancelled"; 6], "one row per case");
        f.assert_no_survivors();
    }
}

#[test]
fn a_second_ctrl_c_kills_at_once() {
    let f = suite_of(2);
    // SIGTERM is ignored: only the grace (10 min here) or a second Ctrl-C
    // gets SIGKILL to it.
    let extra = ["--jobs", "2", "--wall-limit", "60s", "--grace", "10m"];
    let (status, _) = interrupt(&f, "ignore-term", &extra, 2, &["-INT", "-INT"]);
    assert_eq!(status, Some(130));
    assert_eq!(verdicts(&f), vec!["cancelled"; 2]);
    f.assert_no_survivors();
}

#[test]
fn escapees_in_their_own_session_die_when_the_run_ends() {
    let f = suite_of(2);
    f.grade(&format!("{} setsid", misbehave())).assert().code(1);
    // Each case recorded two pids: the candidate and its daemon.
    assert_eq!(lines(&f.pids()), 4);
    f.assert_no_survivors();
}

#[test]
fn kill_9_of_the_harness_takes_its_candidates_with_it() {
    let f = suite_of(3);
    // Three candidates and their three grandchildren, then kill -9.
    let extra = ["--jobs", "3", "--wall-limit", "60s"];
    let _ = interrupt(&f, "grandchild-wait", &extra, 6, &["-KILL"]);
    f.assert_no_survivors();
}

#[test]
fn kill_9_then_resume_gives_one_row_per_case() {
    let f = suite_of(8);
    let candidate = format!("{} spin 150", misbehave());
    let child = spawn(&f, &candidate, &["--jobs", "1"]);
    // Header plus at least two rows, then kill -9 mid-case.
    wait_until("two rows", || lines(&f.scorecard()) >= 3);
    signal(&child, "-KILL");
    let _ = finish(child);
    // The guard kills the case that was running.
    f.assert_no_survivors();
    let before = read_scorecard(&f.scorecard()).len();
    assert!((2..8).contains(&before), "{before} rows before the resume");

    // Without --resume or --force an existing scorecard is a usage error.
    f.grade(&candidate)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exists; --resume continues it"));

    f.grade(&candidate)
        .arg("--resume")
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "resuming: {before} case(s) kept from the scorecard, {} to run",
            8 - before
        )))
        .stdout(predicate::str::contains("lightsout/tiny: 8/8 accepted"));
    let rows = read_scorecard(&f.scorecard());
    let mut cases: Vec<&str> = rows.iter().map(|r| r["case"].as_str()).collect();
    cases.sort_unstable();
    let want: Vec<String> = (0..8).map(|i| format!("b{i:02}.txt")).collect();
    assert_eq!(cases, want, "exactly one row per case");
}

#[test]
fn resume_drops_cancelled_rows_and_rerun_failed_replaces_failures() {
    let f = suite_of(4);
    let extra = ["--jobs", "1", "--wall-limit", "60s"];
    assert_eq!(interrupt(&f, "sleep", &extra, 1, &["-INT"]).0, Some(130));
    assert_eq!(verdicts(&f), vec!["cancelled"; 4]);

    // Resume with a wrong solver: the cancelled rows are run again.
    let wrong = format!("{} wrong", misbehave());
    f.grade(&wrong)
        .args(["--resume", "--name", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a row of candidate"));
    let name = format!("{} sleep", misbehave());
    f.grade(&wrong)
        .args(["--resume", "--name", &name])
        .assert()
        .code(1);
    assert_eq!(verdicts(&f), vec!["wrong-answer"; 4]);

    // Now only the failures run again, and their rows are replaced.
    f.grade(&format!("{} right", misbehave()))
        .args(["--rerun-failed", "--name", &name])
        .assert()
        .code(0);
    assert_eq!(verdicts(&f), vec!["accepted"; 4]);
    let before = std::fs::read(f.scorecard()).unwrap();
    f.grade(&wrong)
        .args(["--rerun-failed", "--name", &name])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "4 case(s) kept from the scorecard, 0 to run",
        ));
    assert_eq!(
        std::fs::read(f.scorecard()).unwrap(),
        before,
        "nothing to rerun"
    );
}

/// A suite of more cases than the harness loads at once (a window of
/// 1,024) is graded whole, a row a case; cut short (a torn last line, as a
/// crash leaves), `--resume` runs only the cases whose rows are gone.
#[test]
fn a_suite_past_a_window_is_graded_whole_and_resumed() {
    let n = 2_100;
    let f = suite_of(n);
    let right = format!("{} right", misbehave());
    let args = ["--isolation", "none", "--jobs", "2"];
    f.grade(&right).args(args).assert().code(0);
    assert_eq!(verdicts(&f), vec!["accepted"; n]);
    let text = std::fs::read_to_string(f.scorecard()).unwrap();
    let mut cut: Vec<&str> = text.lines().take(1 + 1_500).collect();
    cut.push("misbehave,lightsout,lightsout/tiny,b21");
    std::fs::write(f.scorecard(), cut.join("\n")).unwrap();
    f.grade(&right)
        .args(args)
        .args(["--resume"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "1500 case(s) kept from the scorecard, 600 to run",
        ));
    let rows = read_scorecard(&f.scorecard());
    let mut cases: Vec<&str> = rows.iter().map(|r| r["case"].as_str()).collect();
    cases.sort_unstable();
    cases.dedup();
    assert_eq!((rows.len(), cases.len()), (n, n), "one row a case");
    assert!(rows.iter().all(|r| r["verdict"] == "accepted"));
}

/// A scorecard write that fails (here the file-size limit, as a full disk
/// would) stops the run with exit 2, leaves only whole rows, and
/// `--resume` then completes it.
#[test]
fn a_write_error_stops_cleanly_and_resume_completes() {
    let f = suite_of(12);
    let candidate = format!("{} right", misbehave());
    let script = format!(
        "trap '' XFSZ; ulimit -f 1; exec \"$0\" grade --suite '{}' --candidate '{}' --scorecard '{}' --jobs 1",
        f.suite().display(),
        candidate,
        f.scorecard().display()
    );
    let out = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_harness")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write the scorecard"), "{stderr}");
    let text = std::fs::read_to_string(f.scorecard()).unwrap();
    assert!(text.ends_with('\n'), "no torn row: {text:?}");
    let kept = read_scorecard(&f.scorecard()).len();
    assert!(kept < 12, "the limit cut the run short ({kept} rows)");
    f.grade(&candidate).arg("--resume").assert().code(0);
    assert_eq!(read_scorecard(&f.scorecard()).len(), 12);
}

#[test]
fn exports_are_written_and_read_back() {
    let f = Fixture::new();
    let dir = f.dir.path();
    f.grade(&format!("{} wrong", misbehave()))
        .arg("--export")
        .arg(format!("json:{}", dir.join("out/r.json").display()))
        .arg("--export")
        .arg(format!("junit:{}", dir.join("r.xml").display()))
        .arg("--export")
        .arg(format!("gradescope:{}", dir.join("results.json").display()))
        .assert()
        .code(1);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/r.json")).unwrap()).unwrap();
    assert_eq!(json["finished"], true);
    let mut rows: Vec<(String, String)> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["case"].as_str().unwrap().into(),
                r["verdict"].as_str().unwrap().into(),
            )
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("solvable.txt".to_string(), "wrong-answer".to_string()),
            (
                "unsolvable.txt".to_string(),
                "wrong-exit-status".to_string()
            )
        ]
    );
    let xml = std::fs::read_to_string(dir.join("r.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failures = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(failures, 2);
    let gs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(
        (gs["score"].as_f64(), gs["max_score"].as_f64()),
        (Some(0.0), Some(2.0))
    );
    assert_eq!(gs["tests"].as_array().unwrap().len(), 2);

    f.grade_without_candidate()
        .args(["--candidate", misbehave(), "--force", "--export", "csv:x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown export format \"csv\""));
}

#[test]
fn format_json_prints_the_event_stream() {
    let f = Fixture::new();
    let out = f
        .grade(&format!("{} right", misbehave()))
        .args(["--format", "json", "--jobs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let events: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "run-started",
            "case-started",
            "case-finished",
            "case-started",
            "case-finished",
            "run-finished"
        ]
    );
    assert_eq!(events[0]["cases"], 2);
    assert_eq!(events[2]["row"]["verdict"], "accepted");
    assert_eq!(
        events[5]["summary"]["suites"]["lightsout/tiny"]["verdicts"]["accepted"],
        2
    );
}

#[test]
fn limits_are_validated() {
    let f = Fixture::new();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--time-limit", "18446744073709551615s"],
            "harness: --time-limit ",
        ),
        (
            &["--grace", "25h"],
            "harness: --grace 1day 1h is over the 24 h maximum",
        ),
        (
            &["--jobs", "100000"],
            "harness: --jobs 100000 is over the maximum of 1024",
        ),
        (&["--resume", "--force"], "cannot be used with"),
    ];
    for (args, message) in cases {
        f.grade(&format!("{} right", misbehave()))
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    assert!(
        !f.scorecard().exists(),
        "no scorecard is created on a usage error"
    );
}

#[test]
fn discovery_names_cases_by_all_their_files_and_reports_problems() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("slidingblock/two");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(suite.join("t"), "1 3\n0 0 0 0\n").unwrap();
    std::fs::write(suite.join("g1"), "0 1 0 1\n").unwrap();
    std::fs::write(suite.join("g2"), "0 2 0 2\n").unwrap();
    std::fs::write(
        suite.join("two.csv"),
        "initial config file, goal file, comments\nt,g1,one\nt,g2,two\nt,g1,again\n",
    )
    .unwrap();
    let scorecard = dir.path().join("s.csv");
    let grade = |extra: &[&str]| {
        harness()
            .args(["grade", "--force", "--suite"])
            .arg(&suite)
            .arg("--scorecard")
            .arg(&scorecard)
            .args(extra)
            .assert()
    };
    grade(&[])
        .code(1)
        .stdout(predicate::str::contains(
            "harness-error  slidingblock/two/t+g1 (line 4): ",
        ))
        .stdout(predicate::str::contains(
            "two.csv: line 4: the same files as line 2",
        ));
    let rows: HashMap<String, String> = read_scorecard(&scorecard)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows["t+g1"], "accepted");
    assert_eq!(rows["t+g2"], "accepted");
    // --filter can pick one goal of a tray listed with several.
    grade(&["--filter", "t+g2"]).code(0);
    assert_eq!(read_scorecard(&scorecard).len(), 1);

    // An empty suite says so; a listing that cannot be read is an error.
    std::fs::write(suite.join("two.csv"), "initial config file, goal file\n").unwrap();
    grade(&[]).code(2).stderr(predicate::str::contains(
        "suite slidingblock/two lists no cases",
    ));
    std::fs::write(suite.join("two.csv"), b"initial config file\xff, goal\n").unwrap();
    grade(&[])
        .code(2)
        .stderr(predicate::str::contains("cannot read listing"))
        .stderr(predicate::str::contains("two.csv: line 1"));
}

/// Two runs on one scorecard: the second stops at once (exit 2) and the
/// first one's scorecard is neither emptied nor written twice.
#[test]
fn a_second_run_on_the_same_scorecard_stops_at_once() {
    let f = suite_of(2);
    let first = spawn(
        &f,
        &format!("{} sleep", misbehave()),
        &["--jobs", "1", "--wall-limit", "2s", "--force"],
    );
    wait_until("a running candidate", || lines(&f.pids()) >= 1);
    for mode in [&["--force"][..], &["--resume"], &["--rerun-failed"]] {
        f.grade(&format!("{} right", misbehave()))
            .args(mode)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "harness: scorecard {} is in use by another run of the harness",
                f.scorecard().display()
            )));
    }
    let (code, _) = finish(first);
    assert_eq!(code, Some(1));
    let text = std::fs::read_to_string(f.scorecard()).unwrap();
    assert_eq!(text.matches("candidate,family,suite").count(), 1, "{text}");
    assert_eq!(verdicts(&f), ["time-limit", "time-limit"]);
}

/// `grade --help` in groups, with examples and the exit statuses; `-h`
/// in the same groups, without them.
#[test]
fn grade_help_is_grouped_with_examples_and_exit_statuses() {
    let long = harness().args(["grade", "--help"]).output().unwrap();
    let text = String::from_utf8(long.stdout).unwrap();
    for heading in [
        "\nWhat to grade:\n",
        "\nA class (a course config):\n",
        "\nOne submission on a platform:\n",
        "\nLimits:\n",
        "\nScorecard and outputs:\n",
        "\nIsolation (docs/harness.md):\n",
        "\nSharding:\n",
        "\nExamples:\n",
    ] {
        assert!(text.contains(heading), "{heading:?} in\n{text}");
    }
    assert!(
        text.contains("Exit status: 0 every case accepted; 1 some case not accepted; 2 a usage or")
    );
    let short = harness().args(["grade", "-h"]).output().unwrap();
    let short = String::from_utf8(short.stdout).unwrap();
    assert!(short.contains("\nA class (a course config):\n") && !short.contains("Examples:"));
}

/// A class run stopped by Ctrl-C writes a summary that says it is
/// partial: each submission with a row it never got has no total (not a
/// 0 it did not earn) and `graded` says why; `--resume` completes it.
#[test]
fn an_interrupted_class_run_says_its_summary_is_partial() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // (Candidates may run as other users: they append to the pid file.)
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let pids = dir.path().join("pids");
    std::fs::write(&pids, "").unwrap();
    std::fs::set_permissions(&pids, std::fs::Permissions::from_mode(0o666)).unwrap();
    let class = dir.path().join("class");
    for id in ["alice", "bob"] {
        std::fs::create_dir_all(class.join(id)).unwrap();
    }
    let course = dir.path().join("course.toml");
    let config = |mode: &str| {
        format!(
            "name = \"naps\"\nfamily = \"lightsout\"\n\n\
             [[part]]\nname = \"solver\"\ncommand = \"{} {mode}\"\n\
             suites = [\"{}\"]\ncases = [\"*/easy/2x*\"]\n\n\
             [[rubric]]\nname = \"easy\"\nrule = \"each\"\npoints = 1\npart = \"solver\"\n",
            misbehave(),
            crate::support::workspace()
                .join("suites/lightsout/easy")
                .display()
        )
    };
    std::fs::write(&course, config("sleep")).unwrap();
    let grade = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
        cmd.current_dir(dir.path())
            .args(["grade", "--course"])
            .arg(&course)
            .args(["--submissions", "class", "--summary", "summary.csv"])
            .args(["--jobs", "1", "--wall-limit", "60s", "--env"])
            .arg(format!("MISBEHAVE_PIDS={}", pids.display()))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };
    let running = Running(Some(grade(&[]).spawn().unwrap()));
    wait_until("a sleeping case", || lines(&pids) >= 1);
    signal(&running, "-INT");
    let (status, _) = finish(running);
    assert_eq!(status, Some(130));
    let graded = |text: &str| -> Vec<(String, String, String)> {
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let h = r.headers().unwrap().clone();
        let at = |name: &str| h.iter().position(|x| x == name).unwrap();
        let (total, graded) = (at("total"), at("graded"));
        r.records()
            .map(|x| x.unwrap())
            .map(|x| {
                (
                    x[0].to_string(),
                    x[total].to_string(),
                    x[graded].to_string(),
                )
            })
            .collect()
    };
    let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    for (id, total, why) in graded(&summary) {
        assert_eq!(total, "", "{id}: no total");
        assert!(why.starts_with("no: "), "{id}: {why}");
        assert!(why.contains("the run was stopped"), "{id}: {why}");
    }
    // The same class resumed with a candidate that answers: complete.
    std::fs::write(&course, config("right")).unwrap();
    let out = grade(&["--resume"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
    assert_eq!(
        graded(&summary),
        [
            ("alice".to_string(), "4".to_string(), "yes".to_string()),
            ("bob".to_string(), "4".to_string(), "yes".to_string()),
        ]
    );
}

/// Under a pty, a class with a submission that does not build and
/// uneven parts (cases of 0.1 s and 0.5 s of CPU): an ETA from the first
/// tenth on (`--` before anything finished; a lower bound, `3s+`, while
/// no case is measured, never above the truth), never 0 before the end,
/// within 2x of the truth
/// (two seconds' slack: the bar shows whole seconds) once a tenth is done,
/// and the last count is the rows written (the unbuilt submission's cases
/// are off the total).
#[test]
fn the_progress_bar_under_a_pty_counts_and_times_a_class() {
    use std::os::unix::fs::PermissionsExt;
    if !crate::support::require(
        Path::new("/usr/bin/script").exists(),
        "needs script (util-linux) for a pty",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let class = dir.path().join("class");
    for id in ["s1", "s2", "s3", "s4", "unbuilt"] {
        std::fs::create_dir_all(class.join(id)).unwrap();
        if id != "unbuilt" {
            std::fs::write(class.join(id).join("ok.txt"), "").unwrap();
        }
    }
    let suite = crate::support::workspace().join("suites/lightsout/easy");
    let part = |name: &str, ms: u32| {
        format!(
            "[[part]]\nname = \"{name}\"\ncommand = \"{} burn {ms} 1\"\n\
             suites = [\"{}\"]\ncases = [\"*/easy/2x*\", \"*/easy/3x2-*\"]\n\n\
             [[rubric]]\nname = \"{name}\"\nrule = \"each\"\npoints = 1\npart = \"{name}\"\n\n",
            misbehave(),
            suite.display()
        )
    };
    let course = dir.path().join("course.toml");
    std::fs::write(
        &course,
        format!(
            "name = \"paces\"\nfamily = \"lightsout\"\n\n[build]\ncommand = \"test -f ok.txt\"\n\n{}{}",
            part("quick", 100),
            part("slow", 500)
        ),
    )
    .unwrap();
    let command = format!(
        "{} grade --course {} --submissions {} --scorecard {} --jobs 2",
        env!("CARGO_BIN_EXE_harness"),
        course.display(),
        class.display(),
        dir.path().join("rows.csv").display()
    );
    let start = Instant::now();
    let out = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .output()
        .unwrap();
    let total = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "\n");
    // Every frame: cases done, the total, seconds elapsed, the ETA.
    let frame = regex_lite(&text);
    assert!(frame.len() >= 3, "frames: {text}");
    let rows = read_scorecard(&dir.path().join("rows.csv")).len();
    // 5 builds and 4 x 7 x 2 cases: the unbuilt one's 14 are withdrawn.
    assert_eq!(rows, 5 + 4 * 14);
    assert_eq!(frame.last().unwrap().1, rows as u64, "the last count");
    for (done, len, elapsed, eta) in &frame {
        match eta {
            // (No basis: before a case of the kind running finished.)
            None => assert!(*done * 10 < *len || done == len, "no ETA at {done}/{len}"),
            Some((eta, true)) => {
                let truth = total - *elapsed as f64;
                assert!(
                    (*eta as f64) <= truth + 2.0,
                    "a lower bound {eta}s at {done}/{len} over the truth {truth:.1}s"
                );
            }
            Some((eta, false)) => {
                assert!(*eta > 0 || done == len, "ETA 0 at {done}/{len}");
                let truth = total - *elapsed as f64;
                if *done * 10 >= *len && done < len {
                    let eta = *eta as f64;
                    assert!(
                        eta <= 2.0 * truth + 2.0 && eta + 2.0 >= truth / 2.0,
                        "ETA {eta}s at {done}/{len} ({elapsed}s in), truly {truth:.1}s"
                    );
                }
            }
        }
    }
}

/// The progress frames in a pty's output: (done, total, seconds elapsed,
/// ETA in seconds and whether a lower bound (`3s+`), or `None` for `--`).
#[allow(clippy::type_complexity)]
fn regex_lite(text: &str) -> Vec<(u64, u64, u64, Option<(u64, bool)>)> {
    let secs = |s: &str| -> Option<u64> {
        let mut t = 0;
        for part in s.split_whitespace() {
            let (n, unit) = part.split_at(part.find(|c: char| !c.is_ascii_digit())?);
            let n: u64 = n.parse().ok()?;
            t += match unit {
                "s" => n,
                "m" => 60 * n,
                "h" => 3600 * n,
                _ => return None,
            };
        }
        Some(t)
    };
    text.lines()
        .filter_map(|l| {
            let at = l.find(" cases  ")?;
            let head = l[..at].rsplit(' ').next()?;
            let (done, len) = head.split_once('/')?;
            let rest = &l[at + " cases  ".len()..];
            let (elapsed, eta) = rest.split_once(" elapsed, ETA ")?;
            let eta = eta.trim();
            let (eta, bound) = match eta.strip_suffix('+') {
                Some(e) => (e, true),
                None => (eta, false),
            };
            Some((
                done.parse().ok()?,
                len.parse().ok()?,
                secs(elapsed)?,
                if eta == "--" {
                    None
                } else {
                    Some((secs(eta)?, bound))
                },
            ))
        })
        .collect()
}
