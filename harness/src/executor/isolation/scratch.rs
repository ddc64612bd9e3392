//! Each case's scratch folder: a run folder (mode 0711) holding a folder
//! per job slot (the harness's, 0711) and in it one folder per case (mode
//! 0700, the slot's user's) with private copies of the case's puzzle
//! files, written from the bytes the harness loaded; retired out of every
//! candidate's reach when the case ends, then removed off the case's path.
//! Where the case runs as a slot's own user, a copy is a hard link to a
//! read-only file of the harness's (a shelf of the slot's): written once per slot,
//! not once per case.
//!
//! Where cases run as the slot's own user, folders are made ahead (the
//! harness's, closed, until given): no case can reach them. A finished
//! case's folder, given back to the harness and closed, is emptied and
//! kept for its slot's next case ([`RunDir::recycle`]): a folder made and
//! removed a case costs a disk file system two inodes' allocation and
//! freeing, the largest part of a case's cost in a container. Where they run
//! as the harness's user (an ordinary user's bubblewrap or Landlock), a
//! folder is made when its case starts, under a name no one could guess,
//! and fails where anything is there already: nothing an earlier case
//! left can be in it, and a copy is never written through a link.

use std::path::{Path, PathBuf};

use super::shelf::Shelf;
use crate::executor::ExecError;

/// The folder, inside a run's folder, that finished scratch folders are
/// moved to before they are removed.
const TRASH: &str = "retired";

/// The run's own folder: a folder per job slot below it (root's, 0711),
/// and one scratch folder per case in its slot's. Mode 0711: a candidate
/// can reach its own scratch by path but not list the others, nor make
/// anything beside it.
pub struct RunDir {
    dir: tempfile::TempDir,
    /// The job slots whose folder is made.
    slots: std::sync::Mutex<Vec<usize>>,
    /// Scratch folders made ahead, each for a job slot's next cases.
    ready: std::sync::Mutex<Vec<(usize, Scratch)>>,
    /// Each job slot that has had a case: folders are made ahead for it.
    ahead: std::sync::Mutex<Vec<usize>>,
    /// Scratch folders made so far (their names).
    made: std::sync::atomic::AtomicUsize,
    /// Each job slot's shelf of read-only copies.
    shelves: std::sync::Mutex<std::collections::HashMap<usize, Shelf>>,
    /// The harness's own (effective) user and group.
    me: (u32, u32),
    /// Whether a folder of a case run as the harness's own user is kept
    /// for its slot's next case too: where its sandbox ends every process
    /// of a case with it (bubblewrap), none is left that could reach it.
    keep_own: bool,
}

/// Where a run's scratch folders live: the executor says, and a mode that
/// wants its own scratch beside the cases' (a class's builds) asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScratchPlace {
    /// Every case has a memory cgroup: `/dev/shm` if it is a folder (a
    /// tmpfs: no disk inode churn per case, and what a candidate writes
    /// there is charged to its memory limit).
    Charged,
    /// The system's temporary folder.
    Temporary,
}

impl ScratchPlace {
    /// The place where every case has a memory cgroup (`charged`), or not.
    pub fn with(charged: bool) -> Self {
        if charged {
            Self::Charged
        } else {
            Self::Temporary
        }
    }

    /// The folder: `$PUZZLEGRADE_SCRATCH` when set, else the place's own.
    pub fn base(self) -> PathBuf {
        if let Some(dir) = std::env::var_os("PUZZLEGRADE_SCRATCH") {
            return dir.into();
        }
        let shm = Path::new("/dev/shm");
        if self == ScratchPlace::Charged && shm.is_dir() {
            return shm.to_owned();
        }
        std::env::temp_dir()
    }
}

