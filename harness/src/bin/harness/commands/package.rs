//! `harness package`: a platform's autograder kit for a course. Gradescope:
//! `autograder.zip` holding this harness (and `harness-exec` beside it),
//! `setup.sh` (the course's Debian packages, where missing) and
//! `run_autograder` (one submission graded where Gradescope puts it, its
//! `results.json` where Gradescope reads it). A bundled course travels in
//! the binary; another config travels with its folder.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use harness::course::Course;

use crate::cli::{PackageArgs, PlatformArg};

/// Writes the kit.
pub fn run(args: &PackageArgs) -> anyhow::Result<ExitCode> {
    let (course_arg, config, folder) = if args.course.is_file() {
        let bytes = std::fs::read(&args.course)
            .with_context(|| format!("cannot read {}", args.course.display()))?;
        match crate::bundled::name_of(&bytes) {
            Some(name) => (name, args.course.clone(), None),
            None => {
                let file = args.course.file_name().context("a course config file")?;
                let dir = args
                    .course
                    .canonicalize()?
                    .parent()
                    .context("the config's folder")?
                    .to_owned();
                (
                    format!("course/{}", file.to_string_lossy()),
                    args.course.clone(),
                    Some(dir),
                )
            }
        }
    } else {
        let path = crate::bundled::course(&args.course)?;
        (args.course.display().to_string(), path, None)
    };
    let course = Course::load(&config)?;
    match args.platform {
        PlatformArg::Gradescope => gradescope(args, &course, &course_arg, folder.as_deref()),
        PlatformArg::Autolab => autolab(args, &course, &course_arg, folder.as_deref()),
        PlatformArg::Prairielearn => prairielearn(args, &course, &course_arg, folder.as_deref()),
        PlatformArg::Gitlab => gitlab(args, &course, &course_arg, folder.as_deref()),
    }
}

/// The course's Debian packages, for people.
fn packages(course: &Course) -> String {
    if course.file.packages.is_empty() {
        "none".into()
    } else {
        course.file.packages.join(" ")
    }
}

/// This harness, `harness-exec` beside it, and a non-bundled course's
/// folder under `course/`: (name, bytes, mode).
fn payload(folder: Option<&Path>) -> anyhow::Result<Vec<(String, Vec<u8>, u32)>> {
    let exe = std::env::current_exe().context("cannot locate this harness")?;
    let mut files = vec![(
        "harness".to_string(),
        std::fs::read(&exe).with_context(|| format!("cannot read {}", exe.display()))?,
        0o755,
    )];
    let small = exe.with_file_name("harness-exec");
    if small.is_file() {
        files.push(("harness-exec".into(), std::fs::read(&small)?, 0o755));
    }
    if let Some(dir) = folder {
        for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let e = e?;
            if e.file_type().is_file() {
                let rel = e.path().strip_prefix(dir)?.to_string_lossy().into_owned();
                files.push((format!("course/{rel}"), std::fs::read(e.path())?, 0o644));
            }
        }
    }
    Ok(files)
}

/// Writes `files` under `dir`, each with its mode.
fn write_tree(dir: &Path, files: &[(String, Vec<u8>, u32)]) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for (name, bytes, mode) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        harness::export::write_atomically(&path, bytes)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode))?;
    }
    Ok(())
}

/// The `--course` argument a kit's script passes: a bundled course's
/// name, or the config inside the kit's copy of its folder.
fn course_in(course_arg: &str, folder: Option<&Path>, here: &str) -> String {
    if folder.is_some() {
        format!("\"{here}\"/{}", shell_words::quote(course_arg))
    } else {
        shell_words::quote(course_arg).into_owned()
    }
}

