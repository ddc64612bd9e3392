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
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{ChildStderr, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, PidfdFlags, Signal, kill_process_group, pidfd_open};
use wait4::Wait4;

use super::cgroup::{CaseCgroup, Cgroups};
use super::guard::{self, Guard};
use super::isolate::{self, Isolation, Level, RunDir, Sandbox};
use super::janitor::{Janitor, Leftover};
use super::stream::Stream;
use super::trampoline::Launch;
use super::view::{self, View};
use super::{Ending, Executor, LimitHit, Limits, RunResult, Spec};
use crate::cancel::{Cancel, Urgency};

/// How long to wait for the pipes to close once the group is dead.
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// How often a running case looks at the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(25);

/// How often to look for the exit where there is no pidfd (old kernels).
const EXIT_POLL: Duration = Duration::from_millis(1);

/// The size of one read from a pipe.
const CHUNK: usize = 64 * 1024;

/// Runs candidates as processes. `supervised` adds the guard process, the
/// subreaper sweep and, unless turned off, the isolation of `isolate` (the
/// `harness` binary uses it; tests of the library may not, as the sweep
/// kills every child of the process).
#[derive(Default)]
pub struct ProcessExecutor {
    guard: Option<Guard>,
    isolated: Option<Isolated>,
}

/// Everything isolation needs for the whole run.
struct Isolated {
    trampoline: super::trampoline::Trampoline,
    isolation: Isolation,
    level: Level,
    /// The folders each case's view replaces (when it gets one).
    roots: Vec<PathBuf>,
    run_dir: RunDir,
    cgroups: Option<Cgroups>,
    /// RLIMIT_NPROC, where it means something.
    nproc: Option<u64>,
    max_file: u64,
    cases: AtomicUsize,
    /// Removes finished cases' cgroups and scratch folders off the cases'
    /// critical path.
    janitor: Janitor,
    /// The job slots' uid range, held while the run lasts.
    _uids: Option<super::uids::Claim>,
}

impl ProcessExecutor {
    /// An executor with no guard and no isolation: process groups only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An executor that makes this process a child subreaper, starts the
    /// guard process (`exe __guard`), so that nothing outlives the run, even
    /// a `kill -9` of the harness, and isolates candidates as `isolation`
    /// asks and the machine allows (`max_file`: the largest puzzle file).
    pub fn supervised(exe: &Path, isolation: &Isolation, max_file: u64) -> anyhow::Result<Self> {
        guard::become_subreaper()?;
        let isolated = if isolation.enabled {
            Some(Isolated::new(exe, isolation, max_file)?)
        } else {
            None
        };
        let cleanup = isolated.as_ref().map(Isolated::cleanup).unwrap_or_default();
        Ok(Self {
            guard: Some(Guard::spawn(exe, &cleanup)?),
            isolated,
        })
    }
}

impl Isolated {
    fn new(exe: &Path, isolation: &Isolation, max_file: u64) -> anyhow::Result<Self> {
        if isolation.sandbox == Sandbox::Bwrap
            && let Err(why) = isolate::bwrap_here()
        {
            anyhow::bail!("--sandbox bwrap: {why}");
        }
        let (cgroups, why) = if isolation.cgroups {
            match Cgroups::create(isolation.memory_limit, isolation.pids_limit) {
                Ok(c) => (Some(c), None),
                Err(why) => (None, Some(why)),
            }
        } else {
            (None, None)
        };
        let mut level = isolate::settle(
            isolation,
            &cgroups,
            why.map(|e| e.to_string()),
            &isolate::bwrap_here,
        );
        // Uids of their own, held for the whole run: no other run on this
        // machine runs candidates as them meanwhile.
        let uids = match level.uid_base {
            Some(_) => {
                let claim = super::uids::claim(isolation.uid_base, isolation.slots)?;
                level.uid_base = Some(claim.base);
                Some(claim)
            }
            None => None,
        };
        let nproc = match (level.uid_base, &cgroups) {
            // The pids controller does it exactly (and RLIMIT_NPROC would
            // count the zombies of a killed case against the next one).
            (_, Some(_)) => None,
            // Each slot's uid is its own: the count is the case's.
            (Some(_), None) => Some(isolation.pids_limit),
            // Counted per user: this user's processes now, plus the limit.
            (None, None) => Some(own_processes() + isolation.pids_limit),
        };
        let run_dir = RunDir::new(&isolate::scratch_base(cgroups.is_some()))
            .or_else(|_| RunDir::new(&std::env::temp_dir()))?;
        // What a case's view replaces: the shared places, where the runs'
        // (and a class's) scratch folders are, and what the run hides.
        let roots = view::roots(
            view::SHARED
                .iter()
                .map(PathBuf::from)
                .chain(run_dir.path().parent().map(Path::to_owned))
                .chain(isolation.hide.iter().cloned()),
        );
        Ok(Self {
            trampoline: super::trampoline::Trampoline::beside(exe),
            isolation: isolation.clone(),
            level,
            roots,
            run_dir,
            cgroups,
            nproc,
            max_file,
            cases: AtomicUsize::new(0),
            janitor: Janitor::new(),
            _uids: uids,
        })
    }

