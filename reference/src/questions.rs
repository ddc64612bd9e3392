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
    /// A transcript, and the one the handout's empty stub prints through
    /// the adapter (a `bool` function's `false`, a `void` one's nothing
    /// done): see [`Case::stubs`].
    Stubbed {
        /// What a correct function prints.
        of: Box<Transcript>,
        /// What the stub prints.
        stub: Vec<String>,
    },
}

impl Transcript {
    /// This transcript with what the handout's empty stub prints.
    pub fn with_stub(self, stub: Vec<String>) -> Transcript {
        Transcript::Stubbed {
            of: Box::new(self),
            stub,
        }
    }
}

/// The detail of an adapter that exited `exit_code` (not 0): the function
/// raised or crashed. One function writes it, and what reads it (a
/// platform's words for students) takes it apart by the same.
pub fn raised(exit_code: i32) -> String {
    format!("adapter exit {exit_code}: the function raised or crashed (see stderr)")
}

fn lines(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
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
            return judged(Check::RuntimeError, raised(exit_code));
        }
        let text = String::from_utf8_lossy(stdout);
        let (got, labels) = Labels::split(&text);
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
                            first_err
                                .get_or_insert_with(|| labels.explain(want, &got).unwrap_or(e));
                        }
                    }
                }
                first_err.map_or(Ok(()), Err)
            }
            Transcript::Judged { test, .. } => test(&got),
            Transcript::Stubbed { of, .. } => return of.judge(stdout, exit_code),
        };
        match result {
            Ok(()) => judged(Check::Accepted, String::new()),
            Err(why) => judged(Check::WrongAnswer, why),
        }
    }

    fn answer(&self) -> Answer {
        let stdout = match self {
            Transcript::Exact(options) => lines(&options[0]),
            Transcript::Judged { sample, .. } => sample.clone(),
            Transcript::Stubbed { of, .. } => return of.answer(),
        };
        Answer {
            stdout,
            stderr: String::new(),
            exit_code: 0,
        }
    }

    fn stubs(&self) -> Vec<Answer> {
        match self {
            Transcript::Stubbed { stub, .. } => vec![Answer {
                stdout: lines(stub),
                stderr: String::new(),
                exit_code: 0,
            }],
            _ => Vec::new(),
        }
    }
}

/// What an adapter says about its transcript in the assignment's own
/// terms, on lines of their own that are not compared: `@ TEXT` starts a
/// section (the call as the handout writes it: `@ perform_move(1, 1)
/// left`), `@input LITERAL` is the case's puzzle as the student's code
/// sees it, `@values python|ruby` how boards and booleans are written.
/// A wrong line is then explained as `perform_move(1, 1) left [[...]],
/// expected [[...]] (the board: [[...]])`.
#[derive(Default)]
struct Labels {
    /// (index in the compared lines where a section starts, its text).
    sections: Vec<(usize, String)>,
    input: Option<String>,
    values: Option<String>,
}

impl Labels {
    /// The compared lines (trailing spaces and blank last lines dropped)
    /// and the labels among them.
    fn split(text: &str) -> (Vec<&str>, Labels) {
        let mut got = Vec::new();
        let mut labels = Labels::default();
        for line in text.lines().map(str::trim_end) {
            if let Some(t) = line.strip_prefix("@ ") {
                labels.sections.push((got.len(), t.to_string()));
            } else if let Some(t) = line.strip_prefix("@input ") {
                labels.input = Some(t.to_string());
            } else if let Some(t) = line.strip_prefix("@values ") {
                labels.values = Some(t.to_string());
            } else {
                got.push(line);
            }
        }
        while got.last().is_some_and(|l| l.is_empty()) {
            got.pop();
        }
        (got, labels)
    }

    /// The first wrong line's section, in the assignment's terms: `None`
    /// without labels, or where the wrong line is not a value of the
    /// section (a move header, say).
    fn explain(&self, want: &[String], got: &[&str]) -> Option<String> {
        let i = want
            .iter()
            .zip(got)
            .position(|(w, g)| w != g)
            .unwrap_or(want.len().min(got.len()));
        let s = self.sections.iter().rposition(|(at, _)| *at <= i)?;
        let (start, text) = &self.sections[s];
        let end = self.sections.get(s + 1).map_or(usize::MAX, |(at, _)| *at);
        let slice = |lines: Vec<&str>| -> Vec<String> {
            let mut v: Vec<String> = lines
                .into_iter()
                .skip(*start)
                .take(end.saturating_sub(*start))
                .map(str::to_string)
                .collect();
            // A header before the value (the move of a successor): the
            // value is what follows it.
            if v.len() > 1 && !is_row(&v[0]) && v[1..].iter().all(|l| is_row(l)) {
                v.remove(0);
            }
            v
        };
        let want_part = slice(want.iter().map(String::as_str).collect());
        let got_part = slice(got.to_vec());
        let header = want.len().saturating_sub(*start).min(end - start) > want_part.len();
        if header && i == *start {
            return None;
        }
        if want_part.is_empty() || !(want_part.iter().all(|l| is_row(l)) || want_part.len() == 1) {
            return None;
        }
        // The labels and the value given are the adapter's output, where
        // the student's code could write too: each part is bounded.
        let mut out = format!(
            "{} {}, expected {}",
            clip(text),
            clip(&self.value(&got_part)),
            self.value(&want_part)
        );
        if let Some(input) = &self.input {
            out.push_str(&format!(" (the board: {})", clip(input)));
        }
        Some(out)
    }

