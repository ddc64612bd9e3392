//! What a built submission runs: its candidate for each part of the
//! course, then the part's jobs (its cases, or its battery's probes), or
//! the part's rows where the copy lacks a file the part requires.

use std::path::Path;
use std::sync::Arc;

use super::plan::{PartPlan, Plan};
use crate::course::{Course, Paths, fill_command};
use crate::job::{Candidate, Job, Task};
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// What of the files a part requires a built copy lacks (`None`: none).
pub(super) type Lacks<'a> = dyn Fn(&Path, &[String]) -> Option<String> + 'a;

/// The candidate of the submission built by `job` (its build's `row`) for
/// `part` of the course (its command filled in with the built copy), or
/// why there is none (`lacks`: what the copy lacks of the part's files).
pub(super) fn candidate(
    course: &Course,
    part: usize,
    job: &Job,
    row: Option<&Row>,
    lacks: &Lacks<'_>,
) -> Result<Candidate, String> {
    let part = &course.parts[part].file;
    match (row, super::built_dir(job)) {
        (Some(r), Some(dir)) if r.verdict == Verdict::Accepted => match lacks(dir, &part.require) {
            Some(why) => Err(why),
            None => Ok(Candidate::Command {
                argv: fill_command(&part.command, dir, course.dir()),
                workdir: dir.to_owned(),
                relative: part.paths == Paths::Relative,
                copy: true,
                network: part.network,
                ipc: part.ipc,
            }),
        },
        (Some(r), _) => Err(format!("{}: {}", r.verdict, r.detail)),
        (None, _) => Err("not built: the run was stopped".into()),
    }
}

/// The jobs of submission `id`, built (`per_part`: its candidate for each
/// part, in order), a part at a time; and, for each part it cannot run
/// (the copy lacks a file the part requires), that part's rows, each
/// `compile-error` saying so (nothing runs). Only what `todo` lets.
pub(super) fn of_submission(
    ctx: &Context,
    course: &Course,
    plan: &Plan,
    keys: &[(String, String)],
    id: &str,
    per_part: &[Result<Candidate, String>],
    todo: &dyn Fn(&str, &str, &str) -> bool,
) -> (Vec<Job>, Vec<Row>) {
    let (mut jobs, mut rows) = (Vec::new(), Vec::new());
    for ((part, part_plan), candidate) in course.parts.iter().zip(&plan.parts).zip(per_part) {
        let name = &part.file.name;
        let candidate = match candidate {
            Ok(c) => Arc::new(c.clone()),
            Err(why) => {
                let prefix = format!("{name}/");
                for (suite, case) in keys.iter().filter(|(s, _)| s.starts_with(&prefix)) {
                    if todo(id, suite, case) {
                        let mut row = Row::new(id, course.family.name(), suite, case);
                        row.isolation = ctx.executor.label();
                        row.verdict = Verdict::CompileError;
                        row.detail = why.clone();
                        rows.push(row);
                    }
                }
                continue;
            }
        };
        match part_plan {
            PartPlan::Cases(cases) => {
                for c in cases {
                    let mut job = Job::puzzle(id, &candidate, c);
                    job.suite = format!("{name}/{}", c.suite);
                    jobs.push(job);
                }
            }
            PartPlan::Battery { probes, role } => {
                let family = course.family.name();
                let suite = format!("{name}/{}", crate::battery::suite_name(family, *role));
                for (case, probe) in probes {
                    jobs.push(Job {
                        label: id.to_string(),
                        family: course.family,
                        suite: suite.clone(),
                        case: case.clone(),
                        task: Task::Probe {
                            candidate: Arc::clone(&candidate),
                            probe: Arc::clone(probe),
                        },
                        needed: None,
                    });
                }
            }
        }
    }
    jobs.retain(|j| todo(&j.label, &j.suite, &j.case));
    (jobs, rows)
}
