//! One child process, start to end: spawned as the leader of a new
//! process group, its stdout, stderr and a pidfd (readable when it exits)
//! polled together by the one thread that runs the case, so a full pipe
//! never blocks the candidate and a grandchild holding a pipe never blocks
//! us; the wall clock, the CPU clock (the case's cgroup, read as it runs),
//! the stdout cap and the cancel token watched; then the group, and the
//! cgroup's escapees, killed and the pipes drained.

use std::ffi::{OsStr, OsString};
use std::io::{PipeReader, PipeWriter};
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, PidfdFlags, Signal, kill_process_group, pidfd_open};

use super::guard::Guard;
use super::stream::Stream;
use crate::cancel::{Cancel, Urgency};
use crate::executor::cgroup::CaseCgroup;
use crate::executor::{Ending, LimitHit, Limits, RunResult, Spec};

/// How long to wait for the pipes to close once the group is dead.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// How often a running case looks at the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(25);

/// How often to look for the exit where there is no pidfd (old kernels).
const EXIT_POLL: Duration = Duration::from_millis(1);

/// The size of one read from a pipe.
const CHUNK: usize = 64 * 1024;

/// What a case's process is given: its stdin, and the write ends of the
/// pipes the harness reads its stdout and stderr from.
pub(in crate::executor) struct Ends {
    /// Its stdin (a file, or `/dev/null`).
    pub stdin: OwnedFd,
    /// Its stdout.
    pub stdout: PipeWriter,
    /// Its stderr.
    pub stderr: PipeWriter,
}

/// Starts a case's process with its [`Ends`], as the leader of a process
/// group of its own and a child of this process; returns its pid.
pub(in crate::executor) type Start<'a> = &'a mut dyn FnMut(Ends) -> std::io::Result<u32>;

/// What measures a case beside its clocks: its cgroup, and what it holds
/// where nothing else caps it.
#[derive(Default)]
pub(in crate::executor) struct Measures<'a> {
    /// The case's cgroup (its CPU time, its escapees).
    pub cgroup: Option<&'a CaseCgroup>,
    /// Its writable places, sampled against their cap.
    pub held: Option<super::held::Held>,
    /// Kills what it left running where no cgroup holds it (its sandbox's
    /// processes: see `Sandbox::sweep`), once the candidate is gone.
    pub sweep: Option<&'a dyn Fn()>,
}

