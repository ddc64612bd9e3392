//! The progress bar's ETA, from what the run has measured: builds by
//! the mean time of the builds finished; cases by the time each case took
//! (a class's case on earlier submissions: its mean), a case not yet
//! measured by the run's seconds per unit of expected cost (each case
//! counted once, so a fast case run a hundred times does not drown a
//! slow one run once); the work spread over the most jobs seen running at
//! once, never less than what the longest running job has left. A kind
//! of job with work left and no measurement gives no figure (`--`), or a
//! lower bound (`+`) where the other kind has one.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A job's key: its suite and case (a class's rows share them across
/// submissions).
type Key = (String, String);

/// The ETA's measurements.
#[derive(Default)]
pub(super) struct Eta {
    /// Builds to run, and cases (with their expected cost).
    builds: usize,
    cases: usize,
    case_cost: f64,
    /// Finished so far.
    builds_done: usize,
    cases_done: usize,
    case_cost_done: f64,
    /// Seconds of the builds measured, and how many.
    build_secs: f64,
    builds_measured: usize,
    /// Each case key measured: its seconds, runs, and expected cost (a
    /// class's only: its keys repeat, one per case of the plan; a single
    /// candidate's never do, and a million of them would cost a hundred
    /// megabytes to remember).
    keys: HashMap<Key, (f64, u32, f64)>,
    /// Whether cases are measured by key ([`Eta::keys`]), or only in all.
    by_key: bool,
    /// The cases measured in all: their seconds and expected cost.
    measured: (f64, f64),
    /// Jobs running: key (of which candidate), build or not, expected
    /// cost, since when.
    running: Vec<(String, Key, bool, f64, Instant)>,
    /// The most jobs seen running at once.
    slots: usize,
}

/// What the bar shows: a figure, or a lower bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Left {
    /// About this long.
    About(Duration),
    /// At least this long (one kind of job has no measurement yet).
    AtLeast(Duration),
}

impl Eta {
    /// The run will run `jobs` jobs, `builds` of them builds, of expected
    /// cost `cost` in all (a build costs 1).
    pub fn planned(&mut self, jobs: usize, builds: usize, cost: f64) {
        *self = Self {
            builds,
            cases: jobs.saturating_sub(builds),
            case_cost: (cost - builds as f64).max(0.0),
            by_key: builds > 0,
            ..Self::default()
        };
    }

    /// `cases` of expected cost `cost` will not run after all.
    pub fn withdrawn(&mut self, cases: usize, cost: f64) {
        self.cases = self.cases.saturating_sub(cases);
        self.case_cost = (self.case_cost - cost).max(0.0);
    }

    /// A job started at `now`.
    pub fn started(&mut self, who: &str, key: Key, build: bool, cost: f64, now: Instant) {
        self.running.push((who.to_string(), key, build, cost, now));
        self.slots = self.slots.max(self.running.len());
    }

    /// A job finished at `now` (one that never started, served from a
    /// store, counts as done and measures nothing).
    pub fn finished(&mut self, who: &str, key: &Key, build: bool, now: Instant) {
        let ran = self
            .running
            .iter()
            .position(|(w, k, b, _, _)| w == who && k == key && *b == build)
            .map(|i| self.running.remove(i));
        if build {
            self.builds_done += 1;
        } else {
            self.cases_done += 1;
        }
        let Some((_, _, _, cost, since)) = ran else {
            if !build {
                self.case_cost_done += self.mean_cost();
            }
            return;
        };
        let secs = now.saturating_duration_since(since).as_secs_f64();
        if build {
            self.build_secs += secs;
            self.builds_measured += 1;
        } else {
            self.case_cost_done += cost;
            self.measured.0 += secs;
            self.measured.1 += cost;
            if self.by_key {
                let e = self.keys.entry(key.clone()).or_insert((0.0, 0, cost));
                e.0 += secs;
                e.1 += 1;
            }
        }
    }

    /// The expected cost of a case not known (the run's mean).
    fn mean_cost(&self) -> f64 {
        if self.cases == 0 {
            1.0
        } else {
            self.case_cost / self.cases as f64
        }
    }

    /// Seconds per unit of expected cost over the cases measured, each
    /// key once (its mean).
    fn rate(&self) -> Option<f64> {
        if !self.by_key {
            let (secs, cost) = self.measured;
            return (cost > 0.0).then(|| secs / cost);
        }
        let (secs, cost) = self
            .keys
            .values()
            .fold((0.0, 0.0), |(s, c), (sum, n, cost)| {
                (s + sum / f64::from(*n), c + cost)
            });
        (cost > 0.0).then(|| secs / cost)
    }

