//! Gradescope: `autograder.zip` holding this harness (and `harness-exec`
//! beside it), `setup.sh` (the course's Debian packages, where missing)
//! and `run_autograder` (one submission graded where Gradescope puts it,
//! its `results.json` where Gradescope reads it). Results: one test per
//! rubric item, each with the course's visibility for it.

use std::path::Path;
use std::time::Duration;

use super::kit::{File, Form, Kit, Package, apt_install, dockerfile};
use super::limits::Timeout;
use super::trial::{self, Trial};
use super::{Graded, Platform};

/// Gradescope.
pub(super) struct Gradescope;

impl Platform for Gradescope {
    fn name(&self) -> &'static str {
        "gradescope"
    }

    fn about(&self) -> &'static str {
        "Gradescope's autograder.zip"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let mut files = vec![
            File::new("setup.sh", setup(&kit.course.file.packages), 0o755),
            File::new("run_autograder", run_autograder(&kit.course_arg), 0o755),
        ];
        files.extend(kit.payload()?);
        // Gradescope's own image built from the zip's folder (its "manual
        // Docker" setup), where a course prefers one to setup.sh.
        files.push(File::new(
            "Dockerfile",
            dockerfile(
                kit,
                "gradescope/autograder-base:latest",
                &[],
                &[
                    "COPY . /autograder/source".into(),
                    "RUN cd /autograder/source && bash ./setup.sh \\\n && cp run_autograder /autograder/run_autograder".into(),
                ],
            ),
            0o644,
        ));
        Ok(Package {
            files,
            form: Form::Zip,
            said: vec![format!(
                "wrote {} (setup.sh, run_autograder, harness, Dockerfile; course {}; packages: {})",
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
        Some(Timeout {
            platform: "Gradescope",
            default: Duration::from_secs(600),
            most: Some(Duration::from_secs(2400)),
            set_in: Some("the assignment's Autograder Settings"),
            stopped: "gets 0 and shows none of its tests",
        })
    }

    /// `/autograder` as the image has it: the zip unpacked into `source`
    /// and `setup.sh` run there, `run_autograder` copied beside it and run
    /// from it for the sample in `submission`; the score read from
    /// `results/results.json`.
    fn trial(
        &self,
        _kit: &Kit,
        written: &Path,
        sample: &Path,
        root: &Path,
    ) -> anyhow::Result<Option<Trial>> {
        trial::unzip(written, &root.join("source"))?;
        trial::copy_tree(sample, &root.join("submission"))?;
        let results = root.join("results/results.json");
        Ok(Some(Trial {
            script: "cd source && bash ./setup.sh && cp run_autograder ../run_autograder \
                     && cd .. && ./run_autograder"
                .into(),
            env: Vec::new(),
            score: Box::new(move |_, _| trial::json_number(&results, "/score")),
        }))
    }
}

/// One submission's results file.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let mut r = super::feedback::results(graded.course, graded.points, graded.rows);
    // Seconds the run took, where it graded this submission alone.
    r.execution_time = graded
        .elapsed
        .map(|e| (e.as_secs_f64() * 10.0).round() / 10.0);
    r.to_bytes()
}

/// Gradescope's `setup.sh`, run once in `/autograder/source` where the zip
/// is unpacked: the course's packages (only where one is missing: nothing
/// from the network otherwise).
fn setup(packages: &[String]) -> String {
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope's setup (puzzlegrade): the toolchains the course needs.\n\
         set -euo pipefail\n\
         cd \"$(dirname \"$0\")\"\n\
         {}\
         chmod 755 harness run_autograder\n\
         [ ! -e harness-exec ] || chmod 755 harness-exec\n\
         # The bundled courses, adapters and suites, written out once here.\n\
         PUZZLEGRADE_CACHE=\"$PWD/cache\" ./harness courses >/dev/null\n",
        apt_install(packages.iter().map(String::as_str))
    )
}

/// Gradescope's `run_autograder`, run as `/autograder/run_autograder` for
/// each submission. Where the harness could not grade it (a case the
/// grader failed on, a setup error) there is no `results.json` and the
/// script fails: Gradescope then gives no score and shows the staff the
/// log ("The autograder failed to execute correctly"), never a 0 the
/// student did not earn.
fn run_autograder(course: &str) -> String {
    let course = shell_words::quote(course);
    format!(
        "#!/usr/bin/env bash\n\
         # Gradescope runs this for each submission (puzzlegrade).\n\
         set -uo pipefail\n\
         # /autograder (elsewhere only in harness package's trial of the kit).\n\
         ag=${{PUZZLEGRADE_KIT_ROOT:-/autograder}}\n\
         src=$ag/source\n\
         cd \"$src\"\n\
         export PUZZLEGRADE_CACHE=\"$src/cache\"\n\
         mkdir -p \"$ag/results\"\n\
         rm -f \"$ag/results/results.json\"\n\
         \"$src/harness\" grade --course {course} --submission \"$ag/submission\" --id submission \\\n\
         \x20   --results \"$ag/results/results.json\" --scorecard \"$ag/results/rows.csv\" --force --no-cache --student-view\n\
         status=$?\n\
         if [ ! -s \"$ag/results/results.json\" ]; then\n\
         \x20 echo \"puzzlegrade could not grade this submission (harness exit $status): no score given; the lines above say why.\"\n\
         \x20 exit 1\n\
         fi\n\
         exit 0\n"
    )
}
