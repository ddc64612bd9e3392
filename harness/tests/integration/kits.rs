//! `harness package` tries the kit it wrote on the course's sample, in
//! the platform's layout, before anyone gets it: a TA's own course whose
//! folder links to shared suites packages and grades there; a kit whose
//! sample falls short (a listing naming a missing board, a sample that is
//! not perfect) is refused with exit 2 and nothing written.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::support::{copy_dir, harness, workspace};

/// A TA's folder `ta/` whose config, suites and adapters are links into
/// `shared/` (the config itself a link too, its folder holding a link to
/// the sample); the CIS 521 config made to name `sample`, its
/// `suites` rewritten by `suites`.
fn linked_course(at: &Path, sample: &str, suites: &dyn Fn(&str) -> String) -> PathBuf {
    let shared = at.join("shared");
    copy_dir(
        &workspace().join("suites/lightsout/easy"),
        &shared.join("suites/lightsout/easy"),
    );
    copy_dir(&workspace().join("adapters"), &shared.join("adapters"));
    let fixtures = workspace().join("harness/tests/fixtures/classes/cis521");
    copy_dir(&fixtures.join(sample), &shared.join("my/sample"));
    let config = std::fs::read_to_string(workspace().join("courses/cis521-lightsout.toml"))
        .unwrap()
        .replace("\"samples/cis521-lightsout\"", "\"sample\"");
    std::fs::write(shared.join("my/course.toml"), suites(&config)).unwrap();
    let ta = at.join("ta");
    std::fs::create_dir_all(ta.join("cfg")).unwrap();
    symlink("../../shared/my/course.toml", ta.join("cfg/course.toml")).unwrap();
    symlink("../../shared/my/sample", ta.join("cfg/sample")).unwrap();
    symlink("../shared/suites", ta.join("suites")).unwrap();
    symlink("../shared/adapters", ta.join("adapters")).unwrap();
    ta.join("cfg/course.toml")
}

/// `harness package PLATFORM ARGS... --course COURSE -o OUT`: how it
/// ended.
fn package(platform: &str, args: &[&str], course: &Path, out: &Path) -> assert_cmd::assert::Assert {
    harness()
        .args(["package", platform])
        .args(args)
        .arg("--course")
        .arg(course)
        .arg("-o")
        .arg(out)
        .assert()
}

/// The names in a tar.
fn listed(tar: &Path) -> Vec<String> {
    let mut archive = tar::Archive::new(std::fs::File::open(tar).unwrap());
    archive
        .entries()
        .unwrap()
        .map(|e| e.unwrap().path().unwrap().display().to_string())
        .collect()
}

#[test]
fn a_course_whose_folder_links_to_shared_suites_packages_and_grades_its_sample() {
    let out = tempfile::tempdir().unwrap();
    let config = linked_course(out.path(), "perfect", &|c| c.to_string());
    let kit = out.path().join("kit");
    let made = package("autolab", &["--handin", "hw1.tar"], &config, &kit).code(0);
    let stdout = String::from_utf8_lossy(&made.get_output().stdout).into_owned();
    assert!(
        stdout.contains(&format!(
            "tried: the course's sample {} got 40 / 40 points through the kit in ",
            out.path().join("ta/cfg/sample").display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("the kit: 3 files, "), "{stdout}");
    // The config at the link's place, the suites and adapter where its
    // `../` words put them (the links' places, not their targets').
    let names = listed(&kit.join("autograde.tar"));
    for name in [
        "autograde/course/cfg/course.toml",
        "autograde/course/suites/lightsout/easy/2x2-00.txt",
        "autograde/course/adapters/cis521.py",
        "autograde/run",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    assert!(
        !names.iter().any(|n| n.contains("shared")),
        "nothing at a link's target: {names:?}"
    );
}

#[test]
fn a_listing_that_names_a_missing_board_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let config = linked_course(out.path(), "perfect", &|c| {
        c.replace(
            "\"../suites/lightsout/easy\"",
            "\"../suites/lightsout/easy.csv\"",
        )
    });
    std::fs::write(
        out.path().join("shared/suites/lightsout/easy.csv"),
        "board\n2x2-00.txt\n2x2-99.txt\n",
    )
    .unwrap();
    let kit = out.path().join("kit");
    let refused = package("autolab", &[], &config, &kit).code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("harness: refused: the kit failed on the course's sample"),
        "{stderr}"
    );
    assert!(
        stderr.contains("course/suites/lightsout/easy/2x2-99.txt: cannot read"),
        "{stderr}"
    );
    assert!(!kit.exists(), "no kit left behind");
    // The listing without the missing row: packaged, its boards carried.
    std::fs::write(
        out.path().join("shared/suites/lightsout/easy.csv"),
        "board\n2x2-00.txt\n",
    )
    .unwrap();
    package("autolab", &[], &config, &kit)
        .code(0)
        .stdout(predicates::str::contains("got 40 / 40 points"));
}

#[test]
fn a_kit_whose_sample_falls_short_is_refused_and_untried_is_said() {
    let out = tempfile::tempdir().unwrap();
    let config = linked_course(out.path(), "greedy", &|c| c.to_string());
    for platform in ["gradescope", "prairielearn"] {
        let kit = out.path().join(format!("{platform}-kit"));
        let refused = package(platform, &[], &config, &kit).code(2);
        let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!(
                "harness: refused: the course's sample {} got 25 / 40 points through the kit (every point expected); its last lines:",
                out.path().join("ta/cfg/sample").display()
            )),
            "{platform}: {stderr}"
        );
        assert!(!kit.exists(), "{platform}: no kit left behind");
    }
    // --untried writes it, and says so.
    let kit = out.path().join("kit.zip");
    package("gradescope", &["--untried"], &config, &kit)
        .code(0)
        .stdout(predicates::str::contains(
            "warning: the kit was not tried (--untried)",
        ));
    assert!(kit.is_file());
}

