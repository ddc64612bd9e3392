//! What every family shares about puzzle files: reading one (a folder is an
//! error of its own, not an odd read), the two ways a file fails, each
//! naming the file, and a problem located on a line.

use std::path::{Path, PathBuf};

/// A puzzle file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError<E> {
    /// Not a readable file (missing, a folder, no permission).
    #[error("{}: cannot read: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Readable, but malformed or invalid.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        source: E,
    },
}

impl<E> FileError<E> {
    /// The file at fault.
    pub fn path(&self) -> &Path {
        match self {
            Self::Unreadable { path, .. } | Self::Invalid { path, .. } => path,
        }
    }

    /// A `map_err` adapter: a parse error of `path` becomes [`Self::Invalid`].
    pub fn invalid(path: &Path) -> impl FnOnce(E) -> Self + use<E> {
        let path = path.to_owned();
        move |source| Self::Invalid { path, source }
    }
}

/// Reads a whole puzzle file, of any size (a 10000 x 10000 Lights Out
/// board is 100 MB), but only a regular file. See [`read_file_bounded`].
pub fn read_file<E>(path: &Path) -> Result<Vec<u8>, FileError<E>> {
    read_file_bounded(path, u64::MAX)
}

/// Reads a whole file of at most `cap` bytes. Only a regular file is read:
/// a folder, a FIFO, a device or a socket is [`FileError::Unreadable`] at
/// once (the file is opened non-blocking, so a FIFO with no writer cannot
/// hang the reader), and so is a file over `cap` bytes (read with a bound,
/// so a file that grows meanwhile cannot fill memory).
pub fn read_file_bounded<E>(path: &Path, cap: u64) -> Result<Vec<u8>, FileError<E>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let unreadable = |source| FileError::Unreadable {
        path: path.to_owned(),
        source,
    };
    let other = |what: String| unreadable(std::io::Error::other(what));
    let nonblocking = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblocking)
        .open(path)
        .map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if meta.is_dir() {
        return Err(other("is a directory".into()));
    }
    if !meta.is_file() {
        return Err(other(
            "not a regular file (a FIFO, a device or a socket)".into(),
        ));
    }
    if meta.len() > cap {
        return Err(other(format!("larger than {cap} bytes")));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > cap {
        return Err(other(format!("larger than {cap} bytes")));
    }
    Ok(bytes)
}

/// Reads a file and parses its bytes.
pub fn parse_file<T, E>(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> Result<T, E>,
) -> Result<T, FileError<E>> {
    parse(&read_file(path)?).map_err(FileError::invalid(path))
}

/// The folder a listing's files are named relative to: the folder named
/// like the listing when there is one (`easy.csv` beside `easy/`, as in the
/// CS61BL and 15-122 sets), else the listing's own folder.
pub fn listing_dir(listing: &Path) -> PathBuf {
    let sibling = listing.with_extension("");
    if sibling.is_dir() {
        sibling
    } else {
        listing.parent().unwrap_or(Path::new(".")).to_owned()
    }
}

/// A problem `kind` found on a line (1-based) of a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct Located<K> {
    /// The line.
    pub line: usize,
    /// The problem.
    pub kind: K,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_file::<String>(dir.path()).unwrap_err();
        assert_eq!(e.path(), dir.path());
        assert_eq!(
            e.to_string(),
            format!("{}: cannot read: is a directory", dir.path().display())
        );
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let bad = parse_file(&file, |_| {
            Err::<(), _>(Located {
                line: 3,
                kind: "no good",
            })
        })
        .unwrap_err();
        assert_eq!(
            bad.to_string(),
            format!("{}: line 3: no good", file.display())
        );
        assert!(matches!(bad, FileError::Invalid { .. }));
    }

    /// A FIFO (which would block a plain read forever), a device (which
    /// would never end) and an oversized file are refused at once.
    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = read_file::<String>(&fifo).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: cannot read: not a regular file (a FIFO, a device or a socket)",
                fifo.display()
            )
        );
        assert!(read_file::<String>(Path::new("/dev/zero")).is_err());
        let big = dir.path().join("big");
        std::fs::write(&big, "0123456789").unwrap();
        let e = read_file_bounded::<String>(&big, 9).unwrap_err();
        assert!(
            e.to_string().ends_with("cannot read: larger than 9 bytes"),
            "{e}"
        );
        assert_eq!(read_file_bounded::<String>(&big, 10).unwrap().len(), 10);
    }

    #[test]
    fn listing_files_sit_in_a_like_named_folder_or_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let listing = dir.path().join("easy.csv");
        assert_eq!(listing_dir(&listing), dir.path());
        std::fs::create_dir(dir.path().join("easy")).unwrap();
        assert_eq!(listing_dir(&listing), dir.path().join("easy"));
    }
}
