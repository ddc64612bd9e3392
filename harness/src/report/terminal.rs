//! The terminal: a progress bar on stderr (hidden when stderr is not a
//! terminal, and until the run knows its cases) that ticks on its own
//! (elapsed, ETA, and the cases running now with their time so far, a
//! class's builds by submission), one line per case not accepted, and a
//! summary per suite. The ETA is shown once it has a basis: the expected
//! cost of what is left (each case's, as the sharding weighs it: a
//! process start plus its puzzle's size) at the pace measured on the
//! cases of the kind running now (a class's builds, then its cases), time
//! since the first of them started over the expected cost of those
//! finished; never 0 before the end.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use super::Sink;
use super::eta::{Eta, Left};
use crate::cancel::StopReason;
use crate::event::{Event, Summary};
use crate::job::BUILD;
use crate::outcome::{Row, Verdict};

/// What runs now: (candidate, suite, case), since when, and its expected
/// cost.
type Running = Arc<Mutex<Vec<((String, String, String), Instant, f64)>>>;

/// `5s`, `2m 05s`, `1h 02m`.
fn short(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

/// Progress and summaries for people.
pub struct Terminal {
    bar: ProgressBar,
    start: Instant,
    label: String,
    cancelled: usize,
    running: Running,
    eta: Arc<Mutex<Eta>>,
    /// Lines per case and the summary (off where the run's own table is
    /// its summary: a contest's leaderboard).
    lines: bool,
    /// How a failing case is said, where not by its verdict and detail.
    words: Option<Box<dyn Words>>,
}

/// How a student is told what failed: a row, and a verdict in the
/// tallies, in words.
pub trait Words: Send + Sync {
    /// Why `row` failed.
    fn row(&self, row: &Row) -> String;
    /// `verdict` as a word.
    fn verdict(&self, verdict: Verdict) -> String;
}

/// How often the bar redraws when nothing finishes.
const TICK: Duration = Duration::from_millis(250);

/// Most characters of the running cases' line (the bar's second line).
const RUNNING_WIDTH: usize = 76;

impl Terminal {
    /// A terminal reporter for candidate `label`.
    pub fn new(label: &str) -> Self {
        let running: Running = Arc::default();
        let shown = Arc::clone(&running);
        let own = label.to_string();
        let eta: Arc<Mutex<Eta>> = Arc::default();
        let measured = Arc::clone(&eta);
        // Drawn once the run knows its cases (no full bar at 0/0).
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} cases  {elapsed} elapsed, ETA {left}\n{running}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "running",
                move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&running_line(&shown, &own, Instant::now()));
                },
            )
            .with_key(
                "left",
                move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let left = measured.lock().ok().and_then(|e| e.left(Instant::now()));
                    let _ = w.write_str(&match left {
                        None => "--".into(),
                        Some(Left::About(d)) => short(d),
                        Some(Left::AtLeast(d)) => format!("{}+", short(d)),
                    });
                },
            ),
        );
        Self {
            bar,
            start: Instant::now(),
            label: label.into(),
            cancelled: 0,
            running,
            eta,
            lines: true,
            words: None,
        }
    }

    /// Each failing case said in `words` (a student's view: what went
    /// wrong in the course's words, no verdict names).
    pub fn in_words(self, words: Box<dyn Words>) -> Self {
        Self {
            words: Some(words),
            ..self
        }
    }

    /// Progress only: the bar and the isolation line, no line per case and
    /// no summary (a contest, whose leaderboard table is its summary and
    /// may hide the entries' names).
    pub fn progress(label: &str) -> Self {
        Self {
            lines: false,
            ..Self::new(label)
        }
    }

    fn row(&mut self, row: &Row) {
        if let Ok(mut running) = self.running.lock()
            && let Some(i) = running.iter().position(|((c, s, k), _, _)| {
                c == &row.candidate && s == &row.suite && k == &row.case
            })
        {
            running.remove(i);
        }
        if let Ok(mut eta) = self.eta.lock() {
            let key = (row.suite.clone(), row.case.clone());
            eta.finished(&row.candidate, &key, row.suite == BUILD, Instant::now());
        }
        self.bar.inc(1);
        if row.verdict == Verdict::Cancelled {
            self.cancelled += 1;
            return;
        }
        if self.lines && row.verdict != Verdict::Accepted {
            let line = match &self.words {
                Some(words) => format!("  {}/{}: {}", row.suite, row.case, words.row(row)),
                None => format!(
                    "{:>17}  {}/{}: {}",
                    row.verdict, row.suite, row.case, row.detail
                ),
            };
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
                cost,
                builds,
                ..
            } => {
                if let Ok(mut eta) = self.eta.lock() {
                    eta.planned(*cases, *builds, *cost);
                }
                self.bar.set_length(*cases as u64);
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
                self.bar.enable_steady_tick(TICK);
                self.bar.suspend(|| eprintln!("{isolation}"));
                if *kept > 0 {
                    self.bar.suspend(|| {
                        eprintln!(
                            "resuming: {kept} case(s) kept from the scorecard, {cases} to run"
                        );
                    });
                }
            }
            Event::CaseStarted {
                candidate,
                suite,
                case,
                cost,
            } => {
                let now = Instant::now();
                if let Ok(mut running) = self.running.lock() {
                    running.push(((candidate.clone(), suite.clone(), case.clone()), now, *cost));
                }
                if let Ok(mut eta) = self.eta.lock() {
                    let key = (suite.clone(), case.clone());
                    eta.started(candidate, key, suite == BUILD, *cost, now);
                }
            }
            Event::CasesWithdrawn { cases, cost } => {
                let len = self.bar.length().unwrap_or(0);
                self.bar.set_length(len.saturating_sub(*cases as u64));
                if let Ok(mut eta) = self.eta.lock() {
                    eta.withdrawn(*cases, *cost);
                }
            }
            Event::CaseFinished { row } | Event::CaseCancelled { row } => self.row(row),
            Event::RunFinished { summary } => {
                self.bar.finish_and_clear();
                if self.lines {
                    let _ = self.print_summary(summary);
                }
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
                .map(|(v, n)| match &self.words {
                    Some(words) => format!("{n} {}", words.verdict(*v)),
                    None => format!("{n} {v}"),
                })
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

/// The cases running at `now`, longest first, as nextest shows slow tests:
/// `running: alice: solver/hard/klotski 12s, building bob 3s, +2 more`
/// (a case of the run's own candidate without its name).
fn running_line(running: &Running, own: &str, now: Instant) -> String {
    let Ok(running) = running.lock() else {
        return String::new();
    };
    if running.is_empty() {
        return String::new();
    }
    let mut by_age: Vec<_> = running.iter().collect();
    by_age.sort_by_key(|(_, since, _)| *since);
    let mut line = String::from("running:");
    let mut shown = 0;
    for ((candidate, suite, case), since, _) in &by_age {
        let what = if suite == BUILD {
            format!("building {candidate}")
        } else if candidate == own {
            format!("{suite}/{case}")
        } else {
            format!("{candidate}: {suite}/{case}")
        };
        let item = format!(
            " {what} {}s",
            now.saturating_duration_since(*since).as_secs()
        );
        if shown > 0 && line.len() + item.len() > RUNNING_WIDTH {
            break;
        }
        if shown > 0 {
            line.push(',');
        }
        line.push_str(&item);
        shown += 1;
    }
    if shown < by_age.len() {
        line.push_str(&format!(", +{} more", by_age.len() - shown));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_line_shows_the_longest_first_and_builds_by_submission() {
        let now = Instant::now();
        let ago = |s: u64| now - Duration::from_secs(s);
        let key = |c: &str, s: &str, k: &str| (c.to_string(), s.to_string(), k.to_string());
        let running: Running = Arc::new(Mutex::new(vec![
            (key("course", "easy", "a.txt"), ago(1), 1.0),
            (key("bob", BUILD, BUILD), ago(3), 1.0),
            (key("alice", "solver/hard", "klotski"), ago(12), 1.0),
        ]));
        assert_eq!(
            running_line(&running, "course", now),
            "running: alice: solver/hard/klotski 12s, building bob 3s, easy/a.txt 1s"
        );
        let many: Running = Arc::new(Mutex::new(
            (0..9)
                .map(|i| (key("c", "suite", &format!("case-{i}.txt")), ago(9 - i), 1.0))
                .collect(),
        ));
        let line = running_line(&many, "c", now);
        assert!(line.starts_with("running: suite/case-0.txt 9s, "), "{line}");
        assert!(
            line.ends_with(" more") && line.len() < RUNNING_WIDTH + 12,
            "{line}"
        );
        assert_eq!(running_line(&Arc::default(), "c", now), "");
    }
}
