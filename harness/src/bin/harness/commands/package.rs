//! `harness package PLATFORM`: the platform's autograder kit for a course,
//! from the platform table (`harness::platform`). A bundled course travels
//! in the binary; another config travels with its folder.

use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::platform::{self, Kit};

use crate::cli::PackageArgs;

/// Writes the kit.
pub fn run(args: &PackageArgs) -> anyhow::Result<ExitCode> {
    let platform = platform::find(&args.platform).context("no such platform")?;
    let (course_arg, config, folder) = course(&args.course)?;
    let course = Course::load(&config)?;
    let kit = Kit {
        course: &course,
        course_arg,
        folder,
        exe: std::env::current_exe().context("cannot locate this harness")?,
        handin: args.handin.clone(),
        out: args.out.clone(),
    };
    for line in platform::package(platform, &kit, &args.out)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--course` names: the argument the kit's scripts pass, the config
/// to load, and the folder to ship with it (a course that is not bundled).
fn course(
    arg: &std::path::Path,
) -> anyhow::Result<(String, std::path::PathBuf, Option<std::path::PathBuf>)> {
    if !arg.is_file() {
        let path = crate::bundled::course(arg)?;
        return Ok((arg.display().to_string(), path, None));
    }
    let bytes = std::fs::read(arg).with_context(|| format!("cannot read {}", arg.display()))?;
    if let Some(name) = crate::bundled::name_of(&bytes) {
        return Ok((name, arg.to_owned(), None));
    }
    let file = arg.file_name().context("a course config file")?;
    let dir = arg
        .canonicalize()?
        .parent()
        .context("the config's folder")?
        .to_owned();
    Ok((
        format!("course/{}", file.to_string_lossy()),
        arg.to_owned(),
        Some(dir),
    ))
}
