//! The terminal: a progress bar on stderr (hidden when stderr is not a
//! terminal), one line per case not accepted, and a summary per suite.

use std::io::Write;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use super::Sink;
use crate::cancel::StopReason;
use crate::event::{Event, Summary};
use crate::outcome::{Row, Verdict};

/// Progress and summaries for people.
pub struct Terminal {
    bar: ProgressBar,
    start: Instant,
    label: String,
    cancelled: usize,
}

impl Terminal {
    /// A terminal reporter for candidate `label`.
    pub fn new(label: &str) -> Self {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} cases  {elapsed}  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Self {
            bar,
            start: Instant::now(),
            label: label.into(),
            cancelled: 0,
        }
    }

    fn row(&mut self, row: &Row) {
        self.bar.inc(1);
        if row.verdict == Verdict::Cancelled {
            self.cancelled += 1;
            return;
        }
        if row.verdict != Verdict::Accepted {
            let line = format!(
                "{:>17}  {}/{}: {}",
                row.verdict, row.suite, row.case, row.detail
            );
            // A closed stdout (`| head`) must not stop the grading: the
            // scorecard is the record, so printing errors are ignored.
            self.bar.suspend(|| {
                let _ = writeln!(std::io::stdout(), "{line}");
            });
        }
    }
}

impl Sink for Terminal {
    fn event(&mut self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::RunStarted {
                cases,
                kept,
                isolation,
                ..
            } => {
                self.bar.set_length(*cases as u64);
                self.bar.suspend(|| eprintln!("{isolation}"));
                if *kept > 0 {
                    self.bar.suspend(|| {
                        eprintln!(
                            "resuming: {kept} case(s) kept from the scorecard, {cases} to run"
                        );
                    });
                }
            }
            Event::CaseStarted { .. } => {}
            Event::CaseFinished { row } | Event::CaseCancelled { row } => self.row(row),
            Event::RunFinished { summary } => {
                self.bar.finish_and_clear();
                let _ = self.print_summary(summary);
            }
        }
        Ok(())
    }
}

impl Terminal {
    fn print_summary(&self, summary: &Summary) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        let (mut accepted, mut total) = (0, 0);
        for (suite, t) in &summary.suites {
            let others: Vec<String> = t
                .verdicts
                .iter()
                .filter(|(v, _)| **v != Verdict::Accepted)
                .map(|(v, n)| format!("{n} {v}"))
                .collect();
            let others = if others.is_empty() {
                String::new()
            } else {
                format!(" ({})", others.join(", "))
            };
            writeln!(
                out,
                "{suite}: {}/{} accepted{others}, {:.2} s of candidate time",
                t.accepted(),
                t.total(),
                t.wall.as_secs_f64()
            )?;
            accepted += t.accepted();
            total += t.total();
        }
        writeln!(
            out,
            "{}: {accepted}/{total} accepted in {:.2} s",
            self.label,
            self.start.elapsed().as_secs_f64()
        )?;
        if let Some(reason) = summary.stopped {
            let why = match reason {
                StopReason::Interrupted => "interrupted (SIGINT)",
                StopReason::Terminated => "terminated (SIGTERM)",
                StopReason::ReportFailed => "stopped: a report could not be written",
            };
            writeln!(
                out,
                "{why}: {} case(s) cancelled; `--resume` runs them",
                self.cancelled
            )?;
        }
        Ok(())
    }
}
