//! Where a store may be: a folder of the harness's user's own that holds
//! nothing but a store, reached through folders nobody else can change.
//! Anything else is refused before a byte is written or removed (the
//! checks OpenSSH's `StrictModes` and git's `safe.directory` make).

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use super::StoreError;

/// The database, and the files SQLite keeps beside it.
pub(super) const DB: &str = "results.sqlite";
const DB_FILES: [&str; 4] = [
    DB,
    "results.sqlite-wal",
    "results.sqlite-shm",
    "results.sqlite-journal",
];
/// The key its entries are authenticated under (32 bytes, 0600).
pub(super) const SECRET: &str = "secret";
/// A key being written (renamed into place, never over one).
pub(super) const SECRET_TEMP: &str = ".secret-";

/// The folder `dir`, checked (and made, 0700, with any folders missing on
/// its way, where it is not there): its canonical path. Refused: a link;
/// not a folder; a folder, or one on its way, of another user (root's
/// are fine) or that group or others may write (a sticky one such as
/// `/tmp` is fine on the way); a folder that holds anything but a store.
pub(super) fn settle(dir: &Path) -> Result<PathBuf, StoreError> {
    let refused = |why: String| StoreError::Refused {
        path: dir.to_owned(),
        why,
    };
    let io = |source| StoreError::Io {
        path: dir.to_owned(),
        source,
    };
    let me = rustix::process::geteuid().as_raw();
    links_on_the_way(dir, me).map_err(refused)?;
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refused(
                "it is a symbolic link (name the folder itself)".into(),
            ));
        }
        Ok(m) if !m.is_dir() => return Err(refused("it is not a folder".into())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut there = dir;
            while !there.exists() {
                there = there.parent().unwrap_or(Path::new("/"));
            }
            let real = there.canonicalize().map_err(io)?;
            on_the_way(&real, me, false).map_err(refused)?;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(io)?;
        }
        Err(e) => return Err(io(e)),
    }
    let real = dir.canonicalize().map_err(io)?;
    on_the_way(&real, me, true).map_err(refused)?;
    holds_a_store(&real, me).map_err(refused)?;
    // Ours, and a store: closed to everyone else (an earlier 0755, say).
    let mode = std::fs::metadata(&real).map_err(io)?.mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    Ok(real)
}

/// A link on `dir`'s way (as written) that belongs to another user.
fn links_on_the_way(dir: &Path, me: u32) -> Result<(), String> {
    let mut at = PathBuf::new();
    for part in dir.components() {
        at.push(part);
        if !matches!(part, Component::Normal(_)) {
            continue;
        }
        if let Ok(m) = std::fs::symlink_metadata(&at)
            && m.file_type().is_symlink()
            && m.uid() != me
            && m.uid() != 0
        {
            return Err(format!(
                "its way goes through the link {}, which belongs to uid {}",
                at.display(),
                m.uid()
            ));
        }
    }
    Ok(())
}

/// Every folder from `/` down to `real` (canonical): root's or ours, and
/// written by nobody else (sticky ones on the way excepted); `real`
/// itself (`whole`: it is the store's folder) ours.
fn on_the_way(real: &Path, me: u32, whole: bool) -> Result<(), String> {
    for folder in real.ancestors() {
        let m = std::fs::symlink_metadata(folder)
            .map_err(|e| format!("cannot look at {}: {e}", folder.display()))?;
        let itself = whole && folder == real;
        let owner_ok = m.uid() == me || (m.uid() == 0 && !itself);
        if !owner_ok {
            return Err(format!(
                "{} belongs to uid {}, not to this user (uid {me})",
                folder.display(),
                m.uid()
            ));
        }
        let sticky = m.mode() & 0o1000 != 0;
        if m.mode() & 0o022 != 0 && (itself || !sticky) {
            return Err(format!(
                "{} can be written by {} (mode {:o}): make it 0700, or name another folder",
                folder.display(),
                if m.mode() & 0o002 != 0 {
                    "every user"
                } else {
                    "its group"
                },
                m.mode() & 0o7777
            ));
        }
    }
    Ok(())
}

/// `dir` holds a store's files only (or nothing), each a file of ours
/// that nobody else may read.
fn holds_a_store(dir: &Path, me: u32) -> Result<(), String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list it: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !DB_FILES.contains(&n.as_str()) && *n != SECRET)
        .filter(|n| !n.starts_with(SECRET_TEMP))
        .collect();
    let old = |n: &&String| n.len() == 2 && n.bytes().all(|b| b.is_ascii_hexdigit());
    if !foreign.is_empty() && foreign.iter().all(old) {
        return Err(format!(
            "it holds a result store of the older form (a file per row, puzzlegrade-store 2), \
             which this harness does not read: remove it (rm -r {}) for a new one, or name another folder",
            shell_words::quote(&dir.to_string_lossy())
        ));
    }
    if let Some(first) = foreign.first() {
        return Err(format!(
            "it is not a result store: it holds {first}{} (a store's folder holds only what the \
             harness wrote there; name a new or empty folder)",
            match foreign.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        ));
    }
    let has = |n: &str| names.iter().any(|x| x == n);
    if has(DB) && !has(SECRET) {
        return Err(format!(
            "its key ({SECRET}) is missing, so its rows cannot be trusted: remove the folder for a new store"
        ));
    }
    for name in DB_FILES.iter().chain([&SECRET]).filter(|n| has(n)) {
        let path = dir.join(name);
        let m = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            // A journal another run's transaction just ended (listed, then
            // gone): nothing to look at.
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && *name != DB && *name != SECRET =>
            {
                continue;
            }
            Err(e) => return Err(format!("cannot look at {name}: {e}")),
        };
        if !m.is_file() || m.uid() != me || m.mode() & 0o077 != 0 {
            return Err(format!(
                "{name} is not a file of this user's that only it may read (uid {}, mode {:o})",
                m.uid(),
                m.mode() & 0o7777
            ));
        }
    }
    Ok(())
}
