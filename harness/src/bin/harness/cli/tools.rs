//! The options of the other subcommands, and the isolation options they
//! share with `grade`.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use bytesize::ByteSize;
use clap::Args;

use super::*;

/// Options of `harness conform`.
#[derive(Args, Debug, Clone)]
pub struct ConformArgs {
    /// Which program: the Checker (moves on stdin) or the Solver.
    #[arg(long, value_enum)]
    pub role: RoleArg,
    /// The puzzle family.
    #[arg(long)]
    pub family: String,
    /// The candidate command, split like a shell would; the case's
    /// arguments are appended.
    #[arg(long, value_name = "CMD ARGS")]
    pub candidate: String,
    /// The candidate's working directory (default: the program's folder
    /// when it is given as a path, else the current directory).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// The candidate's name in the scorecard (default: the command).
    #[arg(long)]
    pub name: Option<String>,
    /// The time limit per probe: CPU time where isolation measures it (the
    /// wall clock a net at 3 x + 5 s), else the wall clock's.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub time_limit: Duration,
    /// Where the CSV scorecard goes (an existing one is an error unless
    /// --force).
    #[arg(long, default_value = "conform.csv")]
    pub scorecard: PathBuf,
    /// Replace an existing scorecard.
    #[arg(long)]
    pub force: bool,
    /// What the terminal shows.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub sandbox: IsolationArgs,
}

/// Options of `harness compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// The baseline scorecard (or leaderboard, or class summary.csv: then
    /// each submission's total, moved, new or gone).
    pub baseline: PathBuf,
    /// The new scorecard (or leaderboard, or class summary.csv).
    pub new: PathBuf,
    /// A time change counts when it is more than this (20%, 0.2).
    #[arg(long, default_value = "20%", value_parser = harness::compare::parse_percent)]
    pub threshold: f64,
    /// ... and at least this much.
    #[arg(long, default_value = "50ms", value_parser = humantime::parse_duration)]
    pub min_delta: Duration,
    /// The time compared: CPU time (where both rows have it; else their
    /// wall time), which a busy machine barely moves; wall on request.
    #[arg(long, value_enum, default_value = "cpu")]
    pub metric: MetricArg,
    /// Where a contest leaderboard gives each case's runs (its .json
    /// beside it), a time change counts only beyond this many standard
    /// deviations of their spread; 0 turns it off.
    #[arg(long, default_value_t = 3.0, value_parser = non_negative)]
    pub noise: f64,
    /// Also write the changes as json:PATH.
    #[arg(long = "export", value_name = "json:PATH")]
    pub exports: Vec<String>,
}

/// The isolation options, shared by `grade`, `contest` and `conform`.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Isolation (docs/harness.md)")]
pub struct IsolationArgs {
    /// How much protection from the candidates: full, or none (trusted
    /// code only).
    #[arg(long, value_enum, default_value = "full")]
    pub isolation: IsolationArg,
    /// Who candidates run as.
    #[arg(long, value_enum, default_value = "auto")]
    pub run_as: RunAsArg,
    /// The uid (and gid) of job slot 0's user; slot N runs as this + N.
    /// Default: the first range from 60000 (in steps of 1024) that no other
    /// run on this machine holds; a range given here that another run
    /// holds is an error.
    #[arg(long)]
    pub uid_base: Option<u32>,
    /// Put each case in a cgroup (when one can be made).
    #[arg(long, value_enum, default_value = "on")]
    pub cgroups: OnOff,
    /// Memory of a case's whole process tree (enforced with a cgroup).
    #[arg(long, default_value = "2GiB")]
    pub memory_limit: ByteSize,
    /// Processes and threads of a case at once (fork bombs stop here).
    #[arg(long, default_value_t = 256)]
    pub pids_limit: u64,
    /// The largest file a candidate may write.
    #[arg(long, default_value = "64MiB")]
    pub file_size_limit: ByteSize,
    /// An outer sandbox for each case.
    #[arg(long, value_enum, default_value = "auto")]
    pub sandbox: SandboxArg,
    /// NAME=VALUE added to the candidates' environment. Repeatable.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// Let cases reach the network (and each other). Off: each case has a
    /// loopback of its own (under Landlock alone: no socket but a Unix
    /// one). For a course whose programs need the network.
    #[arg(long)]
    pub network: bool,
}

