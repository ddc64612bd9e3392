//! Grading a class: every submission in a folder (subfolders, or `.zip` /
//! `.tar.gz` archives unpacked first) is copied to a scratch folder, built
//! there by the course's build command, and run on each part of the course
//! config; one scorecard holds every row (the candidate column is the
//! submission id), and the rubric turns each submission's rows into points
//! ([`crate::course::points`]).
//!
//! Builds and cases are jobs of the one work loop, on the same job slots
//! and under the same isolation as single runs. A submission that cannot
//! be unpacked or built is one `compile-error` row and none of its cases
//! run; nothing a submission does stops the class.

mod jobs;
mod lazy;
pub mod outputs;
mod plan;
mod replays;
mod submissions;

pub use replays::Replays;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;

pub use plan::{PartPlan, Plan};
pub use submissions::{Source, Submission, gather, submissions};

use crate::course::Course;
use crate::event::{Event, Summary};
use crate::job::{BUILD, Build, Candidate, Job, Recipe, Task};
use crate::outcome::{Row, Verdict};
use crate::schedule::{count, end_run, pool};
use crate::settings::{Context, Selection};

/// How a class run ended.
pub struct ClassResult {
    /// Tallies over every row.
    pub summary: Summary,
    /// Every row, kept ones included, in scorecard order.
    pub rows: Vec<Row>,
    /// Every submission's id, sorted.
    pub ids: Vec<String>,
    /// Every (suite, case) a built submission gets.
    pub keys: Vec<(String, String)>,
    /// Every submission's handins, by id.
    pub handins: crate::course::policy::Handins,
    /// Replays of wrong answers, where the outputs were kept
    /// (`--keep-output`): a few per submission.
    pub replays: Replays,
}

/// A scratch folder for a class's copies and builds, readable by every
/// slot's user: beside the cases' scratch folders (tmpfs where cases are
/// charged to a memory cgroup), as many small files come and go.
pub fn work_dir(executor: &dyn crate::executor::Executor) -> anyhow::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    let base = executor.scratch_place().base();
    let work = tempfile::Builder::new()
        .prefix("puzzlegrade-class-")
        .tempdir_in(&base)
        .or_else(|_| {
            tempfile::Builder::new()
                .prefix("puzzlegrade-class-")
                .tempdir()
        })
        .context("cannot make the class's scratch folder")?;
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))?;
    Ok(work)
}

/// The build job of submission `sub` (the `n`th), built in `work/sub-n`.
pub fn build_job(course: &Course, sub: &Submission, work: &Path, n: usize) -> Job {
    let recipe = course.file.build.as_ref().map(|b| {
        Arc::new(Recipe {
            command: b.command.clone(),
            course_dir: course.dir().to_owned(),
            require: b.require.clone(),
            time_limit: b.time_limit,
            overlay: b.overlay.iter().map(|o| course.dir().join(o)).collect(),
            handin: crate::course::handin_globs(&b.handin)
                .expect("validated when the course loaded"),
            written: format!("{b:?}"),
        })
    });
    Job {
        label: sub.id.clone(),
        family: course.family,
        suite: BUILD.into(),
        case: BUILD.into(),
        task: Task::Build(Arc::new(Build {
            source: sub.source.clone(),
            dir: work.join(format!("sub-{n}")),
            recipe,
        })),
        needed: None,
    }
}

/// Where a build job builds (and its program then runs).
fn built_dir(job: &Job) -> Option<&Path> {
    match &job.task {
        Task::Build(b) => Some(&b.dir),
        _ => None,
    }
}

/// Each built submission's candidate for `part` of the course (its
/// command filled in with the built copy), or why there is none.
pub fn candidates(
    course: &Course,
    part: usize,
    builds: &[Job],
    rows: &[Row],
) -> Vec<(String, Result<Candidate, String>)> {
    builds
        .iter()
        .map(|job| {
            let row = rows.iter().find(|r| r.candidate == job.label);
            let missing =
                |dir: &Path, required: &[String]| crate::grade::build::missing(dir, required);
            let c = jobs::candidate(course, part, job, row, &missing);
            (job.label.clone(), c)
        })
        .collect()
}

