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
/// slot; the events go to `on_event` on the caller's thread, in order.
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
                    mail.post(Event::CaseStarted {
                        candidate: job.label.clone(),
                        suite: job.suite.clone(),
                        case: job.case.clone(),
                        cost: job.expected_cost(),
                    });
                    let key = match store.map(|s| s.lookup(job, run_wide)) {
                        Some(Ok(row)) => {
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
pub(crate) mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use std::sync::Arc;

    use super::*;
    use crate::cancel::{Cancel, StopReason};
    use crate::executor::Limits;
    use crate::executor::fake::{FakeExecutor, Script};
    use crate::job::{Candidate, Case};
    use crate::settings::{Repeat, RunOptions};
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub(crate) fn options(jobs: usize) -> RunOptions {
        RunOptions {
            jobs,
            limits: Limits {
                time: Duration::from_secs(80),
                grace: Duration::from_secs(1),
                stdout: 1 << 20,
                stderr: 1 << 20,
                memory: 1 << 30,
                cpu: None,
            },
            allow_outside_suite: false,
            max_puzzle_size: 64 << 20,
            keep_output: None,
            isolation: crate::executor::Isolation::default(),
            load: Default::default(),
            repeat: Repeat::default(),
            crashes: Vec::new(),
            store: None,
        }
    }

    pub(crate) fn solver() -> Arc<Candidate> {
        Arc::new(Candidate::Command {
            argv: vec!["solver".into()],
            workdir: PathBuf::from("/"),
            relative: false,
            copy: false,
            network: false,
            ipc: false,
        })
    }

    /// `n` jobs of the test family on a one-press row (answer `1`).
    fn jobs(dir: &std::path::Path, n: usize) -> Vec<Job> {
        let path = dir.join("b.txt");
        std::fs::write(&path, "0110\n").unwrap();
        let who = solver();
        (0..n)
            .map(|i| {
                let toy = reference::families::family("toy").unwrap();
                let name = ("s".into(), format!("c{i:02}"));
                let case = Case::new(toy, name, Ok(vec![path.clone()]), dir.to_owned());
                Job::puzzle("alice", &who, &Arc::new(case))
            })
            .collect()
    }

    fn run(
        jobs_at_once: usize,
        jobs: &[Job],
        fake: &FakeExecutor,
        cancel: &Cancel,
    ) -> (Summary, Vec<Event>) {
        let mut events = Vec::new();
        let ctx = Context {
            options: &options(jobs_at_once),
            executor: fake,
            cancel,
        };
        let s = super::run(&ctx, "alice", jobs, &Summary::default(), &mut |e| {
            events.push(e)
        });
        (s, events)
    }

    fn rows(events: &[Event]) -> Vec<&Row> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::CaseFinished { row } | Event::CaseCancelled { row } => Some(&**row),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_case_once_in_a_well_formed_stream() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = jobs(dir.path(), 12);
        let fake = FakeExecutor::new(|_| Script::exit(0, "1\n"));
        let (summary, events) = run(3, &jobs, &fake, &Cancel::new());
        assert!(matches!(
            events[0],
            Event::RunStarted {
                cases: 12,
                kept: 0,
                ..
            }
        ));
        assert!(matches!(events.last(), Some(Event::RunFinished { .. })));
        let mut cases: Vec<&str> = rows(&events).iter().map(|r| r.case.as_str()).collect();
        cases.sort_unstable();
        let want: Vec<String> = (0..12).map(|i| format!("c{i:02}")).collect();
        assert_eq!(cases, want, "each case exactly once");
        let started = events
            .iter()
            .filter(|e| matches!(e, Event::CaseStarted { .. }))
            .count();
        assert_eq!(started, 12);
        assert_eq!((summary.accepted(), summary.total()), (12, 12));
        assert!(summary.all_accepted());
        assert_eq!(fake.ran.lock().unwrap().len(), 12);
    }

    #[test]
    fn a_stop_cancels_the_running_case_and_every_case_not_started() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = jobs(dir.path(), 10);
        let mut fake = FakeExecutor::new(|_| Script::exit(0, "1\n"));
        let count = std::sync::atomic::AtomicUsize::new(0);
        let count = std::sync::Arc::new(count);
        let seen = std::sync::Arc::clone(&count);
        // The third case to run asks for a stop, as a Ctrl-C would.
        fake.on_run = Some(Box::new(move |cancel: &Cancel| {
            if seen.fetch_add(1, Ordering::SeqCst) == 2 {
                cancel.request(StopReason::Interrupted);
            }
        }));
        let cancel = Cancel::new();
        let (summary, events) = run(1, &jobs, &fake, &cancel);
        let rows = rows(&events);
        assert_eq!(rows.len(), 10, "one row per case, always");
        let verdicts: Vec<Verdict> = rows.iter().map(|r| r.verdict).collect();
        assert_eq!(&verdicts[..2], [Verdict::Accepted, Verdict::Accepted]);
        assert!(verdicts[2..].iter().all(|v| *v == Verdict::Cancelled));
        assert_eq!(
            fake.ran.lock().unwrap().len(),
            3,
            "nothing started after the stop"
        );
        assert_eq!(summary.stopped, Some(StopReason::Interrupted));
        assert!(!summary.all_accepted());
    }

    #[test]
    fn every_puzzle_is_loaded_before_the_first_candidate_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut jobs = jobs(dir.path(), 6);
        // A puzzle that cannot be loaded is prepared too (as its error).
        std::fs::write(dir.path().join("bad.txt"), "01x\n").unwrap();
        let case = |j: &Job| match &j.task {
            Task::Puzzle { case, .. } => Arc::clone(case),
            _ => unreachable!(),
        };
        let mut bad = (*case(&jobs[4])).clone();
        bad.files = Ok(vec![dir.path().join("bad.txt")]);
        jobs[4] = Job::puzzle("alice", &solver(), &Arc::new(bad));
        let loaded: Vec<_> = jobs.iter().map(|j| Arc::clone(&case(j).loaded)).collect();
        let mut fake = FakeExecutor::new(|_| Script::exit(0, "1\n"));
        let checked = std::sync::Arc::new(AtomicUsize::new(0));
        let count = std::sync::Arc::clone(&checked);
        fake.on_run = Some(Box::new(move |_: &Cancel| {
            assert!(
                loaded.iter().all(|l| l.get().is_some()),
                "a run before loading"
            );
            count.fetch_add(1, Ordering::SeqCst);
        }));
        let (summary, events) = run(2, &jobs, &fake, &Cancel::new());
        assert_eq!(
            checked.load(Ordering::SeqCst),
            5,
            "the bad puzzle runs nothing"
        );
        assert_eq!((summary.accepted(), summary.total()), (5, 6));
        let bad = rows(&events).into_iter().find(|r| r.case == "c04").unwrap();
        assert_eq!(bad.verdict, Verdict::HarnessError);
        assert!(
            bad.detail.starts_with("cannot load puzzle: "),
            "{}",
            bad.detail
        );
    }

    #[test]
    fn kept_rows_count_in_the_summary() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = jobs(dir.path(), 2);
        let fake = FakeExecutor::new(|_| Script::exit(1, ""));
        let mut kept = Row::new("alice", "toy", "s", "old");
        kept.verdict = Verdict::Accepted;
        let mut events = Vec::new();
        let ctx = Context {
            options: &options(2),
            executor: &fake,
            cancel: &Cancel::new(),
        };
        let mut tally = Summary::default();
        tally.add(&kept);
        let summary = super::run(&ctx, "alice", &jobs, &tally, &mut |e| events.push(e));
        assert!(matches!(
            events[0],
            Event::RunStarted {
                cases: 2,
                kept: 1,
                ..
            }
        ));
        assert_eq!((summary.accepted(), summary.total()), (1, 3));
        assert_eq!(summary.suites["s"].count(Verdict::WrongExitStatus), 2);
    }

    /// A stream of jobs runs a window at a time: no job past the next
    /// window is read while a window's cases run (the next one is read
    /// while its last cases run), every puzzle of a window is loaded
    /// before any of its cases runs, and nothing of a window before the
    /// last is kept (its cases are dropped).
    #[test]
    fn a_stream_runs_a_window_at_a_time_and_keeps_nothing_of_one_finished() {
        use std::sync::{Mutex, Weak};
        let dir = tempfile::tempdir().unwrap();
        let n = 2 * WINDOW + 10;
        for i in 0..n {
            std::fs::write(dir.path().join(format!("b{i}.txt")), "0110\n").unwrap();
        }
        let made: Arc<Mutex<Vec<Weak<Case>>>> = Arc::default();
        let who = solver();
        let root = dir.path().to_owned();
        let record = Arc::clone(&made);
        let stream = (0..n).map(move |i| {
            let toy = reference::families::family("toy").unwrap();
            let files = Ok(vec![root.join(format!("b{i}.txt"))]);
            let case = Arc::new(Case::new(
                toy,
                ("s".into(), format!("b{i}.txt")),
                files,
                root.clone(),
            ));
            record.lock().unwrap().push(Arc::downgrade(&case));
            Job::puzzle("alice", &who, &case)
        });
        let wrong: Arc<Mutex<Vec<String>>> = Arc::default();
        let (seen, complaints) = (Arc::clone(&made), Arc::clone(&wrong));
        let fake = FakeExecutor::new(move |spec| {
            let name = spec.files[0]
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let i: usize = name[1..name.len() - 4].parse().unwrap();
            let window = i / WINDOW;
            let made = seen.lock().unwrap();
            let mut said = complaints.lock().unwrap();
            if made.len() > ((window + 2) * WINDOW).min(n) {
                said.push(format!("{i}: {} jobs read already", made.len()));
            }
            for (j, weak) in made.iter().enumerate() {
                match weak.upgrade() {
                    Some(_) if j + WINDOW < window * WINDOW => {
                        said.push(format!("{i}: case {j} kept"))
                    }
                    Some(c) if j / WINDOW == window && c.loaded.get().is_none() => {
                        said.push(format!("{i}: case {j} of its window not loaded"))
                    }
                    _ => {}
                }
            }
            Script::exit(0, "1\n")
        });
        let mut events = Vec::new();
        let ctx = Context {
            options: &options(2),
            executor: &fake,
            cancel: &Cancel::new(),
        };
        let summary = super::run(
            &ctx,
            "alice",
            Jobs::stream(n, stream),
            &Summary::default(),
            &mut |e| events.push(e),
        );
        assert_eq!(*wrong.lock().unwrap(), Vec::<String>::new());
        assert_eq!((summary.accepted(), summary.total()), (n, n));
        assert!(matches!(events[0], Event::RunStarted { cases, .. } if cases == n));
        assert!(
            made.lock().unwrap().iter().all(|w| w.upgrade().is_none()),
            "every case dropped at the end"
        );
    }

    /// A stop while a stream runs: one row per job all the same, the jobs
    /// never read `cancelled` too.
    #[test]
    fn a_stop_cancels_every_job_of_a_stream_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let some = jobs(dir.path(), 3);
        let n = WINDOW + 500;
        let stream = (0..n).map(move |i| {
            let mut job = some[i % 3].clone();
            job.case = format!("c{i:05}");
            job
        });
        let mut fake = FakeExecutor::new(|_| Script::exit(0, "1\n"));
        let count = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        fake.on_run = Some(Box::new(move |cancel: &Cancel| {
            if seen.fetch_add(1, Ordering::SeqCst) == 2 {
                cancel.request(StopReason::Interrupted);
            }
        }));
        let cancel = Cancel::new();
        let mut events = Vec::new();
        let ctx = Context {
            options: &options(1),
            executor: &fake,
            cancel: &cancel,
        };
        let summary = super::run(
            &ctx,
            "alice",
            Jobs::stream(n, stream),
            &Summary::default(),
            &mut |e| events.push(e),
        );
        let rows = rows(&events);
        assert_eq!(rows.len(), n, "one row per job");
        assert_eq!(summary.accepted(), 2);
        let cancelled: usize = summary
            .suites
            .values()
            .map(|t| t.count(Verdict::Cancelled))
            .sum();
        assert_eq!(cancelled, n - 2);
        let mut names: Vec<&str> = rows.iter().map(|r| r.case.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "each job once");
    }
}
