//! Exporters: the run's rows and summary in other formats, one file per
//! format and one line in [`FORMATS`]. Each export is rewritten atomically
//! (a temporary file, then a rename) as rows come, so a crash leaves the
//! last complete export, never a torn one.

pub mod gradescope;
mod json;
mod junit;
pub mod picture;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::event::{Event, Summary};
use crate::outcome::Row;
use crate::report::Sink;

/// Everything an exporter sees: the rows so far and the summary.
#[derive(Debug, Default, Clone)]
pub struct Record {
    /// The candidate's name.
    pub candidate: String,
    /// Every row so far, kept rows of a resumed scorecard first.
    pub rows: Vec<Row>,
    /// Tallies over the rows (final once `finished`).
    pub summary: Summary,
    /// Whether the run is over.
    pub finished: bool,
}

/// One output format.
pub trait Export: Send {
    /// The record as the file's bytes.
    fn render(&self, record: &Record) -> anyhow::Result<Vec<u8>>;
}

/// Makes a fresh exporter.
pub type Maker = fn() -> Box<dyn Export>;

/// Every format: its name on the command line and its exporter.
pub const FORMATS: &[(&str, Maker)] = &[
    ("json", || Box::new(json::Json)),
    ("junit", || Box::new(junit::Junit)),
    ("gradescope", || Box::new(gradescope::Gradescope)),
];

/// Parses `--export FORMAT:PATH` for a command that writes `formats`
/// (grade: every name of [`FORMATS`]; compare: `json`; merge:
/// `gradescope`, a folder).
pub fn parse_target(text: &str, formats: &[&str]) -> anyhow::Result<(String, PathBuf)> {
    let Some((format, path)) = text.split_once(':') else {
        bail!("--export takes FORMAT:PATH, got {text:?}");
    };
    if !formats.contains(&format) {
        bail!(
            "unknown export format {format:?} (known: {})",
            formats.join(", ")
        );
    }
    if path.is_empty() {
        bail!("--export {format}: needs a path");
    }
    Ok((format.to_string(), PathBuf::from(path)))
}

/// The names of [`FORMATS`].
pub fn format_names() -> Vec<&'static str> {
    FORMATS.iter().map(|(n, _)| *n).collect()
}

/// How soon after one rewrite the next may happen, at least: a fast run of
/// small cases would otherwise rewrite every file once a row (quadratic);
/// the rows in between are written at the next row or the end of the run.
const MIN_INTERVAL: Duration = Duration::from_millis(50);

/// And at least this many times as long as the last rewrite took: the
/// files grow with the run, and rewriting them must not become the run's
/// work (at most a tenth of it).
const INTERVAL_PER_REWRITE: u32 = 10;

/// The sink that keeps every export up to date.
pub struct Exports {
    targets: Vec<(Box<dyn Export>, PathBuf)>,
    record: Record,
    /// When the next rewrite may happen (none yet: at once).
    next: Option<Instant>,
}

impl Exports {
    /// Exports to `targets` (format name, path), seeded with the rows kept
    /// from a resumed scorecard.
    pub fn new(
        targets: &[(String, PathBuf)],
        candidate: &str,
        kept: &[Row],
    ) -> anyhow::Result<Self> {
        let mut record = Record {
            candidate: candidate.into(),
            ..Record::default()
        };
        for row in kept {
            record.summary.add(row);
            record.rows.push(row.clone());
        }
        let mut out = Vec::new();
        for (format, path) in targets {
            let make = FORMATS
                .iter()
                .find(|(name, _)| name == format)
                .map(|(_, make)| make)
                .with_context(|| format!("unknown export format {format:?}"))?;
            out.push((make(), path.clone()));
        }
        Ok(Self {
            targets: out,
            record,
            next: None,
        })
    }

    fn write_all(&mut self) -> anyhow::Result<()> {
        let start = Instant::now();
        for (export, path) in &self.targets {
            let bytes = export.render(&self.record)?;
            write_atomically(path, &bytes)?;
        }
        let took = start.elapsed();
        self.next = Some(Instant::now() + MIN_INTERVAL.max(took * INTERVAL_PER_REWRITE));
        Ok(())
    }
}

impl Sink for Exports {
    fn event(&mut self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::RunStarted { .. } => self.write_all(),
            Event::CaseStarted { .. } | Event::CasesWithdrawn { .. } => Ok(()),
            Event::CaseFinished { row } | Event::CaseCancelled { row } => {
                self.record.summary.add(row);
                self.record.rows.push((**row).clone());
                if self.next.is_none_or(|t| Instant::now() >= t) {
                    self.write_all()?;
                }
                Ok(())
            }
            Event::RunFinished { summary } => {
                self.record.summary = summary.clone();
                self.record.finished = true;
                self.write_all()
            }
        }
    }
}

/// `s` as a file name: every character but ASCII letters, digits, `-` and
/// `_` made `_` (a submission id as a results folder, say).
pub fn safe_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `value` as pretty JSON with a final newline: every JSON file the
/// harness writes for people and platforms.
pub fn pretty_json(value: &impl serde::Serialize) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// readable by its owner alone (rw-------): what a run writes holds
/// students' verdicts and answers, and no case run as another user may
/// read it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600));
    }
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::outcome::Verdict;

    /// A small finished run: three verdicts over two suites.
    pub fn record() -> Record {
        let mut rows = Vec::new();
        for (suite, case, verdict, detail) in [
            ("toy/easy", "2x2-1.txt", Verdict::Accepted, ""),
            (
                "toy/easy",
                "3x2-9.txt",
                Verdict::WrongAnswer,
                "lights still on after 1 moves (2 lit)",
            ),
            (
                "toy/hard",
                "dads+dads.goal",
                Verdict::TimeLimit,
                "still running after 80s",
            ),
        ] {
            let mut r = Row::new("alice", suite.split('/').next().unwrap(), suite, case);
            r.verdict = verdict;
            r.detail = detail.into();
            r.wall_ms = Some(12.5);
            r.exit_code = Some(0);
            rows.push(r);
        }
        let mut summary = Summary::default();
        for r in &rows {
            summary.add(r);
        }
        summary.elapsed = Duration::from_millis(1500);
        Record {
            candidate: "alice".into(),
            rows,
            summary,
            finished: true,
        }
    }

    #[test]
    fn targets_parse() {
        let all = format_names();
        assert_eq!(
            parse_target("json:out/r.json", &all).unwrap(),
            ("json".to_string(), PathBuf::from("out/r.json"))
        );
        assert_eq!(
            parse_target("xml:r.xml", &all).unwrap_err().to_string(),
            "unknown export format \"xml\" (known: json, junit, gradescope)"
        );
        assert!(parse_target("json", &all).is_err());
        assert!(parse_target("json:", &all).is_err());
        assert_eq!(
            parse_target("junit:r.xml", &["json"])
                .unwrap_err()
                .to_string(),
            "unknown export format \"junit\" (known: json)"
        );
    }
}
