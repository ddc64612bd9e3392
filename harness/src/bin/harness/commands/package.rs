//! `harness package PLATFORM`: the platform's autograder kit for a course,
//! from the platform table (`harness::platform`). A bundled course travels
//! in the binary; another config travels with its folder.

use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::platform::Tree;
use harness::platform::{self, Kit};

use crate::cli::PackageArgs;

/// Writes the kit.
pub fn run(args: &PackageArgs) -> anyhow::Result<ExitCode> {
    let platform = platform::find(&args.platform).context("no such platform")?;
    let (bundled, config) = course(&args.course)?;
    let course = Course::load(&config)?;
    // A course of one's own travels with its folder and what it names.
    let (course_arg, tree) = match bundled {
        Some(name) => (name, None),
        None => {
            let tree = Tree::of(&course)?;
            for line in tree.said() {
                eprintln!("{line}");
            }
            (format!("course/{}", tree.config.display()), Some(tree))
        }
    };
    let kit = Kit {
        course: &course,
        course_arg,
        tree,
        exe: shipped(args)?,
        handin: args.handin.clone(),
        out: args.out.clone(),
        shipped: Default::default(),
        linked: Default::default(),
        worst: Some(worst(&course)?),
    };
    for line in platform::package(platform, &kit, &args.out, args.untried)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// One submission's worst case: its cases as a class run plans them.
fn worst(course: &Course) -> anyhow::Result<platform::limits::Worst> {
    use harness::class::PartPlan;
    let work = tempfile::tempdir()?;
    let plan = harness::class::Plan::new(course, work.path(), None)?;
    // (A problem package's cases carry their own time limit.)
    let own: Vec<_> = plan
        .parts
        .iter()
        .flat_map(|p| match p {
            PartPlan::Cases(cases) => cases.iter().map(|c| c.own.time).collect(),
            PartPlan::Battery { probes, .. } => vec![None; probes.len()],
        })
        .collect();
    Ok(platform::limits::Worst::of(course, &own))
}

/// The harness the kit ships: `--binaries DIR`'s, else this one, or the
/// static build `scripts/release` left beside it (said on stderr).
fn shipped(args: &PackageArgs) -> anyhow::Result<std::path::PathBuf> {
    if let Some(dir) = &args.binaries {
        return Ok(dir.join("harness"));
    }
    let me = std::env::current_exe().context("cannot locate this harness")?;
    Ok(match platform::binary::static_build_beside(&me) {
        Some(dist) => {
            eprintln!(
                "shipping the static build {} (scripts/release's) instead of this harness",
                dist.display()
            );
            dist
        }
        None => me,
    })
}

/// What `--course` names: a bundled course's name (`None`: a config of
/// one's own), and the config to load.
fn course(arg: &std::path::Path) -> anyhow::Result<(Option<String>, std::path::PathBuf)> {
    if !arg.is_file() {
        let path = crate::bundled::course(arg)?;
        return Ok((Some(arg.display().to_string()), path));
    }
    let bytes = std::fs::read(arg).with_context(|| format!("cannot read {}", arg.display()))?;
    Ok((crate::bundled::name_of(&bytes), arg.to_owned()))
}
