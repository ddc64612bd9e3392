//! Clearing away what finished cases leave (their cgroups and scratch
//! folders, already out of every candidate's reach) on a thread of its
//! own, off the cases' critical path. It is woken in batches, not once a
//! case: a wake-up of another thread costs a case more than the removal
//! does.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use super::scratch::Scratch;
use crate::executor::cgroup::CaseCgroup;

/// What is left of a finished case to clear away.
pub enum Leftover {
    /// A case's cgroup.
    Cgroup(CaseCgroup),
    /// A case's scratch folder.
    Scratch(Scratch),
}

/// Leftovers waiting, and whether the run is done.
#[derive(Default)]
struct Queue {
    waiting: Vec<Leftover>,
    done: bool,
}

/// What the janitor does with a scratch folder: removes it, or keeps it
/// for another case (see `RunDir::recycle`).
type PutAway = Box<dyn Fn(Scratch) + Send>;

/// A thread that clears away leftovers, and does a chore each time it
/// wakes (makes scratch folders ahead); `finish` waits for it.
pub struct Janitor {
    queue: std::sync::Arc<(Mutex<Queue>, Condvar)>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Janitor {
    /// Leftovers that wake the thread at once.
    const BATCH: usize = 64;
    /// The longest a leftover waits otherwise.
    const PERIOD: Duration = Duration::from_millis(200);

    /// Starts the thread, which does `chore` each time it wakes and hands
    /// each scratch folder to `put_away` (which removes it, or keeps it
    /// for another case: see `RunDir::recycle`). After the finish,
    /// scratch folders are removed.
    pub fn recycling(
        chore: impl Fn() + Send + 'static,
        put_away: impl Fn(Scratch) + Send + 'static,
    ) -> Self {
        let put_away: PutAway = Box::new(put_away);
        let queue = std::sync::Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let shared = std::sync::Arc::clone(&queue);
        let thread = std::thread::spawn(move || {
            let (lock, wake) = &*shared;
            loop {
                chore();
                let (batch, done) = {
                    let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
                    if q.waiting.is_empty() && !q.done {
                        q = wake
                            .wait_timeout(q, Self::PERIOD)
                            .unwrap_or_else(|p| p.into_inner())
                            .0;
                    }
                    (std::mem::take(&mut q.waiting), q.done)
                };
                for leftover in batch {
                    match leftover {
                        Leftover::Scratch(s) if !done => put_away(s),
                        other => other.clear(),
                    }
                }
                if done
                    && lock
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .waiting
                        .is_empty()
                {
                    break;
                }
            }
        });
        Self {
            queue,
            thread: Mutex::new(Some(thread)),
        }
    }

    /// Clears `leftover` away, off the caller's path (at once when the
    /// janitor has finished).
    pub fn clear(&self, leftover: Leftover) {
        let (lock, wake) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|p| p.into_inner());
        if q.done {
            drop(q);
            leftover.clear();
            return;
        }
        q.waiting.push(leftover);
        if q.waiting.len() >= Self::BATCH {
            wake.notify_one();
        }
    }

    /// Wakes the thread now (its chore is wanted).
    pub fn wake(&self) {
        self.queue.1.notify_one();
    }

    /// Waits until everything sent so far is cleared away.
    pub fn finish(&self) {
        let (lock, wake) = &*self.queue;
        lock.lock().unwrap_or_else(|p| p.into_inner()).done = true;
        wake.notify_one();
        if let Some(t) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = t.join();
        }
    }
}

impl Leftover {
    fn clear(self) {
        match self {
            Leftover::Cgroup(c) => c.remove(),
            Leftover::Scratch(s) => drop(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_leftover_is_cleared_by_the_finish() {
        let run = super::super::scratch::RunDir::new(&std::env::temp_dir()).unwrap();
        let janitor = Janitor::recycling(|| {}, drop);
        let mut paths = Vec::new();
        for _ in 0..(Janitor::BATCH + 5) {
            let (s, _) = run.scratch(0, None).unwrap();
            paths.push(s.path().to_owned());
            janitor.clear(Leftover::Scratch(s));
        }
        janitor.finish();
        assert!(paths.iter().all(|p| !p.exists()), "all removed");
        // After the finish, at once.
        let (s, _) = run.scratch(0, None).unwrap();
        let p = s.path().to_owned();
        janitor.clear(Leftover::Scratch(s));
        assert!(!p.exists());
    }
}
