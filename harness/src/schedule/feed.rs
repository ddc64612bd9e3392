//! The jobs a pool has not handed out yet, a window at a time: the
//! window's puzzles loaded, with nothing running, before any of its jobs
//! starts.

use std::sync::{Arc, Mutex, RwLock};

use super::WINDOW;
use crate::grade::{prepare, prepared};
use crate::job::Job;
use crate::settings::Context;

/// The jobs not taken yet: the window being run and, after it, the rest.
pub(super) struct Feed<'a> {
    pub(super) source: Box<dyn Iterator<Item = Job> + Send + 'a>,
    pub(super) window: Arc<Vec<Job>>,
    /// The window's next job.
    pub(super) next: usize,
    /// Jobs taken so far.
    pub(super) taken: usize,
}

/// The next job for a worker (its window, its place there, and its place
/// in the run), the next window made ready first where this one is done;
/// `None` when there are none left or a stop was requested.
pub(super) fn take(
    ctx: &Context,
    feed: &Mutex<Feed>,
    quiet: &RwLock<()>,
) -> Option<(Arc<Vec<Job>>, usize, usize)> {
    if ctx.cancel.is_requested() {
        return None;
    }
    let mut feed = feed.lock().unwrap_or_else(|p| p.into_inner());
    if feed.next >= feed.window.len() {
        let window: Vec<Job> = feed.source.by_ref().take(WINDOW).collect();
        if window.is_empty() {
            return None;
        }
        if !prepared(&window) {
            // Every job running finishes first (none starts: they wait
            // for this lock).
            let _alone = quiet.write().unwrap_or_else(|p| p.into_inner());
            prepare(ctx, &window);
        }
        feed.window = Arc::new(window);
        feed.next = 0;
        if ctx.cancel.is_requested() {
            return None;
        }
    }
    let (i, seq) = (feed.next, feed.taken);
    feed.next += 1;
    feed.taken += 1;
    Some((Arc::clone(&feed.window), i, seq))
}
