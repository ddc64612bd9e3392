//! What a class run writes once its rows are in: each submission's points
//! by the rubric (with the contest's credit and, for one submission that
//! enters the course's contest, its live entry), `summary.csv`, the points
//! added to a JSON export, and each platform's results (one submission's
//! file, or a folder of them for a class).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ClassResult;
use crate::course::Course;
use crate::course::contest::Credit;
use crate::course::points::{self, Points};
use crate::platform::{self, Graded, Platform};

/// Where a platform's results go.
pub struct Results {
    /// The platform.
    pub platform: &'static dyn Platform,
    /// The file (one submission's), or the folder (`DIR/<id>/results.json`).
    pub path: PathBuf,
    /// Whether `path` is a folder of every submission's results.
    pub folder: bool,
}

impl Results {
    /// `--results [PLATFORM:]FILE` for one submission: a platform's name
    /// before the colon, else Gradescope's (the flag's first meaning).
    pub fn parse(arg: &str) -> anyhow::Result<Self> {
        let (platform, path) = match arg.split_once(':') {
            Some((name, path)) if platform::find(name).is_some() => {
                (platform::find(name).expect("found"), path)
            }
            _ => (platform::find("gradescope").expect("in the table"), arg),
        };
        Self::file(platform, Path::new(path))
    }

    /// One submission's results file for `platform` at `path`.
    pub fn file(platform: &'static dyn Platform, path: &Path) -> anyhow::Result<Self> {
        if platform.results().is_none() {
            anyhow::bail!(
                "{} has no results file (see docs/platforms.md)",
                platform.name()
            );
        }
        Ok(Self {
            platform,
            path: path.to_owned(),
            folder: false,
        })
    }

    /// `--export gradescope:PATH`: a file's name (`.json`) is one
    /// submission's results exactly there, and a class's error (its results
    /// are a folder of them); any other path is that folder.
    pub fn export(path: &Path, class: bool) -> anyhow::Result<Self> {
        let platform = platform::find("gradescope").expect("in the table");
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if json && class {
            anyhow::bail!(
                "--export gradescope:{} names a file, but a class's Gradescope results are a folder (DIR/<id>/results.json): name a folder, or grade one --submission",
                path.display()
            );
        }
        Ok(Self {
            platform,
            path: path.to_owned(),
            folder: !json,
        })
    }
}

/// What to write after a class run.
#[derive(Default)]
pub struct Outputs {
    /// `summary.csv`.
    pub summary: Option<PathBuf>,
    /// JSON exports the points are added to.
    pub json: Vec<PathBuf>,
    /// Platforms' results.
    pub results: Vec<Results>,
    /// The contest's extra credit, by submission.
    pub credits: Option<BTreeMap<String, Credit>>,
    /// One submission's folder, where its contest entry file is read.
    pub entry_of: Option<PathBuf>,
    /// `--student-view`: the points as students see them (no case of an
    /// item that is not `visible` counted anywhere, its points kept).
    pub student_view: bool,
}

/// Each submission's points from `result`, and every output written.
pub fn write(course: &Course, result: &ClassResult, out: &Outputs) -> anyhow::Result<Vec<Points>> {
    let mut points = points::points(
        course,
        &result.ids,
        &result.keys,
        &result.rows,
        &result.handins,
        out.credits.as_ref(),
    );
    // One submission that enters the course's contest: its live entry
    // for the platform's leaderboard.
    if let (Some(dir), Some(contest), Some(part), [one]) = (
        &out.entry_of,
        &course.file.contest,
        course.solver_part(),
        points.as_mut_slice(),
    ) && let Some(Ok(team)) = crate::course::contest::team(dir, &contest.entry_file)
    {
        let part = &course.parts[part].file.name;
        one.entry = Some(crate::course::contest::Live::of(&team, part, &result.rows));
    }
    if out.student_view {
        points::for_students(course, &mut points, &result.rows);
    }
    if let Some(path) = &out.summary {
        points::write_summary(path, course, &points, out.student_view)?;
    }
    for path in &out.json {
        points::add_to_json_export(path, &points)?;
    }
    for r in &out.results {
        match points.as_slice() {
            [one] if !r.folder => {
                let graded = Graded {
                    course,
                    points: one,
                    rows: &result.rows,
                    replays: &result.replays,
                    elapsed: Some(result.summary.elapsed),
                };
                platform::write_results(r.platform, &r.path, &graded)?;
            }
            _ if r.folder => {
                platform::write_class(
                    r.platform,
                    &r.path,
                    course,
                    &points,
                    &result.rows,
                    &result.replays,
                )?;
            }
            _ => {}
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_name_their_platform_or_are_gradescope_s() {
        let r = Results::parse("autolab:out/scores.json").unwrap();
        assert_eq!(
            (r.platform.name(), r.path.as_path()),
            ("autolab", Path::new("out/scores.json"))
        );
        let r = Results::parse("odd:name/results.json").unwrap();
        assert_eq!(
            (r.platform.name(), r.path.as_path()),
            ("gradescope", Path::new("odd:name/results.json")),
            "no platform before the colon: the whole is Gradescope's file"
        );
        assert_eq!(
            Results::parse("gitlab:x.txt").err().unwrap().to_string(),
            "gitlab has no results file (see docs/platforms.md)"
        );
        assert!(
            !Results::export(Path::new("out"), true)
                .unwrap()
                .path
                .as_os_str()
                .is_empty()
        );
        assert!(Results::export(Path::new("out"), true).unwrap().folder);
        assert!(
            !Results::export(Path::new("one.json"), false)
                .unwrap()
                .folder
        );
        assert!(
            Results::export(Path::new("one.json"), true).is_err(),
            "a class's results are a folder"
        );
    }
}
