//! Nothing the harness starts outlives it.
//!
//! Three layers. The harness is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so a candidate's orphans (a double fork, a
//! `setsid` daemon whose parent exited) become the harness's children;
//! [`sweep`] kills and reaps them once no case is running. And a guard
//! process (`harness __guard FILE`, in a process group of its own) holds
//! the read end of a pipe only the harness writes, and waits. The harness
//! keeps each live case's process group in a slot of FILE (one `pwrite`
//! a change: no message, no wake-up of the guard), unless the case runs in
//! a cgroup of the run. When the pipe closes, however the harness died
//! (`kill -9` included), the guard reads FILE and SIGKILLs every group
//! still in it, then kills every process in the run's cgroups.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, RwLock};

use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, waitpid};

/// The harness's end of the guard process.
pub struct Guard {
    child: Mutex<Option<(Child, ChildStdin)>>,
    pid: u32,
    /// The slot file and, mirrored in memory, the group in each slot.
    file: File,
    slots: Mutex<Vec<i32>>,
    /// Held (shared) while a leader is spawned and registered, and
    /// (alone) while orphans are reaped: job slots spawn at once, the
    /// reaper waits for every spawn under way to be registered.
    spawning: RwLock<()>,
    /// Every case runs in a cgroup of the run, which the guard kills: no
    /// group need be written to the file.
    cgroups_cover: bool,
}

impl Guard {
    /// Starts `exe __guard FILE` in a process group of its own (so a Ctrl-C
    /// meant for the harness does not reach it). `cleanup` is what it
    /// clears away if the harness dies first: the run's cgroup folders
    /// (every case cgroup in them killed first) and its scratch folder.
    pub fn spawn(exe: &Path, cleanup: &Cleanup) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        let (file, path) = tempfile::Builder::new()
            .prefix("puzzlegrade-guard-")
            .tempfile()?
            .keep()
            .map_err(|e| e.error)?;
        let mut child = Command::new(exe)
            .arg("__guard")
            .arg(&path)
            .args(cleanup.args())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the guard process has no stdin"))?;
        let pid = child.id();
        Ok(Self {
            child: Mutex::new(Some((child, stdin))),
            pid,
            file,
            slots: Mutex::new(Vec::new()),
            spawning: RwLock::new(()),
            cgroups_cover: !cleanup.cgroups.is_empty(),
        })
    }

    /// The guard's pid (never swept).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Starts a case's leader (`start` returns its pid, a child of this
    /// process) and records its process group as live, under the lock
    /// [`Self::reap_orphans`] takes alone: the reaper never sees a leader
    /// it does not know. Other slots' spawns go on meanwhile.
    pub fn spawn_case(&self, start: impl FnOnce() -> std::io::Result<u32>) -> std::io::Result<u32> {
        let _spawning = self.spawning.read().unwrap_or_else(|p| p.into_inner());
        let pid = start()?;
        if let Ok(pgid) = i32::try_from(pid) {
            self.tell(true, pgid);
        }
        Ok(pid)
    }

    /// Reaps the zombies among this process's children that are no live
    /// case's leader: orphans that came back to the subreaper and died. Left
    /// unreaped they hold pids and count against their user's limits.
    pub fn reap_orphans(&self) {
        use rustix::process::{WaitId, WaitIdOptions, waitid};
        // A cheap look first: is any child waitable at all? (Nothing is
        // reaped by looking.) Most cases leave nothing behind.
        let peek = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        if !matches!(waitid(WaitId::All, peek), Ok(Some(_))) {
            return;
        }
        let _spawning = self.spawning.write().unwrap_or_else(|p| p.into_inner());
        let live: Vec<i32> = self.slots.lock().unwrap_or_else(|p| p.into_inner()).clone();
        for pid in children() {
            let Ok(raw) = i32::try_from(pid) else {
                continue;
            };
            if pid == self.pid || live.contains(&raw) || !is_zombie(pid) {
                continue;
            }
            if let Some(p) = Pid::from_raw(raw) {
                let _ = waitpid(Some(p), WaitOptions::NOHANG);
            }
        }
    }

    /// Records that process group `pgid` is live (or gone): in the slot
    /// file too, unless every case runs in a cgroup of the run (the guard
    /// kills each of those).
    pub fn tell(&self, live: bool, pgid: i32) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        let (want, put) = if live { (0, pgid) } else { (pgid, 0) };
        let slot = match slots.iter().position(|&s| s == want) {
            Some(i) => i,
            None if live => {
                slots.push(0);
                slots.len() - 1
            }
            None => return,
        };
        slots[slot] = put;
        if !self.cgroups_cover {
            let _ = self.file.write_all_at(&put.to_le_bytes(), slot as u64 * 4);
        }
    }

    /// Closes the pipe and waits for the guard to exit.
    pub fn close(&self) {
        let taken = self.child.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((mut child, stdin)) = taken {
            drop(stdin);
            let _ = child.wait();
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.close();
    }
}

/// What the guard clears away when the harness dies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleanup {
    /// The run's cgroup folders (one per hierarchy), holding `case-*`.
    pub cgroups: Vec<PathBuf>,
    /// The run's scratch folder.
    pub run_dir: Option<PathBuf>,
}

