//! Suites to cases: find listings under the given paths (walkdir), tell
//! their family by header, and turn each row into a case. A row whose
//! files are missing still becomes a case: grading reports it as
//! `harness-error`. A
//! folder or listing that cannot be read is an error, never skipped: a
//! whole suite must not go missing quietly.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use reference::families::{ListingMatch, family_for_listing};
use reference::family::Grader;
use reference::file::listing_dir;

use std::sync::Arc;

mod package;

use crate::job::{Candidate, Case, Job, Jobs, Validator};
use crate::settings::Selection;
pub use package::any_interactive;
use package::{package_cases, package_grader};

/// Finds every listing under `roots` and returns their cases, in listing
/// order. `only` keeps one family; `filter` keeps cases whose `suite/case`
/// contains it. An error when no listing is found at all, when a listing
/// lists no case, or when `filter` keeps none.
pub fn discover(
    roots: &[PathBuf],
    only: Option<&'static dyn Grader>,
    filter: Option<&str>,
) -> anyhow::Result<Vec<Case>> {
    let found = Suites::find(roots, only, filter)?;
    Ok(found.cases().collect())
}

/// The listings under some suites, checked (each readable, each with a
/// case, some case kept by the filter), and their cases one by one, never
/// held all at once: a suite of a million cases costs what one case costs.
pub struct Suites {
    /// Each listing, with the hashes of the file names that more than one
    /// of its rows name (rarely any).
    listings: Vec<(Listing, std::sync::Arc<HashSet<u64>>)>,
    /// Each problem package's own output validator, by its folder: one
    /// for all its cases, built once.
    validators: Vec<(PathBuf, Arc<Validator>)>,
    filter: Option<String>,
    count: usize,
    cost: f64,
    hasher: std::collections::hash_map::RandomState,
}

impl Suites {
    /// Finds the listings under `roots` (see [`discover`]) and reads each
    /// through once, to check it and count its cases.
    pub fn find(
        roots: &[PathBuf],
        only: Option<&'static dyn Grader>,
        filter: Option<&str>,
    ) -> anyhow::Result<Self> {
        let mut listings = Vec::new();
        for root in roots {
            let found = find_listings(root, only)?;
            if found.is_empty() {
                bail!("no suite listing found under {}", root.display());
            }
            listings.extend(found);
        }
        let hasher = std::collections::hash_map::RandomState::new();
        let (mut count, mut cost) = (0, 0.0);
        let mut checked = Vec::new();
        let mut validators = Vec::new();
        for (path, family, columns) in listings {
            if columns == PACKAGE {
                if let Some(v) = package::validator(&path)? {
                    validators.push((path.clone(), Arc::new(v)));
                }
                let cases = package_cases(&path, family, package::of(&validators, &path))?;
                let kept: Vec<&Case> = cases
                    .iter()
                    .filter(|c| filter.is_none_or(|f| keeps(f, c)))
                    .collect();
                count += kept.len();
                cost += kept.iter().map(|c| c.expected_cost()).sum::<f64>();
                checked.push(((path, family, columns), Default::default()));
                continue;
            }
            // Read through once: its cases counted, and the hashes of their
            // files (8 bytes a row, for as long as this listing is read)
            // sorted to find those named twice.
            let mut cases = ListingCases::open(&path, family, columns, &hasher, None)?;
            let mut listed = 0;
            let mut kept = 0;
            for case in cases.by_ref() {
                listed += 1;
                if filter.is_none_or(|f| keeps(f, &case)) {
                    kept += 1;
                    cost += case.expected_cost();
                }
            }
            if listed == 0 {
                bail!(
                    "suite {} lists no cases ({})",
                    suite_name(&path),
                    path.display()
                );
            }
            let mut hashes = cases.hashes.take().unwrap_or_default();
            drop(cases);
            hashes.sort_unstable();
            let twice: HashSet<u64> = hashes
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .collect();
            drop(hashes);
            let twice = std::sync::Arc::new(twice);
            if !twice.is_empty() && filter.is_some() {
                // A row named twice is a case of its own name (its line
                // added): counted again as it will be.
                let again = ListingCases::open(&path, family, columns, &hasher, Some(&twice))?;
                kept = again.filter(|c| filter.is_none_or(|f| keeps(f, c))).count();
            }
            count += kept;
            checked.push(((path, family, columns), twice));
        }
        if let Some(f) = filter
            && count == 0
        {
            bail!("no case matches --filter {f:?}");
        }
        Ok(Self {
            listings: checked,
            validators,
            filter: filter.map(str::to_owned),
            count,
            cost,
            hasher,
        })
    }

