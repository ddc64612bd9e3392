//! The statistics of a contest: per entry and case the median, spread and
//! noise of its counted runs, and the ranking (most cases solved, then the
//! smallest PAR-2, ties inside the measured noise). Pure: rows in.

use super::Plan;
use crate::outcome::{Metric, Row, Verdict};

/// Median, minimum, maximum and median absolute deviation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// The median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
    /// The median absolute deviation from the median.
    pub mad: f64,
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn median_of(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| median(&v))
}

impl Stats {
    /// The statistics of `values` (at least one).
    pub fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let m = median(&v);
        let mut dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
        dev.sort_by(f64::total_cmp);
        Self {
            median: m,
            min: v.first().copied().unwrap_or(f64::NAN),
            max: v.last().copied().unwrap_or(f64::NAN),
            mad: median(&dev),
        }
    }

    /// Too noisy to rank on: a spread (MAD) over 5% of the median, or a run
    /// whose modified Z-score (0.6745 (x - median) / MAD, as hyperfine
    /// flags outliers) is over 3.5; a spread under a millisecond (the
    /// timers' own) never is.
    pub fn noisy(&self, values: &[f64]) -> bool {
        if self.median <= 0.0 || self.mad < 0.001 {
            return false;
        }
        self.mad / self.median > 0.05
            || values
                .iter()
                .any(|x| (0.6745 * (x - self.median) / self.mad).abs() > 3.5)
    }
}

/// One entry on one case, over its counted runs.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// `suite/case`.
    pub case: String,
    /// Its suite (an ICPC-ranked contest's problem).
    pub problem: String,
    /// Solved in most of its runs.
    pub solved: bool,
    /// Times of the runs, in seconds, by the metric.
    pub stats: Stats,
    /// Each counted run's time, in seconds, by the metric.
    pub runs: Vec<f64>,
    /// Too noisy to rank on.
    pub noisy: bool,
    /// The verdict of most runs (accepted when solved).
    pub verdict: Verdict,
    /// A detail of a run with that verdict.
    pub detail: String,
    /// Median peak memory, KiB.
    pub max_rss_kb: Option<u64>,
    /// Moves of a solved run.
    pub moves: Option<u64>,
    /// The fewest moves known.
    pub best_moves: Option<u64>,
    /// Median wall and CPU times, milliseconds (for the scorecard).
    pub medians_ms: (Option<f64>, Option<f64>),
}

/// One entry's place.
#[derive(Debug, Clone)]
pub struct Standing {
    /// The entry.
    pub entry: String,
    /// Its rank (1 is best; equal for a tie).
    pub rank: usize,
    /// Cases solved.
    pub solved: usize,
    /// PAR-2, seconds.
    pub par2: f64,
    /// The noise of its PAR-2 (or penalty): the sum of its solved cases'
    /// (solved problems' cases') MADs.
    pub noise: f64,
    /// Per case, in case order.
    pub cases: Vec<CaseResult>,
    /// Per problem, in case order, where the contest is ranked by
    /// problems ([`Plan::problems`]); else empty.
    pub problems: Vec<Problem>,
    /// The penalty time, seconds, where ranked by problems: the sum of its
    /// solved problems' times.
    pub penalty: f64,
}

/// One entry on one problem of an ICPC-ranked contest (a suite).
#[derive(Debug, Clone)]
pub struct Problem {
    /// The problem (its suite).
    pub name: String,
    /// Every case of it solved.
    pub solved: bool,
    /// The sum of its cases' median times, seconds.
    pub time: f64,
    /// The sum of its cases' MADs.
    pub noise: f64,
}

impl Standing {
    /// What it is ranked on: problems solved and the penalty time where
    /// ranked by problems, else cases solved and PAR-2; and that value's
    /// noise.
    pub fn ranked_on(&self) -> (usize, f64) {
        if self.problems.is_empty() {
            (self.solved, self.par2)
        } else {
            let solved = self.problems.iter().filter(|p| p.solved).count();
            (solved, self.penalty)
        }
    }
}

impl Standing {
    /// This standing as a course figures its extra credit from it.
    pub fn placed(&self) -> crate::course::contest::Placed {
        crate::course::contest::Placed {
            entry: self.entry.clone(),
            rank: self.rank,
            solved: self.solved,
            cases: self.cases.len(),
            par2: self.par2,
        }
    }
}

/// An entry's standing from its counted runs (`rows`, in any order;
/// `cases` the `suite/case` of every case, in order).
pub fn standing(entry: &str, rows: &[Row], cases: &[String], plan: &Plan) -> Standing {
    let limit = plan.time_limit.as_secs_f64();
    let results: Vec<CaseResult> = cases
        .iter()
        .map(|name| {
            let runs: Vec<&Row> = rows
                .iter()
                .filter(|r| &format!("{}/{}", r.suite, r.case) == name)
                .collect();
            case_result(name, &runs, plan)
        })
        .collect();
    let solved = results.iter().filter(|c| c.solved).count();
    let par2 = results
        .iter()
        .map(|c| {
            if c.solved {
                c.stats.median
            } else {
                2.0 * limit
            }
        })
        .sum();
    let mut noise = results
        .iter()
        .filter(|c| c.solved)
        .map(|c| c.stats.mad)
        .sum();
    // Ranked as the ICPC ranks: a problem solved when every case of it
    // is; its time in place of a live contest's minutes, the sum of its
    // cases' medians.
    let mut problems: Vec<Problem> = Vec::new();
    for c in results.iter().filter(|_| plan.problems) {
        if problems.last().is_none_or(|p| p.name != c.problem) {
            problems.push(Problem {
                name: c.problem.clone(),
                solved: true,
                time: 0.0,
                noise: 0.0,
            });
        }
        let p = problems.last_mut().expect("pushed above");
        p.solved &= c.solved;
        p.time += c.stats.median;
        p.noise += c.stats.mad;
    }
    let solved_ones = || problems.iter().filter(|p| p.solved);
    let penalty = solved_ones().map(|p| p.time).sum();
    if plan.problems {
        noise = solved_ones().map(|p| p.noise).sum();
    }
    Standing {
        entry: entry.into(),
        rank: 0,
        solved,
        par2,
        noise,
        cases: results,
        problems,
        penalty,
    }
}

