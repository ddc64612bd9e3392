//! THE work loop: every run (a candidate on suites, a class's builds and
//! cases, a conformance battery, a contest's timed runs) is jobs on this
//! pool. Workers take jobs in order, each on a job slot of its own, and
//! send past-tense events to the caller's thread, which hands them to
//! `on_event` in order. A stop request (Ctrl-C, SIGTERM, a failing
//! reporter) starts no new job, stops the running ones, and gives every
//! job that did not finish a `cancelled` row: a run always ends with one
//! row per job (per counted run).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use crate::event::{Event, Mailbox, Posting, Summary};
use crate::grade::{grade, stopped_by_the_wall_clock};
pub use crate::job::Jobs;

mod feed;
use crate::job::{Job, Task};
use crate::outcome::{Row, Verdict};
use crate::settings::{Context, Repeat};
use feed::{Feed, take};

/// A whole run: `RunStarted` (titled `title`), every job on the pool,
/// then `RunFinished` with the summary. `kept` tallies the rows of a
/// resumed scorecard (counted in the summary, not run).
pub fn run<'a>(
    ctx: &Context,
    title: &str,
    jobs: impl Into<Jobs<'a>>,
    kept: &Summary,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    let start = Instant::now();
    let jobs = jobs.into();
    let mut summary = kept.clone();
    on_event(Event::RunStarted {
        candidate: title.to_string(),
        cases: jobs.len(),
        kept: kept.total(),
        cost: jobs.cost(),
        builds: 0,
        isolation: ctx.executor.describe(),
    });
    pool(ctx, jobs, &mut |event| {
        count(&mut summary, &event);
        on_event(event);
    });
    end_run(ctx, summary, start, on_event)
}

/// Adds a finished row's verdict to `summary`.
pub fn count(summary: &mut Summary, event: &Event) {
    if let Event::CaseFinished { row } | Event::CaseCancelled { row } = event {
        summary.add(row);
    }
}

/// The jobs whose rows `kept` does not already hold (`--resume`).
pub fn not_kept(jobs: Vec<Job>, kept: &[Row]) -> Vec<Job> {
    if kept.is_empty() {
        return jobs;
    }
    let done: HashSet<(String, String, String)> = kept.iter().map(Row::key).collect();
    jobs.into_iter()
        .filter(|j| !done.contains(&j.key()))
        .collect()
}

/// The most jobs loaded and run at once by the pool: their puzzles are
/// loaded together, before any of them runs, then the next ones. Memory
/// stays that of a few windows of cases (the next is read while the last
/// cases of one run; a slow case holds its own), however many a run has.
pub const WINDOW: usize = 1024;

