//! The result store (`--store DIR`, else the user's cache folder): each
//! row a case or probe got, kept
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
//!   class's built copy, or a command's folder less the run's outputs),
//!   and the bytes of each program or file its command line names outside
//!   it (names and link targets as bytes);
//! - the case: the bytes of the files the candidate is given and of those
//!   it is judged by (a battery's probe: its arguments, stdin, files and
//!   expectations).
//!
//! A class's build is kept by the digest of its inputs (see
//! `Store::built`) with its copy's digest, which then stands for the copy:
//! a submission whose build and cases are all kept needs no build
//! (`class::lazy`), and one with a row to run has its copy made again
//! from the store (`Store::restore`).
//!
//! Only a verdict that is the candidate's own and does not follow from
//! the machine's load is kept: never `time-limit`, `memory-limit`,
//! `harness-error`, `cancelled`, nor a row within half of a time limit
//! (its CPU or wall time); of builds, only one that built or a compiler's
//! own failure (never one stopped by its limits or a signal).
//!
//! The store is a folder the harness made and owns, holding one SQLite
//! database (`db`) and its key; `place` refuses any other (a link, another
//! user's, one others may write, one holding other files) before a byte
//! is written or removed. Entries are authenticated under the key (one the
//! harness did not write is never served), keyed by the run's isolation
//! among the rest (a weaker tier's rows never serve another's run), read
//! by key (no walk at start) and evicted, over the size limit, read
//! longest ago first. A build's copy is kept whole (`tree`: its files by
//! content, shared between builds), so a submission with a row to run
//! again has its copy made again instead of built.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::executor::Limits;
use crate::job::{Job, Task};
use crate::outcome::{Row, Verdict};

mod db;
mod key;
mod place;
mod tree;

/// What an entry is kept under: the digest of what it depends on.
pub type Key = [u8; 32];

/// A candidate's working folder larger than this (files or bytes) is not
/// digested: its rows are not kept (a `--candidate` run from a home
/// folder, say).
const MAX_FILES: usize = 20_000;
const MAX_BYTES: u64 = 1 << 30;

/// Why the store cannot be used (nothing was changed or removed).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The folder is not one a store may be in, and why.
    #[error("refusing the result store {}: {why}", path.display())]
    Refused {
        /// The folder named.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// It could not be read or made.
    #[error("cannot use the result store {}: {source}", path.display())]
    Io {
        /// The folder named.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Its database failed.
    #[error("cannot use the result store {}: {source}", path.display())]
    Db {
        /// The folder named.
        path: PathBuf,
        /// What failed.
        source: rusqlite::Error,
    },
}

/// A result store.
pub struct Store {
    dir: PathBuf,
    db: db::Db,
    /// Digests of folders and files named by candidates, this run.
    digests: Mutex<HashMap<PathBuf, Option<[u8; 32]>>>,
    /// What a folder's digest leaves out (the run's own outputs).
    skip: Vec<PathBuf>,
    reused: AtomicUsize,
    ran: AtomicUsize,
    restored: AtomicUsize,
    builds: AtomicUsize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("dir", &self.dir).finish()
    }
}

impl Store {
    /// The store in `dir` (made, mode 0700, where it is not; refused where
    /// it may not be, see `place`), holding at most `limit` bytes: over
    /// it, the entries read longest ago are removed now (where another
    /// run lets it: else a warning).
    pub fn open(dir: &Path, limit: u64) -> Result<Self, StoreError> {
        let dir = place::settle(dir)?;
        let db = db::Db::open(&dir)?;
        // (Another run holding it past SQLite's minute: this run evicts
        // nothing, and loses nothing.)
        if let Err(e) = db.evict(limit) {
            eprintln!(
                "harness: warning: the result store {}: nothing evicted this run: {e}",
                dir.display()
            );
        }
        Ok(Self {
            dir,
            db,
            digests: Mutex::default(),
            skip: Vec::new(),
            reused: AtomicUsize::new(0),
            ran: AtomicUsize::new(0),
            restored: AtomicUsize::new(0),
            builds: AtomicUsize::new(0),
        })
    }

    /// The store with `paths` left out of every folder's digest (the run's
    /// own outputs, which a candidate's folder may hold).
    pub fn leaving_out(mut self, paths: Vec<PathBuf>) -> Self {
        self.skip = paths;
        self
    }

