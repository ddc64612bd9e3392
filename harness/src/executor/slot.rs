//! A job slot's own state, case after case: its view's keeper and the
//! view it holds (entered by each case, emptied between them), the view of
//! its last case and what it was planned from, its failure pipe, and its
//! worker thread kept to its cores.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::sync::Arc;

use super::keeper::{Keeper, Program};
use super::view::View;

/// A job slot's view: its keeper (started on the slot's first case, and
/// again after one that failed) and the view it holds, with its mount
/// namespace, while that view may be entered.
#[derive(Default)]
pub(super) struct Slot {
    keeper: Option<Keeper>,
    view: Option<Kept>,
    /// The pipe the slot's cases say on why they could not start (read
    /// without waiting: the harness holds its write end).
    pub(super) failure: Option<(std::io::PipeReader, std::io::PipeWriter)>,
    /// The view of the slot's last case, and what it was planned from.
    pub(super) last: Option<LastView>,
}

/// A view and the command, working folder (`None`: the scratch folder)
/// and writability it was planned from.
type LastView = (Vec<OsString>, Option<PathBuf>, bool, Arc<View>);

/// The view a job slot's keeper holds: its mount namespace, and the
/// inodes its private places held when it was made.
struct Kept {
    pub(super) view: Arc<View>,
    namespace: OwnedFd,
    /// Its private places, open.
    places: Vec<OwnedFd>,
    inodes: Vec<u64>,
}

impl Slot {
    /// After a case (`quiet`: nothing of it left running): its view emptied
    /// for the next case, or dropped (the next case gets a new one).
    pub(super) fn after_case(&mut self, quiet: bool) {
        if !self.empty_view(quiet) {
            self.view = None;
        }
    }

    /// Stops the keeper.
    pub(super) fn stop(&mut self) {
        self.view = None;
        if let Some(k) = self.keeper.take() {
            k.stop();
        }
    }

    /// The mount namespace of `view` for the slot's next case: the one its
    /// keeper holds, made first where it holds another (or none).
    pub(super) fn enter(&mut self, program: &Program, view: &Arc<View>) -> std::io::Result<RawFd> {
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

    /// `view` made by `slot`'s keeper (started first where there is none).
    fn make_view(&mut self, program: &Program, view: &Arc<View>) -> std::io::Result<Kept> {
        if self.keeper.is_none() {
            self.keeper = Some(Keeper::start(program)?);
        }
        let keeper = self.keeper.as_mut().expect("started above");
        let namespace = keeper.build(view)?;
        let places = view.places(&keeper.root()).map_err(std::io::Error::other)?;
        let inodes = super::mounts::inodes(&places).map_err(std::io::Error::other)?;
        Ok(Kept {
            view: Arc::clone(view),
            namespace,
            places,
            inodes,
        })
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
        if !quiet {
            return false;
        }
        let inodes = || super::mounts::inodes(&kept.places);
        match inodes() {
            Ok(now) if now == kept.inodes => true,
            Ok(_) => {
                kept.view.clear(&keeper.root()).is_ok()
                    && inodes().is_ok_and(|now| now == kept.inodes)
            }
            Err(_) => false,
        }
    }
}

/// Keeps the calling thread (a job slot's worker) on the slot's `cores`,
/// once per thread: the case's process it starts is then there from its
/// fork on, never moved onto them across cores (a move costs more than a
/// small case's whole exec).
pub(super) fn keep_thread_to(slot: usize, cores: &[usize]) {
    thread_local! {
        static KEPT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }
    KEPT.with(|kept| {
        if kept.get() != Some(slot) && super::cpus::pin(cores).is_ok() {
            kept.set(Some(slot));
        }
    });
}

/// A failure pipe whose read end never waits.
pub(super) fn failure_pipe() -> std::io::Result<(std::io::PipeReader, std::io::PipeWriter)> {
    let (r, w) = std::io::pipe()?;
    rustix::io::ioctl_fionbio(&r, true)?;
    Ok((r, w))
}

/// What the last case's process wrote on its failure pipe (nothing, where
/// it started the candidate).
pub(super) fn failure_said(reader: &std::io::PipeReader) -> Vec<u8> {
    use std::io::Read;
    let mut said = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n @ 1..) = (&*reader).read(&mut buf) {
        said.extend_from_slice(&buf[..n]);
    }
    said
}
