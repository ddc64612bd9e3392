//! The CSV scorecard: one row per case, written whole as each case finishes
//! (a failed write is cut back, so no torn row is left), and reopened by
//! `--resume` and `--rerun-failed`.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::Sink;
use crate::event::Event;
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

impl Scorecard {
    /// Opens the scorecard at `path` for candidate `label` (any candidate,
    /// for a class run: `None`) in `mode`; returns it with the rows kept from
    /// an earlier run (resume modes).
    pub fn open(path: &Path, mode: Mode, label: Option<&str>) -> anyhow::Result<(Self, Vec<Row>)> {
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
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open scorecard {}", path.display()))?;
        lock(&file, path)?;
        let (file, kept) = match mode {
            Mode::Resume | Mode::RerunFailed if exists => {
                let rows = read_rows(path, label)?;
                let keep = |r: &Row| match mode {
                    Mode::Resume => r.verdict != Verdict::Cancelled,
                    _ => r.verdict == Verdict::Accepted,
                };
                let mut by_key: HashMap<(String, String, String), usize> = HashMap::new();
                let mut kept: Vec<Row> = Vec::new();
                for row in rows.into_iter().filter(keep) {
                    // A case listed twice keeps its last row.
                    match by_key.get(&row.key()) {
                        Some(&i) => kept[i] = row,
                        None => {
                            by_key.insert(row.key(), kept.len());
                            kept.push(row);
                        }
                    }
                }
                (rewrite(path, &kept)?, kept)
            }
            _ => {
                file.set_len(0)
                    .with_context(|| format!("cannot empty scorecard {}", path.display()))?;
                (file, Vec::new())
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
        lock(&file, path)?;
        let kept: Vec<Row> = read_rows(path, None)?
            .into_iter()
            .filter(|r| !ids.contains(&r.candidate))
            .collect();
        Ok((Self::at_end(path, rewrite(path, &kept)?)?, kept))
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
        w.serialize(row)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// Every row of the scorecard at `path`, of any candidate (for `compare`
/// and `report`).
pub fn read(path: &Path) -> anyhow::Result<Vec<Row>> {
    read_rows(path, None)
}

/// The rows of an earlier scorecard. A torn last line (no newline: the run
/// died mid-write) is dropped; any other bad line is an error naming it.
fn read_rows(path: &Path, label: Option<&str>) -> anyhow::Result<Vec<Row>> {
    let mut text =
        std::fs::read(path).with_context(|| format!("cannot read scorecard {}", path.display()))?;
    if !text.ends_with(b"\n") {
        let cut = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        text.truncate(cut);
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::Reader::from_reader(text.as_slice());
    let mut rows = Vec::new();
    for (i, record) in reader.deserialize::<Row>().enumerate() {
        let row = record.with_context(|| {
            format!(
                "scorecard {}: line {}: not a scorecard row",
                path.display(),
                i + 2
            )
        })?;
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
        rows.push(row);
    }
    Ok(rows)
}

/// Replaces the scorecard with `rows` atomically (temp file, rename), and
/// returns it open and locked.
fn rewrite(path: &Path, rows: &[Row]) -> anyhow::Result<File> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    // Locked before it takes the scorecard's name: no other run can take
    // the new file between the rename and the lock.
    lock(tmp.as_file(), path)?;
    if !rows.is_empty() {
        tmp.write_all(&encode(rows, true)?)
            .with_context(|| format!("cannot write the scorecard {}", path.display()))?;
    }
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
}
