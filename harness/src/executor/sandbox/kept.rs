//! bubblewrap kept per job slot, for cases that run as the harness's own
//! user with no cgroup (an ordinary user's default): one sandbox a slot
//! (made again when the slot's view changes), whose first process, the
//! holder (`keeper::hold`, its pid 1), holds the namespaces; each case's
//! process enters them (`run::hop`: the view, the slot's loopback
//! network, its PID namespace) with an IPC namespace of its own, instead
//! of a sandbox program being started around it: bubblewrap's 70-mount
//! view is made once a slot, not once a case.
//!
//! Successive cases of a slot see nothing of each other: after each, the
//! holder kills every process left in the slot's PID namespace and waits
//! until none is; the private places (each a tmpfs of the sandbox's) are
//! emptied through the holder's `/proc/PID/root` and checked (their
//! inodes as the sandbox was made), else the sandbox is dropped and the
//! next case gets a new one. The view keeps the slot's whole folder,
//! which holds only the case's own scratch folder while it runs: anything
//! else found there as a case starts (what an earlier case left beside
//! its folder) is moved out of every case's reach first. The rest of the
//! system is read-only, as under bubblewrap a case, and so is the
//! sandbox's /dev.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::keeper::{Keeper, Program};
use super::view::View;
use super::{Case, Entered, Sandbox};
use crate::executor::run::hop::Hop;
use crate::executor::{ExecError, RunResult};

/// bubblewrap kept per job slot where a case fits ([`Kept::fits`]), else
/// around each case.
pub(super) struct KeptOrEach {
    pub kept: Kept,
    pub each: super::bwrap::Bwrap,
}

impl Sandbox for KeptOrEach {
    fn enter(&self, case: &Case) -> Result<Entered, ExecError> {
        if Kept::fits(case)
            && let Some(entered) = self.kept.enter(case)?
        {
            return Ok(entered);
        }
        self.each.enter(case)
    }

    fn leave(&self, case: &Case, entered: Entered, result: &mut RunResult, quiet: bool) {
        if entered.hop.is_some() {
            return self.kept.leave(case, result);
        }
        self.each.leave(case, entered, result, quiet);
    }

    fn sweep(&self, case: &Case) {
        if Kept::fits(case) {
            self.kept.sweep(case);
        }
    }

    fn stop(&self) {
        self.kept.stop();
    }
}

/// Each job slot's kept sandbox.
pub(super) struct Kept {
    program: Program,
    slots: Vec<Mutex<Option<Holder>>>,
    /// A sandbox could not be kept here: each case gets its own.
    refused: AtomicBool,
}

/// One job slot's sandbox: its holder, what it was made for, its
/// namespaces, and its private places with the inodes they held when it
/// was made.
struct Holder {
    keeper: Keeper,
    view: Arc<View>,
    network: bool,
    owner: OwnedFd,
    user: Option<OwnedFd>,
    mount: OwnedFd,
    pid: OwnedFd,
    net: Option<OwnedFd>,
    places: Vec<OwnedFd>,
    inodes: Vec<u64>,
    /// Whether what the last case left running is dead already (see
    /// [`Kept::sweep`]), and how that went.
    swept: Option<Killed>,
}

impl Kept {
    /// For `slots` job slots, holders run by `program`.
    pub(super) fn new(program: Program, slots: usize) -> Self {
        Self {
            program,
            slots: (0..slots.max(1)).map(|_| Mutex::default()).collect(),
            refused: AtomicBool::new(false),
        }
    }

    /// Whether `case` may run in its slot's kept sandbox: it runs as the
    /// harness's user, with no cgroup to show (and its view must fit: see
    /// [`Kept::enter`]).
    pub(super) fn fits(case: &Case) -> bool {
        case.harness_user && case.cgroups.is_empty()
    }

    fn slot(&self, slot: usize) -> std::sync::MutexGuard<'_, Option<Holder>> {
        self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Readies `case`: the slot's folder cleared of all but its scratch
    /// folder, the slot's sandbox (made where it has none for this view),
    /// and its namespaces for the case's process to enter. `None` where
    /// its view cannot be kept (an output in it is masked alone: see
    /// `bwrap::held_fits`, asked once a view) or no sandbox can be kept
    /// here (bubblewrap made none this process may enter: said once, and
    /// every later case gets a sandbox of its own).
    pub(super) fn enter(&self, case: &Case) -> Result<Option<Entered>, ExecError> {
        if self.refused.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mut slot = self.slot(case.slot);
        let held = |h: &Holder| Arc::ptr_eq(&h.view, case.view) && h.network == case.network;
        if !slot.as_ref().is_some_and(held) && !super::bwrap::held_fits(case.view) {
            return Ok(None);
        }
        clear_beside(case.scratch.0, case.scratch.1, case.trash)?;
        if !slot.as_ref().is_some_and(held) {
            if let Some(old) = slot.take() {
                old.keeper.stop();
            }
            match Holder::start(&self.program, case) {
                Ok(h) => *slot = Some(h),
                Err(e) => {
                    if !self.refused.swap(true, Ordering::Relaxed) {
                        eprintln!(
                            "harness: bubblewrap cannot be kept per job slot here ({e}): each case gets one of its own"
                        );
                    }
                    return Ok(None);
                }
            }
        }
        let h = slot.as_ref().expect("made above");
        Ok(Some(Entered {
            hop: Some(Hop {
                owner: h.owner.as_raw_fd(),
                mount: h.mount.as_raw_fd(),
                network: h.net.as_ref().map(AsRawFd::as_raw_fd),
                pid: h.pid.as_raw_fd(),
                user: h.user.as_ref().map(AsRawFd::as_raw_fd),
            }),
            ..Entered::default()
        }))
    }

