//! `harness verify`: a problem package's judge solutions
//! (`submissions/<verdict>/`) each built as problemtools builds it and run
//! on every case, each given the verdict problemtools gives (the first
//! rejected case's), and checked against its folder. As `verifyproblem`
//! does: the accepted ones first, whose slowest time sets the time limit
//! where the package gives none (`time_multiplier` times it, rounded up
//! to a second); every run watched to the limit times
//! `time_safety_margin`, a submission matching its folder at the limit or
//! at that margin ("with extra time"). The package's cases, validator and
//! limits are its suite's, as `grade --suite` reads them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use reference::package::grading::{Graded, Group, Judged};
use reference::package::submissions::{self, Expected};
use reference::package::{PackageError, Problem};

use crate::event::{Event, Summary};
use crate::job::{BUILD, Candidate, Case, Job, Task};
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// The limit the accepted submissions run under where the package gives
/// none (problemtools' five minutes).
const UNKNOWN_LIMIT: f64 = 300.0;

/// A package to verify: its problem, cases and submissions, each made
/// ready to build.
pub struct Plan {
    problem: Problem,
    groups: Arc<Group>,
    cases: Vec<Case>,
    validators: Vec<Arc<crate::job::Validator>>,
    /// The package's own grader (`grading: custom`), where a group asks.
    grader: Option<Arc<crate::job::Validator>>,
    /// What it said to each input.
    said: crate::grade::grader::Said,
    subs: Vec<Sub>,
    _work: tempfile::TempDir,
}

struct Sub {
    name: String,
    expected: Expected,
    /// Its build and run command, or why it is not built here.
    planned: Result<(Job, Vec<String>, PathBuf), String>,
    _staged: Option<tempfile::TempDir>,
}

/// What verifying found.
pub struct Verified {
    /// Every row: builds, then each submission's cases.
    pub rows: Vec<Row>,
    /// The time limit (seconds) and the one runs were watched to.
    pub time_limit: (f64, f64),
    /// Where the limit came from, in words.
    pub limit_from: String,
    /// The package gives its limit (else its accepted submissions set it).
    pub given: bool,
    /// Each submission, in the package's order.
    pub submissions: Vec<Checked>,
    /// Tallies over every row.
    pub summary: Summary,
}

/// One submission's verdicts.
pub struct Checked {
    /// Its path in the package.
    pub name: String,
    /// Its folder's verdict.
    pub expected: Expected,
    /// What it got at the time limit, and at the margin (`None`: no case
    /// ran); or why it was not run (not built here, or its build failed).
    pub got: Result<(Option<Graded>, Option<Graded>), String>,
    /// A scoring problem's full score (else pass-fail).
    pub best: Option<f64>,
    /// This machine has what builds it (else it is not verified here).
    pub buildable: bool,
    /// Its slowest accepted case's time, seconds.
    pub time: f64,
}

impl Checked {
    /// Whether it matches its folder: at the limit, or with extra time (a
    /// build that failed does not). `None`: not verified here (this
    /// machine lacks its compiler).
    pub fn matches(&self) -> Option<bool> {
        match &self.got {
            Ok((at, high)) => Some(self.is_expected(at) || self.is_expected(high)),
            Err(_) => self.buildable.then_some(false),
        }
    }

    /// Whether `got` is what its folder names: accepted with the full
    /// score (`accepted`), with less (`partially_accepted`), or rejected
    /// as the folder says.
    fn is_expected(&self, got: &Option<Graded>) -> bool {
        let Some(g) = got else { return false };
        let full = self.best.is_none_or(|b| g.score == Some(b));
        match self.expected {
            Expected::Accepted => g.verdict == Judged::Accepted && full,
            Expected::PartiallyAccepted => g.verdict == Judged::Accepted && !full,
            Expected::WrongAnswer => g.verdict == Judged::WrongAnswer,
            Expected::RunTimeError => g.verdict == Judged::RunTimeError,
            Expected::TimeLimitExceeded => g.verdict == Judged::TimeLimit,
        }
    }

