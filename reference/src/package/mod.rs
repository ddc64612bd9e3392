//! Problem packages in the Kattis/ICPC problem package format (the legacy
//! format problemtools reads, and the 2023-07 draft's fields where they
//! differ): `problem.yaml` read into a [`Problem`], the test cases of
//! `data/sample` and `data/secret` listed in the format's order
//! ([`test_cases`]), the default output validator ([`validate`]), and a
//! package as a family the harness grades with ([`grader`]).
//! Pure: files are read, nothing is run (a package's own validator and
//! submissions are the harness's to run).

pub mod grader;
pub mod grading;
pub mod language;
pub mod submissions;
pub mod validate;

use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

pub use language::{LANGUAGES, Language, Program};
pub use validate::DefaultValidator;

/// What is wrong with a package: the file, and why.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A file that cannot be read.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file that does not say what the format wants.
    #[error("{}: {why}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its line where there is one.
        why: String,
    },
}

/// How a package's answers are judged (`validation`, or the 2023-07
/// draft's `type`).
#[derive(Debug, Clone, PartialEq)]
pub enum Validation {
    /// The default output validator, with its flags.
    Default(DefaultValidator),
    /// The package's own validator (`output_validators/`), with its flags;
    /// `interactive`: it talks to the submission; `score`: it gives points.
    Custom {
        /// The validator talks to the submission (stdin to stdout).
        interactive: bool,
        /// The validator writes a score.
        score: bool,
        /// Its flags, as written.
        flags: String,
    },
}

/// A package's `problem.yaml`, as far as judging needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Its name (the English one, where there are several).
    pub name: Option<String>,
    /// It is written in the 2023-07 draft (`problem_format_version`
    /// given), not the legacy format.
    pub draft: bool,
    /// A scoring problem (`type: scoring`): points per test group, not
    /// pass or fail.
    pub scoring: bool,
    /// How answers are judged.
    pub validation: Validation,
    /// `validator_flags` as written (a test group's
    /// `output_validator_flags` come after them).
    pub validator_flags: String,
    /// The time limit in seconds, where the package gives one (the 2023-07
    /// draft's `limits.time_limit`, or the `.timelimit` file problemtools
    /// and Kattis write); else it comes from the accepted submissions.
    pub time_limit: Option<f64>,
    /// `limits.time_multiplier` (legacy; 2023-07: `ac_to_time_limit`):
    /// the time limit over the slowest accepted submission's time.
    pub time_multiplier: f64,
    /// `limits.time_safety_margin` (legacy; 2023-07:
    /// `time_limit_to_tle`): how far past the limit a run is watched.
    pub time_safety_margin: f64,
    /// Memory, MiB.
    pub memory_mib: u64,
    /// Output, MiB.
    pub output_mib: u64,
}

impl Problem {
    /// Reads `problem.yaml` in package `dir` (and its `.timelimit`).
    pub fn open(dir: &Path) -> Result<Self, PackageError> {
        let path = dir.join("problem.yaml");
        let text = std::fs::read_to_string(&path).map_err(|source| PackageError::Unreadable {
            path: path.clone(),
            source,
        })?;
        let mut problem = Self::parse(&text).map_err(|why| PackageError::Invalid {
            path: path.clone(),
            why,
        })?;
        // (The draft names a custom validator by its folder alone.)
        if let Validation::Default(_) = problem.validation
            && problem.draft
            && ["output_validator", "output_validators"]
                .iter()
                .any(|d| dir.join(d).is_dir())
        {
            problem.validation = Validation::Custom {
                interactive: false,
                score: false,
                flags: String::new(),
            };
        }
        if problem.time_limit.is_none() {
            let file = dir.join(".timelimit");
            if let Ok(t) = std::fs::read_to_string(&file) {
                let limit = t.trim().parse::<f64>().ok().and_then(seconds);
                problem.time_limit = Some(limit.ok_or_else(|| PackageError::Invalid {
                    path: file,
                    why: format!("{:?} is not a time limit in seconds", t.trim()),
                })?);
            }
        }
        Ok(problem)
    }

