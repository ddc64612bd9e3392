//! `harness __exec`: the few steps between the harness and a candidate,
//! done in the candidate's own process before it becomes the candidate
//! (safe Rust instead of code between `fork` and `exec`): join the case's
//! cgroups, keep to the job slot's cores, set rlimits, drop to the slot's user (supplementary groups
//! dropped), make the case's view of the file system (see `view`), then
//! exec the candidate (or bubblewrap around it, which makes the view). Its pid,
//! process group, pipes, working folder and environment are the
//! candidate's. A failure is written to a file only the harness can write
//! (so a candidate cannot fake our error), and the process exits 125.

use std::ffi::OsString;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rlimit::Resource;

use super::view::{Step, View};

/// The exit status of a trampoline that could not start the candidate.
pub const FAILED: i32 = 125;

/// Where the trampoline has bubblewrap report that the candidate's process
/// started (`--info-fd`): beside the error file. No `child-pid` there means
/// the sandbox itself failed, which is never the candidate's doing.
pub fn sandbox_report(error_file: &Path) -> PathBuf {
    let mut name = error_file.as_os_str().to_owned();
    name.push(".sandbox");
    PathBuf::from(name)
}

/// Whether bubblewrap's report says it started the candidate.
pub fn sandbox_started(report: &Path) -> bool {
    std::fs::read_to_string(report).is_ok_and(|t| t.contains("\"child-pid\""))
}

/// Why a case run under bubblewrap (`error_file` its trampoline's) never
/// started the candidate, when it did not: bubblewrap's last words. It
/// exits 1 then, as a candidate saying "no solution" would: our failure,
/// never the candidate's verdict. The report is removed.
pub fn sandbox_failure(error_file: &Path, result: &super::RunResult) -> Option<String> {
    let report = sandbox_report(error_file);
    let failed = !result.cancelled
        && !matches!(
            result.ending,
            super::Ending::Failed(_) | super::Ending::Exited(0)
        )
        && result.limit.is_none()
        && !sandbox_started(&report);
    let _ = std::fs::remove_file(&report);
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

/// What the trampoline does for one case.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// Files to join cgroups by (`cgroup.procs`, or v1's `tasks`).
    pub join: Vec<PathBuf>,
    /// rlimits: `core`, `fsize`, `nproc`, `cpu`, with their values.
    pub rlimits: Vec<(String, u64)>,
    /// Run as this uid and gid.
    pub user: Option<(u32, u32)>,
    /// Keep to these cores (the job slot's share); empty: any.
    pub cpus: Vec<usize>,
    /// Wrap the candidate in bubblewrap.
    pub bwrap: bool,
    /// What the case sees of the file system: built by bubblewrap when it
    /// wraps the case, else by the trampoline itself (as root).
    pub view: Option<View>,
    /// Where a failure is written.
    pub error_file: PathBuf,
}

/// The program that runs the trampoline: the small `harness-exec` beside
/// the harness when it is there (it starts in a fraction of the harness's
/// time: one of these runs before every case), else `harness __exec`.
#[derive(Debug, Clone)]
pub struct Trampoline {
    program: PathBuf,
    subcommand: bool,
}

impl Trampoline {
    /// The trampoline for the harness executable `exe`.
    pub fn beside(exe: &Path) -> Self {
        let small = exe.with_file_name("harness-exec");
        if small.is_file() {
            Self {
                program: small,
                subcommand: false,
            }
        } else {
            Self {
                program: exe.to_owned(),
                subcommand: true,
            }
        }
    }
}

