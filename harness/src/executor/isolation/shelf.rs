//! A job slot's shelf: read-only copies of the puzzle files its cases are
//! given, each linked into the scratch folders of the cases that need it.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// A job slot's read-only copies of the puzzle files its cases are given:
/// the harness's own files (mode 0444) in a folder of the harness's (0700)
/// beside the slot's, each written from the bytes the harness loaded, and
/// linked into every case's scratch folder that needs it. A case running
/// as the slot's user can read its link, remove or rename it in its own
/// folder, and nothing else: not write the file, nor change its mode (nor
/// link it elsewhere, where `fs.protected_hardlinks` is on, as
/// distributions set it; a file linked anywhere but the shelf is never
/// written over either way), so the next case gets the same bytes. (A
/// case running as the harness's own user could, so it gets a copy of
/// its own.)
///
/// A full shelf writes a new puzzle over its oldest file that no scratch
/// folder links any more (one link: the shelf's), not into a new file: a
/// disk file system allocates and frees an inode for each new file, and
/// after many recent removals ext4 searches past each freed one (most of a
/// case's cost in a container, where the scratch folders are on disk).
/// A puzzle file is the harness's input, the same for every candidate: a
/// file handle kept past its case (by a process of another slot's) reads
/// a later puzzle, never anything a case wrote.
pub(in crate::executor) struct Shelf {
    dir: PathBuf,
    /// By the puzzle file's path: the bytes shelved and the shelved file.
    copies: HashMap<PathBuf, (Vec<u8>, PathBuf)>,
    /// The puzzle files shelved, oldest first.
    order: VecDeque<PathBuf>,
    /// The bytes shelved, and files written (their names).
    bytes: usize,
    made: usize,
}

impl Shelf {
    /// An empty shelf in folder `dir` (made with its first file).
    pub(in crate::executor) fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            copies: Default::default(),
            order: Default::default(),
            bytes: 0,
            made: 0,
        }
    }

    /// The most bytes a shelf holds.
    const MAX_BYTES: usize = 64 << 20;
    /// The most files a shelf holds (a class's suites, most often, whole).
    pub(in crate::executor) const MAX_FILES: usize = 256;
    /// The oldest files looked at for one no case links.
    const LOOK: usize = 16;

    /// The shelved file holding `bytes` for puzzle file `file`, written now
    /// if the shelf has none (or other bytes) for it: over a free file
    /// where the shelf is full, else into a new one.
    pub(in crate::executor) fn get(
        &mut self,
        file: &Path,
        bytes: &[u8],
    ) -> std::io::Result<PathBuf> {
        if let Some((held, path)) = self.copies.get(file) {
            if held.as_slice() == bytes {
                return Ok(path.clone());
            }
            // Other bytes under its name: the old copy off the shelf (its
            // links keep it for their cases).
            self.remove_copy(file);
        }
        // Past the byte bound: the oldest copies off the shelf until the
        // new one fits (their links keep them for their cases).
        while self.bytes + bytes.len() > Self::MAX_BYTES && !self.order.is_empty() {
            let oldest = self.order[0].clone();
            self.remove_copy(&oldest);
        }
        let reused = if self.copies.len() >= Self::MAX_FILES {
            self.free_file()
        } else {
            None
        };
        let path = match reused {
            Some(path) if rewrite(&path, bytes).is_ok() => path,
            other => {
                if let Some(path) = other {
                    let _ = std::fs::remove_file(path);
                }
                self.new_file(bytes)?
            }
        };
        self.copies
            .insert(file.to_owned(), (bytes.to_vec(), path.clone()));
        self.order.push_back(file.to_owned());
        self.bytes += bytes.len();
        Ok(path)
    }

    /// The oldest shelved file no scratch folder links (its only link the
    /// shelf's), taken off the shelf to be written over; `None` when the
    /// oldest looked at are all linked (the oldest then taken off, its
    /// file removed).
    fn free_file(&mut self) -> Option<PathBuf> {
        use std::os::unix::fs::MetadataExt;
        for _ in 0..Self::LOOK.min(self.order.len()) {
            let file = self.order.pop_front()?;
            let Some((_, path)) = self.copies.get(&file) else {
                continue;
            };
            let free = std::fs::symlink_metadata(path).is_ok_and(|m| m.nlink() == 1);
            if free {
                let path = path.clone();
                self.drop_copy(&file);
                return Some(path);
            }
            self.order.push_back(file);
        }
        // Every file looked at is linked: the oldest off the shelf, a new
        // file made.
        if let Some(oldest) = self.order.front().cloned() {
            self.remove_copy(&oldest);
        }
        None
    }

    /// Takes puzzle file `file`'s copy off the shelf (its file stays).
    fn drop_copy(&mut self, file: &Path) -> Option<(Vec<u8>, PathBuf)> {
        let gone = self.copies.remove(file)?;
        self.bytes -= gone.0.len();
        self.order.retain(|f| f != file);
        Some(gone)
    }

    /// Takes puzzle file `file`'s copy off the shelf and removes its file
    /// (links to it keep it for their cases).
    fn remove_copy(&mut self, file: &Path) {
        if let Some((_, path)) = self.drop_copy(file) {
            let _ = std::fs::remove_file(path);
        }
    }

    /// A new shelved file holding `bytes`.
    fn new_file(&mut self, bytes: &[u8]) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::OpenOptionsExt;
        if self.made == 0 {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(&self.dir)?;
        }
        let path = self.dir.join(self.made.to_string());
        self.made += 1;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o444)
            .open(&path)?;
        std::io::Write::write_all(&mut f, bytes)?;
        Ok(path)
    }
}

