//! A candidate on a probe of its exit statuses (a conformance battery's
//! case, a contest's Checker run): the status first, then, where the probe
//! says, its stdout (empty, or an answer that solves the probe's puzzle).

use std::ffi::OsString;

use reference::battery::Output;
use reference::family::{Check, Grader};

use super::millis;
use crate::executor::{Ending, LimitHit, Limits, RunResult, Spec, signal_name};
use crate::job::{Candidate, Probe};
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// Runs `probe` on `candidate` and judges it into `row`.
pub fn grade(
    ctx: &Context,
    row: &mut Row,
    family: &dyn Grader,
    candidate: &Candidate,
    probe: &Probe,
    slot: usize,
) {
    let mut argv: Vec<OsString> = candidate
        .argv(family.name())
        .into_iter()
        .map(Into::into)
        .collect();
    // A candidate given relative paths runs from the probe's folder and
    // gets its files by name, as on a suite's cases (the folder itself:
    // `.`).
    let folder = probe.stdin.parent().filter(|_| candidate.relative());
    match folder {
        Some(dir) => argv.extend(probe.args.iter().map(|a| {
            let path = std::path::Path::new(a);
            match path.strip_prefix(dir) {
                Ok(rest) if rest.as_os_str().is_empty() => OsString::from("."),
                Ok(rest) => rest.as_os_str().to_owned(),
                Err(_) => a.clone(),
            }
        })),
        None => argv.extend(probe.args.iter().cloned()),
    }
    let spec = Spec {
        argv,
        files: Vec::new(),
        contents: None,
        workdir: folder.unwrap_or(candidate.workdir()).to_owned(),
        slot,
        stdin: Some(probe.stdin.clone()),
        relative: false,
        write_workdir: false,
        network: candidate.network(),
        ipc: candidate.ipc(),
        tail: Vec::new(),
        returns: Vec::new(),
        wired: None,
    };
    let limits = &ctx.options.limits;
    let run = ctx.executor.execute(&spec, limits, ctx.cancel);
    judge(row, family, probe, &run, limits);
}

/// The verdict on one case: the status first, then the output.
fn judge(row: &mut Row, family: &dyn Grader, probe: &Probe, run: &RunResult, limits: &Limits) {
    row.wall_ms = Some(millis(run.wall));
    row.cpu_ms = run.cpu.map(millis);
    let expected = probe
        .expect
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let (verdict, detail) = match (&run.ending, run.limit) {
        (Ending::Failed(why), _) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (Verdict::Cancelled, "stopped: the run was cancelled".into()),
        (_, Some(hit @ (LimitHit::Time | LimitHit::Cpu))) => (
            Verdict::TimeLimit,
            format!(
                "{} (expected exit {expected})",
                super::puzzle::time_detail(hit, run, limits)
            ),
        ),
        (_, Some(LimitHit::Stdout)) => (Verdict::OutputLimit, "stdout over its cap".into()),
        (_, Some(LimitHit::Memory | LimitHit::Scratch)) => {
            (Verdict::MemoryLimit, "killed at the memory limit".into())
        }
        (Ending::Signaled(sig), None) => (
            Verdict::RuntimeError,
            format!("killed by {} (expected exit {expected})", signal_name(*sig)),
        ),
        (Ending::Exited(code), None) => {
            row.exit_code = Some(*code);
            if !probe.expect.contains(code) {
                (
                    Verdict::WrongExitStatus,
                    format!("exit {code}, expected {expected}"),
                )
            } else {
                output_verdict(family, probe, *code, &run.stdout.bytes)
            }
        }
    };
    row.verdict = verdict;
    row.detail = detail;
    row.clock = super::puzzle::clock(verdict, run.limit, limits, run.waited);
}

/// The verdict on `probe` of a program that does nothing but exit `code`
/// (a course's stub: see `course::stub`).
pub fn stub_verdict(family: &dyn Grader, probe: &Probe, code: i32) -> Verdict {
    if probe.expect.contains(&code) {
        output_verdict(family, probe, code, b"").0
    } else {
        Verdict::WrongExitStatus
    }
}

fn output_verdict(
    family: &dyn Grader,
    probe: &Probe,
    code: i32,
    stdout: &[u8],
) -> (Verdict, String) {
    let ok = (Verdict::Accepted, format!("exit {code}"));
    match probe.output {
        Output::Any => ok,
        Output::Empty if stdout.trim_ascii().is_empty() => ok,
        Output::Empty => (
            Verdict::WrongExitStatus,
            format!("exit {code} with output (it wants empty stdout)"),
        ),
        Output::Solves if code != 0 => ok,
        Output::Solves => match family.load(&probe.puzzle) {
            Err(e) => (
                Verdict::HarnessError,
                format!("cannot load the battery's puzzle: {e}"),
            ),
            Ok(puzzle) => {
                let j = puzzle.judge(stdout, 0);
                if j.check == Check::Accepted {
                    ok
                } else {
                    (Verdict::WrongAnswer, j.detail)
                }
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::outcome::Clock;

    /// A probe stopped at a time limit says which clock stopped it, as a
    /// suite's case does (it said "still running after" the wall-clock
    /// limit when its CPU time had stopped it).
    #[test]
    fn a_probe_says_which_clock_stopped_it() {
        let limits = Limits {
            cpu: Some(Duration::from_secs(2)),
            ..Limits::new(Duration::from_secs(11), 1 << 30)
        };
        let probe = Probe {
            args: Vec::new(),
            puzzle: Vec::new(),
            stdin: "/dev/null".into(),
            expect: vec![1],
            output: Output::Any,
        };
        let family = reference::families::family("toy").unwrap();
        let stopped = |hit| {
            let mut run = RunResult::ended(Ending::Signaled(9), Duration::from_millis(2100));
            run.limit = Some(hit);
            run.cpu = Some(Duration::from_millis(2003));
            let mut row = Row::new("c", "toy", "usage", "probe");
            judge(&mut row, family, &probe, &run, &limits);
            (row.verdict, row.detail, row.clock, row.cpu_ms)
        };
        assert_eq!(
            stopped(LimitHit::Cpu),
            (
                Verdict::TimeLimit,
                "CPU time over 2s (expected exit 1)".to_string(),
                Some(Clock::Cpu),
                Some(2003.0)
            )
        );
        let (_, detail, clock, _) = stopped(LimitHit::Time);
        assert_eq!(
            detail,
            "stopped by the wall-clock safety net at 11s with 2.00 s of CPU time (the limit is 2s): the rest of the time it was asleep or blocked, not waiting for a core (expected exit 1)"
        );
        assert_eq!(clock, Some(Clock::Blocked), "it waited for no core");
    }
}
