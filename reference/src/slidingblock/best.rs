//! Best-known tables: per puzzle, the proven fewest moves (or the proof that
//! there is no solution), keyed by a fingerprint of the puzzle's content so
//! that a lookup works wherever its files sit and whatever they are called.
//!
//! A table is a CSV file with the header [`TABLE_HEADER`]; the project ships
//! `suites/slidingblock/optimal.csv` (the CS61BL easy and hard suites) and
//! `optimal.csv` beside each bundled suite's listing, all built in here.
//! `puzzlegen optimal` writes them.

use std::fmt::Write as _;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::tray::{Goal, Tray};

/// The columns of a best-known table.
pub const TABLE_HEADER: [&str; 9] = [
    "suite",
    "init",
    "goal",
    "fingerprint",
    "outcome",
    "optimal_moves",
    "states",
    "proof",
    "default_states",
];

/// The tables shipped with the project.
const SHIPPED: [(&str, &str); 3] = [
    (
        "suites/slidingblock/optimal.csv",
        include_str!("../../../suites/slidingblock/optimal.csv"),
    ),
    (
        "suites/slidingblock/easy/optimal.csv",
        include_str!("../../../suites/slidingblock/easy/optimal.csv"),
    ),
    (
        "suites/slidingblock/hard/optimal.csv",
        include_str!("../../../suites/slidingblock/hard/optimal.csv"),
    ),
];

/// One row: a puzzle and what is proven of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestKnown {
    /// The suite it comes from (for people; lookups use the fingerprint).
    pub suite: String,
    /// The initial tray's file name.
    pub init: String,
    /// The goal's file name.
    pub goal: String,
    /// [`fingerprint`] of tray and goal.
    pub fingerprint: String,
    /// What is proven.
    pub known: Known,
    /// States the proving search stored.
    pub states: u64,
    /// How it was proven, in a few words.
    pub proof: String,
    /// States the default (fast, not shortest) search stored: the
    /// difficulty a course picks cases by, the same on every machine (its
    /// seconds are in docs/slidingblock.md). Tables written before it have
    /// no such column.
    pub default_states: Option<u64>,
}

/// What a table knows of a puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// `solvable`: this many moves, and no fewer, reach the goal.
    Fewest(u64),
    /// `unsolvable`: every reachable state was seen; none meets the goal.
    NoSolution,
    /// `unproven`: the search ran out of room before an answer.
    Unproven,
}

impl Known {
    /// The fewest moves, when proven.
    pub fn fewest(self) -> Option<u64> {
        match self {
            Known::Fewest(m) => Some(m),
            Known::NoSolution | Known::Unproven => None,
        }
    }
}

/// A malformed table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TableError {
    /// 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// 16 hex digits of SHA-256 over the puzzle in a canonical text: the tray
/// size, its blocks sorted, then the goal's blocks sorted without repeats.
/// Block order in the files and file names do not change it.
pub fn fingerprint(tray: &Tray, goal: &Goal) -> String {
    let mut blocks = tray.blocks.clone();
    blocks.sort();
    let mut wanted = goal.blocks.clone();
    wanted.sort();
    wanted.dedup();
    let mut text = format!("{} {}\n", tray.height, tray.width);
    for b in &blocks {
        let _ = writeln!(text, "{b}");
    }
    text.push_str("goal\n");
    for b in &wanted {
        let _ = writeln!(text, "{b}");
    }
    let digest = Sha256::digest(text.as_bytes());
    digest[..8].iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Reads a table (header [`TABLE_HEADER`]).
pub fn parse_table(text: &str) -> Result<Vec<BestKnown>, TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i as u64 + 1;
        let bad = |message: String| TableError { line, message };
        let record = record.map_err(|e| bad(e.to_string()))?;
        let fields: Vec<&str> = record.iter().collect();
        if i == 0 {
            if fields != TABLE_HEADER && fields != TABLE_HEADER[..8] {
                return Err(bad(format!(
                    "expected the header {}",
                    TABLE_HEADER.join(",")
                )));
            }
            continue;
        }
        let (suite, init, goal, fingerprint, outcome, moves, states, proof, default_states) =
            match fields[..] {
                [su, i, g, f, o, m, s, p] => (su, i, g, f, o, m, s, p, ""),
                [su, i, g, f, o, m, s, p, d] => (su, i, g, f, o, m, s, p, d),
                _ => {
                    return Err(bad(format!(
                        "expected 8 or 9 fields, found {}",
                        fields.len()
                    )));
                }
            };
        let number = |what: &str, s: &str| {
            s.parse::<u64>()
                .map_err(|_| bad(format!("{what}: expected a count, found {s:?}")))
        };
        let known = match (outcome, moves) {
            ("solvable", m) => Known::Fewest(number("optimal_moves", m)?),
            ("unsolvable", "") => Known::NoSolution,
            ("unproven", "") => Known::Unproven,
            ("unsolvable" | "unproven", m) => {
                return Err(bad(format!(
                    "optimal_moves: only a solvable puzzle has one, found {m:?}"
                )));
            }
            (o, _) => {
                return Err(bad(format!(
                    "outcome: expected solvable, unsolvable or unproven, found {o:?}"
                )));
            }
        };
        if fingerprint.len() != 16 || !fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(format!(
                "fingerprint: expected 16 hex digits, found {fingerprint:?}"
            )));
        }
        rows.push(BestKnown {
            suite: suite.to_string(),
            init: init.to_string(),
            goal: goal.to_string(),
            fingerprint: fingerprint.to_string(),
            known,
            states: number("states", states)?,
            proof: proof.to_string(),
            default_states: match default_states {
                "" => None,
                d => Some(number("default_states", d)?),
            },
        });
    }
    Ok(rows)
}

