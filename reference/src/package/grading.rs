//! How a package grades a submission from its cases' results, as
//! problemtools' default grader does: the test groups as `data/`'s
//! folders ([`Group::open`]), each with its `testdata.yaml` (a missing
//! field taken from the group above, else the format's default:
//! `on_reject: break`, `grader_flags: ''`, `accept_score: 1`,
//! `reject_score: 0`, `range: -inf +inf`), and a group's verdict and score
//! from its children's ([`Group::grade`]): the verdict by `worst_error`
//! (the default), `first_error` or `always_accept`, `accept_if_any_accepted`
//! where set; the score by `sum` (the default), `avg`, `min` or `max`;
//! `ignore_sample` keeps the last child alone; under `on_reject: break`
//! the children after the first rejected one do not count (problemtools
//! does not run them).

use std::path::Path;

use yaml_rust2::Yaml;

use super::{PackageError, number};

/// A verdict as problemtools' grader orders them (worst first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Judged {
    /// The judge's own error.
    JudgeError,
    /// A run-time error.
    RunTimeError,
    /// Over the memory limit.
    MemoryLimit,
    /// Over the time limit.
    TimeLimit,
    /// Over the output limit.
    OutputLimit,
    /// A wrong answer.
    WrongAnswer,
    /// Accepted.
    Accepted,
}

impl Judged {
    /// The verdict problemtools' short name names (`AC`, `WA`, `TLE`,
    /// `RTE`, `MLE`, `OLE`, `JE`).
    pub fn from_short(short: &str) -> Option<Self> {
        [
            Judged::JudgeError,
            Judged::RunTimeError,
            Judged::MemoryLimit,
            Judged::TimeLimit,
            Judged::OutputLimit,
            Judged::WrongAnswer,
            Judged::Accepted,
        ]
        .into_iter()
        .find(|j| j.short() == short)
    }

    /// problemtools' short name.
    pub fn short(self) -> &'static str {
        match self {
            Judged::JudgeError => "JE",
            Judged::RunTimeError => "RTE",
            Judged::MemoryLimit => "MLE",
            Judged::TimeLimit => "TLE",
            Judged::OutputLimit => "OLE",
            Judged::WrongAnswer => "WA",
            Judged::Accepted => "AC",
        }
    }
}

/// A case's or a group's result: its verdict, its score (a custom
/// validator's `score.txt`, or its group's accept or reject score), its
/// time (the slowest case's, seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Graded {
    /// The verdict.
    pub verdict: Judged,
    /// The score, where one is known.
    pub score: Option<f64>,
    /// Seconds.
    pub time: f64,
}

/// A package's own grader, as the caller runs it: a group's counted
/// children's results and its `grader_flags` in, its verdict and score
/// out.
pub type CustomGrader<'a> = dyn Fn(&[Graded], &[String]) -> (Judged, Option<f64>) + 'a;

/// A test group's `testdata.yaml`, with what it takes from the groups
/// above.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `on_reject: break` (else `continue`).
    pub on_reject_break: bool,
    /// `grader_flags`, split.
    pub grader_flags: Vec<String>,
    /// `accept_score`.
    pub accept_score: f64,
    /// `reject_score`.
    pub reject_score: f64,
    /// `range`: the lowest and highest score.
    pub range: (f64, f64),
    /// `grading: custom` (a grader of the package's own).
    pub custom_grading: bool,
    /// `output_validator_flags` (the 2023-07 draft's, added to the
    /// validator's).
    pub output_validator_flags: String,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            on_reject_break: true,
            grader_flags: Vec::new(),
            accept_score: 1.0,
            reject_score: 0.0,
            range: (f64::NEG_INFINITY, f64::INFINITY),
            custom_grading: false,
            output_validator_flags: String::new(),
        }
    }
}

/// A test group: `data/` or a folder below it.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its path from `data` (`""` for `data` itself, `secret/group1`).
    pub path: String,
    /// Its configuration.
    pub config: Config,
    /// Its test cases and groups, in the order of their names.
    pub items: Vec<Item>,
}

/// What a group holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A group below it.
    Group(Group),
    /// A test case, by its name from `data` (`secret/group1/03`).
    Case(String),
}

impl Group {
    /// The groups of the package in folder `dir`: `data/` and every
    /// folder below it, each with its `testdata.yaml` read (one that does
    /// not parse is an error naming it).
    pub fn open(dir: &Path) -> Result<Self, PackageError> {
        read(&dir.join("data"), String::new(), &Config::default())
    }

    /// The full score: the top of `data`'s range.
    pub fn best_score(&self) -> f64 {
        self.config.range.1
    }

