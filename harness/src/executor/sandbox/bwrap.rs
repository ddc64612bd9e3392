//! The bubblewrap sandbox (any user): `bwrap` wraps each case's candidate
//! and makes its view itself (the whole system read-only, the view's
//! private places and what it keeps on top), with namespaces of its own
//! (no network, a PID namespace) and a session of its own. The shim it
//! runs says whether it reached the candidate's exec (see `run::shim`): a
//! failure before that is the sandbox's, never the candidate's verdict.

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
        let hand = seccomp()?;
        let around = Around {
            seccomp: hand.iter().map(AsRawFd::as_raw_fd).collect(),
            network: case.network,
            cgroups: &case.cgroups,
            shim: self.program.exec_words(),
            failure: case.failure,
            nproc: case.nproc,
            scratch: case.scratch,
        };
        let wrap = words(case.view, case.cwd, &around);
        Ok(Entered {
            wrap,
            hand,
            pass: Some(case.failure),
            ..Entered::default()
        })
    }

    fn leave(&self, _: &Case, entered: Entered, result: &mut RunResult, _: bool) {
        if let Some((why, own)) = failure(entered.reached, result) {
            result.ending = Ending::Failed(why);
            result.unstarted = own;
        }
        if let Ending::Exited(code @ 129..=192) = result.ending {
            // bubblewrap reports a child killed by signal N as 128 + N.
            result.ending = Ending::Signaled(code - 128);
        }
    }
}

/// bubblewrap's words that make a job slot's kept sandbox (see `kept`)
/// for `view`, before its holder's: as [`words`] for a case, with the
/// slot's whole folder (`slot`) kept writable, /dev read-only, and no
/// program of the case's: the holder runs as its pid 1 and bubblewrap
/// says its pid on descriptor 3.
pub(super) fn held_words(view: &View, slot: &Path, network: bool) -> Vec<OsString> {
    let around = Around {
        seccomp: Vec::new(),
        network,
        cgroups: &[],
        shim: Vec::new(),
        failure: -1,
        nproc: None,
        scratch: (slot, slot),
    };
    let mut out: Vec<OsString> = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev"]
        .into_iter()
        .chain(["--remount-ro", "/dev", "--proc", "/proc"])
        .map(OsString::from)
        .collect();
    for step in &view.steps {
        step_words(step, view, &around, &mut out);
    }
    beside_outputs(view, &around, &mut out);
    out.extend(
        ["--size", "4096", "--tmpfs", "/sys/fs/cgroup"]
            .into_iter()
            .chain(["--remount-ro", "/sys/fs/cgroup", "--unshare-all"])
            .map(OsString::from),
    );
    if network {
        out.push("--share-net".into());
    }
    out.extend(["--as-pid-1", "--info-fd", "3", "--chdir", "/", "--"].map(OsString::from));
    out
}

/// Whether a kept sandbox keeps `view`'s outputs hidden for as long as it
/// lives: each is in a folder taken as it was (see [`beside_outputs`]),
/// not masked alone (a rename by the run would undo that for every later
/// case of the slot).
pub(super) fn held_fits(view: &View) -> bool {
    view.masks
        .iter()
        .filter_map(|m| m.parent())
        .all(|folder| snapshot(view, folder).is_some())
}

/// The seccomp program (see `filter`) in a file of its own, at its start,
/// for bubblewrap to read and install before its exec.
fn seccomp() -> Result<Vec<std::fs::File>, ExecError> {
    use std::io::{Seek, Write};
    // (bubblewrap gives the case an IPC namespace of its own.)
    crate::executor::run::filter::program(Default::default())
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

/// What bubblewrap puts around a case beyond its view: its seccomp
/// programs' descriptors, whether it shares the network, its
/// cgroup's folder.
struct Around<'a> {
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
    /// The case's scratch folder, and the slot's folder a view keeps for
    /// it: only the case's own folder is bound (a case runs as the
    /// harness's user here, or as its slot's: either way, nothing it
    /// leaves beside its folder reaches the slot's next case).
    scratch: (&'a Path, &'a Path),
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
        step_words(step, view, around, &mut out);
    }
    beside_outputs(view, around, &mut out);
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

/// One step of the view in bubblewrap's words.
fn step_words(step: &Step, view: &View, around: &Around, out: &mut Vec<OsString>) {
    match step {
        // Each capped at the view's size (bubblewrap's --size applies to
        // the --tmpfs after it).
        Step::Private(p) => {
            out.push("--size".into());
            out.push(view.size.max(1 << 20).to_string().into());
            out.push("--tmpfs".into());
            out.push(p.into());
        }
        Step::Keep(p, true) if p == around.scratch.1 => {
            out.push("--bind".into());
            out.push(around.scratch.0.into());
            out.push(around.scratch.0.into());
        }
        Step::Keep(p, writable) => {
            out.push(if *writable { "--bind" } else { "--ro-bind" }.into());
            out.push(p.into());
            out.push(p.into());
        }
    }
}

