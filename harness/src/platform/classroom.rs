//! GitHub Classroom: the template repository's
//! `.github/workflows/classroom.yml` (the workflow Classroom reads: named
//! `Autograding Tests`, one job `run-autograding-tests`) and
//! `.puzzlegrade/` (this harness, `grade.sh`, a course's own folder). The
//! job runs the harness once (`grade.sh`: the pushed commit's files
//! graded, as root through `sudo` where the runner has it) and hands
//! `classroom-resources/autograding-grading-reporter` one runner result
//! per rubric item, in the graders' format: `{version: 1, status,
//! max_score, tests: [{name, status, message, test_code, filename,
//! line_no, duration, score}]}`, base64 in the step's output `itemN`,
//! read by the reporter from `ITEMN_RESULTS`. The reporter's total is
//! the sum of the tests' scores over the runners with a `max_score`.
//!
//! A submission that cannot be graded writes no outputs: `grade.sh` fails,
//! the reporter never runs, the workflow fails (no score, as the other
//! platforms give none). Classroom shows students every line of the job
//! (`--student-view`), and cannot keep the workflow from a student who
//! edits it: docs/platforms.md says so.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;

use super::kit::{File, Form, Kit, Package, apt_install, dockerfile};
use super::limits::Timeout;
use super::trial::{self, Trial};
use super::{Graded, Platform};

/// GitHub Classroom.
pub(super) struct Classroom;

/// GitHub's limit on a job (`timeout-minutes`: 360 unless set, and at
/// most 360 on GitHub's own runners).
const TIMEOUT: Timeout = Timeout {
    platform: "GitHub Actions",
    default: Duration::from_secs(360 * 60),
    most: Some(Duration::from_secs(360 * 60)),
    set_in: None,
    stopped: "is cancelled, with no score",
};

impl Platform for Classroom {
    fn name(&self) -> &'static str {
        "github-classroom"
    }

    fn about(&self) -> &'static str {
        "GitHub Classroom: .github/workflows/classroom.yml and .puzzlegrade/ for the template repository"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let mut files: Vec<File> = kit
            .payload()?
            .into_iter()
            .map(|f| File::new(format!(".puzzlegrade/{}", f.name), f.bytes, f.mode))
            .collect();
        files.push(File::new(".puzzlegrade/grade.sh", grade(kit), 0o755));
        files.push(File::new(
            ".puzzlegrade/Dockerfile",
            dockerfile(kit, "ubuntu:24.04", &["git", "sudo"], &[]),
            0o644,
        ));
        files.push(File::new(
            ".github/workflows/classroom.yml",
            workflow(kit),
            0o644,
        ));
        Ok(Package {
            files,
            form: Form::Folder,
            said: vec![format!(
                "wrote {0}/.github/workflows/classroom.yml and {0}/.puzzlegrade: commit both to the assignment's template repository (course {1}; packages the runner installs: {2})",
                kit.out.display(),
                kit.course_arg,
                kit.packages()
            )],
        })
    }

    fn results(&self) -> Option<super::Results> {
        Some(results)
    }

    fn timeout(&self) -> Option<Timeout> {
        Some(TIMEOUT)
    }

    /// A runner's checkout: the kit committed with the sample in a
    /// repository of its own, `grade.sh` run there as the workflow's step
    /// runs it (bash, `GITHUB_OUTPUT`, `RUNNER_TEMP`); the score read as
    /// the reporter reads it, from the runners the workflow names.
    fn trial(
        &self,
        _kit: &Kit,
        written: &Path,
        sample: &Path,
        root: &Path,
    ) -> anyhow::Result<Option<Trial>> {
        let repo = root.join("repo");
        trial::copy_tree(sample, &repo)?;
        trial::copy_tree(written, &repo)?;
        std::fs::create_dir(root.join("tmp"))?;
        let output = root.join("output");
        let workflow = repo.join(".github/workflows/classroom.yml");
        Ok(Some(Trial {
            script: format!(
                "cd repo && {} && : > ../output \
                 && bash --noprofile --norc -eo pipefail .puzzlegrade/grade.sh",
                trial::COMMIT_ALL
            ),
            env: vec![
                ("GITHUB_OUTPUT", output.clone()),
                ("RUNNER_TEMP", root.join("tmp")),
                ("GITHUB_WORKSPACE", repo.clone()),
            ],
            score: Box::new(move |_, _| {
                let outputs = std::fs::read_to_string(&output)?;
                let workflow = std::fs::read_to_string(&workflow)?;
                Ok(reported(&workflow, &outputs)?.0)
            }),
        }))
    }
}

/// The reporter's total and most from the step outputs `outputs`
/// (`itemN=BASE64` lines) of the runners `workflow` names: as
/// `autograding-grading-reporter` sums them (each runner with a
/// `max_score`: its tests' scores).
pub fn reported(workflow: &str, outputs: &str) -> anyhow::Result<(f64, f64)> {
    let runners = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("runners: "))
        .ok_or_else(|| anyhow::anyhow!("the workflow names no runners"))?;
    let (mut total, mut most) = (0.0, 0.0);
    for runner in runners.split(',') {
        let encoded = outputs
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{runner}=")))
            .ok_or_else(|| anyhow::anyhow!("no output for runner {runner}"))?;
        let json = base64::engine::general_purpose::STANDARD.decode(encoded)?;
        let result: serde_json::Value = serde_json::from_slice(&json)?;
        let Some(max) = result["max_score"].as_f64().filter(|m| *m > 0.0) else {
            continue;
        };
        most += max;
        for t in result["tests"].as_array().into_iter().flatten() {
            total += t["score"].as_f64().unwrap_or(0.0);
        }
    }
    Ok((total, most))
}

