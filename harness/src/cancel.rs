//! Stopping a run: a token the signal handler (or a failing reporter) sets
//! and every worker and running case watches.

use std::sync::atomic::{AtomicU8, Ordering};

use serde::Serialize;

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// SIGINT (Ctrl-C).
    Interrupted,
    /// SIGTERM.
    Terminated,
    /// A report could not be written (say, a full disk).
    ReportFailed,
}

/// How hard to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Urgency {
    /// Keep going.
    None,
    /// Start no case; stop running ones with SIGTERM, the grace, SIGKILL.
    Graceful,
    /// Start no case; SIGKILL running ones now.
    Now,
}

/// Shared by the scheduler, the executors and whoever asks for a stop.
#[derive(Debug, Default)]
pub struct Cancel {
    urgency: AtomicU8,
    reason: AtomicU8,
}

impl Cancel {
    /// A token nobody has set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the run to stop: the first call is graceful (and its reason
    /// sticks), a second one is urgent, as a second Ctrl-C.
    pub fn request(&self, reason: StopReason) {
        let _ = self.reason.compare_exchange(
            0,
            reason_code(reason),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        let _ = self
            .urgency
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| Some((u + 1).min(2)));
    }

    /// Asks the run to stop at once (SIGKILL to running cases).
    pub fn request_now(&self, reason: StopReason) {
        let _ = self.reason.compare_exchange(
            0,
            reason_code(reason),
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        self.urgency.store(2, Ordering::SeqCst);
    }

    /// How hard the run is being stopped.
    pub fn urgency(&self) -> Urgency {
        match self.urgency.load(Ordering::SeqCst) {
            0 => Urgency::None,
            1 => Urgency::Graceful,
            _ => Urgency::Now,
        }
    }

    /// Whether a stop was asked for.
    pub fn is_requested(&self) -> bool {
        self.urgency() != Urgency::None
    }

    /// Why the run is stopping, if it is.
    pub fn reason(&self) -> Option<StopReason> {
        match self.reason.load(Ordering::SeqCst) {
            1 => Some(StopReason::Interrupted),
            2 => Some(StopReason::Terminated),
            3 => Some(StopReason::ReportFailed),
            _ => None,
        }
    }
}

fn reason_code(reason: StopReason) -> u8 {
    match reason {
        StopReason::Interrupted => 1,
        StopReason::Terminated => 2,
        StopReason::ReportFailed => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_request_is_graceful_and_its_reason_sticks() {
        let c = Cancel::new();
        assert_eq!((c.urgency(), c.reason()), (Urgency::None, None));
        c.request(StopReason::Terminated);
        assert_eq!(c.urgency(), Urgency::Graceful);
        c.request(StopReason::Interrupted);
        assert_eq!(
            (c.urgency(), c.reason()),
            (Urgency::Now, Some(StopReason::Terminated))
        );
        c.request(StopReason::Interrupted);
        assert_eq!(c.urgency(), Urgency::Now);
    }
}
