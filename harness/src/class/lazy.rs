//! Builds the result store makes needless. A build is kept in the store
//! by the digest of its inputs (the submission's files, the course's
//! recipe and the files it names), with the digest of the copy it made
//! and what that copy lacks of each part's required files; its cases are
//! keyed by that copy's digest. So a submission whose build is kept, with
//! a row for every one of its cases, gets its rows from the store without
//! its copy being made or built: a class graded again runs neither builds
//! nor cases for what did not change.

use std::path::Path;

use super::plan::Plan;
use crate::course::Course;
use crate::job::{BUILD, Job};
use crate::outcome::{Row, Verdict};
use crate::settings::Context;
use crate::store::{Key, Missing, Store};

/// `builds` split by the store.
pub(super) struct Split {
    /// Those still to run, each with the key its build is kept under once
    /// run.
    pub left: Vec<(Job, Option<Key>)>,
    /// The rows of those the store holds whole (build and cases).
    pub served: Vec<Row>,
    /// Those whose copies were made from the store, with their build rows:
    /// their cases not kept run on them.
    pub restored: Vec<(Job, Row)>,
}

/// `builds` split by the store (see [`Split`]). `todo`: the rows this run
/// writes.
pub(super) fn split(
    ctx: &Context,
    course: &Course,
    plan: &Plan,
    keys: &[(String, String)],
    builds: Vec<Job>,
    todo: &dyn Fn(&str, &str, &str) -> bool,
) -> Split {
    let mut split = Split {
        left: Vec::new(),
        served: Vec::new(),
        restored: Vec::new(),
    };
    let Some(store) = ctx.options.store.as_deref() else {
        split.left = builds.into_iter().map(|b| (b, None)).collect();
        return split;
    };
    let run = ctx.options.fingerprint(&ctx.executor.label());
    let class = Class {
        ctx,
        course,
        plan,
        keys,
        todo,
    };
    for build in builds {
        let (key, entry) = store.built(&build, &run);
        let entry = entry.filter(|_| todo(&build.label, BUILD, BUILD));
        let rows = entry
            .clone()
            .and_then(|e| class.rows(store, &run, &build, e));
        if let Some(rows) = rows {
            split.served.extend(rows);
            continue;
        }
        // Some row must run: its copy made again where it was kept whole
        // (and holds what the build made), else built.
        if let (Some(k), Some(e)) = (&key, &entry)
            && e.row.verdict == Verdict::Accepted
            && store.restore(&build, k, e)
        {
            if let Some(dir) = super::built_dir(&build) {
                crate::grade::build::allow_everyone(dir);
            }
            let mut head = e.row.clone();
            head.candidate.clone_from(&build.label);
            store.reused(1);
            split.restored.push((build, head));
            continue;
        }
        if let Some(dir) = super::built_dir(&build) {
            store.forget(dir);
        }
        split.left.push((build, key));
    }
    split
}

/// What a submission's jobs are made from.
struct Class<'a> {
    ctx: &'a Context<'a>,
    course: &'a Course,
    plan: &'a Plan,
    keys: &'a [(String, String)],
    todo: &'a dyn Fn(&str, &str, &str) -> bool,
}

impl Class<'_> {
    /// The rows of the submission built by `build`, as its kept `entry`
    /// says (its build's row, then its cases' from the store), where the
    /// store holds every one.
    fn rows(
        &self,
        store: &Store,
        run: &str,
        build: &Job,
        entry: crate::store::Built,
    ) -> Option<Vec<Row>> {
        let mut head = entry.row;
        head.candidate.clone_from(&build.label);
        if head.verdict != Verdict::Accepted {
            store.reused(1);
            return Some(vec![head]);
        }
        // What the copy lacked, as the entry says (a part whose required
        // files changed since: unknown, so built).
        let known = |required: &[String]| -> Option<Option<String>> {
            if required.is_empty() {
                return Some(None);
            }
            let said = entry.missing.iter().find(|(r, _)| r == required);
            said.map(|(_, m): &Missing| m.clone())
        };
        let course = self.course;
        if course
            .parts
            .iter()
            .any(|p| known(&p.file.require).is_none())
        {
            return None;
        }
        let lacks = |_: &Path, required: &[String]| known(required).flatten();
        let per_part: Vec<_> = (0..course.parts.len())
            .map(|i| super::jobs::candidate(course, i, build, Some(&head), &lacks))
            .collect();
        let (jobs, lacking) = super::jobs::of_submission(
            self.ctx,
            course,
            self.plan,
            self.keys,
            &build.label,
            &per_part,
            self.todo,
        );
        crate::grade::prepare(self.ctx, &jobs);
        let cases = store.all(&jobs, run)?;
        store.reused(1);
        Some([vec![head], lacking, cases].concat())
    }
}

/// What each part of `course` requires that the copy in `dir` lacks, for
/// the build's entry in the store.
pub(super) fn lacking(course: &Course, dir: &Path) -> Vec<Missing> {
    course
        .parts
        .iter()
        .filter(|p| !p.file.require.is_empty())
        .map(|p| {
            let required = p.file.require.clone();
            let missing = crate::grade::build::missing(dir, &required);
            (required, missing)
        })
        .collect()
}