/// The pool under every run. The jobs are taken in windows of [`WINDOW`]:
/// a window's puzzles are loaded before any of its jobs runs, with
/// nothing else running (see [`crate::grade::prepare`]: the reference's work never
/// shares the machine with a timed candidate; a window whose puzzles are
/// all loaded already, as a class's are after its first, waits for
/// nothing). `ctx.options.jobs` workers, one a job slot, take the jobs in
/// order and run each (its warm-up runs, then its counted runs) on their
/// slot; the events go to `on_event` on the caller's thread, in order. A
/// job no longer needed when a worker takes it ([`Job::needed`]) is not
/// run: its row is `cancelled`, saying so.
/// After a stop request no job starts; each job not taken gets a
/// `cancelled` row. A case the wall-clock safety net stopped beside others
/// while its CPU time was under the limit is run again, alone, once the
/// pool is done: its row is that run's.
pub fn pool<'a>(ctx: &Context, jobs: impl Into<Jobs<'a>>, on_event: &mut dyn FnMut(Event)) {
    let jobs: Jobs = jobs.into();
    let len = jobs.len();
    let alone_matters = ctx.options.jobs > 1 && len > 1;
    let repeat = ctx.options.repeat;
    let feed = Mutex::new(Feed {
        source: jobs.source,
        window: Arc::new(Vec::new()),
        next: 0,
        taken: 0,
    });
    // Held shared by each job running, whole by a window's loading.
    let quiet = RwLock::new(());
    let stopped: Mutex<Vec<(usize, Job, Row)>> = Default::default();
    let workers = ctx.options.jobs.clamp(1, len.max(1));
    let mail = Mailbox::new(workers);
    // A timed run (a contest's repeats) takes nothing from the store.
    let store = ctx
        .options
        .store
        .as_deref()
        .filter(|_| repeat == Repeat::default());
    let run_wide = ctx.options.fingerprint(&ctx.executor.label());
    let run_wide = &run_wide;
    std::thread::scope(|scope| {
        for slot in 0..workers {
            let (feed, quiet, stopped, mail) = (&feed, &quiet, &stopped, &mail);
            scope.spawn(move || {
                let _posting = Posting(mail);
                while let Some((window, i, seq)) = take(ctx, feed, quiet) {
                    let _running = quiet.read().unwrap_or_else(|p| p.into_inner());
                    let job = &window[i];
                    if job.needed.as_ref().is_some_and(|n| !n.needed()) {
                        let mut row = not_run(ctx, job);
                        row.detail = "not run: an earlier case decided its result".into();
                        mail.post(Event::CaseCancelled { row: Box::new(row) });
                        continue;
                    }
                    mail.post(Event::CaseStarted {
                        candidate: job.label.clone(),
                        suite: job.suite.clone(),
                        case: job.case.clone(),
                        cost: job.expected_cost(),
                    });
                    let key = match store.map(|s| s.lookup(job, run_wide)) {
                        Some(Ok(row)) => {
                            if let Some(n) = &job.needed {
                                n.graded(&row);
                            }
                            mail.post(finished(row));
                            continue;
                        }
                        Some(Err(key)) => key,
                        None => None,
                    };
                    for run in 0..repeat.warmup + repeat.runs.max(1) {
                        if run > 0 && ctx.cancel.is_requested() {
                            break;
                        }
                        let row = grade(ctx, job, slot);
                        if let Some(n) = &job.needed {
                            n.graded(&row);
                        }
                        if let (Some(s), Some(k)) = (store, &key) {
                            s.keep(k, &row, &ctx.options.limits);
                        }
                        if alone_matters
                            && repeat.runs <= 1
                            && repeat.warmup == 0
                            && stopped_by_the_wall_clock(&row)
                        {
                            stopped.lock().unwrap_or_else(|p| p.into_inner()).push((
                                seq,
                                job.clone(),
                                row,
                            ));
                        } else if run >= repeat.warmup {
                            mail.post(finished(row));
                        }
                    }
                }
            });
        }
        mail.deliver(on_event);
    });
    let feed = feed.into_inner().unwrap_or_else(|p| p.into_inner());
    for job in &feed.window[feed.next.min(feed.window.len())..] {
        on_event(Event::CaseCancelled {
            row: Box::new(not_run(ctx, job)),
        });
    }
    let mut again = stopped.into_inner().unwrap_or_else(|p| p.into_inner());
    again.sort_by_key(|(seq, _, _)| *seq);
    for (_, job, first) in again {
        on_event(finished(alone(ctx, &job, first)));
    }
    for job in feed.source {
        on_event(Event::CaseCancelled {
            row: Box::new(not_run(ctx, &job)),
        });
    }
}

/// `job` run again with nothing beside it, after `first` was stopped by
/// the wall clock beside other cases with its CPU time under the limit.
fn alone(ctx: &Context, job: &Job, first: Row) -> Row {
    let beside = format!(
        "beside other cases the wall clock stopped it with {:.2} s of CPU time",
        first.cpu_ms.unwrap_or_default() / 1000.0
    );
    if ctx.cancel.is_requested() {
        let mut row = first;
        row.detail = format!("{}; not run again alone: the run was cancelled", row.detail);
        return row;
    }
    // On a thread of its own, as a job slot's worker: a slot's worker keeps
    // to the slot's cores, and the caller's thread must not.
    let mut row = std::thread::scope(|scope| scope.spawn(|| grade(ctx, job, 0)).join())
        .unwrap_or_else(|_| {
            let mut row = first.clone();
            row.detail = format!("{}; could not be run again alone", row.detail);
            row
        });
    if row.verdict == Verdict::TimeLimit && stopped_by_the_wall_clock(&row) {
        row.detail = format!("{}, alone too", row.detail);
    } else {
        let sep = if row.detail.is_empty() { "" } else { "; " };
        row.detail = format!("{}{sep}run again alone ({beside})", row.detail);
    }
    row
}

/// The `cancelled` row of a job no worker took.
fn not_run(ctx: &Context, job: &Job) -> Row {
    let mut row = Row::new(&job.label, job.family.name(), &job.suite, &job.case);
    row.isolation = ctx.executor.label();
    row.verdict = Verdict::Cancelled;
    row.detail = match job.task {
        Task::Build(_) => "not built: the grading run was cancelled",
        _ => "not run: the grading run was cancelled",
    }
    .into();
    row
}

/// The end of every run: the executor clears up, the summary says whether
/// and why the run stopped, `RunFinished` goes out.
pub fn end_run(
    ctx: &Context,
    mut summary: Summary,
    start: Instant,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    ctx.executor.finish();
    summary.stopped = ctx.cancel.reason().filter(|_| ctx.cancel.is_requested());
    summary.elapsed = start.elapsed();
    on_event(Event::RunFinished {
        summary: summary.clone(),
    });
    summary
}

/// The event a finished row goes out in.
fn finished(row: Row) -> Event {
    if row.verdict == Verdict::Cancelled {
        Event::CaseCancelled { row: Box::new(row) }
    } else {
        Event::CaseFinished { row: Box::new(row) }
    }
}

#[cfg(test)]
pub(crate) mod tests;
