//! The store's database: one SQLite file (see docs/benchmarks.md for why
//! SQLite) with a format marker, entries authenticated under the store's
//! own key, and the files of kept builds by content.
//!
//! - `entries (key, body, mac, used)`: a row's or a build's JSON under the
//!   digest of what it depends on, its HMAC-SHA-256 under the key in
//!   `secret` (an entry the harness did not write is never served, and is
//!   removed when read), and the day it was last read (eviction's order);
//! - `files (build, path, mode, blob, link)`: a kept build's copy, a row
//!   an entry (path as bytes; a folder, a file by its content's digest, or
//!   a link);
//! - `blobs (digest, bytes)`: each file's bytes once, whatever builds hold
//!   them (checked against the digest when restored).
//!
//! The format is SQLite's own marker pair: `application_id` says "a
//! puzzlegrade store", `user_version` its version. Concurrent runs share
//! it through SQLite's locks (WAL on a local disk; a rollback journal on a
//! network file system, where WAL cannot work), waiting up to a minute.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use hmac::{KeyInit, Mac};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use sha2::Sha256;

use super::StoreError;
use super::place::{DB, SECRET, SECRET_TEMP};

/// "PGST": what `application_id` says in every store.
const APPLICATION_ID: i32 = 0x5047_5354;
/// This harness's store format (`user_version`): 3, the first in a
/// database (2 was a file per row).
pub(super) const VERSION: i32 = 3;

type Hmac = hmac::Hmac<Sha256>;

/// An open store database.
pub(super) struct Db {
    conn: Mutex<Connection>,
    secret: [u8; 32],
}

impl Db {
    /// The store in `dir` (checked by `place::settle`), made where it is
    /// new: its key first, then its database.
    pub(super) fn open(dir: &Path) -> Result<Self, StoreError> {
        let refused = |why: String| StoreError::Refused {
            path: dir.to_owned(),
            why,
        };
        let failed = |source: rusqlite::Error| StoreError::Db {
            path: dir.to_owned(),
            source,
        };
        let secret = secret(dir)?;
        // Made here, 0600 and not through a link: SQLite's journal files
        // take its mode.
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(dir.join(DB));
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(dir.join(DB), flags).map_err(failed)?;
        conn.busy_timeout(std::time::Duration::from_secs(60))
            .map_err(failed)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(failed)?;
        // (Two runs making one store at once: the second waits its turn,
        // as a journal mode is set without SQLite's busy handler.)
        let mut tries = 0;
        loop {
            match format(&conn, dir) {
                Ok(()) => break,
                Err(Formed::Failed(e)) if busy(&e) && tries < 600 => {
                    let _ = conn.execute_batch("ROLLBACK");
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(Formed::Refused(why)) => return Err(refused(why)),
                Err(Formed::Failed(e)) => return Err(failed(e)),
            }
        }
        Ok(Self {
            conn: Mutex::new(conn),
            secret,
        })
    }

    pub(super) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn mac(&self, key: &[u8], body: &[u8]) -> Hmac {
        let mut mac = Hmac::new_from_slice(&self.secret).expect("any key length");
        mac.update(&(key.len() as u64).to_le_bytes());
        mac.update(key);
        mac.update(body);
        mac
    }

    /// Keeps `body` under `key`, authenticated.
    pub(super) fn put(&self, key: &[u8], body: &[u8]) -> rusqlite::Result<()> {
        let mac = self.mac(key, body).finalize().into_bytes();
        self.conn().execute(
            "INSERT OR REPLACE INTO entries (key, body, mac, used) VALUES (?1, ?2, ?3, ?4)",
            params![key, body, &mac[..], today()],
        )?;
        Ok(())
    }

    /// The body kept under `key`, where its MAC holds (an entry whose MAC
    /// does not is removed); marked read today.
    pub(super) fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        let conn = self.conn();
        let found: Option<(Vec<u8>, Vec<u8>, i64)> = conn
            .prepare_cached("SELECT body, mac, used FROM entries WHERE key = ?1")
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .ok()
            .flatten();
        let (body, mac, used) = found?;
        if self.mac(key, &body).verify_slice(&mac).is_err() {
            let _ = conn.execute("DELETE FROM entries WHERE key = ?1", [key]);
            return None;
        }
        let day = today();
        if used < day {
            let _ = conn.execute(
                "UPDATE entries SET used = ?2 WHERE key = ?1",
                params![key, day],
            );
        }
        Some(body)
    }

