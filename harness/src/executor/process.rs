//! The real executor: candidates as Unix processes.
//!
//! The candidate leads a new process group, so that on a limit, on a
//! cancelled run, or once it has exited (to reap anything it left behind)
//! the whole group gets SIGTERM and then SIGKILL, grandchildren included.
//! One thread does everything for a case: it polls the candidate's stdout,
//! its stderr and a pidfd (readable when the candidate exits) together, so
//! a full pipe never blocks the candidate, a grandchild holding a pipe
//! never blocks us, and a case costs no thread of its own. CPU time and
//! peak RSS come from `wait4` and cover the candidate and the descendants it
//! waited for. Descendants that leave the group (setsid) escape the group
//! kill; [`super::guard`] kills them when the run ends.

use std::ffi::OsString;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ChildStderr, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, PidfdFlags, Signal, kill_process_group, pidfd_open};
use wait4::Wait4;

use super::guard::{self, Guard};
use super::{Capture, Ending, Executor, LimitHit, Limits, RunResult, Spec};
use crate::cancel::{Cancel, Urgency};

/// How long to wait for the pipes to close once the group is dead.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// How often a running case looks at the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(25);

/// How often to look for the exit where there is no pidfd (old kernels).
const EXIT_POLL: Duration = Duration::from_millis(1);

/// The size of one read from a pipe.
const CHUNK: usize = 64 * 1024;

/// Runs candidates as processes. `supervised` adds the guard process and
/// the subreaper sweep (the `harness` binary uses it; tests of the library
/// may not, as the sweep kills every child of the process).
#[derive(Default)]
pub struct ProcessExecutor {
    guard: Option<Guard>,
}

impl ProcessExecutor {
    /// An executor with no guard: process groups only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An executor that makes this process a child subreaper and starts the
    /// guard process (`exe __guard`), so that nothing outlives the run,
    /// even a `kill -9` of the harness.
    pub fn supervised(exe: &std::path::Path) -> std::io::Result<Self> {
        guard::become_subreaper()?;
        Ok(Self {
            guard: Some(Guard::spawn(exe)?),
        })
    }
}

impl Executor for ProcessExecutor {
    fn execute(&self, spec: &Spec, limits: &Limits, cancel: &Cancel) -> RunResult {
        run(&spec.argv, spec, limits, cancel, self.guard.as_ref())
    }

    fn finish(&self) {
        if let Some(g) = &self.guard {
            guard::sweep(&[g.pid()]);
            g.close();
        }
    }
}