/// Every bundled course's sample earns every point through a kit of each
/// platform that takes it as the course's staff would (the slowest
/// courses on one platform only: each platform's own steps are tried
/// above and in platforms.rs).
#[test]
fn every_bundled_course_packages_with_its_sample_at_full_marks() {
    let out = tempfile::tempdir().unwrap();
    for (course, platform, points) in [
        ("cis521", "gitlab", "40 / 40"),
        ("cmu15110", "prairielearn", "10 / 10"),
        ("cmu15122", "gradescope", "19 / 19"),
        ("imperial", "gitlab", "100 / 100"),
    ] {
        let kit = out.path().join(format!("{course}-{platform}"));
        if platform == "gitlab" {
            std::fs::create_dir(&kit).unwrap();
        }
        let made = harness()
            .args(["package", platform, "--course", course, "-o"])
            .arg(&kit)
            .assert()
            .code(0);
        let stdout = String::from_utf8_lossy(&made.get_output().stdout).into_owned();
        assert!(
            stdout.contains(&format!("got {points} points through the kit in ")),
            "{course} on {platform}: {stdout}"
        );
    }
}

/// A folder of every program of /usr/bin but the C compilers: an image
/// without gcc.
fn path_without_gcc(at: &Path) -> PathBuf {
    let bin = at.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for e in std::fs::read_dir("/usr/bin").unwrap() {
        let name = e.unwrap().file_name();
        let n = name.to_string_lossy();
        let compiler = ["cc", "c89", "c99", "gcc", "x86_64-linux-gnu-gcc"]
            .iter()
            .any(|c| n == *c || n.starts_with(&format!("{c}-")))
            || n.starts_with("x86_64-linux-gnu-gcc");
        if !compiler {
            symlink(Path::new("/usr/bin").join(&name), bin.join(&name)).unwrap();
        }
    }
    bin
}

/// The Imperial course builds with `make gogen-driver`, whose Makefile
/// calls `$(CC)`: in an image without a C compiler the kit's preflight
/// names it, the submission gets no score (Gradescope's "autograder
/// failed"), and `package`'s trial refuses the kit.
#[test]
fn a_makefile_calling_a_compiler_the_image_lacks_is_autograder_failed_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let bin = path_without_gcc(out.path());
    let kit = out.path().join("autograder.zip");
    let refused = harness()
        .args(["package", "gradescope", "--course", "imperial", "-o"])
        .arg(&kit)
        .env("PATH", &bin)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains(
            "course Imperial C test: Gogen: this machine has no cc (run by the build's Makefile), gcc (run by the course's packages); the course needs the packages gcc libc6-dev make python3"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "puzzlegrade could not grade this submission (harness exit 2): no score given"
        ),
        "{stderr}"
    );
    assert!(!kit.exists(), "no kit left behind");
    // The same check where a class is graded: nothing run, exit 2.
    let sample = workspace().join("courses/samples/imperial-gogen");
    harness()
        .args([
            "grade",
            "--course",
            "imperial",
            "--no-cache",
            "--submission",
        ])
        .arg(&sample)
        .arg("--scorecard")
        .arg(out.path().join("rows.csv"))
        .env("PATH", &bin)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "this machine has no cc (run by the build's Makefile)",
        ));
}

