//! What a case holds in the places it may write, where nothing else caps
//! it: a scratch folder on disk (no memory cgroup charges it, no private
//! tmpfs holds it: the container tier, an ordinary user's). Sampled as the
//! case runs, as its waiting time is (`waits`): a case over the cap is
//! stopped (`LimitHit::Scratch`), its own verdict, before it fills the
//! disk its neighbours' copies go to. Between two looks a case can write
//! at most what the disk takes in one interval.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often the places are looked at.
const EVERY: Duration = Duration::from_millis(100);

/// The most entries counted in one look: a case that made more holds more
/// than any solver needs (its inodes are the machine's too).
const MOST_ENTRIES: usize = 100_000;

/// What each entry costs beside its blocks (its inode).
const PER_ENTRY: u64 = 256;

/// One case's writable places and their cap.
pub(in crate::executor) struct Held {
    places: Vec<PathBuf>,
    cap: u64,
    next: Instant,
}

impl Held {
    /// `places` held to `cap` bytes in all, for a case started at `start`
    /// (first looked at one interval in: most cases end before).
    pub(in crate::executor) fn new(places: Vec<PathBuf>, cap: u64, start: Instant) -> Self {
        Self {
            places,
            cap,
            next: start + EVERY,
        }
    }

    /// Whether the case holds more than its cap, looked at again where it
    /// is time to.
    pub(super) fn over(&mut self, now: Instant) -> bool {
        if now < self.next {
            return false;
        }
        self.next = now + EVERY;
        bytes(&self.places).is_none_or(|b| b > self.cap)
    }
}

/// The bytes `places` hold on disk (blocks, and [`PER_ENTRY`] an entry;
/// a file linked twice counted once); `None` past [`MOST_ENTRIES`].
fn bytes(places: &[PathBuf]) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut total = 0u64;
    for place in places {
        for entry in walkdir::WalkDir::new(place).into_iter().flatten() {
            if seen.len() >= MOST_ENTRIES {
                return None;
            }
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if seen.insert((meta.dev(), meta.ino())) {
                total = total.saturating_add(meta.blocks() * 512 + PER_ENTRY);
            }
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_case_holds_is_counted_once_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![1u8; 1 << 20]).unwrap();
        std::fs::hard_link(&big, dir.path().join("again")).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let held = bytes(&[dir.path().to_owned()]).unwrap();
        assert!(
            (1 << 20..(1 << 20) + 64 * 1024).contains(&held),
            "a MiB linked twice, and a folder: {held}"
        );
        let start = Instant::now();
        let mut under = Held::new(vec![dir.path().to_owned()], 2 << 20, start);
        let mut over = Held::new(vec![dir.path().to_owned()], 1 << 19, start);
        assert!(!over.over(start), "not looked at before one interval");
        let later = start + EVERY;
        assert!(!under.over(later));
        assert!(over.over(later));
        assert!(!over.over(later), "looked at once an interval");
    }
}
