//! Uid ranges for job slots, one run at a time per range on a machine (as
//! isolate allocates box ids): two runs that shared uids could signal each
//! other's candidates (`kill(-1)` as slot 0's user reaches every process
//! of that uid). A run claims the blocks of 1024 uids its range touches by
//! locking a file per block, held for the whole run; the kernel releases
//! the locks when the run ends, however it ends.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::executor::ExecError;

/// The first uid of the first range handed out.
pub const FIRST: u32 = 60_000;
/// Uids per block (and the step between ranges handed out): the most job
/// slots a run has.
pub const BLOCK: u32 = 1024;
/// How many ranges are tried before giving up.
const RANGES: u32 = 64;

/// Where the block locks live.
fn lock_dir() -> PathBuf {
    std::env::var_os("PUZZLEGRADE_UID_LOCKS")
        .map_or_else(|| PathBuf::from("/run/puzzlegrade/uids"), PathBuf::from)
}

/// A claimed range: its first uid, and the locks that hold it.
#[derive(Debug)]
pub struct Claim {
    /// The first uid (slot 0's).
    pub base: u32,
    _locks: Vec<File>,
}

/// Claims `slots` uids from `base` when given (an error if another run
/// holds any of them), else the first free range from [`FIRST`].
pub fn claim(base: Option<u32>, slots: usize) -> Result<Claim, ExecError> {
    claim_in(&lock_dir(), base, slots)
}

/// [`claim`], with the block locks in `dir`.
fn claim_in(dir: &Path, base: Option<u32>, slots: usize) -> Result<Claim, ExecError> {
    std::fs::create_dir_all(dir).map_err(|e| ExecError::io("create", dir, e))?;
    let slots = u32::try_from(slots.max(1)).unwrap_or(BLOCK);
    match base {
        Some(base) => lock_range(dir, base, slots)?.ok_or_else(|| ExecError::UidsInUse {
            first: base,
            last: base.saturating_add(slots - 1),
        }),
        None => {
            for k in 0..RANGES {
                let base = FIRST + k * BLOCK;
                if let Some(claim) = lock_range(dir, base, slots)? {
                    return Ok(claim);
                }
            }
            Err(ExecError::NoFreeUids {
                first: FIRST,
                last: FIRST + RANGES * BLOCK - 1,
            })
        }
    }
}

/// Locks every block that `slots` uids from `base` touch; `None` when
/// another run holds one of them.
fn lock_range(dir: &Path, base: u32, slots: u32) -> Result<Option<Claim>, ExecError> {
    let last = base.saturating_add(slots - 1);
    let mut locks = Vec::new();
    for block in base / BLOCK..=last / BLOCK {
        let path = dir.join(format!("block-{block}.lock"));
        let file = File::options()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| ExecError::io("open", &path, e))?;
        match file.try_lock() {
            Ok(()) => locks.push(file),
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(ExecError::io("lock", &path, e)),
        }
    }
    Ok(Some(Claim {
        base,
        _locks: locks,
    }))
}

/// Kills every process of a job slot's user (`owner`: its uid and gid),
/// as that user (`kill(-1)` reaches exactly the processes it may signal:
/// its own), from a child that then runs `true`. Where a case has no
/// cgroup, this is what ends what it left running in a session of its
/// own; the slot's uid runs nothing else between two cases.
pub fn kill_all((uid, gid): (u32, u32)) -> Result<(), ExecError> {
    use std::os::unix::process::CommandExt;
    let mut killer = std::process::Command::new("true");
    killer
        .uid(uid)
        .gid(gid)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: the closure runs in the child after its ids are the slot's
    // user's, and makes one system call.
    #[allow(unsafe_code)]
    unsafe {
        killer.pre_exec(|| {
            // ESRCH: nothing of the user's was left.
            if libc::kill(-1, libc::SIGKILL) != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::ESRCH) {
                    return Err(e);
                }
            }
            Ok(())
        });
    }
    match killer.status() {
        Ok(_) => Ok(()),
        Err(e) => Err(ExecError::System {
            what: format!("kill what uid {uid} left running"),
            error: e,
        }),
    }
}

/// How many processes this process's user has now (for RLIMIT_NPROC,
/// which counts per user).
pub(super) fn own_processes() -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_get_ranges_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let claim = |base, slots| claim_in(dir.path(), base, slots);
        let a = claim(None, 4).unwrap();
        assert_eq!(a.base, FIRST);
        let b = claim(None, 4).unwrap();
        assert_eq!(b.base, FIRST + BLOCK, "the next free range");
        assert!(matches!(
            claim(Some(FIRST + 2), 1),
            Err(ExecError::UidsInUse {
                first: 60_002,
                last: 60_002
            })
        ));
        drop(a);
        assert_eq!(claim(Some(FIRST), 2).unwrap().base, FIRST, "free again");
    }
}
