//! Platform kits in replicas of their platforms. Gradescope: the kit's
//! zip unpacked into `/autograder/source` (a private mount namespace binds
//! a scratch tree there), `setup.sh` run in it, `run_autograder` copied to
//! `/autograder/run_autograder` and run from `/autograder` for one
//! submission in `/autograder/submission`, the score read from
//! `/autograder/results/results.json`, as Gradescope does. Each fixture
//! submission, alone, gets the points the whole class run gives it.
//! Autolab: Tango's `make` beside the handin and the kit's tar.

use std::path::Path;

use super::support::{harness, workspace};

/// Unpacks `zip` into `to`, with each entry's Unix mode.
fn unzip(zip: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let path = to.join(entry.enclosed_name().unwrap());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut out = std::fs::File::create(&path).unwrap();
        std::io::copy(&mut entry, &mut out).unwrap();
        if let Some(mode) = entry.unix_mode() {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let target = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn gradescope_kit_in_a_replica_of_the_autograder() {
    use std::os::unix::fs::PermissionsExt;
    if !rustix::process::geteuid().is_root() {
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_ISOLATION").is_none(),
            "the Gradescope replica needs root (a mount namespace) here"
        );
        eprintln!("note: skipping the Gradescope replica: not root");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let kit = out.path().join("autograder.zip");
    harness()
        .args(["package", "gradescope", "--course", "cis521", "-o"])
        .arg(&kit)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "course cis521; packages: python3",
        ));
    let made = !Path::new("/autograder").exists();
    let class = workspace().join("harness/tests/fixtures/classes/cis521");
    // The image: the zip unpacked into /autograder/source and setup.sh run
    // there, once; then each submission in a fresh /autograder/submission.
    let ag = out.path().join("autograder");
    std::fs::create_dir_all(ag.join("source")).unwrap();
    unzip(&kit, &ag.join("source"));
    for d in [&ag, &ag.join("source")] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let in_replica = |commands: &str| {
        let script = format!(
            "set -e; mkdir -p /autograder; mount --bind {} /autograder; {commands}",
            shell_words::quote(&ag.display().to_string())
        );
        let run = std::process::Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c", &script])
            .output()
            .expect("unshare");
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    };
    in_replica(
        "cd /autograder/source && bash ./setup.sh && \
         cp /autograder/source/run_autograder /autograder/run_autograder",
    );
    let mut scores = Vec::new();
    for who in ["broken", "greedy", "noisy", "perfect"] {
        let _ = std::fs::remove_dir_all(ag.join("submission"));
        let _ = std::fs::remove_dir_all(ag.join("results"));
        copy_dir(&class.join(who), &ag.join("submission"));
        std::fs::set_permissions(
            ag.join("submission"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        in_replica("cd /autograder && ./run_autograder");
        let results: serde_json::Value =
            serde_json::from_slice(&std::fs::read(ag.join("results/results.json")).unwrap())
                .unwrap();
        scores.push(format!("{who} {}", results["score"]));
        if who == "broken" {
            assert!(
                results["output"]
                    .as_str()
                    .unwrap()
                    .starts_with("compile-error: build exit 1: "),
                "{results}"
            );
        }
    }
    if made {
        let _ = std::fs::remove_dir("/autograder");
    }
    // The points the class run gives (class::cis521_class_in_python).
    assert_eq!(
        scores,
        ["broken 0.0", "greedy 25.0", "noisy 37.0", "perfect 40.0"]
    );
}

/// Autolab's Tango: `make` in a folder holding the handin (a tar of the
/// student's files, named as the assessment says), the kit's
/// autograde-Makefile as `Makefile` and `autograde.tar`; the last line
/// printed is the JSON Autolab reads. Each CIS 521 fixture alone gets the
/// points the class run gives it, item by item.
#[test]
fn autolab_kit_in_a_replica_of_tango() {
    let out = tempfile::tempdir().unwrap();
    let kit = out.path().join("kit");
    harness()
        .args([
            "package", "autolab", "--course", "cis521", "--handin", "hw1.tar", "-o",
        ])
        .arg(&kit)
        .assert()
        .code(0);
    let class = workspace().join("harness/tests/fixtures/classes/cis521");
    let mut totals = Vec::new();
    for who in ["broken", "greedy", "noisy", "perfect"] {
        let vm = out.path().join(who);
        std::fs::create_dir_all(&vm).unwrap();
        std::fs::copy(kit.join("autograde-Makefile"), vm.join("Makefile")).unwrap();
        std::fs::copy(kit.join("autograde.tar"), vm.join("autograde.tar")).unwrap();
        let tar = std::process::Command::new("tar")
            .arg("cf")
            .arg(vm.join("hw1.tar"))
            .arg("-C")
            .arg(class.join(who))
            .arg(".")
            .status()
            .unwrap();
        assert!(tar.success());
        let make = std::process::Command::new("make")
            .arg("-s")
            .current_dir(&vm)
            .output()
            .unwrap();
        assert!(
            make.status.success(),
            "{}",
            String::from_utf8_lossy(&make.stderr)
        );
        let stdout = String::from_utf8(make.stdout).unwrap();
        let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        let scores = last["scores"].as_object().unwrap();
        assert_eq!(scores.len(), 8, "{last}");
        let total: f64 = scores.values().map(|v| v.as_f64().unwrap()).sum();
        totals.push(format!("{who} {total}"));
        if who == "noisy" {
            assert_eq!(scores["Q6 copy"], 0.0, "copy raises");
            assert_eq!(scores["Q8 find_solution"], 15.0);
        }
    }
    assert_eq!(totals, ["broken 0", "greedy 25", "noisy 37", "perfect 40"]);
}
