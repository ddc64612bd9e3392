//! The problem package format's default output validator, in process: the
//! team's output against the judge's answer, token by token, as
//! problemtools' `default_validator` compares them, with its flags
//! (`validator_flags` in `problem.yaml`): `case_sensitive`,
//! `space_change_sensitive`, `float_tolerance E`,
//! `float_absolute_tolerance E`, `float_relative_tolerance E`.

/// The default validator's settings, from its flags.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DefaultValidator {
    /// Tokens compared as they are (else ASCII letters in any case).
    pub case_sensitive: bool,
    /// Whitespace compared too, character for character.
    pub space_change_sensitive: bool,
    /// A number in the answer matches a team number within this distance.
    pub absolute: Option<f64>,
    /// ... or within this share of the answer's number.
    pub relative: Option<f64>,
}

impl DefaultValidator {
    /// The settings `flags` (words, as `validator_flags` gives them) ask
    /// for; an unknown flag or a tolerance that is not a number is an
    /// error naming it.
    pub fn from_flags(flags: &str) -> Result<Self, String> {
        let mut out = Self::default();
        let mut words = flags.split_whitespace();
        while let Some(word) = words.next() {
            let mut number = || -> Result<f64, String> {
                let n = words
                    .next()
                    .ok_or_else(|| format!("{word} wants a number after it"))?;
                n.parse::<f64>()
                    .ok()
                    .filter(|v| *v >= 0.0)
                    .ok_or_else(|| format!("{word} {n}: not a tolerance"))
            };
            match word {
                "case_sensitive" => out.case_sensitive = true,
                "space_change_sensitive" => out.space_change_sensitive = true,
                "float_tolerance" => {
                    let e = number()?;
                    (out.absolute, out.relative) = (Some(e), Some(e));
                }
                "float_absolute_tolerance" => out.absolute = Some(number()?),
                "float_relative_tolerance" => out.relative = Some(number()?),
                other => return Err(format!("unknown validator flag {other:?}")),
            }
        }
        Ok(out)
    }

    /// Whether the team's `output` matches the judge's `answer`; else
    /// why not, in one line (the first difference, with its line in the
    /// output).
    pub fn judge(&self, answer: &[u8], output: &[u8]) -> Result<(), String> {
        let (mut a, mut o) = (Tokens::new(answer), Tokens::new(output));
        loop {
            if self.space_change_sensitive {
                let (sa, so) = (a.space(), o.space());
                if sa != so && !(a.done() && o.done() && same_ending(sa, so)) {
                    return Err(format!(
                        "line {}: space differs from the answer's ({:?} where {:?} was expected)",
                        o.line,
                        String::from_utf8_lossy(so),
                        String::from_utf8_lossy(sa)
                    ));
                }
            } else {
                a.space();
                o.space();
            }
            match (a.token(), o.token()) {
                (None, None) => return Ok(()),
                (Some(want), None) => {
                    return Err(format!(
                        "the output ends where the answer has {:?} still",
                        String::from_utf8_lossy(want)
                    ));
                }
                (None, Some(extra)) => {
                    return Err(format!(
                        "line {}: output past the answer's end ({:?})",
                        o.line,
                        String::from_utf8_lossy(extra)
                    ));
                }
                (Some(want), Some(got)) => self.token(want, got, o.line)?,
            }
        }
    }

    /// One token of the answer (`want`) against the team's (`got`) on
    /// output line `line`.
    fn token(&self, want: &[u8], got: &[u8], line: usize) -> Result<(), String> {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        if (self.absolute.is_some() || self.relative.is_some())
            && let Some(j) = number(want)
        {
            let Some(t) = number(got) else {
                return Err(format!(
                    "line {line}: {:?} where a number was expected",
                    text(got)
                ));
            };
            let d = (j - t).abs();
            let near = self.absolute.is_some_and(|e| d <= e)
                || self.relative.is_some_and(|e| d <= e * j.abs());
            return if near {
                Ok(())
            } else {
                Err(format!(
                    "line {line}: {} where {} was expected (off by {d:e})",
                    text(got),
                    text(want)
                ))
            };
        }
        let same = if self.case_sensitive {
            want == got
        } else {
            want.eq_ignore_ascii_case(got)
        };
        if same {
            Ok(())
        } else {
            Err(format!(
                "line {line}: {:?} where {:?} was expected",
                text(got),
                text(want)
            ))
        }
    }
}

