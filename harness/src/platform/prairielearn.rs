//! PrairieLearn's external grader: `serverFilesCourse/puzzlegrade/` (this
//! harness and `run`, the entrypoint) and `question-info.json`, the
//! question's `externalGradingOptions`. `run` grades `/grade/student` and
//! writes `/grade/results/results.json`; a setup error is written as not
//! gradable (the student keeps the attempt). Results: `gradable`, `score`
//! (the points over the maximum, within 0..1), `message`, and a test per
//! rubric item; PrairieLearn has no release dates, so an item that is not
//! `visible` keeps its points and hides its cases.

use std::path::Path;
use std::time::Duration;

use super::kit::{File, Form, Kit, Package, dockerfile};
use super::limits::Timeout;
use super::trial::{self, Trial};
use super::{Graded, Platform};
use crate::course::rubric::show;

/// PrairieLearn.
pub(super) struct PrairieLearn;

impl Platform for PrairieLearn {
    fn name(&self) -> &'static str {
        "prairielearn"
    }

    fn about(&self) -> &'static str {
        "PrairieLearn's external grader: serverFilesCourse/puzzlegrade and the question's externalGradingOptions"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let image = image_for(&kit.course.file.packages);
        let info = serde_json::json!({
            "gradingMethod": "External",
            "singleVariant": true,
            "externalGradingOptions": {
                "enabled": true,
                "image": image,
                "serverFilesCourse": ["puzzlegrade/"],
                "entrypoint": "/grade/serverFilesCourse/puzzlegrade/run",
                "timeout": timeout(kit).as_secs()
            }
        });
        let mut files: Vec<File> = kit
            .payload()?
            .into_iter()
            .map(|f| {
                File::new(
                    format!("serverFilesCourse/puzzlegrade/{}", f.name),
                    f.bytes,
                    f.mode,
                )
            })
            .collect();
        files.push(File::new(
            "serverFilesCourse/puzzlegrade/run",
            run(kit),
            0o755,
        ));
        let info = crate::export::pretty_json(&info)?;
        files.push(File::new("question-info.json", info, 0o644));
        files.push(File::new(
            "Dockerfile",
            dockerfile(kit, image, &[], &[]),
            0o644,
        ));
        Ok(Package {
            files,
            form: Form::Folder,
            said: vec![format!(
                "wrote {}/serverFilesCourse/puzzlegrade, question-info.json and Dockerfile (course {}; image {image}, which must hold: {})",
                kit.out.display(),
                kit.course_arg,
                kit.packages()
            )],
        })
    }

    fn results(&self) -> Option<super::Results> {
        Some(results)
    }

    /// `/grade` as the grader's container has it: the kit's
    /// `serverFilesCourse/puzzlegrade` there, the sample in `student`,
    /// the entrypoint run; the score (a fraction) read from
    /// `results/results.json`, which must say `gradable`.
    fn trial(
        &self,
        _kit: &Kit,
        written: &Path,
        sample: &Path,
        root: &Path,
    ) -> anyhow::Result<Option<Trial>> {
        let files = root.join("serverFilesCourse/puzzlegrade");
        trial::copy_tree(&written.join("serverFilesCourse/puzzlegrade"), &files)?;
        trial::copy_tree(sample, &root.join("student"))?;
        std::fs::create_dir_all(root.join("data"))?;
        std::fs::write(root.join("data/data.json"), "{}\n")?;
        let results = root.join("results/results.json");
        Ok(Some(Trial {
            script: "./serverFilesCourse/puzzlegrade/run".into(),
            env: Vec::new(),
            score: Box::new(move |_, max| {
                if trial::json_value(&results, "/gradable")? != serde_json::json!(true) {
                    anyhow::bail!("not gradable: {}", trial::json_value(&results, "/message")?);
                }
                Ok(trial::json_number(&results, "/score")? * max)
            }),
        }))
    }

    fn timeout(&self) -> Option<Timeout> {
        Some(TIMEOUT)
    }

    fn ungradable(&self, why: &str) -> Option<anyhow::Result<Vec<u8>>> {
        Some(not_gradable(&format!(
            "The autograder could not grade this submission ({why}): tell your course staff."
        )))
    }
}

