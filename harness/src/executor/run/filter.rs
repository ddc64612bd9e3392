//! What a case's process does to the kernel's state it could share: its
//! user's keyrings emptied (`forget_keys`), and the seccomp filter every
//! isolated case runs under (outside bubblewrap,
//! with `no_new_privs`): the calls no puzzle solver needs that reach
//! state shared beyond the case or the kernel's riskiest surface answer
//! EPERM: the kernel keyrings (a key one case stores, a later case of the
//! same user would find), io_uring, bpf, perf events and userfaultfd.
//! Everything else is allowed: interpreters and the JVM run as ever.

use std::sync::OnceLock;

/// The filter's program, compiled once (`None`: it could not be, on
/// this architecture; the case then runs without it).
pub(in crate::executor) fn program() -> Option<&'static [libc::sock_filter]> {
    static PROGRAM: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    PROGRAM.get_or_init(compile).as_deref()
}

/// The calls refused.
const REFUSED: [i64; 9] = [
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
];

fn compile() -> Option<Vec<libc::sock_filter>> {
    use seccompiler::{SeccompAction, SeccompFilter};
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let filter = SeccompFilter::new(
        REFUSED.iter().map(|&call| (call, vec![])).collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .ok()?;
    let program: seccompiler::BpfProgram = filter.try_into().ok()?;
    Some(
        program
            .into_iter()
            .map(|f| libc::sock_filter {
                code: f.code,
                jt: f.jt,
                jf: f.jf,
                k: f.k,
            })
            .collect(),
    )
}

/// The keyrings the slot's user reaches, emptied (in the case's process,
/// as that user, before its exec): the user's own (`@u`, `@us`) and
/// persistent keyrings outlive its processes, so what one case stored
/// there the slot's next case (another student's) would find. The case
/// gets a session keyring of its own. Best effort: a kernel without
/// (persistent) keyrings has nothing to empty.
///
/// # Safety
/// System calls on integers alone: safe in the `vfork` child.
#[allow(unsafe_code)]
pub(super) unsafe fn forget_keys() {
    // SAFETY: keyctl with integer arguments (0: no name).
    let keyctl = |op: u32, a: libc::c_long, b: libc::c_long| unsafe {
        libc::syscall(libc::SYS_keyctl, libc::c_long::from(op), a, b)
    };
    keyctl(libc::KEYCTL_JOIN_SESSION_KEYRING, 0, 0);
    // The persistent one (-1: this uid's) linked into the new session's.
    let session = libc::KEY_SPEC_SESSION_KEYRING.into();
    let persistent = keyctl(libc::KEYCTL_GET_PERSISTENT, -1, session);
    for ring in [
        libc::KEY_SPEC_USER_KEYRING,
        libc::KEY_SPEC_USER_SESSION_KEYRING,
    ] {
        keyctl(libc::KEYCTL_CLEAR, ring.into(), 0);
    }
    if persistent > 0 {
        keyctl(libc::KEYCTL_CLEAR, persistent, 0);
    }
}

/// Installs `program` (made before the fork) on this thread: one bare
/// system call, safe in the `vfork` child. `Err`: its errno.
#[allow(unsafe_code)]
pub(super) fn install(program: &libc::sock_fprog) -> Result<(), i32> {
    // SAFETY: `program` points at a filter that outlives the call.
    let set = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            program as *const libc::sock_fprog,
        )
    };
    if set == 0 {
        Ok(())
    } else {
        // SAFETY: this thread's errno.
        Err(unsafe { *libc::__errno_location() })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_here() {
        let program = super::program().expect("a filter for this architecture");
        assert!(program.len() > super::REFUSED.len());
    }
}
