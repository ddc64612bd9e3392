//! What a case's process does to the kernel's state it could share: its
//! user's keyrings emptied (`forget_keys`), and the seccomp filter every
//! isolated case runs under (installed by the case's process with
//! `no_new_privs`, or handed to bubblewrap, which installs it before its
//! exec): the calls no puzzle solver needs that reach state shared beyond
//! the case, or the kernel's riskiest surface, answer EPERM: the kernel
//! keyrings (a key one case stores, a later case of the same user would
//! find), io_uring, bpf, perf events, userfaultfd, ptrace and reading or
//! writing another process's memory, mounts, and namespaces (`unshare`,
//! `setns`, a `clone` asking for one); `clone3`, whose flags a filter
//! cannot see, answers ENOSYS, so the C library falls back to `clone`.
//! Where a case has no network of its own (`offline`), a socket of any
//! family but Unix is refused too. Everything else is allowed:
//! interpreters, the JVM and valgrind run as ever.
//!
//! The program is written here, one classic BPF program of some sixty
//! instructions: seccompiler gives one action per program, and the
//! kernel's cost of a filter (its attach, and every system call after)
//! grows with each program and its length: its two programs for the
//! two answers cost a 1 ms case 0.15 ms, this one 0.07 (measured
//! 2026-11-26, 2,000 execs of the reference solver).

use std::sync::OnceLock;

/// The filter's program, made once (`None`: not on this architecture;
/// the case then runs without it). `offline`: no socket but a Unix one.
pub(in crate::executor) fn program(offline: bool) -> Option<&'static [libc::sock_filter]> {
    static ONLINE: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    static OFFLINE: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    let cell = if offline { &OFFLINE } else { &ONLINE };
    cell.get_or_init(|| make(offline)).as_deref()
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
const REFUSED: [libc::c_long; 27] = [
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
const NAMESPACES: libc::c_int = libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP;

/// This machine's audit architecture (`AUDIT_ARCH_*`: its ELF machine,
/// 64-bit, little-endian), and the bit its other system-call table sets
/// (x32's on x86-64: refused whole).
#[cfg(target_arch = "x86_64")]
const ARCH: Option<(u32, u32)> = Some((0xC000_0000 | 62, 0x4000_0000));
#[cfg(target_arch = "aarch64")]
const ARCH: Option<(u32, u32)> = Some((0xC000_0000 | 183, 0));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCH: Option<(u32, u32)> = None;

/// Where `seccomp_data` holds the call's number, its architecture and
/// its first argument (its low half: both architectures are
/// little-endian).
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
const ARG0: u32 = 16;

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

/// A jump: on `k` (equal to, or any of its bits set in, the accumulator)
/// `jt` instructions on, else `jf`.
fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

fn make(offline: bool) -> Option<Vec<libc::sock_filter>> {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W};
    let (arch, other_table) = ARCH?;
    let load = |at: u32| stmt(BPF_LD | BPF_W | BPF_ABS, at);
    let ret = |action: u32| stmt(BPF_RET | BPF_K, action);
    let refuse = ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32);
    let allow = ret(libc::SECCOMP_RET_ALLOW);
    let nr = |call: libc::c_long| call as u32;
    let mut p = vec![
        load(ARCH_AT),
        // Another architecture's calls (a 32-bit program): the process
        // is killed, as its numbers mean other calls.
        jump(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        ret(libc::SECCOMP_RET_KILL_PROCESS),
        load(NR),
    ];
    if other_table != 0 {
        p.extend([jump(BPF_JMP | BPF_JGE | BPF_K, other_table, 0, 1), refuse]);
    }
    for call in REFUSED {
        p.extend([jump(BPF_JMP | BPF_JEQ | BPF_K, nr(call), 0, 1), refuse]);
    }
    p.extend([
        jump(BPF_JMP | BPF_JEQ | BPF_K, nr(libc::SYS_clone3), 0, 1),
        ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        jump(BPF_JMP | BPF_JEQ | BPF_K, nr(libc::SYS_clone), 0, 3),
        load(ARG0),
        jump(BPF_JMP | BPF_JSET | BPF_K, NAMESPACES as u32, 0, 1),
        refuse,
        allow,
    ]);
    if offline {
        // (The accumulator still holds the call's number here.)
        let last = p.pop().expect("allow, pushed above");
        p.extend([
            jump(BPF_JMP | BPF_JEQ | BPF_K, nr(libc::SYS_socket), 0, 3),
            load(ARG0),
            jump(BPF_JMP | BPF_JEQ | BPF_K, libc::AF_UNIX as u32, 1, 0),
            refuse,
            last,
        ]);
    }
    Some(p)
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
    /// Each call's answer under the filter, in a child process (the
    /// filter stays there): 0 where it went through to the kernel.
    fn answers(offline: bool, calls: &[(libc::c_long, [libc::c_long; 2])]) -> Vec<i32> {
        let program = super::program(offline).expect("a filter for this architecture");
        let (r, w) = std::io::pipe().unwrap();
        // SAFETY: the child makes system calls only, then `_exit`s.
        #[allow(unsafe_code)]
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                use std::os::fd::AsRawFd;
                let fprog = libc::sock_fprog {
                    len: program.len() as u16,
                    filter: program.as_ptr().cast_mut(),
                };
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                if super::install(&fprog).is_err() {
                    libc::_exit(3);
                }
                for &(call, [a, b]) in calls {
                    let got = libc::syscall(call, a, b, 0, 0);
                    let errno = if got < 0 {
                        *libc::__errno_location()
                    } else {
                        0
                    };
                    libc::write(w.as_raw_fd(), (&raw const errno).cast(), 4);
                }
                libc::_exit(0);
            }
            drop(w);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            assert_eq!(status, 0);
        }
        let mut said = Vec::new();
        std::io::Read::read_to_end(&mut &r, &mut said).unwrap();
        said.chunks(4)
            .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn the_filter_answers_each_call_as_documented() {
        use libc::{ENOSYS, EPERM};
        let sock = |family: libc::c_int| {
            (
                libc::SYS_socket,
                [family as libc::c_long, libc::SOCK_DGRAM as libc::c_long],
            )
        };
        let calls = [
            (libc::SYS_getpid, [0, 0]),
            (libc::SYS_keyctl, [0, 0]),
            (libc::SYS_ptrace, [0, 0]),
            (libc::SYS_unshare, [libc::CLONE_NEWUSER as libc::c_long, 0]),
            (libc::SYS_mount, [0, 0]),
            (libc::SYS_io_uring_setup, [1, 0]),
            (libc::SYS_clone3, [0, 0]),
            (libc::SYS_clone, [libc::CLONE_NEWUSER as libc::c_long, 0]),
            sock(libc::AF_UNIX),
            sock(libc::AF_INET),
        ];
        // (getpid and the Unix socket go through; an INET socket too,
        // online.)
        let online = answers(false, &calls);
        assert_eq!(
            online[..8],
            [0, EPERM, EPERM, EPERM, EPERM, EPERM, ENOSYS, EPERM]
        );
        assert_eq!(online[8..], [0, 0]);
        let offline = answers(true, &calls);
        assert_eq!(offline[..8], online[..8]);
        assert_eq!(offline[8..], [0, EPERM]);
        assert_eq!(super::bytes(super::program(false).unwrap()).len() % 8, 0);
    }
}
