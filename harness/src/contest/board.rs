//! What a contest writes: the leaderboard CSV (plain), its sidecar JSON
//! (the machine it ran on, every run), the terminal table, and a
//! scorecard of medians.

use super::Plan;
use super::stats::{CaseResult, Standing};
use crate::outcome::{Metric, Row};

/// What the leaderboard says about the machine.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The CPU model.
    pub cpu: String,
    /// Cores used (jobs) and cores present.
    pub cores: (usize, usize),
    /// The kernel release.
    pub kernel: String,
    /// The frequency governor and turbo state, or why unknown.
    pub frequency: String,
    /// One-minute load average before and after.
    pub load: (f64, f64),
}

impl Environment {
    /// Reads what it can of this machine (the load after is filled later).
    pub fn read(jobs: usize) -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map_or_else(|_| "unknown".into(), |s| s.trim().to_string());
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .ok()
                .map(|s| s.trim().to_string())
        };
        let governor = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
        let turbo = read("/sys/devices/system/cpu/intel_pstate/no_turbo")
            .map(|v| {
                if v == "1" {
                    "turbo off".to_string()
                } else {
                    "turbo on".to_string()
                }
            })
            .or_else(|| {
                read("/sys/devices/system/cpu/cpufreq/boost").map(|v| {
                    if v == "1" {
                        "boost on".to_string()
                    } else {
                        "boost off".to_string()
                    }
                })
            });
        let frequency = match (governor, turbo) {
            (None, None) => "frequency scaling and turbo cannot be read (a VM?)".into(),
            (g, t) => format!(
                "governor {}, {}",
                g.unwrap_or_else(|| "unknown".into()),
                t.unwrap_or_else(|| "turbo unknown".into())
            ),
        };
        Self {
            cpu,
            cores: (jobs, cores),
            kernel,
            frequency,
            load: (load_average(), f64::NAN),
        }
    }

    /// Warnings about the timings' trustworthiness.
    pub fn warnings(&self, jobs: usize) -> Vec<String> {
        let mut w = Vec::new();
        if self.load.0 >= 0.5 {
            w.push(format!(
                "the machine was busy before the contest (load {:.2}): timings may be noisy",
                self.load.0
            ));
        }
        if self.load.1.is_finite() && self.load.1 > jobs as f64 + 1.0 {
            w.push(format!(
                "the machine was busy during the contest (load {:.2} after, {jobs} jobs of ours)",
                self.load.1
            ));
        }
        if jobs > 1 {
            w.push(format!("timings were taken {jobs} at a time, in parallel"));
        }
        w
    }
}

