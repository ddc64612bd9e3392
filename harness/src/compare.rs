//! `harness compare`: what changed between two scorecards (two runs of the
//! same suites, two class runs, two contest leaderboards), case by case.
//! Pure: rows in, changes out; `main` prints and exports them.

pub mod summary;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::outcome::{Metric, Row, Verdict};
use crate::report::Spreads;

/// The kinds of change, in the order they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Accepted before, not now.
    NewlyFailing,
    /// In the baseline, not in the new scorecard.
    Missing,
    /// Slower beyond the threshold and the minimum delta.
    Slower,
    /// More moves than before (both accepted).
    MoreMoves,
    /// Not accepted before or now, with another verdict.
    VerdictChanged,
    /// Not accepted before, accepted now.
    NewlyPassing,
    /// Faster beyond the threshold and the minimum delta.
    Faster,
    /// Fewer moves than before.
    FewerMoves,
    /// In the new scorecard only.
    Added,
}

impl Kind {
    /// Whether the change is a regression (exit 1).
    pub fn regressed(self) -> bool {
        matches!(
            self,
            Kind::NewlyFailing | Kind::Missing | Kind::Slower | Kind::MoreMoves
        )
    }

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::NewlyFailing => "newly-failing",
            Kind::Missing => "missing",
            Kind::Slower => "slower",
            Kind::MoreMoves => "more-moves",
            Kind::VerdictChanged => "verdict-changed",
            Kind::NewlyPassing => "newly-passing",
            Kind::Faster => "faster",
            Kind::FewerMoves => "fewer-moves",
            Kind::Added => "added",
        }
    }
}

/// When a time difference counts.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// Relative change, as a fraction (0.2 for 20%).
    pub relative: f64,
    /// Absolute change.
    pub min_delta: Duration,
    /// The time compared.
    pub metric: Metric,
    /// Where the runs' spread is known (a contest's runs), a time change
    /// counts only beyond this many of its standard deviations: the
    /// MADs of both sides, as standard deviations (x 1.4826), combined.
    pub noise: f64,
}

/// One side of a comparison: its rows, and the spread of each case's runs
/// where it had several (a leaderboard's sidecar; a scorecard has one run
/// a case, so none).
#[derive(Debug, Clone, Default)]
pub struct Runs {
    /// The rows, one per case (a case listed twice keeps its last row).
    pub rows: Vec<Row>,
    /// The spread of each case's runs, in milliseconds.
    pub spread: Spreads,
}

impl From<Vec<Row>> for Runs {
    fn from(rows: Vec<Row>) -> Self {
        Self {
            rows,
            spread: Spreads::new(),
        }
    }
}

/// One side of a change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The verdict.
    pub verdict: Verdict,
    /// The compared time, in milliseconds.
    pub ms: Option<f64>,
    /// Moves given.
    pub moves: Option<u64>,
    /// Why, for a case not accepted.
    pub detail: String,
    /// The spread (MAD) of its runs, in milliseconds, when it had several.
    pub mad_ms: Option<f64>,
}

impl Side {
    fn of(row: &Row, metric: Metric, spread: &Spreads) -> Self {
        Self {
            mad_ms: spread.get(&row.key()).copied(),
            verdict: row.verdict,
            ms: match metric {
                Metric::Wall => row.wall_ms,
                Metric::Cpu => row.cpu_ms.or(row.wall_ms),
            },
            moves: row.moves,
            detail: row.detail.clone(),
        }
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// What changed.
    pub kind: Kind,
    /// The candidate (submission, entry).
    pub candidate: String,
    /// The suite.
    pub suite: String,
    /// The case.
    pub case: String,
    /// Before, when the case was there.
    pub base: Option<Side>,
    /// After, when the case is there.
    pub new: Option<Side>,
}

/// Every change, and the tallies.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comparison {
    /// Changes, regressions first, then by candidate, suite and case.
    pub changes: Vec<Change>,
    /// Changes per kind.
    pub counts: BTreeMap<&'static str, usize>,
    /// Cases in both scorecards.
    pub common: usize,
    /// Whether anything regressed.
    pub regressed: bool,
    /// Cases in both whose runs' spread was known on at least one side.
    pub with_spread: usize,
    /// Time changes beyond the thresholds but within the runs' noise:
    /// not reported as `slower` or `faster`.
    pub within_noise: usize,
}

