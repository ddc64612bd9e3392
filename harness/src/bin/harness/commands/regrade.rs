//! `harness regrade`: a graded class's points again, from its scorecard's
//! rows under the rubric as it is now; nothing runs.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::points;

use crate::cli::GradeArgs;

/// `harness regrade`: the points of a graded class from its scorecard's
/// rows under the rubric as it is now; nothing runs. Prints only each
/// submission whose total moved from the summary's, and a last line;
/// exits 0 (2 where a row is missing or a report failed, 3 where a
/// submission could not be graded).
pub fn run(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    let course = args
        .course
        .as_deref()
        .context("regrade needs --course (and the class's --submissions)")?;
    if !args.scorecard.exists() {
        anyhow::bail!(
            "{}: no scorecard to regrade from (grade the class first)",
            args.scorecard.display()
        );
    }
    let before = match &args.summary {
        Some(path) if path.exists() => points::read_totals(path)?,
        _ => Vec::new(),
    };
    let mut args = args.clone();
    (args.resume, args.force, args.rerun_failed) = (true, false, false);
    // Only what moved on the terminal.
    args.format = crate::cli::Format::Quiet;
    // (Nothing runs: no store to open.)
    args.cache.no_cache = true;
    let (status, after) = super::class::grade(&args, course, true)?;
    // (NaN: not graded, in the summary or now.)
    let now = |p: &points::Points| p.ungraded.as_ref().map_or(p.total, |_| f64::NAN);
    let moved: Vec<_> = after
        .iter()
        .filter_map(|p| {
            let (_, was) = before.iter().find(|(id, _)| *id == p.submission)?;
            let now = now(p);
            let same = (was - now).abs() < 1e-9 || (was.is_nan() && now.is_nan());
            (!same).then_some((&p.submission, *was, now))
        })
        .collect();
    let shown = |x: f64| {
        if x.is_nan() {
            "not graded".to_string()
        } else {
            x.to_string()
        }
    };
    let mut err = std::io::stderr().lock();
    for (id, was, now) in &moved {
        let _ = writeln!(err, "{id}: {} -> {}", shown(*was), shown(*now));
    }
    let _ = writeln!(
        err,
        "regrade: {} submissions, {} totals changed; 0 cases run",
        after.len(),
        moved.len()
    );
    // Every row there: done (some not accepted is the class's, not the
    // regrade's); a report that failed (2) or a submission not graded (3)
    // stays.
    Ok(if status == ExitCode::from(1) {
        ExitCode::SUCCESS
    } else {
        status
    })
}
