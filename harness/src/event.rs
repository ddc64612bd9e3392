//! What a grading run tells the world, in the past tense: one stream of
//! events from the scheduler to the reporter, and the summary it ends with.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::cancel::StopReason;
use crate::outcome::{Row, Verdict};

/// One thing that happened in a run. Serialized (`--format json`) as one
/// JSON object a line, tagged by `event`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// Discovery is done; `cases` will run (`kept` more were kept from a
    /// scorecard being resumed and do not run again).
    RunStarted {
        /// The candidate's name.
        candidate: String,
        /// Cases to run now.
        cases: usize,
        /// Rows kept from the scorecard being resumed.
        kept: usize,
        /// The expected cost of what runs, in process starts (the ETA's
        /// basis; not in the JSON lines).
        #[serde(skip)]
        cost: f64,
        /// How many of `cases` are builds (a class's; not in the JSON
        /// lines).
        #[serde(skip)]
        builds: usize,
        /// The isolation in force, and what is not available.
        isolation: String,
    },
    /// A case's process was started.
    CaseStarted {
        /// The candidate (a class's submission).
        candidate: String,
        /// The suite.
        suite: String,
        /// The case.
        case: String,
        /// Its expected cost, in process starts (not in the JSON lines).
        #[serde(skip)]
        cost: f64,
    },
    /// A case finished (or could not run); its row is final.
    CaseFinished {
        /// The scorecard row.
        row: Box<Row>,
    },
    /// A case did not finish because the run was stopped; its row has the
    /// verdict `cancelled`.
    CaseCancelled {
        /// The scorecard row.
        row: Box<Row>,
    },
    /// Cases counted by `RunStarted` that will not run after all (those of
    /// a submission that did not build): the run's total is that much
    /// smaller.
    CasesWithdrawn {
        /// How many.
        cases: usize,
        /// Their expected cost, in process starts (not in the JSON lines).
        #[serde(skip)]
        cost: f64,
    },
    /// The run is over.
    RunFinished {
        /// Tallies over every row, kept ones included.
        summary: Summary,
    },
}

/// Tallies for one suite.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct SuiteTally {
    /// Cases per verdict.
    pub verdicts: BTreeMap<Verdict, usize>,
    /// Sum of the cases' wall times.
    #[serde(serialize_with = "seconds")]
    pub wall: Duration,
}

impl SuiteTally {
    /// Cases in all.
    pub fn total(&self) -> usize {
        self.verdicts.values().sum()
    }

    /// Accepted cases.
    pub fn accepted(&self) -> usize {
        self.count(Verdict::Accepted)
    }

    /// Cases with `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.verdicts.get(&verdict).copied().unwrap_or(0)
    }
}

/// Tallies per suite, in suite order, and how the run ended.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Per suite.
    pub suites: BTreeMap<String, SuiteTally>,
    /// Set when the run was stopped before every case finished.
    pub stopped: Option<StopReason>,
    /// Wall time of the whole run.
    #[serde(serialize_with = "seconds")]
    pub elapsed: Duration,
}

impl Summary {
    /// Whether every case was accepted and the run was not stopped.
    pub fn all_accepted(&self) -> bool {
        self.stopped.is_none() && self.suites.values().all(|t| t.accepted() == t.total())
    }

    /// Counts one row.
    pub fn add(&mut self, row: &Row) {
        let t = self.suites.entry(row.suite.clone()).or_default();
        *t.verdicts.entry(row.verdict).or_default() += 1;
        t.wall += Duration::from_secs_f64(row.wall_ms.unwrap_or(0.0).max(0.0) / 1000.0);
    }

    /// Cases in all.
    pub fn total(&self) -> usize {
        self.suites.values().map(SuiteTally::total).sum()
    }

    /// Accepted cases in all.
    pub fn accepted(&self) -> usize {
        self.suites.values().map(SuiteTally::accepted).sum()
    }
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e6).round() / 1e6)
}

