//! The command line, as clap derive structs only; `options.rs` validates
//! them into the library's settings.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use bytesize::ByteSize;
use clap::{Args, Parser, Subcommand};

/// Grade puzzle-solving programs: run a candidate on every puzzle of the
/// suites, in parallel and under a time limit, check each answer with the
/// reference checkers, and write a CSV scorecard.
#[derive(Parser, Debug)]
#[command(name = "harness", version, args_override_self = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Grade a candidate on suites. With no options: the bundled reference
    /// solvers on every suite under ./suites.
    #[command(after_long_help = "\
Examples:
  harness grade --force
      the bundled reference solvers on every bundled suite
  harness grade --suite suites/lightsout/easy --candidate ./lightsout --scorecard lo.csv
      a C solver on one suite; --resume continues an interrupted run
  harness grade --course cis521 --submissions class/ --summary summary.csv
      a class by its course config (bundled by name, or a file)
  harness grade --course cis521 --submissions class/ --only alice --summary summary.csv
      regrade one student into the class's scorecard

Exit status: 0 every case accepted; 1 some case not accepted; 2 a usage or
setup error (nothing graded, an earlier scorecard untouched); 130 or 143
stopped by SIGINT or SIGTERM (finished rows kept: --resume continues).")]
    Grade(Box<GradeArgs>),
    /// Check a student's Checker or Solver against its handout's exit
    /// statuses, on a battery of generated cases (one scorecard row each).
    #[command(after_long_help = "\
Examples:
  harness conform --role checker --family slidingblock --candidate 'java -cp sub Checker'
  harness conform --role solver --family lightsout --candidate ./lightsout --force

Exit status: 0 every probe conforms; 1 some does not; 2 a usage error
(an unknown family, a role its handout does not have, an existing
scorecard without --force).")]
    Conform(Box<ConformArgs>),
    /// Time contest entries: every case several times after warm-up runs,
    /// ranked by cases solved then PAR-2, ties inside the noise.
    #[command(after_long_help = "\
Examples:
  harness contest --entries entries/ --suite suites/slidingblock/hard --leaderboard board.csv
      each entry a folder with an executable `run`; board.json beside it
  harness contest --course cs61bl --entries class/ --suite contest/ --credit credit.csv
      a course's contest: entries are the submissions with a contest.txt

Exit status: 0 the leaderboard was written; 2 a usage or setup error;
130 or 143 stopped (no leaderboard written).")]
    Contest(Box<ContestArgs>),
    /// One self-contained HTML page from scorecards: summaries, a cactus
    /// plot, a bar chart, a sortable table, replays of wrong answers.
    #[command(after_long_help = "\
Examples:
  harness report scorecard.csv --html report.html
  harness report old.csv new.csv --suite suites/lightsout --html both.html

Exit status: 0 the page was written; 2 an unreadable scorecard.")]
    Report(ReportArgs),
    /// Join the scorecards of a sharded run (`grade --shard K/N`) into one,
    /// naming rows found twice or missing; recompute a class's points.
    #[command(after_long_help = "\
