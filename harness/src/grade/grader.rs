//! A problem package's own grader (the legacy format's `grading:
//! custom`, a program of its `graders/` folder): built once as its output
//! validator is (the package's code: under the candidates' isolation),
//! then run for each group that asks for it as problemtools runs it
//! (`problemtools/judge/grade.py`): each counted child's `VERDICT SCORE`
//! a line on its stdin, the group's `grader_flags` as its arguments, and
//! `VERDICT SCORE` on its stdout. Anything else (another exit than 0, a
//! signal, a limit, output of another form) is the judge's error (`JE`),
//! never the submission's.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Mutex;

use reference::package::grading::{Graded, Judged};

use crate::executor::{Ending, Spec};
use crate::job::Validator;
use crate::settings::Context;

/// What a grader said to each input it was given (by its flags and its
/// stdin): a group graded again (at another time limit, or for another
/// submission with the same results) runs it once.
pub type Said = Mutex<HashMap<(Vec<String>, String), (Judged, Option<f64>)>>;

/// The verdict and score `grader` gives a group whose counted children
/// are `children`, with `flags`; run on job slot `slot`, each input once
/// (`said`).
pub fn grade(
    ctx: &Context,
    grader: &Validator,
    (children, flags): (&[Graded], &[String]),
    slot: usize,
    said: &Said,
) -> (Judged, Option<f64>) {
    // problemtools' protocol: no score is 0.
    let input: String = children
        .iter()
        .map(|c| format!("{} {}\n", c.verdict.short(), c.score.unwrap_or(0.0)))
        .collect();
    let key = (flags.to_vec(), input);
    let mut known = said.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(got) = known.get(&key) {
        return *got;
    }
    let got = run(ctx, grader, &key, slot).unwrap_or((Judged::JudgeError, None));
    known.insert(key, got);
    got
}

fn run(
    ctx: &Context,
    grader: &Validator,
    (flags, input): &(Vec<String>, String),
    slot: usize,
) -> Option<(Judged, Option<f64>)> {
    let argv = super::validator::build(ctx, grader, slot).ok()?;
    let dir = grader
        .built
        .get()?
        .as_ref()
        .ok()?
        .1
        .path()
        .join("validator");
    let mut stdin = tempfile::NamedTempFile::new().ok()?;
    std::io::Write::write_all(&mut stdin, input.as_bytes()).ok()?;
    let spec = Spec {
        argv: argv.into_iter().map(OsString::from).collect(),
        files: Vec::new(),
        contents: None,
        workdir: dir,
        slot,
        stdin: Some(stdin.path().to_owned()),
        relative: false,
        write_workdir: false,
        network: false,
        ipc: false,
        tail: flags.iter().map(OsString::from).collect(),
        returns: Vec::new(),
        wired: None,
    };
    let ran = ctx
        .executor
        .execute(&spec, &super::validator::limits(ctx), ctx.cancel);
    if ran.ending != Ending::Exited(0) || ran.limit.is_some() {
        return None;
    }
    said(&String::from_utf8_lossy(&ran.stdout.bytes))
}

/// A grader's output read as problemtools reads it: a verdict and a
/// number, nothing else.
fn said(out: &str) -> Option<(Judged, Option<f64>)> {
    let words: Vec<&str> = out.split_whitespace().collect();
    let [verdict, score] = words[..] else {
        return None;
    };
    let score = score.parse::<f64>().ok().filter(|s| s.is_finite())?;
    Some((Judged::from_short(verdict)?, Some(score)))
}

/// The grader of the package in folder `dir` where a group asks for one
/// (`grading: custom`); a group that asks and a package with none, or a
/// grader in no language problemtools knows, is an error naming them.
pub fn of_package(
    dir: &Path,
    groups: &reference::package::grading::Group,
    memory_mib: u64,
) -> anyhow::Result<Option<Validator>> {
    if !asks(groups) {
        return Ok(None);
    }
    let Some(program) = reference::package::own_grader(dir)? else {
        anyhow::bail!(
            "{}: a group asks for the package's own grader (grading: custom), and it holds none",
            dir.join("graders").display()
        );
    };
    let mut grader = Validator::new(program, "", memory_mib);
    grader.role = "grader";
    Ok(Some(grader))
}

/// Whether a group of `groups` asks for the package's own grader.
pub fn asks(groups: &reference::package::grading::Group) -> bool {
    use reference::package::grading::Item;
    groups.config.custom_grading
        || groups.items.iter().any(|i| match i {
            Item::Group(g) => asks(g),
            Item::Case(_) => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graders_output_is_a_verdict_and_a_number() {
        assert_eq!(said("AC 7\n"), Some((Judged::Accepted, Some(7.0))));
        assert_eq!(said(" WA  -1.5 "), Some((Judged::WrongAnswer, Some(-1.5))));
        for bad in ["", "AC", "AC x", "OK 1", "AC 1 2", "AC inf"] {
            assert_eq!(said(bad), None, "{bad:?}");
        }
    }
}
