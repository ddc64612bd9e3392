//! What a case's stderr says of how it ended: a crash in a course's
//! words (a JVM's uncaught exception, whatever its exit status would say).

use crate::executor::{Ending, RunResult};
use crate::outcome::{Row, Verdict};

/// Most characters of a stderr line in a row's detail.
const EXCERPT: usize = 160;

/// A case that exited non-zero with one of `crashes` (a course's words
/// for a crash: a JVM's uncaught exception) on stderr crashed, whatever
/// its exit status would have said: `runtime-error`, the line that says so
/// in the detail (a crash is never "no solution").
pub fn crashed(row: &mut Row, run: &RunResult, crashes: &[String]) {
    if crashes.is_empty() || !matches!(run.ending, Ending::Exited(code) if code != 0) {
        return;
    }
    if !matches!(
        row.verdict,
        Verdict::Accepted | Verdict::WrongAnswer | Verdict::WrongExitStatus
    ) {
        return;
    }
    let text = String::from_utf8_lossy(&run.stderr.bytes);
    let Some(line) = text
        .lines()
        .find(|l| crashes.iter().any(|c| l.contains(c.as_str())))
    else {
        return;
    };
    row.verdict = Verdict::RuntimeError;
    row.moves = None;
    row.detail = format!("crashed: {}", shorten_line(line));
}

/// `line` trimmed, at most [`EXCERPT`] characters, control characters
/// escaped.
fn shorten_line(line: &str) -> String {
    let clean: String = line
        .trim()
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if clean.chars().count() > EXCERPT {
        let cut: String = clean.chars().take(EXCERPT).collect();
        format!("{cut}…")
    } else {
        clean
    }
}
