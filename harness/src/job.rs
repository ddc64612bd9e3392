//! The unit of work. A [`Job`] is one thing the work loop runs on a job
//! slot and turns into one scorecard row: a candidate on a puzzle
//! ([`Task::Puzzle`]), a candidate on a probe of its exit statuses
//! ([`Task::Probe`]: conformance batteries, a contest's Checker runs), or a
//! submission's build ([`Task::Build`]). A [`Case`] is a puzzle found in a
//! suite, shared by every candidate graded on it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reference::battery::Output;
use reference::family::Grader;

/// The suite and case of a submission's build row.
pub const BUILD: &str = "build";

/// Puzzle bytes that count as much as one process start, when no times
/// are known: a case's expected cost is a process start plus one unit per
/// this many bytes of its puzzle files (the sharding's and the ETA's
/// estimate; bigger puzzles are the slower ones).
pub const SIZE_UNIT: f64 = 16.0 * 1024.0;

/// The expected cost of a case with these puzzle files, in process starts.
pub fn size_cost(files: &[PathBuf]) -> f64 {
    1.0 + files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0.0, |m| m.len() as f64))
        .sum::<f64>()
        / SIZE_UNIT
}

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
        /// The working folder is the candidate's own copy (a class's built
        /// submission): all of it is the candidate's (the result store
        /// digests it whole; else only what the command line names).
        copy: bool,
        /// Its cases may reach the network (a course's part that needs
        /// it); otherwise each case has a loopback of its own, as
        /// `--network` leaves it.
        network: bool,
        /// Its cases may use System V IPC and POSIX message queues where
        /// they have no IPC namespace of their own (a course's part that
        /// asks: shared with every case there); elsewhere refused.
        ipc: bool,
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

    /// Whether its cases may reach the network (see
    /// [`crate::executor::Spec::network`]).
    pub fn network(&self) -> bool {
        matches!(self, Candidate::Command { network: true, .. })
    }

    /// Whether its cases may use System V IPC and POSIX message queues
    /// where they share the IPC namespace (see
    /// [`crate::executor::Spec::ipc`]).
    pub fn ipc(&self) -> bool {
        matches!(self, Candidate::Command { ipc: true, .. })
    }

    /// The working directory.
    pub fn workdir(&self) -> &Path {
        match self {
            Candidate::Command { workdir, .. } | Candidate::Reference { workdir, .. } => workdir,
        }
    }

    /// What stops `owner` (the user a job slot runs as) from running this
    /// candidate: its program, the files its arguments name, or its
    /// working directory out of that user's reach. Checked once, before
    /// the first case: otherwise every case would fail alike, as if the
    /// candidate were wrong.
    pub fn reachable_by(&self, owner: (u32, u32)) -> Result<(), crate::executor::ExecError> {
        use crate::executor::reachable;
        let workdir = self.workdir();
        match self {
            Candidate::Reference { exe, .. } => reachable(exe, owner, true)?,
            Candidate::Command { argv, .. } => {
                for (i, arg) in argv.iter().enumerate() {
                    let path = workdir.join(arg);
                    if (i == 0 && arg.contains('/')) || (i > 0 && path.exists()) {
                        reachable(&path, owner, i == 0)?;
                    }
                }
            }
        }
        reachable(workdir, owner, false)
    }
}

/// One job: who, on what, judged by which family, under which row name.
#[derive(Clone)]
pub struct Job {
    /// The candidate's name in the scorecard (a submission id, an entry).
    pub label: String,
    /// The family that names the row (and judges a puzzle or probe).
    pub family: &'static dyn Grader,
    /// The row's suite, e.g. `toy/easy` (a class part's prefixed).
    pub suite: String,
    /// The row's case.
    pub case: String,
    /// What runs.
    pub task: Task,
    /// Asked as a worker takes it: `false` where its row no longer
    /// matters (a case after a rejected one where the rest is not run,
    /// as a problem package's judge stops): then it is not run.
    pub needed: Option<Arc<dyn Needed>>,
}

/// A job's say in whether it still runs (see [`Job::needed`]).
pub trait Needed: Send + Sync {
    /// Whether its row still matters, asked as a worker takes it.
    fn needed(&self) -> bool;
    /// Its row, told on the worker's thread as soon as it is graded
    /// (before that worker takes another job).
    fn graded(&self, _row: &crate::outcome::Row) {}
}

/// What a job runs.
#[derive(Clone)]
pub enum Task {
    /// A candidate on a suite case, judged by the case's family contract.
    Puzzle {
        /// What runs.
        candidate: Arc<Candidate>,
        /// The case.
        case: Arc<Case>,
    },
    /// A candidate on a probe: its exit status (and output) as expected.
    Probe {
        /// What runs.
        candidate: Arc<Candidate>,
        /// The probe.
        probe: Arc<Probe>,
    },
    /// A submission copied and built.
    Build(Arc<Build>),
}

