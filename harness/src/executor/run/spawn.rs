//! Starting a case's process from the harness itself, the way
//! `posix_spawn` does: a `vfork` (the child shares the harness's memory
//! and runs on a stack of its own while the calling thread waits, until
//! the child's exec or exit), then, in the child, the steps of `launch`,
//! which `posix_spawn` cannot take. No program runs between the harness
//! and the candidate: a process start costs one exec, as without
//! isolation.
//!
//! The child shares the harness's memory with its other threads, so every
//! step is a bare system call on data made ready before the fork ([`Plan`]):
//! it allocates nothing, takes no lock, and calls no C library function
//! that acts on the whole process (the uid and groups are set for the
//! calling thread only, which is the child). Signals are blocked across
//! the fork, and in the child every handler is reset before they are let
//! through, so no handler of the harness's runs there. A failure goes to
//! the harness on a pipe, as the step and the error number (the harness
//! says it in words), and the child exits 125.

use std::ffi::{CString, OsString, c_char, c_int, c_void};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

use rustix::process::{Resource, Rlimit};

use super::launch::{FAILED, Launch};

/// What a step that failed was, as the harness says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Step {
    Pipes = 1,
    Group,
    Join,
    Limit,
    Cores,
    Terminal,
    View,
    Ipc,
    Folder,
    User,
    Exec,
    Report,
    Privileges,
    Filter,
    Landlock,
    Network,
    CgroupView,
    Sandboxed,
    Hop,
    /// Not a failure: the shim inside a sandbox is about to exec the
    /// candidate (the proof that the sandbox started it).
    Reached,
}

/// The code of a failure to start the candidate inside a sandbox (see
/// `shim`).
pub(super) const SANDBOXED: u32 = Step::Sandboxed as u32;

/// What the shim says just before its exec (see `shim::reached`).
pub(super) const REACHED: u32 = Step::Reached as u32;

impl Step {
    fn from_code(code: u32) -> Option<Self> {
        use Step::*;
        [
            Pipes, Group, Join, Limit, Cores, Terminal, View, Ipc, Folder, User, Exec, Report,
            Privileges, Filter, Landlock, Network, CgroupView, Sandboxed, Hop, Reached,
        ]
        .into_iter()
        .find(|s| *s as u32 == code)
    }
}

/// A launch made ready for the child: every string NUL-ended, every array
/// of pointers NULL-ended, every limit and core set in its kernel form.
pub(in crate::executor) struct Plan {
    /// Where the program may be, each with `/bin/sh`, that path and the
    /// arguments: a file without `#!` that the kernel refuses (ENOEXEC)
    /// is run by the shell, as `execvp` does.
    programs: Vec<(CString, Vec<*const c_char>)>,
    /// Keeps the strings the pointer arrays point into.
    _strings: Vec<CString>,
    argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
    cwd: CString,
    join: Vec<(RawFd, bool)>,
    rlimits: Vec<(Resource, Rlimit)>,
    cpus: Option<rustix::thread::CpuSet>,
    namespace: Option<RawFd>,
    hop: Option<super::hop::Hop>,
    network: Option<RawFd>,
    /// Each hierarchy to mount again: place, type, options.
    cgroup_view: Vec<[CString; 3]>,
    cgroup_ns: Option<RawFd>,
    user: Option<(u32, u32)>,
    no_new_privs: bool,
    /// Landlock rulesets' descriptors, applied in order (`no_new_privs`
    /// set before them): the view's, then the case's own.
    landlock: Vec<RawFd>,
    /// The seccomp filter, with `no_new_privs` (see `filter`).
    filter: Option<libc::sock_fprog>,
    hand: Vec<RawFd>,
    /// What the program is called in a failure.
    name: String,
    /// What the candidate's program is called (inside a sandbox's).
    candidate: String,
}

