//! One case, start to finish: load the puzzle, run the candidate, judge the
//! output, and fill in a scorecard row. Never fails: whatever happens is a
//! verdict, and our own failures are `harness-error`.

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use reference::family::{Case, Check};

use crate::cancel::Cancel;
use std::path::{Path, PathBuf};

use crate::executor::{Ending, Executor, LimitHit, Limits, RunResult, Spec, signal_name};
use crate::job::Job;
use crate::outcome::{Row, Verdict};
use crate::settings::Settings;

/// Grades one job with `executor`.
pub fn grade(
    job: &Job,
    settings: &Settings,
    slot: usize,
    executor: &dyn Executor,
    cancel: &Cancel,
) -> Row {
    let (candidate, label) = match &job.who {
        Some(who) => (&who.candidate, who.label.as_str()),
        None => (&settings.candidate, settings.label.as_str()),
    };
    let limits = &settings.limits;
    let mut row = Row::new(label, job.family.name(), &job.suite, &job.case);
    row.isolation = executor.label();
    let files = match &job.files {
        Ok(f) => f,
        Err(problem) => {
            row.detail = problem.clone();
            return row;
        }
    };
    // Loaded once per job, shared by every candidate of a class run.
    let loaded = job.loaded.get_or_init(|| load(job, files, settings));
    let case = match loaded {
        Ok(case) => Arc::clone(case),
        Err(problem) => {
            row.detail = problem.clone();
            return row;
        }
    };
    let argv: Vec<OsString> = candidate
        .argv(job.family.name())
        .into_iter()
        .map(Into::into)
        .collect();
    let spec = Spec {
        argv,
        files: job.given.clone().unwrap_or_else(|| files.clone()),
        workdir: candidate.workdir().to_owned(),
        slot,
        stdin: None,
        relative: candidate.relative(),
    };
    let run = executor.execute(&spec, limits, cancel);
    fill(&mut row, case.as_ref(), &run, limits);
    if let Some(dir) = &settings.keep_output
        && let Err(e) = keep(dir, &row, &run)
    {
        append(&mut row.detail, &format!("output not kept: {e}"));
    }
    row
}

/// Loads every job's puzzle before any candidate runs, on `settings.jobs`
/// threads, so that the reference's own work never shares the machine with
/// a timed candidate: a Lights Out minimum may take most of a minute of
/// every core, a sliding-block best-moves search up to a second. Jobs that
/// share a puzzle (a class's submissions, a contest's entries) load it
/// once. Stops early when a stop is requested; a job not loaded here loads
/// in [`grade`] as before. Never fails: a puzzle that cannot be loaded is its rows'
/// `harness-error`, as always.
pub fn prepare<'a>(jobs: impl IntoIterator<Item = &'a Job>, settings: &Settings, cancel: &Cancel) {
    let mut seen = std::collections::HashSet::new();
    let todo: Vec<&Job> = jobs
        .into_iter()
        .filter(|j| j.files.is_ok() && seen.insert(Arc::as_ptr(&j.loaded)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..settings.jobs.clamp(1, todo.len().max(1)) {
            scope.spawn(|| {
                while !cancel.is_requested() {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(job) = todo.get(i) else { break };
                    if let Ok(files) = &job.files {
                        job.loaded.get_or_init(|| load(job, files, settings));
                    }
                }
            });
        }
    });
}

/// Where `--keep-output DIR` keeps a row's stdout and stderr:
/// `DIR/<candidate>/<suite>/<case>.stdout` and `.stderr`, every path part
/// made safe (no `..`, no separators of its own).
pub fn output_files(dir: &Path, candidate: &str, suite: &str, case: &str) -> (PathBuf, PathBuf) {
    let base = output_path(dir, candidate, suite, case);
    let with = |ext: &str| {
        let mut s = base.as_os_str().to_owned();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    };
    (with("stdout"), with("stderr"))
}

fn output_path(dir: &Path, candidate: &str, suite: &str, case: &str) -> PathBuf {
    let safe = |s: &str| -> String {
        let t: String = s
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if t.is_empty() || t.chars().all(|c| c == '.') {
            format!("_{t}")
        } else {
            t
        }
    };
    let mut p = dir.join(safe(candidate));
    for part in suite.split('/') {
        p.push(safe(part));
    }
    p.push(safe(case));
    p
}

