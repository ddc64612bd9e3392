//! Course configs: how a course builds, runs and scores its students'
//! submissions, as data (TOML, one file per course in `courses/`). A config
//! names its family, a build step, the parts a submission is graded on
//! (suites run with a command, exit-status batteries, function-level
//! questions through an adapter) and the rubric that turns the rows into
//! points. Paths in a config are relative to the config's folder.

pub mod contest;
pub mod convert;
mod extends;
mod file;
mod machine;
pub mod make;
pub mod marks;
pub mod points;
pub mod policy;
pub mod rubric;
pub mod stub;

use std::path::{Path, PathBuf};

use reference::family::{Grader, Role};

pub use file::{BuildFile, CourseFile, LimitsFile, PartFile, Paths};
pub use rubric::{Item, Rule};

/// What is wrong with a course config: every error names the file, and
/// the line where the TOML has one.
#[derive(Debug, thiserror::Error)]
pub enum CourseError {
    /// The file cannot be read.
    #[error("cannot read course config {}", path.display())]
    Read {
        /// The config.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Its folder cannot be resolved.
    #[error("cannot resolve {}", path.display())]
    Resolve {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not TOML of the expected shape.
    #[error("{}: {}{message}", path.display(), line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Syntax {
        /// The config.
        path: PathBuf,
        /// The line, when known.
        line: Option<usize>,
        /// What the parser says.
        message: String,
    },
    /// It is well-formed but says something that cannot be graded.
    #[error("{}: {what}", path.display())]
    Invalid {
        /// The config.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// The line (from 1) of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Whether `path` (a file a submission must hold) stays inside it: not
/// empty, relative, no `..`.
fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// A validated course.
pub struct Course {
    /// The config's path.
    pub path: PathBuf,
    /// As written.
    pub file: CourseFile,
    /// The family.
    pub family: &'static dyn Grader,
    /// The parts, resolved.
    pub parts: Vec<Part>,
}

/// A part, resolved.
pub struct Part {
    /// As written.
    pub file: PartFile,
    /// What runs it.
    pub kind: PartKind,
    /// Suites, absolute.
    pub suites: Vec<PathBuf>,
    /// The case filter.
    pub cases: Option<globset::GlobSet>,
    /// The family format candidates are given (`None`: as-is).
    pub format: Option<String>,
}

/// What a part runs.
#[derive(Clone, Copy)]
pub enum PartKind {
    /// Suites judged by a grader (the family, or a question).
    Suites(&'static dyn Grader),
    /// A conformance battery.
    Conform(Role),
}

impl Part {
    /// Its battery of `family`'s probes for `role`, written into `dir`, by
    /// name: judged on exit statuses alone unless the part checks output
    /// ([`PartFile::check_output`]).
    pub fn probes(
        &self,
        family: &'static dyn Grader,
        role: Role,
        dir: &Path,
    ) -> anyhow::Result<Vec<(String, crate::job::Probe)>> {
        let mut probes = crate::battery::battery(family, role, dir)?;
        if !self.file.check_output {
            for (_, p) in &mut probes {
                p.output = reference::battery::Output::Any;
            }
        }
        Ok(probes)
    }
}

impl Course {
    /// Sets what of `options` the course says: its words for a crash and
    /// for a note on stderr, and its JVM (`[java]`, as
    /// `JAVA_TOOL_OPTIONS`, unless a `--env` sets that).
    pub fn apply(&self, options: &mut crate::settings::RunOptions) {
        options.crashes = self.file.crashes.clone();
        options.notes = self.file.notes.clone();
        let env = &mut options.isolation.env;
        if let Some(java) = self.file.java.options()
            && !env.iter().any(|(k, _)| k == crate::executor::JAVA_OPTIONS)
        {
            env.push((crate::executor::JAVA_OPTIONS.into(), java.into()));
        }
    }

    /// The part that runs the family's suites (its solver: a contest's).
    pub fn solver_part(&self) -> Option<usize> {
        self.parts.iter().position(|p| self.answers(p))
    }

    /// Whether `part`'s suites are judged as the family's answers.
    fn answers(&self, part: &Part) -> bool {
        matches!(part.kind, PartKind::Suites(g) if g.judges_answers()
            && g.name().split(':').next() == Some(self.family.name()))
    }

    /// Who sees `item`'s test: the strictest of its own visibility and
    /// its parts'.
    pub fn visibility(&self, item: &rubric::Item) -> rubric::Visibility {
        self.parts
            .iter()
            .filter(|p| item.part.contains(&p.file.name))
            .fold(item.visibility, |v, p| v.stricter(p.file.visibility))
    }

    /// Which cases students may not see where a platform shows them the
    /// run's log or test report (Autolab's feedback, a GitLab job): those
    /// any rubric item selects that is not `visible` (those platforms have
    /// no release dates: an item shown later is not shown there).
    pub fn hidden_from_students(&self) -> crate::report::Hidden {
        let hidden: Vec<rubric::Item> = self
            .file
            .rubric
            .iter()
            .filter(|i| self.visibility(i) != rubric::Visibility::Visible)
            .cloned()
            .collect();
        std::sync::Arc::new(move |suite: &str, case: &str| {
            hidden.iter().any(|i| i.selects(suite, case))
        })
    }

    /// A row's detail in its part's terms (the part's `says`); the part
    /// is the one whose name starts the row's suite.
    pub fn in_terms(&self, suite: &str, detail: &str) -> String {
        let part = self.parts.iter().find(|p| {
            suite
                .strip_prefix(p.file.name.as_str())
                .is_some_and(|r| r.starts_with('/'))
        });
        let mut out = detail.to_string();
        for (from, to) in part.map(|p| p.file.says.as_slice()).unwrap_or_default() {
            out = out.replace(from.as_str(), to);
        }
        out
    }

    /// Reads and validates a course config. Errors name the file and line.
    pub fn load(path: &Path) -> Result<Self, CourseError> {
        let text = std::fs::read_to_string(path).map_err(|source| CourseError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file = extends::read(path, &text)?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = dir.canonicalize().map_err(|source| CourseError::Resolve {
            path: dir.to_owned(),
            source,
        })?;
        let err = |what: String| CourseError::Invalid {
            path: path.to_owned(),
            what,
        };
        let family = reference::families::family(&file.family)
            .ok_or_else(|| err(format!("unknown family {:?}", file.family)))?;
        if file.parts.is_empty() {
            return Err(err("no [[part]]: nothing to grade".into()));
        }
        let mut parts = Vec::new();
        for p in &file.parts {
            if p.name.is_empty() || p.name.contains('/') {
                return Err(err(format!(
                    "part name {:?} must be non-empty, without '/'",
                    p.name
                )));
            }
            if parts.iter().any(|q: &Part| q.file.name == p.name) {
                return Err(err(format!("two parts are named {:?}", p.name)));
            }
            if shell_words::split(&p.command).map_or(true, |w| w.is_empty()) {
                return Err(err(format!(
                    "part {:?}: command {:?} is empty or unbalanced",
                    p.name, p.command
                )));
            }
            if let Some(bad) = p.require.iter().find(|f| !inside(f)) {
                return Err(err(format!(
                    "part {:?}: require {bad:?} must name a file inside the submission",
                    p.name
                )));
            }
            let kind = match (&p.conform, &p.judge) {
                (Some(_), Some(_)) => {
                    return Err(err(format!(
                        "part {:?}: conform and judge exclude each other",
                        p.name
                    )));
                }
                (Some(role), None) => PartKind::Conform(match role.as_str() {
                    "checker" => Role::Checker,
                    "solver" => Role::Solver,
                    other => {
                        return Err(err(format!(
                            "part {:?}: conform = {other:?} (checker or solver)",
                            p.name
                        )));
                    }
                }),
                (None, None) => PartKind::Suites(family),
                (None, Some(j)) if j == "contract" => PartKind::Suites(family),
                (None, Some(j)) => {
                    PartKind::Suites(reference::families::question(j).ok_or_else(|| {
                        err(format!(
                            "part {:?}: unknown judge {j:?} (known: contract, {})",
                            p.name,
                            reference::families::question_names().join(", ")
                        ))
                    })?)
                }
            };
            if matches!(kind, PartKind::Suites(_)) && p.suites.is_empty() {
                return Err(err(format!("part {:?} names no suites", p.name)));
            }
            if let Some(missing) = p.suites.iter().find(|s| !dir.join(s).exists()) {
                // The line that names it, where the text spells it so.
                let quoted = format!("\"{}\"", missing.display());
                return Err(CourseError::Syntax {
                    path: path.to_owned(),
                    line: text.find(&quoted).map(|at| line_at(&text, at)),
                    message: format!(
                        "part {:?}: suite {} does not exist ({})",
                        p.name,
                        missing.display(),
                        dir.join(missing).display()
                    ),
                });
            }
            let format = match p.format.as_deref() {
                None | Some("as-is") => None,
                Some(f) if family.formats().contains(&f) => Some(f.to_string()),
                Some(f) => {
                    let mut known = vec!["as-is"];
                    known.extend(family.formats());
                    return Err(err(format!(
                        "part {:?}: format {f:?} is not one of {}'s ({})",
                        p.name,
                        family.name(),
                        known.join(", ")
                    )));
                }
            };
            let cases = if p.cases.is_empty() {
                None
            } else {
                let mut b = globset::GlobSetBuilder::new();
                for g in &p.cases {
                    b.add(
                        globset::GlobBuilder::new(g)
                            .literal_separator(false)
                            .build()
                            .map_err(|e| err(format!("part {:?}: {e}", p.name)))?,
                    );
                }
                Some(
                    b.build()
                        .map_err(|e| err(format!("part {:?}: {e}", p.name)))?,
                )
            };
            parts.push(Part {
                suites: p.suites.iter().map(|s| dir.join(s)).collect(),
                file: p.clone(),
                kind,
                cases,
                format,
            });
        }
        if let Some(bad) = file
            .build
            .iter()
            .flat_map(|b| &b.require)
            .find(|f| !inside(f))
        {
            return Err(err(format!(
                "[build] require {bad:?} must name a file inside the submission"
            )));
        }
        if let Some(b) = &file.build {
            if let Some(o) = b.overlay.iter().find(|o| !dir.join(o).is_dir()) {
                return Err(err(format!(
                    "[build] overlay {:?} is not a folder ({})",
                    o.display(),
                    dir.join(o).display()
                )));
            }
            if !b.handin.is_empty() && b.overlay.is_empty() {
                return Err(err(
                    "[build] handin says which files win over an overlay, and there is none".into(),
                ));
            }
            handin_globs(&b.handin).map_err(|e| err(format!("[build] handin: {e}")))?;
        }
        file.java
            .validate()
            .map_err(|e| err(format!("[java] {e}")))?;
        for item in &file.rubric {
            item.validate(&file.parts)
                .map_err(|e| err(format!("rubric item {:?}: {e}", item.name)))?;
            if let Some(gate) = &item.only_with
                && (gate == &item.name || !file.rubric.iter().any(|i| &i.name == gate))
            {
                return Err(err(format!(
                    "rubric item {:?}: only_with {gate:?} names no other rubric item",
                    item.name
                )));
            }
        }
        if let Some(c) = &file.contest {
            c.validate(&file.parts)
                .map_err(|e| err(format!("[contest] {e}")))?;
        }
        if let Some(p) = &file.policy {
            p.validate().map_err(|e| err(format!("[policy] {e}")))?;
            if let Some(name) = p
                .items()
                .into_iter()
                .find(|n| file.rubric.iter().any(|i| &i.name == n))
            {
                return Err(err(format!(
                    "rubric item {name:?}: the name is [policy]'s own item"
                )));
            }
        }
        Ok(Self {
            path: dir.join(path.file_name().unwrap_or_default()),
            file,
            family,
            parts,
        })
    }

    /// The config's folder (`{course}` in commands).
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("/"))
    }

    /// The course at `path`, its family's suites replaced by `suites` where
    /// any are given (`--suite`), each of which must exist.
    pub fn load_with(path: &Path, suites: &[PathBuf]) -> anyhow::Result<Self> {
        let mut course = Self::load(path)?;
        if !suites.is_empty() {
            if let Some(s) = suites.iter().find(|s| !s.exists()) {
                anyhow::bail!("suite {} does not exist", s.display());
            }
            course.override_suites(suites)?;
        }
        Ok(course)
    }

    /// Replaces the suites of the parts judged by the family's contract
    /// (but those that keep their own).
    pub fn override_suites(&mut self, suites: &[PathBuf]) -> Result<(), CourseError> {
        let mut any = false;
        for i in 0..self.parts.len() {
            if self.answers(&self.parts[i]) && !self.parts[i].file.keep_suites {
                self.parts[i].suites = suites.to_vec();
                any = true;
            }
        }
        if !any {
            return Err(CourseError::Invalid {
                path: self.path.clone(),
                what: "no part runs the family's suites, so --suite has nothing to replace".into(),
            });
        }
        Ok(())
    }

    /// The summary's items: the rubric's, then the policy's.
    pub fn item_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.file.rubric.iter().map(|i| i.name.clone()).collect();
        if let Some(p) = &self.file.policy {
            names.extend(p.items().into_iter().map(String::from));
        }
        names
    }

    /// The sample submission the config names (`sample`), at its place.
    pub fn sample(&self) -> Option<PathBuf> {
        let sample = self.file.sample.as_ref()?;
        (!sample.as_os_str().is_empty()).then(|| self.dir().join(sample))
    }

    /// The rubric's most points.
    pub fn max_points(&self) -> f64 {
        self.file.rubric.iter().map(Item::max).sum()
    }
}

/// The globs of `[build] handin` (`*` stays within a folder).
pub fn handin_globs(globs: &[String]) -> Result<globset::GlobSet, globset::Error> {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(
            globset::GlobBuilder::new(g)
                .literal_separator(true)
                .build()?,
        );
    }
    b.build()
}

/// A command template's arguments with `{submission}` and `{course}`
/// filled in (after splitting, so a path with spaces stays one argument).
pub fn fill_command(template: &str, submission: &Path, course: &Path) -> Vec<String> {
    shell_words::split(template)
        .unwrap_or_default()
        .into_iter()
        .map(|arg| {
            arg.replace("{submission}", &submission.to_string_lossy())
                .replace("{course}", &course.to_string_lossy())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the machine lacks: a part's program not on PATH, named once
    /// with every part that runs it and the course's packages; never a
    /// build line's shell words, nor a submission's own program.
    #[test]
    fn a_program_the_machine_lacks_is_named_once() {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("toy/easy");
        std::fs::create_dir_all(&suite).unwrap();
        let config = dir.path().join("course.toml");
        let part = |name: &str, command: &str| {
            format!(
                "[[part]]\nname = \"{name}\"\ncommand = \"{command}\"\nsuites = [\"toy/easy\"]\n\n"
            )
        };
        let write = |build: &str| {
            std::fs::write(
                &config,
                format!(
                    "name = \"machine\"\nfamily = \"toy\"\npackages = [\"rubyx\"]\n\n\
                     [build]\ncommand = \"{build}\"\n\n{}{}{}\
                     [[rubric]]\nname = \"all\"\nrule = \"each\"\npoints = 1\npart = \"a\"\n",
                    part("a", "rubyx x.rb"),
                    part("b", "rubyx y.rb"),
                    part("own", "{submission}/solver")
                ),
            )
            .unwrap();
            Course::load(&config).unwrap()
        };
        let path = Some(std::ffi::OsStr::new("/usr/bin:/bin"));
        for build in [
            "cp=.:/x.jar; javac $cp *.java",
            "cd src && sh -c true",
            "sh -c true",
        ] {
            assert_eq!(
                write(build).lacks(path).as_deref(),
                Some(
                    "course machine: this machine has no rubyx (run by a, b); \
                     the course needs the packages rubyx (apt-get install rubyx)"
                ),
                "{build}"
            );
        }
        assert_eq!(
            write("no-such-compiler -o x").lacks(path).as_deref(),
            Some(
                "course machine: this machine has no no-such-compiler (run by the build), \
                 rubyx (run by a, b); the course needs the packages rubyx (apt-get install rubyx)"
            )
        );
    }
}
