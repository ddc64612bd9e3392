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

/// Reads a whole file; a folder is [`FileError::Unreadable`] with "is a
/// directory".
pub fn read_file<E>(path: &Path) -> Result<Vec<u8>, FileError<E>> {
    let unreadable = |source| FileError::Unreadable {
        path: path.to_owned(),
        source,
    };
    if path.is_dir() {
        return Err(unreadable(std::io::Error::other("is a directory")));
    }
    std::fs::read(path).map_err(unreadable)
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

    #[test]
    fn listing_files_sit_in_a_like_named_folder_or_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let listing = dir.path().join("easy.csv");
        assert_eq!(listing_dir(&listing), dir.path());
        std::fs::create_dir(dir.path().join("easy")).unwrap();
        assert_eq!(listing_dir(&listing), dir.path().join("easy"));
    }
}