fn keep(dir: &Path, row: &Row, run: &RunResult) -> std::io::Result<()> {
    let (out, err) = output_files(dir, &row.candidate, &row.suite, &row.case);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(out, &run.stdout.bytes)?;
    std::fs::write(err, &run.stderr.bytes)
}

/// The job's puzzle, checked and loaded, or why it cannot be used.
fn load(job: &Job, files: &[PathBuf], settings: &Settings) -> Result<Arc<dyn Case>, String> {
    check_files(files, &job.root, settings)?;
    match catch_unwind(AssertUnwindSafe(|| job.family.load(files))) {
        Ok(Ok(case)) => Ok(Arc::from(case)),
        Ok(Err(e)) => Err(format!("cannot load puzzle: {e}")),
        Err(panic) => Err(format!("puzzle loader panicked: {}", panic_text(&panic))),
    }
}

/// Puzzle files must be regular files (a FIFO, a device or a symlink to
/// one is refused by the loader), at most `--max-puzzle-size`, and inside
/// the suite's folder (symlinks resolved) unless `--allow-outside-suite`: a
/// listing cannot make the harness read `/etc/shadow` as root.
fn check_files(files: &[PathBuf], root: &Path, settings: &Settings) -> Result<(), String> {
    for file in files {
        let Ok(real) = file.canonicalize() else {
            continue; // missing: the loader says so, naming the file
        };
        if !settings.allow_outside_suite && !real.starts_with(root) {
            return Err(format!(
                "{} is outside the suite folder {} (--allow-outside-suite allows it)",
                file.display(),
                root.display()
            ));
        }
        if let Ok(meta) = std::fs::metadata(&real)
            && meta.is_file()
            && meta.len() > settings.max_puzzle_size
        {
            return Err(format!(
                "{}: larger than --max-puzzle-size ({} bytes)",
                file.display(),
                settings.max_puzzle_size
            ));
        }
    }
    Ok(())
}

