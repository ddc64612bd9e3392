//! What protects the run from a hostile candidate, and what is in force.
//!
//! Every case gets a scratch folder of its own holding private copies of
//! its puzzle files (the harness has already loaded its own), its HOME and
//! TMPDIR, and an environment cleared to a documented minimum. When the
//! harness runs as root, each job slot runs as a user of its own (uids from
//! `--uid-base`, like isolate's boxes), with no supplementary groups, so a
//! candidate can neither signal the harness nor touch its files, the
//! suites, the scorecard or another slot's scratch. Each case runs in its
//! own cgroup where one can be made (see `cgroup`); where none can, rlimits
//! and the process-group kill are what is left. The level in force is
//! recorded in every scorecard row and said at the start of a run.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::executor::ExecError;
use crate::executor::cgroup::Cgroups;
use crate::executor::sandbox::Kind;

/// Who candidates run as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAs {
    /// A uid per job slot when the harness is root; else as the harness.
    Auto,
    /// As the harness's own user (trusted candidates, or a test box).
    Harness,
}

/// The sandbox asked for (`--sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxChoice {
    /// The strongest the machine allows: as root, none around the case (a
    /// user per slot and the trampoline's own namespaces do it); as
    /// another user, bubblewrap where it works.
    Auto,
    /// None.
    None,
    /// bubblewrap: read-only system, no network, only the scratch folder
    /// writable, a PID namespace of its own.
    Bwrap,
    /// Landlock: what a view would replace closed, only the scratch folder
    /// writable, no TCP (the tier a container's default privileges allow).
    Landlock,
}

/// The isolation asked for on the command line.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// Off: candidates run as plain processes in the harness's environment
    /// (trusted code only; `--isolation none`).
    pub enabled: bool,
    /// Who candidates run as.
    pub run_as: RunAs,
    /// The first uid (and gid) of the job slots' users; `None`: the first
    /// range no other run on this machine holds (see `uids`).
    pub uid_base: Option<u32>,
    /// Job slots: the uids a run claims.
    pub slots: usize,
    /// Whether the slots were asked for (`--jobs`), not the machine's
    /// cores.
    pub slots_asked: bool,
    /// Whether each job slot has a partner, a slot of its own that runs
    /// beside it (an interactive problem's validator, beside its
    /// candidate: see `Executor::partner`): twice the uids.
    pub partners: bool,
    /// Whether to put each case in a cgroup when one can be made.
    pub cgroups: bool,
    /// Memory of a case's whole process tree, in bytes.
    pub memory_limit: u64,
    /// Processes and threads of a case at once.
    pub pids_limit: u64,
    /// The largest file a candidate may write (RLIMIT_FSIZE).
    pub file_size_limit: u64,
    /// The sandbox asked for.
    pub sandbox: SandboxChoice,
    /// `--env NAME=VALUE` pairs, added to the minimum.
    pub env: Vec<(OsString, OsString)>,
    /// Whether cases may reach the network (off: each has a loopback of
    /// its own, or, under Landlock alone, no socket but a Unix one).
    pub network: bool,
    /// Folders no case may see (the suites, a class's submissions, a
    /// contest's entries, the course's folder, the kept outputs and the
    /// result store): each is an empty private folder in a case's view.
    pub hide: Vec<PathBuf>,
    /// Files the run writes (its scorecard, summary, exports, results),
    /// there or not yet: out of every case's sight (see
    /// `sandbox::view`).
    pub outputs: Vec<PathBuf>,
}

impl Default for Isolation {
    fn default() -> Self {
        Self {
            enabled: true,
            run_as: RunAs::Auto,
            uid_base: None,
            slots: 1,
            slots_asked: false,
            partners: false,
            cgroups: true,
            memory_limit: 2 << 30,
            pids_limit: 256,
            file_size_limit: 64 << 20,
            sandbox: SandboxChoice::Auto,
            env: Vec::new(),
            network: false,
            hide: Vec::new(),
            outputs: Vec::new(),
        }
    }
}

