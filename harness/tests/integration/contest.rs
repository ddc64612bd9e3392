//! `harness contest` as a user runs it, on fixture entries of known
//! relative speed: two copies of the reference solver, one that does about
//! 0.2 s of CPU work first, one that solves nothing, one with no `run`.

use super::support::{harness, replica, workspace};

fn entries(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let solver = replica("sbp-solver");
    let root = dir.join("entries");
    let scripts = [
        ("fast", format!("#!/bin/sh\nexec {solver} \"$@\"\n")),
        ("twin", format!("#!/bin/sh\nexec {solver} \"$@\"\n")),
        (
            "slow",
            // A fixed amount of work first (about 0.2 s of CPU here),
            // whatever the load: CPU time is what is ranked.
            format!(
                "#!/bin/sh\ni=0\nwhile [ $i -lt 200000 ]; do i=$((i+1)); done\n\
                 exec {solver} \"$@\"\n"
            ),
        ),
        ("quits", "#!/bin/sh\nexit 1\n".to_string()),
    ];
    for (name, text) in scripts {
        std::fs::create_dir_all(root.join(name)).unwrap();
        let run = root.join(name).join("run");
        std::fs::write(&run, text).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::create_dir_all(root.join("empty")).unwrap();
    root
}

#[test]
fn entries_ranked_by_solved_then_par2() {
    let dir = tempfile::tempdir().unwrap();
    let root = entries(dir.path());
    let board = dir.path().join("board.csv");
    let card = dir.path().join("medians.csv");
    harness()
        .current_dir(dir.path())
        .args(["contest", "--entries"])
        .arg(&root)
        .arg("--suite")
        .arg(workspace().join("suites/slidingblock/easy"))
        .args([
            "--filter",
            "random.3x",
            "--runs",
            "3",
            "--time-limit",
            "10s",
        ])
        .args(["--leaderboard"])
        .arg(&board)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&board).unwrap();
    // Plain CSV, as any reader takes it; the machine and every run beside
    // it in board.json.
    assert!(
        text.starts_with("rank,entry,solved,par2_s,noisy_cases,"),
        "{text}"
    );
    let side: serde_json::Value =
        serde_json::from_slice(&std::fs::read(board.with_extension("json")).unwrap()).unwrap();
    assert!(side["environment"]["cpu"].is_string());
    assert_eq!(side["settings"]["metric"], "cpu");
    assert_eq!(side["settings"]["runs"], 3);
    assert_eq!(side["settings"]["time_limit_s"], 10.0);
    let fast = side["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entry"] == "fast")
        .unwrap();
    for case in fast["cases"].as_array().unwrap() {
        assert_eq!(case["runs_s"].as_array().unwrap().len(), 3, "{case}");
        assert!(case["mad_s"].as_f64().unwrap() >= 0.0);
    }
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let order: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    // The two copies of the reference first (in either order: they may
    // tie), the 0.2 s one third, then the two that solve nothing, tied.
    assert!(
        order[..2].contains(&"fast") && order[..2].contains(&"twin"),
        "{order:?}"
    );
    assert_eq!(&order[2..], ["slow", "empty", "quits"]);
    assert!(["1", "2"].contains(&rows[1][0].as_str()));
    assert_eq!(rows[2][0], "3");
    assert_eq!((rows[3][0].as_str(), rows[4][0].as_str()), ("4", "4"));
    // Two cases (random.3x3.0, random.3x4.1): solved by all but the last two.
    assert_eq!(rows[2][2], "2");
    let par2 = |i: usize| rows[i][3].parse::<f64>().unwrap();
    assert!(
        par2(2) > par2(0) + 0.1 && par2(2) < 5.0,
        "two cases of extra work: {} against {}",
        par2(2),
        par2(0)
    );
    assert_eq!(rows[3][2], "0");
    assert_eq!(rows[3][3], "40.000000", "2 x 10 s a case");
    assert_eq!(rows[3][5], "unsolved");
    // The medians scorecard: one row per entry and case, for compare.
    let medians = super::support::read_scorecard(&card);
    assert_eq!(medians.len(), 10);
    let empty = medians.iter().find(|r| r["candidate"] == "empty").unwrap();
    assert_eq!(empty["detail"], "empty: no executable `run` in its folder");
    // compare reads leaderboards: a leaderboard against itself is no change.
    harness()
        .arg("compare")
        .arg(&board)
        .arg(&board)
        .assert()
        .code(0)
        .stdout(
            "10 cases with their runs' spread: 0 time changes within its noise, not counted\n\
             10 cases in both; no change; nothing regressed\n",
        );
}

