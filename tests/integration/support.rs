//! Shared helpers: binaries, temporary board files, the optional corpus.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A command for one of this package's binaries.
pub fn bin(name: &str) -> Command {
    Command::cargo_bin(name).unwrap_or_else(|e| panic!("binary {name}: {e}"))
}

/// `../shared/corpus/<sub>` when present; otherwise prints a note and
/// returns `None` so the caller can skip (a fresh clone has no `../shared`).
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        // CI sets this: there, a missing corpus must fail, not skip.
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_CORPUS").is_none(),
            "{} is absent and PUZZLEGRADE_REQUIRE_CORPUS is set",
            dir.display()
        );
        eprintln!(
            "note: {} is absent; skipping the corpus test",
            dir.display()
        );
        None
    }
}

/// A file in a fresh temporary folder holding `contents`.
pub struct TempFile {
    _dir: tempfile::TempDir,
    /// The file's path.
    pub path: PathBuf,
}

/// Writes `contents` to a temporary file named `name`.
pub fn temp_file(name: &str, contents: impl AsRef<[u8]>) -> TempFile {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write temporary file");
    TempFile { _dir: dir, path }
}