/// Options of `harness verify`.
#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    /// The problem package (a folder with problem.yaml).
    pub package: PathBuf,
    /// Cases run at once (default: one per core).
    #[arg(long)]
    pub jobs: Option<NonZeroUsize>,
    /// Also a scorecard: every build and case row, the candidate each
    /// submission's path in the package.
    #[arg(long)]
    pub scorecard: Option<PathBuf>,
    /// Replace an existing scorecard.
    #[arg(long)]
    pub force: bool,
    /// Where the package gives no time limit and every submission is as
    /// its folder says: write the limit its accepted submissions set into
    /// the package's `.timelimit` (as Kattis keeps it), for `grade`.
    #[arg(long)]
    pub write_timelimit: bool,
    /// What the terminal shows: the table, or every event as a JSON line
    /// then the table.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// The result store: builds and rows kept, as `grade` keeps them.
    #[command(flatten)]
    pub cache: StoreArgs,
    /// How submissions are kept from harming the run.
    #[command(flatten)]
    pub sandbox: IsolationArgs,
}

/// Options of `harness contest`.
#[derive(Args, Debug, Clone)]
pub struct ContestArgs {
    /// The entries: one folder each, holding an executable `run` (run in
    /// its folder with the case's files appended); with --course, each a
    /// submission (folder or archive) built and run as the course does.
    #[arg(long, value_name = "DIR")]
    pub entries: PathBuf,
    /// Build and run each entry as this course config does for a
    /// submission (its first part judged by the family's contract).
    #[arg(long, value_name = "FILE")]
    pub course: Option<PathBuf>,
    /// The contest's suites (as for grade). Repeatable.
    #[arg(long = "suite", value_name = "DIR", required = true)]
    pub suites: Vec<PathBuf>,
    /// Only suites of this family.
    #[arg(long)]
    pub family: Option<String>,
    /// Only cases whose `suite/case` contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Counted runs per case.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Runs before them that do not count.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub warmup: u32,
    /// Cases timed at once (1: one at a time, as timings should be; more
    /// is said in the leaderboard).
    #[arg(long, default_value = "1")]
    pub jobs: NonZeroUsize,
    /// The time ranked on.
    #[arg(long, value_enum, default_value = "cpu")]
    pub metric: MetricArg,
    /// Time Solvers, or Checkers on the reference's move lists.
    #[arg(long, value_enum, default_value = "solver")]
    pub role: RoleArg,
    /// The time limit per run (an unsolved case counts twice it), on the
    /// --metric clock: CPU time (the wall clock a net at 3 x + 5 s) where
    /// isolation measures it, else the wall clock.
    #[arg(long, default_value = "80s", value_parser = humantime::parse_duration)]
    pub time_limit: Duration,
    /// The leaderboard CSV.
    #[arg(long, default_value = "leaderboard.csv")]
    pub leaderboard: PathBuf,
    /// With a --course that has a [contest]: each submission's place and
    /// extra credit (entries and the rest), for `grade --contest-credit`.
    #[arg(long, value_name = "FILE", requires = "course")]
    pub credit: Option<PathBuf>,
    /// Also a scorecard: one row per entry and case, median times, each
    /// written as soon as its runs are in.
    #[arg(long)]
    pub scorecard: Option<PathBuf>,
    /// What the terminal shows: progress then the table, or every event
    /// as a JSON line (no table: the leaderboard files hold it).
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Show entries as entry-1..N (by rank), all but --me.
    #[arg(long)]
    pub anonymize: bool,
    /// The caller's own entry, named even with --anonymize.
    #[arg(long)]
    pub me: Option<String>,
    /// How entries are kept from harming the run.
    #[command(flatten)]
    pub sandbox: IsolationArgs,
}

/// Options of `harness package`.
#[derive(Args, Debug, Clone)]
pub struct PackageArgs {
    /// The platform (docs/platforms.md).
    #[arg(value_parser = platforms())]
    pub platform: String,
    /// The course: a bundled one by name (`cis521`), or a config file
    /// (copied into the kit with its folder and every suite, overlay and
    /// `{course}` path it names).
    #[arg(long, value_name = "NAME|FILE")]
    pub course: PathBuf,
    /// The kit to write: Gradescope's zip, or the folder of the others'
    /// files.
    #[arg(long, short, value_name = "PATH", default_value = "autograder.zip")]
    pub out: PathBuf,
    /// Autolab: the assessment's handin file name (a .tar or .tgz is
    /// unpacked; any other file is the submission's one file).
    #[arg(long, value_name = "NAME", default_value = "handin.tar")]
    pub handin: String,
    /// The folder of the harness (and harness-exec) to ship: a small
    /// static build, as scripts/release makes in target/dist [default:
    /// this harness].
    #[arg(long, value_name = "DIR")]
    pub binaries: Option<PathBuf>,
    /// Write the kit without trying it on the course's sample submission
    /// (said as a warning; a kit is tried by default and refused, exit
    /// 2, where the sample falls short of every point).
    #[arg(long)]
    pub untried: bool,
}