    /// Whether case `name` no longer counts, given the cases already
    /// known `rejected` (by their names): an item before it in a group
    /// that breaks on a rejection (`on_reject: break`) is surely rejected,
    /// as problemtools then starts no more of that group. A group is surely
    /// rejected where a case of it is, unless its flags can still accept
    /// it (`always_accept`, `accept_if_any_accepted`, `ignore_sample`).
    pub fn cut_off(&self, name: &str, rejected: &dyn Fn(&str) -> bool) -> bool {
        for item in &self.items {
            match item {
                Item::Case(n) if n == name => return false,
                Item::Group(g) if g.holds(name) => return g.cut_off(name, rejected),
                _ if self.config.on_reject_break && surely_rejected(item, rejected) => return true,
                _ => {}
            }
        }
        false
    }

    /// Each case's name with the configuration of the group it is in, in
    /// the cases' order.
    pub fn cases(&self) -> Vec<(&str, &Config)> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Case(n) => out.push((n.as_str(), &self.config)),
                Item::Group(g) => out.extend(g.cases()),
            }
        }
        out
    }

    /// Whether case `name` is in this group or below it.
    fn holds(&self, name: &str) -> bool {
        self.items.iter().any(|i| match i {
            Item::Case(n) => n == name,
            Item::Group(g) => g.holds(name),
        })
    }

    /// This group's result from its cases' (`case`: a case's result by
    /// its name, `None` where it was not run), as problemtools' default
    /// grader gives it; a case's missing score is its group's accept or
    /// reject score. `None`: no case of it was run.
    pub fn grade(&self, case: &dyn Fn(&str) -> Option<Graded>) -> Option<Graded> {
        self.grade_by(case, None)
    }

    /// As [`Group::grade`], a group asking for the package's own grader
    /// (`grading: custom`) graded by `custom` instead: given its
    /// children's results (those that count: none after a rejection under
    /// `on_reject: break`) and its `grader_flags`, it gives the group's
    /// verdict and score (the package's grader is a program: the caller
    /// runs it). Without `custom`, every group is graded by default.
    pub fn grade_by(
        &self,
        case: &dyn Fn(&str) -> Option<Graded>,
        custom: Option<&CustomGrader<'_>>,
    ) -> Option<Graded> {
        let mut children = Vec::new();
        for item in &self.items {
            let result = match item {
                Item::Group(g) => g.grade_by(case, custom),
                Item::Case(name) => case(name).map(|mut r| {
                    r.score = r.score.or(Some(if r.verdict == Judged::Accepted {
                        self.config.accept_score
                    } else {
                        self.config.reject_score
                    }));
                    r
                }),
            };
            let Some(result) = result else { continue };
            children.push(result);
            if result.verdict != Judged::Accepted && self.config.on_reject_break {
                break;
            }
        }
        if children.is_empty() {
            return None;
        }
        let time = children.iter().map(|c| c.time).fold(0.0, f64::max);
        if let Some(custom) = custom.filter(|_| self.config.custom_grading) {
            let (verdict, score) = custom(&children, &self.config.grader_flags);
            return Some(Graded {
                verdict,
                score,
                time,
            });
        }
        if let Some(je) = children.iter().find(|c| c.verdict == Judged::JudgeError) {
            return Some(Graded { time, ..*je });
        }
        let flags = &self.config.grader_flags;
        let has = |f: &str| flags.iter().any(|x| x == f);
        let counted = if has("ignore_sample") {
            &children[children.len() - 1..]
        } else {
            &children[..]
        };
        let verdicts = counted.iter().map(|c| c.verdict);
        // (The last aggregator named wins, as in problemtools' grader.)
        let by = flags
            .iter()
            .rev()
            .find(|f| {
                ["worst_error", "no_errors", "first_error", "always_accept"].contains(&f.as_str())
            })
            .map_or("worst_error", String::as_str);
        let verdict = if has("accept_if_any_accepted")
            && counted.iter().any(|c| c.verdict == Judged::Accepted)
        {
            Judged::Accepted
        } else {
            match by {
                "first_error" => verdicts
                    .clone()
                    .find(|v| *v != Judged::Accepted)
                    .unwrap_or(Judged::Accepted),
                "always_accept" => Judged::Accepted,
                _ => verdicts.clone().min().unwrap_or(Judged::Accepted),
            }
        };
        let scores = counted.iter().map(|c| c.score.unwrap_or(0.0));
        let n = counted.len() as f64;
        let score = match flags
            .iter()
            .rev()
            .find(|f| ["sum", "avg", "min", "max"].contains(&f.as_str()))
            .map(String::as_str)
        {
            Some("avg") => scores.sum::<f64>() / n,
            Some("min") => scores.fold(f64::INFINITY, f64::min),
            Some("max") => scores.fold(f64::NEG_INFINITY, f64::max),
            _ => scores.sum(),
        };
        Some(Graded {
            verdict,
            score: Some(score),
            time,
        })
    }
}

