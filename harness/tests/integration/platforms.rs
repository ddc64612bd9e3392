//! Platform kits in replicas of their platforms. Gradescope: the kit's
//! zip unpacked into `/autograder/source` (a private mount namespace binds
//! a scratch tree there), `setup.sh` run in it, `run_autograder` copied to
//! `/autograder/run_autograder` and run from `/autograder` for one
//! submission in `/autograder/submission`, the score read from
//! `/autograder/results/results.json`, as Gradescope does. Each fixture
//! submission, alone, gets the points the whole class run gives it.
//! Autolab: Tango's `make` beside the handin and the kit's tar.

use std::path::{Path, PathBuf};

use super::support::{copy_dir, harness, workspace};

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

/// Whether this test may build a platform's replica (a mount namespace
/// needs root); else says why it skips (a failure where CI requires it).
fn root_for(platform: &str) -> bool {
    crate::support::require(
        rustix::process::geteuid().is_root(),
        &format!("the {platform} replica needs root (a mount namespace)"),
    )
}

/// A scratch folder every user can reach (the kit's candidates run as
/// other users).
fn open_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let out = tempfile::tempdir().unwrap();
    std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    out
}

/// Runs `commands` with `tree` bound at `mount` in a private mount
/// namespace (the platform's folder, as its container has it).
fn in_namespace(tree: &Path, mount: &str, commands: &str) {
    let script = format!(
        "set -e; mkdir -p {mount}; mount --bind {} {mount}; {commands}",
        shell_words::quote(&tree.display().to_string())
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
}

#[test]
fn gradescope_kit_in_a_replica_of_the_autograder() {
    if root_for("Gradescope") {
        gradescope_kit(&|ag, commands| in_namespace(ag, "/autograder", commands));
    }
}

/// The same kit where Gradescope really runs it: a container with its
/// engine's default privileges (no CAP_SYS_ADMIN, the default seccomp
/// profile, cgroups read-only). The harness takes the strongest tier left
/// (a user per slot, rlimits, copies) by itself: the same points.
#[test]
fn gradescope_kit_in_a_container_with_default_privileges() {
    if root_for("Gradescope") {
        gradescope_kit(&|ag, commands| {
            // The image is built with privileges; the submissions run in
            // the container's.
            let commands = commands.replace(
                "./run_autograder",
                &format!("{} ./run_autograder", super::support::container()),
            );
            in_namespace(ag, "/autograder", &commands)
        });
    }
}

/// The same kit in a real container engine: Podman from Debian's
/// packages, as root, with its default capabilities and seccomp profile
/// (the host's system as the image, read-only under an overlay; runc, as
/// crun refuses this machine's hybrid cgroups).
#[test]
fn gradescope_kit_in_a_real_podman_container() {
    if root_for("Gradescope") && super::support::podman_usable() {
        gradescope_kit(&|ag, commands| super::support::in_podman(ag, "/autograder", commands));
    }
}

/// Held by a test that makes `/autograder` or `/grade` on this machine
/// (and removes it after): two at once would take each other's.
static MOUNTPOINTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The Gradescope replica: `run(tree, commands)` runs shell commands
/// with `tree` as `/autograder` (the image's setup, then each submission).
fn gradescope_kit(run: &dyn Fn(&Path, &str)) {
    use std::os::unix::fs::PermissionsExt;
    let _held = MOUNTPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    let out = open_tempdir();
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
    let in_replica = |commands: &str| run(&ag, commands);
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
                    .starts_with("Your submission did not build (the build command's exit 1):\n"),
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
    let kit = autolab_kit(out.path());
    assert_eq!(
        tango(&kit, out.path(), &make_here),
        ["broken 0", "greedy 25", "noisy 37", "perfect 40"]
    );
}

/// The same kit where Tango runs it: a real Podman container as root
/// with the engine's default privileges (`make` in the job's folder).
#[test]
fn autolab_kit_in_a_real_podman_container() {
    if !(root_for("Autolab") && super::support::podman_usable()) {
        return;
    }
    let out = open_tempdir();
    let kit = autolab_kit(out.path());
    let in_podman = |vm: &Path| -> String {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(vm, std::fs::Permissions::from_mode(0o755)).unwrap();
        let log = vm.join("make.log");
        super::support::in_podman(vm, "/job", "cd /job && make -s > make.log");
        std::fs::read_to_string(log).unwrap()
    };
    assert_eq!(
        tango(&kit, out.path(), &in_podman),
        ["broken 0", "greedy 25", "noisy 37", "perfect 40"]
    );
}

/// The CIS 521 Autolab kit (handin `hw1.tar`), written into `out/kit`.
fn autolab_kit(out: &Path) -> std::path::PathBuf {
    let kit = out.join("kit");
    harness()
        .args([
            "package", "autolab", "--course", "cis521", "--handin", "hw1.tar", "-o",
        ])
        .arg(&kit)
        .assert()
        .code(0);
    kit
}

/// `make -s` in `vm`, on this machine: its stdout.
fn make_here(vm: &Path) -> String {
    let make = std::process::Command::new("make")
        .arg("-s")
        .current_dir(vm)
        .output()
        .unwrap();
    assert!(
        make.status.success(),
        "{}",
        String::from_utf8_lossy(&make.stderr)
    );
    String::from_utf8(make.stdout).unwrap()
}

/// A course config of one's own whose suites and adapter sit beside its
/// folder (`../suites/...`, `{course}/../adapters/...`), as the bundled
/// ones do: the kit carries all it names, at the same places relative to
/// each other (said to the staff), and grades as the bundled course does
/// with the originals gone.
#[test]
fn a_course_of_ones_own_packages_with_what_it_names() {
    let out = tempfile::tempdir().unwrap();
    let mine = out.path().join("mine");
    std::fs::create_dir_all(mine.join("my")).unwrap();
    let mut config =
        std::fs::read_to_string(workspace().join("courses/cis521-lightsout.toml")).unwrap();
    config.push_str("# our copy\n");
    std::fs::write(mine.join("my/course.toml"), config).unwrap();
    copy_dir(
        &workspace().join("suites/lightsout/easy"),
        &mine.join("suites/lightsout/easy"),
    );
    std::fs::create_dir_all(mine.join("adapters")).unwrap();
    for adapter in ["cis521.py", "cis521-examples.py"] {
        std::fs::copy(
            workspace().join("adapters").join(adapter),
            mine.join("adapters").join(adapter),
        )
        .unwrap();
    }
    copy_dir(
        &workspace().join("adapters/cis521-examples"),
        &mine.join("adapters/cis521-examples"),
    );
    copy_dir(
        &workspace().join("harness/tests/fixtures/classes/cis521/perfect"),
        &mine.join("my/samples/cis521-lightsout"),
    );
    let kit = out.path().join("kit");
    let made = harness()
        .args(["package", "autolab", "--handin", "hw1.tar", "--course"])
        .arg(mine.join("my/course.toml"))
        .arg("-o")
        .arg(&kit)
        .assert()
        .code(0);
    let said = String::from_utf8_lossy(&made.get_output().stderr).into_owned();
    assert!(
        said.contains("suites/lightsout/easy is outside the course config's folder: packaged as course/suites/lightsout/easy"),
        "{said}"
    );
    assert!(
        said.contains("packaged as course/adapters/cis521.py"),
        "{said}"
    );
    std::fs::remove_dir_all(&mine).unwrap();
    assert_eq!(
        tango(&kit, out.path(), &make_here),
        ["broken 0", "greedy 25", "noisy 37", "perfect 40"]
    );
}

/// Each CIS 521 fixture graded alone by the Autolab kit in `kit`, in
/// Tango's way, in folders under `out` (`make` runs `make -s` in one and
/// returns its stdout): its total.
fn tango(kit: &Path, out: &Path, make: &dyn Fn(&Path) -> String) -> Vec<String> {
    let class = workspace().join("harness/tests/fixtures/classes/cis521");
    let mut totals = Vec::new();
    for who in ["broken", "greedy", "noisy", "perfect"] {
        let vm = out.join(who);
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
        let stdout = make(&vm);
        let lines: Vec<&str> = stdout.lines().collect();
        let last: serde_json::Value = serde_json::from_str(lines[lines.len() - 1]).unwrap();
        // Autolab's formatted feedback, the line before the scores.
        let shown: serde_json::Value = serde_json::from_str(lines[lines.len() - 2]).unwrap();
        assert_eq!(shown["_presentation"], "semantic", "{shown}");
        assert_eq!(shown["stages"], serde_json::json!(["Rubric"]), "{shown}");
        // Q1 to Q8, and the handout's examples (worth 0).
        assert_eq!(shown["Rubric"].as_object().unwrap().len(), 9, "{shown}");
        let scores = last["scores"].as_object().unwrap();
        assert_eq!(scores.len(), 9, "{last}");
        let total: f64 = scores.values().map(|v| v.as_f64().unwrap()).sum();
        totals.push(format!("{who} {total}"));
        if who == "noisy" {
            assert_eq!(shown["Rubric"]["Q6 copy"]["passed"], false, "{shown}");
            let hint = shown["Rubric"]["Q6 copy"]["hint"].as_str().unwrap();
            assert!(hint.starts_with("0 of 10 cases passed\ncopy/"), "{hint}");
            assert_eq!(
                shown["Rubric"]["Q8 find_solution"],
                serde_json::json!({"passed": true})
            );
            assert_eq!(scores["Q6 copy"], 0.0, "copy raises");
            assert_eq!(scores["Q8 find_solution"], 15.0);
        }
    }
    totals
}

/// PrairieLearn's external grader: the question's `externalGradingOptions`
/// read from the kit's `question-info.json`; `/grade` (a private mount
/// namespace binds a scratch tree there) holding `serverFilesCourse` with
/// the folders it lists, an empty `tests`, the student's files in
/// `student`, `data/data.json` and `results`; the entrypoint run from `/`;
/// the score read from `/grade/results/results.json`. Each 15-110 fixture
/// alone gets the class run's points (score x 10).
#[test]
fn prairielearn_kit_in_a_replica_of_the_external_grader() {
    if root_for("PrairieLearn") {
        prairielearn_kit(&|grade, commands| in_namespace(grade, "/grade", commands));
    }
}

/// The same kit in a real Podman container (see
/// `gradescope_kit_in_a_real_podman_container`).
#[test]
fn prairielearn_kit_in_a_real_podman_container() {
    if root_for("PrairieLearn") && super::support::podman_usable() {
        prairielearn_kit(&|grade, commands| super::support::in_podman(grade, "/grade", commands));
    }
}

/// The PrairieLearn replica: `run(tree, commands)` runs the entrypoint
/// with `tree` as `/grade`.
fn prairielearn_kit(run: &dyn Fn(&Path, &str)) {
    use std::os::unix::fs::PermissionsExt;
    let _held = MOUNTPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    let out = open_tempdir();
    let kit = out.path().join("kit");
    harness()
        .args(["package", "prairielearn", "--course", "cmu15110", "-o"])
        .arg(&kit)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("which must hold: ruby"));
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(kit.join("question-info.json")).unwrap()).unwrap();
    assert_eq!(info["gradingMethod"], "External");
    let options = &info["externalGradingOptions"];
    assert_eq!(options["enabled"], true);
    let entrypoint = options["entrypoint"].as_str().unwrap().to_string();
    let class = workspace().join("harness/tests/fixtures/classes/cmu15110");
    let grade = out.path().join("grade");
    let mut scores = Vec::new();
    for who in ["broken", "lazy", "perfect", "raises"] {
        let _ = std::fs::remove_dir_all(&grade);
        for d in ["serverFilesCourse", "tests", "student", "data", "results"] {
            std::fs::create_dir_all(grade.join(d)).unwrap();
        }
        // Only the folders the question lists reach the container.
        for listed in options["serverFilesCourse"].as_array().unwrap() {
            let listed = listed.as_str().unwrap().trim_end_matches('/');
            copy_dir(
                &kit.join("serverFilesCourse").join(listed),
                &grade.join("serverFilesCourse").join(listed),
            );
        }
        copy_dir(&class.join(who), &grade.join("student"));
        std::fs::write(
            grade.join("data/data.json"),
            r#"{"params": {}, "correct_answers": {}, "submitted_answers": {}, "format_errors": {}, "options": {}}"#,
        )
        .unwrap();
        for e in walkdir::WalkDir::new(&grade) {
            let e = e.unwrap();
            if e.file_type().is_dir() {
                std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        run(
            &grade,
            &format!("cd /; {}", shell_words::quote(&entrypoint)),
        );
        let results: serde_json::Value =
            serde_json::from_slice(&std::fs::read(grade.join("results/results.json")).unwrap())
                .unwrap();
        if who == "broken" {
            // It does not parse: not gradable, as PrairieLearn's own
            // examples treat a syntax error (the student keeps the
            // attempt), with the build's words.
            assert_eq!(results["gradable"], false, "{results}");
            let message = results["message"].as_str().unwrap();
            assert!(
                message
                    .starts_with("Your submission did not build (the build command's exit 1):\n"),
                "{message}"
            );
            assert!(results.get("score").is_none(), "{results}");
            assert_eq!(results["format_errors"][0], message, "{results}");
            scores.push("broken not gradable".into());
            continue;
        }
        assert_eq!(results["gradable"], true, "{results}");
        let tests = results["tests"].as_array().unwrap();
        let points: f64 = tests.iter().map(|t| t["points"].as_f64().unwrap()).sum();
        let max: f64 = tests
            .iter()
            .map(|t| t["max_points"].as_f64().unwrap())
            .sum();
        assert_eq!(max, 10.0, "{results}");
        assert!((results["score"].as_f64().unwrap() * max - points).abs() < 1e-9);
        scores.push(format!("{who} {points}"));
    }
    let _ = std::fs::remove_dir("/grade");
    // The points the class run gives (class::cmu15110_class_in_ruby).
    assert_eq!(
        scores,
        ["broken not gradable", "lazy 6", "perfect 10", "raises 6"]
    );
}

/// GitLab CI's shell executor, as LabTS runs it: the kit's runner/install.sh
/// run on the host (into a scratch prefix, given to the job as the
/// project variable PUZZLEGRADE_HOME would be); the pushed repository cloned
/// into the builds folder; the job's `script` read from `.gitlab-ci.yml` and
/// run in one bash session from the clone with GitLab's variables; then
/// what GitLab reads: the `coverage` pattern over the log, the JUnit report
/// at `artifacts:reports:junit`. Each Imperial fixture alone gets the class
/// run's points; as root, also as an ordinary user (bubblewrap) and, where
/// Podman runs, with the job in a real container with the engine's default
/// privileges, as GitLab's Docker executor runs it (the container tier).
#[test]
fn gitlab_kit_in_a_replica_of_a_shell_runner() {
    use yaml_rust2::YamlLoader;
    let root = rustix::process::geteuid().is_root();
    let bwrap = std::process::Command::new("bwrap")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !root && !bwrap {
        // The job, not root, grades only under bubblewrap.
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none(),
            "the GitLab replica needs bubblewrap (bwrap) here"
        );
        eprintln!("note: skipping the GitLab replica: not root and no bwrap");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let kit = out.path().join("kit");
    harness()
        .args(["package", "gitlab", "--course", "imperial", "-o"])
        .arg(&kit)
        .assert()
        .code(0);
    let prefix = out.path().join("opt-puzzlegrade");
    let install = std::process::Command::new("sh")
        .arg(kit.join("runner/install.sh"))
        .env("PREFIX", &prefix)
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let yaml = std::fs::read_to_string(kit.join(".gitlab-ci.yml")).unwrap();
    let doc = &YamlLoader::load_from_str(&yaml).unwrap()[0];
    let job = &doc["puzzlegrade"];
    let script: Vec<&str> = job["script"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let coverage = job["coverage"].as_str().unwrap();
    let coverage = regex::Regex::new(&format!(
        "(?m){}",
        coverage
            .strip_prefix('/')
            .unwrap()
            .strip_suffix('/')
            .unwrap()
    ))
    .unwrap();
    let junit = job["artifacts"]["reports"]["junit"].as_str().unwrap();
    let class = workspace().join("harness/tests/fixtures/classes/imperial");
    let git = |dir: &Path, args: &[&str]| {
        let s = std::process::Command::new("git")
            .args(["-c", "user.name=student", "-c", "user.email=s@example.org"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    };
    // As root, and (where this test is root) once more as an ordinary
    // user, as gitlab-runner is: each case then runs under bubblewrap.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // (who, the runner's user, in a real container engine: the Docker
    // executor's job container with its default privileges)
    let mut jobs = vec![
        ("broken", None, false),
        ("empty-mask", None, false),
        ("part-a-only", None, false),
        ("perfect", None, false),
    ];
    if root {
        jobs.push(("perfect", Some(61000), false));
    }
    let engine = root && super::support::podman_usable();
    if engine {
        for who in ["broken", "empty-mask", "part-a-only", "perfect"] {
            jobs.push((who, None, true));
        }
    }
    let mut got = Vec::new();
    for (who, user, contained) in jobs {
        let name = match (user, contained) {
            (Some(_), _) => format!("{who}-by-a-user"),
            (None, true) => format!("{who}-in-podman"),
            (None, false) => who.to_string(),
        };
        // The student's repository, pushed; the runner's clone of it.
        let origin = out.path().join("origin").join(&name);
        copy_dir(&class.join(who), &origin);
        git(&origin, &["init", "-q"]);
        git(&origin, &["add", "-A"]);
        git(&origin, &["commit", "-q", "-m", "my test"]);
        let builds = out.path().join("builds").join(&name);
        let project = builds.join("t0k3n/0/c-test").join(who);
        std::fs::create_dir_all(project.parent().unwrap()).unwrap();
        let as_runner = |program: &str| {
            let mut c = match user {
                Some(uid) => {
                    let mut c = std::process::Command::new("setpriv");
                    c.arg(format!("--reuid={uid}"))
                        .arg(format!("--regid={uid}"))
                        .arg("--clear-groups")
                        .arg(program);
                    c
                }
                None => std::process::Command::new(program),
            };
            c.env("HOME", &builds);
            c
        };
        if let Some(uid) = user {
            for d in [&origin, &builds] {
                let s = std::process::Command::new("chown")
                    .arg("-R")
                    .arg(format!("{uid}:{uid}"))
                    .arg(d)
                    .status()
                    .unwrap();
                assert!(s.success());
            }
        }
        let clone = as_runner("git")
            .args(["clone", "-q", origin.to_str().unwrap(), who])
            .current_dir(project.parent().unwrap())
            .output()
            .unwrap();
        assert!(
            clone.status.success(),
            "{}",
            String::from_utf8_lossy(&clone.stderr)
        );
        // Untracked junk in the clone is not the student's commit.
        std::fs::write(project.join("stray.c"), "syntax error").unwrap();
        let mut session = String::from("set -eo pipefail\n");
        for line in &script {
            session.push_str(line);
            session.push('\n');
        }
        let mut job = if contained {
            // The job's folder at the same path in the container, and
            // the runner's install (a Docker executor's image holds it).
            let mut c = std::process::Command::new("podman");
            c.args(super::support::podman_run_args())
                .arg("-v")
                .arg(format!("{0}:{0}", out.path().display()))
                .arg("--workdir")
                .arg(&project);
            for key in ["CI", "GITLAB_CI", "CI_PROJECT_DIR", "CI_PROJECT_NAME"] {
                c.arg("--env").arg(key);
            }
            for key in ["CI_BUILDS_DIR", "CI_JOB_NAME", "PUZZLEGRADE_HOME", "HOME"] {
                c.arg("--env").arg(key);
            }
            c.args(["--rootfs", "/:O", "bash", "-c"]).arg(&session);
            c.env("HOME", &builds);
            c
        } else {
            let mut c = as_runner("bash");
            c.arg("-c").arg(&session);
            c
        };
        let run = job
            .current_dir(&project)
            .env("CI", "true")
            .env("GITLAB_CI", "true")
            .env("CI_PROJECT_DIR", &project)
            .env("CI_PROJECT_NAME", who)
            .env("CI_BUILDS_DIR", &builds)
            .env("CI_JOB_NAME", "puzzlegrade")
            .env("PUZZLEGRADE_HOME", &prefix)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{who}: {log}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let pct: f64 = coverage
            .captures(&log)
            .unwrap_or_else(|| panic!("no coverage line in {log}"))[1]
            .parse()
            .unwrap();
        let report = std::fs::read_to_string(project.join(junit)).unwrap();
        let xml = roxmltree::Document::parse(&report).unwrap();
        let cases: Vec<_> = xml
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        // A submission that does not build has its build as its one test.
        let least = if who == "broken" { 1 } else { 20 };
        assert!(cases.len() >= least, "{who}: {} test cases", cases.len());
        assert!(
            cases
                .iter()
                .all(|c| c.attribute("name").unwrap().contains(who)),
            "{who}: every test names the submission"
        );
        // (The last row's isolation, by its column's name.)
        let isolation = || {
            let rows = super::support::read_scorecard(&project.join(".puzzlegrade/rows.csv"));
            rows.last().unwrap()["isolation"].clone()
        };
        if user.is_some() {
            let last = isolation();
            assert!(last.ends_with("+bwrap"), "under bubblewrap: {last}");
        }
        if contained {
            // No namespaces there: the container tier (a user per slot,
            // Landlock).
            assert_eq!(isolation(), "copies+uid+rlimits+cpus+landlock");
        }
        got.push(format!("{name} {pct}"));
    }
    // The points the class run gives (class::imperial_class_in_c_through_
    // the_exam_driver), as GitLab's coverage: within 0..100 of 100.
    let mut want = vec!["broken 0", "empty-mask 90", "part-a-only 50", "perfect 100"];
    if root {
        want.push("perfect-by-a-user 100");
    }
    if engine {
        want.extend([
            "broken-in-podman 0",
            "empty-mask-in-podman 90",
            "part-a-only-in-podman 50",
            "perfect-in-podman 100",
        ]);
    }
    assert_eq!(got, want);
}

/// A submission the grader fails on (here every case: the course's part
/// runs an interpreter the machine lacks) gets no score on any platform:
/// no Gradescope `results.json` (and a stale one removed), no Autolab
/// scores, no GitHub Classroom outputs (its step fails), PrairieLearn's `gradable: false` with the reason, no score line
/// for GitLab's coverage, and exit 3, which fails the platform's job.
#[test]
fn what_could_not_be_graded_gets_no_score_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let course = dir.path().join("course.toml");
    std::fs::write(
        &course,
        format!(
            "name = \"no interpreter\"\nfamily = \"lightsout\"\n\n\
             [[part]]\nname = \"solver\"\ncommand = \"{{course}}/tool.x solve.x\"\n\
             suites = [\"{}\"]\ncases = [\"*/easy/2x*\"]\n\n\
             [[rubric]]\nname = \"easy\"\nrule = \"each\"\npoints = 1\npart = \"solver\"\n",
            workspace().join("suites/lightsout/easy").display()
        ),
    )
    .unwrap();
    // The course's own tool, there but not executable: every case is
    // our failure (a program missing from the machine stops the run
    // before grading: see below).
    std::fs::write(dir.path().join("tool.x"), "").unwrap();
    let sub = dir.path().join("alice");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("solve.x"), "").unwrap();
    let out = |name: &str| dir.path().join(name);
    std::fs::write(out("gs.json"), "{\"score\": 40}\n").unwrap();
    let run = harness()
        .current_dir(dir.path())
        .args(["grade", "--course"])
        .arg(&course)
        .arg("--submission")
        .arg(&sub)
        .args([
            "--results",
            "gs.json",
            "--results",
            "autolab:al.json",
            "--results",
            "prairielearn:pl.json",
            "--results",
            "github-classroom:gh.txt",
            "--scorecard",
            "rows.csv",
        ])
        .assert()
        .code(3);
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(!stdout.contains("score:"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "alice       - / 4  not graded: the grader failed on solver/lightsout/easy/2x2-00.txt: cannot start {}: Permission denied",
            dir.path().join("tool.x").display()
        )),
        "{stdout}"
    );
    assert!(
        stderr.contains("harness: 1 submission(s) could not be graded, so no score was given for them: alice: the grader failed on solver/lightsout/easy/2x2-00.txt"),
        "{stderr}"
    );
    assert!(
        !out("gs.json").exists(),
        "no Gradescope score, not even a stale one"
    );
    assert!(!out("al.json").exists(), "no Autolab scores");
    assert!(!out("gh.txt").exists(), "no GitHub Classroom outputs");
    let pl: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out("pl.json")).unwrap()).unwrap();
    assert_eq!(pl["gradable"], false, "{pl}");
    assert!(pl.get("score").is_none(), "{pl}");
    assert_eq!(pl["format_errors"][0], pl["message"], "{pl}");
    let message = pl["message"].as_str().unwrap();
    assert!(
        message.starts_with("The autograder could not grade this submission (the grader failed on solver/lightsout/easy/2x2-00.txt: cannot start "),
        "{message}"
    );
    // A program the machine lacks stops the run before any row (exit 2,
    // naming it): no student gets our failure as rows.
    let config = std::fs::read_to_string(&course).unwrap();
    std::fs::write(
        &course,
        config.replace("{course}/tool.x", "puzzlegrade-no-such-interpreter"),
    )
    .unwrap();
    let grade = |scorecard: &str| {
        let mut cmd = harness();
        cmd.current_dir(dir.path())
            .args(["grade", "--course"])
            .arg(&course)
            .arg("--submission")
            .arg(&sub)
            .args(["--scorecard", scorecard]);
        cmd
    };
    grade("lacking.csv")
        .args(["--results", "gs.json"])
        .assert()
        .code(2)
        .stderr(
            "harness: course no interpreter: this machine has no puzzlegrade-no-such-interpreter \
             (run by solver): nothing graded\n",
        );
    assert!(!out("lacking.csv").exists());
    assert!(!out("gs.json").exists());
    // A declared package dpkg does not have installed (where dpkg is:
    // Debian's machines and images) is named as a warning, unless a
    // program of its name is on PATH; grading goes on (a package is a
    // proxy: the course's programs are what it needs, and they are here).
    if !std::path::Path::new("/usr/bin/dpkg-query").exists() {
        eprintln!("note: no dpkg-query: the package check is Debian's, skipped");
        return;
    }
    std::fs::write(
        &course,
        config.replacen(
            "family = \"lightsout\"\n",
            "family = \"lightsout\"\npackages = [\"puzzlegrade-no-such-package\", \"sh\"]\n",
            1,
        ),
    )
    .unwrap();
    grade("warned.csv")
        .assert()
        .stderr(predicates::str::starts_with(
            "harness: warning: course no interpreter declares packages this machine does not have \
             installed: puzzlegrade-no-such-package (apt-get install puzzlegrade-no-such-package); \
             grading goes on, as the programs it runs are here\n",
        ));
    assert!(out("warned.csv").exists());
}

