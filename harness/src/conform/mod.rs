//! `harness conform`: does a student's Checker or Solver exit with the
//! statuses its handout fixes? A battery of cases, made by the project's
//! code into a temporary folder, is run on the candidate; each case names
//! the statuses it accepts (more than one where the spec calls a row
//! ambiguous) and, for a Solver's answers, whether the output must solve the
//! puzzle or be empty. Every case is a scorecard row.

mod gogen;
mod lightsout;
mod slidingblock;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::bail;

use crate::cancel::Cancel;
use crate::event::{Event, Summary};
use crate::executor::{Ending, Executor, LimitHit, Limits, Spec};
use crate::job::Candidate;
use crate::outcome::{Row, Verdict};

/// Which program of the assignment is being checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The Checker: puzzle files as arguments, moves on stdin.
    Checker,
    /// The Solver: puzzle files as arguments, an answer on stdout.
    Solver,
}

/// What a case's stdout must be, once its status is right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Anything.
    Any,
    /// Nothing but white space (a Solver saying "no solution").
    Empty,
    /// On exit 0, an answer that solves the case's puzzle files.
    Solves,
}

/// One case of a battery.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name in the scorecard.
    pub name: String,
    /// The candidate's arguments (paths into the battery folder, or not).
    pub args: Vec<OsString>,
    /// The puzzle files, for judging a Solver's answer.
    pub puzzle: Vec<PathBuf>,
    /// What goes on stdin.
    pub stdin: PathBuf,
    /// The exit statuses accepted.
    pub expect: Vec<i32>,
    /// What stdout must be.
    pub output: Output,
}

/// Writes `family`'s battery for `role` into `dir`.
pub fn battery(family: &str, role: Role, dir: &Path) -> anyhow::Result<Vec<Case>> {
    let mut b = Builder::new(dir)?;
    match (family, role) {
        ("slidingblock", Role::Checker) => slidingblock::checker(&mut b)?,
        ("slidingblock", Role::Solver) => slidingblock::solver(&mut b)?,
        ("lightsout", Role::Solver) => lightsout::solver(&mut b)?,
        ("gogen", Role::Solver) => gogen::solver(&mut b)?,
        (f, Role::Checker) if ["lightsout", "gogen"].contains(&f) => {
            bail!("{f} has no Checker program to conform (its handout asks for a solver)")
        }
        (f, _) => {
            bail!("no conformance battery for family {f:?} (known: slidingblock, lightsout, gogen)")
        }
    }
    Ok(b.cases)
}

/// Writes a battery's files, one folder a case, readable by every user
/// (candidates may run as other users) and writable by none but us.
pub struct Builder {
    dir: PathBuf,
    cases: Vec<Case>,
}

impl Builder {
    fn new(dir: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
        Ok(Self {
            dir: dir.to_owned(),
            cases: Vec::new(),
        })
    }

    /// A folder for the next case, holding `files` (name, contents) and
    /// the stdin `input`; returns it.
    pub fn folder(&mut self, files: &[(&str, &[u8])], input: &[u8]) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let folder = self.dir.join(format!("case-{:03}", self.cases.len()));
        std::fs::create_dir(&folder)?;
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755))?;
        for (name, bytes) in files.iter().chain([&("stdin", input)]) {
            let path = folder.join(name);
            std::fs::write(&path, bytes)?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
        }
        Ok(folder)
    }

    /// Adds a case: `args` name files of `folder` (by name), or `-` for a
    /// missing file, or `/` for a folder given as a file.
    pub fn case(
        &mut self,
        name: &str,
        folder: &Path,
        args: &[&str],
        puzzle: &[&str],
        expect: &[i32],
        output: Output,
    ) {
        let resolve = |a: &&str| -> OsString {
            match *a {
                "-" => folder.join("no-such-file").into(),
                "/" => folder.as_os_str().to_owned(),
                file => folder.join(file).into(),
            }
        };
        self.cases.push(Case {
            name: name.to_string(),
            args: args.iter().map(resolve).collect(),
            puzzle: puzzle.iter().map(|p| folder.join(p)).collect(),
            stdin: folder.join("stdin"),
            expect: expect.to_vec(),
            output,
        });
    }
}

/// Runs `cases` on `candidate`, one row each, handing events to `on_event`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    family: &'static dyn reference::family::Grader,
    role: Role,
    cases: &[Case],
    candidate: &Candidate,
    label: &str,
    limits: &Limits,
    executor: &dyn Executor,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event),
) -> Summary {
    let start = std::time::Instant::now();
    let suite = suite_name(family, role);
    on_event(Event::RunStarted {
        candidate: label.into(),
        cases: cases.len(),
        kept: 0,
        isolation: executor.describe(),
    });
    let mut summary = Summary::default();
    for case in cases {
        let row = if cancel.is_requested() {
            let mut row = Row::new(label, family.name(), &suite, &case.name);
            row.isolation = executor.label();
            row.verdict = Verdict::Cancelled;
            row.detail = "not run: the run was cancelled".into();
            row
        } else {
            on_event(Event::CaseStarted {
                suite: suite.clone(),
                case: case.name.clone(),
            });
            let who = (candidate, label, suite.as_str());
            run_case(family, case, who, limits, executor, cancel, 0)
        };
        summary.add(&row);
        on_event(crate::schedule::finished(row));
    }
    crate::schedule::end_run(summary, start, executor, cancel, on_event)
}