/// One entry on case `name` (`suite/case`) over its counted `runs`: solved
/// when most runs are accepted, the majority verdict, the medians.
pub fn case_result(name: &str, runs: &[&Row], plan: &Plan) -> CaseResult {
    let limit = plan.time_limit.as_secs_f64();
    let times: Vec<f64> = runs
        .iter()
        .map(|r| {
            let ms = match plan.metric {
                Metric::Cpu => r.cpu_ms.or(r.wall_ms),
                Metric::Wall => r.wall_ms,
            };
            ms.unwrap_or(limit * 1000.0) / 1000.0
        })
        .collect();
    let accepted = runs
        .iter()
        .filter(|r| r.verdict == Verdict::Accepted)
        .count();
    let solved = !runs.is_empty() && accepted * 2 > runs.len();
    let stats = if times.is_empty() {
        Stats {
            median: limit,
            min: limit,
            max: limit,
            mad: 0.0,
        }
    } else {
        Stats::of(&times)
    };
    // The most common verdict, the first seen on a tie.
    let mut verdict = runs.first().map_or(Verdict::Cancelled, |r| r.verdict);
    let mut best = 0;
    for r in runs {
        let n = runs.iter().filter(|s| s.verdict == r.verdict).count();
        if n > best {
            best = n;
            verdict = r.verdict;
        }
    }
    if solved {
        verdict = Verdict::Accepted;
    }
    let mut rss: Vec<u64> = runs.iter().filter_map(|r| r.max_rss_kb).collect();
    rss.sort_unstable();
    CaseResult {
        case: name.to_string(),
        // (Its suite, from its rows; a name's first part where none ran.)
        problem: runs.first().map_or_else(
            || name.split('/').next().unwrap_or_default().to_owned(),
            |r| r.suite.clone(),
        ),
        solved,
        noisy: solved && stats.noisy(&times),
        stats,
        runs: times.clone(),
        verdict,
        detail: runs
            .iter()
            .find(|r| r.verdict == verdict)
            .map_or_else(String::new, |r| r.detail.clone()),
        max_rss_kb: rss.get(rss.len() / 2).copied(),
        moves: runs
            .iter()
            .find(|r| r.verdict == Verdict::Accepted)
            .and_then(|r| r.moves),
        best_moves: runs.iter().find_map(|r| r.best_moves),
        medians_ms: (
            median_of(runs.iter().filter_map(|r| r.wall_ms)),
            median_of(runs.iter().filter_map(|r| r.cpu_ms)),
        ),
    }
}

/// Sorts best first (most solved, then smallest PAR-2; by problems, most
/// solved, then the least penalty time) and gives ranks; an entry whose
/// PAR-2 (penalty) is within the noise of the one above it (the sum of
/// both noises) with as many solved shares its rank.
pub fn rank(standings: &mut [Standing]) {
    standings.sort_by(|a, b| {
        let (a_solved, a_time) = a.ranked_on();
        let (b_solved, b_time) = b.ranked_on();
        b_solved
            .cmp(&a_solved)
            .then(a_time.total_cmp(&b_time))
            .then(a.entry.cmp(&b.entry))
    });
    for i in 0..standings.len() {
        let (solved, time) = standings[i].ranked_on();
        standings[i].rank = if i > 0
            && solved == standings[i - 1].ranked_on().0
            && (time - standings[i - 1].ranked_on().1).abs()
                <= standings[i].noise + standings[i - 1].noise
        {
            standings[i - 1].rank
        } else {
            i + 1
        };
    }
}

/// Names as shown: with `anonymize`, `entry-<rank order>` for all but `me`.
pub fn shown_names(standings: &[Standing], anonymize: bool, me: Option<&str>) -> Vec<String> {
    standings
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if anonymize && Some(s.entry.as_str()) != me {
                format!("entry-{}", i + 1)
            } else {
                s.entry.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_and_noise() {
        let s = Stats::of(&[1.0, 1.1, 0.9, 1.0, 5.0]);
        assert_eq!((s.median, s.min, s.max), (1.0, 0.9, 5.0));
        assert!((s.mad - 0.1).abs() < 1e-9);
        assert!(s.noisy(&[1.0, 1.1, 0.9, 1.0, 5.0]), "5.0 is an outlier");
        let calm = [1.0, 1.01, 0.99, 1.0, 1.02];
        assert!(!Stats::of(&calm).noisy(&calm));
        let tiny = [0.003, 0.0035, 0.0028];
        assert!(
            !Stats::of(&tiny).noisy(&tiny),
            "under the timers' resolution"
        );
        assert_eq!(Stats::of(&[2.0, 4.0]).median, 3.0);
    }
}