impl Launch {
    /// The trampoline's command line for `argv` (program, arguments).
    pub fn command(&self, trampoline: &Trampoline, argv: &[OsString]) -> Command {
        let mut cmd = Command::new(&trampoline.program);
        if trampoline.subcommand {
            cmd.arg("__exec");
        }
        cmd.arg("--error-file").arg(&self.error_file);
        for f in &self.join {
            cmd.arg("--join").arg(f);
        }
        for (name, value) in &self.rlimits {
            cmd.arg("--rlimit").arg(format!("{name}={value}"));
        }
        if let Some((uid, gid)) = self.user {
            cmd.arg("--uid").arg(uid.to_string());
            cmd.arg("--gid").arg(gid.to_string());
        }
        if !self.cpus.is_empty() {
            cmd.arg("--cpus").arg(super::cpus::list(&self.cpus));
        }
        if self.bwrap {
            cmd.arg("--bwrap");
        }
        if let Some(view) = &self.view {
            cmd.arg("--view-size").arg(view.size.to_string());
            for step in &view.steps {
                match step {
                    Step::Private(p) => cmd.arg("--private").arg(p),
                    Step::Keep(p, false) => cmd.arg("--keep").arg(p),
                    Step::Keep(p, true) => cmd.arg("--keep-rw").arg(p),
                };
            }
        }
        cmd.arg("--").args(argv);
        cmd
    }
}

/// The trampoline's arguments (see [`ExecArgs::parse`]).
#[derive(Debug, Clone)]
pub struct ExecArgs {
    /// Where to write why the candidate could not start.
    pub error_file: PathBuf,
    /// A `cgroup.procs` file to join.
    pub join: Vec<PathBuf>,
    /// NAME=VALUE: core, fsize or nproc.
    pub rlimit: Vec<String>,
    /// Run as this uid.
    pub uid: Option<u32>,
    /// Run as this gid.
    pub gid: Option<u32>,
    /// Keep to these cores.
    pub cpus: Vec<usize>,
    /// Run under bubblewrap.
    pub bwrap: bool,
    /// The case's view of the file system, if it gets one.
    pub view: Option<View>,
    /// The candidate: program and arguments.
    pub argv: Vec<OsString>,
}

impl ExecArgs {
    /// Parses the trampoline's arguments (as [`Launch::command`] writes
    /// them), for `harness-exec` and `harness __exec`.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Self, String> {
        use lexopt::prelude::*;
        let mut p = lexopt::Parser::from_args(args);
        let mut out = ExecArgs {
            error_file: PathBuf::new(),
            join: Vec::new(),
            rlimit: Vec::new(),
            uid: None,
            gid: None,
            cpus: Vec::new(),
            bwrap: false,
            view: None,
            argv: Vec::new(),
        };
        let err = |e: lexopt::Error| e.to_string();
        while let Some(arg) = p.next().map_err(err)? {
            match arg {
                Long("error-file") => out.error_file = p.value().map_err(err)?.into(),
                Long("join") => out.join.push(p.value().map_err(err)?.into()),
                Long("rlimit") => out
                    .rlimit
                    .push(p.value().map_err(err)?.string().map_err(err)?),
                Long("uid") => out.uid = Some(p.value().map_err(err)?.parse().map_err(err)?),
                Long("gid") => out.gid = Some(p.value().map_err(err)?.parse().map_err(err)?),
                Long("cpus") => {
                    let list = p.value().map_err(err)?.string().map_err(err)?;
                    out.cpus =
                        super::cpus::parse_list(&list).ok_or(format!("bad --cpus {list}"))?;
                }
                Long("bwrap") => out.bwrap = true,
                Long("view-size") => {
                    out.view.get_or_insert_default().size =
                        p.value().map_err(err)?.parse().map_err(err)?
                }
                Long(step @ ("private" | "keep" | "keep-rw")) => {
                    let step = step.to_string();
                    let path = PathBuf::from(p.value().map_err(err)?);
                    out.view.get_or_insert_default().steps.push(match &*step {
                        "private" => Step::Private(path),
                        rw => Step::Keep(path, rw == "keep-rw"),
                    });
                }
                Value(v) => {
                    out.argv.push(v);
                    out.argv.extend(p.raw_args().map_err(err)?);
                }
                other => return Err(other.unexpected().to_string()),
            }
        }
        if out.argv.is_empty() || out.error_file.as_os_str().is_empty() {
            return Err("usage: harness-exec --error-file FILE [OPTIONS] -- PROGRAM [ARGS]".into());
        }
        Ok(out)
    }
}

