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
//! An `AF_VSOCK` socket is refused everywhere (vsock ignores network
//! namespaces: it reaches the host and its other guests). Where a case has
//! no network of its own (`offline`), a socket of any family but Unix is
//! refused too. Where it has no IPC namespace of its own (Landlock's tier,
//! or no sandbox: `shared_ipc`), System V IPC (shared memory, semaphores,
//! message queues) and POSIX message queues are refused: their objects
//! would be every case's, and outlive it. Everything else is allowed:
//! interpreters, the JVM and valgrind run as ever.
//!
//! The program is written here, one classic BPF program of forty to sixty
//! instructions: seccompiler gives one action per program, and the
//! kernel's cost of a filter (its attach, and every system call after)
//! grows with each program and its length: its two programs for the
//! two answers cost a 1 ms case 0.15 ms, this one 0.07 (measured
//! 2026-11-26, 2,000 execs of the reference solver).

use std::sync::OnceLock;

/// What a case's filter refuses beyond the calls every case's refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(in crate::executor) struct Rules {
    /// No network of its own: no socket but a Unix one.
    pub offline: bool,
    /// No IPC namespace of its own: no System V IPC, no POSIX message
    /// queue.
    pub shared_ipc: bool,
}

/// The filter's program, made once for each kind of case (`None`: not on
/// this architecture; the case then runs without it).
pub(in crate::executor) fn program(rules: Rules) -> Option<&'static [libc::sock_filter]> {
    type Cell = OnceLock<Option<Vec<libc::sock_filter>>>;
    static CELLS: [Cell; 4] = [const { OnceLock::new() }; 4];
    let cell = &CELLS[usize::from(rules.offline) * 2 + usize::from(rules.shared_ipc)];
    cell.get_or_init(|| make(rules)).as_deref()
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

/// The calls refused where a case shares the IPC namespace: System V
/// IPC and POSIX message queues.
const IPC: [libc::c_long; 17] = [
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_shmdt,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semctl,
    libc::SYS_semtimedop,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
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

/// `calls` as runs of consecutive numbers (lowest, highest), in order.
fn runs(calls: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut calls: Vec<u32> = calls.collect();
    calls.sort_unstable();
    calls.dedup();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for call in calls {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == call => *hi = call,
            _ => out.push((call, call)),
        }
    }
    out
}

fn make(rules: Rules) -> Option<Vec<libc::sock_filter>> {
    use libc::{
        BPF_ABS, BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JMP, BPF_JSET, BPF_K, BPF_LD, BPF_RET, BPF_W,
    };
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
    let ipc: &[libc::c_long] = if rules.shared_ipc { &IPC } else { &[] };
    // A run of numbers in two jumps, not one each: the kernel checks and
    // compiles the program anew for every case, and runs it on every call.
    for (lo, hi) in runs(REFUSED.iter().chain(ipc).map(|&c| nr(c))) {
        if lo == hi {
            p.extend([jump(BPF_JMP | BPF_JEQ | BPF_K, lo, 0, 1), refuse]);
        } else {
            p.extend([
                jump(BPF_JMP | BPF_JGE | BPF_K, lo, 0, 2),
                jump(BPF_JMP | BPF_JGT | BPF_K, hi, 1, 0),
                refuse,
            ]);
        }
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
    // (The accumulator still holds the call's number here.)
    let last = p.pop().expect("allow, pushed above");
    let family = if rules.offline {
        // Unix alone.
        jump(BPF_JMP | BPF_JEQ | BPF_K, libc::AF_UNIX as u32, 1, 0)
    } else {
        // Anything but vsock.
        jump(BPF_JMP | BPF_JEQ | BPF_K, libc::AF_VSOCK as u32, 0, 1)
    };
    p.extend([
        jump(BPF_JMP | BPF_JEQ | BPF_K, nr(libc::SYS_socket), 0, 3),
        load(ARG0),
        family,
        refuse,
        last,
    ]);
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
    fn answers(rules: super::Rules, calls: &[(libc::c_long, [libc::c_long; 2])]) -> Vec<i32> {
        let program = super::program(rules).expect("a filter for this architecture");
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
            sock(libc::AF_VSOCK),
            // (A key no object has: ENOENT where the call went through.)
            (libc::SYS_shmget, [0x7067_0001, 0]),
            (libc::SYS_msgget, [0x7067_0001, 0]),
            (libc::SYS_semget, [0x7067_0001, 0]),
            // Beside the runs refused (on x86-64 dup and fcntl border the
            // IPC calls, umount2's neighbour swapon...): through, EBADF.
            (libc::SYS_dup, [-1, 0]),
            (libc::SYS_fcntl, [-1, 0]),
        ];
        let rules = |offline, shared_ipc| super::Rules {
            offline,
            shared_ipc,
        };
        // (getpid and the Unix socket go through; an INET socket too,
        // online; vsock never; IPC where the case has a namespace of its
        // own.)
        let online = answers(rules(false, false), &calls);
        assert_eq!(
            online[..8],
            [0, EPERM, EPERM, EPERM, EPERM, EPERM, ENOSYS, EPERM]
        );
        let (noent, vsock) = (libc::ENOENT, EPERM);
        let bad = libc::EBADF;
        assert_eq!(online[8..], [0, 0, vsock, noent, noent, noent, bad, bad]);
        let offline = answers(rules(true, false), &calls);
        assert_eq!(offline[..8], online[..8]);
        assert_eq!(
            offline[8..],
            [0, EPERM, EPERM, noent, noent, noent, bad, bad]
        );
        let shared = answers(rules(false, true), &calls);
        assert_eq!(shared[..11], online[..11]);
        assert_eq!(
            shared[11..],
            [EPERM, EPERM, EPERM, bad, bad],
            "System V IPC refused, its neighbours not"
        );
        let program = super::program(rules(true, true)).unwrap();
        assert_eq!(super::bytes(program).len() % 8, 0);
        assert_eq!(
            super::runs([7, 3, 4, 5, 9, 4].into_iter()),
            [(3, 5), (7, 7), (9, 9)]
        );
    }
}
