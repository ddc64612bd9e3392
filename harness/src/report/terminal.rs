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
use crate::cancel::StopReason;
use crate::event::{Event, Summary};
use crate::job::BUILD;
use crate::outcome::{Row, Verdict};

/// What runs now: (candidate, suite, case), since when, and its expected
/// cost.
type Running = Arc<Mutex<Vec<((String, String, String), Instant, f64)>>>;

/// The ETA's basis: the run's expected cost and what of it is done; the
/// kind of job running now (builds or cases), since when, the expected
/// cost of that kind finished since, and when the last finished.
#[derive(Default)]
struct Pace {
    /// Expected cost of the run (less what was withdrawn).
    total: f64,
    /// Expected cost of the jobs finished.
    finished: f64,
    builds: bool,
    since: Option<Instant>,
    done: f64,
    last: Option<Instant>,
}

impl Pace {
    /// The time left for what is not finished, at the pace of the last
    /// finish, counting down since, where it has a basis; never 0 while
    /// a job is left (`left`: how many).
    fn eta(&self, left: u64, now: Instant) -> Option<Duration> {
        let (since, last) = (self.since?, self.last?);
        if self.done <= 0.0 {
            return None;
        }
        let each = last.saturating_duration_since(since).as_secs_f64() / self.done;
        let waited = now.saturating_duration_since(last).as_secs_f64();
        let secs = each * (self.total - self.finished).max(0.0) - waited;
        Some(Duration::from_secs_f64(secs.max(if left > 0 {
            1.0
        } else {
            0.0
        })))
    }

    /// A new kind of job started at `now`: the pace starts again.
    fn start(&mut self, builds: bool, now: Instant) {
        self.builds = builds;
        self.since = Some(now);
        self.done = 0.0;
        self.last = None;
    }
}

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
    pace: Arc<Mutex<Pace>>,
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
        let pace: Arc<Mutex<Pace>> = Arc::default();
        let paced = Arc::clone(&pace);
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
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let left = state.len().unwrap_or(0).saturating_sub(state.pos());
                    let eta = paced.lock().ok().and_then(|p| p.eta(left, Instant::now()));
                    let _ = w.write_str(&eta.map_or_else(|| "--".into(), short));
                },
            ),
        );
        Self {
            bar,
            start: Instant::now(),
            label: label.into(),
            cancelled: 0,
            running,
            pace,
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
        let mut ran = None;
        if let Ok(mut running) = self.running.lock()
            && let Some(i) = running.iter().position(|((c, s, k), _, _)| {
                c == &row.candidate && s == &row.suite && k == &row.case
            })
        {
            ran = Some(running.remove(i).2);
        }
        // (A row that never ran, taken from a store, sets no pace; it was
        // counted as one start.)
        if let Ok(mut pace) = self.pace.lock() {
            pace.finished += ran.unwrap_or(1.0);
            if let Some(cost) = ran
                && pace.builds == (row.suite == BUILD)
            {
                pace.done += cost;
                pace.last = Some(Instant::now());
            }
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
                ..
            } => {
                if let Ok(mut pace) = self.pace.lock() {
                    pace.total = *cost;
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
                // A new kind of job (a class's cases after its builds):
                // the pace starts again.
                let build = suite == BUILD;
                if let Ok(mut pace) = self.pace.lock()
                    && (pace.since.is_none() || pace.builds != build)
                {
                    pace.start(build, now);
                }
            }
            Event::CasesWithdrawn { cases, cost } => {
                let len = self.bar.length().unwrap_or(0);
                self.bar.set_length(len.saturating_sub(*cases as u64));
                if let Ok(mut pace) = self.pace.lock() {
                    pace.total -= cost;
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

    /// Three cases expected to cost 1, 1 and 8 process starts (the last a
    /// big puzzle): after the first took 2 s, 9 units are left at 2 s a
    /// unit, 18 s (counting cases, 4 s); 1 s later, 17 s; no basis before
    /// a case finished; at least 1 s while a case is left.
    #[test]
    fn the_eta_weighs_what_is_left_by_its_expected_cost() {
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let mut pace = Pace {
            total: 10.0,
            ..Pace::default()
        };
        pace.start(false, start);
        assert_eq!(pace.eta(3, at(1)), None, "no basis yet");
        pace.finished += 1.0;
        pace.done += 1.0;
        pace.last = Some(at(2));
        assert_eq!(pace.eta(2, at(2)), Some(Duration::from_secs(18)));
        assert_eq!(pace.eta(2, at(3)), Some(Duration::from_secs(17)));
        assert_eq!(pace.eta(2, at(60)), Some(Duration::from_secs(1)));
        pace.finished = 10.0;
        assert_eq!(pace.eta(0, at(60)), Some(Duration::ZERO));
        // A new kind (a class's cases after its builds) starts again.
        pace.start(true, at(61));
        assert_eq!(pace.eta(1, at(62)), None);
    }
}
