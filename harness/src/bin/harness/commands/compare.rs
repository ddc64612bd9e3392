//! `harness compare`: the changes between two scorecards, or the totals
//! of two class summaries; 1 if any regressed.

use std::io::Write;
use std::process::ExitCode;

use crate::cli::CompareArgs;

/// Compares, prints the table, writes the exports.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let exports = args
        .exports
        .iter()
        .map(|e| Ok(harness::export::parse_target(e, &["json"])?.1))
        .collect::<anyhow::Result<Vec<_>>>()?;
    use harness::compare::summary;
    match (
        summary::is_summary(&args.baseline),
        summary::is_summary(&args.new),
    ) {
        (true, true) => {
            let c = summary::compare(&args.baseline, &args.new)?;
            for path in &exports {
                harness::export::write_atomically(path, &harness::export::pretty_json(&c)?)?;
            }
            let _ = std::io::stdout().write_all(summary::table(&c).as_bytes());
            return Ok(ExitCode::from(u8::from(c.regressed)));
        }
        (false, false) => {}
        (b, _) => anyhow::bail!(
            "{} is a class summary and {} a scorecard: compare two of a kind",
            if b { &args.baseline } else { &args.new }.display(),
            if b { &args.new } else { &args.baseline }.display()
        ),
    }
    let side = |path: &std::path::Path| -> anyhow::Result<harness::compare::Runs> {
        Ok(harness::compare::Runs {
            rows: harness::report::read_rows(path)?,
            spread: harness::report::read_spreads(path)?,
        })
    };
    let (base, new) = (side(&args.baseline)?, side(&args.new)?);
    let thresholds = harness::compare::Thresholds {
        relative: args.threshold,
        min_delta: args.min_delta,
        metric: crate::options::metric(args.metric),
        noise: args.noise,
    };
    let c = harness::compare::compare(&base, &new, &thresholds);
    for path in &exports {
        harness::export::write_atomically(path, &harness::export::pretty_json(&c)?)?;
    }
    let _ = std::io::stdout().write_all(harness::compare::table(&c).as_bytes());
    Ok(if c.regressed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
