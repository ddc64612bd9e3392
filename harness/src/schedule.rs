//! The scheduler: a pool of workers takes jobs in listing order, grades
//! them and sends past-tense events to the caller's thread, which hands
//! them to `on_event` in order. A stop request (Ctrl-C, SIGTERM, a failing
//! reporter) starts no new case, stops the running ones, and gives every
//! case that did not finish a `cancelled` row: the run always ends with
//! one row per case.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::cancel::Cancel;
use crate::event::{Event, Summary};
use crate::executor::Executor;
use crate::grade::grade;
use crate::job::Job;
use crate::outcome::{Row, Verdict};
use crate::settings::Settings;

/// Runs `jobs` and reports. `kept` are rows of a resumed scorecard (counted
/// in the summary, not run).
pub fn schedule(
    settings: &Settings,
    jobs: &[Job],
    kept: &[Row],
    executor: &dyn Executor,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    let start = Instant::now();
    let mut summary = Summary::default();
    for row in kept {
        summary.add(row);
    }
    on_event(Event::RunStarted {
        candidate: settings.label.clone(),
        cases: jobs.len(),
        kept: kept.len(),
        isolation: executor.describe(),
    });
    crate::grade::prepare(jobs, settings, cancel);
    pool(
        jobs,
        settings.jobs,
        cancel,
        &mut summary,
        on_event,
        |job| (job.suite.clone(), job.case.clone()),
        |job, slot| grade(job, settings, slot, executor, cancel),
        |job| {
            let mut row = Row::new(&settings.label, job.family.name(), &job.suite, &job.case);
            row.isolation = executor.label();
            row
        },
    );
    end_run(summary, start, executor, cancel, on_event)
}

/// The worker pool under every run: `workers` threads take `items` in
/// order, `work` turns one into a row on a job slot, and the events go to
/// `on_event` on the caller's thread, in order. After a stop request no
/// item starts; each item no worker took gets the row `not_run` makes,
/// marked cancelled. Every item ends with exactly one row.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pool<T: Sync>(
    items: &[T],
    workers: usize,
    cancel: &Cancel,
    summary: &mut Summary,
    on_event: &mut dyn FnMut(Event),
    name: impl Fn(&T) -> (String, String) + Sync,
    work: impl Fn(&T, usize) -> Row + Sync,
    not_run: impl Fn(&T) -> Row,
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    let workers = workers.clamp(1, items.len().max(1));
    let (name, work) = (&name, &work);
    std::thread::scope(|scope| {
        for slot in 0..workers {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    if cancel.is_requested() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else { break };
                    let (suite, case) = name(item);
                    let _ = tx.send(Event::CaseStarted { suite, case });
                    let _ = tx.send(finished(work(item, slot)));
                }
            });
        }
        drop(tx);
        for event in rx {
            match &event {
                Event::CaseFinished { row } | Event::CaseCancelled { row } => summary.add(row),
                _ => {}
            }
            on_event(event);
        }
    });
    let taken = next.load(Ordering::SeqCst).min(items.len());
    for item in &items[taken..] {
        let mut row = not_run(item);
        row.verdict = Verdict::Cancelled;
        row.detail = "not run: the grading run was cancelled".into();
        summary.add(&row);
        on_event(Event::CaseCancelled { row: Box::new(row) });
    }
}

/// The end of every run (grading or conformance): the executor clears up,
/// the summary says whether and why the run stopped, `RunFinished` goes out.
pub(crate) fn end_run(
    mut summary: Summary,
    start: Instant,
    executor: &dyn Executor,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    executor.finish();
    summary.stopped = cancel.reason().filter(|_| cancel.is_requested());
    summary.elapsed = start.elapsed();
    on_event(Event::RunFinished {
        summary: summary.clone(),
    });
    summary
}

/// The event a finished row goes out in.
pub(crate) fn finished(row: Row) -> Event {
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

    use super::*;
    use crate::cancel::StopReason;
    use crate::executor::Limits;
    use crate::executor::fake::{FakeExecutor, Script};
    use crate::job::Candidate;

    pub(crate) fn settings(jobs: usize) -> Settings {
        Settings {
            suites: Vec::new(),
            candidate: Candidate::Command {
                argv: vec!["solver".into()],
                workdir: PathBuf::from("/"),
                relative: false,
            },
            label: "alice".into(),
            family: None,
            filter: None,
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
            shard: None,
            shard_costs: None,
            isolation: crate::executor::isolate::Isolation::default(),
        }
    }

    /// `n` Lights Out jobs on the handout's one-press board (answer 1:0).
    fn jobs(dir: &std::path::Path, n: usize) -> Vec<Job> {
        let path = dir.join("b.txt");
        std::fs::write(&path, "3x2\n#OO\n##O\n").unwrap();
        (0..n)
            .map(|i| Job {
                family: reference::families::family("lightsout").unwrap(),
                suite: "s".into(),
                case: format!("c{i:02}"),
                files: Ok(vec![path.clone()]),
                root: dir.to_owned(),
                given: None,
                who: None,
                loaded: Default::default(),
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
        let s = schedule(&settings(jobs_at_once), jobs, &[], fake, cancel, &mut |e| {
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
        let fake = FakeExecutor::new(|_| Script::exit(0, "1:0\n"));
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
        let mut fake = FakeExecutor::new(|_| Script::exit(0, "1:0\n"));
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
        std::fs::write(dir.path().join("bad.txt"), "3x2\n#OX\n").unwrap();
        jobs[4].files = Ok(vec![dir.path().join("bad.txt")]);
        let loaded: Vec<_> = jobs
            .iter()
            .map(|j| std::sync::Arc::clone(&j.loaded))
            .collect();
        let mut fake = FakeExecutor::new(|_| Script::exit(0, "1:0\n"));
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
        let mut kept = Row::new("alice", "lightsout", "s", "old");
        kept.verdict = Verdict::Accepted;
        let mut events = Vec::new();
        let summary = schedule(
            &settings(2),
            &jobs,
            &[kept],
            &fake,
            &Cancel::new(),
            &mut |e| events.push(e),
        );
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
}
