//! The platforms a course grades on (Gradescope, Autolab, PrairieLearn,
//! GitLab CI, GitHub Classroom), behind one trait and listed in one table, as the export
//! formats are: each platform is one file here saying what its kit holds
//! ([`Platform::kit`]) and how one submission's results read there
//! ([`Platform::results`]). `harness package` and the results flags of
//! `harness grade` go through [`PLATFORMS`]; a new platform is one file and
//! one line.

mod autolab;
pub mod binary;
pub mod classroom;
mod feedback;
mod gitlab;
mod gradescope;
mod kit;
pub mod limits;
mod prairielearn;
#[cfg(test)]
mod toy;
pub mod trial;

use std::path::{Path, PathBuf};

/// Replays of a class's wrong answers by (submission, suite, case), for
/// a platform to draw beside a failed test (made by `class::replays`).
pub type Replays = std::collections::BTreeMap<(String, String, String), reference::replay::Replay>;

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
    &classroom::Classroom,
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

    /// Its limit on one grading job, where it has one.
    fn timeout(&self) -> Option<limits::Timeout> {
        None
    }

    /// How `harness package` tries `kit`'s files, written at `written` (a
    /// zip or a folder), before anyone gets them: the platform's folders
    /// laid out under `root`, `sample` in a student's place, and its
    /// steps ([`trial::Trial`]). `None`: a kit that cannot be tried.
    fn trial(
        &self,
        _kit: &Kit,
        _written: &Path,
        _sample: &Path,
        _root: &Path,
    ) -> anyhow::Result<Option<trial::Trial>> {
        Ok(None)
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
    pub replays: &'a Replays,
    /// How long the run took, where it graded this submission alone.
    pub elapsed: Option<std::time::Duration>,
}

/// Why `row` failed, for a student: what went wrong in the course's
/// words (no verdict names), then the judge's detail in its terms.
pub fn said_to_students(course: &Course, row: &Row) -> String {
    feedback::said(course, row)
}

/// `verdict` as a student is told it: in the course's words, or ours.
pub fn verdict_to_students(course: &Course, verdict: crate::outcome::Verdict) -> String {
    feedback::word(course, verdict).to_string()
}

/// The platform called `name`.
pub fn find(name: &str) -> Option<&'static dyn Platform> {
    PLATFORMS.iter().copied().find(|p| p.name() == name)
}

/// Every platform's name, in table order.
pub fn names() -> Vec<&'static str> {
    PLATFORMS.iter().map(|p| p.name()).collect()
}

/// `platform`'s kit for `kit`, tried on the course's sample where it
/// names one (unless `untried`) and then written at `out`; what to tell
/// the staff. A kit whose trial fails is an error, and nothing is written.
pub fn package(
    platform: &dyn Platform,
    kit: &Kit,
    out: &Path,
    untried: bool,
) -> anyhow::Result<Vec<String>> {
    kit::writable(out)?;
    let package = platform.kit(kit)?;
    let tried = match kit.course.sample() {
        Some(sample) if !untried => {
            let t = trial::run(platform, kit, &package, &sample)?;
            format!(
                "tried: the course's sample {} got {} / {} points through the kit in {}, {}",
                sample.display(),
                crate::course::rubric::show(t.points),
                crate::course::rubric::show(t.max),
                limits::show(t.took),
                t.how
            )
        }
        Some(_) => "warning: the kit was not tried (--untried)".to_string(),
        None => format!(
            "warning: the kit was not tried: {} names no sample submission (sample = \"FOLDER\", one that earns every point)",
            kit.course.path.display()
        ),
    };
    kit::write(&package, out)?;
    let mut said = package.said;
    said.push(tried);
    if let (Some(timeout), Some(worst)) = (platform.timeout(), &kit.worst) {
        said.extend(limits::check(&timeout, worst).1);
    }
    let bytes: u64 = match package.form {
        Form::Zip => std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
        Form::Folder => package.files.iter().map(|f| f.bytes.len() as u64).sum(),
    };
    said.push(format!(
        "the kit: {} files, {:.1} MB{}",
        package.files.len(),
        bytes as f64 / 1e6,
        if package.form == Form::Zip {
            " zipped"
        } else {
            ""
        }
    ));
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
    replays: &Replays,
) -> anyhow::Result<()> {
    for p in points {
        let folder: PathBuf = dir.join(crate::export::safe_name(&p.submission));
        let graded = Graded {
            course,
            points: p,
            rows,
            replays,
            elapsed: None,
        };
        write_results(platform, &folder.join("results.json"), &graded)?;
    }
    Ok(())
}
