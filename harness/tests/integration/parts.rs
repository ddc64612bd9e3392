//! What each part of a course config says holds for that part: the path
//! style reaches its battery too, and a file it requires that the
//! submission lacks makes each of its rows a `compile-error` saying so
//! (nothing runs: a missing program must not pass the cases that expect a
//! failure), with a look-alike named where there is one.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::support::{harness, read_scorecard, replica};

/// A sliding-block course with no build: a Solver exit-status battery
/// run as `{submission}/solver.sh` with `paths`, 2 points shared, and the
/// part requiring `required`.
fn course(dir: &Path, paths: &str, required: &str) -> std::path::PathBuf {
    let config = dir.join("course.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"parts\"\nfamily = \"slidingblock\"\n\
             [[part]]\nname = \"statuses\"\nconform = \"solver\"\n\
             command = \"{{submission}}/solver.sh\"\npaths = \"{paths}\"\nrequire = [{required}]\n\
             [[rubric]]\nname = \"Solver exit statuses\"\nrule = \"share\"\npoints = 2\npart = \"statuses\"\n"
        ),
    )
    .unwrap();
    config
}

/// A class of one submission, `alice`: a Solver that takes only file
/// names (as one that prepends `user.dir` to its arguments does), and is
/// the staff's Solver (`sbp-solver`) otherwise.
fn class(dir: &Path) -> std::path::PathBuf {
    let alice = dir.join("class/alice");
    std::fs::create_dir_all(&alice).unwrap();
    let solver = alice.join("solver.sh");
    std::fs::write(
        &solver,
        format!(
            "#!/bin/sh\n\
             for a in \"$@\"; do case \"$a\" in /*) echo \"1Invalid init and/or goal file.\"; exit 1;; esac; done\n\
             exec {} \"$@\"\n",
            replica("sbp-solver")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&solver, std::fs::Permissions::from_mode(0o755)).unwrap();
    for d in [dir, &dir.join("class"), &alice] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.join("class")
}

/// (total, every row's verdict and detail) of a class run.
fn grade(dir: &Path, config: &Path, class: &Path) -> (String, Vec<(String, String)>) {
    let summary = dir.join("summary.csv");
    let card = dir.join("rows.csv");
    harness()
        .arg("grade")
        .arg("--course")
        .arg(config)
        .arg("--submissions")
        .arg(class)
        .arg("--summary")
        .arg(&summary)
        .arg("--scorecard")
        .arg(&card)
        .args(["--force", "--jobs", "2"])
        .assert()
        // 0: every row accepted; 1: some not. Never a setup error.
        .code(predicates::ord::lt(2));
    let summary = std::fs::read_to_string(&summary).unwrap();
    let mut reader = csv::Reader::from_reader(summary.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "total").unwrap();
    let total = reader.records().next().unwrap().unwrap()[at].to_string();
    let rows = read_scorecard(&card)
        .into_iter()
        .filter(|r| r["suite"] != "build")
        .map(|r| (r["verdict"].clone(), r["detail"].clone()))
        .collect();
    (total, rows)
}

#[test]
fn a_battery_runs_with_the_parts_path_style() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    // Relative paths (a lenient course): the battery's probes are run
    // from their folder with their files by name, and the Solver earns
    // every point.
    let (total, rows) = grade(dir.path(), &course(dir.path(), "relative", ""), &class);
    assert!(!rows.is_empty());
    assert_eq!(total, "2", "{rows:?}");
    // Absolute paths (as the course's own scripts ran it): the same
    // Solver fails wherever it is given a file.
    let (total, rows) = grade(dir.path(), &course(dir.path(), "absolute", ""), &class);
    assert_ne!(total, "2", "{rows:?}");
    assert!(
        rows.iter().any(|(_, d)| d.contains("exit 1, expected")),
        "{rows:?}"
    );
}

#[test]
fn a_part_without_its_program_scores_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let class = class(dir.path());
    let (total, rows) = grade(
        dir.path(),
        &course(dir.path(), "relative", "\"Solver.java\""),
        &class,
    );
    assert_eq!(total, "0");
    assert!(!rows.is_empty());
    for (verdict, detail) in &rows {
        assert_eq!(verdict, "compile-error");
        assert_eq!(detail, "missing Solver.java");
    }
    // One file of the kind stands in its place: it is named.
    std::fs::write(class.join("alice/solver.java"), "").unwrap();
    let (total, rows) = grade(
        dir.path(),
        &course(dir.path(), "relative", "\"Solver.java\""),
        &class,
    );
    assert_eq!(total, "0");
    assert!(
        rows.iter()
            .all(|(_, d)| d == "missing Solver.java (found solver.java; expected Solver.java)"),
        "{rows:?}"
    );
}