    /// What it got, in problemtools' words (`AC`, `WA`, `AC (52)` with a
    /// scoring problem's score; `JE` for the judge's own error).
    pub fn said(&self) -> String {
        let short = |v: &Option<Graded>| match v {
            None => "-".to_string(),
            Some(g) => match (self.best, g.score) {
                (Some(_), Some(s)) if g.verdict == Judged::Accepted => format!("AC ({s})"),
                _ => g.verdict.short().to_string(),
            },
        };
        match &self.got {
            Err(why) => why.clone(),
            Ok((at, high)) if short(at) == short(high) => short(at),
            Ok((at, high)) => format!("{} ({} with extra time)", short(at), short(high)),
        }
    }
}

impl Plan {
    /// Reads the package in folder `dir` (its problem, cases, validator
    /// and submissions) and readies each submission's build in a folder
    /// of `executor`'s scratch place. A bad package is an
    /// error naming its file; a grader of its own (`grading: custom`) or
    /// a multi-pass problem is not verified yet.
    pub fn new(dir: &Path, executor: &dyn crate::executor::Executor) -> anyhow::Result<Self> {
        let scratch = &executor.scratch_place().base();
        use std::os::unix::fs::PermissionsExt;
        let problem = Problem::open(dir)?;
        let groups = Group::open(dir)?;
        let grader = crate::grade::grader::of_package(dir, &groups, problem.memory_mib)?;
        let suites = crate::discover::Suites::find(&[dir.to_owned()], None, None)?;
        let cases: Vec<Case> = suites.cases().collect();
        let validators = cases.iter().find_map(|c| c.validator.clone());
        let work = tempfile::Builder::new()
            .prefix("puzzlegrade-verify-")
            .tempdir_in(scratch)
            .or_else(|_| {
                tempfile::Builder::new()
                    .prefix("puzzlegrade-verify-")
                    .tempdir()
            })
            .context("cannot make the builds' folder")?;
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))?;
        let found = submissions::submissions(dir)?;
        if !found.iter().any(|s| s.expected == Expected::Accepted) {
            anyhow::bail!(
                "{}: no accepted submission (the format asks for one)",
                dir.join("submissions/accepted").display()
            );
        }
        let subs = found
            .into_iter()
            .enumerate()
            .map(|(n, s)| {
                let name = s.name.to_string_lossy().into_owned();
                let built_in = work.path().join(format!("sub-{n}"));
                let planned = s
                    .program
                    .map_err(|e: PackageError| e.to_string())
                    .and_then(|p| {
                        let owner = executor.owner(0);
                        let dirs = (built_in.clone(), Path::new("."));
                        crate::grade::program::plan(&p, dirs, problem.memory_mib, owner)
                    });
                let (planned, staged) = match planned {
                    Ok(p) => {
                        let job = Job {
                            label: name.clone(),
                            family: reference::package::grader::by_its_validator(),
                            suite: BUILD.into(),
                            case: BUILD.into(),
                            task: Task::Build(Arc::new(p.build)),
                            needed: None,
                        };
                        (Ok((job, p.run, built_in)), p.staged)
                    }
                    Err(why) => (Err(format!("not built here: {why}")), None),
                };
                Sub {
                    name,
                    expected: s.expected,
                    planned,
                    _staged: staged,
                }
            })
            .collect();
        Ok(Self {
            problem,
            groups: Arc::new(groups),
            cases,
            validators: validators.into_iter().collect(),
            grader: grader.map(Arc::new),
            said: Default::default(),
            subs,
            _work: work,
        })
    }

    /// The package's own validator and grader, built (see
    /// `grade::validator::build`): an error where one does not build.
    pub fn build_validator(&self, ctx: &Context) -> anyhow::Result<()> {
        for v in self.validators.iter().chain(&self.grader) {
            crate::grade::validator::build(ctx, v, 0).map_err(anyhow::Error::msg)?;
        }
        Ok(())
    }

    /// Builds every submission, runs the accepted ones (their slowest time
    /// the time limit where the package gives none), then the others, and
    /// judges each; every event to `on_event`.
    pub fn run(self, ctx: &Context, on_event: &mut dyn FnMut(Event)) -> Verified {
        let start = std::time::Instant::now();
        let builds: Vec<Job> = self
            .subs
            .iter()
            .filter_map(|s| s.planned.as_ref().ok().map(|(job, _, _)| job.clone()))
            .collect();
        on_event(Event::RunStarted {
            candidate: "verify".into(),
            cases: builds.len() * (1 + self.cases.len()),
            kept: 0,
            cost: (builds.len() * (1 + self.cases.len())) as f64,
            builds: builds.len(),
            isolation: ctx.executor.describe(),
        });
        let mut rows = Vec::new();
        let mut summary = Summary::default();
        // Each submission's rejected cases so far: a case a rejection cuts
        // off (`on_reject: break`) is not run, as problemtools starts it not.
        let progress: Progress = Arc::default();
        // One pool a phase, the executor kept between them.
        // A build the result store holds whole is made again from it;
        // the others run, and are kept.
        let (builds, keys) = restored(ctx, builds, &mut |row| {
            summary.add(&row);
            on_event(Event::CaseFinished {
                row: Box::new(row.clone()),
            });
            rows.push(row);
        });
        let mut phase = |jobs: Vec<Job>, rows: &mut Vec<Row>| {
            if ctx.cancel.is_requested() {
                return;
            }
            crate::schedule::pool(ctx, jobs, &mut |e| {
                if let Event::CaseFinished { row } | Event::CaseCancelled { row } = &e {
                    rows.push((**row).clone());
                    summary.add(row);
                }
                on_event(e);
            });
        };
        phase(builds.clone(), &mut rows);
        if let Some(store) = ctx.options.store.as_deref() {
            store.built_anew(builds.len());
            for (job, key) in builds.iter().zip(&keys) {
                let row = rows
                    .iter()
                    .find(|r| r.candidate == job.label && r.suite == BUILD);
                if let (Some(key), Some(row), Task::Build(b)) = (key, row, &job.task) {
                    store.keep_build(key, row, &b.dir, Vec::new());
                }
            }
        }
        let built = |s: &Sub, rows: &[Row]| -> Result<Arc<Candidate>, String> {
            let (_, run, dir) = s.planned.as_ref().map_err(Clone::clone)?;
            let row = rows
                .iter()
                .find(|r| r.candidate == s.name && r.suite == BUILD);
            match row {
                Some(r) if r.verdict == Verdict::Accepted => Ok(Arc::new(Candidate::Command {
                    argv: run.clone(),
                    workdir: dir.clone(),
                    relative: false,
                    copy: true,
                    network: false,
                    ipc: false,
                })),
                Some(r) => Err(format!("{}: {}", r.verdict.as_str(), r.detail)),
                None => Err("not built".into()),
            }
        };
        let fixed = self.problem.time_limit;
        let margin = self.problem.time_safety_margin;
        let (groups, progress, all) = (&self.groups, &progress, &self.cases);
        let jobs_of = |accepted: bool, limit: f64, rows: &[Row]| -> Vec<Job> {
            let cases: Vec<Arc<Case>> = self
                .cases
                .iter()
                .map(|c| {
                    let mut c = c.clone();
                    c.own.time = Some(Duration::from_secs_f64(limit));
                    Arc::new(c)
                })
                .collect();
            let subs: Vec<(&Sub, Arc<Candidate>)> = self
                .subs
                .iter()
                .filter(|s| (s.expected == Expected::Accepted) == accepted)
                .filter_map(|s| built(s, rows).ok().map(|c| (s, c)))
                .collect();
            // Case by case across the submissions: a rejection is known
            // before the same submission's next case is taken.
            cases
                .iter()
                .flat_map(|case| {
                    subs.iter().map(move |(s, c)| {
                        let earlier = match s.expected {
                            Expected::Accepted => Vec::new(),
                            _ => all
                                .iter()
                                .take_while(|k| k.name != case.name)
                                .map(|k| k.name.clone())
                                .collect(),
                        };
                        let needed = CaseNeeded {
                            groups: Arc::clone(groups),
                            progress: Arc::clone(progress),
                            sub: s.name.clone(),
                            case: case.name.clone(),
                            earlier,
                        };
                        Job {
                            needed: Some(Arc::new(needed)),
                            ..Job::puzzle(&s.name, c, case)
                        }
                    })
                })
                .collect()
        };
        // The accepted ones: watched to the margin of a limit given, else
        // to five minutes.
        let first = fixed.map_or(UNKNOWN_LIMIT, |t| t * margin);
        let ac_jobs = jobs_of(true, first, &rows);
        phase(ac_jobs, &mut rows);
        let slowest = self
            .subs
            .iter()
            .filter(|s| s.expected == Expected::Accepted)
            .filter_map(|s| self.result(ctx, &s.name, &rows, f64::INFINITY))
            .map(|r| r.time)
            .fold(0.0, f64::max);
        let multiplier = self.problem.time_multiplier;
        let (limit, high, limit_from) = match fixed {
            Some(t) => (t, t * margin, "the package's own".to_string()),
            None => {
                let (l, h) = submissions::time_limit(slowest, multiplier, margin);
                let from = format!(
                    "the slowest accepted submission's {slowest:.2} s x {multiplier}, rounded up to a second"
                );
                (l, h, from)
            }
        };
        let other_jobs = jobs_of(false, high, &rows);
        phase(other_jobs, &mut rows);
        let submissions = self
            .subs
            .iter()
            .map(|s| {
                let at = |t| self.result(ctx, &s.name, &rows, t);
                Checked {
                    name: s.name.clone(),
                    expected: s.expected,
                    got: built(s, &rows).map(|_| (at(limit), at(high))),
                    buildable: s.planned.is_ok(),
                    time: at(f64::INFINITY).map_or(0.0, |r| r.time),
                    best: self.problem.scoring.then(|| self.groups.best_score()),
                }
            })
            .collect();
        let summary = crate::schedule::end_run(ctx, summary, start, on_event);
        Verified {
            rows,
            time_limit: (limit, high),
            limit_from,
            given: fixed.is_some(),
            submissions,
            summary,
        }
    }

    /// Submission `name`'s result from its rows, graded as the package
    /// grades (its groups, `testdata.yaml`), an accepted case slower than
    /// `limit` seconds a time limit exceeded; `None` where no case ran.
    /// (A group asking for the package's own grader is graded by it.)
    fn result(&self, ctx: &Context, name: &str, rows: &[Row], limit: f64) -> Option<Graded> {
        let mine: std::collections::HashMap<&str, Graded> = rows
            .iter()
            .filter(|r| r.candidate == name && r.suite != BUILD && r.verdict != Verdict::Cancelled)
            .map(|r| (r.case.as_str(), graded(r, limit)))
            .collect();
        let case = |case: &str| mine.get(case).copied();
        let Some(grader) = &self.grader else {
            return self.groups.grade(&case);
        };
        let custom = |children: &[Graded], flags: &[String]| {
            crate::grade::grader::grade(ctx, grader, (children, flags), 0, &self.said)
        };
        self.groups.grade_by(&case, Some(&custom))
    }
}

