//! `harness contest`: time every entry on every case several times, after
//! warm-up runs that do not count, and rank them as the SAT competitions
//! do: most cases solved, then the smallest PAR-2 score (the sum of the
//! median times, an unsolved case counting twice the time limit). Entries
//! whose difference is inside the measured noise share a rank.
//!
//! The runs are jobs of the one work loop, repeated (warm-up, then counted
//! runs) back to back on their slot; the statistics ([`stats`]) and what is
//! written ([`board`]) are pure functions over the rows.

pub mod board;
pub mod stats;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use reference::battery::Output;
use reference::family::Role;

pub use crate::report::details_path;
pub use board::{Environment, details, leaderboard, load_average, median_row, table};
pub use stats::{CaseResult, Standing, Stats, case_result, rank, shown_names, standing};

use crate::event::{Event, Summary};
use crate::job::{Candidate, Case, Job, Probe, Task};
use crate::outcome::{Metric, Row, Verdict};
use crate::settings::Context;

/// One contest entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name (the folder's).
    pub name: String,
    /// What runs, or why nothing can.
    pub candidate: Result<Candidate, String>,
    /// What runs on the cases with moves on stdin, where that is not the
    /// candidate (a course's Checker beside its Solver).
    pub checker: Option<Result<Candidate, String>>,
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
                copy: true,
                network: false,
                ipc: false,
            }),
            _ => Err(format!("{name}: no executable `run` in its folder")),
        };
        out.push(Entry::new(name, candidate));
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

impl Entry {
    /// An entry named `name` that runs `candidate` (or, if it cannot be
    /// run, solves nothing for that reason).
    pub fn new(name: String, candidate: Result<Candidate, String>) -> Self {
        Self {
            name,
            candidate,
            checker: None,
        }
    }

    /// The same entry, timed with `checker` on the cases with moves.
    pub fn with_checker(self, checker: Result<Candidate, String>) -> Self {
        Self {
            checker: Some(checker),
            ..self
        }
    }
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
    /// Ranked as the ICPC ranks: each suite a problem (a problem package),
    /// solved when every case of it is; most problems solved, then the
    /// least penalty time (see [`stats::standing`]). Else by cases and
    /// PAR-2.
    pub problems: bool,
}

/// Whether every case of `cases` is a problem package's: the contest is
/// then ranked by problems, as the ICPC ranks ([`Plan::problems`]).
pub fn of_problems(cases: &[Timed]) -> bool {
    !cases.is_empty()
        && cases
            .iter()
            .all(|t| t.case.family.name() == reference::package::grader::NAME)
}

/// One case to time: a suite case, and for a Checker the reference's
/// moves to give it on stdin.
pub struct Timed {
    /// The suite case.
    pub case: Arc<Case>,
    /// For a Checker: the moves on stdin.
    pub stdin: Option<PathBuf>,
}

impl Timed {
    /// `suite/case`, as the leaderboard's columns name it.
    pub fn name(&self) -> String {
        format!("{}/{}", self.case.suite, self.case.name)
    }
}

/// Makes the contest's cases from suite cases; for a Checker, the
/// reference's answer to each is written into `dir` as its stdin (an
/// unsolvable case, with no moves to check, is left out).
pub fn cases(found: Vec<Case>, role: Role, dir: &Path) -> anyhow::Result<Vec<Timed>> {
    let mut out = Vec::new();
    for (i, mut case) in found.into_iter().enumerate() {
        let stdin = match role {
            Role::Solver => None,
            Role::Checker => {
                if !case.family.roles().contains(&Role::Checker) {
                    bail!(
                        "--role checker times Checkers on the reference's move lists; {} has no Checker program",
                        case.family.name()
                    );
                }
                let files = case.files.clone().map_err(|e| anyhow::anyhow!(e))?;
                let loaded = case
                    .family
                    .load(&files)
                    .map_err(|e| anyhow::anyhow!("{}/{}: {e}", case.suite, case.name))?;
                let answer = loaded.answer();
                if answer.exit_code != 0 {
                    continue;
                }
                let path = dir.join(format!("moves-{i}"));
                // Its own name beside the same puzzle for the Solver.
                case.suite = format!("checker/{}", case.suite);
                std::fs::write(&path, answer.stdout)?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
                Some(path)
            }
        };
        out.push(Timed {
            case: Arc::new(case),
            stdin,
        });
    }
    Ok(out)
}

/// The job of `entry` on `timed`: the Solver on the puzzle, or the Checker
/// on the puzzle with the moves on stdin (exit 0 expected).
fn job(label: &str, candidate: &Arc<Candidate>, timed: &Timed) -> Job {
    match &timed.stdin {
        None => Job::puzzle(label, candidate, &timed.case),
        Some(stdin) => {
            let files = timed.case.files.clone().unwrap_or_default();
            Job {
                label: label.to_string(),
                family: timed.case.family,
                suite: timed.case.suite.clone(),
                case: timed.case.name.clone(),
                task: Task::Probe {
                    candidate: Arc::clone(candidate),
                    probe: Arc::new(Probe {
                        args: files
                            .iter()
                            .map(|f| OsString::from(f.as_os_str()))
                            .collect(),
                        puzzle: files,
                        stdin: stdin.clone(),
                        expect: vec![0],
                        output: Output::Any,
                    }),
                },
                needed: None,
            }
        }
    }
}