/// The trampoline: returns only on failure (after recording it).
pub fn main(args: &ExecArgs) -> std::process::ExitCode {
    // Made now, empty, while this process may still write in the run's
    // folder: once it has become the slot's user (the last step before the
    // exec, which can still fail: a script open for writing, say) it no
    // longer may. An empty file is no failure; the harness removes it.
    let early = args.uid.and_then(|_| {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&args.error_file)
            .ok()
    });
    // Else the error file's folder, opened before a view hides it.
    let folder = args
        .view
        .as_ref()
        .filter(|_| early.is_none())
        .and_then(|_| {
            let dir = args.error_file.parent()?;
            rustix::fs::open(
                dir,
                rustix::fs::OFlags::PATH
                    | rustix::fs::OFlags::DIRECTORY
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .ok()
        });
    let err = match prepare_and_exec(args) {
        Ok(never) => match never {},
        Err(e) => e,
    };
    match (early, &folder, args.error_file.file_name()) {
        (Some(mut file), _, _) => {
            let _ = std::io::Write::write_all(&mut file, err.as_bytes());
        }
        (None, Some(dir), Some(name)) => {
            let file = rustix::fs::openat(
                dir,
                name,
                rustix::fs::OFlags::WRONLY
                    | rustix::fs::OFlags::CREATE
                    | rustix::fs::OFlags::TRUNC
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::from_raw_mode(0o600),
            );
            if let Ok(fd) = file {
                let _ = std::io::Write::write_all(&mut std::fs::File::from(fd), err.as_bytes());
            }
        }
        _ => {
            let _ = std::fs::write(&args.error_file, &err);
        }
    }
    eprintln!("harness __exec: {err}");
    std::process::ExitCode::from(FAILED as u8)
}

enum Never {}

fn prepare_and_exec(args: &ExecArgs) -> Result<Never, String> {
    let me = std::process::id().to_string();
    for procs in &args.join {
        // v1's `tasks` takes `0`: this thread, the only one (see
        // CaseCgroup::procs_files); `cgroup.procs` the pid.
        let who = if procs.ends_with("tasks") { "0" } else { &me };
        std::fs::write(procs, who).map_err(|e| format!("cannot join {}: {e}", procs.display()))?;
    }
    for spec in &args.rlimit {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("bad --rlimit {spec}"))?;
        let value: u64 = value.parse().map_err(|_| format!("bad --rlimit {spec}"))?;
        let resource = match name {
            "core" => Resource::CORE,
            "fsize" => Resource::FSIZE,
            "nproc" => Resource::NPROC,
            "cpu" => Resource::CPU,
            _ => return Err(format!("unknown rlimit {name}")),
        };
        // Never above the limit the harness itself was given (raising a
        // hard limit needs a privilege it may not have).
        let (_, hard) = resource
            .get()
            .map_err(|e| format!("cannot read the {name} limit: {e}"))?;
        let value = value.min(hard);
        // CPU: SIGXCPU at the limit, SIGKILL a second later (the hard one).
        let ceiling = if name == "cpu" {
            value.saturating_add(1).min(hard)
        } else {
            value
        };
        resource
            .set(value, ceiling)
            .map_err(|e| format!("cannot set the {name} limit: {e}"))?;
    }
    // After the cgroups: joining a cpuset sets the affinity to all of it.
    if !args.cpus.is_empty() {
        super::cpus::pin(&args.cpus)?;
    }
    drop_terminal()?;
    let (program, rest) = args.argv.split_first().ok_or("no command")?;
    let mut cmd = if args.bwrap {
        let cwd = std::env::current_dir().map_err(|e| format!("no working folder: {e}"))?;
        let mut c = Command::new("bwrap");
        // The whole system read-only; the view's private folders and what
        // it keeps (the scratch folder, the candidate's TMPDIR, writable;
        // a build's own folder too) on top.
        c.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
        if let Some(view) = &args.view {
            c.args(view.bwrap_args());
        }
        // bubblewrap says on this file when the candidate's process
        // exists: a failure before that is the sandbox's, not the
        // candidate's (see sandbox_started).
        let report = std::fs::File::create(sandbox_report(&args.error_file))
            .map_err(|e| format!("cannot make the sandbox's report: {e}"))?;
        rustix::io::fcntl_setfd(&report, rustix::io::FdFlags::empty())
            .map_err(|e| format!("cannot hand the sandbox its report: {e}"))?;
        c.arg("--info-fd")
            .arg(std::os::fd::AsRawFd::as_raw_fd(&report).to_string());
        // Open until the exec: bubblewrap inherits it.
        std::mem::forget(report);
        c.args(["--unshare-all", "--die-with-parent", "--new-session"])
            .arg("--chdir")
            .arg(&cwd)
            .arg("--")
            .arg(program)
            .args(rest);
        c
    } else {
        if let Some(view) = &args.view {
            view.enter()?;
        }
        let mut c = Command::new(program);
        c.args(rest);
        c
    };
    if let Some(gid) = args.gid {
        cmd.gid(gid);
    }
    if let Some(uid) = args.uid {
        // As root, std drops supplementary groups (setgroups(0)) before
        // setuid when no groups are given.
        cmd.uid(uid);
    }
    let e = cmd.exec();
    Err(format!("cannot start {}: {e}", program.to_string_lossy()))
}