/// What `candidate`'s rows (of any suite) come to on the problem package
/// in folder `dir` by the package's grading, where it is a scoring
/// problem: its points and the full score. `None`: not a scoring
/// problem, or none of its cases ran. (Times are judged by the run that
/// made the rows: their verdicts say.)
pub fn points(dir: &Path, rows: &[Row], candidate: &str) -> anyhow::Result<Option<(f64, f64)>> {
    let problem = Problem::open(dir)?;
    let groups = Group::open(dir)?;
    // (A package's own grader is a program: `verify` runs it.)
    if !problem.scoring || crate::grade::grader::asks(&groups) {
        return Ok(None);
    }
    // (The suite a package's cases are named by: its folder's name.)
    let suite = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let mine: std::collections::HashMap<&str, Graded> = rows
        .iter()
        .filter(|r| r.candidate == candidate && Some(&r.suite) == suite.as_ref())
        .filter(|r| r.verdict != Verdict::Cancelled)
        .map(|r| (r.case.as_str(), graded(r, f64::INFINITY)))
        .collect();
    let got = groups.grade(&|case| mine.get(case).copied());
    Ok(got.and_then(|g| g.score).map(|s| (s, groups.best_score())))
}

/// A row as problemtools judges it: a memory limit is a run-time error
/// (as Kattis judges it), an accepted case slower than `limit` seconds a
/// time limit exceeded; time in CPU seconds where measured.
fn graded(row: &Row, limit: f64) -> Graded {
    let time = row.cpu_ms.or(row.wall_ms).unwrap_or(0.0) / 1000.0;
    let verdict = match row.verdict {
        Verdict::Accepted if time > limit => Judged::TimeLimit,
        Verdict::Accepted => Judged::Accepted,
        Verdict::WrongAnswer => Judged::WrongAnswer,
        Verdict::RuntimeError | Verdict::MemoryLimit => Judged::RunTimeError,
        Verdict::TimeLimit => Judged::TimeLimit,
        Verdict::OutputLimit => Judged::OutputLimit,
        _ => Judged::JudgeError,
    };
    Graded {
        verdict,
        // (The validator's points for an accepted case; else its group's.)
        score: row.score.filter(|_| verdict == Judged::Accepted),
        time,
    }
}