    /// `problem.yaml`'s text read (an empty file is every default).
    pub fn parse(text: &str) -> Result<Self, String> {
        let docs = yaml_rust2::YamlLoader::load_from_str(text)
            .map_err(|e| format!("line {}: {}", e.marker().line(), e.info()))?;
        let doc = docs
            .into_iter()
            .next()
            .unwrap_or(Yaml::Hash(Default::default()));
        if !matches!(doc, Yaml::Hash(_)) {
            return Err("not a mapping of fields".into());
        }
        let draft = doc["problem_format_version"].as_str().is_some();
        let name = match &doc["name"] {
            Yaml::String(s) => Some(s.clone()),
            Yaml::Hash(_) => doc["name"]["en"].as_str().map(str::to_owned),
            _ => None,
        };
        let limits = &doc["limits"];
        let (multiplier, margin) = if draft {
            let m = &limits["time_multipliers"];
            (
                number(
                    &m["ac_to_time_limit"],
                    "limits.time_multipliers.ac_to_time_limit",
                )?,
                number(
                    &m["time_limit_to_tle"],
                    "limits.time_multipliers.time_limit_to_tle",
                )?,
            )
        } else {
            (
                number(&limits["time_multiplier"], "limits.time_multiplier")?,
                number(&limits["time_safety_margin"], "limits.time_safety_margin")?,
            )
        };
        let flags = doc["validator_flags"].as_str().unwrap_or("").to_string();
        // Legacy: `validation: default`, or `custom` with `interactive`
        // and `score`. The draft: `type` (pass-fail, scoring, interactive,
        // multi-pass; a word or a list), a custom validator by its folder.
        let words = |y: &Yaml| -> Vec<String> {
            match y {
                Yaml::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                Yaml::Array(a) => a
                    .iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            }
        };
        let (custom, interactive, score) = if draft {
            let kinds = words(&doc["type"]);
            let has = |k: &str| kinds.iter().any(|x| x == k);
            if has("multi-pass") {
                // (The validator run again on its own feedback, pass
                // after pass: not graded yet.)
                return Err("type: multi-pass is not graded yet (docs/packages.md)".into());
            }
            let interactive = has("interactive");
            (interactive, interactive, has("scoring"))
        } else {
            let kinds = words(&doc["validation"]);
            let has = |k: &str| kinds.iter().any(|x| x == k);
            match kinds.first().map(String::as_str) {
                None | Some("default") if kinds.len() <= 1 => (false, false, false),
                Some("custom") => (true, has("interactive"), has("score")),
                _ => {
                    return Err(format!(
                        "validation: {:?} is neither default nor custom",
                        kinds.join(" ")
                    ));
                }
            }
        };
        let validator_flags = flags.clone();
        let validation = if custom {
            Validation::Custom {
                interactive,
                score,
                flags,
            }
        } else {
            Validation::Default(
                DefaultValidator::from_flags(&flags)
                    .map_err(|why| format!("validator_flags: {why}"))?,
            )
        };
        let whole = |v: Option<f64>, field: &str, default: u64| -> Result<u64, String> {
            match v {
                None => Ok(default),
                Some(x) if x >= 1.0 && x.fract() == 0.0 => Ok(x as u64),
                Some(x) => Err(format!("{field}: {x} is not a whole number of MiB")),
            }
        };
        let scoring = words(&doc["type"]).iter().any(|t| t == "scoring");
        Ok(Self {
            name,
            draft,
            scoring,
            validation,
            validator_flags,
            time_limit: if draft {
                number(&limits["time_limit"], "limits.time_limit")?
                    .map(|t| {
                        seconds(t).ok_or_else(|| {
                            format!("limits.time_limit: {t} is not a time limit in seconds")
                        })
                    })
                    .transpose()?
            } else {
                None
            },
            time_multiplier: multiplier.unwrap_or(if draft { 2.0 } else { 5.0 }),
            time_safety_margin: margin.unwrap_or(if draft { 1.5 } else { 2.0 }),
            memory_mib: whole(
                number(&limits["memory"], "limits.memory")?,
                "limits.memory",
                2048,
            )?,
            output_mib: whole(
                number(&limits["output"], "limits.output")?,
                "limits.output",
                8,
            )?,
        })
    }
}