/// Events from a pool's workers to the caller's thread, in the order they
/// were posted, handed over in batches: posting wakes no one, and the
/// caller's thread looks every [`Mailbox::TICK`] (or when a worker ends,
/// or a batch is full). A case of a millisecond on every core would
/// otherwise wake the reporter twice a case, on a core a candidate or a
/// worker needs; a row still reaches the scorecard within a tick.
pub struct Mailbox {
    state: std::sync::Mutex<(Vec<Event>, usize)>,
    wake: std::sync::Condvar,
}

impl Mailbox {
    /// How long a posted event may wait for the caller's thread.
    pub const TICK: Duration = Duration::from_millis(10);
    /// Events that wake the caller's thread before its tick.
    pub(crate) const FULL: usize = 512;

    /// A mailbox for `workers` posters, each to call [`Mailbox::close`]
    /// when it is done.
    pub fn new(workers: usize) -> Self {
        Self {
            state: std::sync::Mutex::new((Vec::new(), workers)),
            wake: std::sync::Condvar::new(),
        }
    }

    /// Posts `event`.
    pub fn post(&self, event: Event) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0.push(event);
        if state.0.len() >= Self::FULL {
            self.wake.notify_one();
        }
    }

    /// One poster is done (call it however the poster ends).
    pub fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.1 = state.1.saturating_sub(1);
        self.wake.notify_one();
    }

    /// Hands every event to `each`, in order, until every poster is done
    /// and nothing is left.
    pub fn deliver(&self, each: &mut dyn FnMut(Event)) {
        let mut batch = Vec::new();
        loop {
            let open = {
                let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                if state.0.is_empty() && state.1 > 0 {
                    state = self
                        .wake
                        .wait_timeout(state, Self::TICK)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
                std::mem::swap(&mut state.0, &mut batch);
                state.1
            };
            if batch.is_empty() && open == 0 {
                return;
            }
            for event in batch.drain(..) {
                each(event);
            }
        }
    }
}

/// Closes its mailbox when dropped: a poster that panics is done too.
pub struct Posting<'a>(pub &'a Mailbox);

impl Drop for Posting<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(case: &str) -> Event {
        Event::CaseStarted {
            candidate: "c".into(),
            suite: "s".into(),
            case: case.into(),
            cost: 1.0,
        }
    }

    fn name(e: &Event) -> String {
        match e {
            Event::CaseStarted { case, .. } => case.clone(),
            _ => String::new(),
        }
    }

    /// Every event posted reaches the caller's thread, each poster's in
    /// the order posted, and delivery ends once every poster is done
    /// (one that panics is done too).
    #[test]
    fn a_mailbox_delivers_every_event_in_order_until_its_posters_are_done() {
        let mail = Mailbox::new(3);
        let mut got = Vec::new();
        std::thread::scope(|scope| {
            for p in 0..2 {
                let mail = &mail;
                scope.spawn(move || {
                    let _posting = Posting(mail);
                    for i in 0..(Mailbox::FULL + 7) {
                        mail.post(started(&format!("{p}-{i}")));
                    }
                });
            }
            let mail = &mail;
            let panicked = scope.spawn(move || {
                let _posting = Posting(mail);
                mail.post(started("2-0"));
                panic!("a poster that dies");
            });
            mail.deliver(&mut |e| got.push(name(&e)));
            assert!(panicked.join().is_err());
        });
        assert_eq!(got.len(), 2 * (Mailbox::FULL + 7) + 1);
        for p in 0..2 {
            let mine: Vec<&String> = got
                .iter()
                .filter(|n| n.starts_with(&format!("{p}-")))
                .collect();
            let want: Vec<String> = (0..(Mailbox::FULL + 7))
                .map(|i| format!("{p}-{i}"))
                .collect();
            assert_eq!(mine, want.iter().collect::<Vec<_>>());
        }
        assert!(got.contains(&"2-0".to_string()));
    }
}
