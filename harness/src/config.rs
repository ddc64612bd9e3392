//! Validated settings for a grading run, built from the command line:
//! the candidate resolved, paths made absolute, limits checked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use reference::family::{Grader, family};

use std::num::NonZeroUsize;

use crate::cli::{Format, GradeArgs, IsolationArg, IsolationArgs, OnOff, RunAsArg, SandboxArg};
use crate::executor::Limits;
use crate::executor::isolate::{Isolation, RunAs, Sandbox};
use crate::report::Mode;

/// The longest time limit or grace accepted.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);
/// The wall-clock limit per case when none is given (the courses' 80 s).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(80);
/// The most cases at once.
pub const MAX_JOBS: usize = 1024;

/// What runs on each case.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// A user's command: program and arguments, before the puzzle files.
    Command {
        /// Program then arguments.
        argv: Vec<String>,
        /// Where it runs.
        workdir: PathBuf,
        /// Puzzle files given relative to the folder holding them, which is
        /// then the working directory (see [`crate::executor::Spec::relative`]).
        relative: bool,
    },
    /// The bundled reference solver: this executable's `solve` subcommand.
    Reference {
        /// This executable.
        exe: PathBuf,
        /// Where it runs.
        workdir: PathBuf,
    },
}

impl Candidate {
    /// The command line for one case of `family`, before the puzzle files.
    pub fn argv(&self, family: &str) -> Vec<String> {
        match self {
            Candidate::Command { argv, .. } => argv.clone(),
            Candidate::Reference { exe, .. } => vec![
                exe.display().to_string(),
                "solve".into(),
                "--family".into(),
                family.into(),
            ],
        }
    }

    /// Whether puzzle files are given relative to their folder.
    pub fn relative(&self) -> bool {
        matches!(self, Candidate::Command { relative: true, .. })
    }

    /// The working directory.
    pub fn workdir(&self) -> &Path {
        match self {
            Candidate::Command { workdir, .. } | Candidate::Reference { workdir, .. } => workdir,
        }
    }
}

/// Everything a grading run needs.
pub struct Settings {
    /// Where to look for listings.
    pub suites: Vec<PathBuf>,
    /// What runs.
    pub candidate: Candidate,
    /// The candidate's name in the scorecard.
    pub label: String,
    /// Only this family, if given.
    pub family: Option<&'static dyn Grader>,
    /// Only cases whose `suite/case` contains this.
    pub filter: Option<String>,
    /// Cases at once.
    pub jobs: usize,
    /// Per-case limits.
    pub limits: Limits,
    /// Whether listings may name files outside their suite's folder.
    pub allow_outside_suite: bool,
    /// The largest puzzle file read.
    pub max_puzzle_size: u64,
    /// Where each case's stdout and stderr are kept, if anywhere.
    pub keep_output: Option<PathBuf>,
    /// Only this part of the work.
    pub shard: Option<crate::shard::Shard>,
    /// What balances the shards.
    pub shard_costs: Option<std::sync::Arc<crate::shard::Costs>>,
    /// How candidates are kept from harming the run.
    pub isolation: Isolation,
}

/// Where a run's results go.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The CSV scorecard's path.
    pub scorecard: PathBuf,
    /// What to do with an existing scorecard.
    pub mode: Mode,
    /// Exports: format name and path.
    pub exports: Vec<(String, PathBuf)>,
    /// What the terminal shows.
    pub format: Format,
}

impl Outputs {
    /// Validates the output options.
    pub fn from_args(args: &GradeArgs) -> anyhow::Result<Self> {
        let mode = if args.resume {
            Mode::Resume
        } else if args.rerun_failed {
            Mode::RerunFailed
        } else if args.force {
            Mode::Force
        } else {
            Mode::Create
        };
        let exports = args
            .exports
            .iter()
            .map(|e| crate::export::parse_target(e))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self {
            scorecard: args.scorecard.clone(),
            mode,
            exports,
            format: args.format,
        })
    }
}

