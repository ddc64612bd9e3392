//! `harness regrade`: a graded class's points again, from its scorecard's
//! rows under the rubric as it is now; nothing runs.

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::points;

use crate::cli::GradeArgs;

/// `harness regrade`: the points of a graded class from its scorecard's
/// rows under the rubric as it is now; nothing runs. Prints each
/// submission whose total moved from the summary's, and how many rows
/// were reused.
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
    // (Nothing runs: no store to open.)
    args.no_cache = true;
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
    Ok(status)
}

/// The rows of the scorecard `card` a regrade leaves out (of cases or
/// submissions the class does not holds), named on stderr; an error,
/// before the scorecard is opened, where one submission's case has two
/// rows.
pub(super) fn apart(
    prepared: &harness::class::Prepared,
    card: &std::path::Path,
) -> anyhow::Result<HashSet<(String, String, String)>> {
    let rows = harness::report::read_rows(card)?;
    let (_, apart) = prepared
        .held(rows)
        .with_context(|| format!("{}", card.display()))?;
    if !apart.is_empty() {
        let named: Vec<String> = apart
            .iter()
            .take(5)
            .map(|r| format!("{} {} {}", r.candidate, r.suite, r.case))
            .collect();
        eprintln!(
            "harness: regrade leaves out {} rows of cases or submissions the class does not hold: {}{}",
            apart.len(),
            named.join(", "),
            if apart.len() > 5 { ", ..." } else { "" }
        );
    }
    Ok(apart.iter().map(harness::outcome::Row::key).collect())
}

/// `kept` less the rows a regrade leaves out (`apart`: `None`, not a
/// regrade, leaves all); an error where a row the class needs is missing
/// (nothing runs in a regrade).
pub(super) fn held(
    apart: Option<HashSet<(String, String, String)>>,
    kept: Vec<harness::outcome::Row>,
    prepared: &harness::class::Prepared,
    card: &std::path::Path,
) -> anyhow::Result<Vec<harness::outcome::Row>> {
    let Some(apart) = apart else {
        return Ok(kept);
    };
    let kept: Vec<_> = kept
        .into_iter()
        .filter(|r| !apart.contains(&r.key()))
        .collect();
    if let pending @ 1.. = prepared.pending(&kept) {
        anyhow::bail!(
            "{}: {pending} builds and cases have no row (the class, suites or filter changed): \
             `harness grade --resume` runs them",
            card.display()
        );
    }
    Ok(kept)
}