    /// Lines as the assignment's language writes the value.
    fn value(&self, lines: &[String]) -> String {
        let style = self.values.as_deref().unwrap_or("");
        if lines.is_empty() {
            return "nothing".into();
        }
        if lines.len() == 1 && !is_row(&lines[0]) {
            return match (style, lines[0].as_str()) {
                ("python", "true") => "True".into(),
                ("python", "false") => "False".into(),
                (_, l) => l.to_string(),
            };
        }
        if !lines.iter().all(|l| is_row(l)) {
            return format!("{:?}", lines.join("\n"));
        }
        let (on, off) = match style {
            "python" => ("True", "False"),
            "ruby" => ("1", "0"),
            _ => ("#", "O"),
        };
        let rows: Vec<String> = lines
            .iter()
            .map(|l| {
                let cells: Vec<&str> = l.chars().map(|c| if c == '#' { on } else { off }).collect();
                format!("[{}]", cells.join(", "))
            })
            .collect();
        format!("[{}]", rows.join(", "))
    }
}

/// Most characters of one part of an explanation.
const CLIP: usize = 300;

/// `s` cut to [`CLIP`] characters, an ellipsis saying so.
fn clip(s: &str) -> String {
    if s.chars().count() <= CLIP {
        s.to_string()
    } else {
        let head: String = s.chars().take(CLIP).collect();
        format!("{head}...")
    }
}

/// A board row of a transcript: `#` and `O` only.
fn is_row(line: &str) -> bool {
    !line.is_empty() && line.chars().all(|c| c == '#' || c == 'O')
}

/// The first line where `got` differs from `want`.
pub(crate) fn compare(want: &[String], got: &[&str]) -> Result<(), String> {
    for (i, w) in want.iter().enumerate() {
        match got.get(i) {
            Some(g) if g == w => {}
            Some(g) => {
                return Err(format!(
                    "line {}: expected {w:?}, got {}",
                    i + 1,
                    clip(&format!("{g:?}"))
                ));
            }
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
            "line {}: expected the end of the output, got {}",
            want.len() + 1,
            clip(&format!("{:?}", got[want.len()]))
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

    /// An adapter's labels turn a wrong line into the assignment's terms;
    /// they are not compared.
    #[test]
    fn labels_explain_a_wrong_line_in_the_assignments_terms() {
        let want = |rows: &[&str]| rows.iter().map(|r| r.to_string()).collect::<Vec<_>>();
        let t = Transcript::Exact(vec![want(&["0 0", "#O", "OO", "0 1", "OO", "O#"])]);
        let good = "@values python\n@input [[False, False], [False, False]]\n\
                    @ perform_move(0, 0) left\n0 0\n#O\nOO\n@ perform_move(0, 1) left\n0 1\nOO\nO#\n";
        assert_eq!(t.judge(good.as_bytes(), 0).check, Check::Accepted);
        let bad = good.replace("0 1\nOO\nO#", "0 1\nO#\nOO");
        assert_eq!(
            t.judge(bad.as_bytes(), 0).detail,
            "perform_move(0, 1) left [[False, True], [False, False]], expected \
             [[False, False], [False, True]] (the board: [[False, False], [False, False]])"
        );
        // A wrong header is no value: the plain line.
        let header = good.replace("0 1\nOO", "1 1\nOO");
        assert_eq!(
            t.judge(header.as_bytes(), 0).detail,
            "line 4: expected \"0 1\", got \"1 1\""
        );
        // Ruby's 0/1 boards; a boolean; a missing value.
        let t = Transcript::Exact(vec![want(&["false", "true"])]);
        let ruby =
            "@values ruby\n@ all_out?(board) returned\ntrue\n@ all_out?(all off) returned\ntrue\n";
        assert_eq!(
            t.judge(ruby.as_bytes(), 0).detail,
            "all_out?(board) returned true, expected false"
        );
        // A label as long as the student's code makes it is cut.
        let long = format!("@ {}\ntrue\n@ b\ntrue\n", "x".repeat(100_000));
        let said = t.judge(long.as_bytes(), 0).detail;
        assert!(
            said.len() < 400 && said.ends_with("... true, expected false"),
            "{}",
            said.len()
        );
        let py =
            "@values python\n@ is_solved() returned\nfalse\n@ is_solved() on all off returned\n";
        assert_eq!(
            t.judge(py.as_bytes(), 0).detail,
            "is_solved() on all off returned nothing, expected True"
        );
    }
}
