//! A job slot's own state, case after case: the view of its last case
//! and what it was planned from, its failure pipe, and its worker thread
//! kept to its cores. (The view itself is the sandbox's: see `sandbox`.)

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use crate::executor::sandbox::view::View;

/// A job slot's state.
#[derive(Default)]
pub(in crate::executor) struct Slot {
    /// The pipe the slot's cases say on why they could not start (read
    /// without waiting: the harness holds its write end).
    pub(in crate::executor) failure: Option<(std::io::PipeReader, std::io::PipeWriter)>,
    /// The view of the slot's last case, and what it was planned from.
    pub(in crate::executor) last: Option<LastView>,
}

/// A view and the command, working folder (`None`: the scratch folder)
/// and writability it was planned from.
pub(in crate::executor) type LastView = (Vec<OsString>, Option<PathBuf>, bool, Arc<View>);

/// Keeps the calling thread (a job slot's worker) on the slot's `cores`,
/// once per thread: the case's process it starts is then there from its
/// fork on, never moved onto them across cores (a move costs more than a
/// small case's whole exec).
pub(in crate::executor) fn keep_thread_to(slot: usize, cores: &[usize]) {
    thread_local! {
        static KEPT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }
    KEPT.with(|kept| {
        if kept.get() != Some(slot) && crate::executor::cgroup::cpus::pin(cores).is_ok() {
            kept.set(Some(slot));
        }
    });
}

/// A failure pipe whose read end never waits.
pub(in crate::executor) fn failure_pipe()
-> std::io::Result<(std::io::PipeReader, std::io::PipeWriter)> {
    let (r, w) = std::io::pipe()?;
    rustix::io::ioctl_fionbio(&r, true)?;
    Ok((r, w))
}

/// What the last case's process wrote on its failure pipe (nothing, where
/// it started the candidate).
pub(in crate::executor) fn failure_said(reader: &std::io::PipeReader) -> Vec<u8> {
    use std::io::Read;
    let mut said = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n @ 1..) = (&*reader).read(&mut buf) {
        said.extend_from_slice(&buf[..n]);
    }
    said
}
