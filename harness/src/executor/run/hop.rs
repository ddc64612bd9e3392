//! A case's process that enters namespaces a job slot's holder keeps (a
//! bubblewrap sandbox made once per slot, see `sandbox::kept`) instead of
//! having a sandbox program made for it: the `vfork`'d child enters the
//! holder's user namespace (whose capabilities let it enter the rest),
//! its mount, network and PID namespaces, then the user namespace cases
//! run in; a process joins a PID namespace only by being made in it, so
//! the child then starts the case's process (a second `vfork`, with
//! `CLONE_PARENT`: the harness's child, as every case's process is) and
//! exits. That process takes the usual steps (`spawn::run`, with an IPC
//! namespace of its own) and execs the candidate.

use std::ffi::{c_int, c_void};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

/// The namespaces to enter, as open `/proc/PID/ns` files of the holder's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// The user namespace that owns the others: entered first.
    pub owner: RawFd,
    pub mount: RawFd,
    /// The slot's network (none: the case shares the harness's).
    pub network: Option<RawFd>,
    pub pid: RawFd,
    /// The user namespace the case runs in, where it is another (nested
    /// in the owner): entered last. Its user is the harness's, so the
    /// candidate's exec leaves it no capability.
    pub user: Option<RawFd>,
}

/// The `vfork`'d child's part: `hop`'s namespaces entered, then `leader`
/// started on the stack below `low` (with `arg`) as the harness's child,
/// its pid stored in `started`. Returns `0` (started) or the error number.
pub(super) fn enter(
    hop: &Hop,
    low: *mut c_void,
    leader: extern "C" fn(*mut c_void) -> c_int,
    arg: *mut c_void,
    started: &AtomicI32,
) -> i32 {
    use rustix::thread::LinkNameSpaceType as Ns;
    // SAFETY: bare system calls on descriptors of the child's own table;
    // the second child runs on stack below this one's frame, which this
    // child does not touch until it has exec'd or exited (CLONE_VFORK).
    #[allow(unsafe_code)]
    unsafe {
        let fd = |raw: RawFd| std::os::fd::BorrowedFd::borrow_raw(raw);
        let steps = [
            (Some(hop.owner), Ns::User),
            (Some(hop.mount), Ns::Mount),
            (hop.network, Ns::Network),
            (Some(hop.pid), Ns::ProcessID),
            (hop.user, Ns::User),
        ];
        for (ns, kind) in steps {
            if let Some(ns) = ns
                && let Err(e) = rustix::thread::move_into_link_name_space(fd(ns), Some(kind))
            {
                return e.raw_os_error();
            }
        }
        let pid = libc::clone(
            leader,
            low,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PARENT,
            arg,
        );
        if pid < 0 {
            return *libc::__errno_location();
        }
        started.store(pid, Ordering::SeqCst);
        0
    }
}

/// The harness's part, once the `vfork`'d child `pid` is done: it is
/// reaped, and the case's process it started is returned (an error where
/// it started none: it said why on the failure pipe).
pub(super) fn reap(pid: c_int, started: &AtomicI32) -> std::io::Result<u32> {
    let status = super::stack::wait_for(pid)?;
    let leader = started.load(Ordering::SeqCst);
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 && leader > 0 {
        Ok(leader.unsigned_abs())
    } else {
        Err(std::io::Error::other(
            "the job slot's sandbox was not entered",
        ))
    }
}