/// A course in `dir` whose part runs `command` on the easy boards `2x*`
/// (item `open`) and `secret` (item `secret`, hidden), and an empty
/// submission `alice`: the config's path and the submission's.
fn open_and_secret(dir: &Path, command: &str, secret: &str) -> (PathBuf, PathBuf) {
    let course = dir.join("course.toml");
    std::fs::write(
        &course,
        format!(
            "name = \"secrets\"\nfamily = \"lightsout\"\n\n\
             [[part]]\nname = \"solver\"\ncommand = \"{command}\"\n\
             suites = [\"{}\"]\ncases = [\"*/easy/2x*\", \"{secret}\"]\n\n\
             [[rubric]]\nname = \"open\"\nrule = \"each\"\npoints = 1\npart = \"solver\"\ncases = \"*/easy/2x*\"\n\n\
             [[rubric]]\nname = \"secret\"\nrule = \"each\"\npoints = 1\npart = \"solver\"\ncases = \"{secret}\"\nvisibility = \"hidden\"\n",
            workspace().join("suites/lightsout/easy").display()
        ),
    )
    .unwrap();
    let sub = dir.join("alice");
    std::fs::create_dir_all(&sub).unwrap();
    (course, sub)
}

/// `--student-view`, as the Autolab, GitLab, Gradescope and PrairieLearn
/// kits run the harness: the log and the test report name no case of an
/// item that is not `visible`, and their tallies count none, nor do the
/// points line, the platforms' messages or the summary's counts (the
/// hidden item's points stay in the total); the log says each failure in
/// the course's words (no verdict names) and the isolation in one short
/// sentence; the scorecard (the staff's) keeps every row.
#[test]
fn hidden_items_leave_no_trace_in_what_students_see() {
    let dir = tempfile::tempdir().unwrap();
    let (course, sub) = open_and_secret(dir.path(), "sh -c 'exit 3'", "*/easy/3x*");
    let mut config = std::fs::read_to_string(&course).unwrap();
    config.push_str("\n[verdicts]\nruntime-error = \"stopped with an error\"\n");
    std::fs::write(&course, config).unwrap();
    let run = harness()
        .current_dir(dir.path())
        .args(["grade", "--student-view", "--course"])
        .arg(&course)
        .arg("--submission")
        .arg(&sub)
        .args(["--export", "junit:junit.xml", "--scorecard", "rows.csv"])
        .args(["--autolab", "al.json", "--results", "prairielearn:pl.json"])
        .args([
            "--results",
            "gradescope:gs.json",
            "--summary",
            "summary.csv",
        ])
        .assert()
        .code(1);
    for feedback in ["al.json", "pl.json"] {
        let text = std::fs::read_to_string(dir.path().join(feedback)).unwrap();
        assert!(text.contains("2x2-00.txt"), "{text}");
        assert!(!text.contains("3x"), "a hidden case in {feedback}: {text}");
        assert!(text.contains("(its cases are not shown)"), "{text}");
        assert!(
            !text.contains(" of 9 "),
            "hidden cases counted in {feedback}: {text}"
        );
        assert!(text.contains("stopped with an error"), "{text}");
    }
    let pl: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("pl.json")).unwrap()).unwrap();
    assert_eq!(
        pl["message"],
        "0 / 9 points. secrets: 0 of 4 cases accepted"
    );
    // Gradescope shows its staff a hidden test whole, and its students
    // nothing of it.
    let gs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("gs.json")).unwrap()).unwrap();
    assert_eq!(gs["output"], "secrets: 0 of 4 cases accepted");
    assert_eq!(gs["tests"][1]["name"], "secret");
    assert_eq!(gs["tests"][1]["visibility"], "hidden");
    assert_eq!(gs["extra_data"]["cases"], 4);
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(
        stdout.contains("easy/2x2-00.txt: stopped with an error: exit status 3"),
        "{stdout}"
    );
    assert!(!stdout.contains("3x"), "a hidden case in the log: {stdout}");
    assert!(
        !stdout.contains("runtime-error"),
        "a verdict name in the log: {stdout}"
    );
    assert!(
        stdout.contains("solver/lightsout/easy: 0/4 accepted (4 stopped with an error)"),
        "the tallies count the visible cases only: {stdout}"
    );
    assert!(
        stdout.contains("alice       0 / 9  0 of 4 cases accepted\n"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    let isolation = stderr.lines().next().unwrap();
    assert!(
        isolation.starts_with("Each case ran isolated from the others and from the grader (")
            && isolation.len() < 120
            && !isolation.contains("not available"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("summary.csv")).unwrap(),
        "submission,open,secret,total,max,built,accepted,cases,counts,graded\n\
         alice,0,0,0,9,yes,0,4,open 0/4,yes\n"
    );
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(junit.contains("2x2-00.txt"), "{junit}");
    assert!(
        !junit.contains("3x"),
        "a hidden case in the report: {junit}"
    );
    let rows = super::support::read_scorecard(&dir.path().join("rows.csv"));
    assert!(
        rows.iter().any(|r| r["case"].starts_with("3x")),
        "the staff's scorecard keeps every row"
    );
}

/// PrairieLearn's test images: the replays of an item's wrong answers
/// (where the outputs are kept, as the kit's `run` keeps them), drawn as
/// the puzzle and where the answer left it; none for a hidden item.
#[test]
fn prairielearn_shows_wrong_answers_as_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let (course, sub) = open_and_secret(dir.path(), "sh -c 'echo 1:1'", "*/easy/3x3*");
    harness()
        .current_dir(dir.path())
        .args(["grade", "--course"])
        .arg(&course)
        .arg("--submission")
        .arg(&sub)
        .args([
            "--results",
            "prairielearn:pl.json",
            "--scorecard",
            "rows.csv",
        ])
        .args(["--keep-output", "out"])
        .assert()
        .code(1);
    let pl: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("pl.json")).unwrap()).unwrap();
    let images = pl["tests"][0]["images"].as_array().expect("images");
    let labels: Vec<&str> = images
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            // One press of 1:1: the lit corner and the three it turns on;
            // the lit corner it turns off and the two it turns on; 4 lit
            // of 3x2, 3 toggled off and 1 on.
            "solver/lightsout/easy/2x2-00.txt: 4 lights still on",
            "solver/lightsout/easy/2x2-01.txt: 2 lights still on",
            "solver/lightsout/easy/2x3-05.txt: 2 lights still on"
        ],
        "the first three wrong answers by case"
    );
    use base64::Engine as _;
    let url = images[0]["url"].as_str().unwrap();
    let svg = base64::engine::general_purpose::STANDARD
        .decode(url.strip_prefix("data:image/svg+xml;base64,").unwrap())
        .unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(">after 1 move</text>"), "{svg}");
    assert!(pl["tests"][1].get("images").is_none(), "hidden: {pl}");
}