    /// What the guard clears away if the harness dies.
    fn cleanup(&self) -> guard::Cleanup {
        guard::Cleanup {
            cgroups: self
                .cgroups
                .as_ref()
                .map(Cgroups::run_dirs)
                .unwrap_or_default(),
            run_dir: Some(self.run_dir.path().to_owned()),
        }
    }

    fn execute(
        &self,
        spec: &Spec,
        limits: &Limits,
        cancel: &Cancel,
        guard: Option<&Guard>,
    ) -> RunResult {
        let start = Instant::now();
        let failed = |msg: String| RunResult::ended(Ending::Failed(msg), start.elapsed());
        let id = self.cases.fetch_add(1, Ordering::SeqCst);
        let owner = self.level.uid_base.map(|base| {
            let uid = base + u32::try_from(spec.slot).unwrap_or(0);
            (uid, uid)
        });
        let scratch = match self.run_dir.scratch(id, owner) {
            Ok(s) => s,
            Err(e) => return failed(format!("cannot make a scratch folder: {e}")),
        };
        let copies = match scratch.copy_in(
            &spec.files,
            spec.contents.as_deref().map(Vec::as_slice),
            self.max_file,
        ) {
            Ok(c) => c,
            Err(e) => return failed(e.to_string()),
        };
        let cgroup = match &self.cgroups {
            Some(c) => match c.case(&id.to_string()) {
                Ok(cg) => Some(cg),
                Err(e) => return failed(e.to_string()),
            },
            None => None,
        };
        let mut rlimits = vec![
            ("core".to_string(), 0),
            ("fsize".to_string(), self.isolation.file_size_limit),
        ];
        if let Some(n) = self.nproc {
            rlimits.push(("nproc".into(), n));
        }
        if let Some(cpu) = limits.cpu {
            // Whole seconds, rounded up, as `ulimit -t`.
            rlimits.push((
                "cpu".into(),
                cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0),
            ));
        }
        let bwrap = self.level.bwrap;
        let workdir = if spec.relative {
            scratch.path()
        } else {
            spec.workdir.as_path()
        };
        let view = self.level.private.then(|| {
            let needs = view::needs(
                scratch.path(),
                workdir,
                spec.write_workdir,
                &spec.argv,
                &self.isolation.env,
            );
            View::plan(&self.roots, &needs, self.isolation.memory_limit)
        });
        let launch = Launch {
            join: cgroup
                .as_ref()
                .map(CaseCgroup::procs_files)
                .unwrap_or_default(),
            rlimits,
            user: owner,
            bwrap,
            view,
            error_file: self.run_dir.error_file(id),
        };
        let mut argv = spec.argv.clone();
        if spec.relative {
            argv.extend(copies.iter().map(|c| relative_to(c, scratch.path())));
        } else {
            argv.extend(copies.into_iter().map(PathBuf::into_os_string));
        }
        let mut cmd = launch.command(&self.trampoline, &argv);
        cmd.env_clear()
            .envs(isolate::environment(scratch.path(), &self.isolation.env))
            .current_dir(workdir);
        let mut result = run(cmd, spec, limits, cancel, guard, cgroup.as_ref());
        if let Ok(why) = std::fs::read_to_string(&launch.error_file) {
            let _ = std::fs::remove_file(&launch.error_file);
            result.ending = Ending::Failed(why);
        }
        if bwrap && let Some(why) = super::trampoline::sandbox_failure(&launch.error_file, &result)
        {
            result.ending = Ending::Failed(why);
        }
        const SIGXCPU: i32 = 24;
        if let Some(cpu) = limits.cpu
            && result.limit.is_none()
            && !result.cancelled
            && (result.ending == Ending::Signaled(SIGXCPU)
                || (result.ending == Ending::Signaled(9) && result.cpu.is_some_and(|c| c >= cpu)))
        {
            result.limit = Some(LimitHit::Cpu);
        }
        if bwrap && let Ending::Exited(code @ 129..=192) = result.ending {
            // bubblewrap reports a child killed by signal N as 128 + N.
            result.ending = Ending::Signaled(code - 128);
        }
        self.janitor
            .clear(Leftover::Scratch(self.run_dir.retire(scratch)));
        if let Some(cg) = cgroup {
            let usage = cg.usage();
            self.janitor.clear(Leftover::Cgroup(cg));
            result.cpu = usage.cpu.or(result.cpu);
            result.max_rss_kb = usage.peak_bytes.map(|b| b / 1024).or(result.max_rss_kb);
            if usage.oom_killed
                && result.limit.is_none()
                && !result.cancelled
                && result.ending == Ending::Signaled(9)
            {
                result.limit = Some(LimitHit::Memory);
            }
        }
        result
    }
}

