//! Reporting: workers send events over a channel to one reporter thread,
//! which owns the terminal and the scorecard and hands every row to each
//! [`Sink`] as it arrives (the CSV is flushed after every row, so a crash
//! loses nothing).

mod scorecard;
mod terminal;

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;
use std::time::Duration;

pub use scorecard::CsvScorecard;
pub use terminal::Terminal;

use crate::outcome::{Row, Verdict};

/// What workers tell the reporter.
pub enum Event {
    /// A case finished (or could not run); its row is final.
    CaseFinished(Box<Row>),
}

/// Something that consumes rows as they come.
pub trait Sink {
    /// Takes one finished row.
    fn row(&mut self, row: &Row) -> anyhow::Result<()>;
    /// Called once after the last row, with the per-suite tallies.
    fn finish(&mut self, summary: &Summary) -> anyhow::Result<()>;
}

/// Tallies for one suite.
#[derive(Debug, Default, Clone)]
pub struct SuiteTally {
    /// Cases per verdict.
    pub verdicts: BTreeMap<Verdict, usize>,
    /// Sum of the cases' wall times.
    pub wall: Duration,
}

impl SuiteTally {
    /// Cases in all.
    pub fn total(&self) -> usize {
        self.verdicts.values().sum()
    }

    /// Accepted cases.
    pub fn accepted(&self) -> usize {
        self.verdicts.get(&Verdict::Accepted).copied().unwrap_or(0)
    }
}

/// Tallies per suite, in suite order.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Per suite.
    pub suites: BTreeMap<String, SuiteTally>,
}

impl Summary {
    /// Whether every case was accepted.
    pub fn all_accepted(&self) -> bool {
        self.suites.values().all(|t| t.accepted() == t.total())
    }

    fn add(&mut self, row: &Row) {
        let t = self.suites.entry(row.suite.clone()).or_default();
        *t.verdicts.entry(row.verdict).or_default() += 1;
        t.wall += Duration::from_secs_f64(row.wall_ms.unwrap_or(0.0) / 1000.0);
    }
}

/// Runs the reporter loop until every sender is gone: every row to every
/// sink, then `finish`. Returns the summary. A sink error (say, a full
/// disk) stops the run: we would otherwise grade without a record.
pub fn report(events: Receiver<Event>, sinks: &mut [&mut dyn Sink]) -> anyhow::Result<Summary> {
    let mut summary = Summary::default();
    for event in events {
        match event {
            Event::CaseFinished(row) => {
                summary.add(&row);
                for sink in sinks.iter_mut() {
                    sink.row(&row)?;
                }
            }
        }
    }
    for sink in sinks.iter_mut() {
        sink.finish(&summary)?;
    }
    Ok(summary)
}
