//! Sharding a run over machines: `--shard K/N` keeps the K-th of N
//! deterministic, cost-balanced parts of the work, so N independent runs
//! (Slurm array tasks, GNU parallel jobs) together grade everything once,
//! and `harness merge` puts their scorecards back together.
//!
//! A single candidate's run is split by case; a class run by submission
//! (each submission built once, in the shard that runs all its cases).
//! Parts are balanced by expected cost, longest first onto the least
//! loaded shard (LPT): a previous scorecard's times when given
//! (`--shard-costs`), else a process start per case plus the puzzle
//! files' sizes (bigger puzzles are the slower ones; hard cases spread
//! evenly). Every shard computes the same
//! partition from the same inputs.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::outcome::Row;

/// The K-th (1-based) of N shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which, 1 to `n`.
    pub k: usize,
    /// How many.
    pub n: usize,
}

/// The most shards.
pub const MAX_SHARDS: usize = 10_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("--shard takes K/N with 1 <= K <= N <= {MAX_SHARDS}, got {s:?}");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || k > n || n > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Self { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Which shard (0-based) each item goes to: items taken by cost, highest
/// first (ties by key), each onto the least loaded shard (ties: the lowest).
pub fn assign(items: &[(String, f64)], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        items[b]
            .1
            .total_cmp(&items[a].1)
            .then_with(|| items[a].0.cmp(&items[b].0))
    });
    let mut load = vec![0.0f64; n.max(1)];
    let mut out = vec![0; items.len()];
    for i in order {
        let (best, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .unwrap_or((0, &0.0));
        out[i] = best;
        load[best] += items[i].1.max(0.0);
    }
    out
}

/// Mean wall time per (suite, case) in a previous scorecard, and total
/// wall time per candidate (a class run's submissions).
pub struct Costs {
    /// Per (suite, case), ms.
    pub case: HashMap<(String, String), f64>,
    /// Per candidate, ms.
    pub candidate: HashMap<String, f64>,
}

impl Costs {
    /// From the rows of a previous scorecard.
    pub fn from_rows(rows: &[Row]) -> Self {
        let mut sums: HashMap<(String, String), (f64, usize)> = HashMap::new();
        let mut candidate: HashMap<String, f64> = HashMap::new();
        for r in rows {
            let ms = r.wall_ms.unwrap_or(0.0);
            let e = sums.entry((r.suite.clone(), r.case.clone())).or_default();
            e.0 += ms;
            e.1 += 1;
            *candidate.entry(r.candidate.clone()).or_default() += ms;
        }
        Self {
            case: sums
                .into_iter()
                .map(|(k, (s, n))| (k, s / n.max(1) as f64))
                .collect(),
            candidate,
        }
    }
}

pub use crate::job::SIZE_UNIT;

/// The items of `shard`, in their order: `key_cost` gives each item's key
/// (its name, which breaks ties) and expected cost.
pub fn select<T>(items: Vec<T>, shard: Shard, key_cost: impl Fn(&T) -> (String, f64)) -> Vec<T> {
    let costs: Vec<(String, f64)> = items.iter().map(key_cost).collect();
    let mine = keep(&costs, shard);
    items
        .into_iter()
        .zip(mine)
        .filter_map(|(item, k)| k.then_some(item))
        .collect()
}

/// A case's expected cost: its time in a previous scorecard, else a
/// process start plus one unit per [`SIZE_UNIT`] of its puzzle files.
pub fn case_cost(costs: Option<&Costs>, suite: &str, case: &str, files: &[PathBuf]) -> f64 {
    let known = costs.and_then(|c| c.case.get(&(suite.to_string(), case.to_string())).copied());
    known.unwrap_or_else(|| crate::job::size_cost(files))
}

/// A candidate's expected cost (a class's submission: built once, in the
/// shard that runs all its cases): its time in a previous scorecard, else
/// one unit.
pub fn candidate_cost(costs: Option<&Costs>, candidate: &str) -> f64 {
    costs
        .and_then(|c| c.candidate.get(candidate).copied())
        .unwrap_or(1.0)
}

/// Whether item `i` of `items` belongs to `shard`.
pub fn keep(items: &[(String, f64)], shard: Shard) -> Vec<bool> {
    assign(items, shard.n)
        .into_iter()
        .map(|s| s == shard.k - 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { k: 2, n: 4 }));
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "1/20000"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { k: 3, n: 8 }.to_string(), "3/8");
    }

    #[test]
    fn every_item_once_balanced_and_deterministic() {
        // Ten items of cost 1 to 10 over 3 shards: 55 in all.
        let items: Vec<(String, f64)> = (1..=10).map(|i| (format!("c{i:02}"), i as f64)).collect();
        let a = assign(&items, 3);
        assert_eq!(a, assign(&items, 3), "the same every time");
        let mut load = [0.0; 3];
        for (i, s) in a.iter().enumerate() {
            load[*s] += items[i].1;
        }
        let (lo, hi) = (
            load.iter().copied().fold(f64::MAX, f64::min),
            load.iter().copied().fold(0.0, f64::max),
        );
        assert!(hi - lo <= 2.0, "balanced: {load:?}");
        // The shards' keeps partition the items.
        let mut count = vec![0; items.len()];
        for k in 1..=3 {
            for (i, kept) in keep(&items, Shard { k, n: 3 }).into_iter().enumerate() {
                count[i] += usize::from(kept);
            }
        }
        assert!(count.iter().all(|&c| c == 1));
        // The two costliest cases land on different shards.
        assert_ne!(a[9], a[8]);
        // Equal costs: round-robin in key order.
        let even: Vec<(String, f64)> = (0..6).map(|i| (format!("s{i}"), 1.0)).collect();
        assert_eq!(assign(&even, 3), [0, 1, 2, 0, 1, 2]);
    }
}
