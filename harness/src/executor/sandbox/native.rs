//! The native sandbox (as root): each job slot's keeper holds the slot's
//! view in a mount namespace of its own (see `keeper`), the slot's cases
//! enter it one after another (each with an IPC namespace of its own, see
//! `spawn`), and between them its private places are emptied of what the
//! last case left (or the view is dropped, and the next case gets a new
//! one).

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Arc, Mutex};

use super::keeper::{Keeper, Program};
use super::view::View;
use super::{Case, Entered, Sandbox};
use crate::executor::{ExecError, RunResult};

/// The native sandbox: a keeper and its view per job slot.
pub(super) struct Native {
    program: Program,
    slots: Vec<Mutex<Slot>>,
}

impl Native {
    /// For `slots` job slots, keepers run by `program`.
    pub(super) fn new(program: Program, slots: usize) -> Self {
        Self {
            program,
            slots: (0..slots.max(1)).map(|_| Mutex::default()).collect(),
        }
    }

    fn slot(&self, slot: usize) -> std::sync::MutexGuard<'_, Slot> {
        self.slots[slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

impl Sandbox for Native {
    fn enter(&self, case: &Case) -> Result<Entered, ExecError> {
        // The namespaces' descriptors stay open while the slot holds the
        // view: only this slot's worker changes it, after the case.
        let mut slot = self.slot(case.slot);
        let failed = |what: &str, error| ExecError::System {
            what: what.into(),
            error,
        };
        // The slot's cgroups, case after case: the keeper's view shows them
        // (made once); else each case's process makes its own.
        let shared = case.cgroups_shared && !case.cgroups.is_empty();
        let mut tries = 2;
        let (namespace, cgroup_ns) = loop {
            tries -= 1;
            let namespace = slot
                .enter(&self.program, case.view)
                .map_err(|e| failed("make the job slot's view", e))?;
            if !shared {
                break (Some(namespace), None);
            }
            match slot.cgroup_ns(&case.cgroups) {
                Ok(ns) => break (Some(namespace), Some(ns)),
                // A keeper that died (root's: never a candidate's doing)
                // is started again, once, for this case.
                Err(e) if tries > 0 && e.kind() != std::io::ErrorKind::Other => slot.stop(),
                Err(e) => return Err(failed("make the job slot's cgroup view", e)),
            }
        };
        let cgroup_view = if shared {
            Vec::new()
        } else {
            case.cgroups.clone()
        };
        Ok(Entered {
            namespace,
            network: slot
                .network
                .as_ref()
                .map(AsRawFd::as_raw_fd)
                .filter(|_| !case.network),
            cgroup_view,
            cgroup_ns,
            ..Entered::default()
        })
    }

    fn leave(&self, case: &Case, _: Entered, _: &mut RunResult, quiet: bool) {
        self.slot(case.slot).after_case(quiet);
    }

    fn stop(&self) {
        for slot in &self.slots {
            slot.lock().unwrap_or_else(|p| p.into_inner()).stop();
        }
    }
}

/// Whether the native sandbox can work here: a process may make a mount
/// namespace and an IPC namespace of its own and change its mounts. Root
/// in a container with the engine's default privileges may not (no
/// CAP_SYS_ADMIN, and the engine's seccomp or AppArmor profile), nor may
/// another user; asked once, in a child process (`true` run in them), so
/// the harness's own namespaces stay as they are.
pub(super) fn usable() -> Result<(), ExecError> {
    use std::os::unix::process::CommandExt;
    let mut probe = std::process::Command::new("true");
    probe
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: between fork and exec the closure makes bare system calls on
    // nothing but constants: no allocation, no lock.
    #[allow(unsafe_code)]
    unsafe {
        probe.pre_exec(|| {
            use rustix::mount::MountPropagationFlags;
            use rustix::thread::UnshareFlags;
            rustix::thread::unshare_unsafe(
                UnshareFlags::NEWNS
                    | UnshareFlags::NEWIPC
                    | UnshareFlags::NEWNET
                    | UnshareFlags::NEWCGROUP,
            )?;
            rustix::mount::mount_change(
                "/",
                MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
            )?;
            Ok(())
        });
    }
    let unusable = |why: String| ExecError::Unusable {
        sandbox: "mount namespaces",
        why,
    };
    match probe.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(unusable(format!("fail (`true` in one: {status})"))),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::PERM.raw_os_error()) => Err(
            unusable("are refused here (no CAP_SYS_ADMIN, or a seccomp or AppArmor profile: a container with its engine's default privileges)".into()),
        ),
        Err(e) => Err(unusable(format!("cannot be made: {e}"))),
    }
}

