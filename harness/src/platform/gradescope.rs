//! Gradescope: `autograder.zip` holding this harness (and `harness-exec`
//! beside it), `setup.sh` (the course's Debian packages, where missing)
//! and `run_autograder` (one submission graded where Gradescope puts it,
//! its `results.json` where Gradescope reads it). Results: one test per
//! rubric item, each with the course's visibility for it.

use super::kit::{File, Form, Kit, Package, apt_install};
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
        Ok(Package {
            files,
            form: Form::Zip,
            said: vec![format!(
                "wrote {} (setup.sh, run_autograder, harness; course {}; packages: {})",
                kit.out.display(),
                kit.course_arg,
                kit.packages()
            )],
        })
    }

    fn results(&self) -> Option<super::Results> {
        Some(results)
    }
}

/// One submission's results file.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    super::feedback::results(graded.course, graded.points, graded.rows).to_bytes()
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
         src=/autograder/source\n\
         cd \"$src\"\n\
         export PUZZLEGRADE_CACHE=\"$src/cache\"\n\
         mkdir -p /autograder/results\n\
         rm -f /autograder/results/results.json\n\
         \"$src/harness\" grade --course {course} --submission /autograder/submission --id submission \\\n\
         \x20   --results /autograder/results/results.json --scorecard /autograder/results/rows.csv --force --no-cache --student-view\n\
         status=$?\n\
         if [ ! -s /autograder/results/results.json ]; then\n\
         \x20 echo \"puzzlegrade could not grade this submission (harness exit $status): no score given; the lines above say why.\"\n\
         \x20 exit 1\n\
         fi\n\
         exit 0\n"
    )
}