/// The platform's limit on a job against the course's worst case (every
/// case to its wall-clock net, then again alone): PrairieLearn's and
/// GitLab's set in the kit, Gradescope's said with where to set it.
#[test]
fn the_platform_s_time_limit_is_set_in_the_kit_or_said() {
    let out = tempfile::tempdir().unwrap();
    let pl = out.path().join("pl");
    package("prairielearn", &["--untried"], Path::new("cs61bl"), &pl)
        .code(0)
        .stdout(predicates::str::contains(
            "warning: a submission's worst case is 18h 58m: the build's 3m, then 139 cases each to its 4m 5s net and once more alone; PrairieLearn stops a job at 10m at most (the kit sets that): a submission that runs longer is failed, with no score",
        ));
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(pl.join("question-info.json")).unwrap()).unwrap();
    assert_eq!(info["externalGradingOptions"]["timeout"], 600);
    let gl = out.path().join("gl");
    std::fs::create_dir(&gl).unwrap();
    package("gitlab", &["--untried"], Path::new("cis521"), &gl).code(0);
    let yaml = std::fs::read_to_string(gl.join(".gitlab-ci.yml")).unwrap();
    assert!(
        yaml.contains("  # One submission's worst case: 4h 36m: the build's 60s, then 87 cases each to its 95s net and once more alone.\n  timeout: 277m\n"),
        "{yaml}"
    );
    let gs = out.path().join("gs.zip");
    package("gradescope", &["--untried"], Path::new("cmu15110"), &gs)
        .code(0)
        .stdout(predicates::str::contains(
            "Gradescope stops a job at 10m unless set higher (the assignment's Autograder Settings, at most 40m): set it to 40m, and a submission that runs longer gets 0 and shows none of its tests",
        ));
}

/// Every kit ships the Dockerfile of the image it needs: the platform's
/// base, every package of the course installed, and what it copies there
/// in the kit; GitLab's job names the image a Docker executor runs it in.
#[test]
fn every_kit_ships_a_dockerfile_for_the_course_s_packages() {
    let out = tempfile::tempdir().unwrap();
    for (platform, base, more) in [
        ("gradescope", "gradescope/autograder-base:latest", ""),
        ("autolab", "autograding_image", " make tar"),
        ("prairielearn", "prairielearn/grader-c", ""),
        (
            "gitlab",
            "debian:bookworm-slim",
            " git ca-certificates bubblewrap",
        ),
    ] {
        let kit = out.path().join(platform);
        std::fs::create_dir(&kit).unwrap();
        let at = match platform {
            "gradescope" => kit.join("autograder.zip"),
            _ => kit.clone(),
        };
        harness()
            .args([
                "package",
                platform,
                "--untried",
                "--course",
                "cmu15122",
                "-o",
            ])
            .arg(&at)
            .assert()
            .code(0)
            .stdout(predicates::str::contains("Dockerfile"));
        let dockerfile = if platform == "gradescope" {
            let mut zip = zip::ZipArchive::new(std::fs::File::open(&at).unwrap()).unwrap();
            let mut text = String::new();
            std::io::Read::read_to_string(&mut zip.by_name("Dockerfile").unwrap(), &mut text)
                .unwrap();
            assert!(
                zip.by_name("setup.sh").is_ok(),
                "what it runs is in the zip"
            );
            text
        } else {
            std::fs::read_to_string(kit.join("Dockerfile")).unwrap()
        };
        let lines: Vec<&str> = dockerfile.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines[0], format!("FROM {base}"), "{platform}: {dockerfile}");
        assert!(
            dockerfile.contains(&format!(
                "apt-get install -y --no-install-recommends gcc libc6-dev make valgrind{more} \\"
            )),
            "{platform}: {dockerfile}"
        );
        for copied in lines.iter().filter_map(|l| l.strip_prefix("COPY ")) {
            let from = copied.split(' ').next().unwrap();
            assert!(
                platform == "gradescope" && from == "." || kit.join(from).exists(),
                "{platform}: COPY {from}, not in the kit"
            );
        }
    }
    let yaml = std::fs::read_to_string(out.path().join("gitlab/.gitlab-ci.yml")).unwrap();
    assert!(yaml.contains("  image: $PUZZLEGRADE_IMAGE\n"), "{yaml}");
    assert!(
        yaml.contains("    PUZZLEGRADE_IMAGE: puzzlegrade-cmu15122-lightsout\n"),
        "{yaml}"
    );
}

