//! A build's copy kept whole: its folders, files (their bytes once in the
//! store, whatever builds hold them) and links, under the build's key; and
//! made again in a new folder, so that a submission whose rows must run
//! again needs no build.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

/// A copy larger than this is kept by its digest only (it builds again).
pub(super) const MAX_TREE: u64 = 256 << 20;

/// What an entry of a kept copy is.
const FOLDER: i64 = 0o040_755;
const FILE: i64 = 0o100_644;
const PROGRAM: i64 = 0o100_755;
const LINK: i64 = 0o120_777;

/// Keeps the copy in `dir` under `build` (replacing what was kept there),
/// in one transaction; `false` (nothing kept) where it cannot be read or
/// is larger than [`MAX_TREE`].
pub(super) fn save(conn: &mut Connection, build: &[u8], dir: &Path) -> rusqlite::Result<bool> {
    let mut total = 0u64;
    let mut entries = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1).sort_by_file_name() {
        let Ok(entry) = entry else { return Ok(false) };
        let Ok(meta) = entry.metadata() else {
            return Ok(false);
        };
        total += meta.len();
        if total > MAX_TREE {
            return Ok(false);
        }
        let Ok(rest) = entry.path().strip_prefix(dir) else {
            return Ok(false);
        };
        entries.push((rest.as_os_str().as_bytes().to_vec(), entry));
    }
    let tx = conn.transaction()?;
    tx.execute("DELETE FROM files WHERE build = ?1", [build])?;
    for (name, entry) in entries {
        let kind = entry.file_type();
        let (mode, blob, link): (i64, Option<Vec<u8>>, Option<Vec<u8>>) = if kind.is_symlink() {
            let Ok(to) = std::fs::read_link(entry.path()) else {
                return Ok(false);
            };
            (LINK, None, Some(to.as_os_str().as_bytes().to_vec()))
        } else if kind.is_file() {
            let Ok(bytes) = std::fs::read(entry.path()) else {
                return Ok(false);
            };
            let program = entry
                .metadata()
                .is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
            let digest = Sha256::digest(&bytes).to_vec();
            tx.execute(
                "INSERT OR IGNORE INTO blobs (digest, bytes) VALUES (?1, ?2)",
                params![&digest, &bytes],
            )?;
            (if program { PROGRAM } else { FILE }, Some(digest), None)
        } else if kind.is_dir() {
            (FOLDER, None, None)
        } else {
            // (A fifo or socket a build left: not a copy we can make.)
            return Ok(false);
        };
        tx.execute(
            "INSERT INTO files (build, path, mode, blob, link) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![build, name, mode, blob, link],
        )?;
    }
    tx.commit()?;
    Ok(true)
}

/// Makes the copy kept under `build` in `dir` (which must not exist), as
/// one read: `false` where nothing is kept or a file's bytes are not what
/// its digest says (the caller builds instead).
pub(super) fn restore(conn: &mut Connection, build: &[u8], dir: &Path) -> bool {
    let made = (|| -> Result<bool, Box<dyn std::error::Error>> {
        let tx = conn.transaction()?;
        let mut files = tx.prepare("SELECT path, mode, blob, link FROM files WHERE build = ?1")?;
        let mut bytes = tx.prepare("SELECT bytes FROM blobs WHERE digest = ?1")?;
        let rows = files.query_map([build], |r| {
            Ok((
                r.get::<_, Vec<u8>>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Option<Vec<u8>>>(2)?,
                r.get::<_, Option<Vec<u8>>>(3)?,
            ))
        })?;
        let mut any = false;
        std::fs::create_dir(dir)?;
        for row in rows {
            let (name, mode, blob, link) = row?;
            any = true;
            let path = dir.join(std::ffi::OsStr::from_bytes(&name));
            if !path.starts_with(dir) || name.split(|b| *b == b'/').any(|p| p == b"..") {
                return Ok(false);
            }
            match (mode, blob, link) {
                (FOLDER, None, None) => std::fs::create_dir(&path)?,
                (LINK, None, Some(to)) => {
                    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(&to), &path)?
                }
                (FILE | PROGRAM, Some(digest), None) => {
                    let content: Vec<u8> = bytes.query_row([&digest], |r| r.get(0))?;
                    if Sha256::digest(&content)[..] != digest[..] {
                        return Ok(false);
                    }
                    std::fs::write(&path, &content)?;
                    let bits = if mode == PROGRAM { 0o755 } else { 0o644 };
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(bits))?;
                }
                _ => return Ok(false),
            }
        }
        Ok(any)
    })();
    made.unwrap_or(false)
}
