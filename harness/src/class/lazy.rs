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
use crate::store::{Missing, Store};

/// `builds` split by the store: those still to run, each with the key
/// its build is kept under once run; and the rows of the others (build
/// and cases), taken from the store. `todo`: the rows this run writes.
pub(super) fn split(
    ctx: &Context,
    course: &Course,
    plan: &Plan,
    keys: &[(String, String)],
    builds: Vec<Job>,
    todo: &dyn Fn(&str, &str, &str) -> bool,
) -> (Vec<(Job, Option<String>)>, Vec<Row>) {
    let Some(store) = ctx.options.store.as_deref() else {
        return (builds.into_iter().map(|b| (b, None)).collect(), Vec::new());
    };
    let run = ctx.options.fingerprint(&ctx.executor.label());
    let class = Class {
        ctx,
        course,
        plan,
        keys,
        todo,
    };
    let (mut left, mut served) = (Vec::new(), Vec::new());
    for build in builds {
        let (key, entry) = store.built(&build, &run);
        let rows = entry
            .filter(|_| todo(&build.label, BUILD, BUILD))
            .and_then(|e| class.rows(store, &run, &build, e));
        match rows {
            Some(rows) => served.extend(rows),
            None => {
                if let Some(dir) = super::built_dir(&build) {
                    store.forget(dir);
                }
                left.push((build, key));
            }
        }
    }
    (left, served)
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