    /// The bytes the database holds in use (its pages less free ones).
    #[cfg(test)]
    pub(super) fn size(conn: &Connection) -> rusqlite::Result<u64> {
        let get = |p: &str| conn.pragma_query_value(None, p, |r| r.get::<_, i64>(0));
        let used = get("page_count")? - get("freelist_count")?;
        Ok((used.max(0) as u64) * get("page_size")? as u64)
    }

    /// Over `limit` bytes, removes the entries read longest ago (and the
    /// files and bytes of builds no entry holds any more) until what is
    /// left holds nine tenths of it, then gives the space back. Only its
    /// own entries: the folder holds nothing else. (The file's size says
    /// when; what its rows hold says how many go: rows leave room inside
    /// pages, not whole pages.)
    pub(super) fn evict(&self, limit: u64) -> rusqlite::Result<()> {
        let conn = self.conn();
        let file = |c: &Connection| -> rusqlite::Result<u64> {
            let get = |p: &str| c.pragma_query_value(None, p, |r| r.get::<_, i64>(0));
            Ok(get("page_count")?.max(0) as u64 * get("page_size")? as u64)
        };
        if file(&conn)? <= limit {
            return Ok(());
        }
        let goal = limit / 10 * 9;
        for _ in 0..8 {
            let held: i64 = conn.query_row(
                "SELECT (SELECT coalesce(sum(length(key) + length(body) + length(mac) + 8), 0) \
                 FROM entries) + (SELECT coalesce(sum(length(bytes) + 32), 0) FROM blobs)",
                [],
                |r| r.get(0),
            )?;
            let Some(excess) = (held.max(0) as u64).checked_sub(goal).filter(|e| *e > 0) else {
                break;
            };
            let mut oldest = conn.prepare(
                "SELECT key, length(key) + length(body) + length(mac) + 8 FROM entries ORDER BY used",
            )?;
            let mut rows = oldest.query([])?;
            let (mut freed, mut keys) = (0u64, Vec::new());
            while freed < excess
                && let Some(row) = rows.next()?
            {
                keys.push(row.get::<_, Vec<u8>>(0)?);
                freed += row.get::<_, i64>(1)?.max(0) as u64;
            }
            drop(rows);
            drop(oldest);
            if keys.is_empty() {
                break;
            }
            let tx = rusqlite::Transaction::new_unchecked(
                &conn,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            for key in &keys {
                tx.execute("DELETE FROM entries WHERE key = ?1", [key])?;
            }
            sweep(&tx)?;
            tx.commit()?;
        }
        conn.execute_batch("PRAGMA incremental_vacuum;")?;
        if file(&conn)? > limit {
            conn.execute_batch("VACUUM")?;
        }
        Ok(())
    }

    /// Every entry, its build files and its bytes gone, and a new key:
    /// nothing kept before is served (a run whose candidates could reach
    /// the store has ended).
    pub(super) fn renew(dir: &Path) -> Result<(), StoreError> {
        let io = |source| StoreError::Io {
            path: dir.to_owned(),
            source,
        };
        std::fs::remove_file(dir.join(SECRET)).map_err(io)?;
        let db = Self::open(dir)?;
        let conn = db.conn();
        conn.execute_batch(
            "BEGIN IMMEDIATE; DELETE FROM entries; DELETE FROM files; DELETE FROM blobs; COMMIT;",
        )
        .map_err(|source| StoreError::Db {
            path: dir.to_owned(),
            source,
        })
    }
}

/// Whether SQLite said another connection holds the lock it needs.
fn busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
}

/// Removes the files of builds no entry holds, then bytes no file holds.
pub(super) fn sweep(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "DELETE FROM files WHERE build NOT IN (SELECT key FROM entries); \
         DELETE FROM blobs WHERE digest NOT IN (SELECT blob FROM files WHERE blob IS NOT NULL);",
    )
}

/// Days since the epoch (an entry's last read, to the day: a read writes
/// at most once a day).
fn today() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |d| (d.as_secs() / 86_400) as i64)
}

/// Why a database is not a store of this format.
enum Formed {
    Refused(String),
    Failed(rusqlite::Error),
}

impl From<rusqlite::Error> for Formed {
    fn from(e: rusqlite::Error) -> Self {
        Self::Failed(e)
    }
}