    /// The problem packages' own output validators (to build before any
    /// case runs: see `grade::validator::build`).
    pub fn validators(&self) -> impl Iterator<Item = &Validator> {
        self.validators.iter().map(|(_, v)| &**v)
    }

    /// How many cases [`Suites::cases`] gives.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The jobs of `candidate` (its scorecard name `label`) on these
    /// suites, for the cases `todo` keeps (`resumed`: some may be left
    /// out, the rows a resumed run kept): all of them, read as the run
    /// goes, or a shard's share balanced by the cases' costs (every case
    /// weighed first).
    pub fn jobs<'a>(
        &'a self,
        label: &'a str,
        candidate: &'a Arc<Candidate>,
        selection: &Selection,
        (todo, resumed): (impl Fn(&Case) -> bool + Send + Clone + 'a, bool),
    ) -> Jobs<'a> {
        let job = move |c: Case| Job::puzzle(label, candidate, &Arc::new(c));
        match selection.shard {
            Some(shard) => {
                let costs = selection.shard_costs.as_deref();
                let cases = crate::shard::select(self.cases().collect(), shard, |c| {
                    let files = c.files.as_deref().unwrap_or_default();
                    let cost = crate::shard::case_cost(costs, &c.suite, &c.name, files);
                    (format!("{}/{}", c.suite, c.name), cost)
                });
                let jobs: Vec<Job> = cases.into_iter().filter(|c| todo(c)).map(job).collect();
                Jobs::from(jobs)
            }
            None => {
                let count = if resumed {
                    self.cases().filter(|c| todo(c)).count()
                } else {
                    self.count()
                };
                // (A resumed run's cost: its share of the whole's.)
                let cost = self.cost * count as f64 / self.count.max(1) as f64;
                Jobs::stream(count, self.cases().filter(move |c| todo(c)).map(job)).with_cost(cost)
            }
        }
    }

    /// Every case, in listing order, read from the listings as they are
    /// taken. A listing that cannot be read again gives a case saying so.
    pub fn cases(&self) -> impl Iterator<Item = Case> + Send + '_ {
        self.listings
            .iter()
            .flat_map(|((path, family, columns), twice)| {
                let cases: Box<dyn Iterator<Item = Case> + Send> = if *columns == PACKAGE {
                    match package_cases(path, *family, package::of(&self.validators, path)) {
                        Ok(c) => Box::new(c.into_iter()),
                        Err(e) => Box::new(std::iter::once(unreadable(path, *family, &e))),
                    }
                } else {
                    match ListingCases::open(path, *family, *columns, &self.hasher, Some(twice)) {
                        Ok(c) => Box::new(c),
                        Err(e) => Box::new(std::iter::once(unreadable(path, *family, &e))),
                    }
                };
                cases
            })
            .filter(|c| self.filter.as_deref().is_none_or(|f| keeps(f, c)))
    }
}

/// Whether `--filter f` keeps `case`.
fn keeps(f: &str, case: &Case) -> bool {
    let (suite, name) = (&case.suite, &case.name);
    // `suite/case` contains f: without making the string, where a part
    // holds it whole.
    suite.contains(f) || name.contains(f) || format!("{suite}/{name}").contains(f)
}

/// The case of a listing that could not be read again.
fn unreadable(path: &Path, family: &'static dyn Grader, e: &anyhow::Error) -> Case {
    let root = path.parent().map(Path::to_owned).unwrap_or_default();
    Case::new(
        family,
        (suite_name(path), "listing".into()),
        Err(format!("{e:#}")),
        root,
    )
}

