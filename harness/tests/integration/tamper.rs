//! A candidate that rewrites the live suite files changes nobody's
//! verdict: every case's copies are written from the bytes the harness
//! read when it loaded the puzzle, before any candidate ran.

use std::os::unix::fs::PermissionsExt;

use crate::support::{harness, read_scorecard};

#[test]
fn rewriting_the_suite_changes_no_later_case() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("lights/s");
    std::fs::create_dir_all(&suite).unwrap();
    // Two solvable boards, graded one after the other.
    std::fs::write(suite.join("a.txt"), "3x2\n#OO\n##O\n").unwrap();
    std::fs::write(suite.join("b.txt"), "2x2\n##\n##\n").unwrap();
    std::fs::write(suite.join("s.csv"), "board,expect\na.txt,\nb.txt,\n").unwrap();
    // Rewrites every board of the suite, then answers as the reference
    // does on the copy it was given.
    let rogue = dir.path().join("rogue");
    std::fs::write(
        &rogue,
        format!(
            "#!/bin/sh\nfor f in {}/*.txt; do printf 'garbage\\n' > \"$f\"; done\nexec {} solve --family lightsout \"$@\"\n",
            suite.display(),
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&rogue, std::fs::Permissions::from_mode(0o755)).unwrap();
    let card = dir.path().join("card.csv");
    // As the harness's own user with no view of its own (as a normal user
    // without a sandbox is): the suite is within the candidate's reach.
    harness()
        .args(["grade", "--run-as", "harness", "--sandbox", "none"])
        .args(["--jobs", "1", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&rogue)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(suite.join("b.txt")).unwrap(),
        "garbage\n",
        "the rogue did rewrite the suite"
    );
    let verdicts: Vec<(String, String)> = read_scorecard(&card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("a.txt".to_string(), "accepted".to_string()),
            ("b.txt".to_string(), "accepted".to_string())
        ]
    );
}

/// As root, a candidate in a folder its slot's user cannot enter (a
/// `mktemp -d`, 0700) stops the run before the first case, exit 2, naming
/// the folder, the uid and the fix; no scorecard is written. With
/// `--run-as harness` the same candidate runs.
#[test]
fn a_candidate_its_slot_user_cannot_reach_is_a_setup_error() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: not root: candidates run as the harness's own user; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let solver = dir.path().join("solver");
    super::support::solver_script(&solver, "");
    let card = dir.path().join("card.csv");
    let suite = crate::support::workspace().join("suites/lightsout/easy");
    let folder = dir.path().canonicalize().unwrap();
    on_easy(&solver, &card, &[])
        .assert()
        .code(2)
        // The uid is the run's range's (other runs may hold 60000).
        .stderr(predicates::str::contains("cannot be run by uid "))
        .stderr(predicates::str::contains(format!(
            "(the user its job slot runs as): the folder {} is closed to it; let every user reach it",
            folder.display()
        )))
        .stderr(predicates::str::contains("--run-as harness"));
    assert!(!card.exists(), "nothing written");
    harness()
        .args(["grade", "--run-as", "harness", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&solver)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
}

/// `harness grade` of `solver` on the bundled easy Lights Out suite into
/// `card`, with `extra` arguments.
fn on_easy(
    solver: &std::path::Path,
    card: &std::path::Path,
    extra: &[&str],
) -> assert_cmd::Command {
    let mut cmd = harness();
    cmd.arg("grade")
        .args(extra)
        .arg("--suite")
        .arg(crate::support::workspace().join("suites/lightsout/easy"))
        .arg("--candidate")
        .arg(solver)
        .arg("--scorecard")
        .arg(card);
    cmd
}

/// A candidate file nobody may run (mode 644) stops the run before the
/// first case in every tier, exit 2, with the fix for the file (not its
/// folders); no scorecard is written.
#[test]
fn a_candidate_that_is_not_executable_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    let solver = dir.path().join("solver");
    super::support::solver_script(&solver, "");
    std::fs::set_permissions(&solver, std::fs::Permissions::from_mode(0o644)).unwrap();
    let card = dir.path().join("card.csv");
    for isolation in ["none", "full"] {
        on_easy(&solver, &card, &["--isolation", isolation])
            .assert()
            .code(2)
            .stderr(format!(
                "harness: the candidate {0} is not executable (mode 644): chmod +x {0}, \
                 or put its interpreter before it in the command\n",
                solver.display()
            ));
        assert!(!card.exists(), "nothing written");
    }
}

/// As root, two runs at once never share uids: a candidate of run B that
/// kills every process its user may (`kill -9 -1`) leaves run A's cases
/// alone, and a run asking for A's range (`--uid-base`) is refused.
#[test]
fn concurrent_runs_have_uids_of_their_own() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: not root: candidates run as the harness's own user; skipping");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let uids = dir.path().join("uids");
    std::fs::write(&uids, "").unwrap();
    std::fs::set_permissions(&uids, std::fs::Permissions::from_mode(0o666)).unwrap();
    let script = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\necho {name} $(id -u) >> {}\n{body}\n",
                uids.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    };
    let patient = script(
        "a",
        &format!(
            "sleep 1\nexec {} solve --family lightsout \"$@\"",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    let killer = script("b", "kill -9 -1\nsleep 1");
    let suite = crate::support::workspace().join("suites/lightsout/easy");
    let mut a = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["grade", "--jobs", "1", "--filter", "2x2", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&patient)
        .arg("--scorecard")
        .arg(dir.path().join("a.csv"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let uid_of = |who: &str| -> Option<String> {
        std::fs::read_to_string(&uids)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{who} ")).map(str::to_string))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while uid_of("a").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "run A never started a case"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let a_uid = uid_of("a").unwrap();
    harness()
        .args(["grade", "--jobs", "1", "--filter", "2x2-01", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&killer)
        .arg("--scorecard")
        .arg(dir.path().join("b.csv"))
        .assert()
        .code(1);
    assert_ne!(uid_of("b").unwrap(), a_uid, "run B had a uid of its own");
    harness()
        .args(["grade", "--jobs", "1", "--uid-base", &a_uid, "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&patient)
        .arg("--scorecard")
        .arg(dir.path().join("c.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "uids {a_uid} to {a_uid} (--uid-base) are in use by another run of the harness on this machine"
        )));
    assert!(a.wait().unwrap().success(), "every answer of run A stands");
    let rows = read_scorecard(&dir.path().join("a.csv"));
    assert!(rows.len() >= 2, "{rows:?}");
    assert!(rows.iter().all(|r| r["verdict"] == "accepted"), "{rows:?}");
}