/// Whether `item` is rejected whatever its cases not known yet do.
fn surely_rejected(item: &Item, rejected: &dyn Fn(&str) -> bool) -> bool {
    match item {
        Item::Case(n) => rejected(n),
        Item::Group(g) => {
            let lenient = ["always_accept", "accept_if_any_accepted", "ignore_sample"];
            !g.config
                .grader_flags
                .iter()
                .any(|f| lenient.contains(&f.as_str()))
                && g.items.iter().any(|i| surely_rejected(i, rejected))
        }
    }
}

fn read(dir: &Path, path: String, parent: &Config) -> Result<Group, PackageError> {
    let file = dir.join("testdata.yaml");
    let mut config = parent.clone();
    if file.is_file() {
        let text = std::fs::read_to_string(&file).map_err(|source| PackageError::Unreadable {
            path: file.clone(),
            source,
        })?;
        apply(&text, &mut config).map_err(|why| PackageError::Invalid { path: file, why })?;
    }
    let mut names: Vec<std::ffi::OsString> = match std::fs::read_dir(dir) {
        Ok(read) => read.filter_map(|e| e.ok().map(|e| e.file_name())).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    let mut items = Vec::new();
    for name in names {
        let text = name.to_string_lossy();
        let below = if path.is_empty() {
            text.to_string()
        } else {
            format!("{path}/{text}")
        };
        let at = dir.join(&name);
        if at.is_dir() {
            // (Of `data` itself, the sample and secret groups: what
            // `test_cases` reads.)
            if path.is_empty() && !["sample", "secret"].contains(&text.as_ref()) {
                continue;
            }
            items.push(Item::Group(read(&at, below, &config)?));
        } else if let Some(stem) = below.strip_suffix(".in")
            && dir
                .join(format!("{}.ans", &text[..text.len() - 3]))
                .is_file()
        {
            items.push(Item::Case(stem.to_owned()));
        }
    }
    Ok(Group {
        path,
        config,
        items,
    })
}

/// `testdata.yaml`'s `text` over `config`.
fn apply(text: &str, config: &mut Config) -> Result<(), String> {
    let docs = yaml_rust2::YamlLoader::load_from_str(text)
        .map_err(|e| format!("line {}: {}", e.marker().line(), e.info()))?;
    let Some(doc) = docs.into_iter().next() else {
        return Ok(());
    };
    if matches!(doc, Yaml::Null) {
        return Ok(());
    }
    if !matches!(doc, Yaml::Hash(_)) {
        return Err("not a mapping of fields".into());
    }
    match doc["on_reject"].as_str() {
        None => {}
        Some("break") => config.on_reject_break = true,
        Some("continue") => config.on_reject_break = false,
        Some(other) => {
            return Err(format!(
                "on_reject: {other:?} is neither break nor continue"
            ));
        }
    }
    if let Some(flags) = doc["grader_flags"].as_str() {
        config.grader_flags = flags.split_whitespace().map(str::to_owned).collect();
    }
    if let Some(s) = number(&doc["accept_score"], "accept_score")? {
        config.accept_score = s;
    }
    if let Some(s) = number(&doc["reject_score"], "reject_score")? {
        config.reject_score = s;
    }
    if let Some(grading) = doc["grading"].as_str() {
        config.custom_grading = grading == "custom";
    }
    if let Some(flags) = doc["output_validator_flags"].as_str() {
        config.output_validator_flags = flags.to_owned();
    }
    match &doc["range"] {
        Yaml::BadValue | Yaml::Null => {}
        Yaml::String(r) => {
            let bound = |w: &str| match w {
                "-inf" => Some(f64::NEG_INFINITY),
                "inf" | "+inf" => Some(f64::INFINITY),
                _ => w.parse::<f64>().ok(),
            };
            let words: Vec<&str> = r.split_whitespace().collect();
            let (Some(lo), Some(hi)) = (
                words.first().and_then(|w| bound(w)),
                words.get(1).and_then(|w| bound(w)),
            ) else {
                return Err(format!("range: {r:?} is not two numbers"));
            };
            config.range = (lo, hi);
        }
        other => return Err(format!("range: {other:?} is not two numbers")),
    }
    Ok(())
}

#[cfg(test)]
#[path = "grading_tests.rs"]
mod tests;
