//! `harness`: grades puzzle-solving programs on suites. This file parses
//! the command line, dispatches to a command and maps its result to the
//! exit status: 0 all accepted, 1 some case not accepted (or a regression,
//! or rows missing from a merge), 2 usage or setup error (or a report that
//! could not be written), 130 after SIGINT, 143 after SIGTERM.

mod bundled;
mod cli;
mod commands;
mod options;
mod runner;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use cli::{Cli, Command};

fn main() -> ExitCode {
    // A job slot's view keeper (where `harness-exec` is not beside us).
    if std::env::args_os().nth(1).is_some_and(|a| a == "__keeper") {
        return harness::executor::serve_keeper();
    }
    // A job slot's bubblewrap holder (likewise).
    if std::env::args_os().nth(1).is_some_and(|a| a == "__hold") {
        return harness::executor::serve_holder();
    }
    // A candidate started inside bubblewrap (likewise).
    if std::env::args_os().nth(1).is_some_and(|a| a == "__exec") {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(2).collect();
        return ExitCode::from(harness::executor::exec_in_sandbox(&args) as u8);
    }
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
    let mut cli = cli;
    if let Err(e) = resolve_course(&mut cli.command) {
        eprintln!("harness: {e:#}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Courses { handin: None } => commands::courses(),
        Command::Courses { handin: Some(dir) } => commands::courses::fitting(&dir),
        Command::Package(args) => commands::package::run(&args),
        Command::Completions { shell } => commands::completions(shell),
        Command::Man { dir } => commands::man(&dir),
        Command::Grade(args) => commands::grade::run(&args),
        Command::Regrade(args) => commands::regrade::run(&args),
        Command::Conform(args) => commands::conform::run(&args),
        Command::Verify(args) => commands::verify::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::Merge(args) => commands::merge::run(&args),
        Command::Slurm(args) => commands::slurm::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Contest(args) => commands::contest::run(&args),
        Command::Solve { family, files } => commands::solve::run(&family, &files),
        Command::Guard {
            slots,
            cgroups,
            run_dir,
        } => {
            let cleanup = harness::executor::Cleanup { cgroups, run_dir };
            harness::executor::serve_guard(std::io::stdin().lock(), &slots, &cleanup);
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("harness: {e:#}");
        ExitCode::from(2)
    })
}

/// A `--course` that names no file but a bundled course (`cis521`) becomes
/// the path of that course's config, written out.
fn resolve_course(command: &mut Command) -> anyhow::Result<()> {
    let course = match command {
        Command::Grade(a) | Command::Regrade(a) => &mut a.course,
        Command::Contest(a) => &mut a.course,
        Command::Report(a) => &mut a.course,
        Command::Merge(a) => &mut a.course,
        Command::Slurm(a) => &mut a.course,
        _ => return Ok(()),
    };
    if let Some(c) = course {
        *c = bundled::course(c)?;
    }
    Ok(())
}
