//! One case, start to finish: load the puzzle, run the candidate, judge the
//! output, and fill in a scorecard row. Never fails: whatever happens is a
//! verdict, and our own failures are `harness-error`.

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use reference::family::{Case, Check};

use crate::config::Candidate;
use crate::discover::Job;
use crate::outcome::{Row, Verdict};
use crate::runner::{self, Ending, LimitHit, Limits, RunResult, signal_name};

/// Grades one job.
pub fn grade(job: &Job, candidate: &Candidate, label: &str, limits: &Limits) -> Row {
    let mut row = Row::new(label, job.family.name(), &job.suite, &job.case);
    let files = match &job.files {
        Ok(f) => f,
        Err(problem) => {
            row.detail = problem.clone();
            return row;
        }
    };
    let case = match catch_unwind(AssertUnwindSafe(|| job.family.load(files))) {
        Ok(Ok(case)) => case,
        Ok(Err(e)) => {
            row.detail = format!("cannot load puzzle: {e}");
            return row;
        }
        Err(panic) => {
            row.detail = format!("puzzle loader panicked: {}", panic_text(&panic));
            return row;
        }
    };
    let mut argv: Vec<OsString> = candidate
        .argv(job.family.name())
        .into_iter()
        .map(Into::into)
        .collect();
    argv.extend(files.iter().map(|f| f.clone().into_os_string()));
    let run = runner::run(&argv, candidate.workdir(), limits);
    fill(&mut row, case.as_ref(), &run, limits);
    row
}

/// Turns a run into the row's measurements and verdict.
fn fill(row: &mut Row, case: &dyn Case, run: &RunResult, limits: &Limits) {
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
        (Some(LimitHit::Output(stream)), _) => {
            let (cap, total) = match stream {
                runner::Stream::Stdout => (limits.stdout, run.stdout.total),
                runner::Stream::Stderr => (limits.stderr, run.stderr.total),
            };
            let detail = format!(
                "{} over {cap} bytes ({total} written before the kill)",
                stream.name()
            );
            (Verdict::OutputLimit, detail)
        }
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
    if run.stdout.abandoned || run.stderr.abandoned {
        if !row.detail.is_empty() {
            row.detail.push_str("; ");
        }
        row.detail
            .push_str("output pipe held open by a process that left the group");
    }
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
