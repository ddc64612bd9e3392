//! `harness contest`: time the entries, rank them, write the leaderboard.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::course::contest::{Placed, credits};
use harness::event::Event;
use harness::executor::Limits;
use harness::report::{Mode, Scorecard};
use harness::settings::{Repeat, RunOptions};

use super::Runner;

/// Times every entry on every case, ranks them, writes the leaderboard.
pub fn run(args: &crate::cli::ContestArgs) -> anyhow::Result<ExitCode> {
    use harness::contest;
    crate::options::duration("--time-limit", args.time_limit)?;
    let family = crate::options::family(args.family.as_deref())?;
    let found = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let course = args.course.as_deref().map(Course::load).transpose()?;
    let mut cases = contest::cases(found.clone(), crate::options::role(args.role), moves.path())?;
    // A course's Checker is timed beside its Solver, on the reference's
    // move lists for the same puzzles (`checker/...` cases).
    if let Some(c) = course.as_ref().and_then(|c| c.file.contest.as_ref())
        && c.checker.is_some()
    {
        let role = reference::family::Role::Checker;
        cases.extend(contest::cases(found, role, moves.path())?);
    }
    let options = options(args)?;
    let plan = contest::Plan {
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        metric: crate::options::metric(args.metric),
        time_limit: args.time_limit,
    };
    let mut env = contest::Environment::read(options.jobs);
    let runner = Runner::new(&options)?;
    let (ctx, cancel) = (runner.context(&options), &runner.cancel);
    // Entries with a `run`, or submissions built as the course does (the
    // builds' folder lives until the contest is over).
    let (entries, built) = super::entries::entries(args, course.as_ref(), &runner, &ctx)?;
    let bar = indicatif::ProgressBar::new((entries.len() * cases.len()) as u64);
    let rows = contest::time(&ctx, &entries, &cases, &mut |event| {
        if matches!(event, Event::CaseStarted { .. }) {
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    env.load.1 = contest::load_average();
    if let Some(reason) = cancel.reason().filter(|_| cancel.is_requested()) {
        eprintln!("harness: the contest was stopped; no leaderboard written");
        return Ok(super::stopped(reason));
    }
    let standings = contest::standings(&entries, &rows, &cases, &plan);
    if let (Some(path), Some(course), Some((_, built))) = (&args.credit, &course, &built) {
        let entrants: Vec<_> = built
            .iter()
            .map(|b| (b.id.clone(), b.team.clone()))
            .collect();
        let placed: Vec<_> = standings.iter().map(placed).collect();
        let credits = credits(course.file.contest.as_ref(), &entrants, &placed);
        harness::course::contest::write_credits(path, &credits)?;
    }
    let family = cases.first().map_or("", |c| c.case.family.name());
    write(args, &standings, &env, &plan, family, options.jobs)?;
    Ok(ExitCode::SUCCESS)
}

/// The leaderboard, its details, the scorecard of medians, the warnings
/// and the table.
fn write(
    args: &crate::cli::ContestArgs,
    standings: &[harness::contest::Standing],
    env: &harness::contest::Environment,
    plan: &harness::contest::Plan,
    family: &str,
    jobs: usize,
) -> anyhow::Result<()> {
    use harness::contest;
    let shown = contest::shown_names(standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(standings, &shown)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    let details = contest::details(standings, &shown, env, plan, jobs)?;
    harness::export::write_atomically(&contest::details_path(&args.leaderboard), &details)?;
    if let Some(path) = &args.scorecard {
        let (mut card, _) = Scorecard::open(path, Mode::Force, None)?;
        for row in contest::median_rows(standings, family) {
            card.append(&row)?;
        }
    }
    for w in env.warnings(jobs) {
        eprintln!("warning: {w}");
    }
    let _ = std::io::stdout().write_all(contest::table(standings, &shown).as_bytes());
    Ok(())
}

/// How each run goes: the limits, the isolation (the suites and the other
/// entries out of sight), warm-up and counted runs.
fn options(args: &crate::cli::ContestArgs) -> anyhow::Result<RunOptions> {
    let limits = Limits::new(args.time_limit, args.sandbox.memory_limit.as_u64());
    let mut isolation = crate::options::isolation(&args.sandbox, Some(args.jobs))?;
    isolation.hide = args.suites.iter().chain([&args.entries]).cloned().collect();
    Ok(RunOptions {
        repeat: Repeat {
            warmup: args.warmup as usize,
            runs: args.runs as usize,
        },
        ..RunOptions::new(args.jobs.get(), limits, isolation)
    })
}

/// A standing as its credit is figured.
fn placed(s: &harness::contest::Standing) -> Placed {
    Placed {
        entry: s.entry.clone(),
        rank: s.rank,
        solved: s.solved,
        cases: s.cases.len(),
        par2: s.par2,
    }
}