/// What is actually in force for a run, after looking at the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Level {
    /// Private copies and a scratch folder per case.
    pub copies: bool,
    /// Candidates run as `uid_base + slot`.
    pub uid_base: Option<u32>,
    /// The cgroup layout used, e.g. `v1+unified` or `v2`.
    pub cgroup: Option<String>,
    /// rlimits (core 0, file size, and process count where meaningful).
    pub rlimits: bool,
    /// The sandbox that makes each case's view of the file system: private
    /// /tmp, /var/tmp, /dev/shm and /run/lock, the scratch folders, suites
    /// and other submissions out of sight (see `sandbox::view`).
    pub sandbox: Option<Kind>,
    /// Job slots keep to cores of their own: `cpuset` (a cpuset cgroup per
    /// slot holds them), `cpus` (their CPU affinity only).
    pub cores: Option<&'static str>,
    /// Protections asked for but not available, and why.
    pub missing: Vec<String>,
}

impl Level {
    /// The short form for the scorecard's `isolation` column.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if self.copies {
            parts.push("copies".to_string());
        }
        if self.uid_base.is_some() {
            parts.push("uid".into());
        }
        if self.sandbox.is_some_and(Kind::private) {
            parts.push("private".into());
        }
        if let Some(c) = &self.cgroup {
            parts.push(format!("cgroup-{c}"));
        }
        if self.rlimits {
            parts.push("rlimits".into());
        }
        if let Some(c) = self.cores {
            parts.push(c.into());
        }
        if let Some(word) = self.sandbox.and_then(Kind::label) {
            parts.push(word.into());
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join("+")
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "isolation: {}", self.label())?;
        for m in &self.missing {
            write!(f, "; not available: {m}")?;
        }
        Ok(())
    }
}

/// The variable every JVM reads its options from.
pub const JAVA_OPTIONS: &str = "JAVA_TOOL_OPTIONS";