/// A class run worked out before anything is written: its submissions,
/// what each part runs, and the submissions to grade (`--only`).
pub struct Prepared {
    work: tempfile::TempDir,
    subs: Vec<submissions::Submission>,
    plan: Plan,
    keys: Vec<(String, String)>,
    only: Option<HashSet<String>>,
}

/// Gathers the submissions in `source` and works out each part's cases:
/// every setup error (a suite that does not exist, a filter that selects
/// nothing, an `only` id not in the class) comes from here, before a
/// scorecard is opened. `only`: grade just these submissions (the others'
/// rows are kept).
pub fn prepare(
    ctx: &Context,
    course: &Course,
    selection: &Selection,
    source: &Source,
    only: &[String],
) -> anyhow::Result<Prepared> {
    let work = work_dir(ctx.executor)?;
    let mut subs = gather(source, &work.path().join("unpacked"))?;
    if let Some(shard) = selection.shard {
        let costs = selection.shard_costs.as_deref();
        subs = crate::shard::select(subs, shard, |s| {
            (s.id.clone(), crate::shard::candidate_cost(costs, &s.id))
        });
    }
    if let Some(id) = only.iter().find(|id| !subs.iter().any(|s| &&s.id == id)) {
        anyhow::bail!("--only {id}: no submission of that id in the class");
    }
    crate::grade::build::allow_everyone(&work.path().join("unpacked"));
    let plan = Plan::new(course, work.path(), selection.filter.as_deref())?;
    let keys = plan.keys(course);
    if keys.is_empty() {
        anyhow::bail!(
            "course {}: no case selected{}: nothing to grade",
            course.file.name,
            match &selection.filter {
                Some(f) => format!(" (--filter {f:?} matches no part/suite/case)"),
                None => String::new(),
            }
        );
    }
    Ok(Prepared {
        work,
        subs,
        plan,
        keys,
        only: (!only.is_empty()).then(|| only.iter().cloned().collect()),
    })
}

impl Prepared {
    /// How many builds and cases a run would start beside `kept` (rows of
    /// the scorecard being resumed), as [`run`] counts them: 0 when every
    /// row is there (a regrade reruns nothing).
    pub fn pending(&self, kept: &[Row]) -> usize {
        let done: HashSet<(String, String, String)> = kept.iter().map(Row::key).collect();
        let chosen = |id: &str| self.only.as_ref().is_none_or(|o| o.contains(id));
        self.subs
            .iter()
            .filter(|s| chosen(&s.id))
            .map(|s| {
                let build = kept
                    .iter()
                    .find(|r| r.candidate == s.id && r.suite == BUILD);
                if build.is_some_and(|r| r.verdict != Verdict::Accepted) {
                    return 0;
                }
                let todo = self.keys.iter().filter(|(suite, case)| {
                    !done.contains(&(s.id.clone(), suite.clone(), case.clone()))
                });
                usize::from(build.is_none()) + todo.count()
            })
            .sum()
    }
}