/// Writes a table: the header, then one line per row.
pub fn format_table(rows: &[BestKnown]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let written: csv::Result<()> = (|| {
        writer.write_record(TABLE_HEADER)?;
        for r in rows {
            let (outcome, moves) = match r.known {
                Known::Fewest(m) => ("solvable", m.to_string()),
                Known::NoSolution => ("unsolvable", String::new()),
                Known::Unproven => ("unproven", String::new()),
            };
            writer.write_record([
                r.suite.as_str(),
                &r.init,
                &r.goal,
                &r.fingerprint,
                outcome,
                &moves,
                &r.states.to_string(),
                &r.proof,
                &r.default_states.map(|d| d.to_string()).unwrap_or_default(),
            ])?;
        }
        writer.flush()?;
        Ok(())
    })();
    written.expect("writing to memory cannot fail");
    let bytes = writer.into_inner().expect("flushed above");
    String::from_utf8(bytes).expect("every field is UTF-8")
}

/// The shipped tables' row for this puzzle, if any.
pub fn best_known(tray: &Tray, goal: &Goal) -> Option<&'static BestKnown> {
    static ROWS: OnceLock<Vec<BestKnown>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| {
        SHIPPED
            .iter()
            .flat_map(|(path, text)| {
                parse_table(text).unwrap_or_else(|e| panic!("{path}: {e} (shipped table)"))
            })
            .collect()
    });
    let key = fingerprint(tray, goal);
    rows.iter().find(|r| r.fingerprint == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slidingblock::parse::{Format, parse_goal, parse_tray};

    #[test]
    fn fingerprints_ignore_block_order_and_repeated_goals() {
        let t1 = parse_tray(&b"2 2\n0 0 0 0\n1 1 1 1\n"[..], Format::Corners).unwrap();
        let t2 = parse_tray(&b"2 2\n1 1 1 1\n0 0 0 0\n"[..], Format::Corners).unwrap();
        let g1 = parse_goal(&b"0 1 0 1\n"[..], Format::Corners, &t1).unwrap();
        let g2 = parse_goal(&b"0 1 0 1\n0 1 0 1\n"[..], Format::Corners, &t1).unwrap();
        let g3 = parse_goal(&b"1 0 1 0\n"[..], Format::Corners, &t1).unwrap();
        let f = fingerprint(&t1, &g1);
        assert_eq!(f.len(), 16);
        assert_eq!(f, fingerprint(&t2, &g2));
        assert_ne!(f, fingerprint(&t1, &g3));
    }

    #[test]
    fn tables_round_trip_and_bad_lines_are_named() {
        let rows = vec![
            BestKnown {
                suite: "s".into(),
                init: "a".into(),
                goal: "a.goal".into(),
                fingerprint: "0123456789abcdef".into(),
                known: Known::Fewest(7),
                states: 99,
                proof: "layered breadth-first".into(),
                default_states: Some(12),
            },
            BestKnown {
                suite: "s".into(),
                init: "b".into(),
                goal: "b.goal".into(),
                fingerprint: "fedcba9876543210".into(),
                known: Known::NoSolution,
                states: 3,
                proof: "every reachable state seen".into(),
                default_states: None,
            },
        ];
        let text = format_table(&rows);
        assert_eq!(
            text.lines().next(),
            Some("suite,init,goal,fingerprint,outcome,optimal_moves,states,proof,default_states")
        );
        assert_eq!(parse_table(&text).unwrap(), rows);
        // A table from before the difficulty column still reads.
        let old: String = text
            .lines()
            .map(|l| format!("{}\n", &l[..l.rfind(',').unwrap()]))
            .collect();
        let read = parse_table(&old).unwrap();
        assert_eq!(read[0].default_states, None);
        assert_eq!(read[0].known, Known::Fewest(7));
        let bad = text.replace(",7,", ",seven,");
        assert_eq!(
            parse_table(&bad).unwrap_err().to_string(),
            "line 2: optimal_moves: expected a count, found \"seven\""
        );
        let bad = text.replace("unsolvable,,", "unsolvable,4,");
        assert_eq!(
            parse_table(&bad).unwrap_err().to_string(),
            "line 3: optimal_moves: only a solvable puzzle has one, found \"4\""
        );
    }

    #[test]
    fn shipped_tables_parse() {
        for (path, text) in SHIPPED {
            let rows = parse_table(text).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert!(!rows.is_empty(), "{path} is empty");
        }
    }
}