/// PrairieLearn's limit on a grading job (`externalGradingOptions`'
/// `timeout`: 30 s unless set, at most 600 s).
const TIMEOUT: Timeout = Timeout {
    platform: "PrairieLearn",
    default: Duration::from_secs(30),
    most: Some(Duration::from_secs(600)),
    set_in: None,
    stopped: "is failed, with no score",
};

/// The `timeout` the kit sets: the course's worst case, within
/// PrairieLearn's most (its most where the worst case is not known).
fn timeout(kit: &Kit) -> Duration {
    kit.worst.as_ref().map_or(Duration::from_secs(600), |w| {
        let set = super::limits::check(&TIMEOUT, w).0;
        Duration::from_secs(set.as_secs_f64().ceil() as u64).max(TIMEOUT.default)
    })
}

/// `gradable: false`: PrairieLearn gives no score and keeps the attempt.
fn not_gradable(message: &str) -> anyhow::Result<Vec<u8>> {
    crate::export::pretty_json(&serde_json::json!({
        "gradable": false,
        "message": message,
        // What PrairieLearn shows for an answer it cannot grade.
        "format_errors": [message],
    }))
}

/// One submission's results file. One that does not build is not
/// gradable (as PrairieLearn's own examples treat a syntax error): the
/// student keeps the attempt, and the message is the build's.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let r = super::feedback::results(graded.course, graded.points, graded.rows);
    if !graded.points.built {
        return not_gradable(&r.output);
    }
    fitted(&r, &images(graded))
}

/// Each rubric item's images: the replays of its wrong answers the run
/// kept, drawn (none for an item the students may not see, nor one too
/// large to draw on a page).
fn images(graded: &Graded) -> Vec<Vec<serde_json::Value>> {
    let course = graded.course;
    let me = &graded.points.submission;
    course
        .file
        .rubric
        .iter()
        .map(|item| {
            if course.visibility(item) != crate::course::rubric::Visibility::Visible {
                return Vec::new();
            }
            graded
                .replays
                .iter()
                .filter(|((who, suite, case), _)| who == me && item.selects(suite, case))
                .filter_map(|((_, suite, case), rep)| {
                    let svg = crate::export::picture::svg(rep);
                    (svg.len() <= IMAGE_LIMIT).then(|| {
                        serde_json::json!({
                            "label": format!("{suite}/{case}: {}", rep.end),
                            "url": crate::export::picture::data_url(&svg),
                        })
                    })
                })
                .collect()
        })
        .collect()
}

/// The largest picture drawn (a board of some thousand cells).
const IMAGE_LIMIT: usize = 128 * 1024;

/// Gradescope-shaped results `r` in PrairieLearn's form, each test's
/// output whole, or all cut alike to fit PrairieLearn's limit.
fn fitted(
    r: &crate::export::gradescope::Results,
    images: &[Vec<serde_json::Value>],
) -> anyhow::Result<Vec<u8>> {
    let score = if r.max_score > 0.0 {
        (r.score / r.max_score).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let document = |cut: Option<usize>| {
        let tests: Vec<serde_json::Value> = r
            .tests
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut output = if t.visibility == "visible" {
                    t.output.clone()
                } else {
                    "(its cases are not shown)".to_string()
                };
                if let Some(mut at) = cut.filter(|&at| output.len() > at) {
                    while !output.is_char_boundary(at) {
                        at -= 1;
                    }
                    output.truncate(at);
                    output.push_str("\n(cut: the results were over PrairieLearn's 1 MB limit)");
                }
                // The first line (`3 of 4 cases passed`) is the short
                // message; the output holds the failures too.
                let message = output.lines().next().unwrap_or_default().to_string();
                let mut test = serde_json::json!({
                    "name": t.name,
                    "points": t.score,
                    "max_points": t.max_score,
                    "message": message,
                    "output": output,
                });
                if let Some(d) = &t.description {
                    test["description"] = d.clone().into();
                }
                // Pictures only where the results fit whole.
                if let (None, Some(pictures)) = (cut, images.get(i))
                    && !pictures.is_empty()
                {
                    test["images"] = pictures.clone().into();
                }
                test
            })
            .collect();
        serde_json::json!({
            "gradable": true,
            "score": (score * 10_000.0).round() / 10_000.0,
            "message": format!("{} / {} points. {}", show(r.score), show(r.max_score), r.output),
            "output": r.output,
            "format_errors": {},
            "tests": tests,
        })
    };
    let whole = crate::export::pretty_json(&document(None))?;
    if whole.len() <= RESULTS_LIMIT {
        return Ok(whole);
    }
    let each = RESULTS_LIMIT / 2 / r.tests.len().max(1);
    crate::export::pretty_json(&document(Some(each)))
}

