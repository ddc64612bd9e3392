//! The CSV scorecard: one row per case, written whole as each case finishes
//! (a failed write is cut back, so no torn row is left), and reopened by
//! `--resume` and `--rerun-failed`.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::Sink;
use crate::event::{Event, Summary};
use crate::outcome::{Row, Verdict};

/// What to do with a scorecard that already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// It must not exist (a usage error otherwise: never truncate silently).
    Create,
    /// Replace it (`--force`).
    Force,
    /// Keep its finished rows, run the rest (`--resume`).
    Resume,
    /// Keep its accepted rows, run the rest (`--rerun-failed`).
    RerunFailed,
}

/// The scorecard file, open for appending rows.
pub struct Scorecard {
    path: PathBuf,
    file: File,
    /// Bytes known good: a failed write is cut back to here.
    len: u64,
    header_written: bool,
}

/// What a scorecard being resumed keeps: how many rows, their tallies, a
/// compact set of their keys (128 bits each, so a million rows cost tens
/// of megabytes, not hundreds), and the rows themselves where asked for.
#[derive(Debug, Default)]
pub struct Kept {
    /// The tallies of the rows kept.
    pub summary: Summary,
    /// The rows kept, in scorecard order, where asked for.
    pub rows: Option<Vec<Row>>,
    keys: Keys,
}

impl Kept {
    /// Rows kept.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.keys.len() == 0
    }

    /// Whether the row of `candidate` on `suite`/`case` is kept.
    pub fn contains(&self, candidate: &str, suite: &str, case: &str) -> bool {
        self.keys.contains(candidate, suite, case)
    }
}

/// A set of row keys (candidate, suite, case), each as 128 bits of two
/// independent hashes (two keys alike by chance: about 1 in 10^26 a
/// pair), sorted: 16 bytes a row, looked up by halving.
#[derive(Debug, Default)]
struct Keys {
    sorted: Vec<[u64; 2]>,
    hashers: [std::collections::hash_map::RandomState; 2],
}

impl Keys {
    fn of(&self, candidate: &str, suite: &str, case: &str) -> [u64; 2] {
        use std::hash::BuildHasher;
        self.hashers
            .each_ref()
            .map(|h| h.hash_one((candidate, suite, case)))
    }

    fn of_row(&self, row: &Row) -> [u64; 2] {
        self.of(&row.candidate, &row.suite, &row.case)
    }

    /// Sorts the keys pushed so far; returns those pushed more than once.
    fn settle(&mut self) -> std::collections::HashSet<[u64; 2]> {
        self.sorted.sort_unstable();
        let twice = self
            .sorted
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        self.sorted.dedup();
        self.sorted.shrink_to_fit();
        twice
    }

    fn contains(&self, candidate: &str, suite: &str, case: &str) -> bool {
        self.sorted
            .binary_search(&self.of(candidate, suite, case))
            .is_ok()
    }

    fn len(&self) -> usize {
        self.sorted.len()
    }
}

impl Scorecard {
    /// Opens the scorecard at `path` for candidate `label` (any candidate,
    /// for a class run: `None`) in `mode`; returns it with the rows kept from
    /// an earlier run (resume modes).
    pub fn open(path: &Path, mode: Mode, label: Option<&str>) -> anyhow::Result<(Self, Vec<Row>)> {
        let (card, kept) = Self::open_kept(path, mode, label, true)?;
        Ok((card, kept.rows.unwrap_or_default()))
    }

