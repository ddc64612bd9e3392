//! Suites to cases: find listings under the given paths (walkdir), tell
//! their family by header, and turn each row into a case. A row whose
//! files are missing still becomes a case: grading reports it as
//! `harness-error`. A
//! folder or listing that cannot be read is an error, never skipped: a
//! whole suite must not go missing quietly.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use reference::families::{ListingMatch, family_for_listing};
use reference::family::Grader;
use reference::file::listing_dir;

use crate::job::{Case, Loaded};

/// Finds every listing under `roots` and returns their cases, in listing
/// order. `only` keeps one family; `filter` keeps cases whose `suite/case`
/// contains it. An error when no listing is found at all.
pub fn discover(
    roots: &[PathBuf],
    only: Option<&'static dyn Grader>,
    filter: Option<&str>,
) -> anyhow::Result<Vec<Case>> {
    let mut listings = Vec::new();
    for root in roots {
        let found = find_listings(root, only)?;
        if found.is_empty() {
            bail!("no suite listing found under {}", root.display());
        }
        listings.extend(found);
    }
    let mut jobs = Vec::new();
    for (path, family, columns) in listings {
        let found = read_listing(&path, family, columns)?;
        if found.is_empty() {
            bail!(
                "suite {} lists no cases ({})",
                suite_name(&path),
                path.display()
            );
        }
        jobs.extend(found);
    }
    if let Some(f) = filter {
        jobs.retain(|j| format!("{}/{}", j.suite, j.name).contains(f));
        if jobs.is_empty() {
            bail!("no case matches --filter {f:?}");
        }
    }
    Ok(jobs)
}

/// A listing found: its path, family and number of file columns.
type Listing = (PathBuf, &'static dyn Grader, usize);

/// The listings under `root` (or `root` itself when it is a listing), sorted.
fn find_listings(root: &Path, only: Option<&'static dyn Grader>) -> anyhow::Result<Vec<Listing>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let Some((family, columns)) = listing_family(path)? else {
            continue;
        };
        if only.is_none_or(|o| o.name() == family.name()) {
            out.push((path.to_owned(), family, columns));
        }
    }
    Ok(out)
}

/// The family of a listing and its number of file columns, from its header
/// line; `None` for a CSV that is no listing. Unreadable is an error.
fn listing_family(path: &Path) -> anyhow::Result<Option<(&'static dyn Grader, usize)>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .with_context(|| format!("cannot read listing {}", path.display()))?;
    let header = reader
        .headers()
        .with_context(|| format!("cannot read listing {}: line 1", path.display()))?
        .clone();
    let cols: Vec<&str> = header.iter().collect();
    match family_for_listing(&cols) {
        ListingMatch::None => Ok(None),
        ListingMatch::Family(f, n) => Ok(Some((f, n))),
        ListingMatch::Ambiguous(a, b) => bail!(
            "{}: line 1: the header fits both {} and {}",
            path.display(),
            a.name(),
            b.name()
        ),
    }
}

/// The suite name of a listing: its stem, under the folder that names it
/// (`suites/toy/easy/easy.csv` is `toy/easy`,
/// `corpus/cs61bl-blocks/easy.csv` is `cs61bl-blocks/easy`).
pub fn suite_name(listing: &Path) -> String {
    let stem = listing
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name_of = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    };
    let parent = listing.parent();
    let folder = match name_of(parent) {
        Some(p) if p == stem => name_of(parent.and_then(Path::parent)),
        other => other,
    };
    match folder {
        Some(f) if !f.is_empty() => format!("{f}/{stem}"),
        _ => stem,
    }
}

/// The jobs of one listing. Files are looked up in the folder named like the
/// listing when there is one (`easy.csv` beside `easy/`), else beside it.
fn read_listing(path: &Path, family: &'static dyn Grader, n: usize) -> anyhow::Result<Vec<Case>> {
    let text = fs::read(path).with_context(|| format!("cannot read listing {}", path.display()))?;
    let base = listing_dir(path);
    let base = base.canonicalize().unwrap_or(base);
    let suite = suite_name(path);
    let root = path
        .parent()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.to_owned()))
        .unwrap_or_default();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_slice());
    let mut jobs = Vec::new();
    let mut seen: HashMap<Vec<String>, usize> = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let job = |name: String, files| Case {
            family,
            suite: suite.clone(),
            name,
            files,
            root: root.clone(),
            given: None,
            loaded: Loaded::default(),
        };
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                jobs.push(job(
                    format!("line {line}"),
                    Err(format!("{}: {e}", path.display())),
                ));
                continue;
            }
        };
        if record.iter().all(str::is_empty) {
            continue;
        }
        let names: Vec<&str> = record.iter().take(n).collect();
        let mut case = names.join("+");
        let files = if names.len() < n || names.iter().any(|s| s.is_empty()) {
            Err(format!(
                "{}: line {line}: expected {n} file column(s)",
                path.display()
            ))
        } else {
            let key = names.iter().map(|s| s.to_string()).collect();
            match seen.get(&key) {
                Some(first) => {
                    case = format!("{case} (line {line})");
                    Err(format!(
                        "{}: line {line}: the same files as line {first}",
                        path.display()
                    ))
                }
                None => {
                    seen.insert(key, line);
                    Ok(names.iter().map(|f| base.join(f)).collect())
                }
            }
        };
        jobs.push(job(case, files));
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names() {
        assert_eq!(
            suite_name(Path::new("suites/toy/easy/easy.csv")),
            "toy/easy"
        );
        assert_eq!(
            suite_name(Path::new("../shared/corpus/cs61bl-blocks/easy.csv")),
            "cs61bl-blocks/easy"
        );
        assert_eq!(
            suite_name(Path::new("corpus/cmu15122-lights/boards.csv")),
            "cmu15122-lights/boards"
        );
    }
}
