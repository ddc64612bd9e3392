//! An interactive problem's case: the candidate and the package's own
//! validator run at once, each one's stdout the other's stdin, as
//! problemtools' `interactive` runs them. The validator is the package's
//! code, not ours: it runs under the candidates' isolation, on the job
//! slot's partner (a user, folder and cgroup of its own), and the
//! candidate never sees the case's `.in` or `.ans` (the validator gets
//! them, as `validator input answer feedback_dir/ flags`).
//!
//! The verdict is problemtools': a validator that fails (no 42 or 43) is a
//! judge error, never the candidate's; a wrong answer the validator gave
//! before the candidate ended is the verdict whatever the candidate did
//! next (it is stopped then); else a candidate that ran out of its limits
//! or crashed gets that verdict; else the validator's (42 accepted, 43 a
//! wrong answer with its `judgemessage.txt`). Which ended first is never
//! a race: each one's pipe to the other is held open until the harness
//! has reaped it (see `executor::Wire`).

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::cancel::{Cancel, StopReason};
use crate::executor::{Limits, RunResult, Spec};
use crate::job::Case;
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// How often the candidate's own stop token looks at the run's.
const MIRROR_POLL: Duration = Duration::from_millis(25);

/// How the validator ran, beside the candidate.
pub(super) struct Talked {
    /// When the candidate was reaped.
    candidate: Option<std::time::Instant>,
    /// The validator's run.
    validator: RunResult,
    /// Whether it may give points, and must (`Validator::score`).
    score: Option<bool>,
    /// The candidate was stopped because the validator ended without
    /// accepting.
    cut: bool,
}

/// Whether `case` is an interactive problem's (its validator talks to the
/// candidate).
fn is(case: &Case) -> bool {
    case.validator.as_ref().is_some_and(|v| v.interactive)
}

/// Runs `spec` (the candidate on `case`, under `limits`, on job slot
/// `slot`) wired to `case`'s validator on the slot's partner: the
/// candidate's run (nothing of its stdout captured: the validator read
/// it) and the validator's; or why it cannot run (the row's verdict and
/// detail).
fn run(
    ctx: &Context,
    mut spec: Spec,
    case: &Case,
    limits: &Limits,
    slot: usize,
) -> Result<(RunResult, Talked), (Verdict, String)> {
    let ours = |why: String| (Verdict::HarnessError, why);
    let Some(validator) = &case.validator else {
        return Err(ours("an interactive case without its validator".into()));
    };
    let Some(partner) = ctx.executor.partner(slot) else {
        return Err(ours(
            "an interactive problem's validator runs beside its candidate, and this run's \
             isolation runs one case at a time (Landlock as an ordinary user): run with \
             --jobs 1 (each case with its validator beside it), as root, or where bubblewrap \
             works"
                .into(),
        ));
    };
    let mut vspec = match super::validator::spec(ctx, validator, case, partner) {
        Ok(Some(s)) => s,
        Ok(None) => return Err(ours("the case's files are not there".into())),
        Err(why) => return Err(ours(why)),
    };
    let ((candidate, theirs), [to_validator, to_candidate]) = crate::executor::pair()
        .map_err(|e| ours(format!("cannot make the pipes between the two: {e}")))?;
    (spec.stdin, spec.wired, vspec.wired) = (None, Some(candidate), Some(theirs));
    // The validator's time: its own, and never shorter than the
    // candidate's whole run (it waits on the candidate).
    let mut vlimits = super::validator::limits(ctx);
    vlimits.time = vlimits
        .time
        .max(limits.time + limits.grace * 2 + Duration::from_secs(1));
    let (own, cut, done) = (
        Cancel::new(),
        AtomicBool::new(false),
        AtomicBool::new(false),
    );
    let score = validator.score;
    let (judged, candidate) = std::thread::scope(|s| {
        let judge = s.spawn(|| {
            let ran = ctx.executor.execute(&vspec, &vlimits, ctx.cancel);
            // Not accepted: the candidate is stopped, and may meet the
            // closed pipe; accepted, it ends as it will, and what it
            // writes meanwhile never kills it (problemtools' order).
            let kept = match super::validator::said(&ran, score) {
                Err(_) => {
                    drop(to_validator);
                    cut.store(true, Ordering::SeqCst);
                    own.request_now(StopReason::Interrupted);
                    None
                }
                Ok(_) => Some(to_validator),
            };
            (ran, kept)
        });
        s.spawn(|| mirror(ctx.cancel, &own, &done));
        let ran = ctx.executor.execute(&spec, limits, &own);
        let judged = judge.join();
        done.store(true, Ordering::SeqCst);
        (judged, ran)
    });
    drop(to_candidate);
    let (validator, _kept): (RunResult, Option<OwnedFd>) =
        judged.map_err(|_| ours("the validator's thread panicked".into()))?;
    let talked = Talked {
        cut: cut.load(Ordering::SeqCst) && candidate.cancelled && !ctx.cancel.is_requested(),
        candidate: candidate.reaped,
        validator,
        score,
    };
    Ok((candidate, talked))
}