/// The package's own output validator in folder `dir`, where it has
/// one: the first program (a file or a folder, by name) in
/// `output_validators/` (the legacy format) or `output_validator/` (the
/// 2023-07 draft), as problemtools takes it (it uses one). A program in
/// no language problemtools knows is an error naming it.
pub fn output_validator(dir: &Path) -> Result<Option<Program>, PackageError> {
    first_program(dir, &["output_validators", "output_validator"])
}

/// The package's own grader (legacy `grading: custom`): the first program
/// of its `graders/` folder, as problemtools finds it; `None` where it
/// has none.
pub fn own_grader(dir: &Path) -> Result<Option<Program>, PackageError> {
    first_program(dir, &["graders"])
}

/// The first program (a file or a folder, by name) of the first of
/// `folders` in package `dir` that exists.
fn first_program(dir: &Path, folders: &[&str]) -> Result<Option<Program>, PackageError> {
    for folder in folders {
        let at = dir.join(folder);
        if !at.is_dir() {
            continue;
        }
        let unreadable = |source| PackageError::Unreadable {
            path: at.clone(),
            source,
        };
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&at)
            .map_err(unreadable)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(unreadable)?;
        entries.sort();
        if let Some(first) = entries.into_iter().next() {
            return Program::detect(&first).map(Some);
        }
    }
    Ok(None)
}

/// YAML field `field`'s number (`y`), where it is given: an integer or
/// a real; anything else an error naming the field.
fn number(y: &Yaml, field: &str) -> Result<Option<f64>, String> {
    match y {
        Yaml::BadValue | Yaml::Null => Ok(None),
        Yaml::Integer(i) => Ok(Some(*i as f64)),
        Yaml::Real(_) => y
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{field}: not a number")),
        other => Err(format!("{field}: {other:?} is not a number")),
    }
}

/// `t` as a time limit: more than nothing, at most a day.
fn seconds(t: f64) -> Option<f64> {
    (t > 0.0 && t <= 86_400.0).then_some(t)
}

/// One test case: its input and answer, where it sits, and what it says
/// of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// Its group, from `data` (`sample`, `secret`, `secret/group1`).
    pub group: String,
    /// Its name (the input's file name less `.in`).
    pub name: String,
    /// The `.in` file.
    pub input: PathBuf,
    /// The `.ans` file.
    pub answer: PathBuf,
    /// A `.desc` file beside it (what it tests), if any.
    pub desc: Option<PathBuf>,
    /// A `.hint` file beside it (feedback for a team), if any.
    pub hint: Option<PathBuf>,
}

/// The test cases of package `dir`: `data/sample`, then `data/secret`,
/// each folder's entries in the order of their names, a folder (a test
/// group) taking its place among them as problemtools reads them. A
/// `.in` without its `.ans` is an error naming it; a package with no
/// test case at all is one too.
pub fn test_cases(dir: &Path) -> Result<Vec<TestCase>, PackageError> {
    let mut out = Vec::new();
    for group in ["sample", "secret"] {
        let at = dir.join("data").join(group);
        if at.is_dir() {
            walk(&at, group, &mut out)?;
        }
    }
    if out.is_empty() {
        return Err(PackageError::Invalid {
            path: dir.join("data"),
            why: "no test case (a .in file under data/sample or data/secret)".into(),
        });
    }
    Ok(out)
}

fn walk(dir: &Path, group: &str, out: &mut Vec<TestCase>) -> Result<(), PackageError> {
    let unreadable = |source| PackageError::Unreadable {
        path: dir.to_owned(),
        source,
    };
    let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .map_err(unreadable)?;
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let text = name.to_string_lossy();
        if path.is_dir() {
            walk(&path, &format!("{group}/{text}"), out)?;
            continue;
        }
        let Some(stem) = text.strip_suffix(".in") else {
            continue;
        };
        let answer = dir.join(format!("{stem}.ans"));
        if !answer.is_file() {
            return Err(PackageError::Invalid {
                path,
                why: format!("no answer beside it ({stem}.ans)"),
            });
        }
        let beside = |ext: &str| Some(dir.join(format!("{stem}.{ext}"))).filter(|p| p.is_file());
        out.push(TestCase {
            group: group.to_owned(),
            name: stem.to_owned(),
            input: path.clone(),
            answer,
            desc: beside("desc"),
            hint: beside("hint"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
