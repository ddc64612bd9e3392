//! The seam between puzzle families and the harness: a typed [`Family`] per
//! puzzle kind, the object-safe [`Grader`] / [`Case`] view the harness
//! uses, and the student contract written once. A leaf: it knows no
//! family. A new family is one module implementing [`Family`] plus one line
//! in [`crate::families::FAMILIES`].

use std::marker::PhantomData;
use std::path::PathBuf;

use crate::battery::Battery;
use crate::replay::Replay;

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

/// Which program of an assignment is run: the handouts ask for a Solver,
/// and some (CS61BL) for a Checker too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The Checker: puzzle files as arguments, moves on stdin.
    Checker,
    /// The Solver: puzzle files as arguments, an answer on stdout.
    Solver,
}

impl Role {
    /// `checker` or `solver`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Checker => "checker",
            Role::Solver => "solver",
        }
    }
}

/// What the reference may spend loading a puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// The most states a search may store to find the puzzle's fewest
    /// moves (`best_moves`) when no best-known table has them; 0: tables
    /// only. Families that need no search ignore it.
    pub best_moves_states: usize,
}

/// The default of [`LoadOptions::best_moves_states`]: about 0.3 s of
/// search a puzzle.
pub const BEST_MOVES_STATES: usize = 1_000_000;

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            best_moves_states: BEST_MOVES_STATES,
        }
    }
}

/// What writes a battery's probes.
pub type BatteryMaker = fn(&mut Battery);

/// The battery of `role`, made by the maker `makers` lists for it (a
/// family's [`Family::battery`] in one line); `None` for a role without one.
pub fn battery_of(role: Role, makers: &[(Role, BatteryMaker)]) -> Option<Battery> {
    let (_, make) = makers.iter().find(|(r, _)| *r == role)?;
    let mut battery = Battery::default();
    make(&mut battery);
    Some(battery)
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
    /// The exit statuses of the student contract beyond 0 (answer) and 1
    /// (no solution).
    const STATUSES: Statuses;
    /// Reads and prepares a puzzle from its files.
    fn load(files: &[PathBuf], options: &LoadOptions) -> Result<Self::Puzzle, LoadError>;
    /// Verifies a candidate's answer (stdout of an exit 0), exactly as the
    /// family's staff checker would.
    fn verify(puzzle: &Self::Puzzle, stdout: &[u8]) -> Verified;
    /// Whether the puzzle has a solution: `None` when the reference cannot
    /// tell within its limits. Asked only when the contract needs it.
    fn solvable(puzzle: &Self::Puzzle) -> Option<bool>;
    /// The fewest moves known, for families that count moves.
    fn best_moves(_puzzle: &Self::Puzzle) -> Option<u64> {
        None
    }
    /// The reference's own answer.
    fn answer(puzzle: &Self::Puzzle) -> Answer;
    /// The programs the family's handouts ask for.
    const ROLES: &'static [Role] = &[Role::Solver];
    /// The conformance battery of `role`'s program, if the family has one.
    fn battery(_role: Role) -> Option<Battery> {
        None
    }
    /// The replay of an answer (`stdout`) on the puzzle `files`, frame by
    /// frame, for families whose answers are moves.
    fn replay(_files: &[PathBuf], _stdout: &[u8]) -> Option<Replay> {
        None
    }
    /// The family's function-level questions (see [`crate::questions`]):
    /// graders of their own, named `family:function`.
    const QUESTIONS: &'static [&'static dyn Grader] = &[];
    /// Other formats a candidate may be given the puzzle files in (a
    /// course's older format), by name; `as-is` is always there.
    const FORMATS: &'static [&'static str] = &[];
    /// File `index` of a case (`bytes`), converted to `format`.
    fn convert(format: &str, _index: usize, _bytes: &[u8]) -> Result<Vec<u8>, String> {
        Err(format!("{} has no format {format:?}", Self::NAME))
    }
}