impl Settings {
    /// Validates the command line.
    pub fn from_args(args: &GradeArgs) -> anyhow::Result<Self> {
        let args = args.clone();
        let isolation = isolation(&args.sandbox, args.jobs)?;
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let family = match &args.family {
            None => None,
            Some(name) => Some(family(name).with_context(|| {
                let known: Vec<&str> = reference::family::FAMILIES
                    .iter()
                    .map(|f| f.name())
                    .collect();
                format!("unknown family {name:?} (known: {})", known.join(", "))
            })?),
        };
        let time_limit = args.time_limit.unwrap_or(DEFAULT_TIME_LIMIT);
        if time_limit.is_zero() {
            bail!("--time-limit must be more than zero");
        }
        if args.cpu_limit.is_some_and(|d| d.is_zero()) {
            bail!("--cpu-limit must be more than zero");
        }
        if args.cpu_limit.is_some() && args.sandbox.isolation == IsolationArg::None {
            bail!(
                "--cpu-limit needs isolation (it is set as the candidate starts): drop --isolation none"
            );
        }
        for (flag, d) in [
            ("--time-limit", time_limit),
            ("--grace", args.grace),
            ("--cpu-limit", args.cpu_limit.unwrap_or_default()),
        ] {
            if d > MAX_DURATION {
                bail!(
                    "{flag} {} is over the 24 h maximum",
                    humantime::format_duration(d)
                );
            }
        }
        if let Some(j) = args.jobs
            && usize::from(j) > MAX_JOBS
        {
            bail!("--jobs {j} is over the maximum of {MAX_JOBS}");
        }
        let suites = if args.suites.is_empty() && args.course.is_none() {
            let default = cwd.join("suites");
            if !default.is_dir() {
                bail!("no --suite given and no ./suites folder here");
            }
            vec![default]
        } else {
            args.suites
        };
        for s in &suites {
            if !s.exists() {
                bail!("suite {} does not exist", s.display());
            }
        }
        let (candidate, label) = match &args.candidate {
            None if args.course.is_some() => (
                Candidate::Reference {
                    exe: PathBuf::new(),
                    workdir: cwd.clone(),
                },
                "class".to_string(),
            ),
            None => {
                let exe =
                    std::env::current_exe().context("cannot locate the harness executable")?;
                let workdir = args.workdir.clone().unwrap_or_else(|| cwd.clone());
                (
                    Candidate::Reference { exe, workdir },
                    "reference".to_string(),
                )
            }
            Some(cmd) => {
                let (argv, workdir) = resolve_command(cmd, args.workdir.as_deref(), &cwd)?;
                (
                    Candidate::Command {
                        argv,
                        workdir,
                        relative: false,
                    },
                    cmd.clone(),
                )
            }
        };
        let label = args.name.unwrap_or(label);
        let jobs = args
            .jobs
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        Ok(Self {
            suites,
            candidate,
            label,
            family,
            filter: args.filter,
            jobs,
            limits: Limits {
                time: time_limit,
                grace: args.grace.max(Duration::from_millis(10)),
                stdout: args.stdout_limit.as_u64(),
                stderr: args.stderr_limit.as_u64(),
                memory: args.sandbox.memory_limit.as_u64(),
                cpu: args.cpu_limit,
            },
            allow_outside_suite: args.allow_outside_suite,
            max_puzzle_size: args.max_puzzle_size.as_u64(),
            keep_output: args.keep_output.as_ref().map(|d| cwd.join(d)),
            shard: args.shard,
            shard_costs: match &args.shard_costs {
                None => None,
                Some(p) => Some(std::sync::Arc::new(crate::shard::Costs::from_rows(
                    &crate::compare::read(p)
                        .with_context(|| format!("--shard-costs {}", p.display()))?,
                ))),
            },
            isolation,
        })
    }
}