/// Gives up the controlling terminal the harness was started from, if it
/// has one, before the candidate starts: the candidate then cannot open
/// `/dev/tty`, type into the grader's shell (`TIOCSTI` works only on one's
/// own controlling terminal, or as root) or take its foreground
/// (`tcsetpgrp`), and a process in the harness's session that is not its
/// leader can never get one back. (`setsid` would do it too, but the
/// trampoline leads its process group from its spawn on, which `setsid`
/// refuses; the harness keeps spawning without a fork.)
fn drop_terminal() -> Result<(), String> {
    use std::os::fd::AsRawFd;
    // No controlling terminal (ENXIO): nothing to give up.
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return Ok(());
    };
    // SAFETY: TIOCNOTTY takes no argument and touches no memory of ours;
    // `tty` is an open descriptor for the call's whole duration.
    #[allow(unsafe_code)]
    let r = unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) };
    if r != 0 {
        return Err(format!(
            "cannot give up the controlling terminal: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_exec_reads_what_the_launch_writes() {
        let launch = Launch {
            join: vec!["/cg/a/cgroup.procs".into(), "/cg/b/cgroup.procs".into()],
            rlimits: vec![("core".into(), 0), ("cpu".into(), 80)],
            user: Some((60_001, 60_001)),
            cpus: vec![2, 3],
            bwrap: true,
            view: Some(View {
                steps: vec![
                    Step::Private("/tmp".into()),
                    Step::Keep("/tmp/a b".into(), false),
                    Step::Keep("/tmp/a b/scratch".into(), true),
                ],
                size: 1 << 20,
            }),
            error_file: "/run/case-7.err".into(),
        };
        let small = Trampoline {
            program: "harness-exec".into(),
            subcommand: false,
        };
        let argv: Vec<OsString> = ["java", "--enable-preview", "-cp", "a b", "--"]
            .map(OsString::from)
            .to_vec();
        let cmd = launch.command(&small, &argv);
        let args = ExecArgs::parse(cmd.get_args().map(OsString::from)).unwrap();
        assert_eq!(args.error_file, launch.error_file);
        assert_eq!(args.join, launch.join);
        assert_eq!(args.rlimit, ["core=0", "cpu=80"]);
        assert_eq!((args.uid, args.gid), (Some(60_001), Some(60_001)));
        assert_eq!(args.cpus, [2, 3]);
        assert!(args.bwrap);
        assert_eq!(args.view, launch.view, "the steps in their order");
        assert_eq!(args.argv, argv, "the candidate's own -- and options kept");
        let sub = Trampoline {
            program: "harness".into(),
            subcommand: true,
        };
        assert_eq!(
            launch.command(&sub, &argv).get_args().next(),
            Some("__exec".as_ref())
        );
        assert!(ExecArgs::parse(["--error-file".into(), "/e".into()]).is_err());
        assert!(ExecArgs::parse(["--nope".into(), "--".into(), "x".into()]).is_err());
    }
}
