//! A job slot's view keeper (as root): a small single-threaded process
//! (`harness-exec` beside the harness, else `harness __keeper`) that makes
//! the slot's view of the file system in a mount namespace of its own and
//! stays in it, so that the slot's cases enter it (a `setns`, see `spawn`)
//! instead of each making its own: namespaces and tmpfs mounts are made
//! once per view, not once per case. The harness reaches the view through
//! the keeper's `/proc/PID/root` ([`Keeper::root`]): between cases it
//! empties the view's private folders there of what the last case left.
//! (A multi-threaded process cannot change its own mount namespace, hence
//! a process of its own.)
//!
//! The protocol, on a Unix stream socket (the keeper's stdin): a request
//! is a kind byte, a little-endian `u32` length and that many bytes (a
//! view's words, each ended by a NUL); the reply is a kind byte and a
//! `u32`: `0`, or the length of the reason that follows.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};

use super::view::View;
use crate::executor::ExecError;
use crate::executor::run::launch::FAILED;

/// A request: make this view (and stay in it).
const BUILD: u8 = b'B';
/// A request: make this cgroup view in the view (see `cgview`).
const CGROUPS: u8 = b'C';
/// A request to a holder (see [`hold`]): kill every process of its
/// namespaces but itself, and say when they are gone.
const KILL: u8 = b'X';
/// A reply: done.
const DONE: u8 = b'K';
/// A reply: not done; the reason follows.
const REFUSED: u8 = b'E';
/// The largest request accepted.
const MAX_REQUEST: usize = 16 << 20;

/// The program that runs keepers (and starts a candidate inside
/// bubblewrap, see `run::shim`): the small `harness-exec` beside the
/// harness when it is there, else `harness __keeper` (`__exec`).
#[derive(Debug, Clone)]
pub struct Program {
    program: PathBuf,
    subcommand: bool,
}

impl Program {
    /// The keeper program for the harness executable `exe`.
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

    /// Its words that start a candidate inside a sandbox (see `run::shim`).
    pub fn exec_words(&self) -> Vec<OsString> {
        self.words("exec")
    }

    /// Its words that hold a sandbox's namespaces (see [`hold`]).
    pub fn hold_words(&self) -> Vec<OsString> {
        self.words("hold")
    }

    fn words(&self, mode: &str) -> Vec<OsString> {
        let mut out = vec![self.program.clone().into_os_string()];
        out.push(
            if self.subcommand {
                format!("__{mode}")
            } else {
                mode.into()
            }
            .into(),
        );
        out
    }
}

/// The harness's end of one keeper.
pub struct Keeper {
    stream: UnixStream,
    child: Child,
    /// The keeper's pid (not its sandbox program's, where one starts it).
    pid: u32,
}

impl Keeper {
    /// Starts a keeper.
    pub fn start(program: &Program) -> std::io::Result<Self> {
        let (ours, theirs) = UnixStream::pair()?;
        let mut cmd = Command::new(&program.program);
        if program.subcommand {
            cmd.arg("__keeper");
        }
        let child = cmd
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .current_dir("/")
            .spawn()?;
        let pid = child.id();
        Ok(Self {
            stream: ours,
            child,
            pid,
        })
    }

