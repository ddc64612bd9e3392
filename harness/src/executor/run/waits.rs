//! The time a case waited for a core that no process of its own kept
//! from it: what a busy machine adds to its wall time, and none of the
//! candidate's doing. The wall clock that stops a case (the safety net)
//! counts its time less this, so a candidate that computes on a loaded
//! machine is not stopped for the machine's doing, however loaded, and
//! one that sleeps or blocks (no waiting) is stopped when it would be
//! alone.
//!
//! What is given back is the run delay of the case's tasks
//! (`/proc/PID/task/TID/schedstat`'s second field: time runnable but not
//! running), summed over its tree followed down from its process through
//! each task's `children` and sampled every [`EVERY`], but never more
//! than the time in which its tree did not run: each interval adds to
//! that the interval less the tree's CPU time in it (its cgroup's count
//! where it has one, else the same files' first field). Both are summed
//! over the whole run before the lesser is taken: the kernel adds a
//! task's waiting only when it gets a core again, in lumps longer than an
//! interval on a busy machine. A single task gets back exactly its run
//! delay. A tree whose own tasks keep its cores busy (spinners beside a
//! sleeping main process) has a core's worth of CPU or more each
//! interval and adds nothing to what may come back, whatever the machine
//! does: its own waiting is its own (at most, what it slept before its
//! spinners started). A task that exits between two looks takes its last
//! part with it (the run delay errs low; where no cgroup counts the tree,
//! its CPU time does too, which [`MOST_NETS_UNCOUNTED`] bounds).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::executor::cgroup::CaseCgroup;

/// How often a case's tasks are looked at.
const EVERY: Duration = Duration::from_millis(50);

/// The most tasks looked at in one sample (a fork bomb's thousands would
/// cost more than they tell).
const MOST_TASKS: usize = 64;

/// Where no cgroup counts a case's CPU time, the most wall time it is
/// given, in safety nets: a tree that hides its CPU time (orphans out of
/// its tree's sight, tasks past [`MOST_TASKS`], tasks that live less than
/// a look) could otherwise be given back time it kept itself from. On two
/// cores a case that computes meets this only where it had under a
/// thirtieth of a core.
pub(super) const MOST_NETS_UNCOUNTED: u32 = 10;

/// One case's waiting time, as sampled.
pub(super) struct Waits {
    /// The case's process (the root of its tree).
    pid: u32,
    /// Each task's (CPU time, run delay) when last seen, in nanoseconds.
    seen: HashMap<u32, (u64, u64)>,
    /// Its tasks' run delay so far.
    delayed: Duration,
    /// The time in which its tree did not run, so far.
    idle: Duration,
    /// The time given back so far: the lesser of the two.
    total: Duration,
    /// When it was last looked at, and the tree's CPU time then (its
    /// cgroup's count, where it has one).
    last: Instant,
    last_cpu: Option<Duration>,
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
            delayed: Duration::ZERO,
            idle: Duration::ZERO,
            total: Duration::ZERO,
            last: start,
            last_cpu: None,
            next: start + EVERY,
        }
    }

    /// The wall time given back as last sampled.
    pub(super) fn total(&self) -> Duration {
        self.total
    }

    /// The wall time given back so far, looked at again where it is time
    /// to. `cgroup`, where the case has one, counts its whole tree's CPU
    /// time.
    pub(super) fn sample(&mut self, now: Instant, cgroup: Option<&CaseCgroup>) -> Duration {
        if now < self.next {
            return self.total;
        }
        self.next = now + EVERY;
        let interval = now.saturating_duration_since(self.last);
        self.last = now;
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
        let (mut ran, mut delayed) = (0u64, 0u64);
        for tid in tasks {
            if let Some((cpu, delay)) = schedstat(tid) {
                // A task first seen counts from zero: it was born in the
                // case (its time so far is all the case's).
                let (cpu_before, delay_before) =
                    self.seen.insert(tid, (cpu, delay)).unwrap_or((0, 0));
                ran += cpu.saturating_sub(cpu_before);
                delayed += delay.saturating_sub(delay_before);
            }
        }
        let mut ran = Duration::from_nanos(ran);
        if let Some(cpu) = cgroup.and_then(CaseCgroup::cpu) {
            ran = cpu.saturating_sub(self.last_cpu.unwrap_or_default());
            self.last_cpu = Some(cpu);
        }
        self.add(interval, ran, Duration::from_nanos(delayed))
    }

    /// Adds an interval in which the tree had `ran` of CPU time and its
    /// tasks `delayed` of run delay; the time given back so far.
    fn add(&mut self, interval: Duration, ran: Duration, delayed: Duration) -> Duration {
        self.delayed += delayed;
        // (Its CPU time in the interval is at least the time some task of
        // it ran.)
        self.idle += interval.saturating_sub(ran);
        self.total = self.delayed.min(self.idle);
        self.total
    }
}

