//! Reading a contest leaderboard back as rows (for `compare` and
//! `report`): one per entry and case, the median as both times,
//! `accepted` when solved, else `time-limit`.

use anyhow::{Context, bail};

use crate::outcome::{Row, Verdict};

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