    /// The case's candidate is gone: what it left running (a process in
    /// a session of its own holding its pipes, say) is killed now.
    pub(super) fn sweep(&self, case: &Case) {
        if let Some(h) = self.slot(case.slot).as_mut()
            && Arc::ptr_eq(&h.view, case.view)
        {
            h.swept = Some(Killed::by(&mut h.keeper));
        }
    }

    /// After `case`: what it left running killed, its private places
    /// emptied; else the sandbox is dropped (a case that could not enter
    /// it, its holder gone, is tried once more in a new one).
    pub(super) fn leave(&self, case: &Case, result: &mut RunResult) {
        let mut slot = self.slot(case.slot);
        let Some(h) = slot.as_mut() else {
            return;
        };
        let killed = match h.swept.take() {
            Some(done) => done,
            None => Killed::by(&mut h.keeper),
        };
        if killed == Killed::Yes && h.empty() {
            return;
        }
        if killed == Killed::HolderGone {
            // Its namespaces died with it, and what ran there: the case
            // too, or it could not enter them. Never the case's doing (the
            // holder takes no signal from inside, and no case reaches its
            // memory): tried once more, in a new sandbox.
            result.ending = crate::executor::Ending::Failed(
                "the job slot's sandbox ended during the case".into(),
            );
            result.unstarted = true;
        }
        if let Some(old) = slot.take() {
            old.keeper.stop();
        }
    }

    /// Stops every slot's sandbox.
    pub(super) fn stop(&self) {
        for slot in &self.slots {
            if let Some(h) = slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
                h.keeper.stop();
            }
        }
    }
}

/// How the holder's killing of what a case left went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Killed {
    /// Nothing is left.
    Yes,
    /// The holder said it could not (it is there still).
    No,
    /// The holder is gone (its socket closed).
    HolderGone,
}

impl Killed {
    /// Asks `keeper` (a holder) to kill what the last case left.
    fn by(keeper: &mut Keeper) -> Self {
        match keeper.kill_all() {
            Ok(()) => Killed::Yes,
            Err(e) if e.kind() == std::io::ErrorKind::Other => Killed::No,
            Err(_) => Killed::HolderGone,
        }
    }
}

impl Holder {
    /// The slot's sandbox for `case`'s view, made by bubblewrap around a
    /// new holder.
    fn start(program: &Program, case: &Case) -> std::io::Result<Self> {
        let words = super::bwrap::held_words(case.view, case.scratch.1, case.network);
        let keeper = Keeper::start_held(program, &words)?;
        match Self::around(keeper, case) {
            Ok(h) => Ok(h),
            Err((keeper, e)) => {
                keeper.stop();
                Err(e)
            }
        }
    }

    /// The holder `keeper` with its namespaces and private places, open
    /// (else it is given back, with the reason).
    fn around(keeper: Keeper, case: &Case) -> Result<Self, (Keeper, std::io::Error)> {
        let ns = |kind: &str| keeper.namespace(kind).map(OwnedFd::from);
        let parts = || -> std::io::Result<_> {
            let (mount, user) = (ns("mnt")?, ns("user")?);
            // The user namespace that owns the others (bubblewrap nests
            // the one its command runs in, as the user, in one of its own).
            let owner = owner_of(&mount)?;
            let own: OwnedFd = std::fs::File::open("/proc/self/ns/user")?.into();
            if same(&owner, &own)? {
                // (A set-user-ID bubblewrap, where user namespaces are off.)
                return Err(std::io::Error::other(
                    "its namespaces are not in a user namespace of its own",
                ));
            }
            let nested = !same(&owner, &user)?;
            let places = case
                .view
                .private_places(&keeper.root())
                .map_err(std::io::Error::other)?;
            let inodes = super::mounts::inodes(&places).map_err(std::io::Error::other)?;
            let net = (!case.network).then(|| ns("net")).transpose()?;
            Ok((
                owner,
                nested.then_some(user),
                mount,
                ns("pid")?,
                net,
                places,
                inodes,
            ))
        };
        match parts() {
            Ok((owner, user, mount, pid, net, places, inodes)) => Ok(Self {
                keeper,
                view: Arc::clone(case.view),
                network: case.network,
                owner,
                user,
                mount,
                pid,
                net,
                places,
                inodes,
                swept: None,
            }),
            Err(e) => Err((keeper, e)),
        }
    }

