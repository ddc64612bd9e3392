//! `harness contest`: time the entries, rank them, write the leaderboard.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::course::contest::credits;
use harness::report::{JsonLines, Mode, Reporter, Scorecard, Sink, Terminal};
use harness::settings::{Repeat, RunOptions};

use super::{Runner, report_to};
use crate::cli::Format;

/// Times every entry on every case, ranks them, writes the leaderboard.
pub fn run(args: &crate::cli::ContestArgs) -> anyhow::Result<ExitCode> {
    use harness::contest;
    crate::options::duration("--time-limit", args.time_limit)?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let course = args.course.as_deref().map(Course::load).transpose()?;
    let cases = cases(args, course.as_ref(), moves.path())?;
    let mut options = options(args)?;
    if let Some(c) = &course {
        c.apply(&mut options);
    }
    let plan = contest::Plan {
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        metric: crate::options::metric(args.metric),
        time_limit: args.time_limit,
        problems: contest::of_problems(&cases),
    };
    let mut env = contest::Environment::read(options.jobs);
    let runner = Runner::new(&mut options)?;
    let (ctx, cancel) = (runner.context(&options), &runner.cancel);
    // Entries with a `run`, or submissions built as the course does (the
    // builds' folder lives until the contest is over).
    let (entries, built) = super::entries::entries(args, course.as_ref(), &runner, &ctx)?;
    let mut reporter = Reporter::new(sinks(args)?);
    let timed = contest::time(
        &ctx,
        &entries,
        &cases,
        &plan,
        &mut report_to(&mut reporter, cancel),
    );
    env.load.1 = contest::load_average();
    if let Some(e) = reporter.into_error() {
        eprintln!("harness: {e:#}");
        return Ok(ExitCode::from(2));
    }
    if let Some(reason) = timed.summary.stopped {
        eprintln!("harness: the contest was stopped; no leaderboard written");
        return Ok(super::stopped(reason));
    }
    let rows = timed.rows;
    let standings = contest::standings(&entries, &rows, &cases, &plan);
    if let (Some(path), Some(course), Some((_, built))) = (&args.credit, &course, &built) {
        let entrants: Vec<_> = built
            .iter()
            .map(|b| (b.id.clone(), b.team.clone()))
            .collect();
        let placed: Vec<_> = standings.iter().map(contest::Standing::placed).collect();
        let credits = credits(course.file.contest.as_ref(), &entrants, &placed);
        harness::course::contest::write_credits(path, &credits)?;
    }
    write(args, &standings, &env, &plan, options.jobs)?;
    Ok(ExitCode::SUCCESS)
}

/// The contest's cases: the suites' for the role, and where a course's
/// contest times its Checker beside its Solver, the same puzzles with the
/// reference's move lists (written into `moves`) as `checker/...` cases.
fn cases(
    args: &crate::cli::ContestArgs,
    course: Option<&Course>,
    moves: &std::path::Path,
) -> anyhow::Result<Vec<harness::contest::Timed>> {
    use harness::contest;
    let family = crate::options::family(args.family.as_deref())?;
    let found = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let mut cases = contest::cases(found.clone(), crate::options::role(args.role), moves)?;
    if let Some(c) = course.and_then(|c| c.file.contest.as_ref())
        && c.checker.is_some()
    {
        let role = reference::family::Role::Checker;
        cases.extend(contest::cases(found, role, moves)?);
    }
    Ok(cases)
}

/// Where the events go: the terminal (progress, or JSON lines) and the
/// scorecard of medians, streamed.
fn sinks(args: &crate::cli::ContestArgs) -> anyhow::Result<Vec<Box<dyn Sink>>> {
    let mut sinks: Vec<Box<dyn Sink>> = vec![match args.format {
        Format::Human => Box::new(Terminal::progress("contest")),
        Format::Json => Box::new(JsonLines),
        Format::Quiet => Box::new(crate::runner::Quiet),
    }];
    if let Some(path) = &args.scorecard {
        sinks.push(Box::new(Scorecard::open(path, Mode::Force, None)?.0));
    }
    Ok(sinks)
}

/// The leaderboard, its details, the warnings and (for people) the table.
fn write(
    args: &crate::cli::ContestArgs,
    standings: &[harness::contest::Standing],
    env: &harness::contest::Environment,
    plan: &harness::contest::Plan,
    jobs: usize,
) -> anyhow::Result<()> {
    use harness::contest;
    let shown = contest::shown_names(standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(standings, &shown)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    let details = contest::details(standings, &shown, env, plan, jobs)?;
    harness::export::write_atomically(&contest::details_path(&args.leaderboard), &details)?;
    for w in env.warnings(jobs) {
        eprintln!("warning: {w}");
    }
    if args.format == Format::Human {
        let _ = std::io::stdout().write_all(contest::table(standings, &shown).as_bytes());
    }
    Ok(())
}

/// How each run goes: the limits, the isolation (the suites, the other
/// entries and the leaderboard out of sight), warm-up and counted runs.
fn options(args: &crate::cli::ContestArgs) -> anyhow::Result<RunOptions> {
    let cpu = args.metric == crate::cli::MetricArg::Cpu;
    let limits = crate::options::timed(args.time_limit, &args.sandbox, cpu);
    let mut isolation = crate::options::isolation(&args.sandbox, Some(args.jobs))?;
    isolation.hide = args.suites.iter().chain([&args.entries]).cloned().collect();
    let board = std::env::current_dir()?.join(&args.leaderboard);
    isolation.outputs = vec![harness::contest::details_path(&board), board];
    Ok(RunOptions {
        repeat: Repeat {
            warmup: args.warmup as usize,
            runs: args.runs as usize,
        },
        ..RunOptions::new(args.jobs.get(), limits, isolation)
    })
}
