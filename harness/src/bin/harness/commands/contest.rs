//! `harness contest`: time the entries, rank them, write the leaderboard.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::event::Event;
use harness::executor::Limits;
use harness::report::{Mode, Scorecard};
use harness::settings::{Context, Repeat, RunOptions};

use super::Runner;

/// Times every entry on every case, ranks them, writes the leaderboard.
pub fn run(args: &crate::cli::ContestArgs) -> anyhow::Result<ExitCode> {
    use harness::contest;
    if args.time_limit.is_zero() || args.time_limit > harness::settings::MAX_DURATION {
        anyhow::bail!("--time-limit must be more than zero and at most 24 h");
    }
    let family = match &args.family {
        None => None,
        Some(name) => Some(
            reference::families::family(name)
                .with_context(|| format!("unknown family {name:?}"))?,
        ),
    };
    let found = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let cases = contest::cases(found, crate::options::role(args.role), moves.path())?;
    let limits = Limits::new(args.time_limit, args.sandbox.memory_limit.as_u64());
    let mut isolation = crate::options::isolation(&args.sandbox, Some(args.jobs))?;
    // Out of every run's sight: the suites and the other entries.
    isolation.hide = args.suites.iter().chain([&args.entries]).cloned().collect();
    let options = RunOptions {
        repeat: Repeat {
            warmup: args.warmup as usize,
            runs: args.runs as usize,
        },
        ..RunOptions::new(args.jobs.get(), limits, isolation)
    };
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
    let (entries, _work) = match &args.course {
        None => {
            let entries = contest::entries(&args.entries)?;
            for e in &entries {
                if let Ok(candidate) = &e.candidate {
                    runner.check(candidate, &e.name)?;
                }
            }
            (entries, None)
        }
        Some(path) => {
            let course = Course::load(path)?;
            let work = harness::class::work_dir(&runner.executor)?;
            let built = harness::class::built_candidates(
                &Context {
                    options: &RunOptions {
                        repeat: Repeat::default(),
                        ..options.clone()
                    },
                    ..ctx
                },
                &course,
                &args.entries,
                work.path(),
            )?;
            let entries = built
                .into_iter()
                .map(|(name, candidate)| contest::Entry::new(name, candidate))
                .collect();
            (entries, Some(work))
        }
    };
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
    let shown = contest::shown_names(&standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(&standings, &shown, &env, &plan, options.jobs)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    if let Some(path) = &args.scorecard {
        let family = cases.first().map_or("", |c| c.case.family.name());
        let (mut card, _) = Scorecard::open(path, Mode::Force, None)?;
        for row in contest::median_rows(&standings, family) {
            card.append(&row)?;
        }
    }
    for w in env.warnings(options.jobs) {
        eprintln!("warning: {w}");
    }
    let _ = std::io::stdout().write_all(contest::table(&standings, &shown).as_bytes());
    Ok(ExitCode::SUCCESS)
}
