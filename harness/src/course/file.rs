//! A course config as written: the TOML's shape, each field's meaning and
//! default (checked and resolved into a [`super::Course`]).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::{contest, policy, rubric};
use rubric::Item;

/// A course config as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourseFile {
    /// The course and assignment, for people.
    pub name: String,
    /// The puzzle family.
    pub family: String,
    /// What is not graded here and why (printed in the docs, kept for
    /// people reading the config).
    #[serde(default)]
    pub out_of_scope: Vec<String>,
    /// The Debian packages the build and the cases need (a platform kit's
    /// setup installs them: `harness package`).
    #[serde(default)]
    pub packages: Vec<String>,
    /// A submission that earns every rubric point (the staff solution, or a
    /// fixture), relative to the config: `harness package` grades it
    /// through the kit it wrote and refuses a kit where it falls short.
    /// `""`: none (a config extending one that names a sample its handout
    /// year cannot build).
    #[serde(default)]
    pub sample: Option<PathBuf>,
    /// How a submission is built.
    #[serde(default)]
    pub build: Option<BuildFile>,
    /// Per-case limits.
    #[serde(default)]
    pub limits: LimitsFile,
    /// The JVM the course's machines ran (`[java]`).
    #[serde(default)]
    pub java: JavaFile,
    /// What a submission is graded on.
    #[serde(rename = "part")]
    pub parts: Vec<PartFile>,
    /// How rows become points.
    #[serde(rename = "rubric")]
    pub rubric: Vec<Item>,
    /// Handin limit and lateness (items after the rubric's).
    #[serde(default)]
    pub policy: Option<policy::PolicyFile>,
    /// The contest: who enters, what is timed, credit by place.
    #[serde(default)]
    pub contest: Option<contest::ContestFile>,
    /// Who sees the autograder's log on Gradescope [default: hidden].
    #[serde(default = "hidden")]
    pub stdout_visibility: rubric::Visibility,
    /// The verdicts in the course's words, for students (`--student-view`
    /// logs and the platforms' feedback): `wrong-answer = "incorrect
    /// moves"`, each over ours ("wrong answer", "crashed", "too slow", ...).
    #[serde(default)]
    pub verdicts: std::collections::BTreeMap<crate::outcome::Verdict, String>,
    /// A crash's words on stderr (a JVM's uncaught exception, exit 1):
    /// exiting non-zero with one is `runtime-error`, never an answer.
    #[serde(default)]
    pub crashes: Vec<String>,
    /// What a row's detail keeps from stderr, whatever its verdict: the
    /// last line holding one of these, as `note: LINE` (15-122's leak
    /// check naming the memcheck errors it does not count).
    #[serde(default)]
    pub notes: Vec<String>,
}

fn hidden() -> rubric::Visibility {
    rubric::Visibility::Hidden
}

/// `[build]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildFile {
    /// A shell command run in a scratch copy of the submission (its
    /// working directory); `{course}` and `{submission}` are replaced by
    /// this config's folder and the copy, quoted for the shell.
    pub command: String,
    /// Its wall-clock limit.
    #[serde(default = "default_build_limit", with = "humantime_serde")]
    pub time_limit: Duration,
    /// Files the submission must hold (a missing one is a compile error).
    #[serde(default)]
    pub require: Vec<String>,
    /// Folders of the course's own files (relative to the config), copied
    /// into each submission's copy before the build, in order (a later
    /// one's file replaces an earlier one's: a handout year over the
    /// course's common files): the handout's Makefile and libraries, an
    /// exam's read-only files, the course's test drivers. Each replaces a
    /// student's file of the same path, unless the path is one of `handin`.
    #[serde(default, deserialize_with = "rubric::paths")]
    pub overlay: Vec<PathBuf>,
    /// Globs of the files students hand in (`*.c`, `lib/board-ht.h`): a
    /// student's file matching one wins over the overlay's; every other
    /// overlay file replaces the student's.
    #[serde(default)]
    pub handin: Vec<String>,
    /// What a handin written for this course's interfaces uses, where
    /// handout years differ by them: a name (`bitvector_free`), or
    /// `name/N`, a call of it with N arguments (`hdict_insert/2`).
    /// `harness courses --for DIR` names the course whose marks a handin
    /// uses most ([`super::marks`]).
    #[serde(default)]
    pub marks: Vec<String>,
}

fn default_build_limit() -> Duration {
    Duration::from_secs(300)
}

/// `[limits]`: each can be overridden on the command line.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsFile {
    /// The wall-clock safety net per case (default: 3 x `cpu_limit` + 5 s;
    /// `wall_limit` too, as the command line's `--wall-limit`).
    #[serde(default, with = "humantime_serde", alias = "wall_limit")]
    pub time_limit: Option<Duration>,
    /// The time limit per case: CPU time of its whole process tree.
    #[serde(default, with = "humantime_serde")]
    pub cpu_limit: Option<Duration>,
}