/// Runs one case: `start` starts its process (`program` names it in a
/// failure), and the case is watched to its end.
pub(in crate::executor) fn run(
    program: &OsStr,
    start: Start<'_>,
    spec: &Spec,
    limits: &Limits,
    cancel: &Cancel,
    guard: Option<&Guard>,
    measures: Measures<'_>,
) -> RunResult {
    let Measures {
        cgroup,
        mut held,
        sweep,
    } = measures;
    let begin = Instant::now();
    let failed = |msg: String| RunResult::ended(Ending::Failed(msg), begin.elapsed());
    // Wired to another case (its stdin and stdout pipes' ends, taken
    // once), or a file on stdin and our pipe on stdout.
    let wired = spec
        .wired
        .as_ref()
        .map(|w| (w.stdin.take(), w.stdout.take()));
    let (stdin, stdout, out_r, writer) = match wired {
        Some((Some((stdin, _)), Some((stdout, writer)))) => {
            (stdin, PipeWriter::from(stdout), None, writer)
        }
        Some(_) => return failed("its pipes to the other process were used already".into()),
        None => {
            // Opened anew: a description shared with other cases would
            // carry its status flags (`O_NONBLOCK`, set by one) to them.
            let stdin = match &spec.stdin {
                None => std::fs::File::open("/dev/null"),
                Some(path) => std::fs::File::open(path),
            };
            let stdin = match stdin {
                Ok(f) => OwnedFd::from(f),
                Err(e) => {
                    let path = spec.stdin.as_deref().unwrap_or(Path::new("/dev/null"));
                    return failed(format!("cannot open {} for stdin: {e}", path.display()));
                }
            };
            match std::io::pipe() {
                Ok((out_r, out_w)) => (stdin, out_w, Some(out_r), None),
                Err(e) => return failed(format!("cannot make the case's pipes: {e}")),
            }
        }
    };
    let (err_r, err_w) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return failed(format!("cannot make the case's pipes: {e}")),
    };
    let ends = Ends {
        stdin,
        stdout,
        stderr: err_w,
    };
    // The write ends are the case's alone once it has them: `start` drops
    // ours, so its pipes close when it (and what it started) is done.
    let spawned = match guard {
        Some(g) => g.spawn_case(|| start(ends)),
        None => start(ends),
    };
    let pid = match spawned {
        Ok(pid) => pid,
        Err(e) => {
            return failed(format!("cannot start {}: {e}", program.to_string_lossy()));
        }
    };
    let start = begin;
    let raw_group = i32::try_from(pid).expect("a child's pid is a positive i32");
    let group = Pid::from_raw(raw_group).expect("a child's pid is positive");
    let mut case = Case {
        stdout: Stream::new(out_r, limits.stdout),
        stderr: Stream::new(Some(err_r), limits.stderr),
        pidfd: pidfd_open(group, PidfdFlags::empty()).ok(),
        buf: vec![0u8; CHUNK],
    };

    // Durations are validated (at most 24 h), but never let an odd one panic.
    let far = |d: Duration| {
        start
            .checked_add(d)
            .unwrap_or(start + Duration::from_secs(86_400 * 365))
    };
    // The time limit is on the wall clock less the time the case waited
    // for a core that none of its own processes kept from it: a busy
    // machine moves it later, however busy; a sleeping case, or one whose
    // own spinners keep each other waiting, not (`waits`). Where no cgroup
    // counts the tree's CPU time, at most `MOST_NETS_UNCOUNTED` nets in all.
    let deadline = far(limits.time);
    let ceiling = match cgroup {
        Some(_) => None,
        None => Some(far(limits
            .time
            .saturating_mul(super::waits::MOST_NETS_UNCOUNTED))),
    };
    let mut waits = super::waits::Waits::new(pid, start);
    let mut limit = None;
    let mut cancelled = false;
    let mut kill_at: Option<Instant> = None;
    let exited = loop {
        match wait4::try_wait4_pid(pid) {
            Ok(Some(r)) => break Ok(r),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        let now = Instant::now();
        let given_back = waits.sample(now, cgroup);
        let due = ceiling.map_or(deadline + given_back, |c| c.min(deadline + given_back));
        let urgency = cancel.urgency();
        if urgency == Urgency::Now {
            cancelled |= limit.is_none();
            let _ = kill_process_group(group, Signal::KILL);
        } else if kill_at.is_some_and(|k| now >= k) {
            let _ = kill_process_group(group, Signal::KILL);
            kill_at = Some(now + limits.grace);
        } else if kill_at.is_none() && (urgency == Urgency::Graceful || now >= due) {
            if urgency == Urgency::Graceful {
                cancelled = true;
            } else {
                limit = Some(LimitHit::Time);
            }
            let _ = kill_process_group(group, Signal::TERM);
            kill_at = Some(now + limits.grace);
        }
        // The verdict clock: the CPU time of the case's whole tree (read
        // only once it could be over: a tree uses at most its wall time on
        // every core).
        if kill_at.is_none()
            && let (Some(cpu), Some(cg)) = (limits.cpu, cgroup)
            && now.duration_since(start).saturating_mul(cores()) >= cpu
            && cg.cpu().is_some_and(|used| used >= cpu)
        {
            limit = Some(LimitHit::Cpu);
            let _ = kill_process_group(group, Signal::KILL);
            cg.kill();
            kill_at = Some(now + limits.grace);
        }
        if kill_at.is_none() && held.as_mut().is_some_and(|h| h.over(now)) {
            limit = Some(LimitHit::Scratch);
            let _ = kill_process_group(group, Signal::KILL);
            kill_at = Some(now + limits.grace);
        }
        let mut wake = kill_at.unwrap_or(due).min(now + CANCEL_POLL);
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
    let reaped = Instant::now();
    // Reaped: the other side of its stdout may see the end of it now.
    drop(writer);
    // The candidate is gone; anything left in its cgroup (escapees) or in
    // its group is a leftover. (A cgroup a look found empty holds none of
    // the group either: every process of it joined with the leader.)
    let quiet = cgroup.is_some_and(CaseCgroup::kill);
    if !quiet {
        let _ = kill_process_group(group, Signal::KILL);
        if let Some(sweep) = sweep {
            sweep();
        }
    }
    if let Some(g) = guard {
        g.tell(false, raw_group);
        // A job slot's cgroup a look found empty holds no zombie either
        // (its count has them): the case left no orphan to reap. (What an
        // earlier case's did, the slot's next settling reaps.)
        if !(quiet && cgroup.is_some_and(CaseCgroup::is_shared)) {
            g.reap_orphans();
        }
    }
    let drained_by = Instant::now() + DRAIN_WAIT;
    while case.stdout.open() || case.stderr.open() {
        if Instant::now() >= drained_by {
            break;
        }
        case.poll(drained_by, false);
    }
    let mut result = RunResult::ended(Ending::Failed(String::new()), wall);
    // What was left out: no more than the ceiling let count.
    result.waited = match ceiling {
        Some(c) => waits.total().min(c.saturating_duration_since(deadline)),
        None => waits.total(),
    };
    result.reaped = Some(reaped);
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
    result
}

/// The machine's cores, every one configured: no tree can run on more,
/// whatever its affinity (which a candidate may widen).
fn cores() -> u32 {
    static CORES: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        // SAFETY: sysconf reads a system value; no memory is handed over.
        #[allow(unsafe_code)]
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
        u32::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
    })
}

/// What one case's thread watches.
struct Case {
    stdout: Stream<PipeReader>,
    stderr: Stream<PipeReader>,
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

/// `file` as a path relative to `dir` when it is inside it, else whole.
pub(in crate::executor) fn relative_to(file: &Path, dir: &Path) -> OsString {
    file.strip_prefix(dir).map_or_else(
        |_| file.as_os_str().to_owned(),
        |p| p.as_os_str().to_owned(),
    )
}