/// `--binaries DIR` ships that harness (scripts/release's small static
/// one) instead of the one running, and the staff are told its size.
#[test]
fn a_kit_ships_the_binaries_it_is_given() {
    let out = tempfile::tempdir().unwrap();
    let bin = out.path().join("dist");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("harness"), vec![b'h'; 1_500_000]).unwrap();
    std::fs::write(bin.join("harness-exec"), vec![b'e'; 500_000]).unwrap();
    let zip = out.path().join("autograder.zip");
    // Tried, a kit whose harness does not run is refused, and not written.
    harness()
        .args(["package", "gradescope", "--course", "cis521", "--binaries"])
        .arg(&bin)
        .arg("-o")
        .arg(&zip)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "harness: refused: the kit failed on the course's sample",
        ));
    assert!(!zip.exists());
    harness()
        .args([
            "package",
            "gradescope",
            "--untried",
            "--course",
            "cis521",
            "--binaries",
        ])
        .arg(&bin)
        .arg("-o")
        .arg(&zip)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("the harness shipped: 2.0 MB"));
    // Every kit says it, the Autolab one (its harness inside a tar) too.
    harness()
        .args([
            "package",
            "autolab",
            "--untried",
            "--course",
            "cis521",
            "--binaries",
        ])
        .arg(&bin)
        .arg("-o")
        .arg(out.path().join("autolab"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("the harness shipped: 2.0 MB"));
    // How each is linked, said: this (test) harness against the build
    // machine's glibc; a static one (ldconfig is, wherever glibc is) runs
    // on any image.
    harness()
        .args(["package", "gradescope", "--untried", "--course", "cis521", "-o"])
        .arg(out.path().join("dynamic.zip"))
        .assert()
        .code(0)
        .stdout(predicates::str::is_match(
            "the harness shipped: [0-9.]+ MB, dynamically linked: the image needs glibc 2\\.[0-9]+ or later \\(scripts/release makes a small static one: --binaries target/dist\\)",
        ).unwrap());
    if let Ok(ldconfig) = std::fs::read("/sbin/ldconfig") {
        let fixed = out.path().join("static");
        std::fs::create_dir_all(&fixed).unwrap();
        std::fs::write(fixed.join("harness"), &ldconfig).unwrap();
        harness()
            .args([
                "package",
                "gradescope",
                "--untried",
                "--course",
                "cis521",
                "--binaries",
            ])
            .arg(&fixed)
            .arg("-o")
            .arg(out.path().join("static.zip"))
            .assert()
            .code(0)
            .stdout(predicates::str::contains(
                "MB, static (runs on any platform image)",
            ));
    }
    let unpacked = out.path().join("unpacked");
    unzip(&zip, &unpacked);
    assert_eq!(
        std::fs::read(unpacked.join("harness")).unwrap(),
        vec![b'h'; 1_500_000]
    );
    assert_eq!(
        std::fs::read(unpacked.join("harness-exec")).unwrap(),
        vec![b'e'; 500_000]
    );
}

