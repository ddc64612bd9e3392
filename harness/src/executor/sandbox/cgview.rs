//! A job slot's cgroup view, made once by its keeper (see `keeper`) where
//! the slot's cases share their cgroups (one folder per hierarchy for the
//! slot, used case after case): a short-lived child of the keeper joins
//! those cgroups and makes a cgroup namespace rooted there; the keeper
//! enters that namespace and, in the slot's view, mounts every hierarchy
//! again at its place (`run::cgroups::remount`). Each case then enters
//! the keeper's cgroup namespace (one `setns`) and sees its own cgroups
//! alone under /sys/fs/cgroup, at no cost of mounts of its own.
//! Where each case has cgroups of its own, its process does the same by
//! itself (see `spawn`).

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;

use crate::executor::ExecError;
use crate::executor::cgroup::Place;

/// A view's places as the keeper's request carries them: four words each
/// (place, type, options, folder).
pub(super) fn words(places: &[Place]) -> Vec<OsString> {
    places
        .iter()
        .flat_map(|p| {
            [
                p.point.clone().into_os_string(),
                p.fstype.into(),
                p.options.clone().into(),
                p.dir.clone().into_os_string(),
            ]
        })
        .collect()
}

/// In the keeper (single-threaded, in the slot's view; `host`: the mount
/// namespace it came from): the cgroup view of the places `words` names.
pub(super) fn make(words: &[OsString], host: &std::fs::File) -> Result<(), ExecError> {
    let failed = |what: &str, e: std::io::Error| ExecError::System {
        what: format!("make the slot's cgroup view: {what}"),
        error: e,
    };
    let c = |w: &OsString| CString::new(w.as_bytes()).map_err(|_| ExecError::BadView("a NUL"));
    let mut mounts = Vec::new();
    let mut dirs = Vec::new();
    for quad in words.chunks(4) {
        let [point, fstype, options, dir] = quad else {
            return Err(ExecError::BadView(
                "a cgroup place of fewer than four words",
            ));
        };
        mounts.push([c(point)?, c(fstype)?, c(options)?]);
        // (A hierarchy the slot has no folder in is seen from the
        // keeper's place in it.)
        if dir != point {
            dirs.push(std::path::PathBuf::from(dir));
        }
    }
    let ns = rooted_at(&dirs, host).map_err(|e| failed("a namespace rooted at the slot's", e))?;
    rustix::thread::move_into_link_name_space(
        std::os::fd::AsFd::as_fd(&ns),
        Some(rustix::thread::LinkNameSpaceType::ControlGroup),
    )
    .map_err(|e| failed("enter its namespace", e.into()))?;
    crate::executor::run::cgroups::remount(&mounts)
        .map_err(|e| failed("mount the hierarchies", e.into()))
}

/// A cgroup namespace rooted at `dirs` (one folder per hierarchy): made by
/// a child of this process that joins them first (from `host`'s mount
/// namespace: the view's /sys is read-only), then dies.
fn rooted_at(dirs: &[std::path::PathBuf], host: &std::fs::File) -> std::io::Result<std::fs::File> {
    use std::io::{Read, Write};
    let (mut ready_r, ready_w) = std::io::pipe()?;
    let keeper = rustix::process::getpid();
    // SAFETY: the keeper has one thread: the child may do anything.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // It dies with the keeper, and holds nothing of the keeper's but
        // what it needs (the keeper's socket, held here, would keep the
        // harness waiting for a keeper that is gone).
        // SAFETY: bare system calls on integers.
        #[allow(unsafe_code)]
        unsafe {
            use std::os::fd::AsRawFd;
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if rustix::process::getppid() != Some(keeper) {
                libc::_exit(1);
            }
            let mut keep = [host.as_raw_fd() as u32, ready_w.as_raw_fd() as u32];
            keep.sort_unstable();
            let mut from = 3u32;
            for fd in keep {
                if fd > from {
                    libc::syscall(libc::SYS_close_range, from, fd - 1, 0u32);
                }
                from = from.max(fd + 1);
            }
            libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32);
        }
        let home = rustix::thread::move_into_link_name_space(
            std::os::fd::AsFd::as_fd(host),
            Some(rustix::thread::LinkNameSpaceType::Mount),
        );
        let joined = home.is_ok()
            && dirs.iter().all(|d| {
                std::fs::write(d.join("cgroup.procs"), "0")
                    .inspect_err(|e| eprintln!("harness keeper: cannot join {}: {e}", d.display()))
                    .is_ok()
            });
        // SAFETY: no FILES flag: the descriptor table stays as it is.
        #[allow(unsafe_code)]
        let own = joined
            && unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWCGROUP) }
                .is_ok();
        let _ = (&ready_w).write_all(if own { b"y" } else { b"n" });
        // Until the keeper has taken the namespace and killed it.
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
    drop(ready_w);
    let mut said = [0u8; 1];
    let ready = ready_r.read_exact(&mut said).is_ok() && said == *b"y";
    let ns = std::fs::File::open(format!("/proc/{pid}/ns/cgroup"));
    // SAFETY: our own child, waited for below.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    if !ready {
        return Err(std::io::Error::other("cannot join the slot's cgroups"));
    }
    ns
}
