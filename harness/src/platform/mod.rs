//! The platforms a course grades on (Gradescope, Autolab, PrairieLearn,
//! GitLab CI), behind one trait and listed in one table, as the export
//! formats are: each platform is one file here saying what its kit holds
//! ([`Platform::kit`]) and how one submission's results read there
//! ([`Platform::results`]). `harness package` and the results flags of
//! `harness grade` go through [`PLATFORMS`]; a new platform is one file and
//! one line.

mod autolab;
pub mod binary;
mod feedback;
mod gitlab;
mod gradescope;
mod kit;
mod prairielearn;
#[cfg(test)]
mod toy;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

pub use kit::{File, Form, Kit, Package, Tree};

use crate::course::Course;
use crate::course::points::Points;
use crate::outcome::Row;

/// Every platform, one line each.
pub const PLATFORMS: &[&dyn Platform] = &[
    &gradescope::Gradescope,
    &autolab::Autolab,
    &prairielearn::PrairieLearn,
    &gitlab::GitLab,
    #[cfg(test)]
    &toy::Toy,
];

/// A platform: its kit, and one submission's results as it reads them.
pub trait Platform: Sync {
    /// Its name on the command line (`gradescope`).
    fn name(&self) -> &'static str;

    /// What its kit is, for `harness package --help`.
    fn about(&self) -> &'static str;

    /// The kit for `kit`'s course: its files and what to tell the staff.
    fn kit(&self, kit: &Kit) -> anyhow::Result<Package>;

    /// How it wants one submission's results file written (`None`: it
    /// reads none, only the run's own outputs).
    fn results(&self) -> Option<Results> {
        None
    }

    /// The results file of a submission no score can be given for
    /// (`why`: a case the grader failed on), as the platform shows a
    /// grader's failure, never as a 0. `None`: the platform takes a
    /// missing file so (the job fails, visibly to the staff).
    fn ungradable(&self, _why: &str) -> Option<anyhow::Result<Vec<u8>>> {
        None
    }
}

/// Writes one submission's results file as a platform reads it.
pub type Results = fn(&Graded) -> anyhow::Result<Vec<u8>>;

/// One submission graded: what a platform's results are made from.
pub struct Graded<'a> {
    /// The course.
    pub course: &'a Course,
    /// The submission's points.
    pub points: &'a Points,
    /// The class's rows (the submission's among them).
    pub rows: &'a [Row],
    /// Replays of wrong answers, where the run kept them.
    pub replays: &'a crate::class::Replays,
}

/// The platform called `name`.
pub fn find(name: &str) -> Option<&'static dyn Platform> {
    PLATFORMS.iter().copied().find(|p| p.name() == name)
}

/// Every platform's name, in table order.
pub fn names() -> Vec<&'static str> {
    PLATFORMS.iter().map(|p| p.name()).collect()
}

/// `platform`'s kit for `kit`, written at `out`; what to tell the staff.
pub fn package(platform: &dyn Platform, kit: &Kit, out: &Path) -> anyhow::Result<Vec<String>> {
    let package = platform.kit(kit)?;
    kit::write(&package, out)?;
    let mut said = package.said;
    let shipped = kit.shipped.get();
    if shipped > 0 {
        said.push(match kit.linked.get() {
            Some(binary::Linking::Static) => format!(
                "the harness shipped: {:.1} MB, static (runs on any platform image)",
                shipped as f64 / 1e6
            ),
            linked => format!(
                "the harness shipped: {:.1} MB{} (scripts/release makes a small static one: --binaries target/dist)",
                shipped as f64 / 1e6,
                linked.map(|l| format!(", {l}")).unwrap_or_default()
            ),
        });
    }
    Ok(said)
}

/// One submission's results for `platform`, written at exactly `path`
/// (its folder made where missing).
pub fn write_results(platform: &dyn Platform, path: &Path, graded: &Graded) -> anyhow::Result<()> {
    let results = platform
        .results()
        .with_context(|| format!("{} has no results file", platform.name()))?;
    let bytes = match &graded.points.ungraded {
        None => results(graded)?,
        Some(why) => match platform.ungradable(why) {
            Some(bytes) => bytes?,
            None => {
                // No file at all (not even a stale one): no score.
                match std::fs::remove_file(path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(e).with_context(|| format!("cannot remove {}", path.display()));
                    }
                    _ => return Ok(()),
                }
            }
        },
    };
    if let Some(parent) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    crate::export::write_atomically(path, &bytes)
}

/// Every submission's results for `platform` in a folder of them:
/// `DIR/<id>/results.json`.
pub fn write_class(
    platform: &dyn Platform,
    dir: &Path,
    course: &Course,
    points: &[Points],
    rows: &[Row],
    replays: &crate::class::Replays,
) -> anyhow::Result<()> {
    for p in points {
        let folder: PathBuf = dir.join(crate::export::safe_name(&p.submission));
        let graded = Graded {
            course,
            points: p,
            rows,
            replays,
        };
        write_results(platform, &folder.join("results.json"), &graded)?;
    }
    Ok(())
}