/// What a family's checker says of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// `Ok` when the answer solves the puzzle; else why not, in one line.
    pub result: Result<(), String>,
    /// The number of moves the answer gave, when it gave a move list.
    pub moves: Option<u64>,
}

/// The exit statuses of a family's student contract beyond 0 and 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statuses {
    /// Only 0 and 1 (15-122's Lights Out).
    AnswerOrNone,
    /// 0 and 1, and 2 to 4 for usage and input errors (the CS61BL Solver,
    /// the Gogen exam): on a valid puzzle those are wrong exit statuses.
    WithInputErrors,
}

/// The student contract, written once for every family: exit 0 with an
/// answer `verify` accepts; exit 1 with empty stdout exactly when the puzzle
/// has no solution; 2 to 4 (where the contract has them) are input errors,
/// wrong on a valid puzzle; any other status is a runtime error.
/// `solvable` is asked only when the verdict depends on it.
pub fn judge_contract(
    statuses: Statuses,
    stdout: &[u8],
    exit_code: i32,
    verify: impl FnOnce(&[u8]) -> Verified,
    solvable: impl FnOnce() -> Option<bool>,
    best_moves: Option<u64>,
) -> Judgement {
    let judged = |check, detail: &str, moves| Judgement {
        check,
        detail: detail.to_string(),
        moves,
        best_moves,
    };
    match exit_code {
        0 => {
            let v = verify(stdout);
            match v.result {
                Ok(()) => judged(Check::Accepted, "", v.moves),
                // An answer that does not verify may be the symptom of a
                // puzzle with no answer at all: then the status is wrong.
                Err(why) => match solvable() {
                    Some(false) => judged(
                        Check::WrongExitStatus,
                        "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)",
                        v.moves,
                    ),
                    _ => judged(Check::WrongAnswer, &why, v.moves),
                },
            }
        }
        1 => match solvable() {
            Some(true) => judged(
                Check::WrongExitStatus,
                "exit 1 (no solution) on a solvable puzzle",
                None,
            ),
            Some(false) if stdout.trim_ascii().is_empty() => {
                judged(Check::Accepted, "unsolvable, correctly reported", None)
            }
            Some(false) => judged(
                Check::WrongExitStatus,
                "printed output on an unsolvable puzzle (exit 1 wants empty stdout)",
                None,
            ),
            None => judged(
                Check::Undecided,
                "the reference solver could not decide this puzzle",
                None,
            ),
        },
        2..=4 if statuses == Statuses::WithInputErrors => judged(
            Check::WrongExitStatus,
            &format!("exit {exit_code} (usage or input error) on a valid puzzle"),
            None,
        ),
        code => {
            let known = match statuses {
                Statuses::AnswerOrNone => "0 and 1",
                Statuses::WithInputErrors => "0 to 4",
            };
            judged(
                Check::RuntimeError,
                &format!("exit status {code} (the contract has {known})"),
                None,
            )
        }
    }
}

