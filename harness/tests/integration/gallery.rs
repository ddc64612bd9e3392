//! The rogues' gallery: one grading run of hostile candidates beside
//! correct ones. Each gets its exact verdict; no process they start is
//! left afterwards; the suite is byte-identical; the scorecard is whole and
//! not forged; the correct candidates are unaffected. Needs root (a user
//! per job slot) and cgroups: elsewhere it says so and skips, except under
//! PUZZLEGRADE_REQUIRE_ISOLATION (CI), where that is a failure.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{Fixture, harness, misbehave, read_scorecard};

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
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_ISOLATION").is_none(),
            "the gallery must run here: {why}"
        );
        eprintln!("note: skipping the rogues' gallery: {why}");
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
        .args(["--time-limit", "2s", "--grace", "200ms", "--jobs", "2"])
        .args(["--memory-limit", "256MiB", "--pids-limit", "32"])
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