/// The isolation options, checked (`jobs` slots need a uid each).
pub fn isolation(args: &IsolationArgs, jobs: Option<NonZeroUsize>) -> anyhow::Result<Isolation> {
    if args.pids_limit == 0 {
        bail!("--pids-limit must be at least 1");
    }
    if args.memory_limit.as_u64() < (1 << 20) {
        bail!("--memory-limit must be at least 1MiB");
    }
    let slots = jobs.map_or(MAX_JOBS, usize::from) as u64;
    if u64::from(args.uid_base) == 0 || u64::from(args.uid_base) + slots > u64::from(u32::MAX) {
        bail!("--uid-base must leave room for a uid per job slot above 0");
    }
    let mut env = Vec::new();
    for pair in &args.env {
        let Some((name, value)) = pair.split_once('=') else {
            bail!("--env takes NAME=VALUE, got {pair:?}");
        };
        if name.is_empty() {
            bail!("--env takes NAME=VALUE, got {pair:?}");
        }
        env.push((name.into(), value.into()));
    }
    Ok(Isolation {
        enabled: args.isolation == IsolationArg::Full,
        run_as: match args.run_as {
            RunAsArg::Auto => RunAs::Auto,
            RunAsArg::Harness => RunAs::Harness,
        },
        uid_base: args.uid_base,
        cgroups: args.cgroups == OnOff::On,
        memory_limit: args.memory_limit.as_u64(),
        pids_limit: args.pids_limit,
        file_size_limit: args.file_size_limit.as_u64(),
        sandbox: match args.sandbox {
            SandboxArg::None => Sandbox::None,
            SandboxArg::Bwrap => Sandbox::Bwrap,
        },
        env,
    })
}

/// Splits the candidate command like a shell, checks that its program
/// exists, and picks the working directory. A program given as a path is
/// made absolute, and by default runs in its own folder.
pub fn resolve_command(
    cmd: &str,
    workdir: Option<&Path>,
    cwd: &Path,
) -> anyhow::Result<(Vec<String>, PathBuf)> {
    let mut argv =
        shell_words::split(cmd).with_context(|| format!("cannot split --candidate {cmd:?}"))?;
    let Some(program) = argv.first().cloned() else {
        bail!("--candidate is empty");
    };
    let default_dir;
    if program.contains('/') {
        let path = cwd.join(&program);
        if !path.is_file() {
            bail!("candidate program {program} does not exist");
        }
        let path = path
            .canonicalize()
            .with_context(|| format!("cannot resolve {program}"))?;
        default_dir = path.parent().map_or_else(|| cwd.to_owned(), Path::to_owned);
        argv[0] = path.display().to_string();
    } else {
        which::which(&program)
            .with_context(|| format!("candidate program {program} is not on PATH"))?;
        default_dir = cwd.to_owned();
    }
    let workdir = match workdir {
        Some(w) => cwd.join(w),
        None => default_dir,
    };
    if !workdir.is_dir() {
        bail!("working directory {} does not exist", workdir.display());
    }
    Ok((argv, workdir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        let cwd = std::env::current_dir().unwrap();
        let (argv, dir) = resolve_command("sh -c 'echo \"a b\"'", None, &cwd).unwrap();
        assert_eq!(argv, ["sh", "-c", "echo \"a b\""]);
        assert_eq!(dir, cwd);
        let err = resolve_command("no-such-program-xyz", None, &cwd).unwrap_err();
        assert_eq!(
            err.to_string(),
            "candidate program no-such-program-xyz is not on PATH"
        );
        let err = resolve_command("./missing/solver", None, &cwd).unwrap_err();
        assert_eq!(
            err.to_string(),
            "candidate program ./missing/solver does not exist"
        );
        assert!(resolve_command("'unclosed", None, &cwd).is_err());
        assert_eq!(
            resolve_command("  ", None, &cwd).unwrap_err().to_string(),
            "--candidate is empty"
        );
    }
}
