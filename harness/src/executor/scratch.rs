//! Each case's scratch folder: a run folder (mode 0711) holding a folder
//! per job slot (the harness's, 0711) and in it one folder per case (mode
//! 0700, the slot's user's) with private copies of the case's puzzle
//! files, written from the bytes the harness loaded; retired out of every
//! candidate's reach when the case ends, then removed off the case's path.

use std::path::{Path, PathBuf};

use super::ExecError;

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
}

/// Where scratch folders go: `$PUZZLEGRADE_SCRATCH` when set; else, when
/// every case has a memory cgroup (`charged`), `/dev/shm` if it is a
/// tmpfs folder (no disk inode churn per case, and what a
/// candidate writes there is charged to its memory limit); else the
/// system's temporary folder.
pub fn scratch_base(charged: bool) -> PathBuf {
    if let Some(dir) = std::env::var_os("PUZZLEGRADE_SCRATCH") {
        return dir.into();
    }
    let shm = Path::new("/dev/shm");
    if charged && shm.is_dir() {
        return shm.to_owned();
    }
    std::env::temp_dir()
}

impl RunDir {
    /// A fresh folder under `base`.
    pub fn new(base: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("puzzlegrade-run-")
            .tempdir_in(base)?;
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
        })
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
        let me = (rustix::process::geteuid(), rustix::process::getegid());
        let back = |path: &Path| {
            std::os::unix::fs::chown(path, Some(me.0.as_raw()), Some(me.1.as_raw())).is_ok()
        };
        if scratch.owner.is_some_and(|(uid, _)| uid != me.0.as_raw()) && back(&scratch.path) {
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

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where bubblewrap reports that case `id`'s candidate started (the
    /// harness's file, not the candidate's).
    pub fn report_file(&self, id: usize) -> PathBuf {
        self.dir.path().join(format!("case-{id}.sandbox"))
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

    /// A new, empty scratch folder in job slot `slot`'s folder (made first
    /// where there is none): the harness's, 0700, until it is given.
    fn make(&self, slot: usize) -> std::io::Result<Scratch> {
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
        let n = self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("case-{n}"));
        // (The umask takes bits away, never adds them.)
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(Scratch { path, owner: None })
    }
}

