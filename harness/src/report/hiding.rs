//! What students see: a sink in front of another that passes on every
//! event but those of the cases a rule hides (a course's items that are
//! not `visible`, on a platform that shows its log or its test report to
//! the student), with the run's tallies made anew from the cases shown.

use std::sync::Arc;

use super::Sink;
use crate::event::{Event, Summary};

/// Whether a case (`suite`, `case`) is hidden.
pub type Hidden = Arc<dyn Fn(&str, &str) -> bool + Send + Sync>;

/// Passes events on to `inner`, but none of a hidden case.
pub struct Hiding {
    inner: Box<dyn Sink>,
    hidden: Hidden,
    shown: Summary,
}

impl Hiding {
    /// `inner`, seeing nothing of the cases `hidden` names.
    pub fn new(inner: Box<dyn Sink>, hidden: Hidden) -> Self {
        Self {
            inner,
            hidden,
            shown: Summary::default(),
        }
    }
}

impl Sink for Hiding {
    fn event(&mut self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::RunStarted { isolation, .. } => {
                self.shown = Summary::default();
                let mut event = event.clone();
                if let Event::RunStarted {
                    isolation: shown, ..
                } = &mut event
                {
                    *shown = plain(isolation);
                }
                self.inner.event(&event)
            }
            Event::CaseStarted { suite, case, .. } if (self.hidden)(suite, case) => Ok(()),
            Event::CaseFinished { row } | Event::CaseCancelled { row }
                if (self.hidden)(&row.suite, &row.case) =>
            {
                Ok(())
            }
            Event::CaseFinished { row } | Event::CaseCancelled { row } => {
                self.shown.add(row);
                self.inner.event(event)
            }
            Event::RunFinished { summary } => {
                let summary = Summary {
                    stopped: summary.stopped,
                    elapsed: summary.elapsed,
                    ..self.shown.clone()
                };
                self.inner.event(&Event::RunFinished { summary })
            }
            Event::CaseStarted { .. } | Event::CasesWithdrawn { .. } => self.inner.event(event),
        }
    }
}

/// The run's isolation line (`isolation: LABEL; not available: ...`, the
/// staff's) as one short sentence for students.
fn plain(isolation: &str) -> String {
    let label = isolation
        .strip_prefix("isolation: ")
        .unwrap_or(isolation)
        .split("; ")
        .next()
        .unwrap_or_default();
    if label.starts_with("none") {
        "Each case ran as a process of its own.".into()
    } else {
        format!("Each case ran isolated from the others and from the grader ({label}).")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Row, Verdict};
    use std::sync::Mutex;

    /// Keeps what it is given.
    struct Seen(Arc<Mutex<Vec<Event>>>);

    impl Sink for Seen {
        fn event(&mut self, event: &Event) -> anyhow::Result<()> {
            self.0.lock().unwrap().push(event.clone());
            Ok(())
        }
    }

    #[test]
    fn hidden_cases_leave_no_trace_not_even_in_the_tallies() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut hiding = Hiding::new(
            Box::new(Seen(Arc::clone(&seen))),
            Arc::new(|suite: &str, _: &str| suite.starts_with("secret")),
        );
        let row = |suite: &str, verdict| {
            let mut r = Row::new("ada", "toy", suite, "a");
            r.verdict = verdict;
            Box::new(r)
        };
        let mut all = Summary::default();
        for (suite, verdict) in [
            ("open", Verdict::Accepted),
            ("secret/x", Verdict::WrongAnswer),
        ] {
            let row = row(suite, verdict);
            all.add(&row);
            hiding
                .event(&Event::CaseStarted {
                    candidate: "ada".into(),
                    suite: suite.into(),
                    case: "a".into(),
                    cost: 1.0,
                })
                .unwrap();
            hiding.event(&Event::CaseFinished { row }).unwrap();
        }
        hiding.event(&Event::RunFinished { summary: all }).unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3, "{seen:?}");
        let Event::RunFinished { summary } = &seen[2] else {
            panic!("{seen:?}")
        };
        assert_eq!(summary.suites.keys().collect::<Vec<_>>(), ["open"]);
        assert!(summary.all_accepted());
    }
}
