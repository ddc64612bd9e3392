//! `harness contest`: time every entry on every case several times, after
//! warm-up runs that do not count, and rank them as the SAT competitions
//! do: most cases solved, then the smallest PAR-2 score (the sum of the
//! median times, an unsolved case counting twice the time limit). Entries
//! whose difference is inside the measured noise share a rank.
//!
//! The statistics and the ranking are pure functions over rows (tested
//! without spawning); [`time_entries`] runs the processes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::cancel::Cancel;
use crate::conform;
use crate::executor::Executor;
use crate::job::Candidate;
use crate::job::{Job, Who};
use crate::outcome::Metric;
use crate::outcome::{Row, Verdict};
use crate::settings::Settings;

/// One contest entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name (the folder's).
    pub name: String,
    /// What runs, or why nothing can.
    pub candidate: Result<Candidate, String>,
}

/// The entries of `dir`: each subfolder holding an executable `run`, which
/// runs in its folder with the case's files appended. A subfolder without
/// one is still an entry, that solves nothing.
pub fn entries(dir: &Path) -> anyhow::Result<Vec<Entry>> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let read =
        std::fs::read_dir(dir).with_context(|| format!("cannot read entries {}", dir.display()))?;
    for e in read {
        let e = e.with_context(|| format!("cannot read entries {}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !e.path().is_dir() {
            continue;
        }
        let folder = e.path().canonicalize().unwrap_or(e.path());
        let run = folder.join("run");
        let candidate = match std::fs::metadata(&run) {
            Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(Candidate::Command {
                argv: vec![run.display().to_string()],
                workdir: folder,
                relative: false,
            }),
            _ => Err(format!("{name}: no executable `run` in its folder")),
        };
        out.push(Entry { name, candidate });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    if out.is_empty() {
        bail!(
            "no entries in {} (each is a folder with an executable run)",
            dir.display()
        );
    }
    Ok(out)
}

/// The entries of a course's submissions, as built by
/// [`crate::class::build_all`]: each runs the course's first part judged by
/// the family's contract; one that did not build solves nothing.
pub fn built_entries(
    course: &crate::course::Course,
    subs: &[crate::class::Submission],
    built: Vec<Option<crate::class::Built>>,
) -> anyhow::Result<Vec<Entry>> {
    use crate::course::{PartKind, Paths, fill_command};
    let Some(part) = course
        .parts
        .iter()
        .find(|p| matches!(p.kind, PartKind::Suites(g) if g.name() == course.family.name()))
    else {
        bail!(
            "{}: no part runs the family's suites: nothing to time",
            course.path.display()
        );
    };
    Ok(subs
        .iter()
        .zip(built)
        .map(|(sub, b)| {
            let candidate = match b {
                Some(crate::class::Built { dir: Some(dir), .. }) => Ok(Candidate::Command {
                    argv: fill_command(&part.file.command, &dir, course.dir()),
                    workdir: dir,
                    relative: part.file.paths == Paths::Relative,
                }),
                Some(b) => Err(format!("{}: {}", b.row.verdict, b.row.detail)),
                None => Err("not built: the contest was stopped".into()),
            };
            Entry {
                name: sub.id.clone(),
                candidate,
            }
        })
        .collect())
}

/// How a contest is run and ranked.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Counted runs per case.
    pub runs: usize,
    /// Runs before them that do not count.
    pub warmup: usize,
    /// The time ranked on.
    pub metric: Metric,
    /// The time limit (an unsolved case counts twice it in PAR-2).
    pub time_limit: Duration,
}

/// What is timed: a Solver on puzzles, or a Checker on the reference's
/// (long) move lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Puzzle files as arguments, an answer judged by the family.
    Solver,
    /// Puzzle files as arguments and the reference's moves on stdin: exit
    /// 0 expected (sliding blocks).
    Checker,
}

/// One case to time.
pub struct Case {
    /// The suite job (files, family).
    pub job: Job,
    /// For a Checker: the moves on stdin.
    pub stdin: Option<PathBuf>,
}

