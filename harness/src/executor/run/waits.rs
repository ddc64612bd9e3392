//! The time a case spent waiting for a core: what a busy machine adds to
//! its wall time, and none of the candidate's doing. The kernel counts it
//! per task (`/proc/PID/task/TID/schedstat`'s second field, the run delay:
//! time runnable but not running); a case's is the sum over its tasks,
//! followed down from its process through each task's `children`, sampled
//! as the case runs (a task that exits between two looks takes its last
//! part with it: the sum errs low, never letting a case run longer than it
//! would have alone). The wall clock that stops a case counts its time
//! less this, so a candidate that computes on a loaded machine is not
//! stopped for the machine's doing, and one that sleeps or blocks (no run
//! delay) is stopped when it would be alone.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often a case's tasks are looked at.
const EVERY: Duration = Duration::from_millis(50);

/// The most tasks looked at in one sample (a fork bomb's thousands would
/// cost more than they tell).
const MOST_TASKS: usize = 64;

/// One case's waiting time, as sampled.
pub(super) struct Waits {
    /// The case's process (the root of its tree).
    pid: u32,
    /// Each task's run delay when last seen, in nanoseconds.
    seen: HashMap<u32, u64>,
    /// The sum of what each task waited since it was first seen.
    total: Duration,
    next: Instant,
}

impl Waits {
    /// For the case whose process is `pid`, started at `start`: first
    /// looked at one interval in (a case of a few milliseconds, most of
    /// them, costs no look; its waiting could not move a limit anyway).
    pub(super) fn new(pid: u32, start: Instant) -> Self {
        Self {
            pid,
            seen: HashMap::new(),
            total: Duration::ZERO,
            next: start + EVERY,
        }
    }

    /// The waiting time as last sampled.
    pub(super) fn total(&self) -> Duration {
        self.total
    }

    /// The waiting time so far, looked at again where it is time to.
    pub(super) fn sample(&mut self, now: Instant) -> Duration {
        if now < self.next {
            return self.total;
        }
        self.next = now + EVERY;
        let mut tasks = Vec::new();
        let mut stack = vec![self.pid];
        while let Some(pid) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for tid in entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
            {
                if tasks.len() >= MOST_TASKS {
                    break;
                }
                tasks.push(tid);
                let children = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
                    .unwrap_or_default();
                stack.extend(
                    children
                        .split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok()),
                );
            }
        }
        for tid in tasks {
            if let Some(delay) = run_delay(tid) {
                // A task first seen counts from zero: it was born in the
                // case (its delay so far is all the case's).
                let before = self.seen.insert(tid, delay).unwrap_or(0);
                self.total += Duration::from_nanos(delay.saturating_sub(before));
            }
        }
        self.total
    }
}

/// Task `tid`'s run delay in nanoseconds (`None`: gone, or no schedstat).
fn run_delay(tid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/schedstat")).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that computes beside busy loops on every core waits for
    /// one; one that sleeps does not.
    #[test]
    fn computing_on_a_busy_machine_is_waiting_and_sleeping_is_not() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let spin = "while :; do :; done";
        let load: Vec<_> = (0..cores * 3)
            .map(|_| {
                std::process::Command::new("sh")
                    .args(["-c", spin])
                    .spawn()
                    .unwrap()
            })
            .collect();
        let busy = std::process::Command::new("sh")
            .args(["-c", spin])
            .spawn()
            .unwrap();
        let sleeper = std::process::Command::new("sleep")
            .arg("3")
            .spawn()
            .unwrap();
        let start = Instant::now();
        let mut waits = [busy.id(), sleeper.id()].map(|pid| Waits::new(pid, start));
        while start.elapsed() < Duration::from_millis(1500) {
            std::thread::sleep(EVERY);
            for w in &mut waits {
                w.sample(Instant::now());
            }
        }
        let [busy_waited, slept_waited] = waits.map(|w| w.total);
        for mut c in load.into_iter().chain([busy, sleeper]) {
            let _ = c.kill();
            let _ = c.wait();
        }
        // Four runnable tasks a core: most of the time, waiting.
        assert!(busy_waited > Duration::from_millis(400), "{busy_waited:?}");
        assert!(
            slept_waited < Duration::from_millis(100),
            "{slept_waited:?}"
        );
    }
}