impl Job {
    /// A candidate on a suite case, under the case's own suite name.
    pub fn puzzle(label: &str, candidate: &Arc<Candidate>, case: &Arc<Case>) -> Self {
        Self {
            label: label.to_string(),
            family: case.family,
            suite: case.suite.clone(),
            case: case.name.clone(),
            task: Task::Puzzle {
                candidate: Arc::clone(candidate),
                case: Arc::clone(case),
            },
            needed: None,
        }
    }

    /// Its expected cost, in process starts ([`size_cost`] of a puzzle's
    /// files; one for a probe or a build).
    pub fn expected_cost(&self) -> f64 {
        match &self.task {
            Task::Puzzle { case, .. } => case.expected_cost(),
            _ => 1.0,
        }
    }

    /// What identifies the job's row within a scorecard.
    pub fn key(&self) -> (String, String, String) {
        (self.label.clone(), self.suite.clone(), self.case.clone())
    }
}

/// A run's jobs, taken in order: a list held whole (a class, a contest,
/// a battery), or a stream read as the run goes (a candidate's suites: a
/// million cases are never all held at once).
pub struct Jobs<'a> {
    len: usize,
    cost: f64,
    /// The jobs, in order.
    pub(crate) source: Box<dyn Iterator<Item = Job> + Send + 'a>,
}

impl<'a> Jobs<'a> {
    /// `len` jobs, taken from `source` as the run goes.
    pub fn stream(len: usize, source: impl Iterator<Item = Job> + Send + 'a) -> Self {
        Self {
            len,
            cost: len as f64,
            source: Box::new(source),
        }
    }

    /// The same, whose expected cost in all is `cost` (process starts; a
    /// stream is one a job until told).
    pub fn with_cost(self, cost: f64) -> Self {
        Self { cost, ..self }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Their expected cost in all, in process starts.
    pub fn cost(&self) -> f64 {
        self.cost
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl From<Vec<Job>> for Jobs<'static> {
    fn from(jobs: Vec<Job>) -> Self {
        let cost = jobs.iter().map(Job::expected_cost).sum();
        Self::stream(jobs.len(), jobs.into_iter()).with_cost(cost)
    }
}

impl<'a> From<&'a [Job]> for Jobs<'a> {
    fn from(jobs: &'a [Job]) -> Self {
        let cost = jobs.iter().map(Job::expected_cost).sum();
        Self::stream(jobs.len(), jobs.iter().cloned()).with_cost(cost)
    }
}

impl<'a> From<&'a Vec<Job>> for Jobs<'a> {
    fn from(jobs: &'a Vec<Job>) -> Self {
        Self::from(jobs.as_slice())
    }
}

/// One case of a suite: a puzzle every candidate of a run is graded on.
#[derive(Clone)]
pub struct Case {
    /// The family that loads and judges it (a course part's question, or
    /// the family of its listing).
    pub family: &'static dyn Grader,
    /// The suite name, e.g. `toy/easy`.
    pub suite: String,
    /// The case name: its files as listed, joined by `+` (a two-file case
    /// is `a+b`: one puzzle file may be listed with several others).
    pub name: String,
    /// The puzzle files, absolute, or what is wrong with the listing row.
    pub files: Result<Vec<PathBuf>, String>,
    /// The suite's root: the listing's folder (symlinks resolved). Puzzle
    /// files must stay inside it unless `--allow-outside-suite`.
    pub root: PathBuf,
    /// The files the candidate gets when they are not `files` (copies in
    /// another format, made by the harness); `files` are still judged.
    pub given: Option<Vec<PathBuf>>,
    /// The puzzle once checked and loaded (or why it cannot be): shared by
    /// every candidate graded on the case.
    pub loaded: Loaded,
    /// Its own limits (a problem package's), in place of the run's.
    pub own: OwnLimits,
    /// The program that judges an output that ended well, where the
    /// family does not (a problem package's own output validator): shared
    /// by every case of its package.
    pub validator: Option<Arc<Validator>>,
    /// Its own flags for the validator, after the validator's (a test
    /// group's `output_validator_flags`, the 2023-07 draft's).
    pub validator_flags: Vec<String>,
}

/// A problem package's own output validator: built once for the run (see
/// `grade::validator`), then run on each output its family's judge let
/// through.
pub struct Validator {
    /// What it is to the package, in words (`output validator`, or
    /// `grader`: a package's own grader, built and run the same way).
    pub role: &'static str,
    /// Its program in the package.
    pub program: reference::package::Program,
    /// Its flags (`validator_flags`).
    pub flags: Vec<String>,
    /// The memory it may use, MiB (its run command names it: Java's heap).
    pub memory_mib: u64,
    /// Whether it talks with the candidate (an interactive problem): the
    /// two run at once, each one's stdout the other's stdin (see
    /// `grade::interactive`).
    pub interactive: bool,
    /// Whether it may give an accepted output points (`score.txt`: a
    /// scoring problem's), and whether it must (`Some(true)`: the legacy
    /// format's `validation: custom score`); `None`: it may not.
    pub score: Option<bool>,
    /// Its build, once made: its run command and the folder it was built
    /// in (kept while the run lasts), or why it did not build.
    pub built: OnceLock<Result<Built, String>>,
}

