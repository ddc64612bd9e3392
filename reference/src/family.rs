//! The seam between puzzle families and the harness: a typed [`Family`] per
//! puzzle kind, and the object-safe [`Grader`] / [`Case`] view the harness
//! uses. A new family is one module implementing [`Family`] plus one line in
//! [`FAMILIES`].

use std::marker::PhantomData;
use std::path::PathBuf;

/// A puzzle file (or set of files) that cannot be used as a test case: our
/// side of the table, never the candidate's fault.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct LoadError(Box<dyn std::error::Error + Send + Sync>);

impl LoadError {
    /// Wraps any error.
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Box::new(e))
    }

    /// An error from a message.
    pub fn msg(message: impl Into<String>) -> Self {
        Self(message.into().into())
    }
}

/// The checker's verdict on one finished run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The output is a verified answer, or a correctly reported impossibility.
    Accepted,
    /// The output is not a valid answer.
    WrongAnswer,
    /// The exit status contradicts the puzzle (e.g. "no solution" for a
    /// solvable puzzle), or output was printed where none belongs.
    WrongExitStatus,
    /// An exit status outside the family's contract.
    RuntimeError,
    /// The reference could not decide (say, whether a puzzle has a
    /// solution) within its limits: our side, never the candidate's fault.
    Undecided,
}

/// A checker's judgement with its explanation and move counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The verdict.
    pub check: Check,
    /// Why, in one line (empty when there is nothing to say).
    pub detail: String,
    /// The number of moves the candidate gave, when it gave a move list.
    pub moves: Option<u64>,
    /// The fewest moves known for this puzzle, when there is a solution.
    pub best_moves: Option<u64>,
}

/// The reference solver's answer in the family's student contract: what a
/// perfect candidate prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Standard output.
    pub stdout: String,
    /// Standard error (notes, `No solution`).
    pub stderr: String,
    /// Exit status.
    pub exit_code: u8,
}

/// A puzzle family, typed.
pub trait Family: 'static {
    /// A loaded, ready-to-judge puzzle (with whatever the checker precomputes).
    type Puzzle: Send + Sync + 'static;
    /// The family's name on the command line and in scorecards.
    const NAME: &'static str;
    /// The forms a case can take: for each, the header names of the file
    /// columns that start a listing (one file per column, in the order a
    /// candidate gets them).
    const LISTING_FORMS: &'static [&'static [&'static str]];
    /// Reads and prepares a puzzle from its files.
    fn load(files: &[PathBuf]) -> Result<Self::Puzzle, LoadError>;
    /// Judges a candidate's output and exit status.
    fn judge(puzzle: &Self::Puzzle, stdout: &[u8], exit_code: i32) -> Judgement;
    /// The reference's own answer.
    fn answer(puzzle: &Self::Puzzle) -> Answer;
}

/// A family as the harness sees it: object-safe.
pub trait Grader: Send + Sync {
    /// The family's name.
    fn name(&self) -> &'static str;
    /// See [`Family::LISTING_FORMS`].
    fn listing_forms(&self) -> &'static [&'static [&'static str]];
    /// Loads one case from its files.
    fn load(&self, files: &[PathBuf]) -> Result<Box<dyn Case>, LoadError>;
}

/// One loaded puzzle, ready to judge any number of runs.
pub trait Case: Send + Sync {
    /// Judges a candidate's output and exit status.
    fn judge(&self, stdout: &[u8], exit_code: i32) -> Judgement;
    /// The reference's own answer.
    fn answer(&self) -> Answer;
}

/// Adapts a typed [`Family`] to [`Grader`].
pub struct Adapter<F>(PhantomData<fn() -> F>);

impl<F> Adapter<F> {
    /// The adapter (a zero-sized value).
    pub const NEW: Self = Self(PhantomData);
}

struct Loaded<F: Family>(F::Puzzle);

impl<F: Family> Case for Loaded<F> {
    fn judge(&self, stdout: &[u8], exit_code: i32) -> Judgement {
        F::judge(&self.0, stdout, exit_code)
    }

    fn answer(&self) -> Answer {
        F::answer(&self.0)
    }
}

impl<F: Family> Grader for Adapter<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn listing_forms(&self) -> &'static [&'static [&'static str]] {
        F::LISTING_FORMS
    }

    fn load(&self, files: &[PathBuf]) -> Result<Box<dyn Case>, LoadError> {
        if !F::LISTING_FORMS
            .iter()
            .any(|form| form.len() == files.len())
        {
            let forms: Vec<String> = F::LISTING_FORMS.iter().map(|f| f.join(" ")).collect();
            return Err(LoadError::msg(format!(
                "{} takes {}, got {} file(s)",
                F::NAME,
                forms.join(" or "),
                files.len()
            )));
        }
        Ok(Box::new(Loaded::<F>(F::load(files)?)))
    }
}

/// Every family the harness knows, one line each.
pub static FAMILIES: &[&dyn Grader] = &[
    &Adapter::<crate::lightsout::LightsOut>::NEW,
    &Adapter::<crate::slidingblock::SlidingBlock>::NEW,
    &Adapter::<crate::gogen::Gogen>::NEW,
];

/// The family called `name`.
pub fn family(name: &str) -> Option<&'static dyn Grader> {
    FAMILIES.iter().copied().find(|f| f.name() == name)
}

/// The family whose listing header starts with the file columns of one of
/// its forms (trimmed, case-insensitive), and how many file columns that
/// form has; the longest match wins.
pub fn family_for_listing(header: &[&str]) -> Option<(&'static dyn Grader, usize)> {
    FAMILIES
        .iter()
        .flat_map(|&f| f.listing_forms().iter().map(move |form| (f, *form)))
        .filter(|(_, cols)| {
            header.len() >= cols.len()
                && cols
                    .iter()
                    .zip(header)
                    .all(|(want, got)| got.trim().eq_ignore_ascii_case(want))
        })
        .max_by_key(|(_, cols)| cols.len())
        .map(|(f, cols)| (f, cols.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lookups() {
        assert_eq!(family("lightsout").map(|f| f.name()), Some("lightsout"));
        assert!(family("chess").is_none());
        let name = |h: &[&str]| family_for_listing(h).map(|(f, n)| (f.name(), n));
        assert_eq!(
            name(&["board", "expect", "min_presses"]),
            Some(("lightsout", 1))
        );
        assert_eq!(
            name(&["initial config file", " goal file", " comments"]),
            Some(("slidingblock", 2))
        );
        assert_eq!(name(&["board", "words", "expect"]), Some(("gogen", 2)));
        assert_eq!(name(&["puzzle", "expect"]), Some(("gogen", 1)));
        assert!(family_for_listing(&["init", "goal", "expect"]).is_none());
    }

    #[test]
    fn wrong_file_count_is_a_load_error() {
        let err = family("lightsout").unwrap().load(&[]).err().unwrap();
        assert_eq!(err.to_string(), "lightsout takes board, got 0 file(s)");
        let err = family("gogen")
            .unwrap()
            .load(&[PathBuf::new(), PathBuf::new(), PathBuf::new()])
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "gogen takes puzzle or board words, got 3 file(s)"
        );
    }
}
