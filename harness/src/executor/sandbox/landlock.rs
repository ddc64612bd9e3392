//! Landlock (Linux 5.13 and later, as any user, no namespace needed): the
//! sandbox where neither a mount namespace (root in a container with its
//! engine's default privileges) nor bubblewrap is allowed. It cannot give a
//! case a private /tmp; it closes what the view would replace instead.
//!
//! From a case's view (see `view`) it makes a ruleset, once per view:
//!
//! - read and run: everything but the places the view replaces (the
//!   shared /tmp, /var/tmp, /dev/shm and /run/lock, the runs' scratch
//!   folders, the suites, a class's submissions), as a list of what lies
//!   beside them on the way down from `/` (Landlock allows, never denies);
//!   a link that leads into or above one of them is left out;
//! - read, run and write: what the view keeps writable (the slot's
//!   scratch folders, a build's working folder), and `/dev/null`,
//!   `/dev/zero`, `/dev/full`;
//! - read and run: what the view keeps read-only (the paths the command
//!   line names).
//!
//! Where the case runs as the harness's own user (an ordinary user's
//! run), a second ruleset, the case's own (made as it starts: a handful
//! of calls), keeps its writes to its own scratch folder within the
//! slot's (and to what else the view keeps writable): nothing a case
//! leaves in the slot's folder can reach the slot's next case. (A slot's
//! own user cannot write there: the folder is root's.)
//!
//! Where the kernel has them (ABI 4 and 6), the ruleset also refuses every
//! TCP bind and connect, and scopes abstract Unix sockets and signals to
//! the case's own processes: a case reaches neither the grader nor
//! another case by those. The case's process applies the ruleset after
//! `no_new_privs`, just before its exec (see `spawn`).

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};

use super::view::{Step, View};
use super::{Case, Entered, Sandbox};
use crate::executor::{ExecError, RunResult};

/// The file-system rights handled: ABI 3's (no device ioctls: a case may
/// still ask /dev/null what it is).
const FS: ABI = ABI::V3;

/// Devices every case may write.
const DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// The Landlock sandbox: a ruleset per distinct view.
#[derive(Default)]
pub(super) struct Landlock {
    rulesets: Mutex<HashMap<usize, OwnedFd>>,
    /// The devices every case may write, opened once (each case's own
    /// ruleset names them).
    devices: std::sync::OnceLock<Vec<landlock::PathFd>>,
}

impl Sandbox for Landlock {
    fn enter(&self, case: &Case) -> Result<Entered, ExecError> {
        // Views live as long as the run (the isolation keeps each
        // distinct one): the address names one.
        let key = Arc::as_ptr(case.view) as usize;
        let mut rulesets = self.rulesets.lock().unwrap_or_else(|p| p.into_inner());
        let fd = match rulesets.get(&key) {
            Some(fd) => fd.as_raw_fd(),
            None => {
                let fd = ruleset(case.view, case.network)?;
                let raw = fd.as_raw_fd();
                rulesets.insert(key, fd);
                raw
            }
        };
        drop(rulesets);
        // (A slot's own user writes nothing beside its folder anyway.)
        let own = match case.harness_user {
            true => Some(writes(case, self.devices())?),
            false => None,
        };
        Ok(Entered {
            landlock: Some(fd),
            landlock_own: own,
            // No network of its own: no socket but a Unix one (UDP and
            // the rest, which Landlock does not see).
            offline: !case.network,
            ..Entered::default()
        })
    }

    fn leave(&self, _: &Case, _: Entered, _: &mut RunResult, _: bool) {}
}

impl Landlock {
    /// [`DEVICES`], opened the first time (those that open).
    fn devices(&self) -> &[landlock::PathFd] {
        self.devices.get_or_init(|| {
            DEVICES
                .iter()
                .filter_map(|d| landlock::PathFd::new(d).ok())
                .collect()
        })
    }
}

/// Whether the kernel enforces Landlock's file-system rules, or why not.
pub(super) fn usable() -> Result<(), ExecError> {
    supports(|r| r.handle_access(AccessFs::from_all(ABI::V1))).map_err(|e| ExecError::Unusable {
        sandbox: "landlock",
        why: format!("is not enforced by this kernel ({e})"),
    })
}

/// What the kernel's Landlock adds to the file-system rules: TCP refused
/// (ABI 4), abstract sockets and signals kept in (ABI 6); for the
/// isolation line.
pub(super) fn extras() -> Vec<&'static str> {
    let mut out = Vec::new();
    if supports(|r| r.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)).is_ok() {
        out.push("no TCP bind or connect");
    }
    if supports(|r| r.scope(Scope::from_all(ABI::V6))).is_ok() {
        out.push("no abstract socket or signal beyond the case");
    }
    out
}

/// Whether a ruleset `handle` makes can be made, all of it (else the
/// kernel's refusal).
fn supports(
    handle: impl FnOnce(Ruleset) -> Result<Ruleset, landlock::RulesetError>,
) -> Result<(), landlock::RulesetError> {
    let ruleset = Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
    handle(ruleset).and_then(|r| r.create()).map(drop)
}