/// What timing the entries gave: every counted run's row per entry (in
/// entry order), and the run's summary (one row per entry and case).
pub struct Timings {
    /// The counted runs' rows, per entry.
    pub rows: Vec<Vec<Row>>,
    /// How the run ended, tallied over the median rows.
    pub summary: Summary,
}

/// Runs every entry on every case (`ctx.options.repeat` gives the warm-up
/// and counted runs, back to back on one slot). The events are those of
/// any run (`RunStarted`, each case's start, `RunFinished`), with one row
/// per entry and case, its median over the counted runs ([`median_row`]),
/// sent as soon as its last run is in: the reporter's sinks (terminal, JSON
/// lines, a scorecard) see a contest as they see `grade`. An entry that
/// cannot run gets rows saying why, without running.
pub fn time(
    ctx: &Context,
    entries: &[Entry],
    cases: &[Timed],
    plan: &Plan,
    on_event: &mut dyn FnMut(Event),
) -> Timings {
    let start = std::time::Instant::now();
    let mut jobs = Vec::new();
    let mut rows: Vec<Vec<Row>> = vec![Vec::new(); entries.len()];
    let mut unable = Vec::new();
    for (e, entry) in entries.iter().enumerate() {
        let solver = entry.candidate.clone().map(Arc::new);
        let checker = entry.checker.clone().map(|c| c.map(Arc::new));
        for c in cases {
            let runs = match (&c.stdin, &checker) {
                (Some(_), Some(checker)) => checker,
                _ => &solver,
            };
            match runs {
                Ok(candidate) => jobs.push(job(&entry.name, candidate, c)),
                Err(why) => {
                    let mut row = Row::new(
                        &entry.name,
                        c.case.family.name(),
                        &c.case.suite,
                        &c.case.name,
                    );
                    row.verdict = Verdict::RuntimeError;
                    row.detail = why.clone();
                    rows[e].extend(std::iter::repeat_n(row.clone(), plan.runs));
                    unable.push(row);
                }
            }
        }
    }
    let mut summary = Summary::default();
    let mut send = |event: Event| {
        crate::schedule::count(&mut summary, &event);
        on_event(event);
    };
    send(Event::RunStarted {
        candidate: "contest".into(),
        cases: jobs.len() + unable.len(),
        kept: 0,
        cost: jobs.iter().map(Job::expected_cost).sum::<f64>() + unable.len() as f64,
        builds: 0,
        isolation: ctx.executor.describe(),
    });
    for row in unable {
        let runs = vec![&row; plan.runs];
        let median = median_row(
            &row.candidate,
            &row.family,
            &case_result(&key(&row).1, &runs, plan),
        );
        send(Event::CaseFinished {
            row: Box::new(median),
        });
    }
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    // The counted runs of cases still running, by entry and case.
    let mut open: HashMap<(String, String), Vec<Row>> = HashMap::new();
    crate::schedule::pool(ctx, &jobs, &mut |event| match event {
        Event::CaseFinished { row } => {
            if let Some(&e) = index.get(row.candidate.as_str()) {
                rows[e].push((*row).clone());
            }
            let key = key(&row);
            let runs = open.entry(key.clone()).or_default();
            runs.push(*row);
            if runs.len() >= plan.runs.max(1)
                && let Some(runs) = open.remove(&key)
            {
                send(Event::CaseFinished {
                    row: Box::new(median_of(&runs, plan)),
                });
            }
        }
        Event::CaseCancelled { row } => {
            // Its runs so far go with it: one row per entry and case.
            open.remove(&key(&row));
            send(Event::CaseCancelled { row });
        }
        other => send(other),
    });
    // Cases whose runs a stop cut short: what ran, marked cancelled.
    let mut short: Vec<_> = open.into_values().collect();
    short.sort_by_key(|runs| key(&runs[0]));
    for runs in short {
        let mut row = median_of(&runs, plan);
        row.detail = format!(
            "{} of {} runs before the contest was stopped",
            runs.len(),
            plan.runs
        );
        row.verdict = Verdict::Cancelled;
        send(Event::CaseCancelled { row: Box::new(row) });
    }
    let summary = crate::schedule::end_run(ctx, summary, start, &mut |event| on_event(event));
    Timings { rows, summary }
}

/// A row's entry and `suite/case`.
fn key(row: &Row) -> (String, String) {
    (row.candidate.clone(), format!("{}/{}", row.suite, row.case))
}

/// The median row of one entry's counted runs of one case.
fn median_of(runs: &[Row], plan: &Plan) -> Row {
    let (entry, name) = key(&runs[0]);
    let refs: Vec<&Row> = runs.iter().collect();
    median_row(&entry, &runs[0].family, &case_result(&name, &refs, plan))
}

/// Every entry's standing from its counted runs (`rows`, per entry, in
/// entry order), ranked best first.
pub fn standings(
    entries: &[Entry],
    rows: &[Vec<Row>],
    cases: &[Timed],
    plan: &Plan,
) -> Vec<Standing> {
    let names: Vec<String> = cases.iter().map(Timed::name).collect();
    let mut standings: Vec<Standing> = entries
        .iter()
        .zip(rows)
        .map(|(e, r)| standing(&e.name, r, &names, plan))
        .collect();
    rank(&mut standings);
    standings
}