    /// Whether its private places hold nothing of the last case: as they
    /// were, or emptied.
    fn empty(&self) -> bool {
        super::mounts::emptied(&self.view, &self.keeper.root(), &self.places, &self.inodes)
    }
}

/// The user namespace that owns namespace `ns` (`NS_GET_USERNS`).
fn owner_of(ns: &OwnedFd) -> std::io::Result<OwnedFd> {
    /// `NS_GET_USERNS` (linux/nsfs.h): `_IO(0xb7, 0x1)`.
    const NS_GET_USERNS: libc::c_ulong = 0xb701;
    // SAFETY: an ioctl that takes no argument and returns a new
    // descriptor, which is owned from here on.
    #[allow(unsafe_code)]
    unsafe {
        let fd = libc::ioctl(ns.as_raw_fd(), NS_GET_USERNS as _);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(<OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd))
    }
}

/// Whether two namespace files are the same namespace.
fn same(a: &OwnedFd, b: &OwnedFd) -> std::io::Result<bool> {
    let (a, b) = (rustix::fs::fstat(a.as_fd())?, rustix::fs::fstat(b.as_fd())?);
    Ok(a.st_ino == b.st_ino && a.st_dev == b.st_dev)
}

/// Empties the slot's folder `slot` of everything but `scratch` (the
/// case's own folder in it): what an earlier case left beside its own
/// (the view keeps the whole slot folder) is not this one's to see. Each
/// such entry is moved into `trash` (one rename, whatever it holds; a
/// folder a case closed is opened first, as the slot's folder is).
fn clear_beside(scratch: &Path, slot: &Path, trash: &Path) -> Result<(), ExecError> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e: std::io::Error| ExecError::io("clear the job slot's folder", slot, e);
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(slot, 0o711).map_err(failed)?;
    for entry in std::fs::read_dir(slot).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        let path = entry.path();
        if path == scratch {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            mode(&path, 0o700).map_err(failed)?;
        }
        let to = tempfile::Builder::new()
            .prefix("left-")
            .tempdir_in(trash)
            .map_err(failed)?
            .keep();
        std::fs::rename(&path, to.join("x")).map_err(failed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::view::Step;
    use super::*;

    /// The slot's sandbox: the view as for a case, the slot's whole folder
    /// kept writable, /dev read-only, the holder its pid 1.
    #[test]
    fn a_slots_sandbox_keeps_its_whole_folder_and_closes_dev() {
        let view = View {
            steps: vec![
                Step::Private("/tmp".into()),
                Step::Keep("/tmp/run/slot-0".into(), true),
            ],
            size: 1 << 20,
            masks: vec![],
        };
        let words = |network| -> Vec<String> {
            super::super::bwrap::held_words(&view, Path::new("/tmp/run/slot-0"), network)
                .into_iter()
                .map(|w| w.into_string().unwrap())
                .collect()
        };
        let mut expected = [
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--remount-ro",
            "/dev",
            "--proc",
            "/proc",
            "--size",
            "1048576",
            "--tmpfs",
            "/tmp",
            "--bind",
            "/tmp/run/slot-0",
            "/tmp/run/slot-0",
            "--size",
            "4096",
            "--tmpfs",
            "/sys/fs/cgroup",
            "--remount-ro",
            "/sys/fs/cgroup",
            "--unshare-all",
            "--as-pid-1",
            "--info-fd",
            "3",
            "--chdir",
            "/",
            "--",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(words(false), expected);
        expected.insert(24, "--share-net".into());
        assert_eq!(
            words(true),
            expected,
            "the network shared after --unshare-all"
        );
    }

    /// What a case left beside its own folder in the slot's folder (a
    /// file, a folder it closed) is moved out; its own folder stays.
    #[test]
    fn what_a_case_left_beside_its_folder_is_moved_out() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let (slot, trash) = (t.path().join("slot-0"), t.path().join("retired"));
        let own = slot.join("case-b");
        for d in [&own, &slot.join("left/deep"), &trash] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(slot.join("note"), "for the next case").unwrap();
        std::fs::write(own.join("mine"), "x").unwrap();
        let mode = |p: &Path, m| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
        mode(&slot.join("left"), 0).unwrap();
        mode(&slot, 0o500).unwrap();
        clear_beside(&own, &slot, &trash).unwrap();
        let names = |d: &Path| -> Vec<String> {
            let mut n: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(&slot), ["case-b"]);
        assert_eq!(names(&own), ["mine"]);
        assert_eq!(names(&trash).len(), 2, "both moved into the trash");
    }
}