/// `harness contest` of the entries in `root` on the easy suite's 3x3
/// trays, one counted run each, no warm-up.
fn once_on_3x3(root: &std::path::Path) -> assert_cmd::Command {
    let mut cmd = harness();
    cmd.args(["contest", "--entries"])
        .arg(root)
        .arg("--suite")
        .arg(workspace().join("suites/slidingblock/easy"))
        .args(["--filter", "random.3x3", "--runs", "1", "--warmup", "0"]);
    cmd
}

#[test]
fn anonymized_leaderboards_name_only_me() {
    let dir = tempfile::tempdir().unwrap();
    let root = entries(dir.path());
    let board = dir.path().join("board.csv");
    once_on_3x3(&root)
        .args(["--anonymize", "--me", "slow", "--leaderboard"])
        .arg(&board)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("slow"))
        .stdout(predicates::str::contains("fast").count(0))
        .stdout(predicates::str::contains("entry-1"));
    let text = std::fs::read_to_string(&board).unwrap();
    assert!(!text.contains("quits") && text.contains(",slow,"), "{text}");
}

#[test]
fn checkers_are_timed_on_the_reference_move_lists() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("entries");
    std::fs::create_dir_all(root.join("ours")).unwrap();
    let run = root.join("ours/run");
    std::fs::write(
        &run,
        format!("#!/bin/sh\nexec {} \"$@\"\n", replica("sbp-checker")),
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let board = dir.path().join("board.csv");
    harness()
        .args(["contest", "--role", "checker", "--entries"])
        .arg(&root)
        .arg("--suite")
        .arg(workspace().join("suites/slidingblock/hard"))
        .args(["--filter", "pennant", "--runs", "2", "--leaderboard"])
        .arg(&board)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&board).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("1,ours,4,"),
        "all four pennants checked: {last}"
    );
    // Lights Out has no Checker program.
    harness()
        .args(["contest", "--role", "checker", "--entries"])
        .arg(&root)
        .arg("--suite")
        .arg(workspace().join("suites/lightsout/easy"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--role checker times Checkers on the reference's move lists; lightsout has no Checker program",
        ));
}

#[test]
fn course_submissions_are_built_and_timed_as_entries() {
    let dir = tempfile::tempdir().unwrap();
    let board = dir.path().join("board.csv");
    let card = dir.path().join("medians.csv");
    harness()
        .args(["contest", "--course"])
        .arg(workspace().join("courses/cmu15122-lightsout.toml"))
        .arg("--entries")
        .arg(workspace().join("harness/tests/fixtures/classes/cmu15122"))
        .arg("--suite")
        .arg(workspace().join("suites/lightsout/easy"))
        .args([
            "--filter",
            "3x2",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--time-limit",
            "3s",
        ])
        .args(["--leaderboard"])
        .arg(&board)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&board).unwrap();
    let solved: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("rank"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[2].to_string())
        })
        .collect();
    // Three 3x2 boards, two of them unsolvable: exit0 gets those wrong,
    // broken does not build (each entry built as the course builds it,
    // the course's files laid over).
    let of = |who: &str| solved.iter().find(|(e, _)| e == who).unwrap().1.clone();
    assert_eq!(
        (
            of("perfect"),
            of("slow"),
            of("exit0"),
            of("leaky"),
            of("broken")
        ),
        ("3".into(), "3".into(), "1".into(), "3".into(), "0".into())
    );
    let rows = super::support::read_scorecard(&card);
    let broken = rows.iter().find(|r| r["candidate"] == "broken").unwrap();
    assert!(
        broken["detail"].starts_with("compile-error: build exit 2: "),
        "{}",
        broken["detail"]
    );
}