/// A listing found: its path, family and number of file columns; or a
/// problem package: its folder, its grader and [`PACKAGE`].
type Listing = (PathBuf, &'static dyn Grader, usize);

/// The file columns of a problem package's "listing" (none: its cases are
/// its `data/` folder's).
const PACKAGE: usize = 0;

/// The listings under `root` (or `root` itself when it is a listing), in
/// the order of a walk that takes each folder's entries by name. The walk
/// reads folders as it goes and keeps only the listings (a suite's folder
/// of a million puzzle files is never held), then sorts them by path, one
/// name after another: the same order.
fn find_listings(root: &Path, only: Option<&'static dyn Grader>) -> anyhow::Result<Vec<Listing>> {
    let mut paths = Vec::new();
    let mut walk = walkdir::WalkDir::new(root).into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
        let path = entry.path();
        if entry.file_type().is_dir() && path.join("problem.yaml").is_file() {
            // A problem package: a suite of its own, nothing below it a
            // listing.
            paths.push(path.to_owned());
            walk.skip_current_dir();
        } else if entry.file_type().is_file() && path.extension().is_some_and(|e| e == "csv") {
            paths.push(path.to_owned());
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            if only.is_none_or(|o| o.name() == reference::package::grader::NAME) {
                out.push((path.clone(), package_grader(&path)?, PACKAGE));
            }
            continue;
        }
        let Some((family, columns)) = listing_family(&path)? else {
            continue;
        };
        if only.is_none_or(|o| o.name() == family.name()) {
            out.push((path, family, columns));
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

/// The cases of one listing, read a row at a time. Files are looked up in
/// the folder named like the listing when there is one (`easy.csv` beside
/// `easy/`), else beside it. A row that names the same files as an earlier
/// one is a case saying so: only rows whose files hash to one of `twice`
/// (found by an earlier read, see [`Suites::find`]) are remembered, and a
/// match is confirmed by reading the listing again up to it, so it names
/// the line. Without `twice`, the hashes of every row's files are
/// gathered instead (`hashes`).
struct ListingCases {
    path: PathBuf,
    family: &'static dyn Grader,
    columns: usize,
    reader: csv::Reader<std::io::BufReader<fs::File>>,
    base: PathBuf,
    suite: String,
    root: PathBuf,
    line: usize,
    seen: HashSet<u64>,
    hasher: std::collections::hash_map::RandomState,
    twice: Option<std::sync::Arc<HashSet<u64>>>,
    hashes: Option<Vec<u64>>,
}

impl ListingCases {
    fn open(
        path: &Path,
        family: &'static dyn Grader,
        columns: usize,
        hasher: &std::collections::hash_map::RandomState,
        twice: Option<&std::sync::Arc<HashSet<u64>>>,
    ) -> anyhow::Result<Self> {
        let file = fs::File::open(path)
            .with_context(|| format!("cannot read listing {}", path.display()))?;
        let base = listing_dir(path);
        let base = base.canonicalize().unwrap_or(base);
        let root = path
            .parent()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.to_owned()))
            .unwrap_or_default();
        let reader = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(std::io::BufReader::new(file));
        Ok(Self {
            path: path.to_owned(),
            family,
            columns,
            reader,
            base,
            suite: suite_name(path),
            root,
            line: 1,
            seen: HashSet::new(),
            hasher: hasher.clone(),
            twice: twice.cloned(),
            hashes: twice.is_none().then(Vec::new),
        })
    }

    fn case(&self, name: String, files: Result<Vec<PathBuf>, String>) -> Case {
        let names = (self.suite.clone(), name);
        Case::new(self.family, names, files, self.root.clone())
    }

    /// The line of the first row before `line` naming `names`, if any.
    fn first_with(&self, names: &[&str], line: usize) -> Option<usize> {
        let file = fs::File::open(&self.path).ok()?;
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(std::io::BufReader::new(file));
        for (i, record) in reader.records().enumerate() {
            let at = i + 2;
            if at >= line {
                break;
            }
            let Ok(record) = record else { continue };
            let theirs: Vec<&str> = record.iter().take(self.columns).collect();
            if theirs == names {
                return Some(at);
            }
        }
        None
    }
}

impl Iterator for ListingCases {
    type Item = Case;

    fn next(&mut self) -> Option<Case> {
        use std::hash::BuildHasher;
        let mut record = csv::StringRecord::new();
        loop {
            self.line += 1;
            let line = self.line;
            match self.reader.read_record(&mut record) {
                Ok(false) => return None,
                Ok(true) => {}
                Err(e) => {
                    let why = format!("{}: {e}", self.path.display());
                    return Some(self.case(format!("line {line}"), Err(why)));
                }
            }
            if record.iter().all(str::is_empty) {
                continue;
            }
            let n = self.columns;
            let names: Vec<&str> = record.iter().take(n).collect();
            let mut case = names.join("+");
            let files = if names.len() < n || names.iter().any(|s| s.is_empty()) {
                Err(format!(
                    "{}: line {line}: expected {n} file column(s)",
                    self.path.display()
                ))
            } else {
                let key = self.hasher.hash_one(&names);
                if let Some(hashes) = &mut self.hashes {
                    hashes.push(key);
                }
                let suspect = self.twice.as_ref().is_some_and(|t| t.contains(&key));
                let first = if !suspect || self.seen.insert(key) {
                    None
                } else {
                    self.first_with(&names, line)
                };
                match first {
                    Some(first) => {
                        case = format!("{case} (line {line})");
                        Err(format!(
                            "{}: line {line}: the same files as line {first}",
                            self.path.display()
                        ))
                    }
                    None => Ok(names.iter().map(|f| self.base.join(f)).collect()),
                }
            };
            return Some(self.case(case, files));
        }
    }
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
