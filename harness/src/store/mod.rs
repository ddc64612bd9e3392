//! The result store (`--store DIR`): each row a case or probe got, kept
//! under a digest of everything its verdict depends on, so that a later
//! run that would run the same bytes the same way takes the row instead
//! of running the case again (build systems' action cache; no grading
//! platform keeps one). The digest covers:
//!
//! - the store's format and the harness's version (its judges and its
//!   executor: an upgrade runs everything again);
//! - the run's limits, the isolation label, the candidates' environment
//!   and every option a case's verdict follows (`--crashes`, the
//!   reference's load options, the network);
//! - the judge (the family, or a course part's question) and the suite's
//!   name (a course part's);
//! - the candidate: its command line (its working folder written as such,
//!   wherever it is), the bytes of every file in its working folder (a
//!   class's built copy), and the bytes of each program or file its
//!   command line names outside it;
//! - the case: the bytes of the files the candidate is given and of those
//!   it is judged by (a battery's probe: its arguments, stdin, files and
//!   expectations).
//!
//! A class's build is kept by the digest of its inputs (see
//! `Store::built`) with its copy's digest, which then stands for the copy:
//! a submission whose build and cases are all kept needs no build
//! (`class::lazy`).
//!
//! Only a verdict that is the candidate's own and does not follow from
//! the machine's load is kept: never `time-limit`, `memory-limit`,
//! `harness-error`, `cancelled`, nor a row within half of a time limit
//! (its CPU or wall time). An entry is written whole (a temporary file
//! renamed), checked when read (its SHA-256 on its first lines: a torn or
//! altered entry is removed and its case runs), and the store is the
//! harness's alone (mode 0700; hidden from every case's view). Shards of a
//! Slurm run may share one folder: writes are atomic, and two runs that
//! write one entry write the same bytes. Over its size limit, the entries
//! read longest ago go first.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use crate::executor::Limits;
use crate::job::{Job, Task};
use crate::outcome::{Row, Verdict};

mod key;

use key::hex;

/// The first line of every entry (a new format is a new store).
const FORMAT: &str = "puzzlegrade-store 2";

/// A candidate's working folder larger than this (files or bytes) is not
/// digested: its rows are not kept (a `--candidate` run from a home
/// folder, say).
const MAX_FILES: usize = 20_000;
const MAX_BYTES: u64 = 1 << 30;

/// Why the store cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("cannot use the result store {}: {source}", path.display())]
pub struct StoreError {
    path: PathBuf,
    source: std::io::Error,
}

/// A result store in a folder.
pub struct Store {
    dir: PathBuf,
    /// The bytes it may hold.
    limit: u64,
    /// Digests of folders and files named by candidates, this run.
    digests: Mutex<HashMap<PathBuf, Option<[u8; 32]>>>,
    reused: AtomicUsize,
    ran: AtomicUsize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("dir", &self.dir).finish()
    }
}