impl Prepared {
    /// A finished scorecard's `rows` as a regrade takes them: those of
    /// submissions and cases the class holds, and apart the others (a
    /// case the suites no longer hold, a submission gone), to be named and
    /// left out. Two rows of one submission and case are an error naming
    /// them (which would count is not the harness's to choose).
    pub fn held(&self, rows: Vec<Row>) -> anyhow::Result<(Vec<Row>, Vec<Row>)> {
        let mut seen: std::collections::HashMap<(String, String, String), usize> =
            Default::default();
        for row in &rows {
            *seen.entry(row.key()).or_default() += 1;
        }
        let mut twice: Vec<_> = seen.into_iter().filter(|(_, n)| *n > 1).collect();
        if !twice.is_empty() {
            twice.sort();
            let named: Vec<String> = twice
                .iter()
                .take(5)
                .map(|((id, suite, case), n)| format!("{id} {suite} {case} ({n} rows)"))
                .collect();
            anyhow::bail!(
                "{} submission cases have more than one row: {}{} (a scorecard holds one row \
                 each; remove the extra ones, or grade again with --force)",
                twice.len(),
                named.join(", "),
                if twice.len() > 5 { ", ..." } else { "" }
            );
        }
        let ids: HashSet<&str> = self.subs.iter().map(|s| s.id.as_str()).collect();
        let keys: HashSet<(&str, &str)> = self
            .keys
            .iter()
            .map(|(s, c)| (s.as_str(), c.as_str()))
            .chain([(BUILD, BUILD)])
            .collect();
        Ok(rows.into_iter().partition(|r| {
            ids.contains(r.candidate.as_str())
                && keys.contains(&(r.suite.as_str(), r.case.as_str()))
        }))
    }
}

