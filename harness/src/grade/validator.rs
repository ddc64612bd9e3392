//! A problem package's own output validator, run as the format says: built
//! once for the run (its language's compile command, problemtools'
//! flags, under the candidates' isolation: it is the package's code, not
//! ours), then on each output its family's judge let through (an exit 0):
//! `validator input answer feedback_dir/ flags < output`; exit 42 is
//! accepted, 43 a wrong answer (its `judgemessage.txt` the row's detail),
//! anything else a judge error, never the candidate's fault
//! (`harness-error`).

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::executor::{Ending, LimitHit, Limits, RunResult, Spec, signal_name};
use crate::job::{Built, Case, Validator};
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// A validator's run's limit (problemtools' `validation_time` default).
const RUN_TIME: Duration = Duration::from_secs(60);

/// The exit status of an accepted output.
const ACCEPTED: i32 = 42;

/// The exit status of a wrong answer.
const WRONG_ANSWER: i32 = 43;

/// Builds `validator` on job slot `slot` unless it is built already (or
/// failed to build): its run command, or why it did not build, naming
/// its program.
pub fn build(ctx: &Context, validator: &Validator, slot: usize) -> Result<Vec<String>, String> {
    let built = validator
        .built
        .get_or_init(|| build_now(ctx, validator, slot));
    let named = |why: &str| {
        format!(
            "{}: the package's {} did not build: {why}",
            validator.program.path.display(),
            validator.role
        )
    };
    built
        .as_ref()
        .map(|(argv, _)| argv.clone())
        .map_err(|why| named(why))
}

fn build_now(ctx: &Context, v: &Validator, slot: usize) -> Result<Built, String> {
    use std::os::unix::fs::PermissionsExt;
    let made = |e: std::io::Error| format!("cannot make its folder: {e}");
    let work = tempfile::Builder::new()
        .prefix("puzzlegrade-validator-")
        .tempdir_in(ctx.executor.scratch_place().base())
        .map_err(made)?;
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).map_err(made)?;
    let dir = work.path().join("validator");
    let owner = ctx.executor.owner(slot);
    let planned = super::program::plan(&v.program, (dir.clone(), &dir), v.memory_mib, owner)?;
    let mut row = Row::new("validator", "package", "build", "build");
    super::build::grade(ctx, &mut row, &planned.build, slot);
    match row.verdict {
        Verdict::Accepted => Ok((planned.run, Arc::new(work))),
        _ => Err(row.detail),
    }
}

/// Judges the output of `run` (a candidate on `case`, which its family's
/// judge accepted as a run that ended well) by the package's `validator`,
/// on job slot `slot`, into `row`: its verdict and detail (the
/// candidate's own measures stay).
pub(super) fn judge(ctx: &Context, row: &mut Row, case: &Case, run: &RunResult, slot: usize) {
    let mut judged = |(verdict, detail): (Verdict, String)| {
        row.verdict = verdict;
        row.detail = detail;
    };
    let Some(validator) = &case.validator else {
        return;
    };
    let mut spec = match spec(ctx, validator, case, slot) {
        Ok(Some(spec)) => spec,
        Ok(None) => return,
        Err(why) => return judged((Verdict::HarnessError, why)),
    };
    // The output on its stdin: a file of the harness's, opened by it.
    let output = tempfile::NamedTempFile::new()
        .and_then(|mut f| std::io::Write::write_all(&mut f, &run.stdout.bytes).map(|()| f));
    let output = match output {
        Ok(f) => f,
        Err(e) => {
            let why = format!("cannot keep the output: {e}");
            return judged((Verdict::HarnessError, failed(why)));
        }
    };
    spec.stdin = Some(output.path().to_owned());
    let ran = ctx.executor.execute(&spec, &limits(ctx), ctx.cancel);
    match said(&ran, validator.score) {
        Ok(score) => row.score = score,
        Err(said) => judged(said),
    }
}