/// Whether two last runs of space differ only as a final newline may
/// (problemtools takes a missing or extra newline at the very end).
fn same_ending(a: &[u8], b: &[u8]) -> bool {
    let trim = |s: &[u8]| s.strip_suffix(b"\n").unwrap_or(s).to_vec();
    trim(a) == trim(b)
}

/// A whole token as a finite number (as `strtod` reads it, all of it).
fn number(token: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(token).ok()?;
    let lower = s.to_ascii_lowercase();
    // (Rust reads "inf" and "nan" too; strtod's reading of them is the
    // answer's business: a tolerance applies to finite numbers.)
    if lower.contains("inf") || lower.contains("nan") {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A text's tokens (runs of anything but whitespace) and the space
/// between them, with the line the reader is on.
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8]) -> Self {
        Self {
            text,
            at: 0,
            line: 1,
        }
    }

    /// The whitespace at the reader, taken.
    fn space(&mut self) -> &'a [u8] {
        let start = self.at;
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            if self.text[self.at] == b'\n' {
                self.line += 1;
            }
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// The token at the reader (none at the end), taken.
    fn token(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        while self.at < self.text.len() && !self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        (self.at > start).then(|| &self.text[start..self.at])
    }

    fn done(&self) -> bool {
        self.at >= self.text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(flags: &str, answer: &str, output: &str) -> Result<(), String> {
        DefaultValidator::from_flags(flags)
            .unwrap()
            .judge(answer.as_bytes(), output.as_bytes())
    }

    #[test]
    fn tokens_match_whatever_the_space_between() {
        assert_eq!(judge("", "1 2\n3\n", "1\n2 3"), Ok(()));
        assert_eq!(judge("", "Hello World!\n", "hello   WORLD!\n"), Ok(()));
        assert_eq!(
            judge("case_sensitive", "Hello\n", "hello\n"),
            Err("line 1: \"hello\" where \"Hello\" was expected".into())
        );
        assert_eq!(
            judge("", "1 2\n", "1\n"),
            Err("the output ends where the answer has \"2\" still".into())
        );
        assert_eq!(
            judge("", "1\n", "1\n2\n"),
            Err("line 2: output past the answer's end (\"2\")".into())
        );
        assert_eq!(judge("", "", ""), Ok(()));
    }

    #[test]
    fn space_counts_where_asked_but_a_final_newline() {
        let f = "space_change_sensitive";
        assert_eq!(judge(f, "1 2\n", "1 2\n"), Ok(()));
        assert_eq!(judge(f, "1 2\n", "1 2"), Ok(()), "the last newline");
        assert!(judge(f, "1 2\n", "1  2\n").is_err());
        assert!(judge(f, "1 2\n", "1\n2\n").is_err());
        assert!(judge(f, "1\n", "\n1\n").is_err());
    }

    #[test]
    fn numbers_within_a_tolerance() {
        assert_eq!(judge("float_tolerance 1e-6", "0.5\n", "0.5000004"), Ok(()));
        assert_eq!(
            judge("float_tolerance 1e-6", "1e9\n", "1000000500"),
            Ok(()),
            "relative"
        );
        assert!(judge("float_absolute_tolerance 1e-6", "1e9\n", "1000000500").is_err());
        assert!(judge("float_relative_tolerance 1e-9", "0.5\n", "0.5001").is_err());
        assert_eq!(
            judge("float_tolerance 1e-6", "0.5\n", "half"),
            Err("line 1: \"half\" where a number was expected".into())
        );
        // Words in the answer are words still; without a tolerance numbers
        // are words too.
        assert_eq!(
            judge("float_tolerance 1e-6", "yes 1\n", "YES 1.0000001"),
            Ok(())
        );
        assert!(judge("", "0.5\n", "0.50").is_err());
    }

    #[test]
    fn bad_flags_are_named() {
        assert_eq!(
            DefaultValidator::from_flags("float_tolerance"),
            Err("float_tolerance wants a number after it".into())
        );
        assert_eq!(
            DefaultValidator::from_flags("float_tolerance x"),
            Err("float_tolerance x: not a tolerance".into())
        );
        assert_eq!(
            DefaultValidator::from_flags("ignore_case"),
            Err("unknown validator flag \"ignore_case\"".into())
        );
    }
}
