//! `harness grade`: one candidate on suites, or (`--course`) a class.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use std::sync::Arc;

use harness::course::{Course, points};
use harness::export::Exports;
use harness::job::Job;
use harness::report::{Reporter, Scorecard, Sink};
use harness::schedule::Jobs;

use super::{Runner, exit_status, report_to, screen};
use crate::cli::{Format, GradeArgs, IsolationArg};
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
    let mut course = Course::load(course_path)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    if !args.suites.is_empty() {
        let suites: Vec<_> = args.suites.iter().map(|s| cwd.join(s)).collect();
        for s in &suites {
            if !s.exists() {
                anyhow::bail!("suite {} does not exist", s.display());
            }
        }
        course.override_suites(&suites)?;
    }
    let mut args = args.clone();
    args.time_limit = args.time_limit.or(course.file.limits.time_limit);
    args.cpu_limit = args.cpu_limit.or(course.file.limits.cpu_limit);
    if args.sandbox.isolation == IsolationArg::None && args.cpu_limit.is_some() {
        // The course asks for a CPU limit, which needs isolation: say so
        // rather than drop it.
        anyhow::bail!(
            "{} sets a CPU-time limit, which needs isolation: drop --isolation none",
            course.path.display()
        );
    }
    // Read before the run: a bad credit file is a setup error, not a
    // class graded for nothing.
    let credits = args
        .contest_credit
        .as_deref()
        .map(harness::course::contest::read_credits)
        .transpose()?;
    let mut grade = options::grade(&args)?;
    // The course's suites are out of the cases' sight too.
    let suites = course.parts.iter().flat_map(|p| p.suites.iter().cloned());
    grade.options.isolation.hide.extend(suites);
    let outputs = Outputs::from_args(&args)?;
    let submissions = match (&args.submissions, &args.submission) {
        (Some(dir), _) => harness::class::Source::Folder(dir.clone()),
        (None, Some(dir)) => harness::class::Source::One {
            dir: dir.clone(),
            id: match &args.id {
                Some(id) => id.clone(),
                None => dir
                    .canonicalize()
                    .unwrap_or_else(|_| dir.clone())
                    .file_name()
                    .map_or_else(|| "submission".into(), |n| n.to_string_lossy().into_owned()),
            },
        },
        (None, None) => anyhow::bail!("--course needs --submissions or --submission"),
    };
    if args.submissions.is_some()
        && let Some((_, path)) = outputs
            .exports
            .iter()
            .find(|(format, path)| format == "gradescope" && is_json(path))
    {
        // Before the run: a class's results are a folder of them.
        anyhow::bail!(
            "--export gradescope:{} names a file, but a class's Gradescope results are a folder (DIR/<id>/results.json): name a folder, or grade one --submission",
            path.display()
        );
    }
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
    let screen = screen(outputs.format, &label);
    let mut sinks = vec![screen, Box::new(scorecard) as Box<dyn Sink>];
    let (gradescope, others): (Vec<_>, Vec<_>) = outputs
        .exports
        .iter()
        .cloned()
        .partition(|(format, _)| format == "gradescope");
    if !others.is_empty() {
        sinks.push(Box::new(Exports::new(&others, &label, &kept)?));
    }
    let mut reporter = Reporter::new(sinks);
    let result = harness::class::run(
        &ctx,
        &course,
        prepared,
        &kept,
        &mut report_to(&mut reporter, cancel),
    )?;
    let mut points = points::points(
        &course,
        &result.ids,
        &result.keys,
        &result.rows,
        &result.handins,
        credits.as_ref(),
    );
    // One submission that enters the course's contest: its live entry
    // for the platform's leaderboard.
    if let (Some(dir), Some(contest), Some(part), [one]) = (
        &args.submission,
        &course.file.contest,
        course.solver_part(),
        points.as_mut_slice(),
    ) && let Some(Ok(team)) = harness::course::contest::team(dir, &contest.entry_file)
    {
        let part = &course.parts[part].file.name;
        one.entry = Some(harness::course::contest::Live::of(
            &team,
            part,
            &result.rows,
        ));
    }
    if let Some(path) = &args.summary {
        points::write_summary(path, &course, &points)?;
    }
    for (_, path) in others.iter().filter(|(format, _)| format == "json") {
        points::add_to_json_export(path, &points)?;
    }
    for (_, path) in &gradescope {
        match points.as_slice() {
            // One submission and a file's name: exactly there, as
            // --results (Gradescope's /autograder/results/results.json).
            [one] if args.submission.is_some() && is_json(path) => {
                points::write_results(path, &course, one, &result.rows)?;
            }
            _ => points::write_gradescope(path, &course, &points, &result.rows)?,
        }
    }
    if let (Some(path), [one]) = (&args.autolab, points.as_slice()) {
        points::write_autolab(path, one)?;
    }
    if let (Some(path), [one]) = (&args.results, points.as_slice()) {
        points::write_results(path, &course, one, &result.rows)?;
    }
    if let (Some(path), [one]) = (&args.prairielearn, points.as_slice()) {
        points::write_prairielearn(path, &course, one, &result.rows)?;
    }
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

/// Whether `path` names a JSON file rather than a folder.
fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}