/// The smallest time difference, in milliseconds, that the runs' noise
/// does not explain: `noise` standard deviations of the difference, each
/// side's MAD scaled to a standard deviation (x 1.4826, as for a normal
/// spread). None when neither side knows its spread.
pub fn noise_margin(base_mad: Option<f64>, new_mad: Option<f64>, noise: f64) -> Option<f64> {
    if base_mad.is_none() && new_mad.is_none() {
        return None;
    }
    let (b, n) = (
        base_mad.unwrap_or_default() * 1.4826,
        new_mad.unwrap_or_default() * 1.4826,
    );
    Some(noise * (b * b + n * n).sqrt())
}

/// Compares `base` with `new`, case by case (a case is candidate, suite
/// and case; a case listed twice keeps its last row, as `--resume` does).
pub fn compare(base: &Runs, new: &Runs, t: &Thresholds) -> Comparison {
    let index = |rows: &[Row]| -> BTreeMap<(String, String, String), Row> {
        rows.iter().map(|r| (r.key(), r.clone())).collect()
    };
    let (base_spread, new_spread) = (&base.spread, &new.spread);
    let (base, new) = (index(&base.rows), index(&new.rows));
    let mut out = Comparison::default();
    let mut push =
        |kind: Kind, key: &(String, String, String), b: Option<&Row>, n: Option<&Row>| {
            out.changes.push(Change {
                kind,
                candidate: key.0.clone(),
                suite: key.1.clone(),
                case: key.2.clone(),
                base: b.map(|r| Side::of(r, t.metric, base_spread)),
                new: n.map(|r| Side::of(r, t.metric, new_spread)),
            });
        };
    let (mut common, mut with_spread, mut within_noise) = (0, 0, 0);
    for (key, b) in &base {
        let Some(n) = new.get(key) else {
            push(Kind::Missing, key, Some(b), None);
            continue;
        };
        common += 1;
        let margin = noise_margin(
            base_spread.get(key).copied(),
            new_spread.get(key).copied(),
            t.noise,
        );
        with_spread += usize::from(margin.is_some());
        let (ba, na) = (
            b.verdict == Verdict::Accepted,
            n.verdict == Verdict::Accepted,
        );
        let kind = match (ba, na) {
            (true, false) => Some(Kind::NewlyFailing),
            (false, true) => Some(Kind::NewlyPassing),
            (false, false) if b.verdict != n.verdict => Some(Kind::VerdictChanged),
            (false, false) => None,
            (true, true) => None,
        };
        if let Some(kind) = kind {
            push(kind, key, Some(b), Some(n));
            continue;
        }
        if !(ba && na) {
            continue;
        }
        // CPU time where both have it (a scorecard without isolation may
        // have none): else both wall times, never one of each.
        let (bt, nt) = match (t.metric, b.cpu_ms, n.cpu_ms) {
            (Metric::Cpu, Some(bc), Some(nc)) => (Some(bc), Some(nc)),
            _ => (b.wall_ms, n.wall_ms),
        };
        if let (Some(bt), Some(nt)) = (bt, nt) {
            let delta = nt - bt;
            let beyond = delta.abs() >= t.min_delta.as_secs_f64() * 1000.0
                && delta.abs() > t.relative * bt.max(f64::MIN_POSITIVE);
            let noise = margin.is_some_and(|m| delta.abs() <= m);
            within_noise += usize::from(beyond && noise);
            if beyond && !noise {
                push(
                    if delta > 0.0 {
                        Kind::Slower
                    } else {
                        Kind::Faster
                    },
                    key,
                    Some(b),
                    Some(n),
                );
            }
        }
        match (b.moves, n.moves) {
            (Some(bm), Some(nm)) if nm > bm => push(Kind::MoreMoves, key, Some(b), Some(n)),
            (Some(bm), Some(nm)) if nm < bm => push(Kind::FewerMoves, key, Some(b), Some(n)),
            _ => {}
        }
    }
    for (key, n) in &new {
        if !base.contains_key(key) {
            push(Kind::Added, key, None, Some(n));
        }
    }
    out.common = common;
    out.with_spread = with_spread;
    out.within_noise = within_noise;
    out.changes.sort_by(|a, b| {
        (a.kind, &a.candidate, &a.suite, &a.case).cmp(&(b.kind, &b.candidate, &b.suite, &b.case))
    });
    for c in &out.changes {
        *out.counts.entry(c.kind.as_str()).or_default() += 1;
    }
    out.regressed = out.changes.iter().any(|c| c.kind.regressed());
    out
}