    /// Opens the scorecard at `path` for candidate `label` (any candidate,
    /// for a class run: `None`) in `mode`; returns it with what is kept
    /// from an earlier run (resume modes): the rows themselves only with
    /// `rows`. The earlier scorecard is read a row at a time, twice (the
    /// second time to write the rows kept back): its size costs no memory
    /// but the keys.
    pub fn open_kept(
        path: &Path,
        mode: Mode,
        label: Option<&str>,
        rows: bool,
    ) -> anyhow::Result<(Self, Kept)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let exists = path.exists();
        if exists && mode == Mode::Create {
            bail!(
                "scorecard {} exists; --resume continues it, --rerun-failed runs its failures again, --force replaces it",
                path.display()
            );
        }
        // One run at a time on a scorecard: locked before anything in it is
        // touched (two runs would interleave their rows).
        let file = {
            use std::os::unix::fs::OpenOptionsExt;
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)
                .with_context(|| format!("cannot open scorecard {}", path.display()))?
        };
        private(&file);
        lock(&file, path)?;
        let mut kept = Kept {
            rows: rows.then(Vec::new),
            ..Kept::default()
        };
        let file = match mode {
            Mode::Resume | Mode::RerunFailed if exists => {
                let keep = |r: &Row| match mode {
                    Mode::Resume => r.verdict != Verdict::Cancelled,
                    _ => r.verdict == Verdict::Accepted,
                };
                // A case listed twice keeps its last row: which rows are
                // last, where some key comes twice (rarely).
                each_row(path, label, |_, row| {
                    if keep(&row) {
                        let key = kept.keys.of_row(&row);
                        kept.keys.sorted.push(key);
                    }
                    Ok(())
                })?;
                let twice = kept.keys.settle();
                let mut last_seen: HashMap<[u64; 2], usize> = HashMap::new();
                if !twice.is_empty() {
                    each_row(path, label, |line, row| {
                        let key = kept.keys.of_row(&row);
                        if keep(&row) && twice.contains(&key) {
                            last_seen.insert(key, line);
                        }
                        Ok(())
                    })?;
                }
                rewrite(path, |out| {
                    each_row(path, label, |line, row| {
                        let key = kept.keys.of_row(&row);
                        if !keep(&row) || last_seen.get(&key).is_some_and(|&l| l != line) {
                            return Ok(());
                        }
                        out(&row)?;
                        kept.summary.add(&row);
                        if let Some(rows) = &mut kept.rows {
                            rows.push(row);
                        }
                        Ok(())
                    })
                })?
            }
            _ => {
                file.set_len(0)
                    .with_context(|| format!("cannot empty scorecard {}", path.display()))?;
                file
            }
        };
        Ok((Self::at_end(path, file)?, kept))
    }

    /// Opens an existing class scorecard to regrade the submissions `ids`
    /// (`--only`): their rows are dropped, every other row is kept (and
    /// returned); the new rows are appended.
    pub fn open_regrade(
        path: &Path,
        ids: &std::collections::HashSet<String>,
    ) -> anyhow::Result<(Self, Vec<Row>)> {
        if !path.is_file() {
            bail!(
                "--only regrades into an existing class scorecard, and {} does not exist",
                path.display()
            );
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot open scorecard {}", path.display()))?;
        private(&file);
        lock(&file, path)?;
        let kept: Vec<Row> = read_rows(path, None)?
            .into_iter()
            .filter(|r| !ids.contains(&r.candidate))
            .collect();
        let file = rewrite(path, |out| kept.iter().try_for_each(&mut *out))?;
        Ok((Self::at_end(path, file)?, kept))
    }

    /// The scorecard `file` (at `path`), appending after what it holds.
    fn at_end(path: &Path, mut file: File) -> anyhow::Result<Self> {
        let len = file
            .seek(std::io::SeekFrom::End(0))
            .with_context(|| format!("cannot open scorecard {}", path.display()))?;
        Ok(Self {
            path: path.to_owned(),
            file,
            len,
            header_written: len > 0,
        })
    }

    /// Appends one row (with the header first when the file is empty).
    pub fn append(&mut self, row: &Row) -> anyhow::Result<()> {
        let bytes = encode(std::slice::from_ref(row), !self.header_written)?;
        self.write(&bytes)?;
        self.header_written = true;
        Ok(())
    }

    /// Writes whole `bytes` or nothing (a partial write is cut back).
    fn write(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if let Err(e) = self.file.write_all(bytes) {
            // Cut back whatever part of the row reached the disk.
            let _ = self.file.set_len(self.len);
            return Err(e)
                .with_context(|| format!("cannot write the scorecard {}", self.path.display()));
        }
        self.len += bytes.len() as u64;
        Ok(())
    }
}

