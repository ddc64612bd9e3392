//! A replica of a container engine's default privileges around a command,
//! for the harness's tests (never part of the product): run as root, it
//! gives the command what Docker and Podman give a container by default:
//!
//! - /sys/fs/cgroup read-only (every mount under it, in a mount namespace
//!   of the replica's own, so the machine's stay as they are);
//! - a PID namespace of its own, with its own /proc (the command is its
//!   first process): what it kills with `kill(-1)` is its own;
//! - a seccomp filter like the engines' default profile: the calls that
//!   make namespaces or change mounts refused with EPERM (unshare, setns,
//!   mount and the new mount API, clone with any CLONE_NEW* flag), clone3
//!   answered ENOSYS (so the C library falls back to clone, as under the
//!   engines), the kernel keyring, bpf and perf refused;
//! - the engines' default capabilities only (no CAP_SYS_ADMIN), through
//!   util-linux's `setpriv`, run last.
//!
//! Usage: container COMMAND [ARG...]   (exit 125: the replica failed)

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

/// Docker's and Podman's default capabilities.
const CAPS: &str = "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,\
                    +net_bind_service,+net_raw,+sys_chroot,+mknod,+audit_write,+setfcap";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: container COMMAND [ARG...]");
        return ExitCode::from(125);
    }
    let filters = match cgroups_read_only().and_then(|()| filters()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("container: {e}");
            return ExitCode::from(125);
        }
    };
    #[allow(unsafe_code)]
    // SAFETY: one thread, no FILES flag.
    if let Err(e) = unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWPID) }
    {
        eprintln!("container: a PID namespace: {e}");
        return ExitCode::from(125);
    }
    let caps = format!("--bounding-set={CAPS}");
    let mut first = Command::new("setpriv");
    first
        .args([caps.as_str(), "--inh-caps=-all", "--"])
        .args(&args);
    // SAFETY: in the child (the namespace's first process), before its
    // exec: a mount and the filters' prctl calls on data made before.
    #[allow(unsafe_code)]
    unsafe {
        first.pre_exec(move || {
            use rustix::mount::MountFlags;
            rustix::mount::mount(
                "proc",
                "/proc",
                "proc",
                MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
                None,
            )?;
            for f in &filters {
                seccompiler::apply_filter(f).map_err(std::io::Error::other)?;
            }
            Ok(())
        });
    }
    match first.status() {
        Ok(status) => {
            use std::os::unix::process::ExitStatusExt;
            let code = status
                .code()
                .or(status.signal().map(|s| 128 + s))
                .unwrap_or(125);
            ExitCode::from(code as u8)
        }
        Err(e) => {
            eprintln!("container: cannot run setpriv: {e}");
            ExitCode::from(125)
        }
    }
}

/// Every mount under /sys/fs/cgroup read-only, in a mount namespace of
/// this process's own.
fn cgroups_read_only() -> Result<(), String> {
    use rustix::mount::{MountFlags, MountPropagationFlags};
    use rustix::thread::UnshareFlags;
    #[allow(unsafe_code)]
    // SAFETY: one thread, no FILES flag.
    unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) }
        .map_err(|e| format!("unshare: {e}"))?;
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(|e| format!("make the mounts private: {e}"))?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").map_err(|e| e.to_string())?;
    let mut targets: Vec<&str> = info
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .filter(|t| *t == "/sys/fs/cgroup" || t.starts_with("/sys/fs/cgroup/"))
        .collect();
    // The deepest first: a parent made read-only does not stop its children.
    targets.sort_by_key(|t| std::cmp::Reverse(t.len()));
    for t in targets {
        rustix::mount::mount_remount(t, MountFlags::BIND | MountFlags::RDONLY, "")
            .map_err(|e| format!("make {t} read-only: {e}"))?;
    }
    Ok(())
}

/// The engines' default seccomp profile, in the part that matters here,
/// compiled (applied in the first process, before its exec).
fn filters() -> Result<Vec<seccompiler::BpfProgram>, String> {
    let refused = [
        libc::SYS_unshare,
        libc::SYS_setns,
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
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
    ];
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        refused.iter().map(|&call| (call, vec![])).collect();
    // clone with any namespace flag.
    let flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ];
    let clone = flags
        .iter()
        .map(|&f| {
            let f = f as u64;
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(f), f)
                .and_then(|c| SeccompRule::new(vec![c]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    rules.insert(libc::SYS_clone, clone);
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let eperm = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let enosys = SeccompFilter::new(
        [(libc::SYS_clone3, vec![])].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    [eperm, enosys]
        .into_iter()
        .map(|f| {
            f.try_into()
                .map_err(|e: seccompiler::BackendError| e.to_string())
        })
        .collect()
}