/// The ruleset of `view`, made ready to apply: its descriptor.
fn ruleset(view: &View, network: bool) -> Result<OwnedFd, ExecError> {
    let failed = |e: landlock::RulesetError| ExecError::System {
        what: "make the case's Landlock ruleset".into(),
        error: std::io::Error::other(e.to_string()),
    };
    let read = AccessFs::from_read(FS);
    let all = AccessFs::from_all(FS);
    // (The run's outputs beside what the case needs too: their folder's
    // other entries are listed, not the folder.)
    let hidden: Vec<PathBuf> = view
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Private(p) => Some(p.clone()),
            Step::Keep(..) => None,
        })
        .chain(view.masks.iter().cloned())
        .collect();
    let kept = |writable: bool| {
        view.steps
            .iter()
            .filter_map(move |s| match s {
                Step::Keep(p, w) if *w == writable => Some(p.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    // With the network open (`--network`), TCP and abstract sockets are
    // left alone; signals stay within the case.
    let created = Ruleset::default()
        .handle_access(all)
        .and_then(|r| match network {
            false => r
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
                .scope(Scope::from_all(ABI::V6)),
            true => r.scope(Scope::Signal),
        })
        .and_then(Ruleset::create)
        .map_err(failed)?;
    // A kept folder holding an output: its other entries, not itself.
    let mut kept_read = Vec::new();
    for p in kept(false) {
        if view.masks.iter().any(|m| m.starts_with(&p)) {
            walk(&p, &view.masks, &mut kept_read);
        } else {
            kept_read.push(p);
        }
    }
    let created = created
        .add_rules(path_beneath_rules(outside(&hidden), read))
        .and_then(|r| r.add_rules(path_beneath_rules(kept_read, read)))
        .and_then(|r| r.add_rules(path_beneath_rules(kept(true), all)))
        .and_then(|r| r.add_rules(path_beneath_rules(DEVICES, all)))
        .map_err(failed)?;
    enforced(created)
}

/// A made ruleset's descriptor, or that the kernel does not enforce it.
fn enforced(created: landlock::RulesetCreated) -> Result<OwnedFd, ExecError> {
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| ExecError::Unusable {
        sandbox: "landlock",
        why: "is not enforced by this kernel".into(),
    })
}

/// The case's own ruleset: writes only within its scratch folder, what
/// else its view keeps writable (but the slot's folder), and `devices`.
fn writes(case: &Case, devices: &[landlock::PathFd]) -> Result<OwnedFd, ExecError> {
    let failed = |e: landlock::RulesetError| ExecError::System {
        what: "make the case's own Landlock ruleset".into(),
        error: std::io::Error::other(e.to_string()),
    };
    let write = AccessFs::from_write(FS);
    let (scratch, slot_dir) = case.scratch;
    let places: Vec<&Path> = case
        .view
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Keep(p, true) if p != slot_dir => Some(p.as_path()),
            _ => None,
        })
        .chain([scratch])
        .collect();
    let created = Ruleset::default()
        .handle_access(write)
        .and_then(Ruleset::create)
        .and_then(|r| r.add_rules(path_beneath_rules(places, write)))
        .and_then(|r| {
            r.add_rules(
                devices
                    .iter()
                    .map(|d| Ok::<_, landlock::RulesetError>(PathBeneath::new(d, write))),
            )
        })
        .map_err(failed)?;
    enforced(created)
}

/// Everything but `hidden` (real paths, none of them `/`), as the paths
/// beside them on the way down from `/`: the entries of each folder above
/// a hidden one, less the hidden ones, those above them (walked into in
/// turn) and links that lead into or above one.
pub(super) fn outside(hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if hidden.is_empty() {
        out.push(PathBuf::from("/"));
    } else {
        walk(Path::new("/"), hidden, &mut out);
    }
    out
}

fn walk(dir: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let near = |p: &Path| hidden.iter().any(|h| h.starts_with(p) || p.starts_with(h));
    for path in paths {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            // Allowed by where it leads: a link into or above a hidden
            // place would open it.
            match path.canonicalize() {
                Ok(real) if !near(&real) => out.push(path),
                _ => {}
            }
        } else if hidden.contains(&path) {
        } else if hidden.iter().any(|h| h.starts_with(&path)) {
            walk(&path, hidden, out);
        } else {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_but_the_hidden_places_is_listed() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for d in ["a/secret/deep", "a/open", "b"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::fs::write(r.join("a/file"), "x").unwrap();
        // Beside the secret, where the walk goes: links judged by where
        // they lead. (Inside an allowed folder a link grants nothing:
        // Landlock judges the place it resolves to.)
        std::os::unix::fs::symlink(r.join("a/secret/deep"), r.join("a/into")).unwrap();
        std::os::unix::fs::symlink(&r, r.join("a/above")).unwrap();
        std::os::unix::fs::symlink(r.join("b"), r.join("a/fine")).unwrap();
        let hidden = vec![r.join("a/secret")];
        let listed = outside(&hidden);
        let mine: Vec<&Path> = listed
            .iter()
            .filter_map(|p| p.strip_prefix(&r).ok())
            .collect();
        assert_eq!(
            mine,
            [
                Path::new("a/file"),
                Path::new("a/fine"),
                Path::new("a/open"),
                Path::new("b"),
            ],
            "a walked into (it holds the secret), its links into and above it left out"
        );
        // Beside the temporary folder, the rest of the machine: /usr.
        assert!(listed.iter().any(|p| p == Path::new("/usr")), "{listed:?}");
        assert!(
            !listed.iter().any(|p| r.starts_with(p)),
            "nothing above the secret"
        );
        assert_eq!(outside(&[]), [PathBuf::from("/")]);
    }
}
