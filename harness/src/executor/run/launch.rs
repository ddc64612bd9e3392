//! What a case's process does between its fork and the candidate's exec
//! (see `spawn`, which does it): join the case's cgroups, set rlimits,
//! keep to the job slot's cores, give up the terminal, enter the slot's
//! view of the file system (kept by the slot's keeper, see `keeper`) and
//! an IPC namespace of its own, drop to the slot's user (supplementary
//! groups dropped), then exec the candidate, or the sandbox's program
//! around it (bubblewrap, which makes the view itself). Its pid, process group, pipes, working
//! folder and environment are the candidate's.

use std::ffi::{OsStr, OsString};
use std::os::fd::RawFd;
use std::path::PathBuf;

use rustix::process::Resource;

/// The exit status of a case's process that could not start the candidate.
pub const FAILED: i32 = 125;

/// What a case's process does before it becomes the candidate.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// The candidate: program and arguments (its files included).
    pub argv: Vec<OsString>,
    /// The working folder.
    pub cwd: PathBuf,
    /// The whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// Open cgroup join files to write to: whether the process writes `0`
    /// (v1's `tasks`: it moves itself, no grace period) or its pid
    /// (`cgroup.procs`).
    pub join: Vec<(RawFd, bool)>,
    /// rlimits (core, file size, processes, CPU seconds), with their
    /// values.
    pub rlimits: Vec<(rustix::process::Resource, u64)>,
    /// Run as this uid and gid.
    pub user: Option<(u32, u32)>,
    /// Keep to these cores.
    pub cpus: Vec<usize>,
    /// The mount namespace holding the case's view (the slot keeper's),
    /// to enter.
    pub namespace: Option<RawFd>,
    /// Else the namespaces of a job slot's bubblewrap holder to enter
    /// (see `hop`), with an IPC namespace of its own.
    pub hop: Option<super::hop::Hop>,
    /// The sandbox's program around the candidate, if any: its words
    /// before the candidate's.
    pub wrap: Vec<OsString>,
    /// A network namespace to enter (the slot keeper's: a loopback of
    /// the slot's own).
    pub network: Option<RawFd>,
    /// A cgroup namespace of the case's own, rooted at its cgroups, and
    /// these hierarchies mounted again from inside it, each at its place
    /// (in a mount namespace of the case's own, made from the slot's
    /// view): the case sees its own cgroups alone.
    pub cgroup_view: Vec<crate::executor::cgroup::Place>,
    /// Else a cgroup namespace to enter (its job slot's, whose view the
    /// slot's mount namespace holds already).
    pub cgroup_ns: Option<RawFd>,
    /// No socket but a Unix one (a case with no network of its own).
    pub offline: bool,
    /// Open files the case's process hands on to the sandbox's program
    /// (bubblewrap's report, its seccomp programs).
    pub hand: Vec<RawFd>,
    /// No privilege gained by exec (`no_new_privs`: a set-user-ID program
    /// runs as the case's user), where no sandbox program around the case
    /// needs its own.
    pub no_new_privs: bool,
    /// A Landlock ruleset to apply, after `no_new_privs` (the sandbox's).
    pub landlock: Vec<RawFd>,
    /// System V IPC and POSIX queues allowed even without an IPC
    /// namespace of its own (a course part asked).
    pub ipc: bool,
}

impl Launch {
    /// The program and arguments the process execs: the candidate's, or
    /// the sandbox's around them.
    pub fn exec_argv(&self) -> Vec<OsString> {
        self.wrap.iter().chain(&self.argv).cloned().collect()
    }

    /// What its seccomp filter refuses beyond every case's: sockets but
    /// Unix ones when offline; IPC where the case shares the IPC
    /// namespace (no native view's) and its part did not ask for it.
    pub fn rules(&self) -> super::filter::Rules {
        super::filter::Rules {
            offline: self.offline,
            shared_ipc: self.namespace.is_none() && self.hop.is_none() && !self.ipc,
        }
    }
}

/// Where `program` may be, in the order `execvp` tries them: itself when
/// it names a path (a relative one from the working folder, by the
/// kernel), else each executable file of that name on `path` (a `PATH`
/// value). The case's process tries each as the slot's user, in its view,
/// and goes on past one it may not run, as `execvp` does.
pub fn find_program(program: &OsStr, path: Option<&OsStr>) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    if program.as_bytes().contains(&b'/') {
        return vec![PathBuf::from(program)];
    }
    if program.is_empty() {
        return Vec::new();
    }
    let path = path.unwrap_or(OsStr::new("/usr/local/bin:/usr/bin:/bin"));
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .collect()
}

/// The harness's own hard limit on `resource` (read once: it does not
/// change while the harness runs).
pub(super) fn hard_limit(resource: Resource) -> Option<u64> {
    static HARD: std::sync::OnceLock<[Option<u64>; 4]> = std::sync::OnceLock::new();
    let all = [
        Resource::Core,
        Resource::Fsize,
        Resource::Nproc,
        Resource::Cpu,
    ];
    let hard = HARD.get_or_init(|| all.map(|r| rustix::process::getrlimit(r).maximum));
    all.iter()
        .position(|&r| r == resource)
        .and_then(|i| hard[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_wraps_the_candidate() {
        let launch = Launch {
            argv: vec!["./lo".into(), "b.txt".into()],
            wrap: vec!["bwrap".into(), "--".into()],
            ..Launch::default()
        };
        assert_eq!(launch.exec_argv(), ["bwrap", "--", "./lo", "b.txt"]);
        let plain = Launch {
            argv: vec!["./lo".into(), "b.txt".into()],
            ..Launch::default()
        };
        assert_eq!(plain.exec_argv(), plain.argv);
    }

    #[test]
    fn programs_are_found_as_execvp_finds_them() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("solver"), "x").unwrap(); // not executable
        std::fs::write(b.join("solver"), "x").unwrap();
        std::fs::set_permissions(b.join("solver"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir_all(dir.path().join("c")).unwrap();
        std::fs::copy(b.join("solver"), dir.path().join("c/solver")).unwrap();
        let path = std::env::join_paths([&a, &b, &dir.path().join("c")]).unwrap();
        assert_eq!(
            find_program(OsStr::new("solver"), Some(&path)),
            [b.join("solver"), dir.path().join("c/solver")],
            "every executable one, in order"
        );
        assert!(find_program(OsStr::new("nothing"), Some(&path)).is_empty());
        assert_eq!(
            find_program(OsStr::new("./lo"), Some(&path)),
            [PathBuf::from("./lo")],
            "a path is the kernel's to find, from the working folder"
        );
    }
}
