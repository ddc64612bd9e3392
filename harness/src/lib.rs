//! The grading engine behind `harness`: discover suites, run a candidate on
//! every case in parallel, judge each answer with the `reference` checkers,
//! and report through one stream of events. Silent: it never prints or
//! exits; `main.rs` parses arguments and maps results to exit statuses.
//!
//! ```no_run
//! # fn settings() -> harness::config::Settings { unimplemented!() }
//! let summary = harness::run(&settings(), &mut |event| println!("{event:?}"))?;
//! # anyhow::Ok(())
//! ```

pub mod cancel;
pub mod class;
pub mod cli;
pub mod compare;
pub mod config;
pub mod conform;
pub mod contest;
pub mod course;
pub mod discover;
pub mod event;
pub mod executor;
pub mod export;
pub mod grade;
pub mod html;
pub mod merge;
pub mod outcome;
pub mod report;
pub mod schedule;
pub mod shard;
pub mod slurm;

use crate::cancel::Cancel;
use crate::config::Settings;
use crate::event::{Event, Summary};
use crate::executor::{Executor, ProcessExecutor};
use crate::outcome::Row;

/// Discovers the suites of `settings` and grades every case with real
/// processes, handing each event to `on_event`.
pub fn run(settings: &Settings, on_event: &mut dyn FnMut(Event)) -> anyhow::Result<Summary> {
    let jobs = discover::discover(
        &settings.suites,
        settings.family,
        settings.filter.as_deref(),
    )?;
    Ok(run_jobs(
        settings,
        jobs,
        &[],
        &ProcessExecutor::new(),
        &Cancel::new(),
        on_event,
    ))
}

/// Grades `jobs` with `executor`, skipping the cases of `kept` (rows of a
/// resumed scorecard, which still count in the summary); `cancel` stops it.
pub fn run_jobs(
    settings: &Settings,
    mut jobs: Vec<discover::Job>,
    kept: &[Row],
    executor: &dyn Executor,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    if !kept.is_empty() {
        let done: std::collections::HashSet<(String, String, String)> =
            kept.iter().map(Row::key).collect();
        jobs.retain(|j| {
            let label = j.who.as_ref().map_or(&settings.label, |w| &w.label);
            !done.contains(&(label.clone(), j.suite.clone(), j.case.clone()))
        });
    }
    schedule::schedule(settings, &jobs, kept, executor, cancel, on_event)
}