/// `20%`, `0.2` or `20` (percent) as a fraction.
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (t, 1.0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a percentage (20%)"))?;
    let v = if scale == 1.0 && v > 1.0 {
        v / 100.0
    } else {
        v / scale
    };
    if !(0.0..=100.0).contains(&v) || !v.is_finite() {
        return Err(format!("{text:?} is out of range"));
    }
    Ok(v)
}

/// The changes as a table for the terminal.
pub fn table(c: &Comparison) -> String {
    let side = |s: &Option<Side>| match s {
        None => "-".to_string(),
        Some(s) => {
            let mut t = s.verdict.to_string();
            if let Some(ms) = s.ms {
                t.push_str(&format!(" {ms:.1} ms"));
            }
            if let Some(mad) = s.mad_ms {
                t.push_str(&format!(" (MAD {mad:.1})"));
            }
            if let Some(m) = s.moves {
                t.push_str(&format!(" {m} moves"));
            }
            t
        }
    };
    let mut out = String::new();
    for ch in &c.changes {
        out.push_str(&format!(
            "{:>15}  {}  {}/{}: {} -> {}\n",
            ch.kind.as_str(),
            ch.candidate,
            ch.suite,
            ch.case,
            side(&ch.base),
            side(&ch.new)
        ));
    }
    let counts: Vec<String> = c.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    if c.with_spread > 0 {
        out.push_str(&format!(
            "{} cases with their runs' spread: {} time {} within its noise, not counted\n",
            c.with_spread,
            c.within_noise,
            if c.within_noise == 1 {
                "change"
            } else {
                "changes"
            }
        ));
    }
    out.push_str(&format!(
        "{} cases in both; {}; {}\n",
        c.common,
        if counts.is_empty() {
            "no change".to_string()
        } else {
            counts.join(", ")
        },
        if c.regressed {
            "REGRESSED"
        } else {
            "nothing regressed"
        }
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(case: &str, verdict: Verdict, ms: f64, moves: Option<u64>) -> Row {
        let mut r = Row::new("alice", "toy", "toy/easy", case);
        r.verdict = verdict;
        r.wall_ms = Some(ms);
        r.cpu_ms = Some(ms / 2.0);
        r.moves = moves;
        r
    }

    const T: Thresholds = Thresholds {
        relative: 0.2,
        min_delta: Duration::from_millis(50),
        metric: Metric::Wall,
        noise: 3.0,
    };

    #[test]
    fn every_kind_of_change() {
        use Verdict::*;
        let base = vec![
            row("same", Accepted, 100.0, Some(3)),
            row("fails", Accepted, 100.0, Some(3)),
            row("passes", WrongAnswer, 100.0, None),
            row("other", WrongAnswer, 100.0, None),
            row("slow", Accepted, 100.0, Some(3)),
            row("fast", Accepted, 1000.0, Some(3)),
            row("noise", Accepted, 100.0, Some(3)),
            row("tiny", Accepted, 10.0, Some(3)),
            row("longer", Accepted, 100.0, Some(3)),
            row("shorter", Accepted, 100.0, Some(5)),
            row("gone", Accepted, 100.0, Some(3)),
        ];
        let new = vec![
            row("same", Accepted, 100.0, Some(3)),
            row("fails", TimeLimit, 80_000.0, None),
            row("passes", Accepted, 100.0, Some(3)),
            row("other", RuntimeError, 100.0, None),
            row("slow", Accepted, 200.0, Some(3)),
            row("fast", Accepted, 500.0, Some(3)),
            row("noise", Accepted, 119.0, Some(3)),
            // 10 -> 40 ms: 4x, but under the 50 ms minimum delta.
            row("tiny", Accepted, 40.0, Some(3)),
            row("longer", Accepted, 100.0, Some(4)),
            row("shorter", Accepted, 100.0, Some(4)),
            row("new", Accepted, 100.0, Some(3)),
        ];
        let c = compare(&base.clone().into(), &new.clone().into(), &T);
        let got: Vec<(&str, &str)> = c
            .changes
            .iter()
            .map(|c| (c.kind.as_str(), c.case.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("newly-failing", "fails"),
                ("missing", "gone"),
                ("slower", "slow"),
                ("more-moves", "longer"),
                ("verdict-changed", "other"),
                ("newly-passing", "passes"),
                ("faster", "fast"),
                ("fewer-moves", "shorter"),
                ("added", "new"),
            ]
        );
        assert!(c.regressed);
        assert_eq!(c.common, 10);
        // CPU time: "slow" went 50 -> 100 ms, at the 50 ms minimum.
        let cpu = Thresholds {
            metric: Metric::Cpu,
            ..T
        };
        let c = compare(&base.into(), &new.into(), &cpu);
        assert!(
            c.changes
                .iter()
                .any(|c| c.kind == Kind::Slower && c.case == "slow")
        );
        assert!(table(&c).ends_with("REGRESSED\n"));
    }

    #[test]
    fn identical_scorecards_change_nothing() {
        let rows = vec![row("a", Verdict::Accepted, 5.0, Some(1))];
        let c = compare(&rows.clone().into(), &rows.clone().into(), &T);
        assert!(c.changes.is_empty() && !c.regressed);
        assert_eq!(table(&c), "1 cases in both; no change; nothing regressed\n");
        let fixed = compare(
            &vec![row("a", Verdict::WrongAnswer, 5.0, None)].into(),
            &rows.into(),
            &T,
        );
        assert!(!fixed.regressed, "only better");
    }

    /// A contest's runs: 100 ms against 130 ms is 30%, beyond the 20%
    /// threshold, but with runs spread by 10 ms (MAD) on each side the
    /// difference is within three standard deviations (62.9 ms): not
    /// slower. The same medians with a 1 ms spread are.
    #[test]
    fn a_time_change_within_the_runs_noise_is_not_counted() {
        let t = Thresholds {
            min_delta: Duration::from_millis(10),
            ..T
        };
        let spread = |mad: f64| -> Spreads {
            [(("alice".into(), "toy/easy".into(), "a".into()), mad)].into()
        };
        let side = |ms: f64, mad: f64| Runs {
            rows: vec![row("a", Verdict::Accepted, ms, None)],
            spread: spread(mad),
        };
        let c = compare(&side(100.0, 10.0), &side(130.0, 10.0), &t);
        assert!(c.changes.is_empty() && !c.regressed, "{c:?}");
        assert_eq!((c.with_spread, c.within_noise), (1, 1));
        assert_eq!(
            table(&c),
            "1 cases with their runs' spread: 1 time change within its noise, not counted\n\
             1 cases in both; no change; nothing regressed\n"
        );
        let c = compare(&side(100.0, 1.0), &side(130.0, 1.0), &t);
        assert_eq!(c.changes[0].kind, Kind::Slower);
        assert_eq!(c.within_noise, 0);
        assert!(table(&c).starts_with(
            "         slower  alice  toy/easy/a: accepted 100.0 ms (MAD 1.0) -> accepted 130.0 ms (MAD 1.0)\n"
        ));
        // One side's spread alone: its own noise (3 x 14.8 ms = 44.5 ms).
        let one = compare(
            &side(100.0, 10.0),
            &vec![row("a", Verdict::Accepted, 130.0, None)].into(),
            &t,
        );
        assert!(one.changes.is_empty());
        assert_eq!(noise_margin(None, None, 3.0), None);
        let m = noise_margin(Some(10.0), None, 3.0).unwrap();
        assert!((m - 44.478).abs() < 1e-9, "{m}");
        // --noise 0: the thresholds alone.
        let c = compare(
            &side(100.0, 10.0),
            &side(130.0, 10.0),
            &Thresholds { noise: 0.0, ..t },
        );
        assert_eq!(c.changes[0].kind, Kind::Slower);
    }

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("20%"), Ok(0.2));
        assert_eq!(parse_percent("0.2"), Ok(0.2));
        assert_eq!(parse_percent("20"), Ok(0.2));
        assert!(parse_percent("x").is_err());
        assert!(parse_percent("-5%").is_err());
    }
}