/// The most entries of a folder holding the run's outputs that a case's
/// view takes as they are; past it, each output is masked alone.
const SNAPSHOT: usize = 256;

/// The run's outputs in folders the case needs in sight (`view.masks`):
/// each such folder as it is when the case starts, less the outputs (a
/// fresh read-only tmpfs with every other entry bound back, and what the
/// view makes inside it made again), so that what the run writes there
/// meanwhile (an export's temporary file, the rename that replaces it)
/// is not in the case's view at all. A folder the case may write, or one
/// of more than [`SNAPSHOT`] entries: an empty file over each output
/// there as the case starts (a rename meanwhile undoes it).
fn beside_outputs(view: &View, around: &Around, out: &mut Vec<OsString>) {
    let mut folders: Vec<&Path> = Vec::new();
    for mask in &view.masks {
        if let Some(folder) = mask.parent()
            && !folders.contains(&folder)
        {
            folders.push(folder);
        }
    }
    for folder in folders {
        let Some(mut entries) = snapshot(view, folder) else {
            for mask in view.masks.iter().filter(|m| m.parent() == Some(folder)) {
                if std::fs::symlink_metadata(mask).is_ok_and(|m| m.is_file()) {
                    out.extend(["--ro-bind".into(), "/dev/null".into(), mask.into()]);
                }
            }
            continue;
        };
        entries.sort();
        out.extend([
            "--size".into(),
            "1048576".into(),
            "--tmpfs".into(),
            folder.into(),
        ]);
        for entry in entries.iter().filter(|e| !view.masks.contains(e)) {
            match std::fs::read_link(entry) {
                Ok(target) => out.extend(["--symlink".into(), target.into(), entry.into()]),
                Err(_) => out.extend(["--ro-bind".into(), entry.into(), entry.into()]),
            }
        }
        for step in view.steps.iter().filter(|s| {
            let p = s.path();
            p != folder && p.starts_with(folder)
        }) {
            step_words(step, view, around, out);
        }
        out.extend(["--remount-ro".into(), folder.into()]);
    }
}

