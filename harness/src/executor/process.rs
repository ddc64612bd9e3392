//! The real executor: candidates as Unix processes, each run by `child`
//! (its own process group, pipes and limits watched by one thread), with
//! the run's isolation (`isolated`) around it unless turned off. CPU time
//! and peak RSS come from the case's cgroup, else from `wait4` (the
//! candidate and the descendants it waited for). Descendants that leave
//! the group (setsid) escape the group kill; [`super::run::guard`] kills them
//! when the run ends.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::isolation::isolate::Isolation;
use super::isolation::isolated::Isolated;
use super::run::child::{Ends, relative_to, run};
use super::run::guard::{self, Guard};
use super::{Ending, Executor, Limits, RunResult, Spec};
use crate::cancel::Cancel;

/// Runs candidates as processes. `supervised` adds the guard process, the
/// subreaper sweep and, unless turned off, the isolation of `isolate` (the
/// `harness` binary uses it; tests of the library may not, as the sweep
/// kills every child of the process).
#[derive(Default)]
pub struct ProcessExecutor {
    guard: Option<Guard>,
    isolated: Option<Isolated>,
}

impl ProcessExecutor {
    /// An executor with no guard and no isolation: process groups only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An executor that makes this process a child subreaper, starts the
    /// guard process (`exe __guard`), so that nothing outlives the run, even
    /// a `kill -9` of the harness, and isolates candidates as `isolation`
    /// asks and the machine allows (`max_file`: the largest puzzle file).
    pub fn supervised(exe: &Path, isolation: &Isolation, max_file: u64) -> anyhow::Result<Self> {
        guard::become_subreaper()?;
        let isolated = if isolation.enabled {
            Some(Isolated::new(exe, isolation, max_file)?)
        } else {
            None
        };
        let cleanup = isolated.as_ref().map(Isolated::cleanup).unwrap_or_default();
        Ok(Self {
            guard: Some(Guard::spawn(exe, &cleanup)?),
            isolated,
        })
    }
}

impl Executor for ProcessExecutor {
    fn execute(&self, spec: &Spec, limits: &Limits, cancel: &Cancel) -> RunResult {
        if let Some(iso) = &self.isolated {
            return iso.execute(spec, limits, cancel, self.guard.as_ref());
        }
        let Some((program, args)) = spec.argv.split_first() else {
            return RunResult::ended(Ending::Failed("empty command".into()), Duration::ZERO);
        };
        // A run that hands files back writes them in a folder of its own.
        let own = match spec.returns.is_empty() {
            true => None,
            false => match tempfile::Builder::new()
                .prefix("puzzlegrade-own-")
                .tempdir()
            {
                Ok(d) => Some(d),
                Err(e) => {
                    let why = format!("cannot make a working folder: {e}");
                    return RunResult::ended(Ending::Failed(why), Duration::ZERO);
                }
            },
        };
        let mut start = |ends: Ends| {
            let mut cmd = Command::new(program);
            cmd.args(args);
            match spec.files.first().and_then(|f| f.parent()) {
                _ if own.is_some() => {
                    let dir = own.as_ref().map(tempfile::TempDir::path);
                    let whole = spec
                        .files
                        .iter()
                        .map(|f| std::path::absolute(f).unwrap_or_default());
                    cmd.args(whole).current_dir(dir.unwrap_or(&spec.workdir));
                }
                Some(dir) if spec.relative => {
                    cmd.args(spec.files.iter().map(|f| relative_to(f, dir)))
                        .current_dir(dir);
                }
                _ => {
                    cmd.args(&spec.files).current_dir(&spec.workdir);
                }
            }
            cmd.args(&spec.tail);
            cmd.stdin(Stdio::from(ends.stdin))
                .stdout(Stdio::from(ends.stdout))
                .stderr(Stdio::from(ends.stderr))
                .process_group(0);
            // The child is waited for by its pid (see `child`); the
            // command, and our copies of its pipes' write ends, go now.
            cmd.spawn().map(|c| c.id())
        };
        let mut result = run(
            program,
            &mut start,
            spec,
            limits,
            cancel,
            self.guard.as_ref(),
            Default::default(),
        );
        if let Some(dir) = &own {
            result.returned = super::run::returned::read(dir.path(), &spec.returns);
        }
        result
    }

    fn finish(&self) {
        if let Some(iso) = &self.isolated {
            iso.stop_sandbox();
            iso.janitor.finish();
        }
        if let Some(g) = &self.guard {
            guard::sweep(&[g.pid()]);
            g.close();
        }
    }

    fn owner(&self, slot: usize) -> Option<(u32, u32)> {
        let base = self.isolated.as_ref()?.level.uid_base?;
        let uid = base + u32::try_from(slot).ok()?;
        Some((uid, uid))
    }

    fn partner(&self, slot: usize) -> Option<usize> {
        match &self.isolated {
            Some(iso) => iso.partner(slot),
            // (Plain processes: a slot is only a number.)
            None => Some(slot),
        }
    }

    fn scratch_place(&self) -> super::ScratchPlace {
        self.isolated
            .as_ref()
            .map_or(super::ScratchPlace::Temporary, Isolated::scratch_place)
    }

    fn confines(&self) -> bool {
        self.isolated
            .as_ref()
            .is_some_and(|i| i.level.uid_base.is_some() || i.level.sandbox.is_some())
    }

    fn label(&self) -> String {
        self.isolated
            .as_ref()
            .map_or_else(|| "none".into(), |i| i.level.label())
    }

    fn describe(&self) -> String {
        match &self.isolated {
            Some(i) => i.level.to_string(),
            None => "isolation: none (--isolation none: trusted candidates only)".into(),
        }
    }
}
