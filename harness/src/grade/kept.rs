//! Where `--keep-output DIR` keeps each row's stdout and stderr, and the
//! keeping.

use std::path::{Path, PathBuf};

use crate::executor::RunResult;
use crate::outcome::Row;

/// Where `--keep-output DIR` keeps a row's stdout and stderr:
/// `DIR/<candidate>/<suite>/<case>.stdout` and `.stderr`, every path part
/// made safe (no `..`, no separators of its own).
pub fn output_files(dir: &Path, candidate: &str, suite: &str, case: &str) -> (PathBuf, PathBuf) {
    let base = output_path(dir, candidate, suite, case);
    let with = |ext: &str| {
        let mut s = base.as_os_str().to_owned();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    };
    (with("stdout"), with("stderr"))
}

fn output_path(dir: &Path, candidate: &str, suite: &str, case: &str) -> PathBuf {
    let safe = |s: &str| -> String {
        let t: String = s
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if t.is_empty() || t.chars().all(|c| c == '.') {
            format!("_{t}")
        } else {
            t
        }
    };
    let mut p = dir.join(safe(candidate));
    for part in suite.split('/') {
        p.push(safe(part));
    }
    p.push(safe(case));
    p
}

/// Keeps `run`'s outputs for `row` under `dir`: folders 0700, files 0600
/// (what a student printed is the TA's to read, no other student's).
pub(super) fn keep(dir: &Path, row: &Row, run: &RunResult) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let (out, err) = output_files(dir, &row.candidate, &row.suite, &row.case);
    if let Some(parent) = out.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)?;
    }
    for (path, bytes) in [(out, &run.stdout.bytes), (err, &run.stderr.bytes)] {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        std::io::Write::write_all(&mut file, bytes)?;
    }
    Ok(())
}
