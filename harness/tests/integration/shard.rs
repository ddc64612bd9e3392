//! `grade --shard K/N` and `merge`: the shards of a run together grade
//! every case once, and their merged scorecard (and a class's summary) is
//! the one run's, verdicts and moves alike.

use std::collections::BTreeMap;
use std::path::Path;

use super::support::{harness, read_scorecard, workspace};
use predicates::prelude::PredicateBooleanExt;

/// (candidate, suite, case) -> (verdict, moves).
fn outcomes(path: &Path) -> BTreeMap<(String, String, String), (String, String)> {
    read_scorecard(path)
        .into_iter()
        .map(|r| {
            (
                (
                    r["candidate"].clone(),
                    r["suite"].clone(),
                    r["case"].clone(),
                ),
                (r["verdict"].clone(), r["moves"].clone()),
            )
        })
        .collect()
}

#[test]
fn four_shards_merge_into_the_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let suites = workspace().join("suites");
    let grade = |card: &str, shard: Option<&str>| {
        let mut cmd = harness();
        cmd.current_dir(dir.path())
            .args(["grade", "--scorecard", card, "--suite"])
            .arg(&suites);
        if let Some(s) = shard {
            cmd.args(["--shard", s]);
        }
        cmd.assert().code(0);
    };
    grade("one.csv", None);
    let mut sizes = Vec::new();
    for k in 1..=4 {
        grade(&format!("s{k}.csv"), Some(&format!("{k}/4")));
        sizes.push(read_scorecard(&dir.path().join(format!("s{k}.csv"))).len());
    }
    let all = read_scorecard(&dir.path().join("one.csv")).len();
    assert_eq!(
        sizes.iter().sum::<usize>(),
        all,
        "every case once: {sizes:?}"
    );
    assert!(
        sizes.iter().all(|&n| (30..=65).contains(&n)),
        "balanced: {sizes:?}"
    );
    harness()
        .current_dir(dir.path())
        .args([
            "merge",
            "merged.csv",
            "s1.csv",
            "s2.csv",
            "s3.csv",
            "s4.csv",
            "--suite",
        ])
        .arg(&suites)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "merged 191 rows from 4 shard(s) into merged.csv",
        ));
    assert_eq!(
        outcomes(&dir.path().join("merged.csv")),
        outcomes(&dir.path().join("one.csv"))
    );
    // Merging again onto it: only --force replaces it (merge cannot
    // resume, and does not say it can).
    harness()
        .current_dir(dir.path())
        .args(["merge", "merged.csv", "s1.csv", "--suite"])
        .arg(&suites)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "merged.csv exists; --force replaces it",
        ))
        .stderr(predicates::str::contains("--resume").not());
    // A shard lost, another given twice: both named, exit 1.
    harness()
        .current_dir(dir.path())
        .args([
            "merge", "bad.csv", "s1.csv", "s2.csv", "s2.csv", "s3.csv", "--suite",
        ])
        .arg(&suites)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(format!(
            "{} row(s) missing:",
            sizes[3]
        )))
        .stderr(predicates::str::contains(format!(
            "{} row(s) duplicated:",
            sizes[1]
        )))
        .stderr(predicates::str::contains(": in s2.csv and s2.csv"));
}

#[test]
fn a_sharded_class_merges_to_the_same_points() {
    let dir = tempfile::tempdir().unwrap();
    let course = workspace().join("courses/cmu15122-lightsout.toml");
    let class = workspace().join("harness/tests/fixtures/classes/cmu15122");
    let grade = |card: &str, extra: &[&str]| {
        harness()
            .current_dir(dir.path())
            .args(["grade", "--wall-limit", "3s", "--scorecard", card])
            .arg("--course")
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(extra)
            .assert()
            .code(predicates::ord::le(1)); // 1 when a case is not accepted
    };
    grade("one.csv", &["--summary", "one-summary.csv"]);
    for k in 1..=3 {
        grade(&format!("c{k}.csv"), &["--shard", &format!("{k}/3")]);
    }
    // Each submission in one shard: its build and all its cases.
    let shard_of: Vec<std::collections::BTreeSet<String>> = (1..=3)
        .map(|k| {
            read_scorecard(&dir.path().join(format!("c{k}.csv")))
                .into_iter()
                .map(|r| r["candidate"].clone())
                .collect()
        })
        .collect();
    assert_eq!(
        shard_of.iter().map(|s| s.len()).sum::<usize>(),
        7,
        "the seven submissions, each in one shard: {shard_of:?}"
    );
    harness()
        .current_dir(dir.path())
        .args([
            "merge",
            "merged.csv",
            "c1.csv",
            "c2.csv",
            "c3.csv",
            "--summary",
            "merged-summary.csv",
        ])
        .arg("--course")
        .arg(&course)
        .arg("--submissions")
        .arg(&class)
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("merged-summary.csv")).unwrap(),
        std::fs::read_to_string(dir.path().join("one-summary.csv")).unwrap()
    );
    assert_eq!(
        outcomes(&dir.path().join("merged.csv")),
        outcomes(&dir.path().join("one.csv"))
    );
    // Without the second shard: its submissions' rows are missing.
    harness()
        .current_dir(dir.path())
        .args(["merge", "partial.csv", "c1.csv", "c3.csv"])
        .arg("--course")
        .arg(&course)
        .arg("--submissions")
        .arg(&class)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("row(s) missing:"));
}

#[test]
fn slurm_scripts_are_written_for_the_admin() {
    let dir = tempfile::tempdir().unwrap();
    harness()
        .current_dir(dir.path())
        .args([
            "slurm",
            "--shards",
            "3",
            "--max-running",
            "2",
            "--jobs",
            "2",
        ])
        .args(["--partition", "batch", "--out", "run", "--suite"])
        .arg(workspace().join("suites/lightsout"))
        .args(["--", "--time-limit", "10s"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("(3 array tasks)"));
    let run = dir.path().join("run").canonicalize().unwrap();
    let grade = std::fs::read_to_string(run.join("grade.sbatch")).unwrap();
    assert!(grade.contains("#SBATCH --array=0-2%2\n#SBATCH --cpus-per-task=2\n"));
    assert!(
        grade.contains(" --time-limit 10s --shard \"$k/3\" --jobs 2 "),
        "{grade}"
    );
    let merge = std::fs::read_to_string(run.join("merge.sbatch")).unwrap();
    assert!(
        merge.contains(&format!("{}/shards/shard-3.csv --suite", run.display())),
        "{merge}"
    );
    assert!(run.join("submit.sh").is_file() && run.join("logs").is_dir());
    // Nothing to grade: a usage error.
    harness()
        .current_dir(dir.path())
        .args(["slurm", "--shards", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "give --course and --submissions, or --suite",
        ));
}