/// PrairieLearn's external grader: `serverFilesCourse/puzzlegrade/` (this
/// harness and `run`, the entrypoint) and `question-info.json`, the
/// question's `externalGradingOptions`. `run` grades `/grade/student` and
/// writes `/grade/results/results.json`; a setup error is written as not
/// gradable (the student keeps the attempt).
fn prairielearn(
    args: &PackageArgs,
    course: &Course,
    course_arg: &str,
    folder: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let course_path = course_in(course_arg, folder, "$here");
    let run = format!(
        "#!/bin/sh\n\
         # PrairieLearn's external grader runs this (puzzlegrade, course {course_arg}):\n\
         # grades /grade/student, writes /grade/results/results.json.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         bin=$here\n\
         if [ ! -x \"$bin/harness\" ]; then\n\
         \x20 # A course repository that lost the modes: run from a copy.\n\
         \x20 bin=$(mktemp -d) && cp \"$here\"/harness* \"$bin\" && chmod 755 \"$bin\"/harness*\n\
         fi\n\
         mkdir -p /grade/results\n\
         rm -f /grade/results/results.json\n\
         export PUZZLEGRADE_CACHE=\"${{TMPDIR:-/tmp}}/puzzlegrade-cache\"\n\
         \"$bin/harness\" grade --course {course_path} --submission /grade/student --id student \\\n\
         \x20   --prairielearn /grade/results/results.json --scorecard \"${{TMPDIR:-/tmp}}/puzzlegrade-rows.csv\" --force\n\
         status=$?\n\
         if [ ! -s /grade/results/results.json ]; then\n\
         \x20 printf '{{\"gradable\": false, \"message\": \"The autograder could not grade this submission (harness exit %s): tell your course staff.\"}}\\n' \"$status\" \\\n\
         \x20   > /grade/results/results.json\n\
         fi\n\
         exit 0\n"
    );
    let image = image_for(&course.file.packages);
    let info = serde_json::json!({
        "gradingMethod": "External",
        "singleVariant": true,
        "externalGradingOptions": {
            "enabled": true,
            "image": image,
            "serverFilesCourse": ["puzzlegrade/"],
            "entrypoint": "/grade/serverFilesCourse/puzzlegrade/run",
            "timeout": 600
        }
    });
    let mut files: Vec<(String, Vec<u8>, u32)> = payload(folder)?
        .into_iter()
        .map(|(name, bytes, mode)| (format!("serverFilesCourse/puzzlegrade/{name}"), bytes, mode))
        .collect();
    files.push((
        "serverFilesCourse/puzzlegrade/run".into(),
        run.into_bytes(),
        0o755,
    ));
    let mut info = serde_json::to_vec_pretty(&info)?;
    info.push(b'\n');
    files.push(("question-info.json".into(), info, 0o644));
    write_tree(&args.out, &files)?;
    println!(
        "wrote {}/serverFilesCourse/puzzlegrade and question-info.json (course {course_arg}; image {image}, which must hold: {})",
        args.out.display(),
        packages(course)
    );
    Ok(ExitCode::SUCCESS)
}

/// A PrairieLearn grader image holding the course's packages, where one
/// of PrairieLearn's own does (else Ubuntu's, to be built upon).
fn image_for(packages: &[String]) -> &'static str {
    let has = |p: &str| packages.iter().any(|x| x.starts_with(p));
    if has("openjdk") {
        "prairielearn/grader-java"
    } else if has("gcc") || has("valgrind") {
        "prairielearn/grader-c"
    } else if packages.iter().all(|p| p == "python3") {
        "prairielearn/grader-python"
    } else {
        "ubuntu:24.04"
    }
}

/// GitLab CI (LabTS-style), shell executor: `.gitlab-ci.yml` (a job that
/// grades the pushed commit, publishes JUnit as GitLab's test report and
/// the score as the job's coverage) and `runner/` (this harness and
/// `install.sh`, run once as root on the runner's host).
fn gitlab(
    args: &PackageArgs,
    course: &Course,
    course_arg: &str,
    folder: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let course_path = course_in(course_arg, folder, "$PUZZLEGRADE_HOME");
    let grade = format!(
        "\"$PUZZLEGRADE_HOME/harness\" grade --course {course_path} --submission .puzzlegrade/submission --id \"$CI_PROJECT_NAME\" --scorecard .puzzlegrade/rows.csv --summary .puzzlegrade/summary.csv --export junit:.puzzlegrade/junit.xml --sandbox \"$sandbox\" --force || test $? -eq 1"
    );
    let yaml = format!(
        "# puzzlegrade (course {course_arg}): grades each push. The runner (shell\n\
         # executor, tag puzzlegrade) has puzzlegrade installed by runner/install.sh.\n\
         # The score is the job's coverage; each case is a test in the test report.\n\
         puzzlegrade:\n\
         \x20 stage: test\n\
         \x20 tags: [puzzlegrade]\n\
         \x20 variables:\n\
         \x20   PUZZLEGRADE_HOME: /opt/puzzlegrade\n\
         \x20 script:\n\
         \x20   - rm -rf .puzzlegrade && mkdir -p .puzzlegrade/submission\n\
         \x20   # The commit's files, as pushed: nothing untracked, no .git.\n\
         \x20   - git archive --format=tar HEAD | tar xf - -C .puzzlegrade/submission\n\
         \x20   - export PUZZLEGRADE_CACHE=\"$PUZZLEGRADE_HOME/cache\"\n\
         \x20   # Not root: each case under bubblewrap, or no grading at all.\n\
         \x20   - sandbox=auto; [ \"$(id -u)\" -eq 0 ] || sandbox=bwrap\n\
         \x20   - {}\n\
         \x20 coverage: '/^score: \\S+ \\/ \\S+ points \\((\\d+(?:\\.\\d+)?)%\\)$/'\n\
         \x20 artifacts:\n\
         \x20   when: always\n\
         \x20   paths: [.puzzlegrade/summary.csv, .puzzlegrade/rows.csv]\n\
         \x20   reports:\n\
         \x20     junit: .puzzlegrade/junit.xml\n",
        yaml_quote(&grade)
    );
    let install = format!(
        "#!/bin/sh\n\
         # Installs puzzlegrade on a GitLab runner's host (run once, as root):\n\
         # the harness into $PREFIX (default /opt/puzzlegrade), its bundled courses\n\
         # written out, and the Debian packages course {course_arg} needs (and\n\
         # bubblewrap, which isolates the cases of a job that is not root).\n\
         set -eu\n\
         cd \"$(dirname \"$0\")\"\n\
         prefix=${{PREFIX:-/opt/puzzlegrade}}\n\
         {}\
         mkdir -p \"$prefix\"\n\
         cp -R . \"$prefix\"/\n\
         rm -f \"$prefix/install.sh\"\n\
         chmod -R a+rX \"$prefix\"\n\
         PUZZLEGRADE_CACHE=\"$prefix/cache\" \"$prefix/harness\" courses >/dev/null\n\
         echo \"puzzlegrade installed in $prefix\"\n",
        apt_install(
            course
                .file
                .packages
                .iter()
                .map(String::as_str)
                .chain(["bubblewrap"])
        )
    );
    let mut files: Vec<(String, Vec<u8>, u32)> = payload(folder)?
        .into_iter()
        .map(|(name, bytes, mode)| (format!("runner/{name}"), bytes, mode))
        .collect();
    files.push(("runner/install.sh".into(), install.into_bytes(), 0o755));
    files.push((".gitlab-ci.yml".into(), yaml.into_bytes(), 0o644));
    write_tree(&args.out, &files)?;
    println!(
        "wrote {0}/.gitlab-ci.yml and {0}/runner (course {course_arg}; packages the runner needs: {1})",
        args.out.display(),
        packages(course)
    );
    Ok(ExitCode::SUCCESS)
}