/// The entries of `folder` (one holding outputs) for a view to take as it
/// is, less the outputs: none where the case may write there or it has
/// more than [`SNAPSHOT`] (each output is masked alone then).
fn snapshot(view: &View, folder: &Path) -> Option<Vec<std::path::PathBuf>> {
    let writable = view
        .steps
        .iter()
        .any(|s| matches!(s, Step::Keep(p, true) if folder.starts_with(p)));
    (!writable)
        .then(|| std::fs::read_dir(folder).ok())
        .flatten()
        .map(|d| {
            d.flatten()
                .take(SNAPSHOT + 1)
                .map(|e| e.path())
                .collect::<Vec<_>>()
        })
        .filter(|e| e.len() <= SNAPSHOT)
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

/// Why a case run under bubblewrap never started the candidate, when the
/// shim never said it `reached` the exec: bubblewrap's last words, or the
/// limit that killed the sandbox first. bubblewrap exits 1 then, as a
/// candidate saying "no solution" would: our failure, never the
/// candidate's verdict. Beside it, whether it was bubblewrap's own
/// failure (its words, not a kill or a limit): worth one more try.
fn failure(reached: bool, result: &RunResult) -> Option<(String, bool)> {
    if reached || result.cancelled || matches!(result.ending, Ending::Failed(_)) {
        return None;
    }
    let said = String::from_utf8_lossy(&result.stderr.bytes);
    let last = said.lines().rev().find(|l| !l.trim().is_empty());
    let own = result.limit.is_none()
        && !matches!(
            result.ending,
            Ending::Signaled(_) | Ending::Exited(129..=192)
        );
    let why = match (result.limit, last) {
        (Some(crate::executor::LimitHit::Memory), _) => {
            "killed at the memory limit before the candidate's exec (the limit is too small for the sandbox)".into()
        }
        (Some(_), _) => "still starting at the time limit".into(),
        (None, _) if let Ending::Signaled(sig) = result.ending => format!(
            "killed by signal {sig} before the candidate's exec (a memory limit too small for the sandbox does this)"
        ),
        (None, Some(last)) => last.trim().to_string(),
        // bubblewrap passes on its pid 1's death by a signal as 128 + it.
        (None, None) if let Ending::Exited(code @ 129..=192) = result.ending => format!(
            "killed by signal {} before the candidate's exec (a memory limit too small for the sandbox does this)",
            code - 128
        ),
        (None, None) => format!("bubblewrap {:?}", result.ending),
    };
    Some((
        format!("the sandbox (bwrap) did not start the candidate: {why}"),
        own,
    ))
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
                Step::Keep("/tmp/run/slot-0".into(), true),
            ],
            size: 1 << 20,
            masks: vec!["/course/rows.csv".into()],
        };
        let around = Around {
            seccomp: vec![8],
            network: false,
            cgroups: &[],
            shim: vec!["/bin/harness-exec".into(), "exec".into()],
            failure: 10,
            nproc: Some(256),
            scratch: (
                Path::new("/tmp/run/slot-0/case-x"),
                Path::new("/tmp/run/slot-0"),
            ),
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
                // The slot's folder: only the case's own in it.
                "--bind",
                "/tmp/run/slot-0/case-x",
                "/tmp/run/slot-0/case-x",
                "--size",
                "4096",
                "--tmpfs",
                "/sys/fs/cgroup",
                "--remount-ro",
                "/sys/fs/cgroup",
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

    /// Outputs beside what a case needs: their folder as it is, less
    /// them, read-only; what the view makes inside made again on top.
    #[test]
    fn a_folder_holding_outputs_is_taken_as_it_is_less_them() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().canonicalize().unwrap();
        std::fs::write(f.join("solver.py"), "x").unwrap();
        std::fs::write(f.join("rows.csv"), "secret").unwrap();
        std::os::unix::fs::symlink("solver.py", f.join("link")).unwrap();
        std::fs::create_dir(f.join("kept")).unwrap();
        let view = View {
            steps: vec![Step::Private(f.join("kept"))],
            size: 1 << 20,
            masks: vec![f.join("rows.csv")],
        };
        let around = Around {
            seccomp: vec![],
            network: false,
            cgroups: &[],
            shim: vec![],
            failure: 3,
            nproc: None,
            scratch: (Path::new("/s/case"), Path::new("/s")),
        };
        let mut out = Vec::new();
        beside_outputs(&view, &around, &mut out);
        let d = |p: &str| f.join(p).into_os_string().into_string().unwrap();
        let words: Vec<String> = out.into_iter().map(|w| w.into_string().unwrap()).collect();
        assert_eq!(
            words,
            [
                "--size".to_string(),
                "1048576".into(),
                "--tmpfs".into(),
                d(""),
                "--ro-bind".into(),
                d("kept"),
                d("kept"),
                "--symlink".into(),
                "solver.py".into(),
                d("link"),
                "--ro-bind".into(),
                d("solver.py"),
                d("solver.py"),
                "--size".into(),
                "1048576".into(),
                "--tmpfs".into(),
                d("kept"),
                "--remount-ro".into(),
                d(""),
            ]
            .map(|w| w.trim_end_matches('/').to_string())
        );
    }

    #[test]
    fn a_sandbox_that_never_started_the_candidate_is_our_failure() {
        use crate::executor::LimitHit;
        let mut result = RunResult::ended(Ending::Exited(1), std::time::Duration::ZERO);
        result.stderr = crate::executor::Capture::of(b"bwrap: Can't fork for pid 1: EAGAIN\n");
        let why = |r: &RunResult| failure(false, r).map(|(why, _)| why);
        assert_eq!(
            failure(false, &result),
            Some((
                "the sandbox (bwrap) did not start the candidate: bwrap: Can't fork for pid 1: EAGAIN".into(),
                true
            )),
            "bubblewrap's own words: worth one more try"
        );
        assert_eq!(
            failure(true, &result),
            None,
            "it started: the candidate's exit"
        );
        // Killed for memory before the exec: not the candidate's limit.
        let mut killed = RunResult::ended(Ending::Signaled(9), std::time::Duration::ZERO);
        assert_eq!(
            failure(false, &killed),
            Some((
                "the sandbox (bwrap) did not start the candidate: killed by signal 9 before the candidate's exec (a memory limit too small for the sandbox does this)".into(),
                false
            ))
        );
        // ... or its pid 1 was, which bubblewrap says as exit 128 + 9.
        let passed_on = RunResult::ended(Ending::Exited(137), std::time::Duration::ZERO);
        assert_eq!(failure(false, &passed_on), failure(false, &killed));
        killed.limit = Some(LimitHit::Memory);
        assert_eq!(
            why(&killed).as_deref(),
            Some(
                "the sandbox (bwrap) did not start the candidate: killed at the memory limit before the candidate's exec (the limit is too small for the sandbox)"
            )
        );
        assert_eq!(failure(true, &killed), None, "the candidate's own limit");
        killed.cancelled = true;
        assert_eq!(failure(false, &killed), None, "a cancelled run says so");
    }
}