/// The contest reports as `grade` does: `--format json` gives every event
/// as a JSON line (one row per entry and case, its median), and the
/// scorecard of medians is written as each case's runs are in, so a
/// stopped contest keeps what finished.
#[test]
fn a_contest_streams_its_events_and_its_scorecard() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("entries");
    let scripts = [
        (
            "fast",
            format!("#!/bin/sh\nexec {} \"$@\"\n", replica("sbp-solver")),
        ),
        ("sleeper", "#!/bin/sh\nexec sleep 60\n".to_string()),
    ];
    for (name, text) in scripts {
        std::fs::create_dir_all(root.join(name)).unwrap();
        let run = root.join(name).join("run");
        std::fs::write(&run, text).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let card = dir.path().join("medians.csv");
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(dir.path())
        .args(["contest", "--format", "json", "--entries"])
        .arg(&root)
        .arg("--suite")
        .arg(workspace().join("suites/slidingblock/easy"))
        .args(["--filter", "random.3x", "--runs", "2", "--warmup", "0"])
        .args(["--time-limit", "60s", "--scorecard"])
        .arg(&card)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // fast's two cases (two runs each) are in the scorecard while the
    // sleeper's first run is still going.
    let deadline = Instant::now() + Duration::from_secs(60);
    let rows = || std::fs::read_to_string(&card).map_or(0, |t| t.lines().count());
    while rows() < 3 {
        assert!(Instant::now() < deadline, "no streamed rows");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the contest did not stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let events: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names.first(), Some(&"run-started"), "{names:?}");
    assert_eq!(events[0]["cases"], 4, "two entries, two cases");
    assert_eq!(names.last(), Some(&"run-finished"), "{names:?}");
    assert_eq!(events.last().unwrap()["summary"]["stopped"], "interrupted");
    let rows: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["event"] == "case-finished" || e["event"] == "case-cancelled")
        .map(|e| {
            let row = &e["row"];
            (
                row["candidate"].as_str().unwrap().to_string(),
                row["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("fast", "accepted"),
        ("fast", "accepted"),
        ("sleeper", "cancelled"),
        ("sleeper", "cancelled"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(rows, expected, "one row per entry and case");
    // The scorecard holds the same rows; no leaderboard for a stopped one.
    let card = super::support::read_scorecard(&card);
    let verdicts: Vec<(&str, &str)> = card
        .iter()
        .map(|r| (r["candidate"].as_str(), r["verdict"].as_str()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("fast", "accepted"),
            ("fast", "accepted"),
            ("sleeper", "cancelled"),
            ("sleeper", "cancelled")
        ]
    );
    assert!(!dir.path().join("leaderboard.csv").exists());
}

/// The contest's `--time-limit` is on its `--metric` clock: CPU time by
/// default (an entry that sleeps 1.5 s before solving is within a 1 s
/// limit), the wall clock with `--metric wall` (the same entry is not).
#[test]
fn the_time_limit_is_on_the_metrics_clock() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = dir.path().join("entries");
    std::fs::create_dir_all(root.join("napper")).unwrap();
    let run = root.join("napper/run");
    let solver = replica("sbp-solver");
    std::fs::write(
        &run,
        format!("#!/bin/sh\nsleep 1.5\nexec {solver} \"$@\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    for root_dir in [dir.path(), &root, &root.join("napper")] {
        std::fs::set_permissions(root_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let solved = |metric: &str| {
        let board = dir.path().join(format!("board-{metric}.csv"));
        once_on_3x3(&root)
            .args(["--time-limit", "1s", "--metric", metric, "--leaderboard"])
            .arg(&board)
            .assert()
            .code(0);
        let text = std::fs::read_to_string(&board).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let row = reader.records().next().unwrap().unwrap();
        row[2].to_string()
    };
    assert_eq!(solved("cpu"), "1");
    assert_eq!(solved("wall"), "0");
}