/// Makes the contest's cases from suite jobs; for `Role::Checker`, the
/// reference's answer to each is written into `dir` as its stdin.
pub fn cases(jobs: Vec<Job>, role: Role, dir: &Path) -> anyhow::Result<Vec<Case>> {
    let mut out = Vec::new();
    for (i, job) in jobs.into_iter().enumerate() {
        let stdin = match role {
            Role::Solver => None,
            Role::Checker => {
                if job.family.name() != "slidingblock" {
                    bail!(
                        "--role checker times sliding-block Checkers; {} has none",
                        job.family.name()
                    );
                }
                let files = job.files.clone().map_err(|e| anyhow::anyhow!(e))?;
                let case = job
                    .family
                    .load(&files)
                    .map_err(|e| anyhow::anyhow!("{}/{}: {e}", job.suite, job.case))?;
                let answer = case.answer();
                if answer.exit_code != 0 {
                    // Unsolvable: a Checker has no moves to check.
                    continue;
                }
                let path = dir.join(format!("moves-{i}"));
                std::fs::write(&path, answer.stdout)?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
                Some(path)
            }
        };
        out.push(Case { job, stdin });
    }
    Ok(out)
}

/// Runs every entry on every case: `warmup` then `runs` times each, one
/// (entry, case) at a time per job slot. Returns the counted runs' rows
/// per entry, in entry order.
pub fn time_entries(
    entries: &[Entry],
    cases: &[Case],
    plan: &Plan,
    settings: &Settings,
    executor: &dyn Executor,
    cancel: &Cancel,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Vec<Row>> {
    let units: Vec<(usize, usize)> = (0..entries.len())
        .flat_map(|e| (0..cases.len()).map(move |c| (e, c)))
        .collect();
    let results: Vec<std::sync::Mutex<Vec<Row>>> = entries
        .iter()
        .map(|_| std::sync::Mutex::new(Vec::new()))
        .collect();
    crate::grade::prepare(cases.iter().map(|c| &c.job), settings, cancel);
    let next = AtomicUsize::new(0);
    let whos: Vec<Option<Arc<Who>>> = entries
        .iter()
        .map(|e| {
            e.candidate.as_ref().ok().map(|c| {
                Arc::new(Who {
                    label: e.name.clone(),
                    candidate: c.clone(),
                })
            })
        })
        .collect();
    std::thread::scope(|scope| {
        for slot in 0..settings.jobs.clamp(1, units.len().max(1)) {
            let (units, results, next, whos) = (&units, &results, &next, &whos);
            scope.spawn(move || {
                loop {
                    if cancel.is_requested() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(e, c)) = units.get(i) else { break };
                    let rows = time_case(
                        &entries[e],
                        whos[e].as_ref(),
                        &cases[c],
                        plan,
                        settings,
                        executor,
                        cancel,
                        slot,
                    );
                    progress(&entries[e].name, &cases[c].job.case);
                    if let Ok(mut r) = results[e].lock() {
                        r.extend(rows);
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_default())
        .collect()
}

/// One entry on one case: the counted runs.
#[allow(clippy::too_many_arguments)]
fn time_case(
    entry: &Entry,
    who: Option<&Arc<Who>>,
    case: &Case,
    plan: &Plan,
    settings: &Settings,
    executor: &dyn Executor,
    cancel: &Cancel,
    slot: usize,
) -> Vec<Row> {
    let Some(who) = who else {
        let mut row = Row::new(
            &entry.name,
            case.job.family.name(),
            &case.job.suite,
            &case.job.case,
        );
        row.verdict = Verdict::RuntimeError;
        row.detail = entry.candidate.as_ref().err().cloned().unwrap_or_default();
        return vec![row; plan.runs];
    };
    let job = Job {
        family: case.job.family,
        suite: case.job.suite.clone(),
        case: case.job.case.clone(),
        files: case.job.files.clone(),
        root: case.job.root.clone(),
        given: None,
        who: Some(Arc::clone(who)),
        loaded: Arc::clone(&case.job.loaded),
    };
    let mut rows = Vec::new();
    for i in 0..plan.warmup + plan.runs {
        if cancel.is_requested() {
            break;
        }
        let row = match &case.stdin {
            None => crate::grade::grade(&job, settings, slot, executor, cancel),
            Some(stdin) => {
                let files = case.job.files.clone().unwrap_or_default();
                let c = conform::Case {
                    name: case.job.case.clone(),
                    args: files
                        .iter()
                        .map(|f| OsString::from(f.as_os_str()))
                        .collect(),
                    puzzle: files,
                    stdin: stdin.clone(),
                    expect: vec![0],
                    output: conform::Output::Any,
                };
                conform::run_case(
                    case.job.family,
                    &c,
                    (&who.candidate, &who.label, &case.job.suite),
                    &settings.limits,
                    executor,
                    cancel,
                    slot,
                )
            }
        };
        if i >= plan.warmup {
            rows.push(row);
        }
    }
    rows
}

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
    /// Solved in most of its runs.
    pub solved: bool,
    /// Times of the runs, in seconds, by the metric.
    pub stats: Stats,
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
    /// The noise of its PAR-2: the sum of its solved cases' MADs.
    pub noise: f64,
    /// Per case, in case order.
    pub cases: Vec<CaseResult>,
}

/// An entry's standing from its counted runs (`rows`, in any order;
/// `cases` the `suite/case` of every case, in order).
pub fn standing(entry: &str, rows: &[Row], cases: &[String], plan: &Plan) -> Standing {
    let limit = plan.time_limit.as_secs_f64();
    let mut results = Vec::new();
    for name in cases {
        let runs: Vec<&Row> = rows
            .iter()
            .filter(|r| &format!("{}/{}", r.suite, r.case) == name)
            .collect();
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
        for r in &runs {
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
        results.push(CaseResult {
            case: name.clone(),
            solved,
            noisy: solved && stats.noisy(&times),
            stats,
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
        });
    }
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
    let noise = results
        .iter()
        .filter(|c| c.solved)
        .map(|c| c.stats.mad)
        .sum();
    Standing {
        entry: entry.into(),
        rank: 0,
        solved,
        par2,
        noise,
        cases: results,
    }
}

/// Sorts best first (most solved, then smallest PAR-2) and gives ranks;
/// an entry whose PAR-2 is within the noise of the one above it (the sum
/// of both noises) with as many cases solved shares its rank.
pub fn rank(standings: &mut [Standing]) {
    standings.sort_by(|a, b| {
        b.solved
            .cmp(&a.solved)
            .then(a.par2.total_cmp(&b.par2))
            .then(a.entry.cmp(&b.entry))
    });
    for i in 0..standings.len() {
        standings[i].rank = if i > 0
            && standings[i].solved == standings[i - 1].solved
            && (standings[i].par2 - standings[i - 1].par2).abs()
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

/// The leaderboard CSV: `#` lines with the environment and settings, then
/// a header and one row per entry, best first (rank, entry, solved, PAR-2
/// in seconds, noisy cases, then each case's median in seconds or
/// `unsolved`).
pub fn leaderboard(
    standings: &[Standing],
    names: &[String],
    env: &Environment,
    plan: &Plan,
    jobs: usize,
) -> anyhow::Result<Vec<u8>> {
    let mut out = String::new();
    out.push_str("# puzzlegrade contest leaderboard\n");
    out.push_str(&format!(
        "# cpu: {}; cores used: {} of {}; kernel: {}; {}\n",
        env.cpu, env.cores.0, env.cores.1, env.kernel, env.frequency
    ));
    out.push_str(&format!(
        "# load average before: {:.2}, after: {:.2}\n",
        env.load.0, env.load.1
    ));
    out.push_str(&format!(
        "# metric: {}; runs: {} after {} warm-up; time limit: {}; PAR-2 counts an unsolved case as {} s\n",
        match plan.metric {
            Metric::Cpu => "cpu",
            Metric::Wall => "wall",
        },
        plan.runs,
        plan.warmup,
        humantime::format_duration(plan.time_limit),
        2.0 * plan.time_limit.as_secs_f64()
    ));
    for w in env.warnings(jobs) {
        out.push_str(&format!("# warning: {w}\n"));
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["rank", "entry", "solved", "par2_s", "noisy_cases"]
        .map(String::from)
        .to_vec();
    if let Some(first) = standings.first() {
        header.extend(first.cases.iter().map(|c| c.case.clone()));
    }
    w.write_record(&header)?;
    for (s, name) in standings.iter().zip(names) {
        let mut rec = vec![
            s.rank.to_string(),
            name.clone(),
            s.solved.to_string(),
            format!("{:.6}", s.par2),
            s.cases.iter().filter(|c| c.noisy).count().to_string(),
        ];
        rec.extend(s.cases.iter().map(|c| {
            if c.solved {
                format!("{:.6}", c.stats.median)
            } else {
                "unsolved".into()
            }
        }));
        w.write_record(&rec)?;
    }
    out.push_str(&String::from_utf8(
        w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?,
    )?);
    Ok(out.into_bytes())
}

/// One scorecard row per entry and case: the majority verdict and the
/// median times (for `compare` and `report`).
pub fn median_rows(standings: &[Standing], family: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for s in standings {
        for c in &s.cases {
            let (suite, case) = c.case.rsplit_once('/').unwrap_or(("", &c.case));
            let mut row = Row::new(&s.entry, family, suite, case);
            row.verdict = c.verdict;
            row.detail = c.detail.clone();
            (row.wall_ms, row.cpu_ms) = c.medians_ms;
            row.max_rss_kb = c.max_rss_kb;
            row.moves = c.moves;
            row.best_moves = c.best_moves;
            rows.push(row);
        }
    }
    rows
}

/// The terminal table.
pub fn table(standings: &[Standing], names: &[String]) -> String {
    let width = names.iter().map(String::len).max().unwrap_or(5).max(5);
    let mut out = format!(
        "{:>4}  {:width$}  {:>6}  {:>12}  noisy\n",
        "rank", "entry", "solved", "PAR-2 (s)"
    );
    for (s, name) in standings.iter().zip(names) {
        out.push_str(&format!(
            "{:>4}  {:width$}  {:>6}  {:>12.3}  {}\n",
            s.rank,
            name,
            s.solved,
            s.par2,
            s.cases.iter().filter(|c| c.noisy).count()
        ));
    }
    out
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
        let entry = rec.get(1).unwrap_or_default();
        for (col, value) in header.iter().zip(rec.iter()).skip(fixed) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: Plan = Plan {
        runs: 5,
        warmup: 1,
        metric: Metric::Cpu,
        time_limit: Duration::from_secs(10),
    };

    fn runs(entry: &str, case: &str, secs: &[f64], verdict: Verdict) -> Vec<Row> {
        secs.iter()
            .map(|s| {
                let mut r = Row::new(entry, "slidingblock", "s", case);
                r.verdict = verdict;
                r.cpu_ms = Some(s * 1000.0);
                r.wall_ms = Some(s * 1000.0 + 5.0);
                r
            })
            .collect()
    }

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
        let csv = String::from_utf8(leaderboard(&all, &names, &env, &PLAN, 1).unwrap()).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "# puzzlegrade contest leaderboard");
        assert_eq!(lines[4], "rank,entry,solved,par2_s,noisy_cases,s/a,s/b");
        assert_eq!(lines[8], "4,entry-4,1,20.100000,0,0.100000,unsolved");
        // compare reads it back: one row per entry and case.
        let rows = read_leaderboard(&csv).unwrap();
        assert_eq!(rows.len(), 8);
        assert_eq!(rows[7].verdict, Verdict::TimeLimit);
        assert_eq!(rows[0].wall_ms, Some(1000.0));
        assert!(table(&all, &names).contains("   3  slow"));
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