/// The environment a candidate gets: PATH as the harness's (the candidate
/// was found on it), HOME and TMPDIR its scratch folder, LANG C.UTF-8,
/// [`JAVA_OPTIONS`] giving a JVM three quarters of the case's memory
/// limit as its heap (by itself it takes a quarter of the cgroup it sees: 512
/// MiB of 2 GiB, where a program that solves a puzzle in a second on a
/// lab machine runs out), and the `--env` pairs (a course's `[java]`
/// among them), which win. Nothing else of the harness's environment
/// leaks.
pub fn environment(scratch: &Path, isolation: &Isolation) -> Vec<(OsString, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut env = vec![
        ("PATH".into(), path),
        ("HOME".into(), scratch.as_os_str().to_owned()),
        ("TMPDIR".into(), scratch.as_os_str().to_owned()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    let heap_mib = (isolation.memory_limit / 4 * 3) >> 20;
    if heap_mib > 0 {
        env.push((JAVA_OPTIONS.into(), format!("-Xmx{heap_mib}m").into()));
    }
    for (k, v) in &isolation.env {
        env.retain(|(name, _)| name != k);
        env.push((k.clone(), v.clone()));
    }
    env
}

/// Whether cases must run one at a time: under Landlock as an ordinary
/// user without cgroups, every case's processes count against the user's
/// one process budget (RLIMIT_NPROC), so a fork bomb would fail its
/// neighbours' forks. More than one job asked for (`--jobs`) is refused,
/// saying why; the machine's count is brought to one, and `level` says so.
pub(in crate::executor) fn one_at_a_time(
    isolation: &Isolation,
    level: &mut Level,
    cgroups: bool,
) -> anyhow::Result<bool> {
    let shared = level.sandbox == Some(Kind::Landlock) && level.uid_base.is_none() && !cgroups;
    if !shared || isolation.slots <= 1 {
        return Ok(false);
    }
    if isolation.slots_asked {
        anyhow::bail!(
            "--jobs {}: under Landlock as an ordinary user, every case's processes count against this user's one process budget (no user or cgroup of a case's own here): one student's fork bomb would fail a neighbour's forks; grade with --jobs 1, or where bubblewrap works, or as root",
            isolation.slots
        );
    }
    level.missing.push(
        "more than one case at a time (Landlock as an ordinary user: every case's processes count against this user's one process budget): one case at a time".into(),
    );
    Ok(true)
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether user `uid` (group `gid`, no other groups: a slot's user) can
/// reach `path`: search every folder on the way, enter it when it is a
/// folder, and read it when it is a file (`exec`: run it too). `Err` says
/// what stops it, naming the first place that does.
pub fn reachable(path: &Path, (uid, gid): (u32, u32), exec: bool) -> Result<(), ExecError> {
    use std::os::unix::fs::MetadataExt;
    if uid == 0 {
        return Ok(());
    }
    let path = path
        .canonicalize()
        .map_err(|e| ExecError::io("reach", path, e))?;
    // The permission bits that apply to this user: owner, group, or others.
    let may = |meta: &std::fs::Metadata, bit: u32| {
        let shift = if meta.uid() == uid {
            6
        } else if meta.gid() == gid {
            3
        } else {
            0
        };
        meta.mode() & (bit << shift) != 0
    };
    for dir in path.ancestors().skip(1) {
        let meta = std::fs::metadata(dir).map_err(|e| ExecError::io("reach", dir, e))?;
        if !may(&meta, 0o1) {
            return Err(ExecError::Closed {
                folder: dir.to_owned(),
            });
        }
    }
    let meta = std::fs::metadata(&path).map_err(|e| ExecError::io("reach", &path, e))?;
    let (bits, what) = if meta.is_dir() {
        (0o1, "enter")
    } else if exec {
        (0o1, "run")
    } else {
        (0o4, "read")
    };
    // A script is read by its interpreter as well as run.
    let script = exec && !meta.is_dir() && std::fs::read(&path).is_ok_and(|b| b.starts_with(b"#!"));
    if !may(&meta, bits) || (script && !may(&meta, 0o4)) {
        let what = if script { "read and run" } else { what };
        return Err(ExecError::Forbidden { what, path });
    }
    Ok(())
}

/// Whether each sandbox can work here, asked only when it matters.
pub(in crate::executor) struct Probes<'a> {
    /// The native one (mount namespaces, as root).
    pub native: &'a dyn Fn() -> Result<(), ExecError>,
    /// bubblewrap.
    pub bwrap: &'a dyn Fn() -> Result<(), ExecError>,
    /// Landlock, and what it refuses beyond the file system.
    pub landlock: &'a dyn Fn() -> Result<Vec<&'static str>, ExecError>,
}

/// A sandbox asked for by name (`--sandbox bwrap`, `landlock`) that cannot
/// work here: an error, never a weaker one.
pub(in crate::executor) fn forced(isolation: &Isolation, probes: &Probes) -> anyhow::Result<()> {
    let why = match isolation.sandbox {
        SandboxChoice::Bwrap => (probes.bwrap)().err(),
        SandboxChoice::Landlock => (probes.landlock)().err(),
        SandboxChoice::Auto | SandboxChoice::None => None,
    };
    match (why, isolation.sandbox) {
        (Some(why), SandboxChoice::Bwrap) => anyhow::bail!("--sandbox bwrap: {why}"),
        (Some(why), _) => anyhow::bail!("--sandbox landlock: {why}"),
        (None, _) => Ok(()),
    }
}

/// Looks at the machine and settles what is in force for `isolation`
/// (`probes`: whether each sandbox works here). As root the native
/// sandbox, else bubblewrap, else none, saying why: root in a container
/// with its engine's default privileges gets a user per slot, rlimits and
/// copies, and the line says what it lacks.
pub(in crate::executor) fn settle(
    isolation: &Isolation,
    cgroups: &Option<Cgroups>,
    cgroup_why: Option<String>,
    probes: &Probes,
) -> Level {
    let mut level = Level::default();
    if !isolation.enabled {
        level
            .missing
            .push("isolation turned off (--isolation none)".into());
        return level;
    }
    level.copies = true;
    level.rlimits = true;
    let root = is_root();
    // Where no view can be made: Landlock, else nothing (`why`: what
    // stops the views).
    let landlock = |level: &mut Level, why: String| {
        match (probes.landlock)() {
        Ok(extras) => {
            level.sandbox = Some(Kind::Landlock);
            level.missing.push(format!(
                "a view of its own ({why}): Landlock closes /tmp, /var/tmp, /dev/shm, the suites and other cases' files instead (TMPDIR is the case's scratch folder){}",
                extras.iter().map(|e| format!("; {e}")).collect::<String>()
            ));
        }
        Err(landlock) if root => level.missing.push(format!(
            "a view of its own ({why}; {landlock}): /tmp, /var/tmp and /dev/shm are shared, and the suites and other students' copies are in sight"
        )),
        Err(landlock) => level.missing.push(format!(
            "a sandbox ({why}; {landlock}): candidates can signal the harness and write what it can, and see /tmp, the suites and other cases' files"
        )),
    }
    };
    match isolation.sandbox {
        SandboxChoice::Bwrap => level.sandbox = Some(Kind::Bwrap),
        SandboxChoice::Landlock => level.sandbox = Some(Kind::Landlock),
        SandboxChoice::Auto if !root => match (probes.bwrap)() {
            Ok(()) => level.sandbox = Some(Kind::Bwrap),
            Err(why) => landlock(&mut level, why.to_string()),
        },
        SandboxChoice::None if !root => level.missing.push(
            "a sandbox (--sandbox none): candidates can signal the harness and write what it can, and see /tmp, the suites and other cases' files".into(),
        ),
        SandboxChoice::None => level.missing.push(
            "a view of its own (--sandbox none): /tmp, /var/tmp and /dev/shm are shared, and the suites and other students' copies are in sight".into(),
        ),
        SandboxChoice::Auto => match (probes.native)() {
            Ok(()) => level.sandbox = Some(Kind::Native),
            Err(native) => match (probes.bwrap)() {
                Ok(()) => level.sandbox = Some(Kind::Bwrap),
                Err(bwrap) => landlock(&mut level, format!("{native}; {bwrap}")),
            },
        },
    }
    match isolation.run_as {
        // The range itself is claimed by the executor (super::uids).
        RunAs::Auto if root => {
            level.uid_base = Some(isolation.uid_base.unwrap_or(super::uids::FIRST))
        }
        RunAs::Auto if level.sandbox == Some(Kind::Bwrap) => level.missing.push(
            "another user (the harness is not root): bubblewrap keeps candidates from the harness's processes and files".into(),
        ),
        RunAs::Auto if level.sandbox == Some(Kind::Landlock) => level.missing.push(
            "another user (the harness is not root): Landlock keeps candidates from the harness's files, from ptrace and, where the kernel scopes them, from its signals".into(),
        ),
        RunAs::Auto => level
            .missing
            .push("another user (the harness is not root)".into()),
        RunAs::Harness => level
            .missing
            .push("another user (--run-as harness)".into()),
    }
    match cgroups {
        Some(c) => level.cgroup = Some(c.layout_name().into()),
        None if isolation.cgroups => level.missing.push(format!(
            "cgroups ({}): no memory limit, a process limit only by RLIMIT_NPROC, and {}",
            cgroup_why.unwrap_or_else(|| "none could be made".into()),
            if level.uid_base.is_some() {
                "escapees die by their user after each case"
            } else {
                "escapees die only when the run ends"
            }
        )),
        None => level.missing.push("cgroups (--cgroups off)".into()),
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_is_a_documented_minimum() {
        let mut isolation = Isolation {
            memory_limit: 2 << 30,
            env: vec![
                ("JAVA_OPTS".into(), "-Xmx1g".into()),
                ("LANG".into(), "C".into()),
            ],
            ..Isolation::default()
        };
        let env = environment(Path::new("/s"), &isolation);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            names,
            ["PATH", "HOME", "TMPDIR", JAVA_OPTIONS, "JAVA_OPTS", "LANG"]
        );
        assert_eq!(env[1].1, "/s");
        // Three quarters of 2 GiB for a JVM's heap, not its own quarter.
        assert_eq!(env[3].1, "-Xmx1536m");
        assert_eq!(env[5].1, "C");
        // A course's [java] (a --env of it) wins.
        isolation.env = vec![(JAVA_OPTIONS.into(), "-Xmx3g".into())];
        let env = environment(Path::new("/s"), &isolation);
        assert_eq!(env.last().unwrap().1, "-Xmx3g");
        assert_eq!(env.iter().filter(|(k, _)| k == JAVA_OPTIONS).count(), 1);
    }

    #[test]
    fn what_a_slot_user_can_reach() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        mode(dir.path(), 0o755);
        let closed = dir.path().join("closed");
        std::fs::create_dir(&closed).unwrap();
        mode(&closed, 0o700);
        let hidden = closed.join("solver");
        std::fs::write(&hidden, "#!/bin/sh\n").unwrap();
        mode(&hidden, 0o755);
        let open = dir.path().join("solver");
        std::fs::write(&open, "#!/bin/sh\n").unwrap();
        mode(&open, 0o711);
        let someone = (4_000_000, 4_000_000);
        let said = |r: Result<(), ExecError>| r.map_err(|e| e.to_string());
        assert_eq!(
            said(reachable(&hidden, someone, true)),
            Err(format!(
                "the folder {} is closed to it",
                closed.canonicalize().unwrap().display()
            ))
        );
        let open_real = open.canonicalize().unwrap();
        assert_eq!(
            said(reachable(&open, someone, true)),
            Err(format!("it cannot read and run {}", open_real.display())),
            "a script must be readable"
        );
        mode(&open, 0o755);
        assert_eq!(said(reachable(&open, someone, true)), Ok(()));
        assert_eq!(said(reachable(dir.path(), someone, false)), Ok(()));
        assert_eq!(
            said(reachable(&hidden, (0, 0), true)),
            Ok(()),
            "root reaches all"
        );
        let owner = std::fs::metadata(&closed).map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.uid(), m.gid())
        });
        assert_eq!(
            said(reachable(&hidden, owner.unwrap(), true)),
            Ok(()),
            "its owner"
        );
    }

    #[test]
    fn labels_say_what_is_in_force() {
        let mut l = Level {
            copies: true,
            rlimits: true,
            ..Level::default()
        };
        assert_eq!(l.label(), "copies+rlimits");
        l.uid_base = Some(60_000);
        l.cgroup = Some("v1+unified".into());
        assert_eq!(l.label(), "copies+uid+cgroup-v1+unified+rlimits");
        l.sandbox = Some(Kind::Landlock);
        assert_eq!(
            l.label(),
            "copies+uid+cgroup-v1+unified+rlimits+landlock",
            "no private view: only what Landlock closes"
        );
        assert_eq!(Level::default().label(), "none");
    }

    /// Where no view can be made (a container, or no bubblewrap), the
    /// tier is Landlock's, said with what it lacks and what it refuses;
    /// without Landlock, nothing, said too; asked for by name where it
    /// cannot work, an error.
    #[test]
    fn landlock_stands_in_where_no_view_can_be_made() {
        let refused = || {
            Err(ExecError::Unusable {
                sandbox: "x",
                why: "refused".into(),
            })
        };
        let extras = || Ok(vec!["no TCP bind or connect"]);
        let probes = Probes {
            native: &refused,
            bwrap: &refused,
            landlock: &extras,
        };
        let level = settle(&Isolation::default(), &None, None, &probes);
        assert_eq!(level.sandbox, Some(Kind::Landlock));
        let said = level.missing[0].as_str();
        assert!(said.starts_with("a view of its own (x refused"), "{said}");
        assert!(
            said.ends_with("Landlock closes /tmp, /var/tmp, /dev/shm, the suites and other cases' files instead (TMPDIR is the case's scratch folder); no TCP bind or connect"),
            "{said}"
        );
        let none = || {
            Err(ExecError::Unusable {
                sandbox: "landlock",
                why: "is not enforced".into(),
            })
        };
        let probes = Probes {
            native: &refused,
            bwrap: &refused,
            landlock: &none,
        };
        let level = settle(&Isolation::default(), &None, None, &probes);
        assert_eq!(level.sandbox, None);
        assert!(
            level.missing[0].contains("landlock is not enforced"),
            "{:?}",
            level.missing
        );
        let asked = Isolation {
            sandbox: SandboxChoice::Landlock,
            ..Isolation::default()
        };
        assert_eq!(
            forced(&asked, &probes).unwrap_err().to_string(),
            "--sandbox landlock: landlock is not enforced"
        );
        assert!(forced(&Isolation::default(), &probes).is_ok());
    }
}