/// Writes `bytes` over the shelved file at `path` (the harness's, in its
/// own closed folder; never through a link).
/// (Opened to its owner for the write, read-only again after: no one
/// else reaches it meanwhile, as no folder but the shelf links it. Cut to
/// its new length after the write, never emptied first: ext4 writes a
/// file emptied and written again out to disk when it is closed.)
fn rewrite(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    std::io::Write::write_all(&mut f, bytes)?;
    f.set_len(bytes.len() as u64)?;
    f.set_permissions(std::fs::Permissions::from_mode(0o444))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full shelf writes over a file no case links, never over one a
    /// case's folder links (that case keeps its bytes).
    #[test]
    fn a_full_shelf_writes_over_a_free_file_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut shelf = Shelf::new(dir.path().join("shelf"));
        let case = dir.path().join("case");
        std::fs::create_dir(&case).unwrap();
        let name = |i: usize| PathBuf::from(format!("/suite/{i}.txt"));
        let first = shelf.get(&name(0), b"zero").unwrap();
        std::fs::hard_link(&first, case.join("0.txt")).unwrap();
        for i in 1..Shelf::MAX_FILES {
            shelf.get(&name(i), i.to_string().as_bytes()).unwrap();
        }
        assert_eq!(shelf.made, Shelf::MAX_FILES);
        // Full: the oldest (linked) is passed over; the next is written over.
        let next = shelf.get(&name(9999), b"new").unwrap();
        assert_eq!(shelf.made, Shelf::MAX_FILES, "no new file");
        assert_ne!(next, first);
        assert_eq!(std::fs::read(&next).unwrap(), b"new");
        assert_eq!(std::fs::read(case.join("0.txt")).unwrap(), b"zero");
        assert_eq!(
            shelf.get(&name(0), b"zero").unwrap(),
            first,
            "still shelved"
        );
        // The one written over is off the shelf: asked again, written again.
        let again = shelf.get(&name(1), b"1").unwrap();
        assert_eq!(std::fs::read(&again).unwrap(), b"1");
        assert_eq!(shelf.copies.len(), Shelf::MAX_FILES);
    }
}
