//! A problem package as a suite: its grader (the default output
//! validator with its flags, or the package's own validator, which the
//! harness runs), its own validator's program, and its cases in the
//! format's order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;
use reference::family::Grader;
use reference::package::{Problem, Validation};

use crate::job::{Case, OwnLimits, Validator};

/// The grader of the problem package in folder `dir`, from its
/// `problem.yaml` (an error naming the file where it is wrong, or where it
/// asks for what is not graded yet: see `Problem::open`). A package
/// with its own validator (interactive or scoring too) has its cases
/// judged by their exit, then by what the validator says.
pub(super) fn package_grader(dir: &Path) -> anyhow::Result<&'static dyn Grader> {
    let problem = Problem::open(dir)?;
    match problem.validation {
        Validation::Default(validator) => Ok(reference::package::grader::grader(validator)),
        Validation::Custom { .. } => Ok(reference::package::grader::by_its_validator()),
    }
}

/// Whether any of `suites` is a problem package whose problem is
/// interactive (its runs need each job slot's partner: see
/// `Executor::partner`).
pub fn any_interactive(suites: impl IntoIterator<Item = impl AsRef<Path>>) -> bool {
    suites.into_iter().any(|dir| {
        Problem::open(dir.as_ref()).is_ok_and(|p| {
            matches!(
                p.validation,
                Validation::Custom {
                    interactive: true,
                    ..
                }
            )
        })
    })
}

/// The output validator of the package in folder `dir`, where its
/// `problem.yaml` asks for its own: a package that asks for one and has
/// none, or whose validator is in no language problemtools knows, is an
/// error naming the file.
pub(super) fn validator(dir: &Path) -> anyhow::Result<Option<Validator>> {
    let problem = Problem::open(dir)?;
    let Validation::Custom {
        flags,
        interactive,
        score,
    } = &problem.validation
    else {
        return Ok(None);
    };
    let Some(program) = reference::package::output_validator(dir)? else {
        bail!(
            "{}: a custom output validator is asked for, and {} holds none",
            dir.join("problem.yaml").display(),
            dir.join("output_validators").display()
        );
    };
    let mut validator = Validator::new(program, flags, problem.memory_mib);
    validator.interactive = *interactive;
    // As problemtools: the legacy `custom score` must write a score, a
    // draft scoring problem's validator may.
    validator.score = match (problem.draft, *score, problem.scoring) {
        (false, true, _) => Some(true),
        (true, _, true) => Some(false),
        _ => None,
    };
    Ok(Some(validator))
}

/// The validator of the package in folder `dir` among `validators`.
pub(super) fn of(validators: &[(PathBuf, Arc<Validator>)], dir: &Path) -> Option<Arc<Validator>> {
    validators
        .iter()
        .find(|(p, _)| p == dir)
        .map(|(_, v)| Arc::clone(v))
}

/// The cases of the problem package in folder `dir`, in the format's
/// order: each named by its group and name (`secret/group1/03`), its
/// files its `.in` and `.ans` (the candidate gets none of them as an
/// argument: the `.in` on stdin, see `Grader::input_file`), judged by
/// `validator` where the package has its own.
pub(super) fn package_cases(
    dir: &Path,
    family: &'static dyn Grader,
    validator: Option<Arc<Validator>>,
) -> anyhow::Result<Vec<Case>> {
    let root = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    // (Its own limits: time where it gives one, `limits.time_limit` or
    // `.timelimit`; memory and output, given or the format's defaults.)
    let problem = Problem::open(dir)?;
    let own = OwnLimits {
        time: problem.time_limit.map(std::time::Duration::from_secs_f64),
        memory: Some(problem.memory_mib << 20),
        output: Some(problem.output_mib << 20),
    };
    let suite = dir
        .file_name()
        .map_or_else(|| "package".into(), |n| n.to_string_lossy().into_owned());
    // A test group's own flags (the draft's `output_validator_flags`),
    // after the package's: the default validator made with them all.
    let groups = reference::package::grading::Group::open(dir)?;
    let extra: HashMap<&str, &str> = groups
        .cases()
        .into_iter()
        .map(|(name, config)| (name, config.output_validator_flags.as_str()))
        .collect();
    let mut graders: HashMap<&str, &'static dyn Grader> = HashMap::new();
    let mut cases = Vec::new();
    for t in reference::package::test_cases(dir)? {
        let name = format!("{}/{}", t.group, t.name);
        let flags = extra.get(name.as_str()).copied().unwrap_or_default();
        let family = match (&problem.validation, flags.trim().is_empty()) {
            (Validation::Default(_), false) => match graders.get(flags) {
                Some(g) => *g,
                None => {
                    let all = format!("{} {flags}", problem.validator_flags);
                    let v =
                        reference::package::DefaultValidator::from_flags(&all).map_err(|why| {
                            anyhow::anyhow!(
                                "{}: output_validator_flags (its testdata.yaml, or a group's above): {why}",
                                dir.join("data").join(&t.group).display()
                            )
                        })?;
                    let g = reference::package::grader::grader(v);
                    graders.insert(flags, g);
                    g
                }
            },
            _ => family,
        };
        let custom = validator.is_some();
        cases.push(Case {
            given: Some(Vec::new()),
            own,
            validator: validator.clone(),
            validator_flags: match custom {
                true => flags.split_whitespace().map(str::to_owned).collect(),
                false => Vec::new(),
            },
            ..Case::new(
                family,
                (suite.clone(), name),
                Ok(vec![t.input, t.answer]),
                root.clone(),
            )
        });
    }
    Ok(cases)
}
