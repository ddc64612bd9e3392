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

use super::ExecError;
use super::cgroup::Cgroups;

/// Who candidates run as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAs {
    /// A uid per job slot when the harness is root; else as the harness.
    Auto,
    /// As the harness's own user (trusted candidates, or a test box).
    Harness,
}

/// An optional outer sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sandbox {
    /// The strongest the machine allows: as root, none around the case (a
    /// user per slot and the trampoline's own namespaces do it); as
    /// another user, bubblewrap where it works.
    Auto,
    /// None.
    None,
    /// bubblewrap: read-only system, no network, only the scratch folder
    /// writable, a PID namespace of its own.
    Bwrap,
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
    /// range no other run on this machine holds (see [`super::uids`]).
    pub uid_base: Option<u32>,
    /// Job slots: the uids a run claims.
    pub slots: usize,
    /// Whether to put each case in a cgroup when one can be made.
    pub cgroups: bool,
    /// Memory of a case's whole process tree, in bytes.
    pub memory_limit: u64,
    /// Processes and threads of a case at once.
    pub pids_limit: u64,
    /// The largest file a candidate may write (RLIMIT_FSIZE).
    pub file_size_limit: u64,
    /// The outer sandbox.
    pub sandbox: Sandbox,
    /// `--env NAME=VALUE` pairs, added to the minimum.
    pub env: Vec<(OsString, OsString)>,
    /// Folders no case may see (the suites, a class's submissions, a
    /// contest's entries): each is an empty private folder in a case's view.
    pub hide: Vec<PathBuf>,
}