/// The run of `validator` on `case` (built first, on job slot `slot`),
/// its stdin not given yet: in its folder (its feedback folder, its own),
/// with the case's `.in` and `.ans`, then `./` and its flags; `None`
/// where the case cannot be run (its files are wrong: said already).
pub(super) fn spec(
    ctx: &Context,
    validator: &Validator,
    case: &Case,
    slot: usize,
) -> Result<Option<Spec>, String> {
    let Ok(files) = &case.files else {
        return Ok(None);
    };
    let argv = build(ctx, validator, slot)?;
    let dir = validator.built.get().and_then(|b| b.as_ref().ok());
    let workdir = dir.map_or_else(
        || Path::new("/").to_owned(),
        |(_, d)| d.path().join("validator"),
    );
    Ok(Some(Spec {
        argv: argv.into_iter().map(OsString::from).collect(),
        files: files.clone(),
        contents: None,
        workdir,
        slot,
        stdin: None,
        relative: true,
        write_workdir: false,
        network: false,
        ipc: false,
        // Its feedback folder: its working folder (its own).
        tail: std::iter::once(OsString::from("./"))
            .chain(validator.flags.iter().map(OsString::from))
            .chain(case.validator_flags.iter().map(OsString::from))
            .collect(),
        returns: vec!["judgemessage.txt".into(), "score.txt".into()],
        wired: None,
    }))
}

/// A validator's run's limits: its time (problemtools'), no CPU limit,
/// a MiB of output kept.
pub(super) fn limits(ctx: &Context) -> Limits {
    Limits {
        time: RUN_TIME,
        cpu: None,
        stdout: 1 << 20,
        ..ctx.options.limits
    }
}

/// The failure of the package's validator: `why`, in the row's words.
fn failed(why: String) -> String {
    format!("the package's output validator failed: {why}")
}

/// What the validator's run `ran` says of the output: accepted (42),
/// with the points of its `score.txt` where it may give points (`score`:
/// see `Validator::score`); else the row's verdict and detail (43 a
/// wrong answer with its `judgemessage.txt`; anything else a judge error,
/// never the candidate's fault: another exit, a signal, a limit, a
/// `score.txt` beside a 43 or where the problem gives no points, one that
/// is not a number, or none where the problem must have one).
pub(super) fn said(ran: &RunResult, score: Option<bool>) -> Result<Option<f64>, (Verdict, String)> {
    let message = feedback(ran, "judgemessage.txt");
    let points = ran
        .returned
        .iter()
        .find(|(n, _)| n == "score.txt")
        .map(|(_, b)| String::from_utf8_lossy(b).trim().to_owned());
    let je = |why: String| Err((Verdict::HarnessError, failed(why)));
    match (&ran.ending, ran.limit) {
        _ if ran.cancelled => Err((
            Verdict::Cancelled,
            "stopped: the grading run was cancelled".into(),
        )),
        (Ending::Failed(why), _) => je(why.clone()),
        (_, Some(hit)) => je(format!("it ran out of its limits ({})", limit_name(hit))),
        (Ending::Exited(ACCEPTED), None) => match (points, score) {
            (Some(_), None) => je("it wrote score.txt, and the problem gives no points".into()),
            (Some(p), Some(_)) => match p.parse::<f64>() {
                Ok(p) if p.is_finite() => Ok(Some(p)),
                _ => je(format!("its score.txt is not a number: {p:?}")),
            },
            (None, Some(true)) => {
                je("it wrote no score.txt, and the problem's scores are its".into())
            }
            (None, _) => Ok(None),
        },
        (Ending::Exited(WRONG_ANSWER), None) if points.is_some() => {
            je("it wrote score.txt on a wrong answer".into())
        }
        (Ending::Exited(WRONG_ANSWER), None) => Err((
            Verdict::WrongAnswer,
            message.unwrap_or_else(|| "the package's output validator: wrong answer".into()),
        )),
        (Ending::Exited(code), None) => je(format!(
            "exit {code} (42 or 43 expected){}",
            said_too(message)
        )),
        (Ending::Signaled(sig), None) => je(format!(
            "killed by {}{}",
            signal_name(*sig),
            said_too(message)
        )),
    }
}

/// The file `name` the validator handed back, on one line (its first
/// lines, ` | ` between them, at most 500 characters); `None` where it
/// wrote none or an empty one.
fn feedback(run: &RunResult, name: &str) -> Option<String> {
    let (_, bytes) = run.returned.iter().find(|(n, _)| n == name)?;
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut line = lines
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(" | ");
    if line.chars().count() > 500 {
        line = line.chars().take(500).collect::<String>() + "...";
    }
    (!line.is_empty()).then_some(line)
}

/// `: message`, where there is one.
fn said_too(message: Option<String>) -> String {
    message.map(|m| format!(": {m}")).unwrap_or_default()
}

fn limit_name(hit: LimitHit) -> &'static str {
    match hit {
        LimitHit::Time | LimitHit::Cpu => "time",
        LimitHit::Memory | LimitHit::Scratch => "memory",
        LimitHit::Stdout => "output",
    }
}
