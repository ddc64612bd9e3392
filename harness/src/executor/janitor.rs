//! Clearing away what finished cases leave (their cgroups and scratch
//! folders) on a thread of its own, off the cases' critical path.

use super::cgroup::CaseCgroup;
use super::scratch::Scratch;

/// What is left of a finished case to clear away.
pub enum Leftover {
    /// A case's cgroup.
    Cgroup(CaseCgroup),
    /// A case's scratch folder.
    Scratch(Scratch),
}

/// A thread that clears away leftovers; `finish` waits for it.
pub struct Janitor {
    tx: std::sync::Mutex<Option<std::sync::mpsc::Sender<Leftover>>>,
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Janitor {
    /// Starts the thread.
    pub fn new() -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Leftover>();
        let thread = std::thread::spawn(move || {
            for leftover in rx {
                leftover.clear();
            }
        });
        Self {
            tx: std::sync::Mutex::new(Some(tx)),
            thread: std::sync::Mutex::new(Some(thread)),
        }
    }

    /// Clears `leftover` away, off the caller's path.
    pub fn clear(&self, leftover: Leftover) {
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        match tx.as_ref() {
            Some(tx) => {
                if let Err(std::sync::mpsc::SendError(l)) = tx.send(leftover) {
                    l.clear();
                }
            }
            None => leftover.clear(),
        }
    }

    /// Waits until everything sent so far is cleared away.
    pub fn finish(&self) {
        drop(self.tx.lock().unwrap_or_else(|p| p.into_inner()).take());
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
