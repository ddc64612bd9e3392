//! `harness merge`: one scorecard from a sharded run's; 1 when rows are
//! duplicated or missing.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use harness::course::Course;
use harness::report::{Mode, Scorecard};

/// Merges the shards' scorecards, naming rows duplicated or missing.
pub fn run(args: &crate::cli::MergeArgs) -> anyhow::Result<ExitCode> {
    use std::collections::BTreeSet;
    let mut shards = Vec::new();
    for path in &args.shards {
        shards.push((
            path.display().to_string(),
            harness::report::read_scorecard(path)?,
        ));
    }
    let all: Vec<harness::outcome::Row> = shards.iter().flat_map(|(_, r)| r.clone()).collect();
    let mut class = None;
    let expected: Option<BTreeSet<harness::merge::Key>> = if let Some(course_path) = &args.course {
        let mut course = Course::load(course_path)?;
        if !args.suites.is_empty() {
            course.override_suites(&args.suites)?;
        }
        let tmp = tempfile::tempdir().context("cannot make a scratch folder")?;
        let dir = args.submissions.clone().unwrap_or_default();
        let subs = harness::class::submissions(&dir, &tmp.path().join("unpacked"))?;
        let plan = harness::class::Plan::new(&course, tmp.path(), args.filter.as_deref())?;
        let keys = plan.keys(&course);
        let mut expected = BTreeSet::new();
        for s in &subs {
            let build = (
                s.id.clone(),
                harness::class::BUILD.to_string(),
                harness::class::BUILD.to_string(),
            );
            let failed = all
                .iter()
                .any(|r| r.key() == build && r.verdict == harness::outcome::Verdict::CompileError);
            expected.insert(build);
            if !failed {
                expected.extend(
                    keys.iter()
                        .map(|(suite, case)| (s.id.clone(), suite.clone(), case.clone())),
                );
            }
        }
        let ids = subs.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        class = Some((course, ids, keys));
        Some(expected)
    } else if !args.suites.is_empty() {
        let family = match &args.family {
            None => None,
            Some(n) => Some(
                reference::families::family(n).with_context(|| format!("unknown family {n:?}"))?,
            ),
        };
        let jobs = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
        let candidates: BTreeSet<String> = all.iter().map(|r| r.candidate.clone()).collect();
        Some(
            candidates
                .iter()
                .flat_map(|c| {
                    jobs.iter()
                        .map(move |j| (c.clone(), j.suite.clone(), j.case.clone()))
                })
                .collect(),
        )
    } else {
        None
    };
    let merged = harness::merge::merge(&shards, expected.as_ref());
    let mode = if args.force {
        Mode::Force
    } else {
        Mode::Create
    };
    let (mut card, _) = Scorecard::open(&args.out, mode, None)?;
    let mut summary = harness::event::Summary::default();
    for row in &merged.rows {
        card.append(row)?;
        summary.add(row);
    }
    if let Some((course, ids, keys)) = &class {
        let points = harness::class::points(course, ids, keys, &merged.rows);
        if let Some(path) = &args.summary {
            harness::class::write_summary(path, course, &points)?;
        }
        for e in &args.exports {
            match e.split_once(':') {
                Some(("gradescope", dir)) if !dir.is_empty() => harness::class::write_gradescope(
                    std::path::Path::new(dir),
                    course,
                    &points,
                    &merged.rows,
                )?,
                _ => anyhow::bail!("--export takes gradescope:DIR, got {e:?}"),
            }
        }
    }
    let mut out = std::io::stdout().lock();
    for (suite, t) in &summary.suites {
        let _ = writeln!(out, "{suite}: {}/{} accepted", t.accepted(), t.total());
    }
    let _ = writeln!(
        out,
        "merged {} rows from {} shard(s) into {}",
        merged.rows.len(),
        args.shards.len(),
        args.out.display()
    );
    for (what, list) in [
        ("duplicated", &merged.duplicated),
        ("missing", &merged.missing),
    ] {
        if !list.is_empty() {
            eprintln!("harness merge: {} row(s) {what}:", list.len());
            for l in list.iter().take(50) {
                eprintln!("  {l}");
            }
            if list.len() > 50 {
                eprintln!("  ... and {} more", list.len() - 50);
            }
        }
    }
    Ok(if merged.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