/// The runner id of rubric item `i` (the reporter takes letters and
/// digits only).
fn runner(i: usize) -> String {
    format!("item{}", i + 1)
}

/// One submission's step outputs: `itemN=BASE64` per rubric item.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let r = super::feedback::results(graded.course, graded.points, graded.rows);
    let items = graded.course.file.rubric.len();
    let mut out = String::new();
    for (i, t) in r.tests.iter().take(items).enumerate() {
        let passed = t.score >= t.max_score;
        let message = if t.visibility == "visible" {
            t.output.clone()
        } else {
            "(its cases are not shown)".to_string()
        };
        let status = if passed { "pass" } else { "fail" };
        let result = serde_json::json!({
            "version": 1,
            "status": status,
            "max_score": t.max_score,
            "tests": [{
                "name": t.name,
                "status": status,
                "message": message,
                "test_code": "",
                "filename": "",
                "line_no": 0,
                "duration": 0,
                "score": t.score,
            }],
        });
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&result)?);
        out.push_str(&format!("{}={encoded}\n", runner(i)));
    }
    Ok(out.into_bytes())
}

/// The workflow Classroom runs on each push.
fn workflow(kit: &Kit) -> String {
    let items = kit.course.file.rubric.len();
    let runners: Vec<String> = (0..items).map(runner).collect();
    let env: String = runners
        .iter()
        .map(|r| {
            format!(
                "          {}_RESULTS: \"${{{{steps.puzzlegrade.outputs.{r}}}}}\"\n",
                r.to_uppercase()
            )
        })
        .collect();
    let minutes = kit.worst.map_or(360, |w| {
        let set = super::limits::check(&TIMEOUT, &w).0;
        set.as_secs().div_ceil(60).max(10)
    });
    format!(
        "# puzzlegrade (course {course}): GitHub Classroom's autograding. Classroom\n\
         # reads this workflow by its name and its one job's; the reporter\n\
         # gets one result per rubric item.\n\
         name: Autograding Tests\n\
         on:\n\
         \x20 - push\n\
         \x20 - workflow_dispatch\n\
         permissions:\n\
         \x20 checks: write\n\
         \x20 actions: read\n\
         \x20 contents: read\n\
         jobs:\n\
         \x20 run-autograding-tests:\n\
         \x20   runs-on: ubuntu-latest\n\
         \x20   if: github.actor != 'github-classroom[bot]'\n\
         \x20   timeout-minutes: {minutes}\n\
         \x20   steps:\n\
         \x20     - name: Checkout code\n\
         \x20       uses: actions/checkout@v4\n\
         \x20     - name: puzzlegrade\n\
         \x20       id: puzzlegrade\n\
         \x20       run: bash .puzzlegrade/grade.sh\n\
         \x20     - name: Autograding Reporter\n\
         \x20       uses: classroom-resources/autograding-grading-reporter@v1\n\
         \x20       env:\n\
         {env}\
         \x20       with:\n\
         \x20         runners: {runners}\n",
        course = kit.course_arg,
        runners = runners.join(","),
    )
}

/// The workflow's grading step: the pushed commit graded once, its
/// results appended to the step's outputs.
fn grade(kit: &Kit) -> String {
    format!(
        "#!/bin/bash\n\
         # GitHub Classroom's grading step (puzzlegrade, course {}): grades the\n\
         # pushed commit once; one output per rubric item for the reporter.\n\
         # (Not -e, as the step's bash is: the harness's own status is read.)\n\
         set +e -uo pipefail\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         work=${{RUNNER_TEMP:-/tmp}}/puzzlegrade\n\
         rm -rf \"$work\" && mkdir -p \"$work/submission\" && chmod 755 \"$work\"\n\
         # The commit's files, as pushed, without the kit's own.\n\
         git archive --format=tar HEAD | tar xf - -C \"$work/submission\"\n\
         rm -rf \"$work/submission/.puzzlegrade\" \"$work/submission/.github\"\n\
         # Root where the runner gives it (GitHub's own do, through sudo):\n\
         # each case as a user of its own, in cgroups.\n\
         as=\n\
         if [ \"$(id -u)\" -ne 0 ] && sudo -n true 2>/dev/null; then as=\"sudo -n -E\"; fi\n\
         {}\
         export PUZZLEGRADE_CACHE=\"$work/cache\"\n\
         $as \"$here/harness\" grade --course {} --submission \"$work/submission\" \\\n\
         \x20   --id \"${{GITHUB_REPOSITORY:-submission}}\" --results github-classroom:\"$work/outputs\" \\\n\
         \x20   --scorecard \"$work/rows.csv\" --force --no-cache --student-view\n\
         status=$?\n\
         if [ ! -s \"$work/outputs\" ]; then\n\
         \x20 echo \"puzzlegrade could not grade this push (harness exit $status): no score given; the lines above say why.\"\n\
         \x20 exit 1\n\
         fi\n\
         cat \"$work/outputs\" >> \"${{GITHUB_OUTPUT:?}}\"\n",
        kit.course_arg,
        apt_install(kit.course.file.packages.iter().map(String::as_str))
            .replace("apt-get ", "$as apt-get "),
        kit.course_in("$here")
    )
}
