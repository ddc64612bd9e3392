//! `harness grade --course`: a class (or one submission) built and graded
//! by a course config, then scored by its rubric.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::class::outputs;
use harness::course::{Course, points};
use harness::export::Exports;
use harness::report::{Reporter, Scorecard, Sink};

use super::{Runner, exit_status, report_to, screen};
use crate::cli::{Format, GradeArgs};
use crate::options::{self, Outputs};

/// `--course --submissions`: build and grade every submission, then score
/// each by the rubric.
pub fn run(args: &GradeArgs, course_path: &Path) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let suites: Vec<_> = args.suites.iter().map(|s| cwd.join(s)).collect();
    let course = Course::load_with(course_path, &suites)?;
    let mut args = args.clone();
    args.time_limit = args.time_limit.or(course.file.limits.time_limit);
    if args.cpu_limit.is_none() {
        let whose = format!("the CPU-time limit {} sets", course.path.display());
        options::cpu_needs_isolation(&args.sandbox, course.file.limits.cpu_limit, &whose)?;
        args.cpu_limit = course.file.limits.cpu_limit;
    }
    let mut grade = options::grade(&args)?;
    // The course's suites are out of the cases' sight too.
    let suites = course.parts.iter().flat_map(|p| p.suites.iter().cloned());
    grade.options.isolation.hide.extend(suites);
    let outputs = Outputs::from_args(&args)?;
    let after = class_outputs(&args, &outputs)?;
    let submissions = options::submissions(&args)?;
    let runner = Runner::new(&grade.options)?;
    let (ctx, cancel) = (runner.context(&grade.options), &runner.cancel);
    // Every setup error before the scorecard is touched: a bad config or
    // filter leaves an earlier scorecard as it was, and no empty one.
    let prepared =
        harness::class::prepare(&ctx, &course, &grade.selection, &submissions, &args.only)?;
    let (scorecard, kept) = if args.only.is_empty() {
        Scorecard::open(&outputs.scorecard, outputs.mode, None)?
    } else {
        let ids = args.only.iter().cloned().collect();
        Scorecard::open_regrade(&outputs.scorecard, &ids)?
    };
    let label = course.file.name.clone();
    let mut sinks = vec![
        screen(outputs.format, &label),
        Box::new(scorecard) as Box<dyn Sink>,
    ];
    let others: Vec<_> = outputs
        .exports
        .iter()
        .filter(|(format, _)| format != "gradescope")
        .cloned()
        .collect();
    if !others.is_empty() {
        sinks.push(Box::new(Exports::new(&others, &label, &kept)?));
    }
    let mut reporter = Reporter::new(sinks);
    let result = {
        let report = &mut report_to(&mut reporter, cancel);
        harness::class::run(&ctx, &course, prepared, &kept, report)?
    };
    let points = outputs::write(&course, &result, &after)?;
    if outputs.format == Format::Human {
        let _ = std::io::stdout().write_all(points::table(&points).as_bytes());
        if let (Some(_), [one]) = (&args.submission, points.as_slice()) {
            // One line a CI server can read the score from (GitLab's
            // `coverage` pattern: docs/platforms.md).
            println!("{}", points::score_line(one));
        }
    }
    Ok(exit_status(&result.summary, reporter))
}

/// What a class run writes after its rows, from the flags: checked before
/// the run (a bad credit file or results target is a setup error, not a
/// class graded for nothing).
fn class_outputs(args: &GradeArgs, outputs: &Outputs) -> anyhow::Result<outputs::Outputs> {
    let class = args.submissions.is_some();
    let mut results = Vec::new();
    for (format, path) in &outputs.exports {
        if format == "gradescope" {
            results.push(outputs::Results::export(path, class)?);
        }
    }
    let flags = [
        ("autolab", &args.autolab),
        ("prairielearn", &args.prairielearn),
    ];
    for (name, path) in flags {
        if let Some(path) = path {
            let platform = harness::platform::find(name).expect("in the table");
            results.push(outputs::Results::file(platform, path)?);
        }
    }
    for arg in &args.results {
        results.push(outputs::Results::parse(arg)?);
    }
    Ok(outputs::Outputs {
        summary: args.summary.clone(),
        json: outputs
            .exports
            .iter()
            .filter(|(format, _)| format == "json")
            .map(|(_, path)| path.clone())
            .collect(),
        results,
        credits: args
            .contest_credit
            .as_deref()
            .map(harness::course::contest::read_credits)
            .transpose()?,
        entry_of: args.submission.clone(),
    })
}