/// The scorecard suite of a battery: `conform/<family>-<role>`.
pub fn suite_name(family: &dyn reference::family::Grader, role: Role) -> String {
    format!(
        "conform/{}-{}",
        family.name(),
        match role {
            Role::Checker => "checker",
            Role::Solver => "solver",
        }
    )
}

/// Runs one battery case on job slot `slot` and judges it; `who` is the
/// candidate, its scorecard name and the row's suite.
pub fn run_case(
    family: &'static dyn reference::family::Grader,
    case: &Case,
    (candidate, label, suite): (&Candidate, &str, &str),
    limits: &Limits,
    executor: &dyn Executor,
    cancel: &Cancel,
    slot: usize,
) -> Row {
    let mut row = Row::new(label, family.name(), suite, &case.name);
    row.isolation = executor.label();
    let mut argv: Vec<OsString> = candidate
        .argv(family.name())
        .into_iter()
        .map(Into::into)
        .collect();
    argv.extend(case.args.iter().cloned());
    let spec = Spec {
        argv,
        files: Vec::new(),
        workdir: candidate.workdir().to_owned(),
        slot,
        stdin: Some(case.stdin.clone()),
        relative: false,
    };
    let run = executor.execute(&spec, limits, cancel);
    judge(&mut row, family, case, &run, limits);
    row
}

/// The verdict on one case: the status first, then the output.
fn judge(
    row: &mut Row,
    family: &'static dyn reference::family::Grader,
    case: &Case,
    run: &crate::executor::RunResult,
    limits: &Limits,
) {
    row.wall_ms = Some(run.wall.as_micros() as f64 / 1000.0);
    let expected = case
        .expect
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let (verdict, detail) = match (&run.ending, run.limit) {
        (Ending::Failed(why), _) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (Verdict::Cancelled, "stopped: the run was cancelled".into()),
        (_, Some(LimitHit::Time | LimitHit::Cpu)) => (
            Verdict::TimeLimit,
            format!(
                "still running after {} (expected exit {expected})",
                humantime::format_duration(limits.time)
            ),
        ),
        (_, Some(LimitHit::Stdout)) => (Verdict::OutputLimit, "stdout over its cap".into()),
        (_, Some(LimitHit::Memory)) => (Verdict::MemoryLimit, "killed at the memory limit".into()),
        (Ending::Signaled(sig), None) => (
            Verdict::RuntimeError,
            format!(
                "killed by {} (expected exit {expected})",
                crate::executor::signal_name(*sig)
            ),
        ),
        (Ending::Exited(code), None) => {
            row.exit_code = Some(*code);
            if !case.expect.contains(code) {
                (
                    Verdict::WrongExitStatus,
                    format!("exit {code}, expected {expected}"),
                )
            } else {
                output_verdict(family, case, *code, &run.stdout.bytes)
            }
        }
    };
    row.verdict = verdict;
    row.detail = detail;
}

fn output_verdict(
    family: &'static dyn reference::family::Grader,
    case: &Case,
    code: i32,
    stdout: &[u8],
) -> (Verdict, String) {
    let ok = (Verdict::Accepted, format!("exit {code}"));
    match case.output {
        Output::Any => ok,
        Output::Empty if stdout.trim_ascii().is_empty() => ok,
        Output::Empty => (
            Verdict::WrongExitStatus,
            format!("exit {code} with output (it wants empty stdout)"),
        ),
        Output::Solves if code != 0 => ok,
        Output::Solves => match family.load(&case.puzzle) {
            Err(e) => (
                Verdict::HarnessError,
                format!("cannot load the battery's puzzle: {e}"),
            ),
            Ok(puzzle) => {
                let j = puzzle.judge(stdout, 0);
                if j.check == reference::family::Check::Accepted {
                    ok
                } else {
                    (Verdict::WrongAnswer, j.detail)
                }
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every battery names at least one status per case, and every file it
    /// names (but the deliberate missing one) exists.
    #[test]
    fn batteries_are_well_formed() {
        for (family, role, least) in [
            ("slidingblock", Role::Checker, 40),
            ("slidingblock", Role::Solver, 10),
            ("lightsout", Role::Solver, 8),
            ("gogen", Role::Solver, 8),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let cases = battery(family, role, dir.path()).unwrap();
            assert!(cases.len() >= least, "{family} {role:?}: {}", cases.len());
            for c in &cases {
                assert!(!c.expect.is_empty(), "{}", c.name);
                assert!(c.stdin.is_file(), "{}", c.name);
                for a in &c.args {
                    let p = Path::new(a);
                    assert!(
                        p.exists() || p.ends_with("no-such-file"),
                        "{}: {}",
                        c.name,
                        p.display()
                    );
                }
            }
            let names: std::collections::HashSet<&str> =
                cases.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names.len(), cases.len(), "{family}: case names are unique");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(battery("lightsout", Role::Checker, dir.path()).is_err());
    }
}