/// The most `results.json` may hold: PrairieLearn refuses a larger one.
const RESULTS_LIMIT: usize = 1 << 20;

/// The entrypoint: grades `/grade/student`, writes
/// `/grade/results/results.json`.
fn run(kit: &Kit) -> String {
    format!(
        "#!/bin/sh\n\
         # PrairieLearn's external grader runs this (puzzlegrade, course {}):\n\
         # grades /grade/student, writes /grade/results/results.json.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         # /grade (elsewhere only in harness package's trial of the kit).\n\
         g=${{PUZZLEGRADE_KIT_ROOT:-/grade}}\n\
         bin=$here\n\
         if [ ! -x \"$bin/harness\" ]; then\n\
         \x20 # A course repository that lost the modes: run from a copy.\n\
         \x20 bin=$(mktemp -d) && cp \"$here\"/harness* \"$bin\" && chmod 755 \"$bin\"/harness*\n\
         fi\n\
         mkdir -p \"$g/results\"\n\
         rm -f \"$g/results/results.json\"\n\
         export PUZZLEGRADE_CACHE=\"${{TMPDIR:-/tmp}}/puzzlegrade-cache\"\n\
         \"$bin/harness\" grade --course {} --submission \"$g/student\" --id student \\\n\
         \x20   --prairielearn \"$g/results/results.json\" --scorecard \"${{TMPDIR:-/tmp}}/puzzlegrade-rows.csv\" --force --no-cache --student-view \\\n\
         \x20   --keep-output \"${{TMPDIR:-/tmp}}/puzzlegrade-output\"\n\
         status=$?\n\
         if [ ! -s \"$g/results/results.json\" ]; then\n\
         \x20 why=\"The autograder could not grade this submission (harness exit $status): tell your course staff.\"\n\
         \x20 printf '{{\"gradable\": false, \"message\": \"%s\", \"format_errors\": [\"%s\"]}}\\n' \"$why\" \"$why\" \\\n\
         \x20   > \"$g/results/results.json\"\n\
         fi\n\
         exit 0\n",
        kit.course_arg,
        kit.course_in("$here")
    )
}

/// A PrairieLearn grader image holding the course's packages, where one
/// of PrairieLearn's own does (else Ubuntu's, to be built upon).
fn image_for(packages: &[String]) -> &'static str {
    let has = |p: &str| packages.iter().any(|x| x.starts_with(p));
    if has("openjdk") {
        "prairielearn/grader-java"
    } else if has("gcc") || has("valgrind") {
        "prairielearn/grader-c"
    } else if packages.iter().all(|p| p == "python3") {
        "prairielearn/grader-python"
    } else {
        "ubuntu:24.04"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::gradescope::{Results, Test};

    #[test]
    fn results_over_the_limit_are_cut_to_fit() {
        let test = |name: &str, output: String| Test {
            name: name.into(),
            number: None,
            score: 1.0,
            max_score: 2.0,
            status: None,
            output,
            visibility: "visible",
            tags: Vec::new(),
            description: None,
        };
        let mut r = Results {
            score: 2.0,
            max_score: 4.0,
            execution_time: None,
            output: "done".into(),
            output_format: None,
            visibility: "visible",
            stdout_visibility: None,
            leaderboard: None,
            extra_data: None,
            tests: vec![test("a", "é".repeat(700_000)), test("b", "short".into())],
        };
        let bytes = fitted(&r, &[]).unwrap();
        assert!(bytes.len() <= RESULTS_LIMIT, "{}", bytes.len());
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let a = v["tests"][0]["output"].as_str().unwrap();
        assert!(a.ends_with("(cut: the results were over PrairieLearn's 1 MB limit)"));
        assert_eq!(
            v["tests"][1]["output"], "short",
            "a short output stays whole"
        );
        assert_eq!(v["score"], 0.5);
        r.tests.truncate(1);
        r.tests[0].output = "small".into();
        let v: serde_json::Value = serde_json::from_slice(&fitted(&r, &[]).unwrap()).unwrap();
        assert_eq!(v["tests"][0]["output"], "small", "under the limit: whole");
    }
}
