//! `harness`: grades puzzle-solving programs on suites. This file parses the
//! command line and maps results to exit statuses: 0 all accepted, 1 some
//! case not accepted, 2 usage or setup error.

mod cli;
mod config;
mod discover;
mod grade;
mod outcome;
mod report;
mod runner;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

use anyhow::{Context, bail};
use clap::Parser;
use clap::error::ErrorKind;
use rayon::prelude::*;

use crate::cli::{Cli, Command, GradeArgs};
use crate::config::Settings;
use crate::report::{CsvScorecard, Event, Terminal};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
                _ => ExitCode::from(2),
            };
        }
    };
    let result = match cli.command {
        Command::Grade(args) => grade_command(args),
        Command::Solve { family, files } => solve_command(&family, &files),
    };
    result.unwrap_or_else(|e| {
        eprintln!("harness: {e:#}");
        ExitCode::from(2)
    })
}

/// `harness grade`: discover, run every case in parallel, report.
fn grade_command(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let settings = Settings::from_args(args)?;
    let jobs = discover::discover(
        &settings.suites,
        settings.family,
        settings.filter.as_deref(),
    )?;
    if jobs.is_empty() {
        bail!("no case matches --filter");
    }
    let mut scorecard = CsvScorecard::create(&settings.scorecard)?;
    let mut terminal = Terminal::new(jobs.len(), &settings.label);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs)
        .build()
        .context("cannot start the worker pool")?;
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    let summary = thread::scope(|scope| {
        scope.spawn(|| {
            pool.install(|| {
                jobs.par_iter().for_each_with(tx, |tx, job| {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let row =
                        grade::grade(job, &settings.candidate, &settings.label, &settings.limits);
                    if tx.send(Event::CaseFinished(Box::new(row))).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                });
            });
        });
        let summary = report::report(rx, &mut [&mut terminal, &mut scorecard]);
        if summary.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        summary
    })?;
    Ok(if summary.all_accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `harness solve`: the reference answer in the family's contract.
fn solve_command(family: &str, files: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let grader =
        reference::family::family(family).with_context(|| format!("unknown family {family:?}"))?;
    let case = match grader.load(files) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("harness solve: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let answer = case.answer();
    eprint!("{}", answer.stderr);
    let mut out = std::io::stdout().lock();
    out.write_all(answer.stdout.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::from(answer.exit_code))
}