/// A family as the harness sees it: object-safe.
pub trait Grader: Send + Sync {
    /// The family's name.
    fn name(&self) -> &'static str;
    /// See [`Family::LISTING_FORMS`].
    fn listing_forms(&self) -> &'static [&'static [&'static str]];
    /// Loads one case from its files.
    fn load_with(
        &self,
        files: &[PathBuf],
        options: &LoadOptions,
    ) -> Result<Box<dyn Case>, LoadError>;
    /// Loads one case from its files with the default [`LoadOptions`].
    fn load(&self, files: &[PathBuf]) -> Result<Box<dyn Case>, LoadError> {
        self.load_with(files, &LoadOptions::default())
    }
    /// See [`Family::ROLES`].
    fn roles(&self) -> &'static [Role] {
        &[Role::Solver]
    }
    /// See [`Family::battery`].
    fn battery(&self, _role: Role) -> Option<Battery> {
        None
    }
    /// See [`Family::replay`].
    fn replay(&self, _files: &[PathBuf], _stdout: &[u8]) -> Option<Replay> {
        None
    }
    /// See [`Family::QUESTIONS`].
    fn questions(&self) -> &'static [&'static dyn Grader] {
        &[]
    }
    /// See [`Family::FORMATS`].
    fn formats(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether it judges a solver's answers by the family's contract (a
    /// family, or a family's variant judge such as `lightsout:loplayer`),
    /// not a function's transcript.
    fn judges_answers(&self) -> bool {
        false
    }
    /// See [`Family::convert`].
    fn convert(&self, format: &str, _index: usize, _bytes: &[u8]) -> Result<Vec<u8>, String> {
        Err(format!("{} has no format {format:?}", self.name()))
    }
    /// The case file a candidate reads on stdin, given no file as an
    /// argument (a problem package's `.in`, file 0; the rest are the
    /// judge's alone); `None`: every file as an argument.
    fn input_file(&self) -> Option<usize> {
        None
    }
}

/// One loaded puzzle, ready to judge any number of runs.
pub trait Case: Send + Sync {
    /// Judges a candidate's output and exit status.
    fn judge(&self, stdout: &[u8], exit_code: i32) -> Judgement;
    /// The reference's own answer.
    fn answer(&self) -> Answer;
    /// What programs that do nothing give on this case, where the family
    /// knows: the handout's empty stubs through an adapter (one answer),
    /// or, for a whole program, [`NOTHING_DONE`]'s. A course may count
    /// only what an answer does beyond the best of them (a rubric item's
    /// `beyond_stub`).
    fn stubs(&self) -> Vec<Answer> {
        Vec::new()
    }
}

/// The exit statuses of the whole programs that do nothing, in order: an
/// empty `main` (exit 0: a C or Java skeleton that compiles) and one that
/// says "no solution" (exit 1), both printing nothing. Each is one stub; a
/// share of cases is what one of them passes, never the two together.
pub const NOTHING_DONE: [u8; 2] = [0, 1];

/// [`NOTHING_DONE`]'s answers.
pub fn nothing_done() -> Vec<Answer> {
    NOTHING_DONE
        .iter()
        .map(|&exit_code| Answer {
            stdout: String::new(),
            stderr: String::new(),
            exit_code,
        })
        .collect()
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
        judge_contract(
            F::STATUSES,
            stdout,
            exit_code,
            |out| F::verify(&self.0, out),
            || F::solvable(&self.0),
            F::best_moves(&self.0),
        )
    }

    fn answer(&self) -> Answer {
        F::answer(&self.0)
    }

    fn stubs(&self) -> Vec<Answer> {
        nothing_done()
    }
}

impl<F: Family> Grader for Adapter<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn listing_forms(&self) -> &'static [&'static [&'static str]] {
        F::LISTING_FORMS
    }

    fn roles(&self) -> &'static [Role] {
        F::ROLES
    }

    fn battery(&self, role: Role) -> Option<Battery> {
        F::battery(role)
    }

    fn replay(&self, files: &[PathBuf], stdout: &[u8]) -> Option<Replay> {
        F::replay(files, stdout)
    }

    fn questions(&self) -> &'static [&'static dyn Grader] {
        F::QUESTIONS
    }

    fn formats(&self) -> &'static [&'static str] {
        F::FORMATS
    }

    fn judges_answers(&self) -> bool {
        true
    }

    fn convert(&self, format: &str, index: usize, bytes: &[u8]) -> Result<Vec<u8>, String> {
        F::convert(format, index, bytes)
    }

    fn load_with(
        &self,
        files: &[PathBuf],
        options: &LoadOptions,
    ) -> Result<Box<dyn Case>, LoadError> {
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
        Ok(Box::new(Loaded::<F>(F::load(files, options)?)))
    }
}

#[cfg(test)]
#[path = "family_tests.rs"]
mod tests;