/// `s` as a single-quoted YAML scalar.
fn yaml_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Autolab (Tango): `autograde-Makefile` and `autograde.tar` in the folder
/// `--out`. Tango runs `make` beside the handin and the tar; the last line
/// printed is Autolab's `{"scores": {...}}`, keyed by rubric item (name the
/// assessment's problems so).
fn autolab(
    args: &PackageArgs,
    course: &Course,
    course_arg: &str,
    folder: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let handin = shell_words::quote(&args.handin).into_owned();
    let course_path = if folder.is_some() {
        format!("\"$here\"/{}", shell_words::quote(course_arg))
    } else {
        shell_words::quote(course_arg).into_owned()
    };
    let run = format!(
        "#!/bin/sh\n\
         # Autolab's autograder (puzzlegrade): grades the handin in the current\n\
         # folder and prints Autolab's scores as the last line.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         work=$(pwd)\n\
         rm -rf \"$work/submission\" \"$work/scores.json\"\n\
         mkdir -p \"$work/submission\"\n\
         case \"$1\" in\n\
         \x20 *.tar|*.tar.gz|*.tgz) tar xf \"$1\" -C \"$work/submission\" ;;\n\
         \x20 *) cp \"$1\" \"$work/submission/\" ;;\n\
         esac\n\
         # A handin of one folder is graded from inside it.\n\
         set -- \"$work/submission\"/*\n\
         if [ $# -eq 1 ] && [ -d \"$1\" ]; then sub=$1; else sub=$work/submission; fi\n\
         PUZZLEGRADE_CACHE=\"$here/cache\" \"$here/harness\" grade --course {course_path} --submission \"$sub\" \\\n\
         \x20   --id handin --autolab \"$work/scores.json\" --scorecard \"$work/rows.csv\" --force >&2\n\
         status=$?\n\
         if [ -s \"$work/scores.json\" ]; then cat \"$work/scores.json\"; else\n\
         \x20 echo \"{{\\\"scores\\\": {{}}, \\\"error\\\": \\\"harness exit $status: tell your course staff\\\"}}\"\n\
         fi\n"
    );
    let makefile = format!(
        "# Autolab (Tango) runs `make` here, beside the handin and autograde.tar\n\
         # (puzzlegrade, course {course_arg}); the last line printed is the JSON\n\
         # Autolab reads.\n\
         all:\n\
         \ttar xf autograde.tar\n\
         \tsh autograde/run {handin}\n"
    );
    let mut files = payload(folder)?;
    files.push(("run".into(), run.into_bytes(), 0o755));
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut tar = tar::Builder::new(Vec::new());
    for (name, bytes, mode) in &files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(*mode);
        header.set_cksum();
        tar.append_data(&mut header, format!("autograde/{name}"), bytes.as_slice())?;
    }
    harness::export::write_atomically(&args.out.join("autograde.tar"), &tar.into_inner()?)?;
    harness::export::write_atomically(&args.out.join("autograde-Makefile"), makefile.as_bytes())?;
    if course.file.contest.is_some() {
        // The live contest's columns, for the assessment's Scoreboard
        // setting.
        let spec = format!("{}\n", harness::course::contest::AUTOLAB_SCOREBOARD);
        harness::export::write_atomically(&args.out.join("scoreboard.json"), spec.as_bytes())?;
        println!(
            "wrote {}/scoreboard.json: paste it into the assessment's Scoreboard setting",
            args.out.display()
        );
    }
    println!(
        "wrote {}/autograde-Makefile and autograde.tar (course {course_arg}; handin {}; packages the image needs: {})",
        args.out.display(),
        args.handin,
        packages(course)
    );
    Ok(ExitCode::SUCCESS)
}

