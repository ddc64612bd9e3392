//! Replays of a class's wrong answers, made at the end of the run while
//! the cases' files are still there (a converted suite's copies go with
//! the run's scratch folder), from the outputs `--keep-output` kept: what a
//! platform draws beside a failed test (PrairieLearn's images).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::plan::{PartPlan, Plan};
use crate::course::Course;
use crate::outcome::{Row, Verdict};

pub use crate::platform::Replays;

/// The most replays kept for one submission.
pub const PER_SUBMISSION: usize = 3;

/// The replays of `rows`' wrong answers that have moves to show (an exit
/// status alone has none), the first [`PER_SUBMISSION`] of each
/// submission by suite and case, from the outputs kept in `outputs`.
pub(super) fn of(course: &Course, plan: &Plan, rows: &[Row], outputs: &Path) -> Replays {
    let mut files: BTreeMap<(String, &str), &[PathBuf]> = BTreeMap::new();
    for (part, plan) in course.parts.iter().zip(&plan.parts) {
        if let PartPlan::Cases(cases) = plan {
            for c in cases {
                if let Ok(f) = &c.files {
                    files.insert((format!("{}/{}", part.file.name, c.suite), &c.name), f);
                }
            }
        }
    }
    let mut wrong: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::WrongAnswer | Verdict::WrongExitStatus))
        .collect();
    wrong.sort_by_key(|r| r.key());
    let mut out = Replays::new();
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for r in wrong {
        let n = per.entry(&r.candidate).or_default();
        if *n >= PER_SUBMISSION {
            continue;
        }
        let Some(files) = files.get(&(r.suite.clone(), r.case.as_str())) else {
            continue;
        };
        let (stdout, _) = crate::grade::output_files(outputs, &r.candidate, &r.suite, &r.case);
        let Ok(stdout) = std::fs::read(stdout) else {
            continue;
        };
        let family = reference::families::family(&r.family);
        if let Some(rep) = family.and_then(|f| f.replay(files, &stdout))
            && rep.frames.len() > 1
        {
            *n += 1;
            out.insert(r.key(), rep);
        }
    }
    out
}
