//! Autolab (Tango): `autograde-Makefile` and `autograde.tar` in the output
//! folder (and `scoreboard.json` for a course with a contest). Tango runs
//! `make` beside the handin and the tar; the last two lines printed are
//! Autolab's formatted feedback and its `{"scores": {...}}`, keyed by
//! rubric item (name the assessment's problems so).

use std::path::Path;
use std::time::Duration;

use super::kit::{File, Form, Kit, Package, dockerfile, tar};
use super::limits::Timeout;
use super::trial::{self, Trial};
use super::{Graded, Platform};

/// Autolab's scoreboard columns for a live contest's
/// (`course::contest::Live`: the assessment's "Scoreboard" setting):
/// solved, most first; then CPU seconds, least first.
pub const SCOREBOARD: &str =
    r#"{"scoreboard": [{"hdr": "Solved"}, {"hdr": "CPU seconds", "asc": 1}]}"#;

/// Autolab.
pub(super) struct Autolab;

impl Platform for Autolab {
    fn name(&self) -> &'static str {
        "autolab"
    }

    fn about(&self) -> &'static str {
        "Autolab's (Tango's) autograde-Makefile and autograde.tar"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let mut inner = kit.payload()?;
        inner.push(File::new("run", run(kit), 0o755));
        let handin = shell_words::quote(&kit.handin).into_owned();
        let makefile = format!(
            "# Autolab (Tango) runs `make` here, beside the handin and autograde.tar\n\
             # (puzzlegrade, course {}); the last line printed is the JSON\n\
             # Autolab reads.\n\
             all:\n\
             \ttar xf autograde.tar\n\
             \tsh autograde/run {handin}\n\
             \n\
             clean:\n\
             \trm -rf autograde submission scores.json rows.csv\n\
             \n\
             .PHONY: all clean\n",
            kit.course_arg
        );
        let mut files = vec![
            File::new("autograde.tar", tar("autograde", &inner)?, 0o644),
            File::new("autograde-Makefile", makefile, 0o644),
            // Over Tango's own image (its vmms/Dockerfile: the autolab and
            // autograde users, autodriver).
            File::new(
                "Dockerfile",
                dockerfile(kit, "autograding_image", &["make", "tar"], &[]),
                0o644,
            ),
        ];
        let mut said = Vec::new();
        if kit.course.file.contest.is_some() {
            // The live contest's columns, for the assessment's Scoreboard
            // setting.
            let spec = format!("{}\n", SCOREBOARD);
            files.push(File::new("scoreboard.json", spec, 0o644));
            said.push(format!(
                "wrote {}/scoreboard.json: paste it into the assessment's Scoreboard setting",
                kit.out.display()
            ));
        }
        said.push(format!(
            "wrote {}/autograde-Makefile, autograde.tar and Dockerfile (course {}; handin {}; packages the image needs: {})",
            kit.out.display(),
            kit.course_arg,
            kit.handin,
            kit.packages()
        ));
        Ok(Package {
            files,
            form: Form::Folder,
            said,
        })
    }

    /// The one line Autolab reads last, `{"scores": {"<item>": points,
    /// ...}}`: every rubric item and policy item by name (the assessment's
    /// problems are named the same), and the live contest's scoreboard
    /// entry where the submission has one.
    fn results(&self) -> Option<super::Results> {
        Some(results)
    }

    fn timeout(&self) -> Option<Timeout> {
        Some(Timeout {
            platform: "Autolab",
            default: Duration::from_secs(180),
            most: Some(Duration::from_secs(899)),
            set_in: Some("the assessment's Autograder settings, Timeout"),
            stopped: "gets no score (its job fails)",
        })
    }

    /// Tango's job folder: the kit's Makefile and tar beside the handin
    /// (the sample as a tar of its files, or its one file under the
    /// handin's name), `make -s` there; the score is the sum of the last
    /// line's `scores`.
    fn trial(
        &self,
        kit: &Kit,
        written: &Path,
        sample: &Path,
        root: &Path,
    ) -> anyhow::Result<Option<Trial>> {
        let job = root.join("job");
        std::fs::create_dir(&job)?;
        std::fs::copy(written.join("autograde-Makefile"), job.join("Makefile"))?;
        std::fs::copy(written.join("autograde.tar"), job.join("autograde.tar"))?;
        let handin = &kit.handin;
        let staged = root.join("sample");
        trial::copy_tree(sample, &staged)?;
        let is_tar = [".tar", ".tar.gz", ".tgz"]
            .iter()
            .any(|e| handin.ends_with(e));
        let script = if is_tar {
            format!(
                "tar cf job/{0} -C sample . && cd job && make -s",
                shell_words::quote(handin)
            )
        } else {
            format!(
                "cp sample/* job/{0} && cd job && make -s",
                shell_words::quote(handin)
            )
        };
        Ok(Some(Trial {
            script,
            env: Vec::new(),
            score: Box::new(|stdout, _| {
                let last = stdout.lines().last().unwrap_or_default();
                let v: serde_json::Value = serde_json::from_str(last)
                    .map_err(|e| anyhow::anyhow!("the last line is not Autolab's scores ({e})"))?;
                let scores = v["scores"]
                    .as_object()
                    .ok_or_else(|| anyhow::anyhow!("the last line has no scores"))?;
                Ok(scores.values().filter_map(serde_json::Value::as_f64).sum())
            }),
        }))
    }
}

