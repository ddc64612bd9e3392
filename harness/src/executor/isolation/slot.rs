//! A job slot's own state, case after case: the view of its last case
//! and what it was planned from, its failure pipe, and its worker thread
//! kept to its cores. (The view itself is the sandbox's: see `sandbox`.)

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use crate::executor::sandbox::view::View;

/// What a view is planned from: the command (before its files), the
/// working folder (`None`: the scratch folder), whether it is written to,
/// and the job slot.
pub(super) type ViewKey = (Vec<OsString>, Option<PathBuf>, bool, usize);

/// What a view is planned from: each path a case needs, and whether it
/// writes there.
pub(super) type Needs = Vec<(PathBuf, bool)>;

/// The views planned, by the command they were planned for, by what they
/// were planned from (a class's parts differ in a word of the command,
/// not in what they need), and each once.
pub(super) type Views = (
    std::collections::HashMap<ViewKey, Arc<View>>,
    std::collections::HashMap<Needs, Arc<View>>,
    std::collections::HashMap<Arc<View>, ()>,
);

/// A job slot's state.
#[derive(Default)]
pub(in crate::executor) struct Slot {
    /// The pipe the slot's cases say on why they could not start (read
    /// without waiting: the harness holds its write end).
    pub(in crate::executor) failure: Option<(std::io::PipeReader, std::io::PipeWriter)>,
    /// The view of the slot's last case, and what it was planned from.
    pub(in crate::executor) last: Option<LastView>,
}

/// A view and the command, working folder (`None`: the scratch folder)
/// and writability it was planned from.
pub(in crate::executor) type LastView = (Vec<OsString>, Option<PathBuf>, bool, Arc<View>);

/// Keeps the calling thread (a job slot's worker) on the slot's `cores`,
/// once per thread: the case's process it starts is then there from its
/// fork on, never moved onto them across cores (a move costs more than a
/// small case's whole exec).
pub(in crate::executor) fn keep_thread_to(slot: usize, cores: &[usize]) {
    thread_local! {
        static KEPT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }
    KEPT.with(|kept| {
        if kept.get() != Some(slot) && crate::executor::cgroup::cpus::pin(cores).is_ok() {
            kept.set(Some(slot));
        }
    });
}

/// The waits before each new try of a case that could not start for a
/// moment's want (see [`transient`]).
pub(in crate::executor) const RETRY_WAITS: [std::time::Duration; 4] = [
    std::time::Duration::from_millis(100),
    std::time::Duration::from_secs(1),
    std::time::Duration::from_secs(4),
    std::time::Duration::from_secs(16),
];

/// Whether `result` is a failure to start the case for a moment's want:
/// no process (EAGAIN, a fork bomb's neighbour) or no memory (ENOMEM),
/// the kernel's words or bubblewrap's. Any other failure (a program
/// missing) would fail again.
pub(in crate::executor) fn transient(result: &crate::executor::RunResult) -> bool {
    let crate::executor::Ending::Failed(why) = &result.ending else {
        return false;
    };
    !result.cancelled
        && ["Resource temporarily unavailable", "Cannot allocate memory"]
            .iter()
            .any(|w| why.contains(w))
}

/// `run`'s result, tried again after each of [`RETRY_WAITS`] while it is a
/// failure to start for a moment's want (a neighbour's fork bomb, a
/// moment's memory pressure) and the run goes on; only where the case's
/// budgets are `shared` with others (no cgroup of its own: a limit of its
/// own it went over would be over it again). A sandbox that did not start
/// the candidate for a reason of its own (`unstarted`: bubblewrap's bind
/// raced a mount) is tried once more first, wherever it runs.
pub(in crate::executor) fn with_retries(
    cancel: &crate::cancel::Cancel,
    shared: bool,
    mut run: impl FnMut() -> crate::executor::RunResult,
) -> crate::executor::RunResult {
    let mut result = run();
    if result.unstarted && !result.cancelled && !cancel.is_requested() {
        std::thread::sleep(RETRY_WAITS[0]);
        result = run();
    }
    for wait in RETRY_WAITS.into_iter().filter(|_| shared) {
        if !transient(&result) || cancel.is_requested() {
            break;
        }
        std::thread::sleep(wait);
        result = run();
    }
    result
}

/// A failure pipe whose read end never waits.
pub(in crate::executor) fn failure_pipe()
-> std::io::Result<(std::io::PipeReader, std::io::PipeWriter)> {
    let (r, w) = std::io::pipe()?;
    rustix::io::ioctl_fionbio(&r, true)?;
    Ok((r, w))
}

/// What the last case's process wrote on its failure pipe (nothing, where
/// it started the candidate).
pub(in crate::executor) fn failure_said(reader: &std::io::PipeReader) -> Vec<u8> {
    use std::io::Read;
    let mut said = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n @ 1..) = (&*reader).read(&mut buf) {
        said.extend_from_slice(&buf[..n]);
    }
    said
}