fn gradescope(
    args: &PackageArgs,
    course: &Course,
    course_arg: &str,
    folder: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let mut files: Vec<(String, Vec<u8>, u32)> = vec![
        (
            "setup.sh".into(),
            setup(&course.file.packages).into_bytes(),
            0o755,
        ),
        (
            "run_autograder".into(),
            run_autograder(course_arg).into_bytes(),
            0o755,
        ),
    ];
    files.extend(payload(folder)?);
    write_zip(&args.out, &files)?;
    println!(
        "wrote {} (setup.sh, run_autograder, harness; course {course_arg}; packages: {})",
        args.out.display(),
        packages(course)
    );
    Ok(ExitCode::SUCCESS)
}

/// Gradescope's `setup.sh`, run once in `/autograder/source` where the zip
/// is unpacked: the course's packages (only where one is missing: nothing
/// from the network otherwise).
fn setup(packages: &[String]) -> String {
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope's setup (puzzlegrade): the toolchains the course needs.\n\
         set -euo pipefail\n\
         cd \"$(dirname \"$0\")\"\n\
         {}\
         chmod 755 harness run_autograder\n\
         [ ! -e harness-exec ] || chmod 755 harness-exec\n\
         # The bundled courses, adapters and suites, written out once here.\n\
         PUZZLEGRADE_CACHE=\"$PWD/cache\" ./harness courses >/dev/null\n",
        apt_install(packages.iter().map(String::as_str))
    )
}

/// The lines of a kit's script that install Debian `packages` with
/// apt-get, only where one is missing (nothing from the network
/// otherwise); POSIX sh, for bash too.
fn apt_install<'a>(packages: impl Iterator<Item = &'a str>) -> String {
    let list: Vec<&str> = packages.collect();
    format!(
        "packages={}\n\
         if [ -n \"$packages\" ] && ! dpkg -s $packages >/dev/null 2>&1; then\n\
         \x20 apt-get update -qq\n\
         \x20 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages\n\
         fi\n",
        shell_words::quote(&list.join(" "))
    )
}

/// Gradescope's `run_autograder`, run as `/autograder/run_autograder` for
/// each submission: `results.json` always written (a setup error is said
/// to the student as such, at 0 points, rather than Gradescope's bare
/// failure).
fn run_autograder(course: &str) -> String {
    let course = shell_words::quote(course);
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope runs this for each submission (puzzlegrade).\n\
         set -uo pipefail\n\
         src=/autograder/source\n\
         cd \"$src\"\n\
         export PUZZLEGRADE_CACHE=\"$src/cache\"\n\
         mkdir -p /autograder/results\n\
         rm -f /autograder/results/results.json\n\
         \"$src/harness\" grade --course {course} --submission /autograder/submission --id submission \\\n\
         \x20   --results /autograder/results/results.json --scorecard /autograder/results/rows.csv --force\n\
         status=$?\n\
         if [ ! -s /autograder/results/results.json ]; then\n\
         \x20 printf '{{\"score\": 0, \"output\": \"The autograder could not grade this submission (harness exit %s): tell your course staff.\"}}\\n' \"$status\" \\\n\
         \x20   > /autograder/results/results.json\n\
         fi\n\
         exit 0\n"
    )
}

/// A zip of `files` (name, bytes, Unix mode), written atomically.
fn write_zip(path: &Path, files: &[(String, Vec<u8>, u32)]) -> anyhow::Result<()> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buf);
        for (name, bytes, mode) in files {
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .compression_level(Some(1))
                .unix_permissions(*mode);
            zip.start_file(name.as_str(), opts)?;
            zip.write_all(bytes)?;
        }
        zip.finish()?;
    }
    if path.as_os_str().is_empty() {
        bail!("no --out");
    }
    harness::export::write_atomically(path, &buf.into_inner())
}
