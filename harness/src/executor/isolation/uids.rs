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
/// its own). Where a case has no cgroup, this is what ends what it left
/// running in a session of its own; the slot's uid runs nothing else
/// between two cases.
///
/// No program is started: a child sharing this process's memory (a
/// `vfork`, the harness waiting meanwhile) takes the user's ids and calls
/// `kill(-1)`, with three system calls of its own, and exits with the
/// call's error number. It is made with no exit signal, so only a wait
/// for exactly it (`__WALL`) reaps it: the harness's reaping of orphans
/// (which waits for ordinary children) never takes it, and its outcome is
/// always known.
pub fn kill_all((uid, gid): (u32, u32)) -> Result<(), ExecError> {
    /// The child: the user's ids, then `kill(-1)`; its exit status is 0
    /// or the error number. Bare system calls only (it shares the
    /// parent's memory: no allocation, no lock, and the C library's
    /// set*id wrappers, which signal every thread, never).
    extern "C" fn killer(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `arg` points at the ids, alive until the parent resumes.
        #[allow(unsafe_code)]
        let (uid, gid) = unsafe { *(arg as *const (u32, u32)) };
        let call = |r: libc::c_long| -> Result<(), libc::c_int> {
            if r < 0 {
                Err((-r) as libc::c_int)
            } else {
                Ok(())
            }
        };
        let run = || -> Result<(), libc::c_int> {
            // Not dumpable before it is the user's, whatever
            // fs.suid_dumpable says: for its instant as the slot's user it
            // shares the harness's memory, which no process of that user
            // may trace or read (the candidates' filter refuses it too).
            call(raw(libc::SYS_prctl, libc::PR_SET_DUMPABLE as _, 0, 0))?;
            call(raw(libc::SYS_setgroups, 0, 0, 0))?;
            call(raw(libc::SYS_setresgid, gid as _, gid as _, gid as _))?;
            call(raw(libc::SYS_setresuid, uid as _, uid as _, uid as _))?;
            match call(raw(libc::SYS_kill, -1, libc::SIGKILL as _, 0)) {
                // ESRCH: nothing of the user's was left.
                Err(libc::ESRCH) | Ok(()) => Ok(()),
                Err(e) => Err(e),
            }
        };
        run().err().unwrap_or(0)
    }
    let what = || format!("kill what uid {uid} left running");
    let mut ids = (uid, gid);
    // SAFETY: the child runs `killer` on this thread's own child stack
    // (see `run::stack`) and exits; CLONE_VFORK holds this thread until it
    // has, so `ids` and the stack outlive it. Exit signal 0: no SIGCHLD,
    // reaped only with __WALL.
    #[allow(unsafe_code)]
    let pid = crate::executor::run::stack::with_top(|top| unsafe {
        libc::clone(
            killer,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK,
            (&raw mut ids).cast(),
        )
    })
    .map_err(|error| ExecError::System {
        what: what(),
        error,
    })?;
    if pid < 0 {
        return Err(ExecError::System {
            what: what(),
            error: std::io::Error::last_os_error(),
        });
    }
    let status = crate::executor::run::stack::wait_for(pid).map_err(|error| ExecError::System {
        what: what(),
        error,
    })?;
    match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
        Some(0) => Ok(()),
        Some(errno) => Err(ExecError::System {
            what: what(),
            error: std::io::Error::from_raw_os_error(errno),
        }),
        None => Err(ExecError::System {
            what: what(),
            error: std::io::Error::other(format!("its killer ended with status {status:#x}")),
        }),
    }
}

/// A system call of three integer arguments: its result, or -errno (the
/// errno of the thread the child was made from, which waits meanwhile).
fn raw(number: libc::c_long, a: libc::c_long, b: libc::c_long, c: libc::c_long) -> libc::c_long {
    // SAFETY: the calls made with it take integers only.
    #[allow(unsafe_code)]
    unsafe {
        match libc::syscall(number, a, b, c) {
            -1 => -(*libc::__errno_location()) as libc::c_long,
            r => r,
        }
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

    /// The uid the kill tests' victims run as (no run's range).
    const VICTIM: u32 = 59_990;

    /// `kill_all` beside a thread that reaps every ordinary child as it
    /// dies (as the harness reaps orphans): no kill is ever lost to it
    /// (the old killer, a started `true`, lost its wait 13 times in 1,000
    /// cases: "cannot kill what uid 60000 left running: No child
    /// processes"), and each kills the slot user's process. Run in a
    /// process of its own (the reaper would take other tests' children).
    #[test]
    fn no_kill_is_lost_to_a_reaper() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("note: skipping: killing as a slot's user needs root");
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "executor::isolation::uids::tests::kills_beside_a_reaper",
                "--nocapture",
            ])
            .env("PUZZLEGRADE_REAPER_TEST", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("300 kills, 300 victims gone"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The body of [`no_kill_is_lost_to_a_reaper`], in its own process.
    #[test]
    fn kills_beside_a_reaper() {
        use std::os::unix::process::CommandExt;
        use std::sync::atomic::{AtomicBool, Ordering};
        if std::env::var_os("PUZZLEGRADE_REAPER_TEST").is_none() {
            return;
        }
        static STOP: AtomicBool = AtomicBool::new(false);
        let reaper = std::thread::spawn(|| {
            while !STOP.load(Ordering::Relaxed) {
                // SAFETY: reaps any ordinary child of this process.
                #[allow(unsafe_code)]
                unsafe {
                    libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG)
                };
            }
        });
        let mut gone = 0;
        for _ in 0..300 {
            // (Reaped by the reaper thread, as the harness reaps orphans.)
            #[allow(clippy::zombie_processes)]
            let victim = std::process::Command::new("sleep")
                .arg("60")
                .uid(VICTIM)
                .gid(VICTIM)
                .process_group(0)
                .spawn()
                .unwrap();
            kill_all((VICTIM, VICTIM)).unwrap();
            let pid = rustix::process::Pid::from_child(&victim);
            // Gone (reaped by the reaper), or a zombie waiting for it.
            for _ in 0..1000 {
                let dead = rustix::process::test_kill_process(pid).is_err()
                    || std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero()))
                        .is_ok_and(|s| s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')));
                if dead {
                    gone += 1;
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        STOP.store(true, Ordering::Relaxed);
        reaper.join().unwrap();
        println!("300 kills, {gone} victims gone");
    }
}
