//! A problem package's program (its output validator, a judge solution)
//! made ready to build as a submission is built ([`super::build`]): its
//! files (a folder, or one file alone in a folder of its own), its
//! language's compile command as problemtools writes it with this
//! machine's stand-ins (CPython for PyPy), and the command that then runs
//! it. A language whose compiler or interpreter this machine lacks is
//! said so, never built.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use reference::package::Program;

use crate::job::{Build, Recipe};

/// A build's wall-clock limit (problemtools' `compilation_time` is 60 s
/// of CPU; the wall clock is given more room on a busy machine).
const BUILD_TIME: Duration = Duration::from_secs(300);

/// A program ready to build.
pub struct Planned {
    /// Its build: its files copied to the folder it then runs in.
    pub build: Build,
    /// The command that runs it once built.
    pub run: Vec<String>,
    /// A one-file program's own folder (its copy's source), kept while it
    /// is needed.
    pub staged: Option<tempfile::TempDir>,
}

/// `program` made ready to build in folder `dir` (not made yet), its
/// commands naming that folder `at` (itself, or `.` where they run in it:
/// then the same words whatever the folder, as the result store keys a
/// build), its run command told the memory limit `memory_mib` (Java's
/// heap); or why it cannot be built here: its compiler or interpreter is
/// not on the machine, or not where `owner` (the user its job slots run
/// as) may run it (a compiler in root's home).
pub fn plan(
    program: &Program,
    (dir, at): (PathBuf, &Path),
    memory_mib: u64,
    owner: Option<(u32, u32)>,
) -> Result<Planned, String> {
    let path = std::env::var_os("PATH");
    for needed in program.needs() {
        let here = |p: &str| {
            crate::executor::find_program(p.as_ref(), path.as_deref())
                .iter()
                .any(|f| owner.is_none_or(|o| crate::executor::reachable(f, o, true).is_ok()))
        };
        let stand_in = stand_in(program, needed);
        if !here(needed) && !stand_in.is_some_and(here) {
            return Err(format!(
                "{} needs {needed}, which this machine lacks{}",
                program.language.name,
                if owner.is_some() {
                    " (where its job slots' users may run it)"
                } else {
                    ""
                }
            ));
        }
    }
    let staged = if program.path.is_dir() {
        None
    } else {
        let s = tempfile::Builder::new()
            .prefix("puzzlegrade-program-")
            .tempdir()
            .map_err(|e| format!("cannot make a copy: {e}"))?;
        std::fs::copy(&program.path, s.path().join(&program.main))
            .map_err(|e| format!("cannot copy {}: {e}", program.path.display()))?;
        Some(s)
    };
    let source = staged
        .as_ref()
        .map_or(program.path.clone(), |s| s.path().to_owned());
    let (compile, run) = program.commands(at, memory_mib);
    let here = |argv: Vec<String>| on_this_machine(program, argv);
    let recipe = compile.map(here).map(|c| {
        let command = shell_words::join(&c);
        Arc::new(Recipe {
            // (What a build kept in the result store is keyed by.)
            written: format!("{}: {command}", program.language.id),
            command,
            course_dir: program.path.clone(),
            require: Vec::new(),
            time_limit: BUILD_TIME,
            overlay: Vec::new(),
            handin: globset::GlobSet::empty(),
        })
    });
    Ok(Planned {
        build: Build {
            source: Ok(source),
            dir,
            recipe,
        },
        run: on_this_machine(program, run),
        staged,
    })
}

/// The program standing in for `named` where the machine lacks it.
fn stand_in(program: &Program, named: &str) -> Option<&'static str> {
    program
        .language
        .stand_ins
        .iter()
        .find(|(n, _)| *n == named)
        .map(|(_, s)| *s)
}

/// `argv` with the program problemtools names replaced by the one this
/// machine has where it lacks it (PyPy by CPython).
fn on_this_machine(program: &Program, mut argv: Vec<String>) -> Vec<String> {
    if let Some(first) = argv.first_mut()
        && let Some(s) = stand_in(program, first)
        && crate::executor::find_program(first.as_ref(), std::env::var_os("PATH").as_deref())
            .is_empty()
    {
        *first = s.to_string();
    }
    argv
}
