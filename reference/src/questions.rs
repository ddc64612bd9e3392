//! Function-level questions: assignments where students write functions,
//! not programs (CIS 521's `LightsOutPuzzle`, 15-110's Ruby functions, the
//! Imperial exam's C functions). An adapter (`adapters/`) calls the
//! student's function on a case's puzzle and prints a *transcript*; a
//! question computes the transcript a correct function gives, with the
//! reference model, and compares line by line. Each family lists its
//! questions (its `questions.rs`); their transcripts are documented in
//! `docs/adapters.md`.
//!
//! A question is a [`Grader`], so a course part runs it like any suite.
//! Adapter exit statuses: 0 transcript printed; anything else (3: the
//! student's code raised or crashed) is a runtime error.

use std::path::PathBuf;

use crate::family::{Answer, Case, Check, Grader, Judgement, LoadError, LoadOptions};

/// One question: its name (`family:function`) and how a case loads.
pub struct Question {
    /// `family:function`.
    pub name: &'static str,
    /// The listing forms of its cases (see [`crate::family::Family::LISTING_FORMS`]).
    pub forms: &'static [&'static [&'static str]],
    /// Loads a case: the transcript a correct function gives on it.
    pub load: fn(&[PathBuf]) -> Result<Transcript, LoadError>,
}

impl Grader for Question {
    fn name(&self) -> &'static str {
        self.name
    }

    fn listing_forms(&self) -> &'static [&'static [&'static str]] {
        self.forms
    }

    fn load_with(
        &self,
        files: &[PathBuf],
        _options: &LoadOptions,
    ) -> Result<Box<dyn Case>, LoadError> {
        Ok(Box::new((self.load)(files)?))
    }
}

/// A predicate over a whole transcript: `Err(why)` when it is wrong.
pub type Predicate = Box<dyn Fn(&[&str]) -> Result<(), String> + Send + Sync>;

/// What a correct function's transcript is.
pub enum Transcript {
    /// One of these, line for line (more than one where the handout allows
    /// two readings).
    Exact(Vec<Vec<String>>),
    /// Any transcript the predicate accepts (random functions); `sample`
    /// is one it accepts.
    Judged {
        /// The test.
        test: Predicate,
        /// A transcript that passes.
        sample: String,
    },
}

impl Case for Transcript {
    fn judge(&self, stdout: &[u8], exit_code: i32) -> Judgement {
        let judged = |check, detail: String| Judgement {
            check,
            detail,
            moves: None,
            best_moves: None,
        };
        if exit_code != 0 {
            return judged(
                Check::RuntimeError,
                format!("adapter exit {exit_code}: the function raised or crashed (see stderr)"),
            );
        }
        let text = String::from_utf8_lossy(stdout);
        let mut got: Vec<&str> = text.lines().map(str::trim_end).collect();
        while got.last().is_some_and(|l| l.is_empty()) {
            got.pop();
        }
        let result = match self {
            Transcript::Exact(options) => {
                let mut first_err = None;
                for want in options {
                    match compare(want, &got) {
                        Ok(()) => {
                            first_err = None;
                            break;
                        }
                        Err(e) => {
                            first_err.get_or_insert(e);
                        }
                    }
                }
                first_err.map_or(Ok(()), Err)
            }
            Transcript::Judged { test, .. } => test(&got),
        };
        match result {
            Ok(()) => judged(Check::Accepted, String::new()),
            Err(why) => judged(Check::WrongAnswer, why),
        }
    }

    fn answer(&self) -> Answer {
        let stdout = match self {
            Transcript::Exact(options) => options[0].iter().map(|l| format!("{l}\n")).collect(),
            Transcript::Judged { sample, .. } => sample.clone(),
        };
        Answer {
            stdout,
            stderr: String::new(),
            exit_code: 0,
        }
    }
}

/// The first line where `got` differs from `want`.
pub(crate) fn compare(want: &[String], got: &[&str]) -> Result<(), String> {
    for (i, w) in want.iter().enumerate() {
        match got.get(i) {
            Some(g) if g == w => {}
            Some(g) => return Err(format!("line {}: expected {w:?}, got {g:?}", i + 1)),
            None => {
                return Err(format!(
                    "line {}: expected {w:?}, got the end of the output",
                    i + 1
                ));
            }
        }
    }
    if got.len() > want.len() {
        return Err(format!(
            "line {}: expected the end of the output, got {:?}",
            want.len() + 1,
            got[want.len()]
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_transcripts_name_the_first_wrong_line() {
        let t = Transcript::Exact(vec![vec!["a".into(), "b".into()]]);
        assert_eq!(t.judge(b"a\nb\n\n", 0).check, Check::Accepted);
        assert_eq!(t.judge(b"a  \nb", 0).check, Check::Accepted);
        let j = t.judge(b"a\nc\n", 0);
        assert_eq!(
            (j.check, j.detail.as_str()),
            (Check::WrongAnswer, "line 2: expected \"b\", got \"c\"")
        );
        assert_eq!(
            t.judge(b"a\n", 0).detail,
            "line 2: expected \"b\", got the end of the output"
        );
        assert_eq!(
            t.judge(b"a\nb\nc\n", 0).detail,
            "line 3: expected the end of the output, got \"c\""
        );
        assert_eq!(t.judge(b"a\nb\n", 3).check, Check::RuntimeError);
        assert_eq!(t.answer().stdout, "a\nb\n");
    }
}
