//! `harness grade`'s options.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use bytesize::ByteSize;
use clap::Args;

use super::*;

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
    /// The terminal and the exports as a student may see them (a kit's log
    /// and test report): nothing of the cases of rubric items that are not
    /// `visible`. The scorecard, the summary and the platforms' results
    /// keep their own rules.
    #[arg(help_heading = "A class (a course config)", long, requires = "course")]
    pub student_view: bool,
    /// With --submission: its id in the scorecard and summary [default:
    /// the folder's name].
    #[arg(
        help_heading = "A class (a course config)",
        long,
        value_name = "NAME",
        requires = "submission"
    )]
    pub id: Option<String>,
    /// With --submission: a platform's results for it, written at exactly
    /// this path: PLATFORM:FILE (gradescope, autolab, prairielearn), or a
    /// bare FILE for Gradescope's results.json
    /// (/autograder/results/results.json). Repeatable.
    #[arg(
        help_heading = "One submission on a platform",
        long,
        value_name = "[PLATFORM:]FILE",
        requires = "submission"
    )]
    pub results: Vec<String>,
    /// With --submission: Autolab's scores for it, the one line
    /// `{"scores": {...}}` keyed by rubric item, written to FILE (a kit's
    /// autograder prints it last); the same as --results autolab:FILE.
    #[arg(
        help_heading = "One submission on a platform",
        long,
        value_name = "FILE",
        requires = "submission"
    )]
    pub autolab: Option<PathBuf>,
    /// With --submission: PrairieLearn's external-grader results.json for
    /// it, written at exactly this path (/grade/results/results.json); the
    /// same as --results prairielearn:FILE.
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
    /// The time limit per case: the CPU time of its whole process tree
    /// (its cgroup; RLIMIT_CPU per process where there is none), as judges
    /// count it (isolate's --time, BenchExec's --timelimit), so a loaded
    /// machine costs no student anything [default: 80s, or the course
    /// config's cpu_limit]. With --isolation none, where nothing measures
    /// a tree's CPU time, it is the wall clock's. (--cpu-limit: the same.)
    #[arg(
        help_heading = "Limits",
        long = "time-limit",
        visible_alias = "cpu-limit",
        value_parser = humantime::parse_duration
    )]
    pub cpu_limit: Option<Duration>,
    /// The wall-clock safety net per case [default: 3 x --time-limit + 5s,
    /// or the course config's time_limit]. A case it stops with its CPU
    /// time under the limit is run again alone; at or under --time-limit
    /// it is the verdict clock itself.
    #[arg(help_heading = "Limits", long, value_parser = humantime::parse_duration)]
    pub wall_limit: Option<Duration>,
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
    /// The result store.
    #[command(flatten)]
    pub cache: StoreArgs,
}

/// Where rows are kept between runs (`grade`'s and `verify`'s).
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Keep each row by the digest of everything its verdict depends on
    /// (candidate and case bytes, command, limits, isolation, judge,
    /// harness version) in the store DIR (a folder of this user's that
    /// holds a store or nothing), and take a row from there instead of
    /// running its case again (see docs/harness.md#the-result-store).
    /// `PUZZLEGRADE_STORE` sets it for every run; without either, the
    /// user's cache folder.
    #[arg(
        help_heading = "Scorecard and outputs",
        long,
        value_name = "DIR",
        env = "PUZZLEGRADE_STORE"
    )]
    pub store: Option<PathBuf>,
    /// Take nothing from the result store and keep nothing there, even
    /// where `--store` or `PUZZLEGRADE_STORE` names one: every case runs.
    /// Without it (or `--store`), rows are kept in the user's cache folder
    /// (`$XDG_CACHE_HOME/puzzlegrade`, `~/.cache/puzzlegrade`).
    #[arg(
        help_heading = "Scorecard and outputs",
        long,
        env = "PUZZLEGRADE_NO_CACHE",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub no_cache: bool,
    /// The most the result store may hold; over it, the entries read
    /// longest ago go.
    #[arg(help_heading = "Scorecard and outputs", long, default_value = "1GiB")]
    pub store_size: bytesize::ByteSize,
}
