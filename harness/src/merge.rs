//! `harness merge`: the scorecards of a sharded run (`--shard K/N`) made
//! one, as one run would have written it: every row once, sorted by
//! candidate, suite and case; rows found twice and rows missing (when the
//! run's suites or class are given) named.

use std::collections::{BTreeMap, BTreeSet};

use crate::outcome::Row;

/// A (candidate, suite, case) key.
pub type Key = (String, String, String);

/// The merged rows and what is wrong with them.
#[derive(Debug, Default)]
pub struct Merged {
    /// Every row once, sorted by key.
    pub rows: Vec<Row>,
    /// `candidate suite/case: in A and B` for each row found more than once.
    pub duplicated: Vec<String>,
    /// `candidate suite/case` for each row expected and not found.
    pub missing: Vec<String>,
}

impl Merged {
    /// Whether the shards make one whole run.
    pub fn complete(&self) -> bool {
        self.duplicated.is_empty() && self.missing.is_empty()
    }
}

/// Every key one run of each candidate in `rows` on `cases` would have
/// written (a run on suites, not a class).
pub fn expected_of_suites(rows: &[Row], cases: &[crate::job::Case]) -> BTreeSet<Key> {
    let candidates: BTreeSet<&str> = rows.iter().map(|r| r.candidate.as_str()).collect();
    candidates
        .iter()
        .flat_map(|c| {
            cases
                .iter()
                .map(move |j| (c.to_string(), j.suite.clone(), j.name.clone()))
        })
        .collect()
}

/// Merges `shards` (file name, rows); `expected`, when known, is every key
/// one run would have written. A row found twice keeps its first copy
/// (shards are named in the order given); the copies' files are named.
pub fn merge(shards: &[(String, Vec<Row>)], expected: Option<&BTreeSet<Key>>) -> Merged {
    let mut seen: BTreeMap<Key, (Row, Vec<String>)> = BTreeMap::new();
    for (file, rows) in shards {
        for row in rows {
            seen.entry(row.key())
                .and_modify(|(_, files)| files.push(file.clone()))
                .or_insert_with(|| (row.clone(), vec![file.clone()]));
        }
    }
    let show = |k: &Key| format!("{} {}/{}", k.0, k.1, k.2);
    let duplicated = seen
        .iter()
        .filter(|(_, (_, files))| files.len() > 1)
        .map(|(k, (_, files))| format!("{}: in {}", show(k), files.join(" and ")))
        .collect();
    let missing = expected
        .map(|e| {
            e.iter()
                .filter(|k| !seen.contains_key(*k))
                .map(show)
                .collect()
        })
        .unwrap_or_default();
    Merged {
        rows: seen.into_values().map(|(r, _)| r).collect(),
        duplicated,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(who: &str, case: &str) -> Row {
        Row::new(who, "toy", "toy/easy", case)
    }

    #[test]
    fn duplicates_and_gaps_are_named() {
        let shards = vec![
            ("s1.csv".to_string(), vec![row("a", "2"), row("a", "1")]),
            ("s2.csv".to_string(), vec![row("a", "3"), row("a", "1")]),
        ];
        let expected: BTreeSet<Key> = ["1", "2", "3", "4"]
            .iter()
            .map(|c| ("a".to_string(), "toy/easy".to_string(), c.to_string()))
            .collect();
        let m = merge(&shards, Some(&expected));
        let cases: Vec<&str> = m.rows.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(cases, ["1", "2", "3"], "once each, sorted");
        assert_eq!(m.duplicated, ["a toy/easy/1: in s1.csv and s2.csv"]);
        assert_eq!(m.missing, ["a toy/easy/4"]);
        assert!(!m.complete());
        let whole = merge(&shards[..1], None);
        assert!(whole.complete(), "nothing expected, nothing twice");
    }
}