    /// Starts a holder (`program`'s [`hold`]) inside bubblewrap, whose
    /// words (`wrap`, before the holder's) make its namespaces with
    /// `--as-pid-1` and `--info-fd 3`: bubblewrap tells the holder's pid
    /// there. Returns once the holder says it is ready.
    pub fn start_held(program: &Program, wrap: &[OsString]) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        let (ours, theirs) = UnixStream::pair()?;
        let (mut info, info_w) = std::io::pipe()?;
        let mut cmd = Command::new(&wrap[0]);
        cmd.args(&wrap[1..]).args(program.hold_words());
        let raw = std::os::fd::AsRawFd::as_raw_fd(&info_w);
        // SAFETY: between fork and exec, one `dup2` (async-signal-safe)
        // of a descriptor that stays open until `spawn` returns.
        #[allow(unsafe_code)]
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(raw, 3) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .current_dir("/")
            .spawn()?;
        drop(info_w);
        let mut said = String::new();
        let pid = info
            .read_to_string(&mut said)
            .ok()
            .and_then(|_| serde_json::from_str::<serde_json::Value>(&said).ok())
            .and_then(|v| v.get("child-pid")?.as_u64())
            .and_then(|p| u32::try_from(p).ok());
        let Some(pid) = pid else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(
                "bubblewrap did not say where the slot's holder is",
            ));
        };
        let mut keeper = Self {
            stream: ours,
            child,
            pid,
        };
        if let Err(e) = keeper.reply() {
            keeper.stop();
            return Err(e);
        }
        Ok(keeper)
    }

    /// Has a holder kill every process of its namespaces (a case's
    /// leftovers) and waits until they are gone.
    pub fn kill_all(&mut self) -> std::io::Result<()> {
        self.ask(KILL, Vec::new())
    }

    /// Has the keeper make `view` (leaving the one it was in) and returns
    /// its mount namespace, for cases to enter.
    pub fn build(&mut self, view: &View) -> std::io::Result<OwnedFd> {
        self.ask(BUILD, view.words())?;
        Ok(self.namespace("mnt")?.into())
    }

    /// Has the keeper make the cgroup view of `places` in its view (see
    /// `cgview`) and returns its cgroup namespace, for cases to enter.
    pub fn cgroups(
        &mut self,
        places: &[crate::executor::cgroup::Place],
    ) -> std::io::Result<OwnedFd> {
        self.ask(CGROUPS, super::cgview::words(places))?;
        Ok(self.namespace("cgroup")?.into())
    }

    /// The keeper's network namespace (a loopback of its own), for cases
    /// to enter.
    pub fn network(&self) -> std::io::Result<OwnedFd> {
        use std::os::unix::fs::MetadataExt;
        let ns = self.namespace("net")?;
        if ns.metadata()?.ino() == std::fs::metadata("/proc/self/ns/net")?.ino() {
            return Err(std::io::Error::other(
                "the keeper has no network of its own",
            ));
        }
        Ok(ns.into())
    }

    /// A request of `kind` with `words` (each ended by a NUL), and its
    /// reply.
    fn ask(&mut self, kind: u8, words: Vec<OsString>) -> std::io::Result<()> {
        let mut body = Vec::new();
        for w in words {
            body.extend_from_slice(w.as_bytes());
            body.push(0);
        }
        self.send(kind, &body)?;
        self.reply()
    }

    /// The keeper's namespace of `kind` (`/proc/PID/ns/KIND`), open.
    pub fn namespace(&self, kind: &str) -> std::io::Result<std::fs::File> {
        std::fs::File::open(format!("/proc/{}/ns/{kind}", self.pid))
    }

    /// The root of the keeper's view, from outside it.
    pub fn root(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/root", self.pid))
    }

    /// Stops the keeper and waits for it.
    pub fn stop(self) {
        let Self {
            stream, mut child, ..
        } = self;
        drop(stream);
        let _ = child.wait();
    }

    fn send(&mut self, kind: u8, body: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(body.len())
            .ok()
            .filter(|&l| l as usize <= MAX_REQUEST)
            .ok_or_else(|| std::io::Error::other("a view too long for the keeper"))?;
        let mut message = Vec::with_capacity(5 + body.len());
        message.push(kind);
        message.extend_from_slice(&len.to_le_bytes());
        message.extend_from_slice(body);
        self.stream.write_all(&message)
    }

    fn reply(&mut self) -> std::io::Result<()> {
        let mut head = [0u8; 5];
        self.stream.read_exact(&mut head)?;
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        match head[0] {
            DONE => Ok(()),
            REFUSED => {
                let mut why = vec![0u8; len.min(MAX_REQUEST)];
                self.stream.read_exact(&mut why)?;
                Err(std::io::Error::other(
                    String::from_utf8_lossy(&why).into_owned(),
                ))
            }
            _ => Err(std::io::Error::other("the keeper's reply makes no sense")),
        }
    }
}

/// The keeper's whole life: requests from stdin (a Unix socket) until it
/// closes.
pub fn serve() -> ExitCode {
    let Some(socket) = stdin_socket("keeper") else {
        return ExitCode::from(FAILED as u8);
    };
    // It holds no terminal. (It ends when the harness does: its socket
    // closes. No parent-death signal: that follows the thread that started
    // it, a job slot's worker, which ends with each phase of a run.)
    let _ = rustix::process::setsid();
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = rustix::stdio::dup2_stdin(&null);
    }
    // A network of the slot's own: its cases reach only its loopback.
    if let Err(e) = own_network() {
        eprintln!("harness keeper: cannot make the slot's network: {e}");
        return ExitCode::from(FAILED as u8);
    }
    let Ok(host) = std::fs::File::open("/proc/self/ns/mnt") else {
        eprintln!("harness keeper: cannot open its own mount namespace");
        return ExitCode::from(FAILED as u8);
    };
    let mut reader = &socket;
    loop {
        let mut head = [0u8; 5];
        match reader.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("harness keeper: {e}");
                return ExitCode::from(FAILED as u8);
            }
        }
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        if len > MAX_REQUEST {
            return ExitCode::from(FAILED as u8);
        }
        let mut body = vec![0u8; len];
        if reader.read_exact(&mut body).is_err() {
            return ExitCode::from(FAILED as u8);
        }
        // The view being left, held until the reply is sent: tearing down
        // its mounts (which waits on the kernel) is then off the
        // harness's path.
        let left = std::fs::File::open("/proc/self/ns/mnt");
        let words = body
            .split(|&b| b == 0)
            .take(body.iter().filter(|&&b| b == 0).count())
            .map(|w| OsString::from_vec(w.to_vec()));
        let done = match head[0] {
            BUILD => match View::from_words(words) {
                Ok(view) => build(&host, &view),
                Err(why) => Err(why),
            },
            CGROUPS => super::cgview::make(&words.collect::<Vec<_>>(), &host),
            _ => return ExitCode::from(FAILED as u8),
        };
        let reply = match done {
            Ok(()) => vec![DONE, 0, 0, 0, 0],
            Err(why) => refused(&why.to_string()),
        };
        if (&socket).write_all(&reply).is_err() {
            return ExitCode::SUCCESS;
        }
        drop(left);
    }
}