/// Checks the format marker, or makes the tables and sets it in a new
/// (empty) database.
fn format(conn: &Connection, dir: &Path) -> Result<(), Formed> {
    let marker = |c: &Connection| -> rusqlite::Result<(i32, i32)> {
        Ok((
            c.pragma_query_value(None, "application_id", |r| r.get(0))?,
            c.pragma_query_value(None, "user_version", |r| r.get(0))?,
        ))
    };
    if marker(conn)? == (0, 0) {
        // (A no-op where tables are there: a database of another program's
        // is refused below, unchanged.)
        let tables = |c: &Connection| -> rusqlite::Result<i64> {
            c.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        };
        if tables(conn)? == 0 {
            conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
            let journal = if network_fs(dir) { "DELETE" } else { "WAL" };
            conn.pragma_update(None, "journal_mode", journal)?;
        }
        conn.execute_batch("BEGIN IMMEDIATE")?;
        // (Looked at again under the write lock: another run may have made
        // it meanwhile.)
        if marker(conn)? == (0, 0) && tables(conn)? != 0 {
            conn.execute_batch("ROLLBACK")?;
            return Err(Formed::Refused(format!(
                "its {DB} is not a puzzlegrade result store"
            )));
        }
        if marker(conn)? == (0, 0) {
            conn.execute_batch(&format!(
                "CREATE TABLE entries (key BLOB PRIMARY KEY, body BLOB NOT NULL, \
                     mac BLOB NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID;
                 CREATE TABLE files (build BLOB NOT NULL, path BLOB NOT NULL, \
                     mode INTEGER NOT NULL, blob BLOB, link BLOB, \
                     PRIMARY KEY (build, path)) WITHOUT ROWID;
                 CREATE INDEX files_by_blob ON files (blob);
                 CREATE TABLE blobs (digest BLOB PRIMARY KEY, bytes BLOB NOT NULL);
                 PRAGMA application_id = {APPLICATION_ID};
                 PRAGMA user_version = {VERSION};"
            ))?;
        }
        conn.execute_batch("COMMIT")?;
    }
    match marker(conn)? {
        (APPLICATION_ID, VERSION) => Ok(()),
        (APPLICATION_ID, v) if v > VERSION => Err(Formed::Refused(format!(
            "it was written by a newer puzzlegrade (store format {v}; this harness reads {VERSION}): \
             use that harness, or name another folder"
        ))),
        (APPLICATION_ID, v) => Err(Formed::Refused(format!(
            "it is of an older store format ({v}) this harness does not read: \
             remove the folder for a new store"
        ))),
        _ => Err(Formed::Refused(format!(
            "its {DB} is not a puzzlegrade result store"
        ))),
    }
}

/// Whether `dir` is on a network file system (NFS, SMB, Lustre, GPFS,
/// Ceph, FUSE), where SQLite's WAL cannot be shared between machines.
fn network_fs(dir: &Path) -> bool {
    const NETWORK: [i64; 8] = [
        0x6969,      // NFS
        0x517B,      // SMB
        0xFF53_4D42, // CIFS
        0xFE53_4D42, // SMB2
        0x0BD0_0BD0, // Lustre
        0x4750_4653, // GPFS
        0x00C3_6400, // Ceph
        0x6573_5546, // FUSE
    ];
    // (`f_type`'s width is the platform's.)
    #[allow(clippy::unnecessary_cast)]
    let network = |s: rustix::fs::StatFs| NETWORK.contains(&(s.f_type as i64));
    rustix::fs::statfs(dir).is_ok_and(network)
}

/// The store's key: read, or made (32 random bytes, 0600, written under
/// another name and linked into place: two runs making one store at once
/// share the first key made).
fn secret(dir: &Path) -> Result<[u8; 32], StoreError> {
    let io = |source| StoreError::Io {
        path: dir.to_owned(),
        source,
    };
    let path = dir.join(SECRET);
    if std::fs::symlink_metadata(&path).is_err() {
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .map_err(io)?;
        let mut temp = tempfile::Builder::new()
            .prefix(SECRET_TEMP)
            .tempfile_in(dir)
            .map_err(io)?;
        std::io::Write::write_all(&mut temp, &bytes).map_err(io)?;
        if let Err(e) = temp.persist_noclobber(&path)
            && e.error.kind() != std::io::ErrorKind::AlreadyExists
        {
            return Err(io(e.error));
        }
    }
    let mut bytes = [0u8; 32];
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(io)?;
    file.read_exact(&mut bytes).map_err(io)?;
    Ok(bytes)
}