/// Grades the prepared submissions with `course`; `kept` are rows of a
/// resumed scorecard (or, with `only`, every other submission's).
pub fn run(
    ctx: &Context,
    course: &Course,
    prepared: Prepared,
    kept: &[Row],
    on_event: &mut dyn FnMut(Event),
) -> anyhow::Result<ClassResult> {
    let start = Instant::now();
    let Prepared {
        work,
        subs,
        plan,
        keys,
        only,
    } = prepared;
    let chosen = |id: &str| only.as_ref().is_none_or(|o| o.contains(id));

    let done: HashSet<(String, String, String)> = kept.iter().map(Row::key).collect();
    let kept_build = |id: &str| kept.iter().find(|r| r.candidate == id && r.suite == BUILD);
    let todo = |id: &str, suite: &str, case: &str| {
        !done.contains(&(id.to_string(), suite.to_string(), case.to_string()))
    };
    // A submission needs a build unless its build failed before, or every
    // row it gets is already kept.
    let builds: Vec<Job> = subs
        .iter()
        .enumerate()
        .filter(|(_, s)| chosen(&s.id))
        .filter(|(_, s)| match kept_build(&s.id) {
            Some(r) if r.verdict != Verdict::Accepted => false,
            Some(_) => keys.iter().any(|(suite, case)| todo(&s.id, suite, case)),
            None => true,
        })
        .map(|(n, s)| build_job(course, s, work.path(), n))
        .collect();

    let mut summary = Summary::default();
    for row in kept {
        summary.add(row);
    }
    let new_builds = builds.iter().filter(|b| kept_build(&b.label).is_none());
    // The cases of these builds still to run: how many, and their cost.
    let costs = plan.costs();
    let left = |builds: &mut dyn Iterator<Item = &Job>| -> (usize, f64) {
        let mut out = (0, 0.0);
        for b in builds {
            for ((suite, case), cost) in keys.iter().zip(&costs) {
                if todo(&b.label, suite, case) {
                    out = (out.0 + 1, out.1 + cost);
                }
            }
        }
        out
    };
    let (todo_cases, todo_cost) = left(&mut builds.iter());
    let new_builds = new_builds.count();
    on_event(Event::RunStarted {
        candidate: course.file.name.clone(),
        cases: new_builds + todo_cases,
        cost: new_builds as f64 + todo_cost,
        builds: new_builds,
        kept: kept.len(),
        isolation: ctx.executor.describe(),
    });

    let mut rows: Vec<Row> = kept.to_vec();
    // What the result store holds whole needs no build (`lazy`).
    let split = lazy::split(ctx, course, &plan, &keys, builds, &todo);
    for row in split.served {
        emit(row, &mut summary, &mut rows, on_event);
    }
    let (mut builds, build_keys): (Vec<Job>, Vec<Option<_>>) = split.left.into_iter().unzip();

    // Builds, on the job slots. A submission built before keeps its old
    // build row as the record, whatever the new build says.
    let mut built: Vec<Row> = Vec::new();
    pool(ctx, &builds, &mut |event| {
        if let Event::CaseFinished { row } | Event::CaseCancelled { row } = &event {
            built.push((**row).clone());
            if kept_build(&row.candidate).is_some() {
                return;
            }
            rows.push((**row).clone());
        }
        count(&mut summary, &event);
        on_event(event);
    });
    if let Some(store) = ctx.options.store.as_deref() {
        store.built_anew(builds.len());
        for ((job, key), row) in builds.iter().zip(&build_keys).filter_map(|(j, k)| {
            let row = built.iter().find(|r| r.candidate == j.label)?;
            Some(((j, k.as_ref()?), row))
        }) {
            let dir = built_dir(job).expect("a build");
            store.keep_build(key, row, dir, lazy::lacking(course, dir));
        }
    }

    // Copies made from the store: built as their kept rows say.
    for (job, row) in split.restored {
        if kept_build(&row.candidate).is_none() {
            emit(row.clone(), &mut summary, &mut rows, on_event);
        }
        built.push(row);
        builds.push(job);
    }

    // The cases of a submission that did not build never run: off the
    // run's total.
    let built_ok = |id: &str| {
        built
            .iter()
            .any(|r| r.candidate == id && r.verdict == Verdict::Accepted)
    };
    let (withdrawn, cost) = left(&mut builds.iter().filter(|b| !built_ok(&b.label)));
    if withdrawn > 0 {
        on_event(Event::CasesWithdrawn {
            cases: withdrawn,
            cost,
        });
    }

    // Every case of every built submission, a submission's parts in order.
    let per_part: Vec<_> = (0..course.parts.len())
        .map(|i| candidates(course, i, &builds, &built))
        .collect();
    let mut jobs: Vec<Job> = Vec::new();
    for (k, build) in builds.iter().enumerate() {
        if !built_ok(&build.label) {
            continue;
        }
        let each: Vec<_> = per_part.iter().map(|p| p[k].1.clone()).collect();
        let (more, lacking) =
            jobs::of_submission(ctx, course, &plan, &keys, &build.label, &each, &todo);
        jobs.extend(more);
        for row in lacking {
            emit(row, &mut summary, &mut rows, on_event);
        }
    }
    pool(ctx, &jobs, &mut |event| {
        if let Event::CaseFinished { row } | Event::CaseCancelled { row } = &event {
            rows.push((**row).clone());
        }
        count(&mut summary, &event);
        on_event(event);
    });
    let summary = end_run(ctx, summary, start, on_event);
    let replays = match &ctx.options.keep_output {
        Some(dir) => replays::of(course, &plan, &rows, dir),
        None => Replays::new(),
    };
    Ok(ClassResult {
        summary,
        replays,
        rows,
        ids: subs.iter().map(|s| s.id.clone()).collect(),
        keys,
        handins: subs
            .iter()
            .map(|s| (s.id.clone(), s.handin.clone()))
            .collect(),
    })
}

/// A row made without a job (taken from the store, or a part the copy
/// cannot run): reported as finished.
fn emit(row: Row, summary: &mut Summary, rows: &mut Vec<Row>, on_event: &mut dyn FnMut(Event)) {
    let event = Event::CaseFinished {
        row: Box::new(row.clone()),
    };
    rows.push(row);
    count(summary, &event);
    on_event(event);
}

/// What one run of a class writes, for `harness merge`.
pub struct Expected {
    /// Every submission's id, sorted.
    pub ids: Vec<String>,
    /// Every (suite, case) a built submission gets.
    pub keys: Vec<(String, String)>,
    /// Every (submission, suite, case) row.
    pub rows: Vec<(String, String, String)>,
    /// Every submission's handins, by id.
    pub handins: crate::course::policy::Handins,
}