/// The Unix socket a keeper or holder (`who`) gets on stdin, or `None`
/// (said on stderr).
fn stdin_socket(who: &str) -> Option<UnixStream> {
    match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => Some(UnixStream::from(fd)),
        Err(e) => {
            eprintln!("harness {who}: no socket on stdin: {e}");
            None
        }
    }
}

/// A reply that refuses, saying `why`.
fn refused(why: &str) -> Vec<u8> {
    let mut r = vec![REFUSED];
    r.extend_from_slice(&(why.len() as u32).to_le_bytes());
    r.extend_from_slice(why.as_bytes());
    r
}

/// Moves the keeper into a network namespace of its own, its loopback up
/// (as bubblewrap does): a case can talk to itself over 127.0.0.1 and
/// abstract sockets, and to nothing beyond its slot.
fn own_network() -> std::io::Result<()> {
    // SAFETY: no FILES flag: the descriptor table stays shared.
    #[allow(unsafe_code)]
    unsafe {
        rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNET)?;
    }
    let socket = rustix::net::socket(
        rustix::net::AddressFamily::INET,
        rustix::net::SocketType::DGRAM,
        None,
    )?;
    // SAFETY: an `ifreq` naming "lo", filled by the kernel and sent back
    // with one more flag; `socket` is open.
    #[allow(unsafe_code)]
    unsafe {
        use std::os::fd::AsRawFd;
        let mut request: libc::ifreq = std::mem::zeroed();
        for (to, from) in request.ifr_name.iter_mut().zip(b"lo") {
            *to = *from as libc::c_char;
        }
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS, &mut request) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &request) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Leaves the view the keeper is in, if any (back to `host`'s
/// namespace), and makes `view` in a new one. A keeper that cannot get
/// back exits: a half-made view is never entered.
fn build(host: &std::fs::File, view: &View) -> Result<(), ExecError> {
    let back = || {
        if rustix::thread::move_into_link_name_space(
            host.as_fd(),
            Some(rustix::thread::LinkNameSpaceType::Mount),
        )
        .is_err()
        {
            eprintln!("harness keeper: cannot leave its view");
            std::process::exit(FAILED);
        }
    };
    // Left at once, even to make the same view again: its private folders
    // may hold what a case left.
    back();
    view.enter_kept().inspect_err(|_| back())
}

/// A holder's whole life (`harness-exec hold`, or `harness __hold`): the
/// first process of a job slot's bubblewrap sandbox (its pid 1, see
/// `kept`), which holds the slot's namespaces for its cases to enter and,
/// asked between cases, kills every process in them but itself. Its
/// requests come on stdin (a Unix socket) until it closes; then it exits,
/// and the kernel kills whatever is left in its PID namespace.
pub fn hold() -> ExitCode {
    let Some(socket) = stdin_socket("holder") else {
        return ExitCode::from(FAILED as u8);
    };
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = rustix::stdio::dup2_stdin(&null);
    }
    // No case may reach its socket or memory (a case runs as the same
    // user, without capabilities: a process that is not dumpable is closed
    // to it; the harness, which owns the namespaces, still reaches it).
    // The dead are reaped by the kernel (SIGCHLD ignored), and as pid 1
    // it takes no signal a case sends it.
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    // SAFETY: a signal disposition set to SIG_IGN; no handler is installed.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGCHLD, libc::SIG_IGN);
    }
    let mut reader = &socket;
    if (&socket).write_all(&[DONE, 0, 0, 0, 0]).is_err() {
        return ExitCode::SUCCESS;
    }
    loop {
        let mut head = [0u8; 5];
        if reader.read_exact(&mut head).is_err() {
            return ExitCode::SUCCESS;
        }
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        if head[0] != KILL || len != 0 {
            return ExitCode::from(FAILED as u8);
        }
        let reply = match kill_everyone() {
            Ok(()) => vec![DONE, 0, 0, 0, 0],
            Err(e) => refused(&format!("cannot kill what a case left: {e}")),
        };
        if (&socket).write_all(&reply).is_err() {
            return ExitCode::SUCCESS;
        }
    }
}

/// Kills every process of the holder's PID namespace but itself, again
/// until none is left (a process forked meanwhile is killed the next
/// round; the kernel reaps each): at most ten seconds.
fn kill_everyone() -> std::io::Result<()> {
    let start = std::time::Instant::now();
    loop {
        // SAFETY: a bare system call; from pid 1 of a namespace, -1 is
        // every other process in it.
        #[allow(unsafe_code)]
        let r = unsafe { libc::kill(-1, libc::SIGKILL) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return if e.raw_os_error() == Some(libc::ESRCH) {
                Ok(())
            } else {
                Err(e)
            };
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "what a case left is still there after 10 s",
            ));
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
}
