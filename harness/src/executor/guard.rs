//! Nothing the harness starts outlives it.
//!
//! Three layers. The harness is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so a candidate's orphans (a double fork, a
//! `setsid` daemon whose parent exited) become the harness's children;
//! [`sweep`] kills and reaps them once no case is running. And a guard
//! process (`harness __guard`, in a process group of its own) holds the
//! read end of a pipe only the harness writes: the harness tells it each
//! live case's process group; when the pipe closes, however the harness
//! died (`kill -9` included), the guard SIGKILLs every group still listed.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

use rustix::process::{Pid, Signal, WaitOptions, kill_process, kill_process_group, waitpid};

/// The harness's end of the guard process.
pub struct Guard {
    child: Mutex<Option<(Child, ChildStdin)>>,
    pid: u32,
}

impl Guard {
    /// Starts `exe __guard` in a process group of its own (so a Ctrl-C
    /// meant for the harness does not reach it).
    pub fn spawn(exe: &Path) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(exe)
            .arg("__guard")
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
        })
    }

    /// The guard's pid (never swept).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Tells the guard that process group `pgid` is live (`+`) or gone (`-`).
    pub fn tell(&self, live: bool, pgid: i32) {
        let mut lock = self.child.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, stdin)) = lock.as_mut() {
            let sign = if live { '+' } else { '-' };
            let _ = writeln!(stdin, "{sign}{pgid}").and_then(|()| stdin.flush());
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

/// The guard process's whole life: read `+PGID` / `-PGID` lines until the
/// pipe closes, then SIGKILL every group still live.
pub fn serve(input: impl BufRead) {
    let mut live = HashSet::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        let (sign, number) = line.split_at(line.len().min(1));
        let Some(pid) = number.parse::<i32>().ok().and_then(Pid::from_raw) else {
            continue;
        };
        match sign {
            "+" => {
                live.insert(pid);
            }
            "-" => {
                live.remove(&pid);
            }
            _ => {}
        }
    }
    for pgid in live {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
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

    #[test]
    fn serve_reads_until_the_pipe_closes() {
        // Groups that do not exist: killing them fails quietly.
        serve(&b"+999999\n-999999\n+999998\nnonsense\n+\n"[..]);
    }
}
