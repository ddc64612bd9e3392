//! The bubblewrap sandbox (any user): `bwrap` wraps each case's candidate
//! and makes its view itself (the whole system read-only, the view's
//! private places and what it keeps on top), with namespaces of its own
//! (no network, a PID namespace) and a session of its own. Its report
//! (`--info-fd`) says whether it started the candidate: a failure before
//! that is the sandbox's, never the candidate's verdict.

use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::view::{Step, View};
use super::{Case, Entered, Sandbox};
use crate::executor::{Ending, ExecError, RunResult};

/// bubblewrap around each case; `program` starts the candidate inside it.
pub(super) struct Bwrap {
    pub program: super::Program,
}

impl Sandbox for Bwrap {
    fn enter(&self, case: &Case) -> Result<Entered, ExecError> {
        // The harness's file, not the candidate's.
        let path = case.run_dir.join(format!("case-{}.sandbox", case.id));
        let file = std::fs::File::create(&path)
            .map_err(|e| ExecError::io("make the sandbox's report", &path, e))?;
        let hand = seccomp()?;
        let around = Around {
            report: file.as_raw_fd(),
            seccomp: hand.iter().map(AsRawFd::as_raw_fd).collect(),
            network: case.network,
            cgroups: &case.cgroups,
            shim: self.program.exec_words(),
            failure: case.failure,
            nproc: case.nproc,
        };
        let wrap = words(case.view, case.cwd, &around);
        Ok(Entered {
            wrap,
            report: Some((path, file)),
            hand,
            pass: Some(case.failure),
            ..Entered::default()
        })
    }

    fn leave(&self, _: &Case, entered: Entered, result: &mut RunResult, _: bool) {
        if let Some((path, file)) = entered.report {
            drop(file);
            if let Some(why) = failure(&path, result) {
                result.ending = Ending::Failed(why);
            }
        }
        if let Ending::Exited(code @ 129..=192) = result.ending {
            // bubblewrap reports a child killed by signal N as 128 + N.
            result.ending = Ending::Signaled(code - 128);
        }
    }
}

/// The seccomp program (see `filter`) in a file of its own, at its start,
/// for bubblewrap to read and install before its exec.
fn seccomp() -> Result<Vec<std::fs::File>, ExecError> {
    use std::io::{Seek, Write};
    crate::executor::run::filter::program(false)
        .into_iter()
        .map(|program| {
            let fd =
                rustix::fs::memfd_create(c"puzzlegrade-seccomp", rustix::fs::MemfdFlags::CLOEXEC)
                    .map_err(|e| ExecError::system("make the case's seccomp program", e))?;
            let mut file = std::fs::File::from(fd);
            file.write_all(&crate::executor::run::filter::bytes(program))
                .and_then(|()| file.rewind())
                .map_err(|e| {
                    ExecError::io("write the case's seccomp program", Path::new("memfd"), e)
                })?;
            Ok(file)
        })
        .collect()
}

/// What bubblewrap puts around a case beyond its view: its report's and
/// seccomp programs' descriptors, whether it shares the network, its
/// cgroup's folder.
struct Around<'a> {
    report: i32,
    seccomp: Vec<i32>,
    network: bool,
    cgroups: &'a [crate::executor::cgroup::Place],
    /// What starts the candidate inside (see `run::shim`), saying on
    /// `failure` when it cannot, and with the case's own process budget
    /// (`nproc`), which its user namespace counts apart from every other
    /// case's.
    shim: Vec<OsString>,
    failure: i32,
    nproc: Option<u64>,
}