impl Cleanup {
    fn args(&self) -> Vec<std::ffi::OsString> {
        let mut out = Vec::new();
        for c in &self.cgroups {
            out.push("--cgroup".into());
            out.push(c.into());
        }
        if let Some(r) = &self.run_dir {
            out.push("--remove".into());
            out.push(r.into());
        }
        out
    }

    /// Kills every case cgroup's processes (escapees included), removes
    /// the cgroup folders, then the scratch folder.
    pub fn run(&self) {
        for run in &self.cgroups {
            let cases: Vec<PathBuf> = std::fs::read_dir(run)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.path())
                        .filter(|p| p.is_dir())
                        .collect()
                })
                .unwrap_or_default();
            for case in cases {
                for _ in 0..100 {
                    if std::fs::write(case.join("cgroup.kill"), "1").is_err() {
                        let procs =
                            std::fs::read_to_string(case.join("cgroup.procs")).unwrap_or_default();
                        for pid in procs.split_whitespace().filter_map(|p| p.parse().ok()) {
                            if let Some(p) = Pid::from_raw(pid) {
                                let _ = kill_process(p, Signal::KILL);
                            }
                        }
                    }
                    if std::fs::remove_dir(&case).is_ok() || !case.exists() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
            let _ = std::fs::remove_dir(run);
        }
        if let Some(dir) = &self.run_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The guard process's whole life: wait for `input` (the pipe from the
/// harness) to close, then SIGKILL every group still in the slot file at
/// `slots`, remove it, and clear away `cleanup`.
pub fn serve(mut input: impl Read, slots: &Path, cleanup: &Cleanup) {
    // Opened now and read through this descriptor at the end: removing or
    // replacing the file meanwhile changes nothing.
    let file = File::open(slots);
    let mut sink = [0u8; 64];
    while matches!(input.read(&mut sink), Ok(n) if n > 0) {}
    let mut bytes = Vec::new();
    if let Ok(mut f) = file {
        use std::io::Seek;
        let _ = f.seek(std::io::SeekFrom::Start(0));
        let _ = f.read_to_end(&mut bytes);
    }
    for chunk in bytes.chunks_exact(4) {
        let pgid = i32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        if let Some(p) = Pid::from_raw(pgid) {
            let _ = kill_process_group(p, Signal::KILL);
        }
    }
    let _ = std::fs::remove_file(slots);
    cleanup.run();
}

/// Makes this process a child subreaper: orphans below it come back to it.
pub fn become_subreaper() -> std::io::Result<()> {
    rustix::process::set_child_subreaper(Pid::from_raw(1)).map_err(std::io::Error::from)
}

/// Kills and reaps every child of this process except `keep` (the guard):
/// the orphans candidates left behind. Their own children come back to us
/// as they die, so this repeats until none is left (bounded).
pub fn sweep(keep: &[u32]) -> usize {
    let mut killed = 0;
    for _ in 0..64 {
        let children: Vec<u32> = children()
            .into_iter()
            .filter(|p| !keep.contains(p))
            .collect();
        if children.is_empty() {
            break;
        }
        for &pid in &children {
            let Some(p) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
                continue;
            };
            let _ = kill_process(p, Signal::KILL);
            let _ = waitpid(Some(p), WaitOptions::empty());
            killed += 1;
        }
    }
    killed
}

/// Whether `pid` is a zombie (its state in `/proc/PID/stat` is `Z`).
fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

/// This process's children, from every thread's `/proc` children list.
fn children() -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots follow the live groups; the guard kills what is left in
    /// them when its pipe closes (here: a sleeping process group of ours).
    #[test]
    fn the_guard_kills_the_groups_left_in_its_slots() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slots");
        let file = File::create(&path).unwrap();
        let guard = Guard {
            child: Mutex::new(None),
            pid: 0,
            file,
            slots: Mutex::new(Vec::new()),
            spawning: RwLock::new(()),
            cgroups_cover: false,
        };
        let mut sleeper = Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = i32::try_from(sleeper.id()).unwrap();
        guard.tell(true, 999_998);
        guard.tell(true, pgid);
        guard.tell(false, 999_998);
        guard.tell(true, 999_997);
        assert_eq!(*guard.slots.lock().unwrap(), [999_997, pgid]);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            [999_997i32.to_le_bytes(), pgid.to_le_bytes()].concat()
        );
        guard.tell(false, 999_997);
        serve(&b""[..], &path, &Cleanup::default());
        let status = sleeper.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9));
        assert!(!path.exists(), "the guard removes its slot file");
    }

    /// Where every case runs in a cgroup of the run (which the guard
    /// kills), a live group is known, not written to the slot file.
    #[test]
    fn groups_in_the_runs_cgroups_are_known_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slots");
        let guard = Guard {
            child: Mutex::new(None),
            pid: 0,
            file: File::create(&path).unwrap(),
            slots: Mutex::new(Vec::new()),
            spawning: RwLock::new(()),
            cgroups_cover: true,
        };
        guard.tell(true, 999_996);
        assert_eq!(*guard.slots.lock().unwrap(), [999_996]);
        assert_eq!(std::fs::read(&path).unwrap(), Vec::<u8>::new());
        guard.tell(false, 999_996);
        assert_eq!(*guard.slots.lock().unwrap(), [0]);
    }
}
