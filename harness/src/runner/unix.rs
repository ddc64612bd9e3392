//! The Unix side of running a candidate: process groups, signals, `wait4`.
//!
//! The candidate leads a new process group, so that on a limit (or once it
//! has exited, to reap anything it left behind) the whole group gets
//! SIGTERM and then SIGKILL, grandchildren included. The exit is waited for
//! on a thread of its own and both pipes are drained on threads of their
//! own, so a full pipe or a grandchild holding one open never blocks us.
//! Limits: CPU time and peak RSS cover the candidate and the descendants it
//! waited for; a descendant that leaves the group (setsid) escapes the kill.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use wait4::Wait4;

use super::{Capture, Ending, LimitHit, Limits, RunResult, Stream};

/// How long to wait for the pipes to close once the group is dead.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

enum Event {
    Exited(std::io::Result<wait4::ResUse>),
    OverLimit(Stream),
}

/// Runs `argv` in `workdir` under `limits` and measures it. Never fails:
/// a spawn error is [`Ending::Failed`].
pub fn run(argv: &[OsString], workdir: &Path, limits: &Limits) -> RunResult {
    let start = Instant::now();
    let failed = |msg: String| RunResult {
        ending: Ending::Failed(msg),
        limit: None,
        stdout: Capture::default(),
        stderr: Capture::default(),
        wall: start.elapsed(),
        cpu: None,
        max_rss_kb: None,
    };
    let Some((program, args)) = argv.split_first() else {
        return failed("empty command".into());
    };
    let mut child = match Command::new(program)
        .args(args)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start {}: {e}", program.to_string_lossy())),
    };
    let group = i32::try_from(child.id())
        .ok()
        .and_then(Pid::from_raw)
        .expect("a child's pid is a positive i32");
    let (tx, rx) = mpsc::channel();
    let out = drain(
        child.stdout.take(),
        limits.stdout,
        Stream::Stdout,
        tx.clone(),
    );
    let err = drain(
        child.stderr.take(),
        limits.stderr,
        Stream::Stderr,
        tx.clone(),
    );
    let waiter = tx;
    thread::spawn(move || {
        let _ = waiter.send(Event::Exited(child.wait4()));
    });

    let deadline = start + limits.time;
    let mut limit = None;
    let mut kill_at: Option<Instant> = None;
    let exited = loop {
        let now = Instant::now();
        let wake = kill_at.unwrap_or(deadline);
        match rx.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(Event::Exited(r)) => break r,
            Ok(Event::OverLimit(stream)) => {
                if limit.is_none() {
                    limit = Some(LimitHit::Output(stream));
                    let _ = kill_process_group(group, Signal::KILL);
                    kill_at = Some(Instant::now() + limits.grace);
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if kill_at.is_none() {
                    limit.get_or_insert(LimitHit::Time);
                    let _ = kill_process_group(group, Signal::TERM);
                } else {
                    let _ = kill_process_group(group, Signal::KILL);
                }
                kill_at = Some(Instant::now() + limits.grace);
            }
            Err(RecvTimeoutError::Disconnected) => {
                break Err(std::io::Error::other("the wait thread vanished"));
            }
        }
    };
    let wall = start.elapsed();
    // The candidate is gone; anything left in its group is a leftover.
    let _ = kill_process_group(group, Signal::KILL);
    let drained_by = Instant::now() + DRAIN_WAIT;
    let stdout = out.finish(drained_by);
    let stderr = err.finish(drained_by);
    let (ending, cpu, max_rss_kb) = match exited {
        Ok(r) => {
            let ending = match (r.status.code(), r.status.signal()) {
                (Some(code), _) => Ending::Exited(code),
                (None, Some(sig)) => Ending::Signaled(sig),
                (None, None) => Ending::Failed(format!("unknown wait status {:?}", r.status)),
            };
            let cpu = r.rusage.utime + r.rusage.stime;
            (ending, Some(cpu), Some(r.rusage.maxrss / 1024))
        }
        Err(e) => (
            Ending::Failed(format!("cannot wait for the candidate: {e}")),
            None,
            None,
        ),
    };
    RunResult {
        ending,
        limit,
        stdout,
        stderr,
        wall,
        cpu,
        max_rss_kb,
    }
}

/// A stream being drained on its own thread into a shared capture.
struct Drain {
    capture: Arc<Mutex<Capture>>,
    done: mpsc::Receiver<()>,
}

fn drain(
    source: Option<impl Read + Send + 'static>,
    cap: u64,
    stream: Stream,
    events: Sender<Event>,
) -> Drain {
    let capture = Arc::new(Mutex::new(Capture::default()));
    let (done_tx, done) = mpsc::channel();
    let shared = Arc::clone(&capture);
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
                let _ = events.send(Event::OverLimit(stream));
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
