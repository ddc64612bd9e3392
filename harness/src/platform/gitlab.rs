//! GitLab CI (LabTS-style), shell executor: `.gitlab-ci.yml` (a job that
//! grades the pushed commit, publishes JUnit as GitLab's test report and
//! the score as the job's coverage) and `runner/` (this harness and
//! `install.sh`, run once as root on the runner's host). No results file:
//! GitLab reads the JUnit export and the score line.

use super::Platform;
use super::kit::{File, Form, Kit, Package, apt_install};

/// GitLab CI.
pub(super) struct GitLab;

impl Platform for GitLab {
    fn name(&self) -> &'static str {
        "gitlab"
    }

    fn about(&self) -> &'static str {
        "a GitLab CI job (LabTS-style): .gitlab-ci.yml and the runner's install script"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let mut files: Vec<File> = kit
            .payload()?
            .into_iter()
            .map(|f| File::new(format!("runner/{}", f.name), f.bytes, f.mode))
            .collect();
        files.push(File::new("runner/install.sh", install(kit), 0o755));
        files.push(File::new(".gitlab-ci.yml", yaml(kit), 0o644));
        Ok(Package {
            files,
            form: Form::Folder,
            said: vec![format!(
                "wrote {0}/.gitlab-ci.yml and {0}/runner (course {1}; packages the runner needs: {2})",
                kit.out.display(),
                kit.course_arg,
                kit.packages()
            )],
        })
    }
}

/// The job.
fn yaml(kit: &Kit) -> String {
    let grade = format!(
        "\"$PUZZLEGRADE_HOME/harness\" grade --course {} --submission .puzzlegrade/submission --id \"$CI_PROJECT_NAME\" --scorecard .puzzlegrade/rows.csv --summary .puzzlegrade/summary.csv --export junit:.puzzlegrade/junit.xml --sandbox \"$sandbox\" --force --no-cache --student-view || test $? -eq 1",
        kit.course_in("$PUZZLEGRADE_HOME")
    );
    format!(
        "# puzzlegrade (course {}): grades each push. The runner (shell\n\
         # executor, tag puzzlegrade) has puzzlegrade installed by runner/install.sh.\n\
         # The score is the job's coverage; each case is a test in the test report.\n\
         puzzlegrade:\n\
         \x20 stage: test\n\
         \x20 tags: [puzzlegrade]\n\
         \x20 variables:\n\
         \x20   PUZZLEGRADE_HOME: /opt/puzzlegrade\n\
         \x20 script:\n\
         \x20   - rm -rf .puzzlegrade && mkdir -p .puzzlegrade/submission\n\
         \x20   # The commit's files, as pushed: nothing untracked, no .git.\n\
         \x20   - git archive --format=tar HEAD | tar xf - -C .puzzlegrade/submission\n\
         \x20   - export PUZZLEGRADE_CACHE=\"$PUZZLEGRADE_HOME/cache\"\n\
         \x20   # Not root: each case under bubblewrap, or no grading at all.\n\
         \x20   - sandbox=auto; [ \"$(id -u)\" -eq 0 ] || sandbox=bwrap\n\
         \x20   - {}\n\
         \x20 coverage: '/^score: \\S+ \\/ \\S+ points \\((\\d+(?:\\.\\d+)?)%\\)$/'\n\
         \x20 artifacts:\n\
         \x20   when: always\n\
         \x20   paths: [.puzzlegrade/summary.csv]\n\
         \x20   reports:\n\
         \x20     junit: .puzzlegrade/junit.xml\n",
        kit.course_arg,
        yaml_quote(&grade)
    )
}

/// The runner's install script.
fn install(kit: &Kit) -> String {
    format!(
        "#!/bin/sh\n\
         # Installs puzzlegrade on a GitLab runner's host (run once, as root):\n\
         # the harness into $PREFIX (default /opt/puzzlegrade), its bundled courses\n\
         # written out, and the Debian packages course {} needs (and\n\
         # bubblewrap, which isolates the cases of a job that is not root).\n\
         set -eu\n\
         cd \"$(dirname \"$0\")\"\n\
         prefix=${{PREFIX:-/opt/puzzlegrade}}\n\
         {}\
         mkdir -p \"$prefix\"\n\
         cp -R . \"$prefix\"/\n\
         rm -f \"$prefix/install.sh\"\n\
         chmod -R a+rX \"$prefix\"\n\
         PUZZLEGRADE_CACHE=\"$prefix/cache\" \"$prefix/harness\" courses >/dev/null\n\
         echo \"puzzlegrade installed in $prefix\"\n",
        kit.course_arg,
        apt_install(
            kit.course
                .file
                .packages
                .iter()
                .map(String::as_str)
                .chain(["bubblewrap"])
        )
    )
}

/// `s` as a single-quoted YAML scalar.
fn yaml_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