/// Options of `harness report`.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Scorecards (or contest leaderboards) to show together.
    #[arg(required = true)]
    pub scorecards: Vec<PathBuf>,
    /// Where the page goes.
    #[arg(long, value_name = "FILE", default_value = "report.html")]
    pub html: PathBuf,
    /// The suites graded (their puzzle files draw the replays). Repeatable.
    #[arg(long = "suite", value_name = "DIR")]
    pub suites: Vec<PathBuf>,
    /// The folder `grade --keep-output` kept the outputs in (replays).
    #[arg(long, value_name = "DIR")]
    pub outputs: Option<PathBuf>,
    /// The course config of a class run (its points table).
    #[arg(long, value_name = "FILE")]
    pub course: Option<PathBuf>,
    /// The page's title.
    #[arg(long, default_value = "puzzlegrade report")]
    pub title: String,
}

/// Options of `harness merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// The merged scorecard.
    pub out: PathBuf,
    /// The shards' scorecards.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// The run's suites (as given to grade): rows missing are named.
    #[arg(long = "suite", value_name = "DIR")]
    pub suites: Vec<PathBuf>,
    /// As given to grade.
    #[arg(long)]
    pub family: Option<String>,
    /// As given to grade.
    #[arg(long)]
    pub filter: Option<String>,
    /// A class run's course config (as given to grade).
    #[arg(long, value_name = "FILE", requires = "submissions")]
    pub course: Option<PathBuf>,
    /// A class run's submissions (as given to grade).
    #[arg(long, value_name = "DIR", requires = "course")]
    pub submissions: Option<PathBuf>,
    /// A class run's summary, recomputed from every shard's rows.
    #[arg(long, value_name = "FILE", requires = "course")]
    pub summary: Option<PathBuf>,
    /// The contest's extra credit, as given to grade.
    #[arg(long, value_name = "FILE", requires = "course")]
    pub contest_credit: Option<PathBuf>,
    /// A class run's Gradescope results, as gradescope:DIR.
    #[arg(long = "export", value_name = "gradescope:DIR", requires = "course")]
    pub exports: Vec<String>,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Options of `harness slurm`.
#[derive(Args, Debug, Clone)]
pub struct SlurmArgs {
    /// A class: the course config (with --submissions).
    #[arg(long, value_name = "FILE", requires = "submissions")]
    pub course: Option<PathBuf>,
    /// A class: its submissions.
    #[arg(long, value_name = "DIR", requires = "course")]
    pub submissions: Option<PathBuf>,
    /// The suites (with --course: replacing the course's). Repeatable.
    #[arg(long = "suite", value_name = "DIR")]
    pub suites: Vec<PathBuf>,
    /// How many shards (array tasks).
    #[arg(long)]
    pub shards: NonZeroUsize,
    /// Array tasks running at once (the array's %M).
    #[arg(long)]
    pub max_running: Option<NonZeroUsize>,
    /// Cases at once per task (its --cpus-per-task).
    #[arg(long, default_value = "1")]
    pub jobs: NonZeroUsize,
    /// The Slurm partition.
    #[arg(long)]
    pub partition: Option<String>,
    /// Each task's Slurm time limit (`02:00:00`).
    #[arg(long)]
    pub time: Option<String>,
    /// Where the scripts, logs, shard scorecards and results go.
    #[arg(long, default_value = "slurm")]
    pub out: PathBuf,
    /// Submit the array and the merge (sbatch) once written.
    #[arg(long)]
    pub submit: bool,
    /// More `harness grade` options for every task (after --: limits,
    /// --filter, --cpu-limit, ...).
    #[arg(last = true)]
    pub grade_options: Vec<String>,
}

/// The platforms of the table, each with what its kit is (`--help`).
fn platforms() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        harness::platform::PLATFORMS
            .iter()
            .map(|p| clap::builder::PossibleValue::new(p.name()).help(p.about())),
    )
}

/// A finite number, zero or more.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{text:?} is not a number of 0 or more")),
    }
}