    /// Forgets everything the store in `dir` holds and makes it a new key:
    /// after a run whose candidates could reach it, nothing they may have
    /// written there is ever served.
    pub fn renew(dir: &Path) -> Result<(), StoreError> {
        db::Db::renew(dir)
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What the store did this run.
    pub fn counts(&self) -> Counts {
        let get = |n: &AtomicUsize| n.load(Ordering::Relaxed);
        Counts {
            reused: get(&self.reused),
            ran: get(&self.ran),
            restored: get(&self.restored),
            builds: get(&self.builds),
        }
    }

    /// The row kept for `job` as a run would run it (`run`: what of the
    /// run's options and isolation every verdict follows, see
    /// `RunOptions::fingerprint`), with the job's own names on it, if
    /// there is one; else the key to keep its row under once it has run
    /// (`Err`), where it may be kept (`Err(None)`: it may not).
    pub fn lookup(&self, job: &Job, run: &str) -> Result<Row, Option<Key>> {
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

    /// Counts `n` more builds run while the store was in use.
    pub fn built_anew(&self, n: usize) {
        self.ran.fetch_add(n, Ordering::Relaxed);
        self.builds.fetch_add(n, Ordering::Relaxed);
    }

    /// Keeps `row` under `key`, where its verdict may be reused
    /// ([`reusable`]). A failure to write loses nothing but the entry.
    pub fn keep(&self, key: &Key, row: &Row, limits: &Limits) {
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
    pub fn built(&self, job: &Job, run: &str) -> (Option<Key>, Option<Built>) {
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

    /// Makes the copy of build `job` kept under `key` (its `entry`) in the
    /// build's folder, instead of building it: `true` where its files were
    /// kept and the copy made holds exactly what the build made (its
    /// digest); else the folder is removed and it builds.
    pub fn restore(&self, job: &Job, key: &Key, entry: &Built) -> bool {
        let (Task::Build(build), Some(copy), true) = (&job.task, entry.copy, entry.tree) else {
            return false;
        };
        let made = tree::restore(&mut self.db.conn(), key, &build.dir)
            && key::tree_digest(&build.dir, &[]) == Some(copy);
        if made {
            self.restored.fetch_add(1, Ordering::Relaxed);
        } else {
            let _ = std::fs::remove_dir_all(&build.dir);
        }
        made
    }

    /// Keeps a build's `row` under `key` (one that built, with its copy in
    /// `dir` whole where it is not too large; or the compiler's own
    /// failure: never one stopped by its limits, a signal or the machine),
    /// with what each part requires that the copy lacks (`missing`).
    pub fn keep_build(&self, key: &Key, row: &Row, dir: &Path, missing: Vec<Missing>) {
        let (copy, tree) = match row.verdict {
            Verdict::Accepted => match self.digest(dir) {
                Some(d) => {
                    let saved = tree::save(&mut self.db.conn(), key, dir);
                    (Some(d), saved.unwrap_or(false))
                }
                None => return,
            },
            // (Its exit status, or the files the course requires missing:
            // `grade::build`.)
            Verdict::CompileError
                if row.exit_code.is_some() || row.detail.starts_with("missing ") =>
            {
                (None, false)
            }
            _ => return,
        };
        let row = row.clone();
        self.put(
            key,
            &Built {
                row,
                copy,
                missing,
                tree,
            },
        );
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<[u8; 32]>>> {
        self.digests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes `value` under `key`. A failure to write loses nothing but
    /// the entry.
    fn put<T: serde::Serialize>(&self, key: &Key, value: &T) {
        let Ok(body) = serde_json::to_vec(value) else {
            return;
        };
        if let Err(e) = self.db.put(key, &body) {
            eprintln!("harness: cannot keep a row in the result store: {e}");
        }
    }

    /// The entry kept under `key`, where the harness wrote it.
    fn get<T: serde::de::DeserializeOwned>(&self, key: &Key) -> Option<T> {
        serde_json::from_slice(&self.db.get(key)?).ok()
    }
}

/// What a store did in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Rows taken from it (builds' included).
    pub reused: usize,
    /// Of them, builds whose copies it made again instead of building.
    pub restored: usize,
    /// Cases and builds run while it was in use.
    pub ran: usize,
    /// Of them, builds.
    pub builds: usize,
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
    /// Whether its copy's files are kept (it can be made again unbuilt).
    pub tree: bool,
}

/// Files a part requires, and what of them a copy lacked (see
/// `grade::build::missing`).
pub type Missing = (Vec<String>, Option<String>);

#[cfg(test)]
mod tests;
