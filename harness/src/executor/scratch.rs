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
    /// Each job slot's emptied scratch folder, for its next case.
    ready: std::sync::Mutex<Vec<(usize, Scratch)>>,
    /// Whether it is on a tmpfs.
    tmpfs: bool,
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
        // TMPFS_MAGIC (linux/magic.h).
        let tmpfs = rustix::fs::statfs(dir.path()).is_ok_and(|s| s.f_type == 0x0102_1994);
        Ok(Self {
            dir,
            slots: Default::default(),
            ready: Default::default(),
            tmpfs,
        })
    }

    /// Takes a finished case's scratch folder out of every candidate's
    /// reach at once, by moving it into the run's own 0700 folder, before
    /// it is removed in the background: the next case on the same job slot
    /// runs as the same user and must not find the last one's files.
    /// Where the move fails, the folder is given to the harness's user.
    pub fn retire(&self, mut scratch: Scratch) -> Scratch {
        let Some(name) = scratch.path.file_name() else {
            return scratch;
        };
        let target = self.dir.path().join(TRASH).join(name);
        if std::fs::rename(&scratch.path, &target).is_ok() {
            scratch.path = target;
        } else {
            let me = (rustix::process::geteuid(), rustix::process::getegid());
            let _ =
                std::os::unix::fs::chown(&scratch.path, Some(me.0.as_raw()), Some(me.1.as_raw()));
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

    /// A new, empty scratch folder for case `id` in job slot `slot`'s
    /// folder, owned by `owner` (uid, gid) when given, mode 0700.
    pub fn scratch(
        &self,
        slot: usize,
        id: usize,
        owner: Option<(u32, u32)>,
    ) -> std::io::Result<Scratch> {
        {
            let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(at) = ready.iter().position(|(s, _)| *s == slot) {
                return Ok(ready.swap_remove(at).1);
            }
        }
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
        let path = dir.join(format!("case-{id}"));
        // (The umask takes bits away, never adds them.)
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(gid))?;
        }
        let xattrs = rustix::fs::listxattr_query(&path).unwrap_or(0);
        Ok(Scratch {
            path,
            owner,
            xattrs,
        })
    }

    /// Keeps a finished case's scratch folder for job slot `slot`'s next
    /// case, emptied: only where, once its `copies` are removed, nothing is
    /// left in it and it is as it was made (its mode, owner and extended
    /// attributes; a case can change them, and the next case is another
    /// student's, as the same user). Only once nothing of the case is left
    /// running. `Err` gives it back, to be retired.
    pub fn reuse(&self, slot: usize, scratch: Scratch, copies: &[PathBuf]) -> Result<(), Scratch> {
        use std::os::unix::fs::MetadataExt;
        for copy in copies {
            if std::fs::remove_file(copy).is_err() {
                return Err(scratch);
            }
        }
        let meta = std::fs::symlink_metadata(&scratch.path);
        // A tmpfs folder's size is 40 bytes, and 20 more an entry: empty
        // without a listing. Elsewhere, listed.
        let empty = match (&meta, self.tmpfs) {
            (Ok(m), true) => m.size() == 40,
            _ => std::fs::read_dir(&scratch.path).is_ok_and(|mut d| d.next().is_none()),
        };
        let as_made = meta.is_ok_and(|m| {
            m.is_dir()
                && m.mode() & 0o7777 == 0o700
                && scratch
                    .owner
                    .is_none_or(|(uid, gid)| m.uid() == uid && m.gid() == gid)
        });
        let xattrs = rustix::fs::listxattr_query(&scratch.path).unwrap_or(usize::MAX);
        if !(empty && as_made && xattrs == scratch.xattrs) {
            return Err(scratch);
        }
        self.ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((slot, scratch));
        Ok(())
    }
}

/// One case's scratch folder; removed when dropped.
pub struct Scratch {
    path: PathBuf,
    owner: Option<(u32, u32)>,
    /// The length of its list of extended attributes when made.
    xattrs: usize,
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
        let scratch = run.scratch(0, 7, Some((me, me))).unwrap();
        std::fs::write(scratch.path().join("answer"), "secret").unwrap();
        let old = scratch.path().to_owned();
        let retired = run.retire(scratch);
        assert!(!old.exists(), "the case's path is gone at once");
        assert_eq!(retired.path(), run.path().join(TRASH).join("case-7"));
        let trash = std::fs::metadata(run.path().join(TRASH)).unwrap();
        assert_eq!(trash.permissions().mode() & 0o777, 0o700);
        assert_eq!(trash.uid(), me, "the harness's own folder");
        assert!(retired.path().join("answer").exists());
        let path = retired.path().to_owned();
        drop(retired);
        assert!(!path.exists(), "and removed when dropped");
    }

    #[test]
    fn copies_keep_names_and_refuse_odd_files() {
        let run = RunDir::new(&std::env::temp_dir()).unwrap();
        let scratch = run.scratch(0, 0, None).unwrap();
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
}