/// Turns a run into the row's measurements and verdict: the whole verdict
/// table. Order matters: our failure first, then a stopped run, then the
/// limits we enforced, then a death by signal, then the contract.
pub fn fill(row: &mut Row, case: &dyn Case, run: &RunResult, limits: &Limits) {
    row.wall_ms = Some(millis(run.wall));
    row.cpu_ms = run.cpu.map(millis);
    row.max_rss_kb = run.max_rss_kb;
    match &run.ending {
        Ending::Exited(code) => row.exit_code = Some(*code),
        Ending::Signaled(sig) => row.signal = Some(signal_name(*sig)),
        Ending::Failed(_) => {}
    }
    let (verdict, detail) = match (&run.limit, &run.ending) {
        (_, Ending::Failed(why)) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (
            Verdict::Cancelled,
            "stopped: the grading run was cancelled".to_string(),
        ),
        (Some(LimitHit::Cpu), _) => (
            Verdict::TimeLimit,
            format!(
                "CPU time over {} (--cpu-limit)",
                humantime::format_duration(limits.cpu.unwrap_or_default())
            ),
        ),
        (Some(LimitHit::Memory), _) => (
            Verdict::MemoryLimit,
            format!(
                "killed by the kernel at the memory limit ({} bytes)",
                limits.memory
            ),
        ),
        (Some(LimitHit::Stdout), _) => (
            Verdict::OutputLimit,
            format!(
                "stdout over {} bytes ({} written before the kill)",
                limits.stdout, run.stdout.total
            ),
        ),
        (Some(LimitHit::Time), _) => (
            Verdict::TimeLimit,
            format!(
                "still running after {}",
                humantime::format_duration(limits.time)
            ),
        ),
        (None, Ending::Signaled(sig)) => (
            Verdict::RuntimeError,
            format!("killed by {}", signal_name(*sig)),
        ),
        (None, Ending::Exited(code)) => {
            match catch_unwind(AssertUnwindSafe(|| case.judge(&run.stdout.bytes, *code))) {
                Ok(j) => {
                    row.moves = j.moves;
                    row.best_moves = j.best_moves;
                    let verdict = match j.check {
                        Check::Accepted => Verdict::Accepted,
                        Check::WrongAnswer => Verdict::WrongAnswer,
                        Check::WrongExitStatus => Verdict::WrongExitStatus,
                        Check::RuntimeError => Verdict::RuntimeError,
                        Check::Undecided => Verdict::HarnessError,
                    };
                    (verdict, j.detail)
                }
                Err(panic) => (
                    Verdict::HarnessError,
                    format!("checker panicked: {}", panic_text(&panic)),
                ),
            }
        }
    };
    row.verdict = verdict;
    row.detail = detail;
    if run.stderr.total > limits.stderr {
        append(
            &mut row.detail,
            &format!(
                "stderr cut at {} bytes of {}",
                limits.stderr, run.stderr.total
            ),
        );
    }
    if run.stdout.abandoned || run.stderr.abandoned {
        append(
            &mut row.detail,
            "output pipe held open by a process that left the group",
        );
    }
}

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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::executor::Capture;
    use crate::executor::fake::{FakeExecutor, Script};
    use crate::job::Candidate;

    const LIMITS: Limits = Limits {
        time: Duration::from_secs(80),
        grace: Duration::from_secs(1),
        stdout: 100,
        stderr: 10,
        memory: 1 << 30,
        cpu: None,
    };

    /// A Lights Out case: the handout's 3x2-34 (one press, 1:0) or 3x2-32
    /// (unsolvable).
    fn case(solvable: bool) -> Box<dyn Case> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        let text = if solvable {
            "3x2\n#OO\n##O\n"
        } else {
            "3x2\n#O#\n#OO\n"
        };
        std::fs::write(&path, text).unwrap();
        reference::families::family("lightsout")
            .unwrap()
            .load(&[path])
            .unwrap()
    }

    fn exited(code: i32, out: &str) -> RunResult {
        let mut r = RunResult::ended(Ending::Exited(code), Duration::from_millis(3));
        r.stdout = Capture::of(out.as_bytes());
        r
    }

    fn verdict(solvable: bool, run: &RunResult) -> (Verdict, String) {
        let mut row = Row::new("c", "lightsout", "s", "b.txt");
        fill(&mut row, case(solvable).as_ref(), run, &LIMITS);
        (row.verdict, row.detail)
    }

    #[test]
    fn the_verdict_table() {
        use Verdict::*;
        let v = |solvable, run: RunResult| verdict(solvable, &run);
        assert_eq!(v(true, exited(0, "1:0\n")), (Accepted, String::new()));
        assert_eq!(
            v(true, exited(0, "0:0\n")).0,
            WrongAnswer,
            "moves that leave lights on"
        );
        assert_eq!(
            v(false, exited(0, "")),
            (
                WrongExitStatus,
                "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)".into()
            )
        );
        assert_eq!(v(false, exited(1, "")).0, Accepted);
        assert_eq!(v(true, exited(1, "")).0, WrongExitStatus);
        assert_eq!(
            v(true, exited(7, "")),
            (
                RuntimeError,
                "exit status 7 (the contract has 0 and 1)".into()
            )
        );
        assert_eq!(
            v(true, RunResult::ended(Ending::Signaled(11), Duration::ZERO)),
            (RuntimeError, "killed by SIGSEGV".into())
        );
        let mut timed_out = RunResult::ended(Ending::Signaled(15), Duration::from_secs(80));
        timed_out.limit = Some(LimitHit::Time);
        assert_eq!(
            v(true, timed_out),
            (TimeLimit, "still running after 1m 20s".into())
        );
        let mut flood = RunResult::ended(Ending::Signaled(9), Duration::ZERO);
        flood.limit = Some(LimitHit::Stdout);
        flood.stdout.total = 5000;
        assert_eq!(
            v(true, flood),
            (
                OutputLimit,
                "stdout over 100 bytes (5000 written before the kill)".into()
            )
        );
        assert_eq!(
            v(
                true,
                RunResult::ended(Ending::Failed("cannot start x".into()), Duration::ZERO)
            ),
            (HarnessError, "cannot start x".into())
        );
        let mut oom = RunResult::ended(Ending::Signaled(9), Duration::ZERO);
        oom.limit = Some(LimitHit::Memory);
        assert_eq!(
            v(true, oom),
            (
                MemoryLimit,
                "killed by the kernel at the memory limit (1073741824 bytes)".into()
            )
        );
        let mut stopped = RunResult::ended(Ending::Signaled(15), Duration::ZERO);
        stopped.cancelled = true;
        assert_eq!(v(true, stopped).0, Cancelled);
    }

    /// stderr past its cap is cut and noted, never a verdict: a segfault
    /// that wrote a flood of stderr is still reported as the segfault.
    #[test]
    fn stderr_over_its_cap_is_never_the_verdict() {
        let mut r = exited(0, "1:0\n");
        r.stderr.total = 1 << 20;
        assert_eq!(
            verdict(true, &r),
            (
                Verdict::Accepted,
                format!("stderr cut at 10 bytes of {}", 1 << 20)
            )
        );
        let mut r = RunResult::ended(Ending::Signaled(11), Duration::ZERO);
        r.stderr.total = 1 << 20;
        assert_eq!(verdict(true, &r).0, Verdict::RuntimeError);
    }

    #[test]
    fn grade_runs_the_candidate_with_the_puzzle_files_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        std::fs::write(&path, "3x2\n#OO\n##O\n").unwrap();
        let job = Job {
            family: reference::families::family("lightsout").unwrap(),
            suite: "s".into(),
            case: "b.txt".into(),
            files: Ok(vec![path.clone()]),
            root: dir.path().canonicalize().unwrap(),
            given: None,
            who: None,
            loaded: Default::default(),
        };
        let mut settings = crate::schedule::tests::settings(1);
        settings.candidate = Candidate::Command {
            argv: vec!["solver".into(), "-v".into()],
            workdir: PathBuf::from("/w"),
            relative: false,
        };
        settings.limits = LIMITS;
        let fake = FakeExecutor::new(|_| Script::exit(0, "1:0\n"));
        let row = grade(&job, &settings, 3, &fake, &Cancel::new());
        assert_eq!(
            (row.verdict, row.moves, row.best_moves, row.exit_code),
            (Verdict::Accepted, Some(1), Some(1), Some(0))
        );
        assert_eq!(row.isolation, "fake");
        let ran = fake.ran.lock().unwrap();
        assert_eq!(ran.len(), 1);
        assert_eq!(ran[0].argv, ["solver", "-v"]);
        assert_eq!(ran[0].files, std::slice::from_ref(&path));
        assert_eq!(
            (ran[0].workdir.as_path(), ran[0].slot),
            (Path::new("/w"), 3)
        );
        drop(ran);

        // The puzzle was loaded once, for every later grade of the job.
        assert!(matches!(job.loaded.get(), Some(Ok(_))));
        // A file outside the suite's folder is never read (nor run). (A
        // fresh job each time: a run's settings never change, so a job's
        // puzzle is checked and loaded once.)
        let fresh = |job: &Job| Job {
            family: job.family,
            suite: job.suite.clone(),
            case: job.case.clone(),
            files: job.files.clone(),
            root: dir.path().join("elsewhere"),
            given: None,
            who: None,
            loaded: Default::default(),
        };
        let outside = fresh(&job);
        let row = grade(&outside, &settings, 0, &fake, &Cancel::new());
        assert_eq!(row.verdict, Verdict::HarnessError);
        assert!(
            row.detail.contains("is outside the suite folder"),
            "{}",
            row.detail
        );
        settings.allow_outside_suite = true;
        let row = grade(&fresh(&job), &settings, 0, &fake, &Cancel::new());
        assert_eq!(row.verdict, Verdict::Accepted);
        settings.max_puzzle_size = 3;
        let row = grade(&fresh(&job), &settings, 0, &fake, &Cancel::new());
        assert!(
            row.detail
                .ends_with("larger than --max-puzzle-size (3 bytes)"),
            "{}",
            row.detail
        );
        assert_eq!(fake.ran.lock().unwrap().len(), 2);
    }
}