/// Task `tid`'s CPU time and run delay in nanoseconds (`None`: gone, or
/// no schedstat).
fn schedstat(tid: u32) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/schedstat")).ok()?;
    let mut fields = text.split_whitespace().map(str::parse::<u64>);
    Some((fields.next()?.ok()?, fields.next()?.ok()?))
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    use super::*;

    fn spawn(script: &str) -> Child {
        Command::new("sh").args(["-c", script]).spawn().unwrap()
    }

    fn stop(children: impl IntoIterator<Item = Child>) {
        for mut c in children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Samples `waits` for 1.5 s; what each was given back.
    fn watch<const N: usize>(mut waits: [Waits; N]) -> [Duration; N] {
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(1500) {
            std::thread::sleep(EVERY);
            for w in &mut waits {
                w.sample(Instant::now(), None);
            }
        }
        waits.map(|w| w.total)
    }

    /// The rule on numbers: the run delay, at most the time the tree did
    /// not run, each summed over the run.
    #[test]
    fn what_comes_back_is_the_waiting_the_tree_did_not_run_through() {
        let ms = Duration::from_millis;
        let mut w = Waits::new(std::process::id(), Instant::now());
        let mut step = |ran: u64, delayed: u64| w.add(ms(50), ms(ran), ms(delayed));
        // One task on a busy machine: it ran 5 ms of 50 and its waiting
        // comes in a lump when it gets a core again; all of it back.
        assert_eq!(step(5, 0), ms(0));
        assert_eq!(step(0, 0), ms(0));
        assert_eq!(step(5, 85), ms(85));
        // Then eight spinners of its own on two cores (100 ms of CPU in
        // 50): they add nothing to what may come back, however long they
        // wait; only the 55 ms it did not run before may.
        assert_eq!(step(100, 300), ms(140));
        assert_eq!(step(100, 300), ms(140));
        // Beside a busy machine's loops, a third of a core in all: back
        // only the time in which none of it ran.
        assert_eq!(step(17, 380), ms(173));
    }

    /// A process that computes beside busy loops on every core waits for
    /// one, and gets the waiting back; one that sleeps does not wait. A
    /// tree of spinners beside a sleeping process keeps itself waiting
    /// and gets next to nothing back.
    #[test]
    fn computing_on_a_busy_machine_is_waiting_and_sleeping_is_not() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let spin = "while :; do :; done";
        let load: Vec<_> = (0..cores * 3).map(|_| spawn(spin)).collect();
        let busy = spawn(spin);
        let sleeper = spawn("sleep 3");
        let start = Instant::now();
        let [busy_back, slept_back] =
            watch([busy.id(), sleeper.id()].map(|pid| Waits::new(pid, start)));
        let took = start.elapsed();
        let (_, busy_delay) = schedstat(busy.id()).unwrap();
        stop(load.into_iter().chain([busy, sleeper]));
        // Four runnable tasks a core: most of the time, waiting; all of
        // it back, to what its last look saw of its run delay.
        assert!(busy_back > Duration::from_millis(400), "{busy_back:?}");
        assert!(busy_back < took, "{busy_back:?} of {took:?}");
        let unseen = Duration::from_nanos(busy_delay).saturating_sub(busy_back);
        assert!(
            unseen < Duration::from_millis(150),
            "{unseen:?} not seen of {busy_delay} ns"
        );
        assert!(slept_back < Duration::from_millis(100), "{slept_back:?}");

        // Its own spinners, four a core, beside its sleeping shell.
        let spinners = format!(
            "for i in $(seq {}); do ({spin}) & done; sleep 100",
            cores * 4
        );
        let rogue = Command::new("sh")
            .args(["-c", &spinners])
            .process_group(0)
            .spawn()
            .unwrap();
        let start = Instant::now();
        let [rogue_back] = watch([Waits::new(rogue.id(), start)]);
        let took = start.elapsed();
        let group = rustix::process::Pid::from_raw(i32::try_from(rogue.id()).unwrap()).unwrap();
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        stop([rogue]);
        assert!(rogue_back < took / 4, "{rogue_back:?} of {took:?}");
    }
}