/// Each of `slots` job slots' cores, kept to by a cpuset where `cgroups`
/// can pin them (else by affinity); `level` says which, or why not.
/// (A slot's partner keeps to its slot's: see `Isolated::home`.)
pub(in crate::executor) fn cores(
    slots: usize,
    cgroups: Option<&mut crate::executor::cgroup::Cgroups>,
    level: &mut super::isolate::Level,
) -> Option<Vec<Vec<usize>>> {
    let cpus = crate::executor::cgroup::cpus::allowed();
    match crate::executor::cgroup::cpus::share(&cpus, slots) {
        Ok(shares) => {
            level.cores = Some("cpus");
            if let Some(c) = cgroups {
                match c.pin(&shares) {
                    Ok(()) => level.cores = Some("cpuset"),
                    Err(why) => level.missing.push(format!(
                        "a cpuset per job slot ({why}): each case keeps to its slot's cores by CPU affinity, which a candidate can widen"
                    )),
                }
            }
            Some(shares)
        }
        Err(why) => {
            if slots > 1 {
                level
                    .missing
                    .push(format!("cores of their own per job slot ({why})"));
            }
            None
        }
    }
}

/// Which state and cores each job slot number uses: the run's `slots`,
/// then (where slots have `partners`) each one's partner, slot `k`'s
/// being `slots + k`; `states` kept (one, and one partner, where cases
/// run one at a time).
#[derive(Debug, Clone, Copy)]
pub(in crate::executor) struct Layout {
    /// The run's job slots.
    pub slots: usize,
    /// Whether each has a partner.
    pub partners: bool,
    /// The slots' states kept.
    pub states: usize,
}

impl Layout {
    /// The slot that runs beside `slot`'s cases, where slots have
    /// partners and each has a state of its own (not where cases run one
    /// at a time behind one state: two pairs would each hold one half).
    pub(in crate::executor) fn partner(self, slot: usize) -> Option<usize> {
        let n = self.slots;
        (self.partners && self.states == 2 * n).then_some(slot % n + n)
    }

    /// The state `slot` uses: its own, or (cases one at a time) the one
    /// slot's, or its partner's.
    pub(in crate::executor) fn index(self, slot: usize) -> usize {
        let own = (self.states / if self.partners { 2 } else { 1 }).max(1);
        match slot.checked_sub(self.slots) {
            Some(partner) => (own + partner % own).min(self.states - 1),
            None => slot % own,
        }
    }

    /// The slot whose cores `slot` keeps to (a partner, its slot's).
    pub(in crate::executor) fn home(self, slot: usize) -> usize {
        slot % self.slots
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::{Ending, RunResult};

    #[test]
    fn only_a_moments_want_is_tried_again() {
        let failed =
            |why: &str| RunResult::ended(Ending::Failed(why.into()), std::time::Duration::ZERO);
        assert!(transient(&failed(
            "the sandbox (bwrap) did not start the candidate: bwrap: Can't fork for pid 1: Resource temporarily unavailable"
        )));
        assert!(transient(&failed(
            "cannot start x: Cannot allocate memory (os error 12)"
        )));
        assert!(!transient(&failed(
            "cannot start rubyx: No such file or directory (os error 2)"
        )));
        let mut cancelled = failed("Resource temporarily unavailable");
        cancelled.cancelled = true;
        assert!(!transient(&cancelled));
        let exited = RunResult::ended(Ending::Exited(1), std::time::Duration::ZERO);
        assert!(!transient(&exited));
        let cancel = crate::cancel::Cancel::new();
        let mut tries = 0;
        let end = with_retries(&cancel, true, || {
            tries += 1;
            if tries < 3 {
                failed("Resource temporarily unavailable")
            } else {
                RunResult::ended(Ending::Exited(0), std::time::Duration::ZERO)
            }
        });
        assert_eq!((tries, end.ending), (3, Ending::Exited(0)));
        // A sandbox's own start failure: once more, even with budgets of
        // its own; then it stands.
        let unstarted = || {
            let mut r = failed(
                "the sandbox (bwrap) did not start the candidate: bwrap: Can't bind mount /oldroot/ on /newroot/",
            );
            r.unstarted = true;
            r
        };
        for (fails, want_tries, want) in [(1, 2, Ending::Exited(0)), (5, 2, unstarted().ending)] {
            let mut tries = 0;
            let end = with_retries(&cancel, false, || {
                tries += 1;
                if tries <= fails {
                    unstarted()
                } else {
                    RunResult::ended(Ending::Exited(0), std::time::Duration::ZERO)
                }
            });
            assert_eq!((tries, end.ending), (want_tries, want));
        }
    }

    #[test]
    fn a_partner_has_a_state_and_the_cores_of_its_slot() {
        let two = Layout {
            slots: 2,
            partners: true,
            states: 4,
        };
        assert_eq!(two.partner(1), Some(3));
        assert_eq!((two.index(1), two.index(3), two.home(3)), (1, 3, 1));
        // Cases one at a time: every slot the one state, every partner
        // the other; and no partner where two pairs could deadlock.
        let one = Layout {
            slots: 2,
            partners: true,
            states: 2,
        };
        assert_eq!(one.partner(0), None);
        assert_eq!((one.index(0), one.index(1), one.index(2)), (0, 0, 1));
        let alone = Layout {
            slots: 1,
            partners: true,
            states: 2,
        };
        assert_eq!(alone.partner(0), Some(1));
        assert_eq!((alone.index(0), alone.index(1)), (0, 1));
        let plain = Layout {
            slots: 3,
            partners: false,
            states: 3,
        };
        assert_eq!((plain.partner(0), plain.index(2)), (None, 2));
    }
}