fn run(
    argv: &[OsString],
    spec: &Spec,
    limits: &Limits,
    cancel: &Cancel,
    guard: Option<&Guard>,
) -> RunResult {
    let start = Instant::now();
    let failed = |msg: String| RunResult::ended(Ending::Failed(msg), start.elapsed());
    let Some((program, args)) = argv.split_first() else {
        return failed("empty command".into());
    };
    let mut child = match Command::new(program)
        .args(args)
        .current_dir(&spec.workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start {}: {e}", program.to_string_lossy())),
    };
    let raw_group = i32::try_from(child.id()).expect("a child's pid is a positive i32");
    let group = Pid::from_raw(raw_group).expect("a child's pid is positive");
    if let Some(g) = guard {
        g.tell(true, raw_group);
    }
    let mut case = Case {
        stdout: Stream::new(child.stdout.take(), limits.stdout),
        stderr: Stream::new(child.stderr.take(), limits.stderr),
        pidfd: pidfd_open(group, PidfdFlags::empty()).ok(),
        buf: vec![0u8; CHUNK],
    };

    // Durations are validated (at most 24 h), but never let an odd one panic.
    let far = |d: Duration| {
        start
            .checked_add(d)
            .unwrap_or(start + Duration::from_secs(86_400 * 365))
    };
    let deadline = far(limits.time);
    let mut limit = None;
    let mut cancelled = false;
    let mut kill_at: Option<Instant> = None;
    let exited = loop {
        match child.try_wait4() {
            Ok(Some(r)) => break Ok(r),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        let now = Instant::now();
        let urgency = cancel.urgency();
        if urgency == Urgency::Now {
            cancelled |= limit.is_none();
            let _ = kill_process_group(group, Signal::KILL);
        } else if kill_at.is_some_and(|k| now >= k) {
            let _ = kill_process_group(group, Signal::KILL);
            kill_at = Some(now + limits.grace);
        } else if kill_at.is_none() && (urgency == Urgency::Graceful || now >= deadline) {
            if urgency == Urgency::Graceful {
                cancelled = true;
            } else {
                limit = Some(LimitHit::Time);
            }
            let _ = kill_process_group(group, Signal::TERM);
            kill_at = Some(now + limits.grace);
        }
        let mut wake = kill_at.unwrap_or(deadline).min(now + CANCEL_POLL);
        if case.pidfd.is_none() {
            wake = wake.min(now + EXIT_POLL);
        }
        case.poll(wake, true);
        if case.stdout.over() && limit.is_none() && !cancelled {
            limit = Some(LimitHit::Stdout);
            let _ = kill_process_group(group, Signal::KILL);
            kill_at = Some(Instant::now() + limits.grace);
        }
    };
    let wall = start.elapsed();
    // The candidate is gone; anything left in its group is a leftover.
    let _ = kill_process_group(group, Signal::KILL);
    if let Some(g) = guard {
        g.tell(false, raw_group);
    }
    let drained_by = Instant::now() + DRAIN_WAIT;
    while case.stdout.open() || case.stderr.open() {
        if Instant::now() >= drained_by {
            break;
        }
        case.poll(drained_by, false);
    }
    let mut result = RunResult::ended(Ending::Failed(String::new()), wall);
    match exited {
        Ok(r) => {
            result.ending = match (r.status.code(), r.status.signal()) {
                (Some(code), _) => Ending::Exited(code),
                (None, Some(sig)) => Ending::Signaled(sig),
                (None, None) => Ending::Failed(format!("unknown wait status {:?}", r.status)),
            };
            result.cpu = Some(r.rusage.utime + r.rusage.stime);
            result.max_rss_kb = Some(r.rusage.maxrss / 1024);
        }
        Err(e) => result.ending = Ending::Failed(format!("cannot wait for the candidate: {e}")),
    }
    result.limit = limit;
    result.cancelled = cancelled;
    result.stdout = case.stdout.finish();
    result.stderr = case.stderr.finish();
    drop(child);
    result
}

/// What one case's thread watches.
struct Case {
    stdout: Stream<ChildStdout>,
    stderr: Stream<ChildStderr>,
    /// Readable once the candidate has exited (`None` on old kernels).
    pidfd: Option<OwnedFd>,
    buf: Vec<u8>,
}

impl Case {
    /// Waits until something happens or `until`, reading what the pipes
    /// have. With `watch_exit`, the pidfd wakes it too.
    fn poll(&mut self, until: Instant, watch_exit: bool) {
        let timeout = until.saturating_duration_since(Instant::now());
        let timeout = Timespec {
            tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        let (out_ready, err_ready) = {
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(3);
            let flags = PollFlags::IN;
            let out_at = self.stdout.source.as_ref().map(|s| {
                fds.push(PollFd::new(s, flags));
                fds.len() - 1
            });
            let err_at = self.stderr.source.as_ref().map(|s| {
                fds.push(PollFd::new(s, flags));
                fds.len() - 1
            });
            if watch_exit && let Some(pidfd) = &self.pidfd {
                fds.push(PollFd::new(pidfd, flags));
            }
            if fds.is_empty() {
                std::thread::sleep(
                    Duration::from_millis(1).min(until.saturating_duration_since(Instant::now())),
                );
                return;
            }
            if poll(&mut fds, Some(&timeout)).is_err() {
                return;
            }
            let ready = |at: Option<usize>| at.is_some_and(|i| !fds[i].revents().is_empty());
            (ready(out_at), ready(err_at))
        };
        if out_ready {
            self.stdout.read(&mut self.buf);
        }
        if err_ready {
            self.stderr.read(&mut self.buf);
        }
    }
}

/// One output pipe: read into a capture of at most `cap` bytes, the rest
/// counted and dropped.
struct Stream<R> {
    source: Option<R>,
    cap: u64,
    capture: Capture,
}

impl<R: Read + AsFd> Stream<R> {
    fn new(source: Option<R>, cap: u64) -> Self {
        Self {
            source,
            cap,
            capture: Capture::default(),
        }
    }

    fn open(&self) -> bool {
        self.source.is_some()
    }

    fn over(&self) -> bool {
        self.capture.total > self.cap
    }

    /// One read (the pipe said it is ready); end of file closes it.
    fn read(&mut self, buf: &mut [u8]) {
        let Some(source) = self.source.as_mut() else {
            return;
        };
        match source.read(buf) {
            Ok(0) => self.source = None,
            Ok(n) => {
                let c = &mut self.capture;
                let room = usize::try_from(self.cap.saturating_sub(c.bytes.len() as u64))
                    .unwrap_or(usize::MAX);
                c.bytes.extend_from_slice(&buf[..n.min(room)]);
                c.total += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => self.source = None,
        }
    }

    /// The capture; a pipe still open (held by a process that left the
    /// group) is abandoned: closed on our side, noted.
    fn finish(self) -> Capture {
        let mut c = self.capture;
        c.abandoned = self.source.is_some();
        c
    }
}
