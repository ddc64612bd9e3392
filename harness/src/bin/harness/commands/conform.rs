//! `harness conform`: the exit-status battery on a Checker or Solver.

use std::num::NonZeroUsize;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::job::Candidate;
use harness::report::{Mode, Reporter, Scorecard};
use harness::settings::RunOptions;

use super::{Runner, exit_status, report_to, screen};
use crate::cli::ConformArgs;

/// Runs the family's battery for the role on the candidate.
pub fn run(args: &ConformArgs) -> anyhow::Result<ExitCode> {
    let family = crate::options::family(Some(&args.family))?.expect("named");
    let role = crate::options::role(args.role);
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let (argv, workdir) =
        harness::settings::resolve_command(&args.candidate, args.workdir.as_deref(), &cwd)?;
    let candidate = Candidate::Command {
        argv,
        workdir,
        relative: false,
        copy: false,
        network: false,
        ipc: false,
    };
    let label = args.name.clone().unwrap_or_else(|| args.candidate.clone());
    // One probe at a time, as the course's scripts ran them.
    // Isolated as grade's cases are (the same flags).
    let limits = crate::options::timed(args.time_limit, &args.sandbox, true);
    let isolation = crate::options::isolation(&args.sandbox, NonZeroUsize::new(1))?;
    let mut options = RunOptions::new(1, limits, isolation);
    let runner = Runner::new(&mut options)?;
    runner.check(&candidate, &label)?;
    let dir = tempfile::tempdir().context("cannot make the battery's folder")?;
    let jobs = harness::conform::jobs(family, role, candidate, &label, dir.path())?;
    super::refuse_existing(&args.scorecard, args.force)?;
    let mode = if args.force {
        Mode::Force
    } else {
        Mode::Create
    };
    let (scorecard, _) = Scorecard::open(&args.scorecard, mode, Some(&label))?;
    let screen = screen(args.format, &label);
    let mut reporter = Reporter::new(vec![screen, Box::new(scorecard)]);
    let (ctx, cancel) = (runner.context(&options), &runner.cancel);
    let summary = harness::conform::run(&ctx, &label, &jobs, &mut report_to(&mut reporter, cancel));
    Ok(exit_status(&summary, reporter))
}
