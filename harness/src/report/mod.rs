//! Reporting: the scheduler's events go, in order, to one reporter on the
//! caller's thread, which hands each to every [`Sink`]: the terminal (or
//! JSON lines), the CSV scorecard and the exporters.

mod eta;
mod hiding;
mod jsonl;
mod leaderboard;
mod scorecard;
mod terminal;

pub use hiding::{Hidden, Hiding};
pub use jsonl::JsonLines;
pub use leaderboard::{Spreads, details_path, is_leaderboard, read_leaderboard, read_spreads};
pub use scorecard::{Kept, Mode, Scorecard, read as read_scorecard};
pub use terminal::{Terminal, Words};

use crate::event::Event;
use crate::outcome::Row;

/// The rows of a scorecard, or of a contest leaderboard (one row per
/// entry and case, its median time as the wall and CPU time).
pub fn read_rows(path: &std::path::Path) -> anyhow::Result<Vec<Row>> {
    use anyhow::Context;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    if is_leaderboard(text.as_bytes()) {
        return read_leaderboard(&text).with_context(|| format!("leaderboard {}", path.display()));
    }
    read_scorecard(path)
}

/// Something that consumes the event stream.
pub trait Sink {
    /// Takes one event. An error (say, a full disk) stops the run: grading
    /// on without a record would waste everyone's time.
    fn event(&mut self, event: &Event) -> anyhow::Result<()>;
}

/// Fans events out to its sinks; remembers the first error.
#[derive(Default)]
pub struct Reporter {
    sinks: Vec<Box<dyn Sink>>,
    error: Option<anyhow::Error>,
}

impl Reporter {
    /// A reporter over `sinks`, in the order given.
    pub fn new(sinks: Vec<Box<dyn Sink>>) -> Self {
        Self { sinks, error: None }
    }

    /// Hands `event` to every sink (all of them, even after one fails).
    /// Returns whether every sink took it.
    pub fn event(&mut self, event: &Event) -> bool {
        let mut ok = true;
        for sink in &mut self.sinks {
            if let Err(e) = sink.event(event) {
                ok = false;
                self.error.get_or_insert(e);
            }
        }
        ok
    }

    /// The first error any sink had.
    pub fn into_error(self) -> Option<anyhow::Error> {
        self.error
    }
}
