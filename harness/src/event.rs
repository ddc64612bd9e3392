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