/// Runs `spec` as [`run`] does where `case` is interactive, else alone.
pub(super) fn run_either(
    ctx: &Context,
    spec: Spec,
    case: &Case,
    limits: &Limits,
    slot: usize,
) -> Result<(RunResult, Option<Talked>), (Verdict, String)> {
    if is(case) {
        run(ctx, spec, case, limits, slot).map(|(ran, talked)| (ran, Some(talked)))
    } else {
        Ok((ctx.executor.execute(&spec, limits, ctx.cancel), None))
    }
}

/// The package's validator's word on `row` (a candidate's `run` on
/// `case`, filled): as it talked with the candidate (`talked`), or on
/// the output of a run that ended well.
pub(super) fn judge_either(
    ctx: &Context,
    row: &mut Row,
    (case, run): (&Case, &RunResult),
    talked: Option<&Talked>,
    slot: usize,
) {
    match talked {
        Some(t) => judge(row, t),
        None if row.verdict == Verdict::Accepted => {
            super::validator::judge(ctx, row, case, run, slot);
        }
        None => {}
    }
}

/// Stops the candidate (`own`) when the run is stopped (`run`), until
/// `done`.
fn mirror(run: &Cancel, own: &Cancel, done: &AtomicBool) {
    while !done.load(Ordering::SeqCst) {
        if run.is_requested() {
            own.request_now(run.reason().unwrap_or(StopReason::Interrupted));
            return;
        }
        std::thread::sleep(MIRROR_POLL);
    }
}

/// Gives `row` (filled from the candidate's run as any case's) the
/// verdict of the two, as problemtools decides it.
fn judge(row: &mut Row, talked: &Talked) {
    let said = super::validator::said(&talked.validator, talked.score);
    let first = talked.cut
        || matches!(
            (talked.validator.reaped, talked.candidate),
            (Some(v), Some(c)) if v <= c
        );
    let verdict = match said {
        // The validator failed, or the run was stopped.
        Err(s @ (Verdict::HarnessError | Verdict::Cancelled, _)) => s,
        // A wrong answer before the candidate ended: whatever it did next.
        Err(s @ (Verdict::WrongAnswer, _)) if first => s,
        // The candidate ran out of its limits, or crashed: its own.
        _ if row.verdict != Verdict::Accepted => return,
        Err(s) => s,
        Ok(score) => return row.score = score,
    };
    (row.verdict, row.detail) = verdict;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Ending;
    use std::time::Instant;

    fn ended(ending: Ending, at: Instant) -> RunResult {
        let mut r = RunResult::ended(ending, Duration::from_millis(5));
        r.reaped = Some(at);
        r
    }

    fn verdict(candidate: RunResult, validator: RunResult, cut: bool, own: Verdict) -> Verdict {
        let mut row = Row::new("c", "s", "case", "package");
        row.verdict = own;
        judge(
            &mut row,
            &Talked {
                candidate: candidate.reaped,
                validator,
                score: None,
                cut,
            },
        );
        row.verdict
    }

    #[test]
    fn problemtools_order_of_verdicts() {
        use Verdict::*;
        let early = Instant::now();
        let late = early + Duration::from_millis(3);
        let ok = |at| ended(Ending::Exited(0), at);
        let crash = |at| ended(Ending::Exited(42), at);
        let val = |code, at| ended(Ending::Exited(code), at);
        // Both ended well: the validator's word.
        assert_eq!(verdict(ok(early), val(42, late), false, Accepted), Accepted);
        assert_eq!(
            verdict(ok(early), val(43, late), false, Accepted),
            WrongAnswer
        );
        // The candidate crashed first (no output: the validator read the
        // end and said wrong answer after): a run-time error.
        assert_eq!(
            verdict(crash(early), val(43, late), false, RuntimeError),
            RuntimeError
        );
        // The validator said wrong answer first, the candidate crashed on
        // the closed pipe after: a wrong answer.
        assert_eq!(
            verdict(crash(late), val(43, early), false, RuntimeError),
            WrongAnswer
        );
        // Stopped by the harness after the validator's wrong answer.
        let mut stopped = ok(late);
        stopped.cancelled = true;
        assert_eq!(
            verdict(stopped, val(43, early), true, Cancelled),
            WrongAnswer
        );
        // Accepted, then the candidate ran out of time: its own verdict.
        assert_eq!(
            verdict(ok(late), val(42, early), false, TimeLimit),
            TimeLimit
        );
        // A validator that fails is never the candidate's fault.
        for bad in [val(1, late), ended(Ending::Signaled(13), late)] {
            assert_eq!(verdict(ok(early), bad, false, Accepted), HarnessError);
        }
        assert_eq!(
            verdict(crash(early), val(7, late), false, RuntimeError),
            HarnessError
        );
    }
}
