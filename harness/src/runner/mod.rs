//! Running one candidate process: its own process group, stdin closed,
//! stdout and stderr drained concurrently into capped buffers, a wall-clock
//! limit enforced on the whole group, and resource usage from `wait4`.

mod unix;

use std::time::Duration;

pub use unix::run;

/// Limits for one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock limit.
    pub time: Duration,
    /// Time between SIGTERM and SIGKILL once over the limit.
    pub grace: Duration,
    /// Standard output bytes kept; more is an output limit.
    pub stdout: u64,
    /// Standard error bytes kept; more is an output limit.
    pub stderr: u64,
}

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
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
    /// Wrote more than its cap to this stream.
    Output(Stream),
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
    /// User plus system time of the process and the children it waited for.
    pub cpu: Option<Duration>,
    /// Peak resident set size in KiB.
    pub max_rss_kb: Option<u64>,
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
