//! The sandboxes: what makes a case's view of the file system (see
//! [`view`]) around its process, behind one trait. The isolation around a
//! case (`isolated`: scratch, uids, cgroups, cores) plans the view; the
//! sandbox in force makes it and puts the case in it:
//!
//! - `native`: as root, the job slot's keeper holds the view in a mount
//!   namespace of its own and each case's process enters it (a `setns`);
//! - `bwrap`: bubblewrap makes the view around each case, as any user;
//! - `kept`: as another user, bubblewrap makes it once per job slot and
//!   the slot's cases enter it one after another (`bwrap` where they
//!   cannot);
//! - `landlock`: where neither may (a container's default privileges), a
//!   Landlock ruleset closes what the view would replace and keeps the
//!   case's writes to what it keeps writable.
//!
//! A new mechanism is one file here and one line in [`make`].

mod bwrap;
mod cgview;
mod keeper;
mod kept;
mod landlock;
mod mounts;
mod native;
pub(super) mod needs;
pub(super) mod view;

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::RawFd;
use std::path::Path;

use std::sync::Arc;

pub(super) use keeper::Program;
pub use keeper::hold as serve_holder;
pub use keeper::serve as serve_keeper;

use super::{ExecError, RunResult};
use view::View;

/// The sandboxes there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The job slot's keeper makes the view (as root).
    Native,
    /// bubblewrap makes it (any user).
    Bwrap,
    /// A Landlock ruleset stands for it (any user; no private places).
    Landlock,
}

impl Kind {
    /// Its word in the isolation label, where it adds one (a view of its
    /// own is `private`).
    pub fn label(self) -> Option<&'static str> {
        match self {
            Kind::Native => None,
            Kind::Bwrap => Some("bwrap"),
            Kind::Landlock => Some("landlock"),
        }
    }

    /// Whether it gives a case a view of its own (private /tmp and the
    /// rest), not only what it may reach.
    pub fn private(self) -> bool {
        !matches!(self, Kind::Landlock)
    }

    /// Whether every process of a case ends with it (a PID namespace of
    /// its own, or its slot's, emptied after it): nothing left may touch
    /// the case's folder, which its slot's next case may then have again.
    pub fn ends_every_process(self) -> bool {
        matches!(self, Kind::Bwrap)
    }

    /// Whether a case's processes are counted in a user namespace of its
    /// own (its process budget, `RLIMIT_NPROC`, its own there), while the
    /// harness's user counts those of every slot's sandbox.
    pub fn counts_in_its_own_user(self) -> bool {
        matches!(self, Kind::Bwrap)
    }
}

/// The sandbox of `kind` for a run of `slots` job slots (`program`: what
/// runs a slot's keeper).
pub(super) fn make(kind: Kind, program: Program, slots: usize) -> Box<dyn Sandbox> {
    match kind {
        Kind::Native => Box::new(native::Native::new(program, slots)),
        Kind::Bwrap => Box::new(kept::KeptOrEach {
            kept: kept::Kept::new(program.clone(), slots),
            each: bwrap::Bwrap { program },
        }),
        Kind::Landlock => Box::new(landlock::Landlock::default()),
    }
}

/// Whether the kernel enforces Landlock here (and what it refuses beyond
/// the file system, in words), or why not.
pub(super) fn landlock_usable() -> Result<Vec<&'static str>, ExecError> {
    landlock::usable().map(|()| landlock::extras())
}

/// Whether the native sandbox can work here (mount namespaces allowed),
/// or why not.
pub(super) fn native_usable() -> Result<(), ExecError> {
    native::usable()
}

/// Whether bubblewrap can make a sandbox here, as this user.
pub(super) fn bwrap_usable() -> Result<(), ExecError> {
    bwrap::usable()
}

/// One case about to enter its sandbox.
pub(super) struct Case<'a> {
    /// Its job slot.
    pub slot: usize,
    /// The view it gets.
    pub view: &'a Arc<View>,
    /// Its working folder.
    pub cwd: &'a Path,
    /// Its scratch folder, and the job slot's folder that holds it (a
    /// view keeps the slot's folder writable for every case of the slot:
    /// where the case runs as the harness's user, only its own scratch
    /// folder is made writable).
    pub scratch: (&'a Path, &'a Path),
    /// A folder closed to every case, removed with the run's, where what a
    /// case left in its slot's folder beside its own goes.
    pub trash: &'a Path,
    /// It runs as the harness's own user (no slot user of its own): the
    /// sandbox, not the folders' owners, keeps it from the slot's folder.
    pub harness_user: bool,
    /// Its cgroups, as it sees them.
    pub cgroups: Vec<crate::executor::cgroup::Place>,
    /// Whether they are its job slot's, for the slot's next case too.
    pub cgroups_shared: bool,
    /// Whether it may reach the network (`--network`).
    pub network: bool,
    /// Its own process budget, where the sandbox counts it apart (in a
    /// user namespace of its own).
    pub nproc: Option<u64>,
    /// The write end of the job slot's failure pipe: where a program that
    /// starts the candidate inside the sandbox says it could not.
    pub failure: RawFd,
}

/// What the case's process does to be in its sandbox, and what the sandbox
/// keeps until the case has ended.
#[derive(Default)]
pub(super) struct Entered {
    /// A mount namespace to enter.
    pub namespace: Option<RawFd>,
    /// Else a job slot's holder's namespaces to enter (see `kept`).
    pub hop: Option<crate::executor::run::hop::Hop>,
    /// A program to exec around the candidate: its words before the
    /// candidate's.
    pub wrap: Vec<OsString>,
    /// Set after the case: the program that starts the candidate inside
    /// the sandbox said it reached the exec (see `run::shim`).
    pub reached: bool,
    /// Open files it hands on (bubblewrap's seccomp programs).
    pub hand: Vec<File>,
    /// A descriptor of the harness's it hands on (the failure pipe).
    pub pass: Option<RawFd>,
    /// A Landlock ruleset to apply (the sandbox keeps it open).
    pub landlock: Option<RawFd>,
    /// A second one, the case's own, applied after it (closed with the
    /// case).
    pub landlock_own: Option<std::os::fd::OwnedFd>,
    /// A network namespace to enter.
    pub network: Option<RawFd>,
    /// A cgroup namespace and view of the case's own (see `Launch`).
    pub cgroup_view: Vec<crate::executor::cgroup::Place>,
    /// A cgroup namespace to enter (its slot's, whose view shows it).
    pub cgroup_ns: Option<RawFd>,
    /// No socket but a Unix one: the case has no network of its own.
    pub offline: bool,
}

impl Entered {
    /// The descriptors the case's process hands on.
    pub fn handed(&self) -> Vec<RawFd> {
        use std::os::fd::AsRawFd;
        let files = self.hand.iter().map(File::as_raw_fd);
        files.chain(self.pass).collect()
    }
}

/// What makes a case's view and puts the case in it.
pub(super) trait Sandbox: Send + Sync {
    /// Readies `case`: what its process must do to be in its view.
    fn enter(&self, case: &Case) -> Result<Entered, ExecError>;

    /// After `case` ended (`quiet`: nothing of it is left running):
    /// `result` in the candidate's terms, not the sandbox's (a failure to
    /// start is ours), and the slot ready for its next case.
    fn leave(&self, case: &Case, entered: Entered, result: &mut RunResult, quiet: bool);

    /// The case's candidate is gone: what it left running in the sandbox
    /// dies now (its pipes close with it).
    fn sweep(&self, _case: &Case) {}

    /// The run is over: whatever the sandbox keeps running stops.
    fn stop(&self) {}
}