impl Store {
    /// The store in `dir` (made, mode 0700, where it is not), holding at
    /// most `limit` bytes: over it, the entries read longest ago are
    /// removed now.
    pub fn open(dir: &Path, limit: u64) -> Result<Self, StoreError> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        let failed = |source| StoreError {
            path: dir.to_owned(),
            source,
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(failed)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)?;
        let store = Self {
            dir: dir.canonicalize().map_err(failed)?,
            limit,
            digests: Mutex::default(),
            reused: AtomicUsize::new(0),
            ran: AtomicUsize::new(0),
        };
        store.evict();
        Ok(store)
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Rows taken from the store this run, and cases run while it was in
    /// use.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.reused.load(Ordering::Relaxed),
            self.ran.load(Ordering::Relaxed),
        )
    }

    /// The row kept for `job` as a run would run it (`run`: what of the
    /// run's options and isolation every verdict follows, see
    /// `RunOptions::fingerprint`), with the job's own names on it, if
    /// there is one; else the key to keep its row under once it has run
    /// (`Err`), where it may be kept (`Err(None)`: it may not).
    pub fn lookup(&self, job: &Job, run: &str) -> Result<Row, Option<String>> {
        let key = self.key(job, run).ok_or(None)?;
        let Some(mut row) = self.get::<Row>(&key) else {
            self.ran.fetch_add(1, Ordering::Relaxed);
            return Err(Some(key));
        };
        self.reused.fetch_add(1, Ordering::Relaxed);
        relabel(&mut row, job);
        Ok(row)
    }

    /// Counts `n` more rows taken from the store (a build's, say).
    pub fn reused(&self, n: usize) {
        self.reused.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` more jobs run while the store was in use (builds).
    pub fn ran(&self, n: usize) {
        self.ran.fetch_add(n, Ordering::Relaxed);
    }

    /// Keeps `row` under `key`, where its verdict may be reused
    /// ([`reusable`]). A failure to write loses nothing but the entry.
    pub fn keep(&self, key: &str, row: &Row, limits: &Limits) {
        if reusable(row, limits) {
            self.put(key, row);
        }
    }

    /// The rows of every one of `jobs` as kept, counted as reused, where
    /// every one is there (nothing counted otherwise): a submission whose
    /// rows are all kept needs no build.
    pub fn all(&self, jobs: &[Job], run: &str) -> Option<Vec<Row>> {
        let rows = jobs
            .iter()
            .map(|job| {
                let mut row: Row = self.get(&self.key(job, run)?)?;
                relabel(&mut row, job);
                Some(row)
            })
            .collect::<Option<Vec<Row>>>()?;
        self.reused.fetch_add(rows.len(), Ordering::Relaxed);
        Some(rows)
    }

    /// The build `job` as kept, and the key to keep it under. Where its
    /// copy built, the digest kept stands for the copy from now on (which
    /// need not exist: its cases' rows are found without building it),
    /// until [`Store::forget`].
    pub fn built(&self, job: &Job, run: &str) -> (Option<String>, Option<Built>) {
        let Some(key) = self.build_key(job, run) else {
            return (None, None);
        };
        let entry: Option<Built> = self.get(&key);
        if let (Some(e), Task::Build(b)) = (&entry, &job.task)
            && let Some(copy) = e.copy
        {
            self.memo().insert(b.dir.clone(), Some(copy));
        }
        (Some(key), entry)
    }

    /// Forgets the digest [`Store::built`] gave the copy in `dir`: it is
    /// built after all, and its cases are keyed by what it holds.
    pub fn forget(&self, dir: &Path) {
        self.memo().remove(dir);
    }

    /// Keeps a build's `row` under `key` (one that built, or a compile
    /// error: never our failure), with the digest of its copy in `dir` and
    /// what each part requires that the copy lacks (`missing`).
    pub fn keep_build(&self, key: &str, row: &Row, dir: &Path, missing: Vec<Missing>) {
        let copy = match row.verdict {
            Verdict::Accepted => match self.digest(dir) {
                Some(d) => Some(d),
                None => return,
            },
            Verdict::CompileError => None,
            _ => return,
        };
        let row = row.clone();
        self.put(key, &Built { row, copy, missing });
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<[u8; 32]>>> {
        self.digests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes `value` under `key`, whole (renamed into place) with its
    /// checksum. A failure to write loses nothing but the entry.
    fn put<T: serde::Serialize>(&self, key: &str, value: &T) {
        let Ok(body) = serde_json::to_string(value) else {
            return;
        };
        let text = format!("{FORMAT}\n{}\n{body}\n", hex(&Sha256::digest(&body)));
        let path = self.path(key);
        let Some(folder) = path.parent() else {
            return;
        };
        let written = std::fs::create_dir_all(folder)
            .and_then(|()| tempfile::NamedTempFile::new_in(folder))
            .and_then(|mut file| {
                file.write_all(text.as_bytes())?;
                file.persist(&path).map_err(|e| e.error)?;
                Ok(())
            });
        if let Err(e) = written {
            eprintln!("harness: cannot keep a row in the result store: {e}");
        }
    }

    /// The entry kept under `key`, checked; a torn or altered entry is
    /// removed.
    fn get<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let path = self.path(key);
        let text = std::fs::read_to_string(&path).ok()?;
        let value = check(&text);
        match &value {
            Some(_) => {
                // Read now: the last to go when the store is over its size.
                let _ = std::fs::File::options()
                    .append(true)
                    .open(&path)
                    .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            }
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
        value
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{}.row", &key[2..]))
    }

    /// Removes the entries read longest ago while the store is over its
    /// limit (down to nine tenths of it).
    fn evict(&self) {
        let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> =
            walkdir::WalkDir::new(&self.dir)
                .into_iter()
                .flatten()
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    Some((m.modified().ok()?, m.len(), e.into_path()))
                })
                .collect();
        let mut total: u64 = entries.iter().map(|(_, len, _)| len).sum();
        if total <= self.limit {
            return;
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= self.limit / 10 * 9 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

/// Whether `row`'s verdict may be reused: the candidate's own, not one the
/// machine's load or memory could change, and with its CPU and wall times
/// under half of their limits.
pub fn reusable(row: &Row, limits: &Limits) -> bool {
    let own = matches!(
        row.verdict,
        Verdict::Accepted
            | Verdict::WrongAnswer
            | Verdict::WrongExitStatus
            | Verdict::RuntimeError
            | Verdict::OutputLimit
    );
    let half = |used: Option<f64>, limit: std::time::Duration| {
        used.is_some_and(|ms| ms < limit.as_secs_f64() * 500.0)
    };
    own && half(row.wall_ms, limits.time) && limits.cpu.is_none_or(|cpu| half(row.cpu_ms, cpu))
}

/// A kept row with `job`'s own names on it.
fn relabel(row: &mut Row, job: &Job) {
    row.candidate.clone_from(&job.label);
    row.family = job.family.name().to_string();
    row.suite.clone_from(&job.suite);
    row.case.clone_from(&job.case);
}

/// What a build's entry holds.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Built {
    /// Its row (accepted, or a compile error).
    pub row: Row,
    /// The digest of the copy it made, where it built.
    pub copy: Option<[u8; 32]>,
    /// Each part's required files, and what of them the copy lacked.
    pub missing: Vec<Missing>,
}

/// Files a part requires, and what of them a copy lacked (see
/// `grade::build::missing`).
pub type Missing = (Vec<String>, Option<String>);

/// The value an entry's text holds, where its format and checksum hold.
fn check<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    let mut lines = text.splitn(3, '\n');
    let (format, sum, body) = (lines.next()?, lines.next()?, lines.next()?);
    let body = body.strip_suffix('\n')?;
    if format != FORMAT || sum != hex(&Sha256::digest(body)) {
        return None;
    }
    serde_json::from_str(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: Verdict, cpu_ms: f64) -> Row {
        let mut r = Row::new("alice", "toy", "toy/easy", "a.txt");
        r.verdict = verdict;
        r.cpu_ms = Some(cpu_ms);
        r.wall_ms = Some(cpu_ms + 1.0);
        r
    }

    #[test]
    fn only_the_candidates_own_verdicts_far_from_a_limit_are_kept() {
        let mut limits = Limits::new(std::time::Duration::from_secs(10), 1 << 30);
        limits.cpu = Some(std::time::Duration::from_secs(4));
        assert!(reusable(&row(Verdict::Accepted, 100.0), &limits));
        assert!(reusable(&row(Verdict::WrongAnswer, 1900.0), &limits));
        assert!(
            !reusable(&row(Verdict::Accepted, 2100.0), &limits),
            "past half the CPU limit"
        );
        for v in [
            Verdict::TimeLimit,
            Verdict::MemoryLimit,
            Verdict::HarnessError,
            Verdict::Cancelled,
        ] {
            assert!(!reusable(&row(v, 1.0), &limits), "{v:?}");
        }
    }

    #[test]
    fn an_entry_is_checked_and_a_torn_or_altered_one_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store"), 1 << 20).unwrap();
        let limits = Limits::new(std::time::Duration::from_secs(10), 1 << 30);
        let key = hex(&Sha256::digest(b"a case"));
        store.keep(&key, &row(Verdict::Accepted, 5.0), &limits);
        assert_eq!(store.get::<Row>(&key).unwrap().verdict, Verdict::Accepted);
        let path = store.path(&key);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("accepted", "wrong-answer")).unwrap();
        assert!(
            store.get::<Row>(&key).is_none(),
            "its checksum no longer holds"
        );
        assert!(!path.exists(), "the altered entry is removed");
        store.keep(&key, &row(Verdict::Accepted, 5.0), &limits);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(store.get::<Row>(&key).is_none(), "torn");
    }

    #[test]
    fn over_its_limit_the_entries_read_longest_ago_go() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("store");
        let limits = Limits::new(std::time::Duration::from_secs(10), 1 << 30);
        let store = Store::open(&at, 1 << 20).unwrap();
        let keys: Vec<String> = (0..20)
            .map(|i| hex(&Sha256::digest(format!("case {i}"))))
            .collect();
        for (i, key) in keys.iter().enumerate() {
            store.keep(key, &row(Verdict::Accepted, 5.0), &limits);
            let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(i as u64);
            std::fs::File::options()
                .append(true)
                .open(store.path(key))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let one = std::fs::metadata(store.path(&keys[0])).unwrap().len();
        // Room for ten entries: the ten oldest go (and one more, to nine
        // tenths).
        let store = Store::open(&at, one * 10).unwrap();
        let left: Vec<bool> = keys.iter().map(|k| store.path(k).exists()).collect();
        assert!(left[..10].iter().all(|l| !l), "{left:?}");
        assert!(left[11..].iter().all(|l| *l), "{left:?}");
    }
}
