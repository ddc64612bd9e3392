//! A part whose candidates read the puzzle files in another of the
//! family's formats (`format = "..."` in a course config): each case gets
//! converted copies, which the candidate is given; answers are still
//! judged on the originals.

use std::path::Path;

use anyhow::Context;
use reference::family::Grader;

use crate::job::Case;

/// Gives each of `cases` copies of its files in `format` under `dir` (a
/// case whose files cannot be read or converted keeps its own: its row
/// says what is wrong when it is judged).
pub fn convert_cases(
    family: &dyn Grader,
    format: &str,
    cases: &mut [Case],
    dir: &Path,
) -> anyhow::Result<()> {
    for (n, case) in cases.iter_mut().enumerate() {
        let Ok(files) = &case.files else { continue };
        let case_dir = dir.join(n.to_string());
        std::fs::create_dir_all(&case_dir)
            .with_context(|| format!("cannot create {}", case_dir.display()))?;
        let mut given = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let Ok(text) = std::fs::read(f) else {
                given.clear();
                break;
            };
            let Ok(out) = family.convert(format, i, &text) else {
                given.clear();
                break;
            };
            let target = case_dir.join(f.file_name().unwrap_or_default());
            std::fs::write(&target, out)?;
            given.push(target);
        }
        if given.len() == files.len() {
            case.given = Some(given);
        }
    }
    crate::grade::build::allow_everyone(dir);
    Ok(())
}
