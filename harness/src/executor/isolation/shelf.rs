//! A job slot's shelf: read-only copies of the puzzle files its cases are
//! given, each linked into the scratch folders of the cases that need it.

use std::path::{Path, PathBuf};

/// A job slot's read-only copies of the puzzle files its cases are given:
/// the harness's own files (mode 0444) in a folder of the harness's (0700)
/// beside the slot's, each written once, from the bytes the harness
/// loaded, and linked into every case's scratch folder that needs it. A
/// case running as the slot's user can read its link, remove or rename it
/// in its own folder, and nothing else: not write the file, nor change its
/// mode, so the next case gets the same bytes. (A case running as the
/// harness's own user could, so it gets a copy of its own.)
pub(in crate::executor) struct Shelf {
    dir: PathBuf,
    /// By the puzzle file's path: the bytes shelved and the shelved file.
    copies: std::collections::HashMap<PathBuf, (Vec<u8>, PathBuf)>,
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
            bytes: 0,
            made: 0,
        }
    }

    /// The most bytes a shelf holds: past it, it is emptied and starts again.
    const MAX_BYTES: usize = 64 << 20;
    /// The most files a shelf holds.
    const MAX_FILES: usize = 4096;

    /// The shelved file holding `bytes` for puzzle file `file`, written now
    /// if the shelf has none (or other bytes) for it.
    pub(in crate::executor) fn get(
        &mut self,
        file: &Path,
        bytes: &[u8],
    ) -> std::io::Result<PathBuf> {
        if let Some((held, path)) = self.copies.get(file)
            && held.as_slice() == bytes
        {
            return Ok(path.clone());
        }
        if self.bytes + bytes.len() > Self::MAX_BYTES || self.copies.len() >= Self::MAX_FILES {
            // Links made from the files removed keep them for their cases.
            for (_, (_, path)) in self.copies.drain() {
                let _ = std::fs::remove_file(path);
            }
            self.bytes = 0;
        }
        if self.made == 0 {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(&self.dir)?;
        }
        let path = self.dir.join(self.made.to_string());
        self.made += 1;
        {
            use std::os::unix::fs::OpenOptionsExt;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o444)
                .open(&path)?;
            std::io::Write::write_all(&mut f, bytes)?;
        }
        if let Some((_, old)) = self
            .copies
            .insert(file.to_owned(), (bytes.to_vec(), path.clone()))
        {
            let _ = std::fs::remove_file(old);
        }
        self.bytes += bytes.len();
        Ok(path)
    }
}
