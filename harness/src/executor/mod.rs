//! Running one candidate process, behind a trait: the real executor
//! (`process`: its own process group, stdin closed, stdout and stderr
//! drained into capped buffers, a wall-clock limit on the whole group,
//! resource usage from `wait4`) and a fake one (`fake`: scripted results,
//! so the verdict logic and the scheduler are tested without spawning).

mod cgroup;
mod error;
pub mod fake;
mod isolation;
mod process;
mod run;
mod sandbox;
mod wire;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

pub use error::ExecError;
pub use isolation::isolate::{Isolation, JAVA_OPTIONS, RunAs, SandboxChoice, reachable};
pub use isolation::scratch::ScratchPlace;
pub use process::ProcessExecutor;
pub use run::guard::{Cleanup, serve as serve_guard};
pub use run::launch::{FAILED, find_program};
pub use run::shim::exec as exec_in_sandbox;
pub use sandbox::view::SHARED;
pub use sandbox::{serve_holder, serve_keeper};
pub use wire::{Wire, Wired, pair};

use crate::cancel::Cancel;

/// Runs candidate commands.
pub trait Executor: Send + Sync {
    /// Runs `spec` under `limits` and measures it. Never fails: our own
    /// failure to start or wait is [`Ending::Failed`]. When `cancel` is set
    /// the run is stopped and [`RunResult::cancelled`] says so.
    fn execute(&self, spec: &Spec, limits: &Limits, cancel: &Cancel) -> RunResult;

    /// Called once when no case is running any more: anything the
    /// candidates left behind is killed.
    fn finish(&self) {}

    /// The user and group a job slot's processes run as, when not the
    /// harness's own (a uid per slot, as root).
    fn owner(&self, _slot: usize) -> Option<(u32, u32)> {
        None
    }

    /// The job slot that may run a case at the same time as one on
    /// `slot`, its partner (an interactive problem's validator beside the
    /// candidate: each under its own user, folder and cgroup); `None`
    /// where two cases cannot run at once here.
    fn partner(&self, _slot: usize) -> Option<usize> {
        None
    }

    /// Where its scratch folders live (a mode's own scratch goes beside
    /// them).
    fn scratch_place(&self) -> ScratchPlace {
        ScratchPlace::Temporary
    }

    /// Whether every case is kept from the harness's own files (it runs
    /// as another user, or in a sandbox's view or rules): where not, its
    /// candidates can change what the harness keeps (the result store).
    fn confines(&self) -> bool {
        false
    }

    /// The isolation in force, short (the scorecard's `isolation` column).
    fn label(&self) -> String {
        "none".into()
    }

    /// The isolation in force, with what is not available and why.
    fn describe(&self) -> String {
        format!("isolation: {}", self.label())
    }
}

/// One command to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Program then arguments, before the puzzle files.
    pub argv: Vec<OsString>,
    /// The puzzle files; the executor appends their paths (or those of
    /// private copies) to `argv`.
    pub files: Vec<PathBuf>,
    /// The bytes of `files` as the harness read them, when it did: private
    /// copies are written from these, not from the files as they are now.
    pub contents: Option<std::sync::Arc<Vec<Vec<u8>>>>,
    /// Where it runs.
    pub workdir: PathBuf,
    /// The job slot (0 to jobs - 1) running it: isolated slots run as
    /// users of their own.
    pub slot: usize,
    /// A file for stdin (a Checker's moves); `/dev/null` when `None`.
    pub stdin: Option<PathBuf>,
    /// Give the files as names relative to the working directory, which is
    /// then the folder holding them (the case's scratch folder under
    /// isolation), as the course scripts ran candidates from the suite
    /// folder; `workdir` is then not used.
    pub relative: bool,
    /// The program writes in `workdir` (a submission's build): under an
    /// outer sandbox it stays writable there (else it is read-only).
    pub write_workdir: bool,
    /// The network is open to it (a course part's `network = true`) even
    /// where the run keeps each case on a loopback of its own.
    pub network: bool,
    /// System V IPC and POSIX message queues are open to it (a course
    /// part's `ipc = true`) even where it has no IPC namespace of its own
    /// (Landlock's tier: then shared with every case there).
    pub ipc: bool,
    /// Arguments after the files (a package's output validator: its
    /// feedback folder and flags).
    pub tail: Vec<OsString>,
    /// Files the process may write in its working folder that the run
    /// hands back ([`RunResult::returned`]; a package's validator's
    /// `judgemessage.txt`). With `relative`: that folder is then its own,
    /// the case's scratch folder (without isolation a fresh temporary
    /// folder, the files then given by their whole paths).
    pub returns: Vec<String>,
    /// Its stdin and stdout on pipes to another case's process running
    /// at once (an interactive problem's validator and candidate), in
    /// place of `stdin` and the capture of stdout.
    pub wired: Option<Wired>,
}

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock limit.
    pub time: Duration,
    /// Time between SIGTERM and SIGKILL once over the limit.
    pub grace: Duration,
    /// Standard output bytes kept; more is an output limit (the answer
    /// would be cut).
    pub stdout: u64,
    /// Standard error bytes kept; more is read and dropped, never a verdict
    /// (the courses ignore stderr).
    pub stderr: u64,
    /// Memory of the case's whole process tree (enforced where a cgroup is).
    pub memory: u64,
    /// CPU time per process (RLIMIT_CPU), if any.
    pub cpu: Option<Duration>,
}