/// Each platform's results hold only the fields its published
/// specification lists, of the types it gives: Gradescope's
/// (gradescope-autograders.readthedocs.io, "Autograder Specifications":
/// score, execution_time, output, visibility, stdout_visibility,
/// extra_data, tests, leaderboard, and the top-level max_score the kits
/// have always written beside them; a test's score, max_score, status,
/// name, number, output, tags, visibility), PrairieLearn's (its
/// externalGrading docs: gradable, score, message, output, format_errors,
/// tests; a test's name, description, points, max_points, message,
/// output, images), and Autolab's Makefile has its `clean` target.
/// Gradescope's `execution_time` is the run's own (not the sum of its
/// cases' times), PrairieLearn's `format_errors` says why a submission is
/// not gradable.
#[test]
fn results_hold_the_fields_each_platform_specifies() {
    let dir = tempfile::tempdir().unwrap();
    // Where Gradescope puts it: the submission, its metadata beside it.
    let sub = dir.path().join("submission");
    copy_dir(
        &workspace().join("harness/tests/fixtures/classes/cis521/greedy"),
        &sub,
    );
    std::fs::write(
        dir.path().join("submission_metadata.json"),
        r#"{"created_at": "2018-07-01T14:22:32.365935-07:00", "previous_submissions": [],
            "assignment": {"due_date": "2018-07-31T23:00:00.000000-07:00", "late_due_date": null},
            "users": [{"email": "ann@example.edu", "id": 1, "name": "Ann"},
                      {"email": "bo@example.edu", "id": 2, "name": "Bo"}]}"#,
    )
    .unwrap();
    harness()
        .current_dir(dir.path())
        .args(["grade", "--course", "cis521", "--submission"])
        .arg(&sub)
        .args([
            "--results",
            "gs.json",
            "--results",
            "prairielearn:pl.json",
            "--scorecard",
            "rows.csv",
        ])
        .assert()
        .code(1);
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(name)).unwrap()).unwrap()
    };
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let within = |v: &serde_json::Value, allowed: &[&str]| {
        for k in keys(v) {
            assert!(
                allowed.contains(&k.as_str()),
                "{k} is not in the specification: {v}"
            );
        }
    };
    let gs = read("gs.json");
    within(
        &gs,
        &[
            "score",
            "max_score",
            "execution_time",
            "output",
            "output_format",
            "visibility",
            "stdout_visibility",
            "extra_data",
            "tests",
            "leaderboard",
        ],
    );
    assert!(gs["execution_time"].is_number(), "{gs}");
    assert_eq!(gs["output_format"], "text", "{gs}");
    for t in gs["tests"].as_array().unwrap() {
        within(
            t,
            &[
                "score",
                "max_score",
                "status",
                "name",
                "name_format",
                "number",
                "output",
                "output_format",
                "tags",
                "visibility",
                "extra_data",
            ],
        );
        assert!(t["tags"].as_array().is_some_and(|a| !a.is_empty()), "{t}");
        let full = t["score"].as_f64() >= t["max_score"].as_f64();
        assert_eq!(t["status"], if full { "passed" } else { "failed" }, "{t}");
        assert!(t["number"].is_string(), "{t}");
    }
    assert_eq!(
        gs["extra_data"]["course"], "UPenn CIS 521 HW1 Lights Out",
        "{gs}"
    );
    assert!(gs["extra_data"]["cases"].as_u64() > Some(0), "{gs}");
    assert_eq!(gs["extra_data"]["users"], serde_json::json!(["Ann", "Bo"]));
    let pl = read("pl.json");
    within(
        &pl,
        &[
            "gradable",
            "score",
            "message",
            "output",
            "format_errors",
            "tests",
            "images",
        ],
    );
    assert!(
        pl["output"].is_string() && pl["format_errors"].is_object(),
        "{pl}"
    );
    for t in pl["tests"].as_array().unwrap() {
        let first = t["output"].as_str().unwrap().lines().next().unwrap_or("");
        assert_eq!(
            t["message"], first,
            "the short message is the output's first line"
        );
        assert!(
            t["description"]
                .as_str()
                .is_some_and(|d| d.contains("points")),
            "{t}"
        );
        within(
            t,
            &[
                "name",
                "description",
                "points",
                "max_points",
                "message",
                "output",
                "images",
            ],
        );
        // A replay of a wrong answer, drawn, where the item has one.
        for image in t["images"].as_array().into_iter().flatten() {
            within(image, &["label", "url"]);
            assert!(
                image["url"]
                    .as_str()
                    .unwrap()
                    .starts_with("data:image/svg+xml;base64,"),
                "{image}"
            );
        }
    }
    let kit = dir.path().join("kit");
    harness()
        .args(["package", "autolab", "--course", "cis521", "-o"])
        .arg(&kit)
        .assert()
        .code(0);
    let makefile = std::fs::read_to_string(kit.join("autograde-Makefile")).unwrap();
    assert!(makefile.contains("\nclean:\n"), "{makefile}");
}

/// A kit written into a folder that does not exist is an error naming it
/// (exit 2), as `cp` and `zip` do: no folder is made for a mistyped path.
#[test]
fn a_kit_into_a_folder_that_does_not_exist_is_refused() {
    let out = open_tempdir();
    let missing = out.path().join("nosuch/dir");
    for platform in ["gradescope", "gitlab"] {
        let kit = missing.join("kit.zip");
        harness()
            .args(["package", platform, "--course", "cis521", "-o"])
            .arg(&kit)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "harness: cannot write {}: no folder {} (make it first)\n",
                kit.display(),
                missing.display()
            ));
        assert!(!out.path().join("nosuch").exists(), "{platform}");
    }
}
