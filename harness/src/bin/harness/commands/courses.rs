//! `harness courses --for DIR`: the bundled course a handin was written
//! for, by the interfaces its code uses (`harness::course::marks`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use harness::course::Course;
use harness::course::marks;

/// The most of a handin's files read, and of each.
const MOST_FILES: usize = 200;
const MOST_BYTES: u64 = 1 << 20;

/// Prints the bundled courses with marks, the best fit for the handin in
/// `dir` first; exit 1 where none fits or two fit alike.
pub fn fitting(dir: &Path) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(dir.is_dir(), "{}: not a folder (a handin's)", dir.display());
    let text = text_of(dir)?;
    let mut fits = Vec::new();
    for (short, _) in crate::bundled::courses() {
        let path = crate::bundled::course(Path::new(&short))?;
        let course = Course::load(&path)?;
        let Some(build) = course.file.build.as_ref().filter(|b| !b.marks.is_empty()) else {
            continue;
        };
        let (used, unused) = marks::fit(&build.marks, &text);
        let found = marks::found(&build.marks, &text).join(", ");
        fits.push((
            std::cmp::Reverse(used),
            unused,
            short,
            build.marks.len(),
            found,
        ));
    }
    fits.sort();
    let mut out = String::new();
    for (std::cmp::Reverse(used), _, short, of, found) in &fits {
        out.push_str(&format!("{short:<13} {used} of {of} marks"));
        if !found.is_empty() {
            out.push_str(&format!(": {found}"));
        }
        out.push('\n');
    }
    print!("{out}");
    let best = |i: usize| fits.get(i).map(|f| (f.0, f.1));
    match best(0) {
        Some((std::cmp::Reverse(used), _)) if used > 0 && best(0) != best(1) => {
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            eprintln!(
                "harness: no one bundled course fits {} best by the interfaces its code uses",
                dir.display()
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The text of the handin's files (at most [`MOST_FILES`], each at most
/// [`MOST_BYTES`]; links not followed).
fn text_of(dir: &Path) -> anyhow::Result<String> {
    let mut text = String::new();
    for entry in walkdir::WalkDir::new(dir)
        .max_depth(3)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MOST_BYTES))
        .take(MOST_FILES)
    {
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        text.push_str(&String::from_utf8_lossy(&bytes));
        text.push('\n');
    }
    Ok(text)
}