impl RunDir {
    /// A fresh folder under `base`.
    pub fn new(base: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        // (Its real path: a view names its folders as they resolve.)
        let dir = tempfile::Builder::new()
            .prefix("puzzlegrade-run-")
            .tempdir_in(base.canonicalize()?)?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711))?;
        let trash = dir.path().join(TRASH);
        std::fs::create_dir(&trash)?;
        std::fs::set_permissions(&trash, std::fs::Permissions::from_mode(0o700))?;
        Ok(Self {
            dir,
            slots: Default::default(),
            ready: Default::default(),
            ahead: Default::default(),
            made: Default::default(),
            shelves: Default::default(),
            me: (
                rustix::process::geteuid().as_raw(),
                rustix::process::getegid().as_raw(),
            ),
            keep_own: false,
        })
    }

    /// The same, keeping the folders of cases run as the harness's own
    /// user for their slots' next cases (see [`RunDir::recycle`]) where
    /// `keep` (their sandbox ends every process of a case with it).
    pub fn keeping_own(mut self, keep: bool) -> Self {
        self.keep_own = keep;
        self
    }

    /// Takes a finished case's scratch folder out of every candidate's
    /// reach at once, before it is removed in the background: the next
    /// case on the same job slot runs as the same user and must not find
    /// the last one's files. A folder given to a slot's user is given back
    /// to the harness's (closed, 0700: nothing in it can be reached); one
    /// that is the harness's user's already (the candidates run as it) is
    /// moved into the run's own 0700 folder (and given back where the move
    /// fails).
    pub fn retire(&self, mut scratch: Scratch) -> Scratch {
        let me = self.me;
        // Given back, then closed (its case may have opened it to all).
        let back = |path: &Path| {
            use std::os::unix::fs::PermissionsExt;
            std::os::unix::fs::chown(path, Some(me.0), Some(me.1)).is_ok()
                && std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)).is_ok()
        };
        if scratch.owner.is_some_and(|(uid, _)| uid != me.0) && back(&scratch.path) {
            return scratch;
        }
        let Some(name) = scratch.path.file_name() else {
            return scratch;
        };
        let target = self.dir.path().join(TRASH).join(name);
        if std::fs::rename(&scratch.path, &target).is_ok() {
            scratch.path = target;
        } else {
            back(&scratch.path);
        }
        scratch
    }

    /// Keeps a retired scratch folder for its slot's next case, emptied,
    /// where it was given to a slot's user (only then are folders made
    /// ahead) and given back, closed, where it was, or where it was the
    /// harness's user's, the run keeps those ([`RunDir::keeping_own`]), and
    /// it is in the run's retired folder; else removes it. The
    /// folder is the harness's and 0700 before anything in it is removed
    /// (its user's processes are gone: killed before it was retired), and
    /// it is kept only when found empty after: the next case finds nothing
    /// of this one's, as in a new folder.
    pub fn recycle(&self, mut scratch: Scratch) {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let other = scratch.owner.is_some_and(|(uid, _)| uid != self.me.0);
        let ours = if other {
            scratch.path.parent() == Some(self.slot_dir(scratch.slot).as_path())
        } else {
            self.keep_own && scratch.path.parent() == Some(self.dir.path().join(TRASH).as_path())
        };
        let wanted = || {
            self.ready
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .filter(|(s, _)| *s == scratch.slot)
                .count()
                < Self::AHEAD
        };
        if !ours || !wanted() {
            return;
        }
        let closed = std::fs::symlink_metadata(&scratch.path).is_ok_and(|m| {
            m.is_dir() && m.uid() == self.me.0 && m.permissions().mode() & 0o7777 == 0o700
        });
        if !closed || !scratch.empty() {
            return;
        }
        scratch.owner = None;
        let slot = scratch.slot;
        self.ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((slot, scratch));
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The run's folder of retired folders (closed to every case), removed
    /// with the run's: where a case's leftovers beside its own folder go.
    pub fn trash(&self) -> PathBuf {
        self.dir.path().join(TRASH)
    }

    /// The folder of job slot `slot`'s scratch folders: the harness's,
    /// mode 0711 (a case reaches its own scratch folder in it, and makes
    /// nothing there).
    pub fn slot_dir(&self, slot: usize) -> PathBuf {
        self.dir.path().join(format!("slot-{slot}"))
    }

    /// A new, empty scratch folder for a case in job slot `slot`'s folder,
    /// given to `owner` (uid, gid) when given, mode 0700: one made ahead
    /// (see [`RunDir::make_ahead`]) where there is one, else made now.
    /// `true` beside it when the slot has few left made ahead.
    pub fn scratch(
        &self,
        slot: usize,
        owner: Option<(u32, u32)>,
    ) -> std::io::Result<(Scratch, bool)> {
        if owner.is_none_or(|(uid, _)| uid == self.me.0) {
            // The case's user is the harness's: a folder made ahead would
            // be within an earlier case's reach; one its slot's last case
            // had, kept (see `recycle`), is brought back from the retired.
            if let Some(kept) = self.own_kept(slot, owner) {
                return Ok((kept, false));
            }
            return Ok((self.fresh(slot, owner)?, false));
        }
        {
            let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(at) = ready.iter().position(|(s, _)| *s == slot) {
                let mut scratch = ready.swap_remove(at).1;
                let left = ready.iter().filter(|(s, _)| *s == slot).count();
                drop(ready);
                // Made ahead as the harness's own, closed: no case can
                // reach it (and leave something for the case that gets it)
                // before it is given.
                if let Some((uid, gid)) = owner {
                    std::os::unix::fs::chown(&scratch.path, Some(uid), Some(gid))?;
                }
                scratch.owner = owner;
                return Ok((scratch, left < Self::AHEAD / 2));
            }
        }
        {
            let mut slots = self.ahead.lock().unwrap_or_else(|p| p.into_inner());
            if !slots.contains(&slot) {
                slots.push(slot);
            }
        }
        let mut scratch = self.make(slot)?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&scratch.path, Some(uid), Some(gid))?;
        }
        scratch.owner = owner;
        Ok((scratch, true))
    }

    /// Gives `scratch` (of job slot `slot`) its copies of `files`, as
    /// [`Scratch::copy_in`] does; where the case runs as a user other than
    /// the harness's, each copy is a hard link to the slot's read-only
    /// copy (a shelf of the slot's), made first where the slot has none.
    pub fn copy_in(
        &self,
        scratch: &mut Scratch,
        slot: usize,
        files: &[PathBuf],
        contents: Option<&[Vec<u8>]>,
        cap: u64,
    ) -> Result<Vec<PathBuf>, ExecError> {
        if scratch.owner.is_none_or(|(uid, _)| uid == self.me.0) {
            return scratch.copy_in(files, contents, cap);
        }
        scratch.put(files, contents, cap, |file, bytes, target| {
            let shelved = {
                let mut shelves = self.shelves.lock().unwrap_or_else(|p| p.into_inner());
                shelves
                    .entry(slot)
                    .or_insert_with(|| Shelf::new(self.dir.path().join(format!("shelf-{slot}"))))
                    .get(file, bytes)
            };
            // (A file system without hard links, say: a copy instead.)
            shelved
                .and_then(|from| std::fs::hard_link(from, target))
                .is_ok()
        })
    }

    /// Folders made ahead for each job slot, at most.
    pub const AHEAD: usize = 64;

    /// Makes scratch folders ahead for each job slot that has had a case,
    /// up to [`RunDir::AHEAD`] (off the cases' path: the janitor's).
    pub fn make_ahead(&self) {
        let slots = self.ahead.lock().unwrap_or_else(|p| p.into_inner()).clone();
        for slot in slots {
            let have = self
                .ready
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .filter(|(s, _)| *s == slot)
                .count();
            for _ in have..Self::AHEAD {
                let Ok(made) = self.make(slot) else {
                    break;
                };
                self.ready
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((slot, made));
            }
        }
    }

    /// A folder kept for job slot `slot` from its last case's (run as the
    /// harness's own user: see `recycle`), moved back into the slot's
    /// folder; `None` where there is none (or the move fails).
    fn own_kept(&self, slot: usize, owner: Option<(u32, u32)>) -> Option<Scratch> {
        let mut scratch = {
            let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
            let at = ready.iter().position(|(s, _)| *s == slot)?;
            ready.swap_remove(at).1
        };
        let target = self.slot_folder(slot).ok()?.join(scratch.path.file_name()?);
        std::fs::rename(&scratch.path, &target).ok()?;
        scratch.path = target;
        scratch.owner = owner;
        Some(scratch)
    }

    /// A new scratch folder in job slot `slot`'s folder, made now under a
    /// name of random letters (`mkdir` fails on anything there, and
    /// another name is tried), 0700.
    fn fresh(&self, slot: usize, owner: Option<(u32, u32)>) -> std::io::Result<Scratch> {
        let dir = self.slot_folder(slot)?;
        let path = tempfile::Builder::new()
            .prefix("case-")
            .rand_bytes(12)
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(&dir)?
            .keep();
        Ok(Scratch {
            path,
            owner,
            placed: Vec::new(),
            slot,
        })
    }

    /// A new, empty scratch folder in job slot `slot`'s folder (made first
    /// where there is none): the harness's, 0700, until it is given.
    fn make(&self, slot: usize) -> std::io::Result<Scratch> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = self.slot_folder(slot)?;
        let n = self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("case-{n}"));
        // (The umask takes bits away, never adds them.)
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(Scratch {
            path,
            owner: None,
            placed: Vec::new(),
            slot,
        })
    }

    /// Job slot `slot`'s folder, made (0711, the harness's) where it is not.
    fn slot_folder(&self, slot: usize) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = self.slot_dir(slot);
        {
            let mut made = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if !made.contains(&slot) {
                match std::fs::DirBuilder::new().mode(0o711).create(&dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => made.push(slot),
                }
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
            }
        }
        Ok(dir)
    }
}

