//! The real executor: candidates as Unix processes.
//!
//! The candidate leads a new process group, so that on a limit, on a
//! cancelled run, or once it has exited (to reap anything it left behind)
//! the whole group gets SIGTERM and then SIGKILL, grandchildren included.
//! The exit is waited for on a thread of its own and both pipes are drained
//! on threads of their own, so a full pipe or a grandchild holding one open
//! never blocks us. CPU time and peak RSS cover the candidate and the
//! descendants it waited for. Descendants that leave the group (setsid)
//! escape the group kill; [`super::guard`] kills them when the run ends.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait4::Wait4;

use super::guard::{self, Guard};
use super::{Capture, Ending, Executor, LimitHit, Limits, RunResult, Spec};
use crate::cancel::{Cancel, Urgency};

/// How long to wait for the pipes to close once the group is dead.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// How often a running case looks at the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(25);

enum Event {
    Exited(std::io::Result<wait4::ResUse>),
    StdoutOverLimit,
}

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
    let (tx, rx) = mpsc::channel();
    let out = drain(child.stdout.take(), limits.stdout, Some(tx.clone()));
    let err = drain(child.stderr.take(), limits.stderr, None);
    let waiter = tx;
    thread::spawn(move || {
        let _ = waiter.send(Event::Exited(child.wait4()));
    });

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
        let now = Instant::now();
        let wake = kill_at.unwrap_or(deadline).min(now + CANCEL_POLL);
        match rx.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(Event::Exited(r)) => break r,
            Ok(Event::StdoutOverLimit) => {
                if limit.is_none() && !cancelled {
                    limit = Some(LimitHit::Stdout);
                    let _ = kill_process_group(group, Signal::KILL);
                    kill_at = Some(Instant::now() + limits.grace);
                }
            }
            Err(RecvTimeoutError::Timeout) => {
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
            }
            Err(RecvTimeoutError::Disconnected) => {
                break Err(std::io::Error::other("the wait thread vanished"));
            }
        }
    };
    let wall = start.elapsed();
    // The candidate is gone; anything left in its group is a leftover.
    let _ = kill_process_group(group, Signal::KILL);
    if let Some(g) = guard {
        g.tell(false, raw_group);
    }
    let drained_by = Instant::now() + DRAIN_WAIT;
    let stdout = out.finish(drained_by);
    let stderr = err.finish(drained_by);
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
    result.stdout = stdout;
    result.stderr = stderr;
    result
}

/// A stream being drained on its own thread into a shared capture.
struct Drain {
    capture: Arc<Mutex<Capture>>,
    done: mpsc::Receiver<()>,
}

/// Drains `source` into a capture of at most `cap` bytes, counting (and
/// dropping) the rest; `over` hears once when the cap is passed.
fn drain(
    source: Option<impl Read + Send + 'static>,
    cap: u64,
    over: Option<Sender<Event>>,
) -> Drain {
    let capture = Arc::new(Mutex::new(Capture::default()));
    let (done_tx, done) = mpsc::channel();
    let shared = Arc::clone(&capture);
    let over_tx = over;
    thread::spawn(move || {
        let Some(mut source) = source else {
            let _ = done_tx.send(());
            return;
        };
        let mut chunk = vec![0u8; 64 * 1024];
        let mut warned = false;
        loop {
            let n = match source.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let over = {
                let mut c = shared.lock().unwrap_or_else(|p| p.into_inner());
                let room =
                    usize::try_from(cap.saturating_sub(c.bytes.len() as u64)).unwrap_or(usize::MAX);
                c.bytes.extend_from_slice(&chunk[..n.min(room)]);
                c.total += n as u64;
                c.total > cap
            };
            if over && !warned {
                warned = true;
                if let Some(events) = &over_tx {
                    let _ = events.send(Event::StdoutOverLimit);
                }
            }
        }
        let _ = done_tx.send(());
    });
    Drain { capture, done }
}

impl Drain {
    /// What was read, waiting until `by` for the stream to close.
    fn finish(self, by: Instant) -> Capture {
        let closed = self
            .done
            .recv_timeout(by.saturating_duration_since(Instant::now()))
            .is_ok();
        let mut c = self
            .capture
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        c.abandoned = !closed;
        c
    }
}