impl Plan {
    /// `launch` made ready. `Err` says why it cannot be (a string with a
    /// NUL, an rlimit with no name).
    pub(in crate::executor) fn new(launch: &Launch) -> Result<Self, crate::executor::ExecError> {
        let argv_os = launch.exec_argv();
        let given = argv_os.first().cloned().unwrap_or_default();
        let name = given.to_string_lossy().into_owned();
        let path = launch
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.as_os_str());
        let mut found = super::launch::find_program(&given, path);
        if found.is_empty() {
            // Tried as it is: the exec says it is not there.
            found.push(given.clone().into());
        }
        let c = |s: &std::ffi::OsStr| {
            CString::new(s.as_bytes())
                .map_err(|_| crate::executor::ExecError::Nul(s.to_string_lossy().into_owned()))
        };
        let mut strings: Vec<CString> = Vec::new();
        let mut pointers = |words: &mut dyn Iterator<Item = CString>| -> Vec<*const c_char> {
            let mut out = Vec::new();
            for w in words {
                out.push(w.as_ptr());
                strings.push(w);
            }
            out.push(std::ptr::null());
            out
        };
        let argv_c = argv_os
            .iter()
            .map(|a| c(a))
            .collect::<Result<Vec<_>, _>>()?;
        let mut programs = Vec::new();
        for path in &found {
            let path_c = c(path.as_os_str())?;
            let sh_c = [CString::from(c"/bin/sh"), path_c.clone()]
                .into_iter()
                .chain(argv_c.iter().skip(1).cloned())
                .collect::<Vec<_>>();
            programs.push((path_c, pointers(&mut sh_c.into_iter())));
        }
        let env_c = launch
            .env
            .iter()
            .map(|(k, v)| {
                let mut kv = OsString::from(k);
                kv.push("=");
                kv.push(v);
                c(&kv)
            })
            .collect::<Result<Vec<_>, _>>()?;
        // (Moving a CString moves no byte: the pointers stay good.)
        let argv = pointers(&mut argv_c.into_iter());
        let envp = pointers(&mut env_c.into_iter());
        let mut rlimits = Vec::new();
        for &(resource, ref value) in &launch.rlimits {
            // Never above the limit the harness itself was given (raising
            // a hard limit needs a privilege it may not have).
            let hard = super::launch::hard_limit(resource);
            let value = hard.map_or(*value, |h| (*value).min(h));
            // CPU: SIGXCPU at the limit, SIGKILL a second later (the hard
            // one).
            let ceiling = if resource == Resource::Cpu {
                let c = value.saturating_add(1);
                hard.map_or(c, |h| c.min(h))
            } else {
                value
            };
            rlimits.push((
                resource,
                Rlimit {
                    current: Some(value),
                    maximum: Some(ceiling),
                },
            ));
        }
        let cpus = (!launch.cpus.is_empty()).then(|| {
            let mut set = rustix::thread::CpuSet::new();
            for &core in &launch.cpus {
                set.set(core);
            }
            set
        });
        Ok(Self {
            programs,
            _strings: strings,
            argv,
            envp,
            cwd: c(launch.cwd.as_os_str())?,
            join: launch.join.clone(),
            rlimits,
            cpus,
            namespace: launch.namespace,
            hop: launch.hop,
            network: launch.network,
            cgroup_ns: launch.cgroup_ns,
            cgroup_view: launch
                .cgroup_view
                .iter()
                .map(|p| {
                    Ok([
                        c(p.point.as_os_str())?,
                        c(std::ffi::OsStr::new(p.fstype))?,
                        c(std::ffi::OsStr::new(&p.options))?,
                    ])
                })
                .collect::<Result<_, crate::executor::ExecError>>()?,
            user: launch.user,
            no_new_privs: launch.no_new_privs,
            // Landlock needs `no_new_privs` (or CAP_SYS_ADMIN) first.
            landlock: launch.landlock.clone(),
            filter: (launch.no_new_privs)
                .then(|| super::filter::program(launch.rules()))
                .flatten()
                .map(|p| libc::sock_fprog {
                    len: p.len() as u16,
                    filter: p.as_ptr().cast_mut(),
                }),
            hand: launch.hand.clone(),
            name,
            candidate: launch
                .argv
                .first()
                .map(|a| a.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
    }

    /// Why the child could not start the candidate, from what it wrote on
    /// its failure pipe (`None`: nothing, it started).
    pub(in crate::executor) fn failure(&self, said: &[u8]) -> Option<String> {
        // (The shim's word that it reached the exec comes first.)
        let said = said
            .strip_prefix(&[REACHED.to_le_bytes(), [0; 4]].concat()[..])
            .unwrap_or(said);
        let (code, errno) = match said {
            [a, b, c, d, e, f, g, h, ..] => (
                u32::from_le_bytes([*a, *b, *c, *d]),
                i32::from_le_bytes([*e, *f, *g, *h]),
            ),
            [] => return None,
            _ => return Some("the case's process failed before its exec".into()),
        };
        let error = std::io::Error::from_raw_os_error(errno);
        let what = match Step::from_code(code) {
            Some(Step::Pipes) => "cannot give the case its pipes".to_string(),
            Some(Step::Group) => "cannot make the case's process group".into(),
            Some(Step::Join) => "cannot join the case's cgroup".into(),
            Some(Step::Limit) => "cannot set the case's rlimits".into(),
            Some(Step::Cores) => "cannot keep to the job slot's cores".into(),
            Some(Step::Terminal) => "cannot give up the controlling terminal".into(),
            Some(Step::View) => "cannot enter the job slot's view".into(),
            Some(Step::Ipc) => "cannot make the case's IPC namespace".into(),
            Some(Step::Folder) => format!("cannot enter {}", self.cwd.to_string_lossy()),
            Some(Step::User) => "cannot become the job slot's user".into(),
            Some(Step::Exec) => format!("cannot start {}", self.name),
            Some(Step::Report) => "cannot hand the sandbox its files".into(),
            Some(Step::Privileges) => "cannot give up gaining privileges (no_new_privs)".into(),
            Some(Step::Filter) => "cannot install the case's seccomp filter".into(),
            Some(Step::Network) => "cannot enter the job slot's network".into(),
            Some(Step::CgroupView) => "cannot give the case its cgroup view".into(),
            Some(Step::Sandboxed) => format!("cannot start {} in the sandbox", self.candidate),
            Some(Step::Landlock) => "cannot apply the case's Landlock ruleset".into(),
            Some(Step::Hop) => "cannot enter the job slot's sandbox".into(),
            Some(Step::Reached) => "the case's process failed after its exec".into(),
            None => "the case's process failed".into(),
        };
        Some(format!("{what}: {error}"))
    }
}

/// What the child is given: the plan, and the descriptors of its stdin,
/// stdout, stderr and failure pipe (in the harness's table, which the
/// child has a copy of).
struct Child<'a> {
    plan: &'a Plan,
    stdio: [RawFd; 3],
    failure: RawFd,
    /// Where the plan hops (see `hop`): the stack of the process the
    /// child starts, and its pid.
    low: *mut c_void,
    started: std::sync::atomic::AtomicI32,
}

/// Starts `plan`'s process with `stdio` (stdin, stdout, stderr) and the
/// write end of its failure pipe; returns its pid once it has exec'd (or
/// failed). It is this process's child, and the leader of a process group
/// of its own.
pub(in crate::executor) fn spawn(
    plan: &Plan,
    stdio: [BorrowedFd<'_>; 3],
    failure: BorrowedFd<'_>,
) -> std::io::Result<u32> {
    let mut child = Child {
        plan,
        stdio: stdio.map(|fd| fd.as_raw_fd()),
        failure: failure.as_raw_fd(),
        low: std::ptr::null_mut(),
        started: Default::default(),
    };
    super::stack::with_top(|top| {
        // (The stack's lower half: the hopping child's frame is at its top.)
        child.low = top.wrapping_byte_sub(super::stack::SIZE / 2);
        // SAFETY: `sigset_t`s filled by the C library before use; the mask
        // is this thread's, restored before returning.
        #[allow(unsafe_code)]
        let pid = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            // SAFETY: CLONE_VM | CLONE_VFORK: this thread waits until the
            // child execs or exits, so `child` (on this frame) and the
            // stack (this thread's, used by no one else meanwhile) outlive
            // its use; the child only makes system calls (see `run`).
            let pid = libc::clone(
                child_main,
                top,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                &child as *const Child<'_> as *mut c_void,
            );
            let error = std::io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            if pid < 0 { Err(error) } else { Ok(pid) }
        }?;
        if plan.hop.is_some() {
            return super::hop::reap(pid, &child.started);
        }
        Ok(u32::try_from(pid).unwrap_or(0))
    })?
}

/// The child's entry: every step, then the exec (or, where the plan hops,
/// its namespaces entered and a process started there that does that);
/// on a failure, the step and the error number on the failure pipe, and
/// exit 125.
extern "C" fn child_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Child` that `spawn` passed, alive while its
    // thread waits for this child.
    #[allow(unsafe_code)]
    let child = unsafe { &*(arg as *const Child<'_>) };
    let Some(hop) = &child.plan.hop else {
        return leader_main(arg);
    };
    match super::hop::enter(hop, child.low, leader_main, arg, &child.started) {
        // SAFETY: ends the child without running anything of the harness's.
        #[allow(unsafe_code)]
        0 => unsafe { libc::_exit(0) },
        errno => said(child, Step::Hop, errno),
    }
}

/// The entry of the case's process: every step, then the exec.
extern "C" fn leader_main(arg: *mut c_void) -> c_int {
    // SAFETY: as in `child_main`.
    #[allow(unsafe_code)]
    let child = unsafe { &*(arg as *const Child<'_>) };
    let (step, errno) = run(child);
    said(child, step, errno)
}

/// The failure `step` and `errno` on the child's failure pipe, and exit
/// 125.
fn said(child: &Child<'_>, step: Step, errno: i32) -> c_int {
    let mut said = [0u8; 8];
    said[..4].copy_from_slice(&(step as u32).to_le_bytes());
    said[4..].copy_from_slice(&errno.to_le_bytes());
    // SAFETY: a descriptor of the child's own table; `_exit` ends the child
    // without running anything of the harness's (no atexit, no flush).
    #[allow(unsafe_code)]
    unsafe {
        let _ = rustix::io::write(BorrowedFd::borrow_raw(child.failure), &said);
        libc::_exit(FAILED)
    }
}

/// The steps, in the child. Returns only on a failure: its step and error
/// number.
#[allow(unsafe_code)]
fn run(child: &Child<'_>) -> (Step, i32) {
    let plan = child.plan;
    let errno = |e: rustix::io::Errno| e.raw_os_error();
    // SAFETY (every block below): bare system calls on descriptors of the
    // child's own table and on the plan's NUL-ended strings and arrays,
    // which live until the child execs or exits; nothing is allocated.
    unsafe {
        // No handler of the harness's may run here (it would run on the
        // harness's memory): each is reset to the default before signals
        // are let through; SIGPIPE, which the harness ignores, too.
        for sig in 1..=64 {
            if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                continue;
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                continue;
            }
            let handler = old.sa_sigaction;
            if handler != libc::SIG_DFL && (handler != libc::SIG_IGN || sig == libc::SIGPIPE) {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &default, std::ptr::null_mut());
            }
        }
        let empty: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());

        let [stdin, stdout, stderr] = child.stdio.map(|fd| BorrowedFd::borrow_raw(fd));
        if let Err(e) = rustix::stdio::dup2_stdin(stdin)
            .and_then(|()| rustix::stdio::dup2_stdout(stdout))
            .and_then(|()| rustix::stdio::dup2_stderr(stderr))
        {
            return (Step::Pipes, errno(e));
        }
        // Nothing else of the harness's goes with the candidate: every
        // other descriptor (one the harness inherited from whoever started
        // it, say) closes at the exec. (Where the kernel has no
        // close_range, 5.11 and later, the harness's own are all
        // close-on-exec already.)
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        if let Err(e) = rustix::process::setpgid(None, None) {
            return (Step::Group, errno(e));
        }
        // v1's `tasks` takes `0` (this thread, moved by itself), a
        // `cgroup.procs` the pid, in decimal.
        let mut digits = [0u8; 12];
        let pid = rustix::process::getpid()
            .as_raw_nonzero()
            .get()
            .unsigned_abs();
        let pid_text = super::stack::decimal(pid, &mut digits);
        for &(fd, itself) in &plan.join {
            let text: &[u8] = if itself { b"0" } else { pid_text };
            if let Err(e) = rustix::io::write(BorrowedFd::borrow_raw(fd), text) {
                return (Step::Join, errno(e));
            }
        }
        for (resource, limit) in &plan.rlimits {
            if let Err(e) = rustix::process::setrlimit(*resource, *limit) {
                return (Step::Limit, errno(e));
            }
        }
        // After the cgroups: joining a cpuset sets the affinity to all of
        // it.
        if let Some(cpus) = &plan.cpus
            && let Err(e) = rustix::thread::sched_setaffinity(None, cpus)
        {
            return (Step::Cores, errno(e));
        }
        // The controlling terminal the harness was started from, if any,
        // is given up: the candidate cannot open /dev/tty, type into the
        // grader's shell (TIOCSTI) or take its foreground, and a process
        // in the harness's session that is not its leader can never get
        // one back.
        if let Ok(tty) = rustix::fs::open(
            c"/dev/tty",
            rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) {
            if libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) != 0 {
                return (Step::Terminal, *libc::__errno_location());
            }
            drop(tty);
        }
        if let Some(ns) = plan.namespace {
            if let Err(e) = rustix::thread::move_into_link_name_space(
                BorrowedFd::borrow_raw(ns),
                Some(rustix::thread::LinkNameSpaceType::Mount),
            ) {
                return (Step::View, errno(e));
            }
            // System V objects die with the case; its cgroup view is its own.
            use rustix::thread::UnshareFlags as U;
            let own = if !plan.cgroup_view.is_empty() {
                U::NEWIPC | U::NEWNS | U::NEWCGROUP
            } else {
                U::NEWIPC
            };
            if let Err(e) = rustix::thread::unshare_unsafe(own) {
                return (Step::Ipc, errno(e));
            }
            if !plan.cgroup_view.is_empty()
                && let Err(e) = super::cgroups::remount(&plan.cgroup_view)
            {
                return (Step::CgroupView, errno(e));
            }
            if let Some(ns) = plan.cgroup_ns
                && let Err(e) = rustix::thread::move_into_link_name_space(
                    BorrowedFd::borrow_raw(ns),
                    Some(rustix::thread::LinkNameSpaceType::ControlGroup),
                )
            {
                return (Step::CgroupView, errno(e));
            }
        }
        // In a slot's bubblewrap namespaces (see `hop`): System V objects
        // die with the case there too.
        if plan.hop.is_some()
            && let Err(e) = rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWIPC)
        {
            return (Step::Ipc, errno(e));
        }
        if let Some(ns) = plan.network
            && let Err(e) = rustix::thread::move_into_link_name_space(
                BorrowedFd::borrow_raw(ns),
                Some(rustix::thread::LinkNameSpaceType::Network),
            )
        {
            return (Step::Network, errno(e));
        }
        for &fd in &plan.hand {
            if let Err(e) =
                rustix::io::fcntl_setfd(BorrowedFd::borrow_raw(fd), rustix::io::FdFlags::empty())
            {
                return (Step::Report, errno(e));
            }
        }
        if let Err(e) = rustix::process::chdir(plan.cwd.as_c_str()) {
            return (Step::Folder, errno(e));
        }
        if let Some((uid, gid)) = plan.user {
            // This thread's ids only (the C library's setuid would ask
            // every thread of the harness to follow).
            let set = rustix::thread::set_thread_groups(&[])
                .and_then(|()| rustix::thread::set_thread_gid(rustix::process::Gid::from_raw(gid)))
                .and_then(|()| rustix::thread::set_thread_uid(rustix::process::Uid::from_raw(uid)));
            if let Err(e) = set {
                return (Step::User, errno(e));
            }
            super::filter::forget_keys();
        }
        // (A slot's kept user namespace, see `hop`: its keyrings too.)
        if plan.hop.is_some() {
            super::filter::forget_keys();
        }
        if plan.no_new_privs
            && let Err(e) = rustix::thread::set_no_new_privs(true)
        {
            return (Step::Privileges, errno(e));
        }
        for &fd in &plan.landlock {
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
                return (Step::Landlock, *libc::__errno_location());
            }
        }
        // The last step before the exec: the harness's own calls above
        // (keyctl among them) are done.
        if let Some(program) = &plan.filter
            && let Err(errno) = super::filter::install(program)
        {
            return (Step::Filter, errno);
        }
        // As `execvp`: on past a place it is not (or may not be run from),
        // saying "permission denied" if that was met and nothing ran.
        let mut denied = false;
        let mut error = libc::ENOENT;
        for (program, sh_argv) in &plan.programs {
            libc::execve(program.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr());
            error = *libc::__errno_location();
            if error == libc::ENOEXEC {
                libc::execve(c"/bin/sh".as_ptr(), sh_argv.as_ptr(), plan.envp.as_ptr());
                error = *libc::__errno_location();
            }
            match error {
                libc::EACCES => denied = true,
                libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
                _ => break,
            }
        }
        (Step::Exec, if denied { libc::EACCES } else { error })
    }
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