impl Sink for Scorecard {
    fn event(&mut self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::CaseFinished { row } | Event::CaseCancelled { row } => self.append(row),
            _ => Ok(()),
        }
    }
}

/// The scorecard readable by its owner alone (rw-------), whatever mode an
/// earlier run or a copy left it: its rows are students' verdicts. (Best
/// effort: a file system without modes keeps what it has.)
fn private(file: &File) {
    use std::os::unix::fs::PermissionsExt;
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
}

/// Takes the scorecard for this run, or says another run has it.
fn lock(file: &File, path: &Path) -> anyhow::Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "scorecard {} is in use by another run of the harness (give this run its own --scorecard)",
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock scorecard {}", path.display()))
        }
    }
}

/// Rows as CSV bytes, with the header line first when asked.
fn encode(rows: &[Row], header: bool) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .buffer_capacity(1024)
        .from_writer(Vec::with_capacity(256 * rows.len().max(1)));
    for row in rows {
        w.serialize(row.guarded())?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Every row of the scorecard at `path`, of any candidate (for `compare`
/// and `report`).
pub fn read(path: &Path) -> anyhow::Result<Vec<Row>> {
    read_rows(path, None)
}

/// The rows of an earlier scorecard (see [`each_row`]).
fn read_rows(path: &Path, label: Option<&str>) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    each_row(path, label, |_, row| {
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// Hands each row of an earlier scorecard to `each` with its line, in
/// order, read a row at a time. A torn last line (no newline: the run died
/// mid-write) is skipped; any other bad line is an error naming it, and so
/// is a row of a candidate other than `label`.
fn each_row(
    path: &Path,
    label: Option<&str>,
    mut each: impl FnMut(usize, Row) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use std::io::Read;
    let mut file =
        File::open(path).with_context(|| format!("cannot read scorecard {}", path.display()))?;
    let whole = complete_len(&mut file)
        .with_context(|| format!("cannot read scorecard {}", path.display()))?;
    let mut reader = csv::Reader::from_reader(std::io::BufReader::new(file.take(whole)));
    for (i, record) in reader.deserialize::<Row>().enumerate() {
        let row = record
            .with_context(|| {
                format!(
                    "scorecard {}: line {}: not a scorecard row",
                    path.display(),
                    i + 2
                )
            })?
            .unguarded();
        if let Some(label) = label
            && row.candidate != label
        {
            bail!(
                "scorecard {}: line {}: a row of candidate {:?}, not {label:?} (use --name, or --force to replace it)",
                path.display(),
                i + 2,
                row.candidate
            );
        }
        each(i + 2, row)?;
    }
    Ok(())
}

/// The length of `file` up to its last newline (what follows it is a torn
/// line), the file left at its start.
fn complete_len(file: &mut File) -> std::io::Result<u64> {
    use std::io::{Read, SeekFrom};
    let mut end = file.seek(SeekFrom::End(0))?;
    let mut chunk = vec![0u8; 8192];
    let whole = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(chunk.len() as u64);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk[..n])?;
        if let Some(i) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            break start + i as u64 + 1;
        }
        end = start;
    };
    file.seek(SeekFrom::Start(0))?;
    Ok(whole)
}

/// Replaces the scorecard with the rows `fill` writes (through the
/// function it is given, header first), atomically (temp file, rename),
/// and returns it open and locked.
fn rewrite(
    path: &Path,
    fill: impl FnOnce(&mut dyn FnMut(&Row) -> anyhow::Result<()>) -> anyhow::Result<()>,
) -> anyhow::Result<File> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    // Locked before it takes the scorecard's name: no other run can take
    // the new file between the rename and the lock.
    lock(tmp.as_file(), path)?;
    let mut out = csv::Writer::from_writer(std::io::BufWriter::new(tmp));
    fill(&mut |row| {
        out.serialize(row.guarded())
            .with_context(|| format!("cannot write the scorecard {}", path.display()))
    })?;
    let tmp = out
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write the scorecard {}: {e}", path.display()))?
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write the scorecard {}: {e}", path.display()))?;
    tmp.persist(path)
        .with_context(|| format!("cannot replace the scorecard {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, verdict: Verdict) -> Row {
        let mut r = Row::new("alice", "toy", "toy/easy", case);
        r.verdict = verdict;
        r.detail = "a, \"quoted\" detail".into();
        r.wall_ms = Some(1.5);
        r
    }

    #[test]
    fn an_existing_scorecard_needs_a_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        std::fs::write(&path, "").unwrap();
        let err = Scorecard::open(&path, Mode::Create, Some("alice"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("exists; --resume"), "{err}");
        assert!(Scorecard::open(&path, Mode::Force, Some("alice")).is_ok());
    }

    #[test]
    fn resume_keeps_finished_rows_and_drops_cancelled_and_torn_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let (mut card, kept) = Scorecard::open(&path, Mode::Create, Some("alice")).unwrap();
        assert!(kept.is_empty());
        for r in [
            row("a", Verdict::Accepted),
            row("b", Verdict::WrongAnswer),
            row("c", Verdict::Cancelled),
        ] {
            card.append(&r).unwrap();
        }
        drop(card);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"alice,toy,toy/easy,d,acc").unwrap();
        drop(f);

        let (_, kept) = Scorecard::open(&path, Mode::Resume, Some("alice")).unwrap();
        let cases: Vec<&str> = kept.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(cases, ["a", "b"]);
        assert_eq!(
            kept[0],
            row("a", Verdict::Accepted),
            "rows read back exactly"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "header and two rows: {text}");

        let (_, kept) = Scorecard::open(&path, Mode::RerunFailed, Some("alice")).unwrap();
        assert_eq!(kept.len(), 1);
        let err = Scorecard::open(&path, Mode::Resume, Some("bob"))
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("a row of candidate \"alice\""),
            "{err}"
        );
    }

    /// Read a row at a time, the kept rows are known by their keys alone:
    /// a case listed twice keeps its last row, the rows themselves are
    /// held only where asked for, and a torn line past an 8 KiB read is
    /// found from the end.
    #[test]
    fn kept_rows_are_known_by_key_and_the_last_of_a_twice_listed_case_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let (mut card, _) = Scorecard::open(&path, Mode::Create, Some("alice")).unwrap();
        let mut late = row("a", Verdict::WrongAnswer);
        late.detail = "the later one".into();
        for r in [
            row("a", Verdict::Accepted),
            row("b", Verdict::Cancelled),
            late.clone(),
            row("c", Verdict::Accepted),
        ] {
            card.append(&r).unwrap();
        }
        drop(card);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[b'x'; 20_000]).unwrap();
        drop(f);
        let (_, kept) = Scorecard::open_kept(&path, Mode::Resume, Some("alice"), false).unwrap();
        assert!(kept.rows.is_none(), "no rows held unless asked for");
        assert_eq!(kept.len(), 2);
        assert!(kept.contains("alice", "toy/easy", "a"));
        assert!(kept.contains("alice", "toy/easy", "c"));
        assert!(!kept.contains("alice", "toy/easy", "b"), "cancelled");
        assert!(!kept.contains("bob", "toy/easy", "a"));
        assert_eq!(kept.summary.total(), 2);
        assert_eq!(kept.summary.accepted(), 1, "the later row of a counts");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "header, a (the later), c: {text}");
        assert!(text.contains("the later one"));
        let (_, rows) = Scorecard::open(&path, Mode::Resume, Some("alice")).unwrap();
        let cases: Vec<&str> = rows.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(cases, ["a", "c"]);
        assert_eq!(rows[0], late);
    }
}
