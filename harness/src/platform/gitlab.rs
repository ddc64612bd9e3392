//! GitLab CI (LabTS-style), shell executor: `.gitlab-ci.yml` (a job that
//! grades the pushed commit, publishes JUnit as GitLab's test report and
//! the score as the job's coverage) and `runner/` (this harness and
//! `install.sh`, run once as root on the runner's host). No results file:
//! GitLab reads the JUnit export and the score line.

use std::path::Path;

use super::Platform;
use super::kit::{File, Form, Kit, Package, apt_install, dockerfile};
use super::trial::{self, Trial};

/// GitLab CI.
pub(super) struct GitLab;

impl Platform for GitLab {
    /// A shell runner's host: `runner/install.sh` run with the prefix in
    /// the scratch folder, the sample committed to a repository of its
    /// own, and the job's script run in it line by line (a failing line
    /// fails the job, as GitLab's shell does); the score read from the
    /// line the job's coverage reads.
    fn trial(
        &self,
        kit: &Kit,
        written: &Path,
        sample: &Path,
        root: &Path,
    ) -> anyhow::Result<Option<Trial>> {
        trial::copy_tree(&written.join("runner"), &root.join("runner"))?;
        trial::copy_tree(sample, &root.join("project"))?;
        let mut script = format!(
            "sh runner/install.sh >/dev/null && cd project && {} && set -e",
            trial::COMMIT_ALL
        );
        for (_, line) in self::script(kit) {
            script.push('\n');
            script.push_str(&line);
        }
        Ok(Some(Trial {
            script,
            env: vec![
                ("PREFIX", root.join("opt")),
                ("PUZZLEGRADE_HOME", root.join("opt")),
                ("CI_PROJECT_NAME", "sample".into()),
            ],
            score: Box::new(|stdout, _| {
                stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("score: ")?.split(' ').next()?.parse().ok())
                    .ok_or_else(|| anyhow::anyhow!("no score line"))
            }),
        }))
    }

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
        // The image a Docker executor runs the job in: what install.sh
        // puts on a shell runner's host.
        files.push(File::new(
            "Dockerfile",
            dockerfile(
                kit,
                "debian:bookworm-slim",
                &["git", "ca-certificates", "bubblewrap"],
                &[
                    "COPY runner /opt/puzzlegrade".into(),
                    "RUN rm -f /opt/puzzlegrade/install.sh && chmod -R a+rX /opt/puzzlegrade \\\n && PUZZLEGRADE_CACHE=/opt/puzzlegrade/cache /opt/puzzlegrade/harness courses >/dev/null".into(),
                ],
            ),
            0o644,
        ));
        Ok(Package {
            files,
            form: Form::Folder,
            said: vec![format!(
                "wrote {0}/.gitlab-ci.yml, {0}/runner and {0}/Dockerfile (course {1}; packages the runner needs: {2})",
                kit.out.display(),
                kit.course_arg,
                kit.packages()
            )],
        })
    }
}

/// The job's script: each line with the comment above it, if any.
fn script(kit: &Kit) -> Vec<(&'static str, String)> {
    let grade = format!(
        "\"$PUZZLEGRADE_HOME/harness\" grade --course {} --submission .puzzlegrade/submission --id \"$CI_PROJECT_NAME\" --scorecard .puzzlegrade/rows.csv --summary .puzzlegrade/summary.csv --export junit:.puzzlegrade/junit.xml --sandbox \"$sandbox\" --force --no-cache --student-view || test $? -eq 1",
        kit.course_in("$PUZZLEGRADE_HOME")
    );
    vec![
        (
            "",
            "rm -rf .puzzlegrade && mkdir -p .puzzlegrade/submission".into(),
        ),
        (
            "The commit's files, as pushed: nothing untracked, no .git.",
            "git archive --format=tar HEAD | tar xf - -C .puzzlegrade/submission".into(),
        ),
        (
            "",
            "export PUZZLEGRADE_CACHE=\"$PUZZLEGRADE_HOME/cache\"".into(),
        ),
        (
            "Not root: each case under bubblewrap, or no grading at all.",
            "sandbox=auto; [ \"$(id -u)\" -eq 0 ] || sandbox=bwrap".into(),
        ),
        ("", grade),
    ]
}

/// The job.
fn yaml(kit: &Kit) -> String {
    // The worst case (a runner's own maximum, where its admins set one,
    // still caps it).
    let timeout = kit
        .worst
        .map(|w| {
            let minutes = w.total().as_secs().div_ceil(60).max(10);
            format!(
                "  # One submission's worst case: {}.\n  timeout: {minutes}m\n",
                w.said()
            )
        })
        .unwrap_or_default();
    let image = image_name(kit);
    let mut lines = String::new();
    for (comment, line) in script(kit) {
        if !comment.is_empty() {
            lines.push_str(&format!("    # {comment}\n"));
        }
        lines.push_str(&format!("    - {}\n", yaml_quote(&line)));
    }
    format!(
        "# puzzlegrade (course {}): grades each push. The runner (shell\n\
         # executor, tag puzzlegrade) has puzzlegrade installed by runner/install.sh.\n\
         # The score is the job's coverage; each case is a test in the test report.\n\
         puzzlegrade:\n\
         \x20 stage: test\n\
         \x20 tags: [puzzlegrade]\n\
         {timeout}\
         \x20 # A Docker executor's image (built from the kit's Dockerfile:\n\
         \x20 # docker build -t {image} .); a shell executor ignores it.\n\
         \x20 image: $PUZZLEGRADE_IMAGE\n\
         \x20 variables:\n\
         \x20   PUZZLEGRADE_HOME: /opt/puzzlegrade\n\
         \x20   PUZZLEGRADE_IMAGE: {image}\n\
         \x20 script:\n\
         {lines}\
         \x20 coverage: '/^score: \\S+ \\/ \\S+ points \\((\\d+(?:\\.\\d+)?)%\\)$/'\n\
         \x20 artifacts:\n\
         \x20   when: always\n\
         \x20   paths: [.puzzlegrade/summary.csv]\n\
         \x20   reports:\n\
         \x20     junit: .puzzlegrade/junit.xml\n",
        kit.course_arg,
    )
}

/// The local name of the kit's image: `puzzlegrade-` and the course's.
fn image_name(kit: &Kit) -> String {
    let stem = kit
        .course
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("puzzlegrade-{}", name.trim_matches('-'))
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
