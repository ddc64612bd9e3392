//! What a case's process does between its fork and the candidate's exec
//! (see `spawn`, which does it): join the case's cgroups, set rlimits,
//! keep to the job slot's cores, give up the terminal, enter the slot's
//! view of the file system (kept by the slot's keeper, see `keeper`) and
//! an IPC namespace of its own, drop to the slot's user (supplementary
//! groups dropped), then exec the candidate, or bubblewrap around it,
//! which makes the view itself. Its pid, process group, pipes, working
//! folder and environment are the candidate's.

use std::ffi::{OsStr, OsString};
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

use super::view::View;

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
    /// rlimits: `core`, `fsize`, `nproc`, `cpu`, with their values.
    pub rlimits: Vec<(String, u64)>,
    /// Run as this uid and gid.
    pub user: Option<(u32, u32)>,
    /// Keep to these cores.
    pub cpus: Vec<usize>,
    /// The mount namespace holding the case's view (the slot keeper's),
    /// to enter.
    pub namespace: Option<RawFd>,
    /// Wrap the candidate in bubblewrap, which makes this view.
    pub bwrap: Option<View>,
    /// Where bubblewrap reports that the candidate started (with `bwrap`):
    /// an open file the process hands it.
    pub report: Option<RawFd>,
}

impl Launch {
    /// The program and arguments the process execs: the candidate's, or
    /// bubblewrap's around them.
    pub fn exec_argv(&self) -> Vec<OsString> {
        let Some(view) = &self.bwrap else {
            return self.argv.clone();
        };
        let mut out: Vec<OsString> = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev"]
            .into_iter()
            .chain(["--proc", "/proc"])
            .map(OsString::from)
            .collect();
        // The whole system read-only; the view's private folders and what
        // it keeps (the scratch folder, the candidate's TMPDIR, writable;
        // a build's own folder too) on top.
        out.extend(view.bwrap_args());
        // bubblewrap says on this file when the candidate's process
        // exists: a failure before that is the sandbox's, not the
        // candidate's (see sandbox_started).
        if let Some(fd) = self.report {
            out.push("--info-fd".into());
            out.push(fd.to_string().into());
        }
        out.extend(
            [
                "--unshare-all",
                "--die-with-parent",
                "--new-session",
                "--chdir",
            ]
            .map(OsString::from),
        );
        out.push(self.cwd.clone().into_os_string());
        out.push("--".into());
        out.extend(self.argv.iter().cloned());
        out
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

/// Whether bubblewrap's report (`--info-fd`, written to `report`) says it
/// started the candidate. No `child-pid` there means the sandbox itself
/// failed, which is never the candidate's doing.
pub fn sandbox_started(report: &Path) -> bool {
    std::fs::read_to_string(report).is_ok_and(|t| t.contains("\"child-pid\""))
}

/// Why a case run under bubblewrap (its report at `report`) never started
/// the candidate, when it did not: bubblewrap's last words. It exits 1
/// then, as a candidate saying "no solution" would: our failure, never the
/// candidate's verdict. The report is removed.
pub fn sandbox_failure(report: &Path, result: &super::RunResult) -> Option<String> {
    let failed = !result.cancelled
        && !matches!(
            result.ending,
            super::Ending::Failed(_) | super::Ending::Exited(0)
        )
        && result.limit.is_none()
        && !sandbox_started(report);
    let _ = std::fs::remove_file(report);
    failed.then(|| {
        let said = String::from_utf8_lossy(&result.stderr.bytes);
        let last = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        format!(
            "the sandbox (bwrap) did not start the candidate: {}",
            last.trim()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::view::Step;

    #[test]
    fn bubblewrap_wraps_the_candidate_with_the_view() {
        let launch = Launch {
            argv: vec!["java".into(), "-cp".into(), "a b".into()],
            cwd: "/work/x y".into(),
            bwrap: Some(View {
                steps: vec![
                    Step::Private("/tmp".into()),
                    Step::Keep("/tmp/a b/scratch".into(), true),
                ],
                size: 1 << 20,
            }),
            report: Some(7),
            ..Launch::default()
        };
        let argv: Vec<String> = launch
            .exec_argv()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            argv,
            [
                "bwrap",
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--tmpfs",
                "/tmp",
                "--bind",
                "/tmp/a b/scratch",
                "/tmp/a b/scratch",
                "--info-fd",
                "7",
                "--unshare-all",
                "--die-with-parent",
                "--new-session",
                "--chdir",
                "/work/x y",
                "--",
                "java",
                "-cp",
                "a b"
            ]
        );
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
