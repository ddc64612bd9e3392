//! `harness merge`: one scorecard from a sharded run's; 1 when rows are
//! duplicated or missing.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use harness::course::{Course, points};
use harness::report::{Mode, Scorecard};

/// Merges the shards' scorecards, naming rows duplicated or missing.
pub fn run(args: &crate::cli::MergeArgs) -> anyhow::Result<ExitCode> {
    use std::collections::BTreeSet;
    let gradescope = args
        .exports
        .iter()
        .map(|e| Ok(harness::export::parse_target(e, &["gradescope"])?.1))
        .collect::<anyhow::Result<Vec<_>>>()?;
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
        let dir = args.submissions.clone().unwrap_or_default();
        let e = harness::class::expected_keys(
            &course,
            &harness::class::Source::Folder(dir),
            args.filter.as_deref(),
            &all,
        )?;
        class = Some((course, e.ids, e.keys, e.handins));
        Some(e.rows.into_iter().collect())
    } else if !args.suites.is_empty() {
        let family = match &args.family {
            None => None,
            Some(n) => Some(
                reference::families::family(n).with_context(|| format!("unknown family {n:?}"))?,
            ),
        };
        let cases = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
        let candidates: BTreeSet<String> = all.iter().map(|r| r.candidate.clone()).collect();
        Some(
            candidates
                .iter()
                .flat_map(|c| {
                    cases
                        .iter()
                        .map(move |j| (c.clone(), j.suite.clone(), j.name.clone()))
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
    super::refuse_existing(&args.out, args.force)?;
    let (mut card, _) = Scorecard::open(&args.out, mode, None)?;
    let mut summary = harness::event::Summary::default();
    for row in &merged.rows {
        card.append(row)?;
        summary.add(row);
    }
    if let Some((course, ids, keys, handins)) = &class {
        let credits = args
            .contest_credit
            .as_deref()
            .map(harness::course::contest::read_credits)
            .transpose()?;
        let points = points::points(course, ids, keys, &merged.rows, handins, credits.as_ref());
        if let Some(path) = &args.summary {
            points::write_summary(path, course, &points)?;
        }
        for dir in &gradescope {
            points::write_gradescope(dir, course, &points, &merged.rows)?;
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
