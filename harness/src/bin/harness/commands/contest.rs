//! `harness contest`: time the entries, rank them, write the leaderboard.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use harness::course::Course;
use harness::executor::Limits;
use harness::job::Candidate;
use harness::report::{Mode, Scorecard};
use harness::settings::Settings;

use super::watch_signals;

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
    let jobs = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let cases = contest::cases(jobs, crate::options::contest_role(args.role), moves.path())?;
    let names: Vec<String> = cases
        .iter()
        .map(|c| format!("{}/{}", c.job.suite, c.job.case))
        .collect();
    let isolation = crate::options::isolation(&args.sandbox, Some(args.jobs))?;
    let settings = Settings {
        suites: args.suites.clone(),
        candidate: Candidate::Command {
            argv: Vec::new(),
            workdir: std::path::PathBuf::from("/"),
            relative: false,
        },
        label: "contest".into(),
        family,
        filter: args.filter.clone(),
        jobs: args.jobs.get(),
        limits: Limits {
            time: args.time_limit,
            grace: std::time::Duration::from_secs(1),
            stdout: 64 << 20,
            stderr: 1 << 20,
            memory: args.sandbox.memory_limit.as_u64(),
            cpu: None,
        },
        allow_outside_suite: false,
        max_puzzle_size: 64 << 20,
        keep_output: None,
        shard: None,
        shard_costs: None,
        isolation,
    };
    let plan = contest::Plan {
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        metric: crate::options::metric(args.metric),
        time_limit: args.time_limit,
    };
    let mut env = contest::Environment::read(settings.jobs);
    let cancel = watch_signals()?;
    let executor = super::executor(&settings.isolation, settings.max_puzzle_size)?;
    // Entries with a `run`, or submissions built as the course does (the
    // builds' folder lives until the contest is over).
    let (entries, _work) = match &args.course {
        None => (contest::entries(&args.entries)?, None),
        Some(path) => {
            let course = Course::load(path)?;
            let work = harness::class::work_dir(&executor)?;
            let subs = harness::class::submissions(&args.entries, &work.path().join("unpacked"))?;
            let numbered: Vec<(usize, &harness::class::Submission)> =
                subs.iter().enumerate().collect();
            let built = harness::class::build_all(
                &course,
                &numbered,
                work.path(),
                &settings,
                &executor,
                &cancel,
            );
            (contest::built_entries(&course, &subs, built)?, Some(work))
        }
    };
    let bar = indicatif::ProgressBar::new((entries.len() * cases.len()) as u64);
    let rows = contest::time_entries(
        &entries,
        &cases,
        &plan,
        &settings,
        &executor,
        &cancel,
        &|_, _| bar.inc(1),
    );
    bar.finish_and_clear();
    use harness::executor::Executor;
    executor.finish();
    env.load.1 = contest::load_average();
    if let Some(reason) = cancel.reason().filter(|_| cancel.is_requested()) {
        eprintln!("harness: the contest was stopped; no leaderboard written");
        return Ok(super::stopped(reason));
    }
    let mut standings: Vec<contest::Standing> = entries
        .iter()
        .zip(&rows)
        .map(|(e, r)| contest::standing(&e.name, r, &names, &plan))
        .collect();
    contest::rank(&mut standings);
    let shown = contest::shown_names(&standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(&standings, &shown, &env, &plan, settings.jobs)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    if let Some(path) = &args.scorecard {
        let family = cases.first().map_or("", |c| c.job.family.name());
        let (mut card, _) = Scorecard::open(path, Mode::Force, None)?;
        for row in contest::median_rows(&standings, family) {
            card.append(&row)?;
        }
    }
    for w in env.warnings(settings.jobs) {
        eprintln!("warning: {w}");
    }
    let _ = std::io::stdout().write_all(contest::table(&standings, &shown).as_bytes());
    Ok(ExitCode::SUCCESS)
}