/// Each runner result in GitHub Classroom step outputs (`itemN=BASE64`
/// lines), decoded, in order; each checked against the graders' format
/// field by field (`version`, `status`, `max_score`, one test with
/// `name`, `status`, `message`, `test_code`, `filename`, `line_no`,
/// `duration`, `score`).
pub fn classroom_runners(outputs: &str) -> Vec<serde_json::Value> {
    use base64::Engine as _;
    outputs
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let (id, encoded) = line.split_once('=').unwrap();
            assert_eq!(id, format!("item{}", i + 1));
            let json = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .unwrap();
            let r: serde_json::Value = serde_json::from_slice(&json).unwrap();
            assert_eq!(r["version"], 1, "{r}");
            let status = r["status"].as_str().unwrap();
            assert!(status == "pass" || status == "fail", "{r}");
            assert!(r["max_score"].is_number(), "{r}");
            let tests = r["tests"].as_array().unwrap();
            assert_eq!(tests.len(), 1, "{r}");
            let t = &tests[0];
            let mut keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
            keys.sort();
            assert_eq!(
                keys,
                [
                    "duration",
                    "filename",
                    "line_no",
                    "message",
                    "name",
                    "score",
                    "status",
                    "test_code"
                ],
                "{r}"
            );
            assert_eq!(t["status"], status, "{r}");
            let full = t["score"].as_f64() >= r["max_score"].as_f64();
            assert_eq!(status == "pass", full, "{r}");
            r
        })
        .collect()
}

/// The GitHub Classroom kit, as Classroom runs it: the template
/// repository (the kit) with each CIS 521 fixture's files pushed, the
/// workflow's grading step run as its runner runs it (bash -eo pipefail,
/// GITHUB_OUTPUT, RUNNER_TEMP) in a real Podman container with the
/// engine's default privileges, and the reporter's input read as it
/// reads it: the runners the workflow names, each decoded and checked,
/// the points summed over those with a `max_score`. The same points as
/// the Gradescope kit's (platforms::gradescope_kit_*).
#[test]
fn github_classroom_kit_grades_the_class_in_a_real_container() {
    use std::os::unix::fs::PermissionsExt;
    if !(crate::support::require(
        rustix::process::geteuid().is_root(),
        "a Podman container needs root here",
    ) && super::support::podman_usable())
    {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let kit = out.path().join("kit");
    std::fs::create_dir(&kit).unwrap();
    harness()
        .args([
            "package",
            "github-classroom",
            "--untried",
            "--course",
            "cis521",
            "-o",
        ])
        .arg(&kit)
        .assert()
        .code(0);
    let workflow = std::fs::read_to_string(kit.join(".github/workflows/classroom.yml")).unwrap();
    assert!(workflow.starts_with("# puzzlegrade"), "{workflow}");
    assert!(
        workflow.contains("\nname: Autograding Tests\n"),
        "{workflow}"
    );
    assert!(
        workflow.contains("\n  run-autograding-tests:\n"),
        "{workflow}"
    );
    assert!(
        workflow.contains("          ITEM8_RESULTS: \"${{steps.puzzlegrade.outputs.item8}}\"\n"),
        "{workflow}"
    );
    let class = workspace().join("harness/tests/fixtures/classes/cis521");
    let mut totals = Vec::new();
    for who in ["broken", "greedy", "noisy", "perfect"] {
        let job = out.path().join(who);
        let repo = job.join("repo");
        copy_dir(&kit, &repo);
        copy_dir(&class.join(who), &repo);
        for d in [&job, &repo] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir(job.join("tmp")).unwrap();
        let git = std::process::Command::new("sh")
            .arg("-c")
            .arg(
                "git init -q && git add -A && git -c user.name=s -c user.email=s@x commit -qm push",
            )
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(git.success());
        std::fs::write(job.join("output"), "").unwrap();
        super::support::in_podman(
            &job,
            "/job",
            "cd /job/repo && GITHUB_OUTPUT=/job/output RUNNER_TEMP=/job/tmp \
             bash --noprofile --norc -eo pipefail .puzzlegrade/grade.sh > /job/log 2>&1 || { cat /job/log; exit 1; }",
        );
        let outputs = std::fs::read_to_string(job.join("output")).unwrap();
        let runners = classroom_runners(&outputs);
        // Q1 to Q8, and the handout's examples (worth 0).
        assert_eq!(runners.len(), 9, "{outputs}");
        // The reporter's sum: each runner's tests' scores.
        let total: f64 = runners
            .iter()
            .map(|r| r["tests"][0]["score"].as_f64().unwrap())
            .sum();
        let most: f64 = runners
            .iter()
            .map(|r| r["max_score"].as_f64().unwrap())
            .sum();
        assert_eq!(most, 40.0);
        assert_eq!(
            harness::platform::classroom::reported(&workflow, &outputs).unwrap(),
            (total, most)
        );
        totals.push(format!("{who} {total}"));
        let log = std::fs::read_to_string(job.join("log")).unwrap();
        assert!(
            log.starts_with("Each case ran isolated from the others and from the grader (copies+uid+rlimits+cpus+landlock)."),
            "{log}"
        );
    }
    assert_eq!(totals, ["broken 0", "greedy 25", "noisy 37", "perfect 40"]);
}
