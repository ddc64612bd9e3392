//! `harness grade`: one candidate on suites, or (`--course`) a class.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use std::sync::Arc;

use harness::class::outputs;
use harness::course::{Course, points};
use harness::export::Exports;
use harness::job::Job;
use harness::report::{Reporter, Scorecard, Sink};
use harness::schedule::Jobs;

use super::{Runner, exit_status, report_to, screen};
use crate::cli::{Format, GradeArgs};
use crate::options::{self, Outputs};

/// Discovers, runs every case in parallel, reports.
pub fn run(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    if let Some(course) = &args.course {
        return class(args, course);
    }
    let grade = options::grade(args)?;
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
    let runner = Runner::new(&grade.options)?;
    runner.check(&candidate, &label)?;
    let candidate = Arc::new(candidate);
    let (scorecard, kept) = Scorecard::open_kept(
        &outputs.scorecard,
        outputs.mode,
        Some(&label),
        !outputs.exports.is_empty(),
    )?;
    let todo = |c: &harness::job::Case| !kept.contains(&label, &c.suite, &c.name);
    let job = |c: harness::job::Case| Job::puzzle(&label, &candidate, &Arc::new(c));
    let jobs = match selection.shard {
        // Balanced over the shards by cost: every case is weighed first.
        Some(shard) => {
            let costs = selection.shard_costs.as_deref();
            let cases = harness::shard::select(suites.cases().collect(), shard, |c| {
                let files = c.files.as_deref().unwrap_or_default();
                let cost = harness::shard::case_cost(costs, &c.suite, &c.name, files);
                (format!("{}/{}", c.suite, c.name), cost)
            });
            let jobs: Vec<Job> = cases.into_iter().filter(todo).map(job).collect();
            Jobs::from(jobs)
        }
        None => {
            let count = if kept.is_empty() {
                suites.count()
            } else {
                suites.cases().filter(todo).count()
            };
            Jobs::stream(count, suites.cases().filter(todo).map(job))
        }
    };
    let screen = screen(outputs.format, &label);
    let mut sinks = vec![screen, Box::new(scorecard) as Box<dyn Sink>];
    if !outputs.exports.is_empty() {
        let rows = kept.rows.as_deref().unwrap_or_default();
        sinks.push(Box::new(Exports::new(&outputs.exports, &label, rows)?));
    }
    let mut reporter = Reporter::new(sinks);
    let (ctx, cancel) = (runner.context(&grade.options), &runner.cancel);
    let summary = harness::schedule::run(
        &ctx,
        &label,
        jobs,
        &kept.summary,
        &mut report_to(&mut reporter, cancel),
    );
    Ok(exit_status(&summary, reporter))
}

/// `--course --submissions`: build and grade every submission, then score
/// each by the rubric.
fn class(args: &GradeArgs, course_path: &Path) -> anyhow::Result<ExitCode> {
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