impl Limits {
    /// `time` of wall clock and `memory` for a case's whole process tree,
    /// with the usual caps: a second's grace, 64 MiB of stdout, 1 MiB of
    /// stderr, no CPU-time limit.
    pub fn new(time: Duration, memory: u64) -> Self {
        Self {
            time,
            grace: Duration::from_secs(1),
            stdout: 64 << 20,
            stderr: 1 << 20,
            memory,
            cpu: None,
        }
    }
}

/// What a stream produced: the bytes kept (at most the cap) and how many
/// were written in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// The first bytes, up to the cap.
    pub bytes: Vec<u8>,
    /// Every byte written, counted past the cap.
    pub total: u64,
    /// Whether the stream was still open when the run was wrapped up (a
    /// process outside the group held it).
    pub abandoned: bool,
}

impl Capture {
    /// What `text` would capture with no cap.
    pub fn of(text: &[u8]) -> Self {
        Self {
            bytes: text.to_vec(),
            total: text.len() as u64,
            abandoned: false,
        }
    }
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this status.
    Exited(i32),
    /// A signal killed it.
    Signaled(i32),
    /// It could not be started or waited for (our side).
    Failed(String),
}

/// A limit the run went over (the group was then killed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// Still running at the wall-clock limit.
    Time,
    /// Killed at the CPU-time limit (RLIMIT_CPU).
    Cpu,
    /// Wrote more than its cap to stdout.
    Stdout,
    /// The kernel killed it at the memory limit (its cgroup's OOM killer).
    Memory,
    /// Its writable places held more than the memory limit, where nothing
    /// else caps them (a scratch folder on disk): stopped by the harness.
    Scratch,
}

/// Everything measured about one run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// How it ended.
    pub ending: Ending,
    /// The first limit it went over, if any.
    pub limit: Option<LimitHit>,
    /// Standard output.
    pub stdout: Capture,
    /// Standard error.
    pub stderr: Capture,
    /// Spawn to exit.
    pub wall: Duration,
    /// Of [`RunResult::wall`], the time left out of its time limit's
    /// clock: the time its tree waited for a core with none of it running
    /// (a busy machine's doing, not its own), as far as it was measured.
    pub waited: Duration,
    /// User plus system time of the process and the children it waited for.
    pub cpu: Option<Duration>,
    /// Peak resident set size in KiB.
    pub max_rss_kb: Option<u64>,
    /// The run was stopped because the whole grading run was cancelled.
    pub cancelled: bool,
    /// The sandbox did not start the candidate, for a reason of its own
    /// (not a limit): a start that raced the machine (a mount appearing
    /// while bubblewrap binds the system) passes when tried again.
    pub unstarted: bool,
    /// The files of [`Spec::returns`] the process left in its working
    /// folder (regular files only, never a link), each with its first
    /// [`RETURNED_BYTES`] bytes.
    pub returned: Vec<(String, Vec<u8>)>,
    /// When its process was reaped (where it started): of two cases
    /// wired together, which ended first.
    pub reaped: Option<std::time::Instant>,
}

/// The most bytes of each file a run hands back (problemtools keeps 128
/// KiB of a validator's feedback).
pub const RETURNED_BYTES: u64 = 128 << 10;

impl RunResult {
    /// A run that ended as `ending` after `wall`, with nothing else known.
    pub fn ended(ending: Ending, wall: Duration) -> Self {
        Self {
            ending,
            limit: None,
            stdout: Capture::default(),
            stderr: Capture::default(),
            wall,
            waited: Duration::ZERO,
            cpu: None,
            max_rss_kb: None,
            cancelled: false,
            unstarted: false,
            returned: Vec::new(),
            reaped: None,
        }
    }
}

/// The conventional name of a signal number.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}