/// A validator built: its run command, and the folder it was built in
/// (kept while the run lasts).
pub type Built = (Vec<String>, Arc<tempfile::TempDir>);

impl Validator {
    /// The validator `program` with `flags`, not built yet.
    pub fn new(program: reference::package::Program, flags: &str, memory_mib: u64) -> Self {
        Self {
            role: "output validator",
            program,
            flags: flags.split_whitespace().map(str::to_owned).collect(),
            memory_mib,
            interactive: false,
            score: None,
            built: OnceLock::new(),
        }
    }
}

/// A case's own limits (a problem package's `problem.yaml`), each in place
/// of the run's where given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OwnLimits {
    /// Time: CPU time where the run judges CPU time, else the wall clock.
    pub time: Option<Duration>,
    /// Memory, bytes: a peak over it is `memory-limit` (the run's
    /// `--memory-limit` stays the cap its cgroup enforces).
    pub memory: Option<u64>,
    /// Standard output, bytes: more is `output-limit`.
    pub output: Option<u64>,
}

/// A case's puzzle, loaded at most once (or why it cannot be).
pub type Loaded = Arc<OnceLock<Result<Prepared, String>>>;

impl Case {
    /// A case of `family` named `name` in `suite`: `files` (or what is
    /// wrong with them) under `root`, given to the candidate as they are,
    /// under the run's time limit.
    pub fn new(
        family: &'static dyn Grader,
        (suite, name): (String, String),
        files: Result<Vec<PathBuf>, String>,
        root: PathBuf,
    ) -> Self {
        Self {
            family,
            suite,
            name,
            files,
            root,
            given: None,
            loaded: Loaded::default(),
            own: OwnLimits::default(),
            validator: None,
            validator_flags: Vec::new(),
        }
    }

    /// Its expected cost, in process starts: [`size_cost`] of its files.
    pub fn expected_cost(&self) -> f64 {
        size_cost(self.files.as_deref().unwrap_or_default())
    }
}

/// A case ready to run: the puzzle as the family loaded it, and the bytes
/// of the files the candidate is given, read at the same moment (before
/// any candidate ran). Every candidate's copies are written from these
/// bytes, never from the live files, which a candidate running as the
/// harness's own user could rewrite.
#[derive(Clone)]
pub struct Prepared {
    /// The loaded puzzle, which judges every answer.
    pub puzzle: Arc<dyn reference::family::Case>,
    /// The bytes of the files the candidate is given, in order.
    pub given: Arc<Vec<Vec<u8>>>,
}

/// One probe of a program's exit statuses: arguments and stdin, the
/// statuses accepted (more than one where a spec calls a row ambiguous)
/// and what stdout must be.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The candidate's arguments (paths into the battery folder, or not).
    pub args: Vec<OsString>,
    /// The puzzle files, for judging an answer ([`Output::Solves`]).
    pub puzzle: Vec<PathBuf>,
    /// What goes on stdin.
    pub stdin: PathBuf,
    /// The exit statuses accepted.
    pub expect: Vec<i32>,
    /// What stdout must be.
    pub output: Output,
}

/// A submission to copy into `dir` and build there.
#[derive(Debug)]
pub struct Build {
    /// Its files (a folder), or why there are none (a compile error).
    pub source: Result<PathBuf, String>,
    /// Where its copy is built, and later runs.
    pub dir: PathBuf,
    /// How it is built; `None`: nothing to build.
    pub recipe: Option<Arc<Recipe>>,
}

/// How a course builds its submissions.
#[derive(Debug)]
pub struct Recipe {
    /// A shell command run in the copy; `{course}` and `{submission}` are
    /// replaced by `course_dir` and the copy, quoted for the shell.
    pub command: String,
    /// The folder of the course config.
    pub course_dir: PathBuf,
    /// Files the submission must hold (a missing one is a compile error).
    pub require: Vec<String>,
    /// The build's wall-clock limit.
    pub time_limit: Duration,
    /// The folders of course files copied over the copy before the build,
    /// in order (`[build] overlay`).
    pub overlay: Vec<PathBuf>,
    /// The student's files that win over them (`[build] handin`).
    pub handin: globset::GlobSet,
    /// The course's `[build]` as written: part of a build's key in the
    /// result store.
    pub written: String,
}
