//! `harness conform`: does a student's Checker or Solver exit with the
//! statuses its handout fixes? The family's battery of probes is written
//! into a folder and run on the candidate, one at a time; every probe is a
//! scorecard row.

use std::path::Path;
use std::sync::Arc;

use reference::family::{Grader, Role};

use crate::event::{Event, Summary};
use crate::job::{Candidate, Job, Task};
use crate::settings::Context;

/// The jobs of `family`'s battery for `role` (written into `dir`), for
/// `candidate` under the name `label`.
pub fn jobs(
    family: &'static dyn Grader,
    role: Role,
    candidate: Candidate,
    label: &str,
    dir: &Path,
) -> anyhow::Result<Vec<Job>> {
    let suite = crate::battery::suite_name(family.name(), role);
    let candidate = Arc::new(candidate);
    Ok(crate::battery::battery(family, role, dir)?
        .into_iter()
        .map(|(case, probe)| Job {
            label: label.to_string(),
            family,
            suite: suite.clone(),
            case,
            task: Task::Probe {
                candidate: Arc::clone(&candidate),
                probe: Arc::new(probe),
            },
            needed: None,
        })
        .collect())
}

/// Runs the battery's `jobs`, handing every event to `on_event`.
pub fn run(ctx: &Context, label: &str, jobs: &[Job], on_event: &mut dyn FnMut(Event)) -> Summary {
    crate::schedule::run(ctx, label, jobs, &Summary::default(), on_event)
}