/// `[java]`: the JVM the course's machines gave a Java program, set for
/// every case as `JAVA_TOOL_OPTIONS` (a `--env` of it wins). Without it a
/// JVM's heap is three quarters of the case's memory limit (see
/// `executor::isolation::isolate::environment`), not the quarter of it a
/// JVM takes by itself in a cgroup, and it sees the cores its job slot
/// has.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JavaFile {
    /// The most heap (`-Xmx`, the JVM's own words: `1536m`, `2g`).
    #[serde(default)]
    pub heap: Option<String>,
    /// The processors it sees (`-XX:ActiveProcessorCount`), whatever the
    /// machine's or the job slot's: a program that sizes its threads by
    /// them does the same everywhere.
    #[serde(default)]
    pub cpus: Option<u32>,
}

impl JavaFile {
    /// Its JVM options, where it sets any.
    pub fn options(&self) -> Option<String> {
        let mut o = Vec::new();
        if let Some(h) = &self.heap {
            o.push(format!("-Xmx{h}"));
        }
        if let Some(c) = self.cpus {
            o.push(format!("-XX:ActiveProcessorCount={c}"));
        }
        (!o.is_empty()).then(|| o.join(" "))
    }

    /// Checks it: a heap in the JVM's form, at least one processor.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(h) = &self.heap {
            let digits = h.trim_end_matches(['k', 'K', 'm', 'M', 'g', 'G']);
            if digits.is_empty()
                || h.len() - digits.len() > 1
                || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(format!(
                    "heap = {h:?}: a size as the JVM's -Xmx takes it (1536m, 2g)"
                ));
            }
        }
        if self.cpus == Some(0) {
            return Err("cpus = 0: at least 1".into());
        }
        Ok(())
    }
}

/// How the candidate is given its puzzle files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Paths {
    /// Absolute paths; the working directory is the built submission.
    #[default]
    Absolute,
    /// Names relative to the folder holding the puzzle files, which is the
    /// working directory (as the course scripts ran candidates from the
    /// suite folder).
    Relative,
}

/// `[[part]]`: one thing a submission is graded on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartFile {
    /// Its name (a prefix of its rows' suite in the scorecard).
    pub name: String,
    /// The command, split like a shell would, then `{submission}` (the
    /// built copy) and `{course}` (this config's folder) filled in each
    /// argument; the case's files are appended.
    pub command: String,
    /// Suite folders or listings (relative to the config). `--suite`
    /// replaces them for the parts judged by the family's contract.
    #[serde(default)]
    pub suites: Vec<PathBuf>,
    /// Only cases whose `suite/case` matches one of these globs.
    #[serde(default)]
    pub cases: Vec<String>,
    /// How files are given.
    #[serde(default)]
    pub paths: Paths,
    /// The format the candidate is given the puzzle files in: `as-is`
    /// (the default), or another of the family's formats (a course's
    /// older one): the candidate gets converted copies, answers are judged
    /// on the originals.
    #[serde(default)]
    pub format: Option<String>,
    /// How rows are judged: `contract` (the family's student contract, the
    /// default) or a question (`family:function`; see
    /// [`reference::questions`]).
    #[serde(default)]
    pub judge: Option<String>,
    /// An exit-status battery instead of suites: `checker` or `solver`.
    #[serde(default)]
    pub conform: Option<String>,
    /// A battery's probes judge stdout too (empty, or an answer that
    /// solves), as `harness conform` does; by default a course's battery
    /// judges the exit statuses alone, as the handouts' status items say
    /// ("2 points for Solver exiting with correct exit statuses"): what a
    /// program prints is the suites' items' to judge.
    #[serde(default)]
    pub check_output: bool,
    /// Files the built submission must hold for this part to run (as
    /// `Checker.java` for a Checker's battery): where one is missing, each
    /// of the part's rows is `compile-error` saying so, and nothing runs
    /// (a program that is not there must not pass the cases that expect a
    /// failure).
    #[serde(default)]
    pub require: Vec<String>,
    /// `--suite` leaves this part's suites as they are (a part on one
    /// puzzle of the course's own, as an exam's challenge question).
    #[serde(default)]
    pub keep_suites: bool,
    /// The judge's words in the handout's, for students (Gradescope's and
    /// PrairieLearn's feedback): `[["exit 1 (no solution)", "returned
    /// None"], ...]`, each phrase replaced where a detail holds it, in
    /// order. The scorecard keeps the judge's own words.
    #[serde(default)]
    pub says: Vec<(String, String)>,
    /// Who sees the tests of the rubric items built on this part (a
    /// secret part: `after_due_date`); an item is as secret as the most
    /// secret of its own `visibility` and its parts'.
    #[serde(default)]
    pub visibility: rubric::Visibility,
    /// Its cases may reach the network (a part that fetches or serves);
    /// every other case keeps a loopback of its own (`--network` opens it
    /// for the whole run).
    #[serde(default)]
    pub network: bool,
    /// Its cases may use System V IPC and POSIX message queues where
    /// they have no IPC namespace of their own (the container tier:
    /// refused there unless a part asks, and then shared with every case
    /// there); elsewhere each case has its own.
    #[serde(default)]
    pub ipc: bool,
}