/// One case's scratch folder; removed when dropped.
pub struct Scratch {
    path: PathBuf,
    owner: Option<(u32, u32)>,
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
        &self,
        files: &[PathBuf],
        contents: Option<&[Vec<u8>]>,
        cap: u64,
    ) -> Result<Vec<PathBuf>, ExecError> {
        let mut out: Vec<PathBuf> = Vec::with_capacity(files.len());
        for (i, file) in files.iter().enumerate() {
            let read;
            let bytes: &[u8] = match contents.and_then(|c| c.get(i)) {
                Some(b) => b,
                None => {
                    read =
                        reference::file::read_file_bounded::<std::convert::Infallible>(file, cap)
                            .map_err(|e| ExecError::Puzzle(e.to_string()))?;
                    &read
                }
            };
            let name = file
                .file_name()
                .map_or_else(|| format!("file{i}"), |n| n.to_string_lossy().into_owned());
            let mut target = self.path.join(&name);
            if out.contains(&target) {
                target = self.path.join(format!("{i}-{name}"));
            }
            let copy_in = |error| ExecError::CopyIn {
                path: file.clone(),
                error,
            };
            let mut copy = std::fs::File::create(&target).map_err(copy_in)?;
            std::io::Write::write_all(&mut copy, bytes).map_err(copy_in)?;
            if let Some((uid, gid)) = self.owner {
                std::os::unix::fs::fchown(&copy, Some(uid), Some(gid)).map_err(|error| {
                    ExecError::Give {
                        path: target.clone(),
                        uid,
                        error,
                    }
                })?;
            }
            out.push(target);
        }
        Ok(out)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished case's folder leaves the candidates' reach before the
    /// janitor removes it: the next case on the slot runs as the same user.
    #[test]
    fn a_retired_scratch_folder_is_out_of_reach_at_once() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let me = rustix::process::geteuid().as_raw();
        // Candidates running as the harness's user: moved out of reach.
        let (scratch, _) = run.scratch(0, None).unwrap();
        std::fs::write(scratch.path().join("answer"), "secret").unwrap();
        let old = scratch.path().to_owned();
        let retired = run.retire(scratch);
        assert!(!old.exists(), "the case's path is gone at once");
        assert_eq!(retired.path(), run.path().join(TRASH).join("case-0"));
        let trash = std::fs::metadata(run.path().join(TRASH)).unwrap();
        assert_eq!(trash.permissions().mode() & 0o777, 0o700);
        assert_eq!(trash.uid(), me, "the harness's own folder");
        assert!(retired.path().join("answer").exists());
        let path = retired.path().to_owned();
        drop(retired);
        assert!(!path.exists(), "and removed when dropped");
        // A slot's user's (as root): given back to the harness, closed.
        if me == 0 {
            let slot_user = (4_000_001, 4_000_001);
            let (scratch, _) = run.scratch(1, Some(slot_user)).unwrap();
            let meta = std::fs::metadata(scratch.path()).unwrap();
            assert_eq!((meta.uid(), meta.gid()), slot_user);
            let retired = run.retire(scratch);
            let meta = std::fs::metadata(retired.path()).unwrap();
            assert_eq!(meta.uid(), 0, "the harness's again");
            assert_eq!(meta.permissions().mode() & 0o777, 0o700, "closed");
        }
    }

    #[test]
    fn copies_keep_names_and_refuse_odd_files() {
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let (scratch, _) = run.scratch(0, None).unwrap();
        let src = tempfile::tempdir().unwrap();
        let (a, b) = (src.path().join("x/t"), src.path().join("y/t"));
        std::fs::create_dir_all(a.parent().unwrap()).unwrap();
        std::fs::create_dir_all(b.parent().unwrap()).unwrap();
        std::fs::write(&a, "A").unwrap();
        std::fs::write(&b, "B").unwrap();
        let copies = scratch.copy_in(&[a.clone(), b.clone()], None, 10).unwrap();
        assert_eq!(copies[0], scratch.path().join("t"));
        assert_eq!(copies[1], scratch.path().join("1-t"));
        assert_eq!(std::fs::read(&copies[1]).unwrap(), b"B");
        // The bytes the harness loaded win over the file as it is now.
        let loaded = vec![b"a".to_vec(), b"b".to_vec()];
        let copies = scratch.copy_in(&[a, b], Some(&loaded), 10).unwrap();
        assert_eq!(std::fs::read(&copies[0]).unwrap(), b"a");
        let err = scratch
            .copy_in(&[PathBuf::from("/dev/zero")], None, 10)
            .unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let path = scratch.path().to_owned();
        drop(scratch);
        assert!(!path.exists(), "a scratch folder goes with its case");
    }

    /// Folders are made ahead for a slot that has had a case, then taken
    /// without a folder made on the case's path; each is new.
    #[test]
    fn scratch_folders_are_made_ahead_for_a_slots_next_cases() {
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let (first, low) = run.scratch(1, None).unwrap();
        assert!(low, "nothing was made ahead");
        run.make_ahead();
        let ahead = std::fs::read_dir(run.slot_dir(1)).unwrap().count();
        assert_eq!(ahead, 1 + RunDir::AHEAD);
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        for e in std::fs::read_dir(run.slot_dir(1)).unwrap().flatten() {
            let m = e.metadata().unwrap();
            assert_eq!(m.permissions().mode() & 0o777, 0o700, "closed until given");
            if e.path() != first.path() {
                assert_eq!(
                    m.uid(),
                    rustix::process::geteuid().as_raw(),
                    "the harness's"
                );
            }
        }
        let (next, low) = run.scratch(1, None).unwrap();
        assert!(!low);
        assert_ne!(next.path(), first.path());
        assert_eq!(std::fs::read_dir(next.path()).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_dir(run.slot_dir(1)).unwrap().count(),
            1 + RunDir::AHEAD,
            "taken, not made"
        );
        let (other, _) = run.scratch(2, None).unwrap();
        assert!(
            other.path().starts_with(run.slot_dir(2)),
            "another slot's own"
        );
    }
}
