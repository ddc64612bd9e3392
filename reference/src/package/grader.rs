//! A problem package as a family the harness grades with: each case's
//! `.in` on the candidate's stdin (no file as an argument, its `.ans`
//! never given), its output judged by the default output validator with
//! the package's flags. One grader a package (its flags are its own),
//! made for the run ([`grader`]); or, for a package with an output
//! validator of its own, one grader for all ([`by_its_validator`]): its
//! cases judge how the run ended, and the harness hands an output that
//! ended well to the package's validator (a process: not run here).

use std::path::PathBuf;

use super::DefaultValidator;
use crate::family::{Answer, Case, Check, Grader, Judgement, LoadError, LoadOptions};

/// The family name of every package's cases.
pub const NAME: &str = "package";

/// The answers the harness reads of a package at most (the format's
/// output limit is 8 MiB by default; an answer is the judge's).
const MAX_ANSWER: u64 = 1 << 30;

/// A package's grader, judging with `validator`: made once a package and
/// kept for the run (leaked: a run grades a handful of packages).
pub fn grader(validator: DefaultValidator) -> &'static dyn Grader {
    Box::leak(Box::new(PackageGrader {
        validator: Some(validator),
    }))
}

/// The grader of every package whose own output validator judges its
/// answers: a case judges only the run's exit (0 is `Accepted`, which
/// means "ended well: the validator judges the output"; any other is a
/// runtime error).
pub fn by_its_validator() -> &'static dyn Grader {
    static GRADER: PackageGrader = PackageGrader { validator: None };
    &GRADER
}

struct PackageGrader {
    /// The default validator with the package's flags; `None`: the
    /// package's own validator judges.
    validator: Option<DefaultValidator>,
}

impl Grader for PackageGrader {
    fn name(&self) -> &'static str {
        NAME
    }

    fn listing_forms(&self) -> &'static [&'static [&'static str]] {
        &[]
    }

    /// `files`: the case's `.in` and `.ans`.
    fn load_with(&self, files: &[PathBuf], _: &LoadOptions) -> Result<Box<dyn Case>, LoadError> {
        let [_, answer] = files else {
            return Err(LoadError::msg("a package case is a .in and its .ans"));
        };
        let answer = crate::file::read_file_bounded::<std::convert::Infallible>(answer, MAX_ANSWER)
            .map_err(LoadError::new)?;
        Ok(Box::new(PackageCase {
            answer,
            validator: self.validator,
        }))
    }

    fn judges_answers(&self) -> bool {
        true
    }

    fn input_file(&self) -> Option<usize> {
        Some(0)
    }
}

struct PackageCase {
    answer: Vec<u8>,
    validator: Option<DefaultValidator>,
}

impl Case for PackageCase {
    fn judge(&self, stdout: &[u8], exit_code: i32) -> Judgement {
        let (check, detail) = match exit_code {
            0 => match self.validator.map(|v| v.judge(&self.answer, stdout)) {
                Some(Ok(())) | None => (Check::Accepted, String::new()),
                Some(Err(why)) => (Check::WrongAnswer, why),
            },
            code => (
                Check::RuntimeError,
                format!("exit status {code} (a run that ends well exits 0)"),
            ),
        };
        Judgement {
            check,
            detail,
            moves: None,
            best_moves: None,
        }
    }

    fn answer(&self) -> Answer {
        Answer {
            stdout: String::from_utf8_lossy(&self.answer).into_owned(),
            stderr: String::new(),
            exit_code: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_case_is_judged_by_its_answer_and_exit() {
        let t = tempfile::tempdir().unwrap();
        let (input, answer) = (t.path().join("1.in"), t.path().join("1.ans"));
        std::fs::write(&input, "3 4\n").unwrap();
        std::fs::write(&answer, "7\n").unwrap();
        let g = grader(DefaultValidator::default());
        assert_eq!((g.name(), g.input_file()), ("package", Some(0)));
        let case = g.load(&[input.clone(), answer]).unwrap();
        let judged = |out: &str, code| {
            let j = case.judge(out.as_bytes(), code);
            (j.check, j.detail)
        };
        assert_eq!(judged("7", 0), (Check::Accepted, String::new()));
        assert_eq!(
            judged("8\n", 0),
            (
                Check::WrongAnswer,
                "line 1: \"8\" where \"7\" was expected".into()
            )
        );
        assert_eq!(
            judged("7\n", 3),
            (
                Check::RuntimeError,
                "exit status 3 (a run that ends well exits 0)".into()
            )
        );
        assert_eq!(case.answer().stdout, "7\n");
        assert!(g.load(std::slice::from_ref(&input)).is_err(), "no answer");
        // Judged by its own validator: here only how the run ended.
        let own = by_its_validator()
            .load(&[input, t.path().join("1.ans")])
            .unwrap();
        assert_eq!(own.judge(b"anything", 0).check, Check::Accepted);
        assert_eq!(own.judge(b"", 1).check, Check::RuntimeError);
    }
}