impl Default for Isolation {
    fn default() -> Self {
        Self {
            enabled: true,
            run_as: RunAs::Auto,
            uid_base: None,
            slots: 1,
            cgroups: true,
            memory_limit: 2 << 30,
            pids_limit: 256,
            file_size_limit: 64 << 20,
            sandbox: Sandbox::Auto,
            env: Vec::new(),
            hide: Vec::new(),
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
    /// A view of the file system per case: private /tmp, /var/tmp,
    /// /dev/shm and /run/lock, the scratch folders, suites and other
    /// submissions out of sight (see `view`).
    pub private: bool,
    /// bubblewrap around each case.
    pub bwrap: bool,
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
        if self.private {
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
        if self.bwrap {
            parts.push("bwrap".into());
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

/// The environment a candidate gets: PATH as the harness's (the candidate
/// was found on it), HOME and TMPDIR its scratch folder, LANG C.UTF-8, and
/// the `--env` pairs. Nothing else of the harness's environment leaks.
pub fn environment(scratch: &Path, extra: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut env = vec![
        ("PATH".into(), path),
        ("HOME".into(), scratch.as_os_str().to_owned()),
        ("TMPDIR".into(), scratch.as_os_str().to_owned()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    for (k, v) in extra {
        env.retain(|(name, _)| name != k);
        env.push((k.clone(), v.clone()));
    }
    env
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The folder, inside a run's folder, that finished scratch folders are
/// moved to before they are removed.
const TRASH: &str = "retired";

/// The run's own folder: one scratch folder per case below it. Mode 0711:
/// a candidate can reach its own scratch by path but not list the others.
pub struct RunDir {
    dir: tempfile::TempDir,
}

/// Whether user `uid` (group `gid`, no other groups: a slot's user) can
/// reach `path`: search every folder on the way, enter it when it is a
/// folder, and read it when it is a file (`exec`: run it too). `Err` says
/// what stops it, naming the first place that does.
pub fn reachable(path: &Path, (uid, gid): (u32, u32), exec: bool) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    if uid == 0 {
        return Ok(());
    }
    let path = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
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
        let meta = std::fs::metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !may(&meta, 0o1) {
            return Err(format!("the folder {} is closed to it", dir.display()));
        }
    }
    let meta = std::fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
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
        return Err(format!("it cannot {what} {}", path.display()));
    }
    Ok(())
}

/// Where scratch folders go: `$PUZZLEGRADE_SCRATCH` when set; else, when
/// every case has a memory cgroup (`charged`), `/dev/shm` if it is a
/// tmpfs folder (no disk inode churn per case, and what a
/// candidate writes there is charged to its memory limit); else the
/// system's temporary folder.
pub fn scratch_base(charged: bool) -> PathBuf {
    if let Some(dir) = std::env::var_os("PUZZLEGRADE_SCRATCH") {
        return dir.into();
    }
    let shm = Path::new("/dev/shm");
    if charged && shm.is_dir() {
        return shm.to_owned();
    }
    std::env::temp_dir()
}

impl RunDir {
    /// A fresh folder under `base`.
    pub fn new(base: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("puzzlegrade-run-")
            .tempdir_in(base)?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711))?;
        let trash = dir.path().join(TRASH);
        std::fs::create_dir(&trash)?;
        std::fs::set_permissions(&trash, std::fs::Permissions::from_mode(0o700))?;
        Ok(Self { dir })
    }

    /// Takes a finished case's scratch folder out of every candidate's
    /// reach at once, by moving it into the run's own 0700 folder, before
    /// it is removed in the background: the next case on the same job slot
    /// runs as the same user and must not find the last one's files.
    /// Where the move fails, the folder is given to the harness's user.
    pub fn retire(&self, mut scratch: Scratch) -> Scratch {
        let Some(name) = scratch.path.file_name() else {
            return scratch;
        };
        let target = self.dir.path().join(TRASH).join(name);
        if std::fs::rename(&scratch.path, &target).is_ok() {
            scratch.path = target;
        } else {
            let me = (rustix::process::geteuid(), rustix::process::getegid());
            let _ =
                std::os::unix::fs::chown(&scratch.path, Some(me.0.as_raw()), Some(me.1.as_raw()));
        }
        scratch
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where case `id`'s trampoline writes why it failed (the harness's,
    /// not the candidate's).
    pub fn error_file(&self, id: usize) -> PathBuf {
        self.dir.path().join(format!("case-{id}.err"))
    }

    /// A new, empty scratch folder for case `id`, owned by `owner` (uid,
    /// gid) when given, mode 0700.
    pub fn scratch(&self, id: usize, owner: Option<(u32, u32)>) -> std::io::Result<Scratch> {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.path().join(format!("case-{id}"));
        std::fs::create_dir(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(gid))?;
        }
        Ok(Scratch { path, owner })
    }
}

/// One case's scratch folder; removed when dropped.
pub struct Scratch {
    path: PathBuf,
    owner: Option<(u32, u32)>,
}

impl Scratch {
    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Copies `files` in and returns the copies' paths, in order: from
    /// `contents` (the bytes the harness read when it loaded the puzzle)
    /// where given, else read now as the reference reads puzzles (regular
    /// files only, at most `cap` bytes). Names are kept; a name used twice
    /// gets a numbered prefix.
    pub fn copy_in(
        &self,
        files: &[PathBuf],
        contents: Option<&[Vec<u8>]>,
        cap: u64,
    ) -> Result<Vec<PathBuf>, ExecError> {
        let mut out: Vec<PathBuf> = Vec::with_capacity(files.len());
        for (i, file) in files.iter().enumerate() {
            let read;
            let bytes: &[u8] = match contents.and_then(|c| c.get(i)) {
                Some(b) => b,
                None => {
                    read =
                        reference::file::read_file_bounded::<std::convert::Infallible>(file, cap)
                            .map_err(|e| ExecError::Puzzle(e.to_string()))?;
                    &read
                }
            };
            let name = file
                .file_name()
                .map_or_else(|| format!("file{i}"), |n| n.to_string_lossy().into_owned());
            let mut target = self.path.join(&name);
            if out.contains(&target) {
                target = self.path.join(format!("{i}-{name}"));
            }
            std::fs::write(&target, bytes).map_err(|error| ExecError::CopyIn {
                path: file.clone(),
                error,
            })?;
            if let Some((uid, gid)) = self.owner {
                std::os::unix::fs::chown(&target, Some(uid), Some(gid)).map_err(|error| {
                    ExecError::Give {
                        path: target.clone(),
                        uid,
                        error,
                    }
                })?;
            }
            out.push(target);
        }
        Ok(out)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether bubblewrap can make a sandbox here, as this user: `Err` says
/// why not.
pub fn bwrap_here() -> Result<(), String> {
    let out = std::process::Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
        .args([
            "--unshare-all",
            "--new-session",
            "--die-with-parent",
            "--",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                "bwrap is not installed (Debian: apt-get install bubblewrap)".to_string()
            }
            _ => format!("cannot run bwrap: {e}"),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(format!(
        "bwrap cannot make a sandbox here: {}",
        said.lines().last().unwrap_or("no reason given").trim()
    ))
}

/// Looks at the machine and settles what is in force for `isolation`
/// (`bwrap`: whether bubblewrap works here, asked only when it matters).
pub fn settle(
    isolation: &Isolation,
    cgroups: &Option<Cgroups>,
    cgroup_why: Option<String>,
    bwrap: &dyn Fn() -> Result<(), String>,
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
    match isolation.sandbox {
        Sandbox::Bwrap => level.bwrap = true,
        Sandbox::Auto if !root => match bwrap() {
            Ok(()) => level.bwrap = true,
            Err(why) => level.missing.push(format!(
                "a sandbox ({why}): candidates can signal the harness and write what it can, and see /tmp, the suites and other cases' files"
            )),
        },
        Sandbox::None if !root => level.missing.push(
            "a sandbox (--sandbox none): candidates can signal the harness and write what it can, and see /tmp, the suites and other cases' files".into(),
        ),
        Sandbox::None => level.missing.push(
            "a view of its own (--sandbox none): /tmp, /var/tmp and /dev/shm are shared, and the suites and other students' copies are in sight".into(),
        ),
        Sandbox::Auto => {}
    }
    level.private = level.bwrap || (root && isolation.sandbox == Sandbox::Auto);
    match isolation.run_as {
        // The range itself is claimed by the executor (super::uids).
        RunAs::Auto if root => {
            level.uid_base = Some(isolation.uid_base.unwrap_or(super::uids::FIRST))
        }
        RunAs::Auto if level.bwrap => level.missing.push(
            "another user (the harness is not root): bubblewrap keeps candidates from the harness's processes and files".into(),
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
            "cgroups ({}): no memory limit, a process limit only by RLIMIT_NPROC, and escapees die only when the run ends",
            cgroup_why.unwrap_or_else(|| "none could be made".into())
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
        let env = environment(
            Path::new("/s"),
            &[
                ("JAVA_OPTS".into(), "-Xmx1g".into()),
                ("LANG".into(), "C".into()),
            ],
        );
        let names: Vec<&str> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(names, ["PATH", "HOME", "TMPDIR", "JAVA_OPTS", "LANG"]);
        assert_eq!(env[1].1, "/s");
        assert_eq!(env[4].1, "C");
    }

    /// A finished case's folder leaves the candidates' reach before the
    /// janitor removes it: the next case on the slot runs as the same user.
    #[test]
    fn a_retired_scratch_folder_is_out_of_reach_at_once() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let me = rustix::process::geteuid().as_raw();
        let scratch = run.scratch(7, Some((me, me))).unwrap();
        std::fs::write(scratch.path().join("answer"), "secret").unwrap();
        let old = scratch.path().to_owned();
        let retired = run.retire(scratch);
        assert!(!old.exists(), "the case's path is gone at once");
        assert_eq!(retired.path(), run.path().join(TRASH).join("case-7"));
        let trash = std::fs::metadata(run.path().join(TRASH)).unwrap();
        assert_eq!(trash.permissions().mode() & 0o777, 0o700);
        assert_eq!(trash.uid(), me, "the harness's own folder");
        assert!(retired.path().join("answer").exists());
        let path = retired.path().to_owned();
        drop(retired);
        assert!(!path.exists(), "and removed when dropped");
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
        assert_eq!(
            reachable(&hidden, someone, true),
            Err(format!(
                "the folder {} is closed to it",
                closed.canonicalize().unwrap().display()
            ))
        );
        let open_real = open.canonicalize().unwrap();
        assert_eq!(
            reachable(&open, someone, true),
            Err(format!("it cannot read and run {}", open_real.display())),
            "a script must be readable"
        );
        mode(&open, 0o755);
        assert_eq!(reachable(&open, someone, true), Ok(()));
        assert_eq!(reachable(dir.path(), someone, false), Ok(()));
        assert_eq!(reachable(&hidden, (0, 0), true), Ok(()), "root reaches all");
        let owner = std::fs::metadata(&closed).map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.uid(), m.gid())
        });
        assert_eq!(
            reachable(&hidden, owner.unwrap(), true),
            Ok(()),
            "its owner"
        );
    }

    #[test]
    fn copies_keep_names_and_refuse_odd_files() {
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let scratch = run.scratch(0, None).unwrap();
        let src = tempfile::tempdir().unwrap();
        let (a, b) = (src.path().join("x/t"), src.path().join("y/t"));
        std::fs::create_dir_all(a.parent().unwrap()).unwrap();
        std::fs::create_dir_all(b.parent().unwrap()).unwrap();
        std::fs::write(&a, "A").unwrap();
        std::fs::write(&b, "B").unwrap();
        let copies = scratch.copy_in(&[a.clone(), b.clone()], None, 10).unwrap();
        assert_eq!(copies[0], scratch.path().join("t"));
        assert_eq!(copies[1], scratch.path().join("1-t"));
        assert_eq!(std::fs::read(&copies[1]).unwrap(), b"B");
        // The bytes the harness loaded win over the file as it is now.
        let loaded = vec![b"a".to_vec(), b"b".to_vec()];
        let copies = scratch.copy_in(&[a, b], Some(&loaded), 10).unwrap();
        assert_eq!(std::fs::read(&copies[0]).unwrap(), b"a");
        let err = scratch
            .copy_in(&[PathBuf::from("/dev/zero")], None, 10)
            .unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let path = scratch.path().to_owned();
        drop(scratch);
        assert!(!path.exists(), "a scratch folder goes with its case");
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
        assert_eq!(Level::default().label(), "none");
    }
}
