//! The rows a regrade takes from a finished scorecard: those of cases
//! and submissions the class holds, one a case; what else is there is
//! named and left out, or (two rows of one case) an error.

use std::collections::HashSet;

use anyhow::Context as _;

/// The rows of the scorecard `card` a regrade leaves out (of cases or
/// submissions the class does not holds), named on stderr; an error,
/// before the scorecard is opened, where one submission's case has two
/// rows.
pub(super) fn apart(
    prepared: &harness::class::Prepared,
    card: &std::path::Path,
) -> anyhow::Result<HashSet<(String, String, String)>> {
    let rows = harness::report::read_rows(card)?;
    let (_, apart) = prepared
        .held(rows)
        .with_context(|| format!("{}", card.display()))?;
    if !apart.is_empty() {
        let named: Vec<String> = apart
            .iter()
            .take(5)
            .map(|r| format!("{} {} {}", r.candidate, r.suite, r.case))
            .collect();
        eprintln!(
            "harness: regrade leaves out {} rows of cases or submissions the class does not hold: {}{}",
            apart.len(),
            named.join(", "),
            if apart.len() > 5 { ", ..." } else { "" }
        );
    }
    Ok(apart.iter().map(harness::outcome::Row::key).collect())
}

/// `kept` less the rows a regrade leaves out (`apart`: `None`, not a
/// regrade, leaves all); an error where a row the class needs is missing
/// (nothing runs in a regrade).
pub(super) fn held(
    apart: Option<HashSet<(String, String, String)>>,
    kept: Vec<harness::outcome::Row>,
    prepared: &harness::class::Prepared,
    card: &std::path::Path,
) -> anyhow::Result<Vec<harness::outcome::Row>> {
    let Some(apart) = apart else {
        return Ok(kept);
    };
    let kept: Vec<_> = kept
        .into_iter()
        .filter(|r| !apart.contains(&r.key()))
        .collect();
    if let pending @ 1.. = prepared.pending(&kept) {
        anyhow::bail!(
            "{}: {pending} builds and cases have no row (the class, suites or filter changed): \
             `harness grade --resume` runs them",
            card.display()
        );
    }
    Ok(kept)
}
