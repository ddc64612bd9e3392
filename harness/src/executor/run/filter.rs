//! What a case's process does to the kernel's state it could share: its
//! user's keyrings emptied (`forget_keys`), and the seccomp filters every
//! isolated case runs under (installed by the case's process with
//! `no_new_privs`, or handed to bubblewrap, which installs them before
//! its exec): the calls no puzzle solver needs that reach state shared
//! beyond the case, or the kernel's riskiest surface, answer EPERM: the
//! kernel keyrings (a key one case stores, a later case of the same user
//! would find), io_uring, bpf, perf events, userfaultfd, ptrace and
//! reading or writing another process's memory, mounts, and namespaces
//! (`unshare`, `setns`, a `clone` asking for one); `clone3`, whose flags a
//! filter cannot see, answers ENOSYS, so the C library falls back to
//! `clone`. Where a case has no network of its own (`offline`), a socket
//! of any family but Unix is refused too. Everything else is allowed:
//! interpreters, the JVM and valgrind run as ever.

use std::sync::OnceLock;

/// The filters' programs, compiled once (empty: they could not be, on
/// this architecture; the case then runs without them). `offline`: no
/// socket but a Unix one.
pub(in crate::executor) fn programs(offline: bool) -> &'static [Vec<libc::sock_filter>] {
    static ONLINE: OnceLock<Vec<Vec<libc::sock_filter>>> = OnceLock::new();
    static OFFLINE: OnceLock<Vec<Vec<libc::sock_filter>>> = OnceLock::new();
    let cell = if offline { &OFFLINE } else { &ONLINE };
    cell.get_or_init(|| compile(offline).unwrap_or_default())
}

/// A program as bubblewrap reads it (`--add-seccomp-fd`): its
/// instructions in the machine's order.
pub(in crate::executor) fn bytes(program: &[libc::sock_filter]) -> Vec<u8> {
    program
        .iter()
        .flat_map(|f| {
            let mut b = Vec::with_capacity(8);
            b.extend(f.code.to_ne_bytes());
            b.extend([f.jt, f.jf]);
            b.extend(f.k.to_ne_bytes());
            b
        })
        .collect()
}

/// The calls refused, whatever their arguments.
const REFUSED: [i64; 27] = [
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_kexec_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
];

/// `clone`'s flags that make a namespace.
const NAMESPACES: [libc::c_int; 7] = [
    libc::CLONE_NEWNS,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// The refusals (EPERM), then `clone3`'s ENOSYS.
fn compile(offline: bool) -> Option<Vec<Vec<libc::sock_filter>>> {
    use seccompiler::{SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp, SeccompCondition};
    use seccompiler::{SeccompFilter, SeccompRule};
    let flag = |f: libc::c_int| {
        let f = f as u64;
        SeccompCondition::new(0, Len::Qword, SeccompCmpOp::MaskedEq(f), f)
            .and_then(|c| SeccompRule::new(vec![c]))
    };
    let mut rules: std::collections::BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|&call| (call, vec![])).collect();
    let clone = NAMESPACES.into_iter().map(flag).collect::<Result<_, _>>();
    rules.insert(libc::SYS_clone, clone.ok()?);
    if offline {
        let unix = libc::AF_UNIX as u64;
        let other = SeccompCondition::new(0, Len::Dword, SeccompCmpOp::Ne, unix)
            .and_then(|c| SeccompRule::new(vec![c]));
        rules.insert(libc::SYS_socket, vec![other.ok()?]);
    }
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let refuse = |rules, errno: i32| {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
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
                .collect::<Vec<_>>(),
        )
    };
    let clone3 = [(libc::SYS_clone3, vec![])].into_iter().collect();
    Some(vec![
        refuse(rules, libc::EPERM)?,
        refuse(clone3, libc::ENOSYS)?,
    ])
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
    fn the_filters_compile_here() {
        for offline in [false, true] {
            let programs = super::programs(offline);
            assert_eq!(programs.len(), 2, "the refusals, then clone3's ENOSYS");
            assert!(programs[0].len() > super::REFUSED.len());
            assert_eq!(super::bytes(&programs[1]).len(), 8 * programs[1].len());
        }
        assert!(super::programs(true)[0].len() > super::programs(false)[0].len());
    }
}