    /// A job's expected seconds, where there is a basis.
    fn expected(&self, key: &Key, build: bool, cost: f64) -> Option<f64> {
        if build {
            return (self.builds_measured > 0)
                .then(|| self.build_secs / self.builds_measured as f64);
        }
        match self.keys.get(key) {
            Some((sum, n, _)) => Some(sum / f64::from(*n)),
            None => self.rate().map(|r| r * cost),
        }
    }

    /// The time left at `now`: `None` without any basis.
    pub fn left(&self, now: Instant) -> Option<Left> {
        let mut known = true;
        let mut work = 0.0;
        let mut longest: f64 = 0.0;
        // The running jobs: what each has left (one past its expectation
        // is given as long again as it has run: it is slow, not done).
        let (mut run_builds, mut run_cases, mut run_cost) = (0, 0, 0.0);
        for (_, key, build, cost, since) in &self.running {
            let ran = now.saturating_duration_since(*since).as_secs_f64();
            if *build {
                run_builds += 1;
            } else {
                run_cases += 1;
                run_cost += cost;
            }
            match self.expected(key, *build, *cost) {
                Some(e) => {
                    let rest = if e > ran { e - ran } else { ran };
                    work += rest;
                    longest = longest.max(rest);
                }
                None => known = false,
            }
        }
        let builds_left = self.builds.saturating_sub(self.builds_done + run_builds);
        if builds_left > 0 {
            match self.expected(&Key::default(), true, 1.0) {
                Some(each) => work += each * builds_left as f64,
                None => known = false,
            }
        }
        let cases_left = self.cases.saturating_sub(self.cases_done + run_cases);
        if cases_left > 0 {
            let cost = (self.case_cost - self.case_cost_done - run_cost).max(0.0);
            match self.rate() {
                Some(r) => work += r * cost,
                None => known = false,
            }
        }
        let measured = self.builds_measured > 0 || self.measured.1 > 0.0;
        if !measured {
            return None;
        }
        let spread = work / self.slots.max(1) as f64;
        let secs = spread.max(longest).max(
            // Never 0 while a job is left.
            if builds_left + cases_left + self.running.len() > 0 {
                1.0
            } else {
                0.0
            },
        );
        let d = Duration::from_secs_f64(secs);
        Some(if known {
            Left::About(d)
        } else {
            Left::AtLeast(d)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class simulated on `slots` job slots: each submission's build
    /// (seconds given), then, once every build is done, each
    /// submission's cases (the same keys for all, seconds given per key):
    /// at every finish, the ETA against the truth.
    fn simulate(
        builds: &[f64],
        cases: &[(f64, f64)],
        slots: usize,
    ) -> Vec<(&'static str, String, Option<Left>, f64)> {
        let t0 = Instant::now();
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        let subs = builds.len();
        let mut eta = Eta::default();
        let cost: f64 = subs as f64 + subs as f64 * cases.iter().map(|(_, c)| c).sum::<f64>();
        eta.planned(subs + subs * cases.len(), subs, cost);
        // The jobs in the order they start, each: who, key, build, cost, secs.
        let mut jobs: Vec<(String, Key, bool, f64, f64)> = Vec::new();
        for (i, b) in builds.iter().enumerate() {
            jobs.push((format!("s{i}"), Key::default(), true, 1.0, *b));
        }
        let first_cases = jobs.len();
        for i in 0..subs {
            for (k, (secs, cost)) in cases.iter().enumerate() {
                jobs.push((
                    format!("s{i}"),
                    ("suite".into(), format!("c{k}")),
                    false,
                    *cost,
                    *secs,
                ));
            }
        }
        // A list scheduler: each job on the slot free first (cases only
        // after every build, as a class runs them).
        let mut free = vec![0.0f64; slots];
        let mut ends = Vec::new();
        let builds_end = {
            let mut f = free.clone();
            for j in &jobs[..first_cases] {
                let s = f.iter_mut().min_by(|a, b| a.total_cmp(b)).unwrap();
                *s += j.4;
            }
            f.iter().cloned().fold(0.0, f64::max)
        };
        for (n, j) in jobs.iter().enumerate() {
            let s = free.iter_mut().min_by(|a, b| a.total_cmp(b)).unwrap();
            if n == first_cases {
                *s = s.max(builds_end);
            }
            let start = if n >= first_cases {
                s.max(builds_end)
            } else {
                *s
            };
            *s = start + j.4;
            ends.push((start, start + j.4, n));
        }
        let end = ends.iter().map(|e| e.1).fold(0.0, f64::max);
        // Events in time order: starts before finishes at one instant.
        let mut events: Vec<(f64, bool, usize)> = Vec::new();
        for (s, e, n) in &ends {
            events.push((*s, false, *n));
            events.push((*e, true, *n));
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut seen = Vec::new();
        for (t, finish, n) in events {
            let (who, key, build, cost, _) = &jobs[n];
            if finish {
                eta.finished(who, key, *build, at(t));
                let kind = if *build { "build" } else { "case" };
                seen.push((kind, key.1.clone(), eta.left(at(t)), end - t));
            } else {
                eta.started(who, key.clone(), *build, *cost, at(t));
            }
        }
        seen
    }

    /// An uneven class: builds of 2 s and 40 s, cases of 0.05 s and
    /// 6 s of the same expected cost, on four slots; after the first
    /// few of each kind (builds, and each case on three submissions),
    /// every figure within 3x of the truth, and before a case finished,
    /// a lower bound never over 3x.
    #[test]
    fn an_uneven_class_s_eta_stays_within_three_times_the_truth() {
        let builds: Vec<f64> = (0..40)
            .map(|i| if i % 3 == 0 { 40.0 } else { 2.0 })
            .collect();
        let cases = [
            (0.05, 1.0),
            (6.0, 1.0),
            (0.05, 1.0),
            (0.3, 2.0),
            (0.05, 1.0),
        ];
        let seen = simulate(&builds, &cases, 4);
        let mut shown = 0;
        let (mut builds_done, mut cases_done) = (0, 0);
        let mut each: HashMap<String, usize> = HashMap::new();
        for (kind, key, left, truth) in seen {
            if kind == "build" {
                builds_done += 1;
            } else {
                cases_done += 1;
                *each.entry(key).or_default() += 1;
            }
            // A few of each case measured (the class's first submissions).
            let few = each.len() == cases.len() && each.values().all(|n| *n >= 3);
            // The first few of each kind, and the last second, aside.
            if builds_done < 8 || truth < 1.0 {
                continue;
            }
            match left {
                // While no case is measured: a lower bound, never over.
                Some(Left::AtLeast(d)) => {
                    assert_eq!(cases_done, 0);
                    assert!(d.as_secs_f64() <= 3.0 * truth, "{d:?} against {truth}");
                }
                Some(Left::About(d)) if few => {
                    shown += 1;
                    let ratio = d.as_secs_f64() / truth;
                    assert!(
                        (1.0 / 3.0..=3.0).contains(&ratio),
                        "{kind} {builds_done}/{cases_done}: ETA {d:?}, truth {truth:.1}s"
                    );
                }
                Some(Left::About(_)) => {}
                None => panic!("no figure after {builds_done} builds"),
            }
        }
        assert!(shown > 100, "{shown}");
    }

    /// A single candidate's run (no builds, every case once): cases not
    /// measured yet weigh by their expected cost; no figure before one
    /// finished; a job past its expectation is given as long again.
    #[test]
    fn cases_measured_once_weigh_by_expected_cost() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut eta = Eta::default();
        eta.planned(3, 0, 10.0);
        let key = |c: &str| ("s".to_string(), c.to_string());
        eta.started("c", key("a"), false, 1.0, t0);
        assert_eq!(eta.left(at(1)), None, "no basis yet");
        eta.finished("c", &key("a"), false, at(2));
        // 9 units left at 2 s a unit.
        assert_eq!(eta.left(at(2)), Some(Left::About(Duration::from_secs(18))));
        eta.started("c", key("b"), false, 8.0, at(2));
        // b: 16 s expected, 1 left.
        assert_eq!(eta.left(at(3)), Some(Left::About(Duration::from_secs(17))));
        // b past its 16 s: as long again as it ran.
        assert_eq!(eta.left(at(22)), Some(Left::About(Duration::from_secs(22))));
        // A single candidate's cases never repeat: none is remembered by
        // key (a million would cost a hundred megabytes).
        eta.finished("c", &key("b"), false, at(23));
        assert!(eta.keys.is_empty());
        // A class's builds, measured, with cases to come: a lower bound.
        let mut eta = Eta::default();
        eta.planned(4, 2, 6.0);
        eta.started("x", Key::default(), true, 1.0, t0);
        eta.finished("x", &Key::default(), true, at(10));
        assert_eq!(
            eta.left(at(10)),
            Some(Left::AtLeast(Duration::from_secs(10)))
        );
    }
}
