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
    };
    let limits = &ctx.options.limits;
    let run = ctx.executor.execute(&spec, limits, ctx.cancel);
    judge(row, family, probe, &run, limits);
}

/// The verdict on one case: the status first, then the output.
fn judge(row: &mut Row, family: &dyn Grader, probe: &Probe, run: &RunResult, limits: &Limits) {
    row.wall_ms = Some(millis(run.wall));
    let expected = probe
        .expect
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let (verdict, detail) = match (&run.ending, run.limit) {
        (Ending::Failed(why), _) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (Verdict::Cancelled, "stopped: the run was cancelled".into()),
        (_, Some(LimitHit::Time | LimitHit::Cpu)) => (
            Verdict::TimeLimit,
            format!(
                "still running after {} (expected exit {expected})",
                humantime::format_duration(limits.time)
            ),
        ),
        (_, Some(LimitHit::Stdout)) => (Verdict::OutputLimit, "stdout over its cap".into()),
        (_, Some(LimitHit::Memory)) => (Verdict::MemoryLimit, "killed at the memory limit".into()),
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
