//! `harness grade`: one candidate on suites, or (`--course`, see `class`)
//! a class.

use std::process::ExitCode;

use anyhow::Context as _;
use std::sync::Arc;

use harness::export::Exports;
use harness::report::{Reporter, Scorecard, Sink};

use super::{Runner, exit_status, report_to, screen};
use crate::cli::GradeArgs;
use crate::options::{self, Outputs};

/// Discovers, runs every case in parallel, reports.
pub fn run(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    if let Some(course) = &args.course {
        return super::class::run(args, course);
    }
    let mut grade = options::grade(args)?;
    let outputs = Outputs::from_args(args)?;
    let (candidate, label) = grade.candidate.context("no candidate")?;
    let selection = &grade.selection;
    // Every listing read through once and checked before the scorecard is
    // touched; the cases themselves are read again as they run.
    let suites = harness::discover::Suites::find(
        &selection.suites,
        selection.family,
        selection.filter.as_deref(),
    )?;
    // Before the scorecard is touched: a candidate nobody can run is a
    // setup error, not a column of failed cases.
    let runner = Runner::new(&mut grade.options)?;
    runner.check(&candidate, &label)?;
    let (ctx, cancel) = (runner.context(&grade.options), &runner.cancel);
    // A package's validator that does not build stops the run here, once.
    for v in suites.validators() {
        harness::grade::validator::build(&ctx, v, 0).map_err(anyhow::Error::msg)?;
    }
    let candidate = Arc::new(candidate);
    let (scorecard, kept) = Scorecard::open_kept(
        &outputs.scorecard,
        outputs.mode,
        Some(&label),
        !outputs.exports.is_empty(),
    )?;
    let todo = |c: &harness::job::Case| !kept.contains(&label, &c.suite, &c.name);
    let jobs = suites.jobs(&label, &candidate, selection, (todo, !kept.is_empty()));
    let screen = screen(outputs.format, &label);
    let mut sinks = vec![screen, Box::new(scorecard) as Box<dyn Sink>];
    if !outputs.exports.is_empty() {
        let rows = kept.rows.as_deref().unwrap_or_default();
        sinks.push(Box::new(Exports::new(&outputs.exports, &label, rows)?));
    }
    let mut reporter = Reporter::new(sinks);
    let summary = harness::schedule::run(
        &ctx,
        &label,
        jobs,
        &kept.summary,
        &mut report_to(&mut reporter, cancel),
    );
    crate::runner::say_store(&grade.options);
    let status = exit_status(&summary, reporter);
    if outputs.format == crate::cli::Format::Human {
        say_points(&selection.suites, &outputs.scorecard, &label)?;
    }
    Ok(status)
}

/// Each scoring problem package's points by its own grading (its test
/// groups), from the scorecard's rows of `label`: one line each.
fn say_points(
    suites: &[std::path::PathBuf],
    scorecard: &std::path::Path,
    label: &str,
) -> anyhow::Result<()> {
    let mut rows = None;
    for dir in suites.iter().filter(|d| d.join("problem.yaml").is_file()) {
        let rows = match &mut rows {
            Some(r) => r,
            None => rows.insert(harness::report::read_scorecard(scorecard)?),
        };
        if let Some((got, best)) = harness::verify::points(dir, rows, label)? {
            println!(
                "{}: {got} points of {best} (the package's test groups)",
                dir.display()
            );
        }
    }
    Ok(())
}
