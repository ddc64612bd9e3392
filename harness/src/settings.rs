//! Validated settings for a run: what is graded ([`Selection`]), how each
//! job runs ([`RunOptions`]), and the [`Context`] every job shares. The binary builds them from its arguments (`options.rs`); nothing
//! here knows the command line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use reference::family::{Grader, LoadOptions};

use crate::cancel::Cancel;
use crate::executor::Isolation;
use crate::executor::{Executor, Limits};

/// The longest time limit or grace accepted.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);
/// The limit per case when none is given (the courses' 80 s): CPU time
/// under isolation, else wall-clock time.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(80);

/// The wall-clock safety net under a CPU-time limit `cpu` when none is
/// given: three times the limit and five seconds, room for a program that
/// waits on its input or shares a loaded machine.
pub fn safety_net(cpu: Duration) -> Duration {
    cpu.saturating_mul(3).saturating_add(Duration::from_secs(5))
}
/// The most cases at once.
pub const MAX_JOBS: usize = 1024;

/// What every job of a run shares: how jobs run, the executor that runs
/// them, and the token that stops them.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// How jobs run.
    pub options: &'a RunOptions,
    /// What runs them.
    pub executor: &'a dyn Executor,
    /// Stops them.
    pub cancel: &'a Cancel,
}

/// What a run grades: which suites and cases, and which part of them.
#[derive(Default)]
pub struct Selection {
    /// Where to look for listings.
    pub suites: Vec<PathBuf>,
    /// Only this family, if given.
    pub family: Option<&'static dyn Grader>,
    /// Only cases whose `suite/case` contains this.
    pub filter: Option<String>,
    /// Only this part of the work.
    pub shard: Option<crate::shard::Shard>,
    /// What balances the shards.
    pub shard_costs: Option<std::sync::Arc<crate::shard::Costs>>,
}

/// How every job of a run is run.
#[derive(Clone)]
pub struct RunOptions {
    /// Jobs at once (job slots).
    pub jobs: usize,
    /// Per-case limits.
    pub limits: Limits,
    /// Whether listings may name files outside their suite's folder.
    pub allow_outside_suite: bool,
    /// The largest puzzle file read.
    pub max_puzzle_size: u64,
    /// Where each case's stdout and stderr are kept, if anywhere.
    pub keep_output: Option<PathBuf>,
    /// How candidates are kept from harming the run.
    pub isolation: Isolation,
    /// What the reference may spend on loading a puzzle (the search for
    /// its fewest moves).
    pub load: LoadOptions,
    /// Runs of each job: uncounted warm-up runs, then counted ones (a
    /// contest times each case several times; a grading run once).
    pub repeat: Repeat,
    /// What a crash prints on stderr (a course's `crashes`): a case that
    /// exits non-zero with one of these there is `runtime-error`.
    pub crashes: Vec<String>,
    /// What a row's detail keeps from stderr (a course's `notes`): the
    /// last line holding one of these, whatever the verdict.
    pub notes: Vec<String>,
    /// Where rows are kept by content and taken again (`--store`).
    pub store: Option<std::sync::Arc<crate::store::Store>>,
}

impl RunOptions {
    /// `jobs` slots, `limits` and `isolation`, and the defaults for the
    /// rest: listings stay inside their suites, puzzle files of at most
    /// 64 MiB, outputs not kept, the default [`LoadOptions`], one run a job.
    pub fn new(jobs: usize, limits: Limits, isolation: Isolation) -> Self {
        Self {
            jobs,
            limits,
            allow_outside_suite: false,
            max_puzzle_size: 64 << 20,
            keep_output: None,
            isolation,
            load: LoadOptions::default(),
            repeat: Repeat::default(),
            crashes: Vec::new(),
            notes: Vec::new(),
            store: None,
        }
    }

    /// What of these options, and of the isolation `label` a run gets,
    /// every verdict follows (not the job slots, nor where outputs are
    /// kept): part of each row's key in the result store.
    pub fn fingerprint(&self, label: &str) -> String {
        let i = &self.isolation;
        format!(
            "{label}|{:?}|{}|{}|{}|{}|{:?}|{}|{:?}|{:?}|{:?}|{}|{:?}|{:?}",
            self.limits,
            i.enabled,
            i.memory_limit,
            i.pids_limit,
            i.file_size_limit,
            i.env,
            i.network,
            self.load,
            self.crashes,
            self.notes,
            self.max_puzzle_size,
            i.sandbox,
            i.run_as,
        )
    }
}

/// Warm-up runs, then counted runs, of each job, back to back on its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    /// Runs whose rows are dropped.
    pub warmup: usize,
    /// Runs whose rows count (at least one).
    pub runs: usize,
}

impl Default for Repeat {
    fn default() -> Self {
        Self { warmup: 0, runs: 1 }
    }
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
