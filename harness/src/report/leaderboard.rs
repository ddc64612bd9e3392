//! Reading a contest leaderboard back as rows (for `compare` and
//! `report`): one per entry and case, the median as both times,
//! `accepted` when solved, else `time-limit`.

use anyhow::{Context, bail};

use crate::outcome::{Row, Verdict};

/// Whether a file's `text` is a leaderboard (its header, or the comment
/// lines before it), not a scorecard.
pub fn is_leaderboard(text: &[u8]) -> bool {
    text.starts_with(b"#") || text.starts_with(b"rank,entry")
}

/// The rows of a leaderboard (for `compare`): one per entry and case, the
/// median as both times, `accepted` when solved, else `time-limit`.
pub fn read_leaderboard(text: &str) -> anyhow::Result<Vec<Row>> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    let header = reader.headers()?.clone();
    let fixed = 5;
    if header.get(0) != Some("rank") || header.get(1) != Some("entry") {
        bail!("not a leaderboard: its header does not start with rank,entry");
    }
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.with_context(|| format!("line {}", i + 2))?;
        let entry = crate::outcome::unguard_cell(rec.get(1).unwrap_or_default());
        for (col, value) in header.iter().zip(rec.iter()).skip(fixed) {
            let col = crate::outcome::unguard_cell(col);
            let (suite, case) = col.rsplit_once('/').unwrap_or(("leaderboard", col));
            let mut row = Row::new(entry, "", suite, case);
            match value.parse::<f64>() {
                Ok(s) => {
                    row.verdict = Verdict::Accepted;
                    row.wall_ms = Some(s * 1000.0);
                    row.cpu_ms = Some(s * 1000.0);
                }
                Err(_) => {
                    row.verdict = Verdict::TimeLimit;
                    row.detail = value.to_string();
                }
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Per case (candidate, suite, case), the spread of its runs in
/// milliseconds (their median absolute deviation): what `compare` takes as
/// the noise a time difference must clear.
pub type Spreads = std::collections::BTreeMap<(String, String, String), f64>;

/// The spreads of the leaderboard at `path`, from its sidecar JSON (every
/// counted run, `mad_s` per entry and case). Empty for a scorecard (one run
/// a case: no spread) or a leaderboard whose sidecar is gone; an error
/// when the sidecar is there but cannot be read.
pub fn read_spreads(path: &std::path::Path) -> anyhow::Result<Spreads> {
    let mut out = Spreads::new();
    let side = details_path(path);
    let is_board = std::fs::read(path).is_ok_and(|b| is_leaderboard(&b));
    if !is_board || !side.exists() {
        return Ok(out);
    }
    let text = std::fs::read_to_string(&side)
        .with_context(|| format!("cannot read {}", side.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not the leaderboard's JSON", side.display()))?;
    for entry in json["entries"].as_array().into_iter().flatten() {
        let name = entry["entry"].as_str().unwrap_or_default();
        for case in entry["cases"].as_array().into_iter().flatten() {
            let (Some(full), Some(mad)) = (case["case"].as_str(), case["mad_s"].as_f64()) else {
                continue;
            };
            if case["runs_s"].as_array().is_some_and(|r| r.len() < 2) {
                continue;
            }
            let (suite, id) = full.rsplit_once('/').unwrap_or(("leaderboard", full));
            out.insert((name.into(), suite.into(), id.into()), mad * 1000.0);
        }
    }
    Ok(out)
}

/// Where the sidecar of the leaderboard at `path` goes: beside it, as
/// `.json` (`board.csv`: `board.json`).
pub fn details_path(path: &std::path::Path) -> std::path::PathBuf {
    let side = path.with_extension("json");
    if side == path {
        let mut s = path.as_os_str().to_owned();
        s.push(".details.json");
        s.into()
    } else {
        side
    }
}
