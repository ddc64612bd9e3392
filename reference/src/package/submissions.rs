//! A package's judge solutions (`submissions/<verdict>/`) and what
//! problemtools' `verifyproblem` asks of them: each folder's verdict and
//! the time limit from the slowest accepted one (a submission's result
//! from its cases' is [`super::grading`]'s).

use std::path::{Path, PathBuf};

use super::{PackageError, Program};

/// A verdict as the format names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expected {
    /// `accepted`: AC on every case.
    Accepted,
    /// `partially_accepted`: a scoring problem's, AC with less than full
    /// points.
    PartiallyAccepted,
    /// `wrong_answer`.
    WrongAnswer,
    /// `run_time_error` (a crash, or over the memory limit).
    RunTimeError,
    /// `time_limit_exceeded`.
    TimeLimitExceeded,
}

impl Expected {
    /// The folders of `submissions/`, in the order problemtools checks
    /// them (accepted first: they set the time limit).
    pub const ALL: [Expected; 5] = [
        Expected::Accepted,
        Expected::PartiallyAccepted,
        Expected::WrongAnswer,
        Expected::RunTimeError,
        Expected::TimeLimitExceeded,
    ];

    /// Its folder's name.
    pub fn folder(self) -> &'static str {
        match self {
            Expected::Accepted => "accepted",
            Expected::PartiallyAccepted => "partially_accepted",
            Expected::WrongAnswer => "wrong_answer",
            Expected::RunTimeError => "run_time_error",
            Expected::TimeLimitExceeded => "time_limit_exceeded",
        }
    }

    /// problemtools' short name (AC, PAC, WA, RTE, TLE).
    pub fn short(self) -> &'static str {
        match self {
            Expected::Accepted => "AC",
            Expected::PartiallyAccepted => "PAC",
            Expected::WrongAnswer => "WA",
            Expected::RunTimeError => "RTE",
            Expected::TimeLimitExceeded => "TLE",
        }
    }
}

/// A judge solution: where it is, what its folder expects, and its
/// program (or why it is in no language problemtools knows).
#[derive(Debug)]
pub struct Submission {
    /// Its path inside the package (`submissions/accepted/hello.py`).
    pub name: PathBuf,
    /// Its folder's verdict.
    pub expected: Expected,
    /// Its program.
    pub program: Result<Program, PackageError>,
}

/// The submissions of the package in folder `dir`: each entry (a file or a
/// folder) of each verdict's folder, in the order of [`Expected::ALL`] and
/// of their names. A file no language claims is left out, as
/// problemtools leaves it (a `README`); a folder none claims is kept with
/// its error.
pub fn submissions(dir: &Path) -> Result<Vec<Submission>, PackageError> {
    let mut out = Vec::new();
    for expected in Expected::ALL {
        let at = dir.join("submissions").join(expected.folder());
        let Ok(read) = std::fs::read_dir(&at) else {
            continue;
        };
        let unreadable = |source| PackageError::Unreadable {
            path: at.clone(),
            source,
        };
        let mut entries: Vec<PathBuf> = read
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(unreadable)?;
        entries.sort();
        for path in entries {
            let program = Program::detect(&path);
            if program.is_err() && !path.is_dir() {
                continue;
            }
            out.push(Submission {
                name: path.strip_prefix(dir).unwrap_or(&path).to_owned(),
                expected,
                program,
            });
        }
    }
    Ok(out)
}

/// The time limit problemtools sets from the slowest accepted
/// submission's time (`slowest`, seconds): `multiplier` times it, rounded
/// up to a whole `resolution` (1 s), at least one; and the limit a run is
/// watched to (`safety_margin` times it), where the verdicts at the two
/// are compared.
pub fn time_limit(slowest: f64, multiplier: f64, safety_margin: f64) -> (f64, f64) {
    const RESOLUTION: f64 = 1.0;
    let limit = (slowest * multiplier / RESOLUTION).ceil().max(1.0) * RESOLUTION;
    (limit, limit * safety_margin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_limit_is_problemtools() {
        assert_eq!(time_limit(0.01, 5.0, 2.0), (1.0, 2.0));
        assert_eq!(time_limit(0.31, 5.0, 2.0), (2.0, 4.0));
        assert_eq!(time_limit(1.2, 2.0, 1.5), (3.0, 4.5));
    }

    #[test]
    fn submissions_by_folder_and_name_unknown_files_left_out() {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "submissions/wrong_answer/b.cc",
            "submissions/accepted/z.py",
            "submissions/accepted/a.c",
            "submissions/accepted/README",
            "submissions/accepted/multi/Main.java",
            "submissions/time_limit_exceeded/odd/notes.txt",
        ] {
            let p = t.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let subs = submissions(t.path()).unwrap();
        let names: Vec<_> = subs
            .iter()
            .map(|s| {
                (
                    s.name.to_string_lossy().into_owned(),
                    s.expected,
                    s.program.is_ok(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("submissions/accepted/a.c".into(), Expected::Accepted, true),
                (
                    "submissions/accepted/multi".into(),
                    Expected::Accepted,
                    true
                ),
                ("submissions/accepted/z.py".into(), Expected::Accepted, true),
                (
                    "submissions/wrong_answer/b.cc".into(),
                    Expected::WrongAnswer,
                    true
                ),
                (
                    "submissions/time_limit_exceeded/odd".into(),
                    Expected::TimeLimitExceeded,
                    false
                ),
            ]
        );
    }
}
