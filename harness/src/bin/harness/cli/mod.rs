//! The command line, as clap derive structs only; `options.rs` validates
//! them into the library's settings. `grade`'s options are in `grade.rs`,
//! the others' in `tools.rs`; each subcommand's examples and exit statuses
//! are in `harness/help/`.

mod grade;
mod tools;

pub use grade::{GradeArgs, StoreArgs};
pub use tools::*;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

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
    #[command(after_long_help = include_str!("../../../../help/grade.txt"))]
    Grade(Box<GradeArgs>),
    /// Recompute a graded class's points from its scorecard under the
    /// course's rubric as it is now (`grade`'s arguments, the scorecard
    /// kept): nothing runs, and a case with no row is an error. Prints each
    /// submission whose total changed from the summary's.
    #[command(after_long_help = include_str!("../../../../help/regrade.txt"))]
    Regrade(Box<GradeArgs>),
    /// Check a student's Checker or Solver against its handout's exit
    /// statuses, on a battery of generated cases (one scorecard row each).
    #[command(after_long_help = include_str!("../../../../help/conform.txt"))]
    Conform(Box<ConformArgs>),
    /// Time contest entries: every case several times after warm-up runs,
    /// ranked by cases solved then PAR-2, ties inside the noise.
    #[command(after_long_help = include_str!("../../../../help/contest.txt"))]
    Contest(Box<ContestArgs>),
    /// One self-contained HTML page from scorecards: summaries, a cactus
    /// plot, a bar chart, a sortable table, replays of wrong answers.
    #[command(after_long_help = include_str!("../../../../help/report.txt"))]
    Report(ReportArgs),
    /// Join the scorecards of a sharded run (`grade --shard K/N`) into one,
    /// naming rows found twice or missing; recompute a class's points.
    #[command(after_long_help = include_str!("../../../../help/merge.txt"))]
    Merge(MergeArgs),
    /// Write (and with --submit, submit) the Slurm job array of a sharded
    /// grading run and the merge job that waits for it.
    #[command(after_long_help = include_str!("../../../../help/slurm.txt"))]
    Slurm(Box<SlurmArgs>),
    /// What changed between two scorecards (or class runs, or contest
    /// leaderboards), case by case; exit 1 when anything regressed.
    #[command(after_long_help = include_str!("../../../../help/compare.txt"))]
    Compare(CompareArgs),
    /// Verify a problem package (the Kattis/ICPC format): build each of its
    /// judge solutions as problemtools does, run it on every case, and
    /// check it gets the verdict its folder under submissions/ names.
    #[command(after_long_help = include_str!("../../../../help/verify.txt"))]
    Verify(Box<VerifyArgs>),
    /// List the course configs built into this binary (`--course NAME`
    /// grades with one from any folder).
    Courses {
        /// Which handout year's course a handin (a folder) was written
        /// for, by the interfaces its code uses (a course's `[build]
        /// marks`): the courses that have marks, best fit first; exit 1
        /// where none fits, or two fit alike.
        #[arg(long = "for", value_name = "DIR")]
        handin: Option<std::path::PathBuf>,
    },
    /// Write a platform's autograder kit for a course (Gradescope,
    /// Autolab, PrairieLearn, GitLab CI: `package --help` says each).
    #[command(after_long_help = include_str!("../../../../help/package.txt"))]
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
    /// case's own namespaces; as another user, bubblewrap where it works;
    /// where neither may (a container), Landlock.
    Auto,
    /// No outer sandbox.
    None,
    /// bubblewrap around each case.
    Bwrap,
    /// A Landlock ruleset per case: what a view would hide closed, only
    /// its scratch folder writable, no TCP.
    Landlock,
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
    /// Nothing of the run itself (`regrade`, which says what moved).
    #[value(hide = true)]
    Quiet,
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