/// The one-minute load average.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// The leaderboard CSV, plain (any CSV reader takes it as it is): a
/// header and one row per entry, best first (rank, entry, solved, PAR-2 in
/// seconds, noisy cases, then each case's median in seconds or
/// `unsolved`; ranked by problems: problems solved, the penalty in
/// seconds, noisy cases, then each problem's time or `unsolved`). The
/// machine, the settings and every run are in [`details`].
pub fn leaderboard(standings: &[Standing], names: &[String]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let by_problems = standings.first().is_some_and(|s| !s.problems.is_empty());
    let time = if by_problems { "penalty_s" } else { "par2_s" };
    let mut header: Vec<String> = ["rank", "entry", "solved", time, "noisy_cases"]
        .map(String::from)
        .to_vec();
    if let Some(first) = standings.first() {
        match by_problems {
            true => header.extend(first.problems.iter().map(|p| p.name.clone())),
            false => header.extend(first.cases.iter().map(|c| c.case.clone())),
        }
    }
    w.write_record(crate::outcome::guard_cells(&header))?;
    let time = |solved: bool, t: f64| match solved {
        true => format!("{t:.6}"),
        false => "unsolved".into(),
    };
    for (s, name) in standings.iter().zip(names) {
        let (solved, ranked) = s.ranked_on();
        let mut rec = vec![
            s.rank.to_string(),
            name.clone(),
            solved.to_string(),
            format!("{ranked:.6}"),
            s.cases.iter().filter(|c| c.noisy).count().to_string(),
        ];
        match by_problems {
            true => rec.extend(s.problems.iter().map(|p| time(p.solved, p.time))),
            false => rec.extend(s.cases.iter().map(|c| time(c.solved, c.stats.median))),
        }
        w.write_record(crate::outcome::guard_cells(&rec))?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

/// The leaderboard's sidecar JSON: the machine it ran on, the settings,
/// the warnings, and per entry and case every counted run's time, the
/// median and the spread (MAD), so the noise can be read.
pub fn details(
    standings: &[Standing],
    names: &[String],
    env: &Environment,
    plan: &Plan,
    jobs: usize,
) -> anyhow::Result<Vec<u8>> {
    let finite = |x: f64| x.is_finite().then_some(x);
    let entries: Vec<serde_json::Value> = standings
        .iter()
        .zip(names)
        .map(|(s, name)| {
            serde_json::json!({
                "rank": s.rank,
                "entry": name,
                "solved": s.solved,
                "par2_s": s.par2,
                "noise_s": s.noise,
                "problems_solved": (!s.problems.is_empty()).then(|| s.ranked_on().0),
                "penalty_s": (!s.problems.is_empty()).then_some(s.penalty),
                "problems": s.problems.iter().map(|p| serde_json::json!({
                    "problem": p.name,
                    "solved": p.solved,
                    "time_s": p.time,
                })).collect::<Vec<_>>(),
                "cases": s.cases.iter().map(|c| serde_json::json!({
                    "case": c.case,
                    "solved": c.solved,
                    "verdict": c.verdict.as_str(),
                    "runs_s": c.runs,
                    "median_s": c.stats.median,
                    "mad_s": c.stats.mad,
                    "noisy": c.noisy,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let json = serde_json::json!({
        "environment": {
            "cpu": env.cpu,
            "cores_used": env.cores.0,
            "cores": env.cores.1,
            "kernel": env.kernel,
            "frequency": env.frequency,
            "load_before": finite(env.load.0),
            "load_after": finite(env.load.1),
        },
        "settings": {
            "metric": match plan.metric {
                Metric::Cpu => "cpu",
                Metric::Wall => "wall",
            },
            "runs": plan.runs,
            "warmup": plan.warmup,
            "time_limit_s": plan.time_limit.as_secs_f64(),
            "par2_unsolved_s": 2.0 * plan.time_limit.as_secs_f64(),
            "ranking": if plan.problems { "icpc" } else { "par2" },
        },
        "warnings": env.warnings(jobs),
        "entries": entries,
    });
    crate::export::pretty_json(&json)
}

/// The scorecard row of `entry` on one case: the majority verdict and the
/// median times (for `compare` and `report`).
pub fn median_row(entry: &str, family: &str, c: &CaseResult) -> Row {
    let (suite, case) = c.case.rsplit_once('/').unwrap_or(("", &c.case));
    let mut row = Row::new(entry, family, suite, case);
    row.verdict = c.verdict;
    row.detail = c.detail.clone();
    (row.wall_ms, row.cpu_ms) = c.medians_ms;
    row.max_rss_kb = c.max_rss_kb;
    row.moves = c.moves;
    row.best_moves = c.best_moves;
    row
}

/// The terminal table (ranked by problems: problems solved and the
/// penalty in place of cases and PAR-2).
pub fn table(standings: &[Standing], names: &[String]) -> String {
    let width = names.iter().map(String::len).max().unwrap_or(5).max(5);
    let by_problems = standings.first().is_some_and(|s| !s.problems.is_empty());
    let time = if by_problems {
        "penalty (s)"
    } else {
        "PAR-2 (s)"
    };
    let mut out = format!(
        "{:>4}  {:width$}  {:>6}  {:>12}  noisy\n",
        "rank", "entry", "solved", time
    );
    for (s, name) in standings.iter().zip(names) {
        let (solved, ranked) = s.ranked_on();
        out.push_str(&format!(
            "{:>4}  {:width$}  {:>6}  {:>12.3}  {}\n",
            s.rank,
            name,
            solved,
            ranked,
            s.cases.iter().filter(|c| c.noisy).count()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::stats::{rank, shown_names, standing};
    use super::*;
    use crate::outcome::Verdict;

    const PLAN: Plan = Plan {
        runs: 5,
        warmup: 1,
        metric: Metric::Cpu,
        time_limit: Duration::from_secs(10),
        problems: false,
    };

    fn runs(entry: &str, case: &str, secs: &[f64], verdict: Verdict) -> Vec<Row> {
        secs.iter()
            .map(|s| {
                let mut r = Row::new(entry, "toy", "s", case);
                r.verdict = verdict;
                r.cpu_ms = Some(s * 1000.0);
                r.wall_ms = Some(s * 1000.0 + 5.0);
                r
            })
            .collect()
    }

    /// Ranked by problems (each suite a problem package): most problems
    /// solved (every case of one), then the least penalty (the solved
    /// problems' times), however many cases each has.
    #[test]
    fn ranked_by_problems_solved_then_penalty() {
        let plan = Plan {
            problems: true,
            ..PLAN
        };
        let cases: Vec<String> = ["p/secret/1", "p/secret/2", "q/secret/1"]
            .map(String::from)
            .to_vec();
        let on = |entry: &str, problem: &str, case: &str, secs: f64, verdict| {
            let mut rows = runs(entry, case, &[secs; 5], verdict);
            for r in &mut rows {
                r.suite = problem.into();
            }
            rows
        };
        use Verdict::{Accepted, WrongAnswer};
        let entries = [
            // Both problems, slowly.
            (
                "steady",
                [(3.0, Accepted), (3.0, Accepted), (3.0, Accepted)],
            ),
            // Both, fast.
            ("quick", [(0.5, Accepted), (0.5, Accepted), (0.5, Accepted)]),
            // q and half of p, fastest: one problem solved.
            (
                "half",
                [(0.1, Accepted), (0.1, WrongAnswer), (0.1, Accepted)],
            ),
        ];
        let mut all: Vec<_> = entries
            .iter()
            .map(|(name, r)| {
                let mut rows = on(name, "p", "secret/1", r[0].0, r[0].1);
                rows.extend(on(name, "p", "secret/2", r[1].0, r[1].1));
                rows.extend(on(name, "q", "secret/1", r[2].0, r[2].1));
                standing(name, &rows, &cases, &plan)
            })
            .collect();
        rank(&mut all);
        let got: Vec<_> = all
            .iter()
            .map(|s| (s.rank, s.entry.as_str(), s.ranked_on()))
            .collect();
        assert_eq!(
            got,
            [
                (1, "quick", (2, 1.5)),
                (2, "steady", (2, 9.0)),
                (3, "half", (1, 0.1))
            ]
        );
        let names = shown_names(&all, false, None);
        let csv = String::from_utf8(leaderboard(&all, &names).unwrap()).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "rank,entry,solved,penalty_s,noisy_cases,p,q");
        assert_eq!(lines[3], "3,half,1,0.100000,0,unsolved,0.100000");
        assert!(table(&all, &names).starts_with("rank  entry   solved   penalty (s)  noisy\n"));
    }

    #[test]
    fn ranking_by_solved_then_par2_with_ties_inside_the_noise() {
        let cases = vec!["s/a".to_string(), "s/b".to_string()];
        let mut all = Vec::new();
        // fast: both in 1 s; twin: the same within noise; slow: +0.2 s a
        // case, outside the noise; half: one unsolved (PAR-2 counts 20 s).
        let mut fast = runs(
            "fast",
            "a",
            &[1.0, 1.02, 0.98, 1.0, 1.01],
            Verdict::Accepted,
        );
        fast.extend(runs(
            "fast",
            "b",
            &[1.0, 1.0, 1.02, 0.99, 1.0],
            Verdict::Accepted,
        ));
        let mut twin = runs(
            "twin",
            "a",
            &[1.01, 1.0, 0.99, 1.03, 1.0],
            Verdict::Accepted,
        );
        twin.extend(runs(
            "twin",
            "b",
            &[1.0, 1.02, 1.0, 0.98, 1.01],
            Verdict::Accepted,
        ));
        let mut slow = runs("slow", "a", &[1.2, 1.21, 1.19, 1.2, 1.2], Verdict::Accepted);
        slow.extend(runs(
            "slow",
            "b",
            &[1.2, 1.2, 1.22, 1.2, 1.19],
            Verdict::Accepted,
        ));
        let mut half = runs("half", "a", &[0.1; 5], Verdict::Accepted);
        half.extend(runs("half", "b", &[10.0; 5], Verdict::TimeLimit));
        for (name, rows) in [
            ("fast", fast),
            ("twin", twin),
            ("slow", slow),
            ("half", half),
        ] {
            all.push(standing(name, &rows, &cases, &PLAN));
        }
        rank(&mut all);
        let got: Vec<(usize, &str, usize)> = all
            .iter()
            .map(|s| (s.rank, s.entry.as_str(), s.solved))
            .collect();
        assert_eq!(
            got,
            [
                (1, "fast", 2),
                (1, "twin", 2),
                (3, "slow", 2),
                (4, "half", 1)
            ]
        );
        assert!((all[3].par2 - 20.1).abs() < 1e-9, "0.1 s + 2 x 10 s");
        assert_eq!(all[3].cases[1].verdict, Verdict::TimeLimit);
        let names = shown_names(&all, true, Some("slow"));
        assert_eq!(names, ["entry-1", "entry-2", "slow", "entry-4"]);

        let env = Environment {
            cpu: "Test CPU".into(),
            cores: (1, 2),
            kernel: "6.1".into(),
            frequency: "governor performance, turbo off".into(),
            load: (0.1, 1.2),
        };
        let csv = String::from_utf8(leaderboard(&all, &names).unwrap()).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "rank,entry,solved,par2_s,noisy_cases,s/a,s/b");
        assert_eq!(lines[4], "4,entry-4,1,20.100000,0,0.100000,unsolved");
        let side: serde_json::Value =
            serde_json::from_slice(&details(&all, &names, &env, &PLAN, 1).unwrap()).unwrap();
        assert_eq!(side["environment"]["cpu"], "Test CPU");
        assert_eq!(side["environment"]["load_after"], 1.2);
        assert_eq!(side["settings"]["par2_unsolved_s"], 20.0);
        let half = &side["entries"][3];
        assert_eq!(half["entry"], "entry-4");
        assert_eq!(half["cases"][1]["solved"], false);
        let first = &side["entries"][0]["cases"][0];
        assert_eq!(
            first["runs_s"].as_array().unwrap().len(),
            all[0].cases[0].runs.len()
        );
        assert!(first["mad_s"].is_number() && first["median_s"].is_number());
        use crate::report::details_path;
        assert_eq!(
            details_path(std::path::Path::new("out/board.csv")),
            std::path::Path::new("out/board.json")
        );
        assert_eq!(
            details_path(std::path::Path::new("board.json")),
            std::path::Path::new("board.json.details.json")
        );
        // compare reads it back: one row per entry and case.
        let rows = crate::report::read_leaderboard(&csv).unwrap();
        assert_eq!(rows.len(), 8);
        assert_eq!(rows[7].verdict, Verdict::TimeLimit);
        assert_eq!(rows[0].wall_ms, Some(1000.0));
        assert!(table(&all, &names).contains("   3  slow"));
        // ... and the spread of each case's runs from the sidecar beside it.
        let dir = tempfile::tempdir().unwrap();
        let board = dir.path().join("board.csv");
        std::fs::write(&board, &csv).unwrap();
        assert!(
            crate::report::read_spreads(&board).unwrap().is_empty(),
            "no sidecar"
        );
        std::fs::write(
            details_path(&board),
            details(&all, &names, &env, &PLAN, 1).unwrap(),
        )
        .unwrap();
        let spread = crate::report::read_spreads(&board).unwrap();
        assert_eq!(spread.len(), 8);
        let slow = spread[&("slow".to_string(), "s".to_string(), "a".to_string())];
        assert!(
            (slow - 1000.0 * all[2].cases[0].stats.mad).abs() < 1e-9,
            "{slow}"
        );
    }

    #[test]
    fn a_busy_machine_is_said() {
        let env = Environment {
            load: (1.5, 4.0),
            ..Environment::default()
        };
        let w = env.warnings(2);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].starts_with("the machine was busy before the contest (load 1.50)"));
    }
}