/// `file` as a path relative to `dir` when it is inside it, else whole.
fn relative_to(file: &Path, dir: &Path) -> OsString {
    file.strip_prefix(dir).map_or_else(
        |_| file.as_os_str().to_owned(),
        |p| p.as_os_str().to_owned(),
    )
}

/// How many processes this process's user has now (for RLIMIT_NPROC,
/// which counts per user).
fn own_processes() -> u64 {
    let me = rustix::process::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read_to_string(e.path().join("status")).is_ok_and(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Uid:"))
                    .and_then(|l| l.split_whitespace().next())
                    == Some(me.as_str())
            })
        })
        .count() as u64
}

impl Executor for ProcessExecutor {
    fn execute(&self, spec: &Spec, limits: &Limits, cancel: &Cancel) -> RunResult {
        if let Some(iso) = &self.isolated {
            return iso.execute(spec, limits, cancel, self.guard.as_ref());
        }
        let Some((program, args)) = spec.argv.split_first() else {
            return RunResult::ended(Ending::Failed("empty command".into()), Duration::ZERO);
        };
        let mut cmd = Command::new(program);
        cmd.args(args);
        match spec.files.first().and_then(|f| f.parent()) {
            Some(dir) if spec.relative => {
                cmd.args(spec.files.iter().map(|f| relative_to(f, dir)))
                    .current_dir(dir);
            }
            _ => {
                cmd.args(&spec.files).current_dir(&spec.workdir);
            }
        }
        run(cmd, spec, limits, cancel, self.guard.as_ref(), None)
    }

    fn finish(&self) {
        if let Some(iso) = &self.isolated {
            iso.janitor.finish();
        }
        if let Some(g) = &self.guard {
            guard::sweep(&[g.pid()]);
            g.close();
        }
    }

    fn owner(&self, slot: usize) -> Option<(u32, u32)> {
        let base = self.isolated.as_ref()?.level.uid_base?;
        let uid = base + u32::try_from(slot).ok()?;
        Some((uid, uid))
    }

    fn label(&self) -> String {
        self.isolated
            .as_ref()
            .map_or_else(|| "none".into(), |i| i.level.label())
    }

    fn describe(&self) -> String {
        match &self.isolated {
            Some(i) => i.level.to_string(),
            None => "isolation: none (--isolation none: trusted candidates only)".into(),
        }
    }
}

fn run(
    mut cmd: Command,
    spec: &Spec,
    limits: &Limits,
    cancel: &Cancel,
    guard: Option<&Guard>,
    cgroup: Option<&CaseCgroup>,
) -> RunResult {
    let start = Instant::now();
    let failed = |msg: String| RunResult::ended(Ending::Failed(msg), start.elapsed());
    let stdin = match &spec.stdin {
        None => Stdio::null(),
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => Stdio::from(f),
            Err(e) => return failed(format!("cannot open {} for stdin: {e}", path.display())),
        },
    };
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let spawned = match guard {
        Some(g) => g.spawn_case(&mut cmd),
        None => cmd.spawn(),
    };
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return failed(format!(
                "cannot start {}: {e}",
                cmd.get_program().to_string_lossy()
            ));
        }
    };
    let raw_group = i32::try_from(child.id()).expect("a child's pid is a positive i32");
    let group = Pid::from_raw(raw_group).expect("a child's pid is positive");
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
        // The verdict clock: the CPU time of the case's whole tree.
        if kill_at.is_none()
            && let (Some(cpu), Some(cg)) = (limits.cpu, cgroup)
            && cg.cpu().is_some_and(|used| used >= cpu)
        {
            limit = Some(LimitHit::Cpu);
            let _ = kill_process_group(group, Signal::KILL);
            cg.kill();
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
    // The candidate is gone; anything left in its group, or in its cgroup
    // (escapees), is a leftover.
    let _ = kill_process_group(group, Signal::KILL);
    if let Some(cg) = cgroup {
        cg.kill();
    }
    if let Some(g) = guard {
        g.tell(false, raw_group);
        g.reap_orphans();
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