/// One submission's results file: Autolab's formatted feedback (the
/// `semantic` presentation: a stage of rubric items, passed or not, each
/// failed one with its failures as the hint, an item the students may not
/// see without them; a stage for the policy's items), then the scores
/// line, last.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let mut out = serde_json::to_vec(&feedback(graded))?;
    out.push(b'\n');
    out.extend(scores(graded)?);
    Ok(out)
}

/// Autolab's formatted feedback line.
fn feedback(graded: &Graded) -> serde_json::Value {
    let r = super::feedback::results(graded.course, graded.points, graded.rows);
    let mut rubric = serde_json::Map::new();
    let mut policy = serde_json::Map::new();
    // The rubric's items first, then the policy's and the contest's.
    let items = graded.course.file.rubric.len();
    for (i, t) in r.tests.iter().enumerate() {
        let passed = t.score >= t.max_score;
        let mut test = serde_json::json!({ "passed": passed });
        if !passed {
            test["hint"] = if t.visibility == "visible" {
                t.output.clone()
            } else {
                "(its cases are not shown)".to_string()
            }
            .into();
        }
        if i < items {
            rubric.insert(t.name.clone(), test);
        } else {
            policy.insert(t.name.clone(), serde_json::json!(t.output));
        }
    }
    let mut stages = vec![RUBRIC];
    let mut json = serde_json::json!({ "_presentation": "semantic", RUBRIC: rubric });
    if !policy.is_empty() {
        stages.push(POLICY);
        json[POLICY] = policy.into();
    }
    json["stages"] = serde_json::json!(stages);
    json
}

/// The formatted feedback's stages.
const RUBRIC: &str = "Rubric";
const POLICY: &str = "Handin policy";

/// The scores line.
fn scores(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let p = graded.points;
    let mut scores = serde_json::Map::new();
    for (name, score) in &p.items {
        scores.insert(name.clone(), serde_json::json!(score.points));
    }
    for (name, points, _) in &p.extra {
        scores.insert(name.clone(), serde_json::json!(points));
    }
    let mut json = serde_json::json!({ "scores": scores });
    if let Some(e) = &p.entry {
        json["scoreboard"] = serde_json::json!([e.solved, e.cpu_seconds]);
    }
    let mut line = serde_json::to_vec(&json)?;
    line.push(b'\n');
    Ok(line)
}

/// The autograder's script: grades the handin in the current folder and
/// prints Autolab's scores as the last line.
fn run(kit: &Kit) -> String {
    format!(
        "#!/bin/sh\n\
         # Autolab's autograder (puzzlegrade): grades the handin in the current\n\
         # folder and prints Autolab's scores as the last line.\n\
         here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
         work=$(pwd)\n\
         rm -rf \"$work/submission\" \"$work/scores.json\"\n\
         mkdir -p \"$work/submission\"\n\
         case \"$1\" in\n\
         \x20 *.tar|*.tar.gz|*.tgz) tar xf \"$1\" -C \"$work/submission\" ;;\n\
         \x20 *) cp \"$1\" \"$work/submission/\" ;;\n\
         esac\n\
         # A handin of one folder is graded from inside it.\n\
         set -- \"$work/submission\"/*\n\
         if [ $# -eq 1 ] && [ -d \"$1\" ]; then sub=$1; else sub=$work/submission; fi\n\
         PUZZLEGRADE_CACHE=\"$here/cache\" \"$here/harness\" grade --course {} --submission \"$sub\" \\\n\
         \x20   --id handin --autolab \"$work/scores.json\" --scorecard \"$work/rows.csv\" --force --no-cache --student-view >&2\n\
         status=$?\n\
         if [ -s \"$work/scores.json\" ]; then cat \"$work/scores.json\"; else\n\
         \x20 # No scores line: Autolab records the job as failed, gives no score.\n\
         \x20 echo \"puzzlegrade could not grade this handin (harness exit $status): no score given\"\n\
         \x20 exit 1\n\
         fi\n",
        kit.course_in("$here")
    )
}