/// Every row a run of `course` on the submissions in `dir` writes, given
/// the rows already written (`rows`: a submission whose build failed gets
/// its build row only).
pub fn expected_keys(
    course: &Course,
    source: &Source,
    filter: Option<&str>,
    rows: &[Row],
) -> anyhow::Result<Expected> {
    let tmp = tempfile::tempdir().context("cannot make a scratch folder")?;
    let subs = gather(source, &tmp.path().join("unpacked"))?;
    let plan = Plan::new(course, tmp.path(), filter)?;
    let keys = plan.keys(course);
    let mut expected = Vec::new();
    for s in &subs {
        let build = (s.id.clone(), BUILD.to_string(), BUILD.to_string());
        let failed = rows
            .iter()
            .any(|r| r.key() == build && r.verdict == Verdict::CompileError);
        expected.push(build);
        if !failed {
            expected.extend(
                keys.iter()
                    .map(|(suite, case)| (s.id.clone(), suite.clone(), case.clone())),
            );
        }
    }
    Ok(Expected {
        ids: subs.iter().map(|s| s.id.clone()).collect(),
        keys,
        rows: expected,
        handins: subs
            .iter()
            .map(|s| (s.id.clone(), s.handin.clone()))
            .collect(),
    })
}

/// A submission built for a contest.
pub struct Built {
    /// The submission id.
    pub id: String,
    /// Its team, under a course's `[contest]`: `None` without the entry
    /// file (it does not enter, and is not built), or why the file does
    /// not name a team (neither).
    pub team: Option<Result<String, String>>,
    /// Its candidate for the course's first part judged by the family's
    /// contract, then for the contest's Checker part where there is one;
    /// or why there is none.
    pub candidates: Vec<Result<Candidate, String>>,
}

/// Builds the submissions in `dir` as `course` does (in `work`), on the
/// work loop, with each one's candidates (a contest's entries). Under a
/// course's `[contest]`, only those whose entry file names a team are
/// built; the others are listed with why.
pub fn built_candidates(
    ctx: &Context,
    course: &Course,
    source: &Source,
    work: &Path,
) -> anyhow::Result<Vec<Built>> {
    let Some(solver) = course.solver_part() else {
        anyhow::bail!(
            "{}: no part runs the family's suites: nothing to time",
            course.path.display()
        );
    };
    let mut parts = vec![solver];
    let contest = course.file.contest.as_ref();
    if let Some(name) = contest.and_then(|c| c.checker.as_ref()) {
        parts.extend(course.parts.iter().position(|p| &p.file.name == name));
    }
    let subs = gather(source, &work.join("unpacked"))?;
    let teams: Vec<Option<Result<String, String>>> = subs
        .iter()
        .map(|s| {
            let c = contest?;
            match &s.source {
                Ok(dir) => crate::course::contest::team(dir, &c.entry_file),
                Err(_) => None,
            }
        })
        .collect();
    let entering: Vec<bool> = teams
        .iter()
        .map(|t| contest.is_none() || matches!(t, Some(Ok(_))))
        .collect();
    let enters = |i: usize| entering[i];
    let builds: Vec<Job> = subs
        .iter()
        .enumerate()
        .filter(|(n, _)| enters(*n))
        .map(|(n, s)| build_job(course, s, work, n))
        .collect();
    let mut rows = Vec::new();
    pool(ctx, &builds, &mut |event| {
        if let Event::CaseFinished { row } | Event::CaseCancelled { row } = event {
            rows.push(*row);
        }
    });
    let mut each: Vec<Vec<(String, Result<Candidate, String>)>> = parts
        .iter()
        .map(|p| candidates(course, *p, &builds, &rows))
        .collect();
    let mut out = Vec::new();
    for (n, (s, team)) in subs.iter().zip(teams).enumerate() {
        let candidates = if enters(n) {
            each.iter_mut().map(|c| c.remove(0).1).collect()
        } else {
            Vec::new()
        };
        out.push(Built {
            id: s.id.clone(),
            team,
            candidates,
        });
    }
    Ok(out)
}