/// Each submission's cases graded so far and those rejected, by
/// `(submission, case)`; a waiter is woken when one is graded.
type Progress = Arc<(std::sync::Mutex<Known>, std::sync::Condvar)>;

/// What is known of each submission's cases.
#[derive(Default)]
struct Known {
    done: std::collections::HashSet<(String, String)>,
    rejected: std::collections::HashSet<(String, String)>,
}

/// A submission's case, needed unless a rejection cut it off. Where a
/// rejection is expected (a submission not filed as accepted) it waits,
/// as a worker takes it, for its submission's earlier cases to be graded
/// (they were taken before it, so they end): a time limit exceeded then
/// costs its one case, not one a job slot.
struct CaseNeeded {
    groups: Arc<Group>,
    progress: Progress,
    sub: String,
    case: String,
    /// The submission's cases before it, where it waits for them.
    earlier: Vec<String>,
}

impl crate::job::Needed for CaseNeeded {
    fn needed(&self) -> bool {
        let (lock, woken) = &*self.progress;
        let mut known = lock.lock().unwrap_or_else(|p| p.into_inner());
        let key = |c: &String| (self.sub.clone(), c.clone());
        while !self.earlier.iter().all(|c| known.done.contains(&key(c))) {
            let wait = std::time::Duration::from_millis(200);
            known = woken
                .wait_timeout(known, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        let sub = &self.sub;
        let cut = self.groups.cut_off(&self.case, &|n| {
            known.rejected.contains(&(sub.clone(), n.to_owned()))
        });
        if cut {
            known.done.insert(key(&self.case));
            woken.notify_all();
        }
        !cut
    }

    fn graded(&self, row: &Row) {
        let (lock, woken) = &*self.progress;
        let mut known = lock.lock().unwrap_or_else(|p| p.into_inner());
        known.done.insert((self.sub.clone(), self.case.clone()));
        // (One the wall clock stopped beside others is run again alone
        // before its row is final.)
        if row.verdict != Verdict::Accepted && !crate::grade::stopped_by_the_wall_clock(row) {
            known.rejected.insert((self.sub.clone(), self.case.clone()));
        }
        woken.notify_all();
    }
}

/// The builds of `builds` the result store holds whole, made again from it
/// (each its kept row, given to `restored`); the others, each with its
/// key where the store can keep it, to build.
fn restored(
    ctx: &Context,
    builds: Vec<Job>,
    restored: &mut dyn FnMut(Row),
) -> (Vec<Job>, Vec<Option<crate::store::Key>>) {
    let Some(store) = ctx.options.store.as_deref() else {
        let n = builds.len();
        return (builds, vec![None; n]);
    };
    let run = ctx.options.fingerprint(&ctx.executor.label());
    let mut left = (Vec::new(), Vec::new());
    for build in builds {
        let (key, entry) = store.built(&build, &run);
        if let (Some(k), Some(e), Task::Build(b)) = (&key, &entry, &build.task)
            && e.row.verdict == Verdict::Accepted
            && store.restore(&build, k, e)
        {
            crate::grade::build::allow_everyone(&b.dir);
            let mut row = e.row.clone();
            row.candidate.clone_from(&build.label);
            store.reused(1);
            restored(row);
            continue;
        }
        if let Task::Build(b) = &build.task {
            store.forget(&b.dir);
        }
        left.0.push(build);
        left.1.push(key);
    }
    left
}