/// A job slot's view: its keeper (started on the slot's first case, and
/// again after one that failed) and the view it holds, with its mount
/// namespace, while that view may be entered.
#[derive(Default)]
struct Slot {
    keeper: Option<Keeper>,
    /// The keeper's network namespace.
    network: Option<OwnedFd>,
    view: Option<Kept>,
}

/// The view a job slot's keeper holds: its mount namespace, and the
/// inodes its private places held when it was made.
struct Kept {
    view: Arc<View>,
    namespace: OwnedFd,
    /// Its private places, open.
    places: Vec<OwnedFd>,
    inodes: Vec<u64>,
    /// The cgroup view made in it (see `cgview`): of these places, and
    /// its cgroup namespace.
    cgroups: Option<(Vec<crate::executor::cgroup::Place>, OwnedFd)>,
}

impl Slot {
    /// After a case (`quiet`: nothing of it left running): its view emptied
    /// for the next case, or dropped (the next case gets a new one).
    fn after_case(&mut self, quiet: bool) {
        if !self.empty_view(quiet) {
            self.view = None;
        }
    }

    /// Stops the keeper.
    fn stop(&mut self) {
        self.view = None;
        self.network = None;
        if let Some(k) = self.keeper.take() {
            k.stop();
        }
    }

    /// The mount namespace of `view` for the slot's next case: the one its
    /// keeper holds, made first where it holds another (or none).
    fn enter(
        &mut self,
        program: &Program,
        view: &Arc<View>,
    ) -> std::io::Result<std::os::fd::RawFd> {
        if !self
            .view
            .as_ref()
            .is_some_and(|k| Arc::ptr_eq(&k.view, view))
        {
            self.view = None;
            // A keeper that died (it cannot be a candidate's doing: it is
            // root's) is started again, once, for this case.
            let mut tries = 2;
            let kept = loop {
                tries -= 1;
                match self.make_view(program, view) {
                    Ok(kept) => break kept,
                    Err(e) => {
                        if e.kind() != std::io::ErrorKind::Other
                            && let Some(k) = self.keeper.take()
                        {
                            k.stop();
                        }
                        if tries == 0 || e.kind() == std::io::ErrorKind::Other {
                            return Err(e);
                        }
                    }
                }
            };
            self.view = Some(kept);
        }
        Ok(self.view.as_ref().map_or(-1, |k| k.namespace.as_raw_fd()))
    }

    /// `view` made by the slot's keeper (started first where there is none).
    fn make_view(&mut self, program: &Program, view: &Arc<View>) -> std::io::Result<Kept> {
        if self.keeper.is_none() {
            self.network = None;
            self.keeper = Some(Keeper::start(program)?);
        }
        let keeper = self.keeper.as_mut().expect("started above");
        let namespace = keeper.build(view)?;
        // (Its network is its own once it has answered.)
        if self.network.is_none() {
            self.network = Some(keeper.network()?);
        }
        let places = view.places(&keeper.root()).map_err(std::io::Error::other)?;
        let inodes = super::mounts::inodes(&places).map_err(std::io::Error::other)?;
        Ok(Kept {
            view: Arc::clone(view),
            namespace,
            places,
            inodes,
            cgroups: None,
        })
    }

    /// The cgroup namespace of the slot's cgroup view of `places` in its
    /// view (entered already: [`Slot::enter`]), made first where it is
    /// not.
    fn cgroup_ns(
        &mut self,
        places: &[crate::executor::cgroup::Place],
    ) -> std::io::Result<std::os::fd::RawFd> {
        let (Some(kept), Some(keeper)) = (self.view.as_mut(), self.keeper.as_mut()) else {
            return Err(std::io::Error::other("no view"));
        };
        if !kept.cgroups.as_ref().is_some_and(|(p, _)| p == places) {
            kept.cgroups = Some((places.to_vec(), keeper.cgroups(places)?));
        }
        Ok(kept.cgroups.as_ref().map_or(-1, |(_, ns)| ns.as_raw_fd()))
    }

    /// Whether the slot's view, after a case, holds nothing of it: emptied
    /// of what the case left in its private places (when their inodes
    /// show that it left anything), which is safe only once nothing of
    /// the case is left running (`quiet`: its cgroup shows that). `false`:
    /// the view must not be entered again.
    fn empty_view(&mut self, quiet: bool) -> bool {
        let (Some(kept), Some(keeper)) = (&self.view, &self.keeper) else {
            return false;
        };
        quiet && super::mounts::emptied(&kept.view, &keeper.root(), &kept.places, &kept.inodes)
    }
}
