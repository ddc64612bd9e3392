//! `harness merge`: one scorecard from a sharded run's; 1 when rows are
//! duplicated or missing.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::ExitCode;

use harness::class::outputs::{self, Outputs, Results};
use harness::course::Course;
use harness::merge::Key;
use harness::outcome::Row;
use harness::report::{Mode, Scorecard};

/// Merges the shards' scorecards, naming rows duplicated or missing.
pub fn run(args: &crate::cli::MergeArgs) -> anyhow::Result<ExitCode> {
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
    let all: Vec<Row> = shards.iter().flat_map(|(_, r)| r.clone()).collect();
    let (expected, class) = expected(args, &all)?;
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
    if let Some((course, e)) = class {
        let result = harness::class::ClassResult {
            summary: summary.clone(),
            rows: merged.rows.clone(),
            ids: e.ids,
            keys: e.keys,
            handins: e.handins,
            replays: Default::default(),
        };
        let after = Outputs {
            summary: args.summary.clone(),
            results: gradescope
                .iter()
                .map(|dir| Results::export(dir, true))
                .collect::<anyhow::Result<_>>()?,
            credits: args
                .contest_credit
                .as_deref()
                .map(harness::course::contest::read_credits)
                .transpose()?,
            ..Outputs::default()
        };
        outputs::write(&course, &result, &after)?;
    }
    say(args, &summary, &merged);
    Ok(if merged.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Every key one run would have written, when the run's class or suites
/// are given (with the class's course and what it expects).
type Expectation = (
    Option<BTreeSet<Key>>,
    Option<(Course, harness::class::Expected)>,
);

fn expected(args: &crate::cli::MergeArgs, all: &[Row]) -> anyhow::Result<Expectation> {
    if let Some(course_path) = &args.course {
        let course = Course::load_with(course_path, &args.suites)?;
        let dir = args.submissions.clone().unwrap_or_default();
        let source = harness::class::Source::Folder(dir);
        let e = harness::class::expected_keys(&course, &source, args.filter.as_deref(), all)?;
        let keys = e.rows.iter().cloned().collect();
        return Ok((Some(keys), Some((course, e))));
    }
    if args.suites.is_empty() {
        return Ok((None, None));
    }
    let family = crate::options::family(args.family.as_deref())?;
    let cases = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    Ok((Some(harness::merge::expected_of_suites(all, &cases)), None))
}

/// The suites' tallies and what was merged, then what is wrong.
fn say(
    args: &crate::cli::MergeArgs,
    summary: &harness::event::Summary,
    merged: &harness::merge::Merged,
) {
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
}
