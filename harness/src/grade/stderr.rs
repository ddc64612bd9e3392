//! What a case's stderr says of how it ended: the line that names the
//! error, and a crash in a course's words (a JVM's uncaught exception,
//! whatever its exit status would say).

use crate::executor::{Ending, RunResult};
use crate::outcome::{Row, Verdict};

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
    row.detail = format!("crashed: {}", excerpt(line.trim()));
}

/// The last line of the case's stderr holding one of `notes` (a course's
/// `notes`), kept in the row's detail as `note: LINE` whatever the verdict.
pub fn noted(row: &mut Row, run: &RunResult, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(&run.stderr.bytes);
    if let Some(line) = text
        .lines()
        .rfind(|l| notes.iter().any(|n| l.contains(n.as_str())))
    {
        super::append(&mut row.detail, &format!("note: {}", excerpt(line.trim())));
    }
}

/// Most characters of a stderr excerpt in a row's detail.
const EXCERPT: usize = 160;

/// The line of `stderr` that says what went wrong: the last that names an
/// error or exception (a Python traceback ends with it, a Ruby one starts
/// with it, valgrind's summary is one), else the last; valgrind's `==PID==`
/// prefix dropped; at most [`EXCERPT`] characters, control characters
/// escaped (a candidate's bytes never reach a terminal or a report raw).
pub(super) fn last_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            let l = l.trim();
            match l.strip_prefix("==").and_then(|r| r.split_once("==")) {
                Some((pid, rest)) if pid.bytes().all(|b| b.is_ascii_digit()) => rest.trim(),
                _ => l,
            }
        })
        .filter(|l| !l.is_empty())
        .collect();
    let names_it = |l: &&&str| {
        ["rror", "xception", "ERROR", "panicked"]
            .iter()
            .any(|w| l.contains(w))
    };
    let line = lines.iter().rfind(names_it).or(lines.last())?;
    Some(excerpt(line))
}

/// `line`, at most [`EXCERPT`] characters, control characters escaped
/// (a candidate's bytes never reach a terminal or a report raw).
fn excerpt(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if out.chars().count() >= EXCERPT {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_excerpts_are_the_last_line_bounded_and_escaped() {
        assert_eq!(last_line(b""), None);
        assert_eq!(last_line(b"\n  \n"), None);
        assert_eq!(
            last_line(b"Traceback (most recent call last):\n  x\nValueError: bad board\n\n")
                .as_deref(),
            Some("ValueError: bad board")
        );
        assert_eq!(
            last_line(b"a\x1b[2Jb\x07").as_deref(),
            Some("a\\u{1b}[2Jb\\u{7}")
        );
        let long = last_line(&[b'x'; 500]).unwrap();
        assert_eq!(long.len(), EXCERPT + 3);
        assert!(long.ends_with("..."));
    }
}
