//! A family's conformance battery (probes as data, from the reference)
//! written into a folder, one subfolder a folder of the battery, readable
//! by every candidate's user and writable by none but us; each probe
//! becomes a [`Probe`] with real paths.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{Context, bail};
use reference::battery::Arg;
use reference::family::{Grader, Role};

use crate::job::Probe;

/// Writes `family`'s battery for `role` into `dir`; its probes, by name.
pub fn battery(
    family: &dyn Grader,
    role: Role,
    dir: &Path,
) -> anyhow::Result<Vec<(String, Probe)>> {
    let Some(battery) = family.battery(role) else {
        if !family.roles().contains(&role) {
            let roles: Vec<&str> = family.roles().iter().map(|r| r.as_str()).collect();
            bail!(
                "{} has no {} program to conform (its handout asks for a {})",
                family.name(),
                title(role),
                roles.join(" and a ")
            );
        }
        bail!(
            "no conformance battery for the {} of family {:?}",
            role.as_str(),
            family.name()
        );
    };
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("cannot set the mode of {}", path.display()))
    };
    mode(dir, 0o755)?;
    let mut folders = Vec::new();
    for (i, folder) in battery.folders.iter().enumerate() {
        let path = dir.join(format!("case-{i:03}"));
        std::fs::create_dir(&path).with_context(|| format!("cannot create {}", path.display()))?;
        mode(&path, 0o755)?;
        let stdin = ("stdin".to_string(), folder.stdin.clone());
        for (name, bytes) in folder.files.iter().chain([&stdin]) {
            let file = path.join(name);
            std::fs::write(&file, bytes)
                .with_context(|| format!("cannot write {}", file.display()))?;
            mode(&file, 0o644)?;
        }
        folders.push(path);
    }
    Ok(battery
        .probes
        .into_iter()
        .map(|p| {
            let folder = &folders[p.folder.0];
            let arg = |a: &Arg| -> OsString {
                match a {
                    Arg::Missing => folder.join("no-such-file").into(),
                    Arg::Folder => folder.as_os_str().to_owned(),
                    Arg::File(f) => folder.join(f).into(),
                }
            };
            let probe = Probe {
                args: p.args.iter().map(arg).collect(),
                puzzle: p.puzzle.iter().map(|f| folder.join(f)).collect(),
                stdin: folder.join("stdin"),
                expect: p.expect,
                output: p.output,
            };
            (p.name, probe)
        })
        .collect())
}

/// The scorecard suite of a battery: `conform/<family>-<role>`.
pub fn suite_name(family: &str, role: Role) -> String {
    format!("conform/{family}-{}", role.as_str())
}

/// `Checker` or `Solver`.
fn title(role: Role) -> &'static str {
    match role {
        Role::Checker => "Checker",
        Role::Solver => "Solver",
    }
}