Examples:
  harness merge scorecard.csv shards/shard-*.csv --suite suites
  harness merge scorecard.csv shards/*.csv --course cis521 --submissions class/ --summary summary.csv

Exit status: 0 merged, every row once; 1 rows missing or duplicated
(named); 2 a usage error (an existing output without --force).")]
    Merge(MergeArgs),
    /// Write (and with --submit, submit) the Slurm job array of a sharded
    /// grading run and the merge job that waits for it.
    #[command(after_long_help = "\
Examples:
  harness slurm --course cis521 --submissions /scratch/class --shards 16 --out /scratch/run
  harness slurm --suite suites --shards 8 --out run --submit -- --candidate ./solver

Exit status: 0 the scripts were written (and submitted); 2 a usage error
or a failed sbatch.")]
    Slurm(Box<SlurmArgs>),
    /// What changed between two scorecards (or class runs, or contest
    /// leaderboards), case by case; exit 1 when anything regressed.
    #[command(after_long_help = "\
Examples:
  harness compare baseline.csv new.csv
  harness compare board-monday.csv board-friday.csv --metric cpu --threshold 10%

Exit status: 0 nothing regressed; 1 something did (listed); 2 an
unreadable input.")]
    Compare(CompareArgs),
    /// List the course configs built into this binary (`--course NAME`
    /// grades with one from any folder).
    Courses,
    /// Write a platform's autograder kit for a course (Gradescope: an
    /// autograder.zip with setup.sh, run_autograder and this harness;
    /// Autolab: autograde-Makefile and autograde.tar).
    #[command(after_long_help = "\
Examples:
  harness package gradescope --course cis521 -o autograder.zip
  harness package autolab --course cmu15122 --handin handin.tgz -o autolab-kit
  harness package prairielearn --course cis521 -o pl-kit
  harness package gitlab --course imperial -o gitlab-kit

Exit status: 0 the kit was written; 2 a usage error.")]
    Package(PackageArgs),
    /// Print a shell's completion script for harness
    /// (`harness completions bash > /etc/bash_completion.d/harness`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the manual pages, harness.1 and one per subcommand, into DIR.
    Man {
        /// The folder to write them into (made if missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Solve one puzzle with the reference solver, printing exactly what the
    /// family's student contract asks (the default candidate of `grade`).
    Solve {
        /// The puzzle family.
        #[arg(long)]
        family: String,
        /// The puzzle file(s), as a candidate gets them.
        files: Vec<PathBuf>,
    },
    /// The guard process a grading run starts (internal): kills every live
    /// case's process group when the harness dies.
    #[command(name = "__guard", hide = true)]
    Guard {
        /// The slot file of live process groups.
        slots: PathBuf,
        /// A run cgroup folder to clear away.
        #[arg(long = "cgroup")]
        cgroups: Vec<PathBuf>,
        /// The run's scratch folder to remove.
        #[arg(long = "remove")]
        run_dir: Option<PathBuf>,
    },
}

/// `--isolation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum IsolationArg {
    /// Every protection the machine offers (the default).
    Full,
    /// None: plain processes in the harness's environment (trusted code).
    None,
}

/// `--run-as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunAsArg {
    /// A uid per job slot (from --uid-base) when the harness is root.
    Auto,
    /// The harness's own user.
    Harness,
}

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxArg {
    /// The strongest the machine allows: as root, a user per slot and the
    /// case's own namespaces; as another user, bubblewrap where it works.
    Auto,
    /// No outer sandbox.
    None,
    /// bubblewrap around each case.
    Bwrap,
}

/// A switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    /// On.
    On,
    /// Off.
    Off,
}

/// How the terminal shows a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A progress bar, the cases not accepted, a summary per suite.
    Human,
    /// Every event as a JSON line on stdout.
    Json,
}

/// `--role`: which program of the assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    /// The Checker: puzzle files as arguments, moves on stdin.
    Checker,
    /// The Solver: puzzle files as arguments, an answer on stdout.
    Solver,
}

/// `--metric`: which time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricArg {
    /// Wall-clock time.
    Wall,
    /// CPU time.
    Cpu,
}

/// Options of `harness grade`.
#[derive(Args, Debug, Clone)]
pub struct GradeArgs {
    /// A suite folder (with a listing `<level>.csv`), a family folder, a
    /// whole tree, or a listing file. Repeatable. Default: ./suites.
    #[arg(help_heading = "What to grade", long = "suite", value_name = "DIR")]
    pub suites: Vec<PathBuf>,
    /// The candidate command, split like a shell would
    /// ('java -cp sub Solver', 'python3 solver.py'); the puzzle file paths
    /// are appended. Default: the bundled reference solver.
    #[arg(
        help_heading = "What to grade",
        long,
        value_name = "CMD ARGS",
        conflicts_with = "course"
    )]
    pub candidate: Option<String>,
    /// Grade a class with this course config (courses/*.toml): build and
    /// run every submission of --submissions (or the one of --submission),
    /// score it by the rubric. --suite then replaces the suites of the
    /// parts run by the family's contract.
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "FILE",
        requires = "class"
    )]
    pub course: Option<PathBuf>,
    /// The class: one subfolder (or .zip / .tar.gz) per submission, named
    /// by the submission id. Needs --course.
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "DIR",
        requires = "course",
        group = "class"
    )]
    pub submissions: Option<PathBuf>,
    /// One submission's folder, where a platform puts it (Gradescope's
    /// /autograder/submission; a link is followed): graded alone, its
    /// handins from the platform's submission_metadata.json beside it.
    /// Needs --course.
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "DIR",
        requires = "course",
        group = "class"
    )]
    pub submission: Option<PathBuf>,
    /// With --submissions: regrade only this submission (repeatable) into
    /// the existing class scorecard: its rows are replaced, every other
    /// row is kept, and the summary and exports cover the whole class.
    #[arg(help_heading = "A class (a course config)", long, value_name = "ID", requires = "submissions", conflicts_with_all = ["resume", "rerun_failed", "force"])]
    pub only: Vec<String>,
    /// With --submission: its id in the scorecard and summary [default:
    /// the folder's name].
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "NAME",
        requires = "submission"
    )]
    pub id: Option<String>,
    /// With --submission: Gradescope's results.json for it, written at
    /// exactly this path (/autograder/results/results.json).
    #[arg(
        help_heading = "One submission on a platform",
        long,
        value_name = "FILE",
        requires = "submission"
    )]
    pub results: Option<PathBuf>,
    /// With --submission: Autolab's scores for it, the one line
    /// `{"scores": {...}}` keyed by rubric item, written to FILE (a kit's
    /// autograder prints it last).
    #[arg(
        help_heading = "One submission on a platform",
        long,
        value_name = "FILE",
        requires = "submission"
    )]
    pub autolab: Option<PathBuf>,
    /// With --submission: PrairieLearn's external-grader results.json for
    /// it, written at exactly this path (/grade/results/results.json).
    #[arg(
        help_heading = "One submission on a platform",
        long,
        value_name = "FILE",
        requires = "submission"
    )]
    pub prairielearn: Option<PathBuf>,
    /// With --course: one row per submission (points per rubric item,
    /// total, counts) written to this CSV at the end.
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "FILE",
        requires = "course"
    )]
    pub summary: Option<PathBuf>,
    /// With --course: the contest's extra credit per submission (the CSV
    /// `harness contest --credit` writes), an item of the summary and the
    /// Gradescope export beyond the maximum.
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "FILE",
        requires = "course"
    )]
    pub contest_credit: Option<PathBuf>,
    /// Only suites of this family (default: detected from each listing).
    #[arg(help_heading = "What to grade", long, conflicts_with = "course")]
    pub family: Option<String>,
    /// The wall-clock safety net per case [default: 3 x --cpu-limit + 5s,
    /// or the course config's; 80s with --isolation none]. A case it stops
    /// with its CPU time under the limit is run again alone. At or under
    /// --cpu-limit it is the verdict clock itself.
    #[arg(help_heading = "Limits", long, value_parser = humantime::parse_duration)]
    pub time_limit: Option<Duration>,
    /// The time limit per case, on the CPU time of its whole process tree
    /// (its cgroup; RLIMIT_CPU per process where there is none), so a
    /// loaded machine costs no student anything [default: 80s, or the
    /// course config's]. Needs isolation.
    #[arg(help_heading = "Limits", long, value_parser = humantime::parse_duration)]
    pub cpu_limit: Option<Duration>,
    /// Time between SIGTERM and SIGKILL when a case runs out of time.
    #[arg(help_heading = "Limits", long, default_value = "1s", value_parser = humantime::parse_duration)]
    pub grace: Duration,
    /// Cases run at once, 1 to 1024 (default: the number of cores).
    #[arg(help_heading = "Limits", long)]
    pub jobs: Option<NonZeroUsize>,
    /// Where the CSV scorecard goes. If it exists, one of --resume,
    /// --rerun-failed or --force must say what to do with it.
    #[arg(
        help_heading = "Scorecard and outputs",
        long,
        default_value = "scorecard.csv"
    )]
    pub scorecard: PathBuf,
    /// Keep the scorecard's finished rows and run only the missing cases
    /// (after a Ctrl-C or a crash).
    #[arg(help_heading = "Scorecard and outputs", long, group = "existing")]
    pub resume: bool,
    /// Run again only the cases whose verdict is not accepted (and any
    /// missing), replacing their rows.
    #[arg(help_heading = "Scorecard and outputs", long, group = "existing")]
    pub rerun_failed: bool,
    /// Replace an existing scorecard.
    #[arg(help_heading = "Scorecard and outputs", long, group = "existing")]
    pub force: bool,
    /// Also write the results as FORMAT:PATH (json, junit, gradescope),
    /// rewritten as rows come. Repeatable.
    #[arg(
        help_heading = "Scorecard and outputs",
        long = "export",
        value_name = "FORMAT:PATH"
    )]
    pub exports: Vec<String>,
    /// What the terminal shows.
    #[arg(
        help_heading = "Scorecard and outputs",
        long,
        value_enum,
        default_value = "human"
    )]
    pub format: Format,
    /// Only cases whose `suite/case` contains this text.
    #[arg(help_heading = "What to grade", long)]
    pub filter: Option<String>,
    /// States a search may store to find a puzzle's `best_moves` when no
    /// best-known table has it (0: tables only; 250000000 proves the
    /// hardest CS61BL puzzles, ~20 s each).
    #[arg(help_heading = "What to grade", long, default_value_t = reference::family::BEST_MOVES_STATES)]
    pub best_moves_states: usize,
    /// The candidate's working directory (default: the candidate program's
    /// folder when it is given as a path, else the current directory).
    #[arg(help_heading = "What to grade", long, conflicts_with = "course")]
    pub workdir: Option<PathBuf>,
    /// The candidate's name in the scorecard (default: the command).
    #[arg(help_heading = "What to grade", long, conflicts_with = "course")]
    pub name: Option<String>,
    /// Standard output kept per case; more is verdict output-limit.
    #[arg(help_heading = "Limits", long, default_value = "64MiB")]
    pub stdout_limit: ByteSize,
    /// Standard error kept per case; more is read and dropped (never a
    /// verdict).
    #[arg(help_heading = "Limits", long, default_value = "1MiB")]
    pub stderr_limit: ByteSize,
    /// How candidates are kept from harming the run.
    #[command(flatten)]
    pub sandbox: IsolationArgs,
    /// Let listings name puzzle files outside their suite's folder.
    #[arg(help_heading = "What to grade", long)]
    pub allow_outside_suite: bool,
    /// The largest puzzle file read.
    #[arg(help_heading = "What to grade", long, default_value = "64MiB")]
    pub max_puzzle_size: ByteSize,
    /// Grade only the K-th of N deterministic, cost-balanced parts of the
    /// work (by case; a class by submission), for a cluster or several
    /// machines; `harness merge` joins the shards' scorecards.
    #[arg(help_heading = "Sharding", long, value_name = "K/N")]
    pub shard: Option<harness::shard::Shard>,
    /// A previous scorecard whose times balance the shards (default: the
    /// puzzle files' sizes; a class's submissions evenly).
    #[arg(
        help_heading = "Sharding",
        long,
        value_name = "FILE",
        requires = "shard"
    )]
    pub shard_costs: Option<PathBuf>,
    /// Keep each case's stdout and stderr (as captured, within the caps)
    /// in `DIR/<candidate>/<suite>/<case>.stdout` and `.stderr`, for
    /// `harness report`'s replays.
    #[arg(help_heading = "Scorecard and outputs", long, value_name = "DIR")]
    pub keep_output: Option<PathBuf>,
}

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
    /// Wall-clock limit per case.
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
    /// The baseline scorecard (or leaderboard).
    pub baseline: PathBuf,
    /// The new scorecard (or leaderboard).
    pub new: PathBuf,
    /// A time change counts when it is more than this (20%, 0.2).
    #[arg(long, default_value = "20%", value_parser = harness::compare::parse_percent)]
    pub threshold: f64,
    /// ... and at least this much.
    #[arg(long, default_value = "50ms", value_parser = humantime::parse_duration)]
    pub min_delta: Duration,
    /// The time compared.
    #[arg(long, value_enum, default_value = "wall")]
    pub metric: MetricArg,
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
    /// Wall-clock limit per run (an unsolved case counts twice it).
    #[arg(long, default_value = "80s", value_parser = humantime::parse_duration)]
    pub time_limit: Duration,
    /// The leaderboard CSV.
    #[arg(long, default_value = "leaderboard.csv")]
    pub leaderboard: PathBuf,
    /// With a --course that has a [contest]: each submission's place and
    /// extra credit (entries and the rest), for `grade --contest-credit`.
    #[arg(long, value_name = "FILE", requires = "course")]
    pub credit: Option<PathBuf>,
    /// Also a scorecard: one row per entry and case, median times.
    #[arg(long)]
    pub scorecard: Option<PathBuf>,
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
    /// The platform.
    #[arg(value_enum)]
    pub platform: PlatformArg,
    /// The course: a bundled one by name (`cis521`), or a config file whose
    /// folder holds everything it names (copied whole into the kit).
    #[arg(long, value_name = "NAME|FILE")]
    pub course: PathBuf,
    /// The kit to write: Gradescope's zip, or the folder for Autolab's
    /// two files.
    #[arg(long, short, value_name = "PATH", default_value = "autograder.zip")]
    pub out: PathBuf,
    /// Autolab: the assessment's handin file name (a .tar or .tgz is
    /// unpacked; any other file is the submission's one file).
    #[arg(long, value_name = "NAME", default_value = "handin.tar")]
    pub handin: String,
}

/// The platforms `harness package` writes kits for.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum PlatformArg {
    /// Gradescope's autograder.zip.
    Gradescope,
    /// Autolab's (Tango's) autograde-Makefile and autograde.tar.
    Autolab,
    /// PrairieLearn's external grader: serverFilesCourse/puzzlegrade and
    /// the question's externalGradingOptions.
    Prairielearn,
    /// A GitLab CI job (LabTS-style): .gitlab-ci.yml and the runner's
    /// install script.
    Gitlab,
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every example in a subcommand's long help parses as written, and
    /// every subcommand a user runs has examples and its exit statuses.
    #[test]
    fn the_help_examples_parse() {
        let cli = Cli::command();
        let mut checked = 0;
        for sub in cli.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = sub.get_name();
            let Some(help) = sub.get_after_long_help() else {
                assert!(
                    ["courses", "completions", "man", "solve", "help"].contains(&name),
                    "{name} has no examples"
                );
                continue;
            };
            let help = help.to_string();
            assert!(help.contains("Exit status: 0 "), "{name}");
            for line in help.lines().filter(|l| l.starts_with("  harness ")) {
                let words = shell_words::split(line.trim()).unwrap();
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("{line}: {e}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 16, "{checked} examples");
    }
}
