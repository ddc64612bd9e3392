//! A platform the harness has never heard of, for the tests only: it
//! enters through one line of [`super::PLATFORMS`] and this file, and is
//! packaged and given results through the same calls as every platform.

use super::kit::{File, Form, Kit, Package};
use super::{Graded, Platform};

/// A platform whose kit is one script and whose results are one line.
pub(super) struct Toy;

impl Platform for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn about(&self) -> &'static str {
        "a test platform: grade.sh and a one-line score"
    }

    fn kit(&self, kit: &Kit) -> anyhow::Result<Package> {
        let script = format!(
            "#!/bin/sh\nexec ./harness grade --course {} --submission \"$1\" --results toy:score.txt\n",
            kit.course_in("$PWD")
        );
        Ok(Package {
            files: vec![File::new("grade.sh", script, 0o755)],
            form: Form::Folder,
            said: vec![format!("wrote {}/grade.sh", kit.out.display())],
        })
    }

    fn results(&self) -> Option<super::Results> {
        Some(results)
    }
}

/// One submission's results file.
fn results(graded: &Graded) -> anyhow::Result<Vec<u8>> {
    let p = graded.points;
    Ok(format!("{} {}/{}\n", p.submission, p.total, p.max).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::{Graded, Kit, find, names, package, write_class, write_results};
    use crate::course::Course;
    use crate::course::points::Points;

    /// A bundled course's config (any course does: the first by name).
    fn course() -> Course {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../courses");
        let mut configs: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        configs.sort();
        Course::load(&configs[0]).unwrap()
    }

    fn points(who: &str, total: f64) -> Points {
        Points {
            submission: who.into(),
            items: Vec::new(),
            extra: Vec::new(),
            total,
            max: 40.0,
            item_max: Vec::new(),
            built: true,
            accepted: 0,
            cases: 0,
            entry: None,
            ungraded: None,
            users: Vec::new(),
        }
    }

    #[test]
    fn a_new_platform_is_one_file_and_one_table_line() {
        assert_eq!(
            names(),
            [
                "gradescope",
                "autolab",
                "prairielearn",
                "gitlab",
                "github-classroom",
                "toy"
            ]
        );
        let toy = find("toy").expect("in the table");
        let course = course();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("kit");
        let kit = Kit {
            course: &course,
            course_arg: "cis521".into(),
            tree: None,
            exe: std::env::current_exe().unwrap(),
            handin: "handin.tar".into(),
            out: out.clone(),
            shipped: Default::default(),
            linked: Default::default(),
            worst: None,
        };
        let said = package(toy, &kit, &out, true).unwrap();
        assert_eq!(
            said,
            [
                format!("wrote {}/grade.sh", out.display()),
                "warning: the kit was not tried (--untried)".into(),
                "the kit: 1 files, 0.0 MB".into()
            ]
        );
        assert_eq!(
            std::fs::read_to_string(out.join("grade.sh")).unwrap(),
            "#!/bin/sh\nexec ./harness grade --course cis521 --submission \"$1\" --results toy:score.txt\n"
        );
        let one = points("ada", 37.0);
        let graded = Graded {
            course: &course,
            points: &one,
            rows: &[],
            replays: &Default::default(),
            elapsed: None,
        };
        let score = dir.path().join("results/score.txt");
        write_results(toy, &score, &graded).unwrap();
        assert_eq!(std::fs::read_to_string(&score).unwrap(), "ada 37/40\n");
        let class = [points("ada", 37.0), points("bo/b", 12.5)];
        write_class(
            toy,
            &dir.path().join("class"),
            &course,
            &class,
            &[],
            &Default::default(),
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("class/bo_b/results.json")).unwrap(),
            "bo/b 12.5/40\n"
        );
        assert!(
            find("gitlab").unwrap().results().is_none(),
            "a platform without a results file says so"
        );
    }
}
