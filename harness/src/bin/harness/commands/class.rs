//! `harness grade --course`: a class (or one submission) built and graded
//! by a course config, then scored by its rubric.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::class::outputs;
use harness::course::Course;
use harness::course::points::{self, Points};
use harness::export::Exports;
use harness::report::{Hiding, Reporter, Scorecard, Sink};

use super::{Runner, exit_status, report_to, screen_of};
use crate::cli::{Format, GradeArgs};
use crate::options::{self, Outputs};

/// `--course --submissions`: build and grade every submission, then score
/// each by the rubric.
pub fn run(args: &GradeArgs, course_path: &Path) -> anyhow::Result<ExitCode> {
    grade(args, course_path, false).map(|(status, _)| status)
}

/// A class graded (`regrade`: nothing may run), its points.
pub(super) fn grade(
    args: &GradeArgs,
    course_path: &Path,
    regrade: bool,
) -> anyhow::Result<(ExitCode, Vec<Points>)> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let suites: Vec<_> = args.suites.iter().map(|s| cwd.join(s)).collect();
    let course = Course::load_with(course_path, &suites)?;
    let args = with_course(args, &course, regrade)?;
    let mut grade = options::grade(&args)?;
    course.apply(&mut grade.options);
    // Also out of sight: its suites, its folder (bar what a part names).
    let suites = course.parts.iter().flat_map(|p| p.suites.iter().cloned());
    grade.options.isolation.partners |= harness::discover::any_interactive(suites.clone());
    (grade.options.isolation.hide)
        .extend(suites.chain(cwd.join(course_path).parent().map(Path::to_owned)));
    let outputs = Outputs::from_args(&args)?;
    let after = options::class_outputs(&args, &outputs)?;
    let submissions = options::submissions(&args)?;
    let runner = Runner::new(&mut grade.options)?;
    let (ctx, cancel) = (runner.context(&grade.options), &runner.cancel);
    // Every setup error before the scorecard is touched: a bad config or
    // filter leaves an earlier scorecard as it was, and no empty one.
    let prepared =
        harness::class::prepare(&ctx, &course, &grade.selection, &submissions, &args.only)?;
    let card = &outputs.scorecard;
    let apart = regrade
        .then(|| super::held::apart(&prepared, card))
        .transpose()?;
    let (scorecard, kept) = if args.only.is_empty() {
        Scorecard::open(card, outputs.mode, None)?
    } else {
        Scorecard::open_regrade(card, &args.only.iter().cloned().collect())?
    };
    let kept = super::held::held(apart, kept, &prepared, card)?;
    let mut reporter = Reporter::new(sinks(&args, &outputs, &course, scorecard, &kept)?);
    let result = {
        let report = &mut report_to(&mut reporter, cancel);
        harness::class::run(&ctx, &course, prepared, &kept, report)?
    };
    let points = outputs::write(&course, &result, &after)?;
    crate::runner::say_store(ctx.options);
    let status = show(
        &args,
        &outputs,
        &points,
        exit_status(&result.summary, reporter),
    );
    Ok((status, points))
}

/// `args` with the course's limits where they name none; an error where
/// the machine lacks a program the course runs (a regrade runs none).
fn with_course(args: &GradeArgs, course: &Course, regrade: bool) -> anyhow::Result<GradeArgs> {
    let path = std::env::var_os("PATH");
    if let Some(lacks) = course.lacks(path.as_deref())
        && !regrade
    {
        anyhow::bail!("{lacks}: nothing graded");
    }
    if let Some(warning) = course.uninstalled(path.as_deref()).filter(|_| !regrade) {
        eprintln!("harness: warning: {warning}");
    }
    let mut args = args.clone();
    args.wall_limit = args.wall_limit.or(course.file.limits.time_limit);
    if args.cpu_limit.is_none() {
        let whose = format!("the CPU-time limit {} sets", course.path.display());
        options::cpu_needs_isolation(&args.sandbox, course.file.limits.cpu_limit, &whose)?;
        args.cpu_limit = course.file.limits.cpu_limit;
    }
    Ok(args)
}

/// Where the run's events go: the terminal, the scorecard and the
/// exports; with --student-view, the terminal and the exports see nothing
/// of the cases students may not.
fn sinks(
    args: &GradeArgs,
    outputs: &Outputs,
    course: &Course,
    scorecard: Scorecard,
    kept: &[harness::outcome::Row],
) -> anyhow::Result<Vec<Box<dyn Sink>>> {
    let label = &course.file.name;
    let shown = |sink: Box<dyn Sink>| -> Box<dyn Sink> {
        if args.student_view {
            Box::new(Hiding::new(sink, course.hidden_from_students()))
        } else {
            sink
        }
    };
    let screen = screen_of(outputs.format, label, args.student_view.then_some(course));
    let mut sinks = vec![shown(screen), Box::new(scorecard)];
    let others: Vec<_> = outputs
        .exports
        .iter()
        .filter(|(format, _)| format != "gradescope")
        .cloned()
        .collect();
    if !others.is_empty() {
        sinks.push(shown(Box::new(Exports::new(&others, label, kept)?)));
    }
    Ok(sinks)
}

/// The points on the terminal, and the run's exit status: a stop or a
/// failed report's first (130, 143, 2), then 3 when a submission could not
/// be graded, then `status`.
fn show(args: &GradeArgs, outputs: &Outputs, points: &[Points], status: ExitCode) -> ExitCode {
    if outputs.format == Format::Human {
        let _ = std::io::stdout().write_all(points::table(points).as_bytes());
        if let (Some(_), [one]) = (&args.submission, points)
            && one.ungraded.is_none()
        {
            // One line a CI server can read the score from (GitLab's
            // `coverage` pattern: docs/platforms.md).
            println!("{}", points::score_line(one));
        }
    }
    if status != ExitCode::SUCCESS && status != ExitCode::from(1) {
        return status;
    }
    super::ungraded(points).unwrap_or(status)
}
