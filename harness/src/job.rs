//! The unit of work: a [`Job`] is one case for one candidate (who runs,
//! on which puzzle files, judged by which family), and a [`Candidate`] is
//! the command that runs. Everything above the ground floor passes these.

use std::path::{Path, PathBuf};

use reference::family::Grader;

/// What runs on each case.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// A user's command: program and arguments, before the puzzle files.
    Command {
        /// Program then arguments.
        argv: Vec<String>,
        /// Where it runs.
        workdir: PathBuf,
        /// Puzzle files given relative to the folder holding them, which is
        /// then the working directory (see [`crate::executor::Spec::relative`]).
        relative: bool,
    },
    /// The bundled reference solver: this executable's `solve` subcommand.
    Reference {
        /// This executable.
        exe: PathBuf,
        /// Where it runs.
        workdir: PathBuf,
    },
}

impl Candidate {
    /// The command line for one case of `family`, before the puzzle files.
    pub fn argv(&self, family: &str) -> Vec<String> {
        match self {
            Candidate::Command { argv, .. } => argv.clone(),
            Candidate::Reference { exe, .. } => vec![
                exe.display().to_string(),
                "solve".into(),
                "--family".into(),
                family.into(),
            ],
        }
    }

    /// Whether puzzle files are given relative to their folder.
    pub fn relative(&self) -> bool {
        matches!(self, Candidate::Command { relative: true, .. })
    }

    /// The working directory.
    pub fn workdir(&self) -> &Path {
        match self {
            Candidate::Command { workdir, .. } | Candidate::Reference { workdir, .. } => workdir,
        }
    }
}

/// One case to grade.
pub struct Job {
    /// The family that loads and judges it.
    pub family: &'static dyn Grader,
    /// The suite name, e.g. `lightsout/easy`.
    pub suite: String,
    /// The case name: its files as listed, joined by `+` (a sliding-block
    /// case is `init+goal`: one tray may be listed with several goals).
    pub case: String,
    /// The puzzle files, absolute, or what is wrong with the listing row.
    pub files: Result<Vec<PathBuf>, String>,
    /// The suite's root: the listing's folder (symlinks resolved). Puzzle
    /// files must stay inside it unless `--allow-outside-suite`.
    pub root: PathBuf,
    /// The files the candidate gets when they are not `files` (copies in
    /// another format, made by the harness); `files` are still judged.
    pub given: Option<Vec<PathBuf>>,
    /// Who runs this job when it is not the run's candidate (a class run:
    /// each submission is a candidate of its own).
    pub who: Option<std::sync::Arc<Who>>,
    /// The puzzle once checked and loaded (or why it cannot be): shared by
    /// the copies of a job that every submission of a class runs.
    pub loaded: Loaded,
}

/// A job's puzzle, loaded at most once.
pub type Loaded = std::sync::Arc<
    std::sync::OnceLock<Result<std::sync::Arc<dyn reference::family::Case>, String>>,
>;

/// A candidate of a class run.
#[derive(Debug)]
pub struct Who {
    /// Its name in the scorecard (the submission id).
    pub label: String,
    /// What runs.
    pub candidate: Candidate,
}
