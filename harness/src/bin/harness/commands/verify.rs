//! `harness verify`: a problem package's judge solutions against their
//! folders (see `harness::verify`), a table of them, and the exit status.

use std::process::ExitCode;

use harness::report::{Mode, Reporter, Scorecard, Sink};
use harness::settings::RunOptions;
use harness::verify::{Plan, Verified};

use super::{Runner, report_to, screen};
use crate::cli::{Format, VerifyArgs};

/// Verifies the package; prints the table.
pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut options = options(args)?;
    let runner = Runner::new(&mut options)?;
    let ctx = runner.context(&options);
    let plan = Plan::new(&args.package, ctx.executor)?;
    if args.format == Format::Human {
        eprintln!("{}", ctx.executor.describe());
    }
    plan.build_validator(&ctx)?;
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    if args.format == Format::Json {
        sinks.push(screen(args.format, "verify"));
    }
    if let Some(path) = &args.scorecard {
        super::refuse_existing(path, args.force)?;
        let mode = if args.force {
            Mode::Force
        } else {
            Mode::Create
        };
        sinks.push(Box::new(Scorecard::open(path, mode, None)?.0));
    }
    let mut reporter = Reporter::new(sinks);
    let verified = plan.run(&ctx, &mut report_to(&mut reporter, &runner.cancel));
    if let Some(e) = reporter.into_error() {
        anyhow::bail!(e);
    }
    if args.format != Format::Quiet {
        print!("{}", table(&verified));
    }
    crate::runner::say_store(&options);
    let checked: Vec<_> = verified
        .submissions
        .iter()
        .filter_map(|s| s.matches())
        .collect();
    let all = checked.iter().all(|m| *m);
    if args.write_timelimit && all && verified.summary.stopped.is_none() && !verified.given {
        let file = args.package.join(".timelimit");
        std::fs::write(&file, format!("{}\n", verified.time_limit.0))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", file.display()))?;
        println!("wrote {}", file.display());
    }
    Ok(match verified.summary.stopped {
        Some(_) => ExitCode::from(3),
        None if all => ExitCode::SUCCESS,
        None => ExitCode::from(1),
    })
}

/// How verify's jobs run: `--jobs`, the isolation (the package and the
/// scorecard out of sight), the result store.
fn options(args: &VerifyArgs) -> anyhow::Result<RunOptions> {
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    // Each case's own limit is set by the package (or its accepted
    // submissions); the run's is a placeholder.
    let limits = crate::options::timed(std::time::Duration::from_secs(1), &args.sandbox, true);
    let mut isolation = crate::options::isolation(&args.sandbox, args.jobs)?;
    let cwd = std::env::current_dir()?;
    // The package (its answers, its other submissions) out of every
    // case's sight, and the scorecard the run writes.
    isolation.hide.push(cwd.join(&args.package));
    isolation.partners = harness::discover::any_interactive([&args.package]);
    isolation
        .outputs
        .extend(args.scorecard.iter().map(|s| cwd.join(s)));
    let store = crate::options::store(&args.cache, false, &cwd, &mut isolation)?;
    let mut options = RunOptions::new(jobs, limits, isolation);
    options.store = store;
    Ok(options)
}

/// The submissions, one line each, and what the limit was.
fn table(v: &Verified) -> String {
    let (limit, high) = v.time_limit;
    let mut out = format!(
        "time limit {limit} s ({}); runs watched to {high} s\n",
        v.limit_from
    );
    let width = v
        .submissions
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0);
    let (mut ok, mut off, mut unbuilt) = (0, 0, 0);
    for s in &v.submissions {
        let mark = match s.matches() {
            Some(true) => {
                ok += 1;
                "ok"
            }
            Some(false) => {
                off += 1;
                "WRONG"
            }
            None => {
                unbuilt += 1;
                "-"
            }
        };
        let time = match s.got {
            Ok(_) => format!("{:.2} s", s.time),
            Err(_) => "-".into(),
        };
        out += &format!(
            "{:<width$}  {:<4} {:<7} {:>8}  {}\n",
            s.name,
            s.expected.short(),
            mark,
            time,
            s.said()
        );
    }
    out += &format!(
        "{ok} as their folders say, {off} not, {unbuilt} not verified here (no compiler)\n"
    );
    out
}