/// One case's scratch folder; removed when dropped.
pub struct Scratch {
    path: PathBuf,
    owner: Option<(u32, u32)>,
    /// The names of the copies put in it.
    placed: Vec<std::ffi::OsString>,
    /// The job slot whose folder it is in.
    slot: usize,
}

impl Scratch {
    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Copies `files` in and returns the copies' paths, in order: from
    /// `contents` (the bytes the harness read when it loaded the puzzle)
    /// where given, else read now as the reference reads puzzles (regular
    /// files only, at most `cap` bytes). Names are kept; a name used twice
    /// gets a numbered prefix.
    pub fn copy_in(
        &mut self,
        files: &[PathBuf],
        contents: Option<&[Vec<u8>]>,
        cap: u64,
    ) -> Result<Vec<PathBuf>, ExecError> {
        self.put(files, contents, cap, |_, _, _| false)
    }

    /// Puts each of `files` in, in order (see [`Scratch::copy_in`]):
    /// `link(file, bytes, target)` first, which says whether it put the
    /// file there; else a copy is written.
    fn put(
        &mut self,
        files: &[PathBuf],
        contents: Option<&[Vec<u8>]>,
        cap: u64,
        mut link: impl FnMut(&Path, &[u8], &Path) -> bool,
    ) -> Result<Vec<PathBuf>, ExecError> {
        let mut out: Vec<PathBuf> = Vec::with_capacity(files.len());
        for (i, file) in files.iter().enumerate() {
            let read;
            let bytes: &[u8] = match contents.and_then(|c| c.get(i)) {
                Some(b) => b,
                None => {
                    read = read_puzzle(file, cap)?;
                    &read
                }
            };
            let target = self.target(file, i, &out);
            if !link(file, bytes, &target) {
                self.write_copy(file, &target, bytes)?;
            }
            if let Some(name) = target.file_name() {
                self.placed.push(name.to_owned());
            }
            out.push(target);
        }
        Ok(out)
    }

