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
    let list = packages
        .iter()
        .map(|p| shell_words::quote(p).into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope's setup (puzzlegrade): the toolchains the course needs.\n\
         set -euo pipefail\n\
         cd \"$(dirname \"$0\")\"\n\
         packages=({list})\n\
         if [ ${{#packages[@]}} -gt 0 ] && ! dpkg -s \"${{packages[@]}}\" >/dev/null 2>&1; then\n\
         \x20 apt-get update -qq\n\
         \x20 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \"${{packages[@]}}\"\n\
         fi\n\
         chmod 755 harness run_autograder\n\
         [ ! -e harness-exec ] || chmod 755 harness-exec\n\
         # The bundled courses, adapters and suites, written out once here.\n\
         PUZZLEGRADE_CACHE=\"$PWD/cache\" ./harness courses >/dev/null\n"
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
