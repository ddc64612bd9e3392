//! One job, start to finish, into one scorecard row. Never fails: whatever
//! happens is a verdict, and our own failures are `harness-error`. One
//! file per kind of task: a candidate on a puzzle ([`puzzle`]), on a probe
//! of its exit statuses ([`probe`]), a submission's build ([`build`]);
//! a problem package's own output validator judging an output
//! ([`validator`]).

pub mod build;
pub mod grader;
mod interactive;
mod kept;
pub mod probe;
pub mod program;
pub mod puzzle;
mod stderr;
pub mod validator;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub use kept::output_files;
pub use puzzle::{fill, stopped_by_the_wall_clock};

use crate::job::{Job, Task};
use crate::outcome::Row;
use crate::settings::Context;

/// Grades `job` on job slot `slot`.
pub fn grade(ctx: &Context, job: &Job, slot: usize) -> Row {
    let mut row = Row::new(&job.label, job.family.name(), &job.suite, &job.case);
    row.isolation = ctx.executor.label();
    match &job.task {
        Task::Puzzle { candidate, case } => puzzle::grade(ctx, &mut row, candidate, case, slot),
        Task::Probe { candidate, probe } => {
            probe::grade(ctx, &mut row, job.family, candidate, probe, slot)
        }
        Task::Build(build) => build::grade(ctx, &mut row, build, slot),
    }
    row
}

/// Loads every puzzle of `jobs` before any candidate runs, on
/// `ctx.options.jobs` threads, so that the reference's own work never
/// shares the machine with a timed candidate (finding a puzzle's fewest
/// moves may take most of a minute of every core). Jobs that share a case (a class's submissions, a
/// contest's entries) load it once. Stops early when a stop is requested;
/// a case not loaded here loads when graded. Never fails: a puzzle that
/// cannot be loaded is its rows' `harness-error`, as always.
pub fn prepare(ctx: &Context, jobs: &[Job]) {
    let mut seen = std::collections::HashSet::new();
    let todo: Vec<&crate::job::Case> = jobs
        .iter()
        .filter_map(|j| match &j.task {
            Task::Puzzle { case, .. } if case.files.is_ok() => Some(&**case),
            _ => None,
        })
        .filter(|c| seen.insert(Arc::as_ptr(&c.loaded)))
        .collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..ctx.options.jobs.clamp(1, todo.len().max(1)) {
            scope.spawn(|| {
                while !ctx.cancel.is_requested() {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = todo.get(i) else { break };
                    if let Ok(files) = &case.files {
                        case.loaded
                            .get_or_init(|| puzzle::load(case, files, ctx.options));
                    }
                }
            });
        }
    });
}

/// Whether every puzzle of `jobs` is loaded already (as [`prepare`]
/// leaves them): then nothing is left for it to do.
pub fn prepared(jobs: &[Job]) -> bool {
    jobs.iter().all(|j| match &j.task {
        Task::Puzzle { case, .. } => case.files.is_err() || case.loaded.get().is_some(),
        _ => true,
    })
}

/// Adds `more` to a row's detail, after a `; `.
fn append(detail: &mut String, more: &str) {
    if !detail.is_empty() {
        detail.push_str("; ");
    }
    detail.push_str(more);
}

/// Milliseconds, rounded to the microsecond.
fn millis(d: Duration) -> f64 {
    d.as_micros() as f64 / 1000.0
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
