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

pub(super) fn keep(dir: &Path, row: &Row, run: &RunResult) -> std::io::Result<()> {
    let (out, err) = output_files(dir, &row.candidate, &row.suite, &row.case);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(out, &run.stdout.bytes)?;
    std::fs::write(err, &run.stderr.bytes)
}