/// bubblewrap's words before the candidate's: the whole system
/// read-only, `view` on top, the cgroup folder the case may see (its
/// own, or none), then `around`'s descriptors, the working folder `cwd`.
fn words(view: &View, cwd: &Path, around: &Around) -> Vec<OsString> {
    let mut out: Vec<OsString> = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev"]
        .into_iter()
        .chain(["--proc", "/proc"])
        .map(OsString::from)
        .collect();
    // The view's private folders and what it keeps (the scratch folder,
    // the candidate's TMPDIR, writable; a build's own folder too).
    for step in &view.steps {
        match step {
            // Each capped at the view's size (bubblewrap's --size applies
            // to the --tmpfs after it).
            Step::Private(p) => {
                out.push("--size".into());
                out.push(view.size.max(1 << 20).to_string().into());
                out.push("--tmpfs".into());
                out.push(p.into());
            }
            Step::Keep(p, writable) => {
                out.push(if *writable { "--bind" } else { "--ro-bind" }.into());
                out.push(p.into());
                out.push(p.into());
            }
        }
    }
    // Of the cgroups, its own alone, each at its hierarchy's place
    // (bubblewrap's cgroup namespace is rooted there), or nothing.
    let cgroups = OsString::from("/sys/fs/cgroup");
    out.extend([
        "--size".into(),
        "4096".into(),
        "--tmpfs".into(),
        cgroups.clone(),
    ]);
    for place in around.cgroups {
        out.extend([
            "--ro-bind".into(),
            place.dir.clone().into(),
            place.point.clone().into(),
        ]);
    }
    out.extend(["--remount-ro".into(), cgroups]);
    // bubblewrap says on this file when the candidate's process exists.
    out.push("--info-fd".into());
    out.push(around.report.to_string().into());
    for fd in &around.seccomp {
        out.push("--add-seccomp-fd".into());
        out.push(fd.to_string().into());
    }
    out.push("--unshare-all".into());
    // (After `--unshare-all`, which would undo it.)
    if around.network {
        out.push("--share-net".into());
    }
    out.extend(["--die-with-parent", "--new-session", "--chdir"].map(OsString::from));
    out.push(cwd.as_os_str().to_owned());
    out.push("--".into());
    out.extend(around.shim.iter().cloned());
    out.push(around.failure.to_string().into());
    out.push(around.nproc.map_or("-".into(), |n| n.to_string()).into());
    out
}

/// Whether bubblewrap can make a sandbox here, as this user.
pub(super) fn usable() -> Result<(), ExecError> {
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
            std::io::ErrorKind::NotFound => ExecError::Unusable {
                sandbox: "bwrap",
                why: "it is not installed (Debian: apt-get install bubblewrap)".into(),
            },
            _ => ExecError::Unusable {
                sandbox: "bwrap",
                why: format!("it cannot be run: {e}"),
            },
        })?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(ExecError::Unusable {
        sandbox: "bwrap",
        why: format!(
            "it cannot make a sandbox here: {}",
            said.lines().last().unwrap_or("no reason given").trim()
        ),
    })
}

/// Whether bubblewrap's report (`--info-fd`, written to `report`) says it
/// started the candidate. No `child-pid` there means the sandbox itself
/// failed, which is never the candidate's doing.
fn started(report: &Path) -> bool {
    std::fs::read_to_string(report).is_ok_and(|t| t.contains("\"child-pid\""))
}

/// Why a case run under bubblewrap (its report at `report`) never started
/// the candidate, when it did not: bubblewrap's last words. It exits 1
/// then, as a candidate saying "no solution" would: our failure, never the
/// candidate's verdict. The report is removed.
fn failure(report: &Path, result: &RunResult) -> Option<String> {
    let failed = !result.cancelled
        && !matches!(result.ending, Ending::Failed(_) | Ending::Exited(0))
        && result.limit.is_none()
        && !started(report);
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

    #[test]
    fn bubblewrap_wraps_the_candidate_with_the_view() {
        let view = View {
            steps: vec![
                Step::Private("/tmp".into()),
                Step::Keep("/tmp/a b/scratch".into(), true),
            ],
            size: 1 << 20,
        };
        let around = Around {
            report: 7,
            seccomp: vec![8],
            network: false,
            cgroups: &[],
            shim: vec!["/bin/harness-exec".into(), "exec".into()],
            failure: 10,
            nproc: Some(256),
        };
        let argv: Vec<String> = words(&view, Path::new("/work/x y"), &around)
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
                "--size",
                "1048576",
                "--tmpfs",
                "/tmp",
                "--bind",
                "/tmp/a b/scratch",
                "/tmp/a b/scratch",
                "--size",
                "4096",
                "--tmpfs",
                "/sys/fs/cgroup",
                "--remount-ro",
                "/sys/fs/cgroup",
                "--info-fd",
                "7",
                "--add-seccomp-fd",
                "8",
                "--unshare-all",
                "--die-with-parent",
                "--new-session",
                "--chdir",
                "/work/x y",
                "--",
                "/bin/harness-exec",
                "exec",
                "10",
                "256",
            ]
        );
    }

    #[test]
    fn a_sandbox_that_never_started_the_candidate_is_our_failure() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report");
        let mut result = RunResult::ended(Ending::Exited(1), std::time::Duration::ZERO);
        result.stderr = crate::executor::Capture::of(b"bwrap: Can't fork for pid 1: EAGAIN\n");
        std::fs::write(&report, "{}").unwrap();
        assert_eq!(
            failure(&report, &result).as_deref(),
            Some(
                "the sandbox (bwrap) did not start the candidate: bwrap: Can't fork for pid 1: EAGAIN"
            )
        );
        assert!(!report.exists(), "the report is removed");
        std::fs::write(&report, "{\"child-pid\": 12}").unwrap();
        assert_eq!(
            failure(&report, &result),
            None,
            "it started: the candidate's exit"
        );
    }
}
