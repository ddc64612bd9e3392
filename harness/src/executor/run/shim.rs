//! What starts the candidate inside bubblewrap: `harness-exec exec FD
//! NPROC PROGRAM ARGS...` (or `harness __exec ...`), run by bubblewrap in
//! the case's namespaces. It sets the case's process budget (`NPROC`, or
//! `-`: none), which the kernel counts in the case's user namespace, so a
//! fork bomb spends only its own case's budget (bubblewrap itself runs
//! with room for every job slot's); then it execs the candidate. Where
//! that exec fails, it says so on `FD`, the job slot's failure pipe, as
//! the case's process does outside a sandbox: the candidate never
//! started, which is never the candidate's verdict. Just before the exec
//! it says it got there: a sandbox that never says so (bubblewrap or the
//! shim killed at the memory limit, say) never started the candidate.

use std::ffi::OsString;
use std::os::fd::BorrowedFd;
use std::os::unix::process::CommandExt;

use super::launch::FAILED;

/// Whether the shim said, on the failure pipe (`said`), that it reached
/// the candidate's exec: a case under a sandbox that never says so never
/// started the candidate.
pub(in crate::executor) fn reached(said: &[u8]) -> bool {
    said.chunks_exact(8)
        .any(|r| u32::from_le_bytes([r[0], r[1], r[2], r[3]]) == super::spawn::REACHED)
}

/// The shim's whole life: `args` after its `exec` word. Returns only on a
/// failure (the exit status, `FAILED`).
pub fn exec(args: &[OsString]) -> i32 {
    let [fd, nproc, program, rest @ ..] = args else {
        eprintln!("harness exec: FD NPROC PROGRAM [ARGS...] expected");
        return FAILED;
    };
    let Some(fd) = fd.to_str().and_then(|f| f.parse::<i32>().ok()) else {
        eprintln!("harness exec: {fd:?} is no descriptor");
        return FAILED;
    };
    // SAFETY: the descriptor the harness handed on (checked open below).
    #[allow(unsafe_code)]
    let failure = unsafe { BorrowedFd::borrow_raw(fd) };
    if rustix::io::fcntl_setfd(failure, rustix::io::FdFlags::CLOEXEC).is_err() {
        eprintln!("harness exec: descriptor {fd} is not open");
        return FAILED;
    }
    let say = |errno: i32| {
        let mut said = (super::spawn::SANDBOXED).to_le_bytes().to_vec();
        said.extend(errno.to_le_bytes());
        let _ = rustix::io::write(failure, &said);
        FAILED
    };
    if nproc != "-" {
        let Some(n) = nproc.to_str().and_then(|n| n.parse::<u64>().ok()) else {
            return say(libc::EINVAL);
        };
        let limit = rustix::process::Rlimit {
            current: Some(n),
            maximum: Some(n),
        };
        if let Err(e) = rustix::process::setrlimit(rustix::process::Resource::Nproc, limit) {
            return say(e.raw_os_error());
        }
    }
    // The proof that the sandbox started the candidate: a sandbox killed
    // before here (for memory, say) never ran it.
    let mut reached = (super::spawn::REACHED).to_le_bytes().to_vec();
    reached.extend([0; 4]);
    if rustix::io::write(failure, &reached).is_err() {
        return FAILED;
    }
    let error = std::process::Command::new(program).args(rest).exec();
    say(error.raw_os_error().unwrap_or(libc::ENOEXEC))
}