    /// Where the copy of `file`, the `i`th, goes: its name, with a
    /// numbered prefix where a copy in `made` has it.
    fn target(&self, file: &Path, i: usize, made: &[PathBuf]) -> PathBuf {
        let name = file
            .file_name()
            .map_or_else(|| format!("file{i}"), |n| n.to_string_lossy().into_owned());
        let target = self.path.join(&name);
        if made.contains(&target) {
            return self.path.join(format!("{i}-{name}"));
        }
        target
    }

    /// Writes `bytes` (of puzzle file `file`) to `target`, the folder's
    /// owner's.
    fn write_copy(&self, file: &Path, target: &Path, bytes: &[u8]) -> Result<(), ExecError> {
        let copy_in = |error| ExecError::CopyIn {
            path: file.to_owned(),
            error,
        };
        // A new file, never one that is there, never through a link.
        let mut copy = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o600)
                .open(target)
                .map_err(copy_in)?
        };
        std::io::Write::write_all(&mut copy, bytes).map_err(copy_in)?;
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::fchown(&copy, Some(uid), Some(gid)).map_err(|error| {
                ExecError::Give {
                    path: target.to_owned(),
                    uid,
                    error,
                }
            })?;
        }
        Ok(())
    }
}

/// A puzzle file's bytes, read as the reference reads puzzles (regular
/// files only, at most `cap` bytes).
fn read_puzzle(file: &Path, cap: u64) -> Result<Vec<u8>, ExecError> {
    reference::file::read_file_bounded::<std::convert::Infallible>(file, cap)
        .map_err(|e| ExecError::Puzzle(e.to_string()))
}

impl Scratch {
    /// Removes everything in the folder (its copies by name, then
    /// whatever else is there, never following a link); whether it is
    /// empty after.
    fn empty(&mut self) -> bool {
        for name in self.placed.drain(..) {
            let _ = std::fs::remove_file(self.path.join(name));
        }
        let Ok(entries) = std::fs::read_dir(&self.path) else {
            return false;
        };
        for entry in entries.flatten() {
            let _ = match entry.file_type() {
                Ok(t) if t.is_dir() => std::fs::remove_dir_all(entry.path()),
                _ => std::fs::remove_file(entry.path()),
            };
        }
        std::fs::read_dir(&self.path).is_ok_and(|mut e| e.next().is_none())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Most cases leave only their copies: two calls, not a listing.
        for name in &self.placed {
            let _ = std::fs::remove_file(self.path.join(name));
        }
        if std::fs::remove_dir(&self.path).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
#[path = "scratch_tests.rs"]
mod tests;
