//! `harness contest`'s entries: folders with a `run` file, or a course's
//! submissions built as the course builds them.

use harness::course::Course;
use harness::settings::{Context, Repeat, RunOptions};

use super::Runner;

/// The builds of a course's contest: their folder (kept while the
/// contest lasts) and each submission's.
pub type Builds = Option<(tempfile::TempDir, Vec<harness::class::Built>)>;

/// The entries: those with a `run` file, or a course's submissions built
/// as the course builds them.
pub fn entries(
    args: &crate::cli::ContestArgs,
    course: Option<&Course>,
    runner: &Runner,
    ctx: &Context,
) -> anyhow::Result<(Vec<harness::contest::Entry>, Builds)> {
    let Some(course) = course else {
        let entries = harness::contest::entries(&args.entries)?;
        for e in &entries {
            if let Ok(candidate) = &e.candidate {
                runner.check(candidate, &e.name)?;
            }
        }
        return Ok((entries, None));
    };
    let work = harness::class::work_dir(&runner.executor)?;
    let once = RunOptions {
        repeat: Repeat::default(),
        ..ctx.options.clone()
    };
    let source = harness::class::Source::Folder(args.entries.clone());
    let ctx = Context {
        options: &once,
        ..*ctx
    };
    let built = harness::class::built_candidates(&ctx, course, &source, work.path())?;
    let mut entries = Vec::new();
    for b in &built {
        match &b.team {
            Some(Err(why)) => eprintln!("harness: {} does not enter: {why}", b.id),
            _ if b.candidates.is_empty() => {}
            _ => {
                let mut c = b.candidates.iter().cloned();
                let mut e = harness::contest::Entry::new(b.id.clone(), c.next().expect("a solver"));
                if let Some(checker) = c.next() {
                    e = e.with_checker(checker);
                }
                entries.push(e);
            }
        }
    }
    if entries.is_empty() {
        anyhow::bail!(
            "no submission in {} enters the contest",
            args.entries.display()
        );
    }
    Ok((entries, Some((work, built))))
}
