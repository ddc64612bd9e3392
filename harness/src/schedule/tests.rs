//! The work loop's tests (the scripted executor, no process).
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
        notes: Vec::new(),
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
                Some(_) if j + WINDOW < window * WINDOW => said.push(format!("{i}: case {j} kept")),
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
