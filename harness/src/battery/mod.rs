//! Conformance batteries: probes of a Checker's or Solver's exit statuses,
//! written by the project's code into a folder (one folder a case,
//! readable by every candidate's user). Each probe names the statuses it
//! accepts (more than one where the spec calls a row ambiguous) and, for a
//! Solver's answers, whether the output must solve the puzzle or be empty.

mod gogen;
mod lightsout;
mod slidingblock;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::bail;

pub use reference::family::{Output, Role};

use crate::job::Probe;

/// Writes `family`'s battery for `role` into `dir`.
pub fn battery(family: &str, role: Role, dir: &Path) -> anyhow::Result<Vec<(String, Probe)>> {
    let mut b = Builder::new(dir)?;
    match (family, role) {
        ("slidingblock", Role::Checker) => slidingblock::checker(&mut b)?,
        ("slidingblock", Role::Solver) => slidingblock::solver(&mut b)?,
        ("lightsout", Role::Solver) => lightsout::solver(&mut b)?,
        ("gogen", Role::Solver) => gogen::solver(&mut b)?,
        (f, Role::Checker) if ["lightsout", "gogen"].contains(&f) => {
            bail!("{f} has no Checker program to conform (its handout asks for a solver)")
        }
        (f, _) => {
            bail!("no conformance battery for family {f:?} (known: slidingblock, lightsout, gogen)")
        }
    }
    Ok(b.cases)
}

/// The scorecard suite of a battery: `conform/<family>-<role>`.
pub fn suite_name(family: &str, role: Role) -> String {
    format!("conform/{family}-{}", role.as_str())
}

/// Writes a battery's files, one folder a case, readable by every user
/// (candidates may run as other users) and writable by none but us.
pub struct Builder {
    dir: PathBuf,
    cases: Vec<(String, Probe)>,
}

impl Builder {
    fn new(dir: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
        Ok(Self {
            dir: dir.to_owned(),
            cases: Vec::new(),
        })
    }

    /// A folder for the next case, holding `files` (name, contents) and
    /// the stdin `input`; returns it.
    pub fn folder(&mut self, files: &[(&str, &[u8])], input: &[u8]) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let folder = self.dir.join(format!("case-{:03}", self.cases.len()));
        std::fs::create_dir(&folder)?;
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755))?;
        for (name, bytes) in files.iter().chain([&("stdin", input)]) {
            let path = folder.join(name);
            std::fs::write(&path, bytes)?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
        }
        Ok(folder)
    }

    /// Adds a case: `args` name files of `folder` (by name), or `-` for a
    /// missing file, or `/` for a folder given as a file.
    pub fn case(
        &mut self,
        name: &str,
        folder: &Path,
        args: &[&str],
        puzzle: &[&str],
        expect: &[i32],
        output: Output,
    ) {
        let resolve = |a: &&str| -> OsString {
            match *a {
                "-" => folder.join("no-such-file").into(),
                "/" => folder.as_os_str().to_owned(),
                file => folder.join(file).into(),
            }
        };
        self.cases.push((
            name.to_string(),
            Probe {
                args: args.iter().map(resolve).collect(),
                puzzle: puzzle.iter().map(|p| folder.join(p)).collect(),
                stdin: folder.join("stdin"),
                expect: expect.to_vec(),
                output,
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every battery names at least one status per case, and every file it
    /// names (but the deliberate missing one) exists.
    #[test]
    fn batteries_are_well_formed() {
        for (family, role, least) in [
            ("slidingblock", Role::Checker, 40),
            ("slidingblock", Role::Solver, 10),
            ("lightsout", Role::Solver, 8),
            ("gogen", Role::Solver, 8),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let cases = battery(family, role, dir.path()).unwrap();
            assert!(cases.len() >= least, "{family} {role:?}: {}", cases.len());
            for (name, c) in &cases {
                assert!(!c.expect.is_empty(), "{name}");
                assert!(c.stdin.is_file(), "{name}");
                for a in &c.args {
                    let p = Path::new(a);
                    assert!(
                        p.exists() || p.ends_with("no-such-file"),
                        "{name}: {}",
                        p.display()
                    );
                }
            }
            let names: std::collections::HashSet<&str> =
                cases.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names.len(), cases.len(), "{family}: case names are unique");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(battery("lightsout", Role::Checker, dir.path()).is_err());
    }
}
