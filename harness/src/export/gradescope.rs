//! `gradescope`: Gradescope's autograder `results.json`, written here
//! alone: as an export of a run (the score, its maximum, the execution
//! time, one test per case, one point each) and, for a class, one per
//! submission with a test per rubric item (the Gradescope platform,
//! `platform/gradescope.rs`, builds those [`Results`]).

use serde::Serialize;

use super::{Export, Record};
use crate::outcome::Verdict;

/// The Gradescope exporter.
pub struct Gradescope;

/// Gradescope's `results.json` (the fields of its specification that
/// puzzlegrade fills; those left `None` are left out).
#[derive(Debug, Serialize)]
pub struct Results {
    /// The points.
    pub score: f64,
    /// The most points.
    pub max_score: f64,
    /// Seconds the grading took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_time: Option<f64>,
    /// The text above the tests.
    pub output: String,
    /// How Gradescope renders `output` (`text`: as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_format: Option<&'static str>,
    /// Who sees the results.
    pub visibility: &'static str,
    /// Who sees the autograder's stdout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout_visibility: Option<&'static str>,
    /// A contest's leaderboard columns (`name`, `value`, `order`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaderboard: Option<Vec<serde_json::Value>>,
    /// The tests, in order.
    pub tests: Vec<Test>,
    /// Anything else, kept with the submission for the staff (Gradescope
    /// shows it to no one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra_data: Option<serde_json::Value>,
}

/// One test of a [`Results`].
#[derive(Debug, Serialize)]
pub struct Test {
    /// Its name.
    pub name: String,
    /// Its number, as Gradescope shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// The points.
    pub score: f64,
    /// The most points.
    pub max_score: f64,
    /// `passed` or `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    /// Why, for the student.
    pub output: String,
    /// Who sees it.
    pub visibility: &'static str,
    /// Its tags (learning objectives), where it has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// What it checks, for the student (PrairieLearn's `description`;
    /// Gradescope has no such field, so it is not written there).
    #[serde(skip)]
    pub description: Option<String>,
}

impl Results {
    /// The file's bytes: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        super::pretty_json(self)
    }
}

impl Export for Gradescope {
    fn render(&self, r: &Record) -> anyhow::Result<Vec<u8>> {
        let tests: Vec<Test> = r
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let passed = row.verdict == Verdict::Accepted;
                let output = if row.detail.is_empty() {
                    row.verdict.as_str().to_string()
                } else {
                    format!("{}: {}", row.verdict, row.detail)
                };
                Test {
                    name: format!("{}/{}", row.suite, row.case),
                    number: Some((i + 1).to_string()),
                    score: if passed { 1.0 } else { 0.0 },
                    max_score: 1.0,
                    status: Some(if passed { "passed" } else { "failed" }),
                    output,
                    visibility: "visible",
                    tags: vec![row.suite.clone()],
                    description: None,
                }
            })
            .collect();
        let score = tests.iter().map(|t| t.score).sum();
        let output = format!(
            "{}: {}/{} puzzles accepted{}",
            r.candidate,
            r.summary.accepted(),
            r.summary.total(),
            if r.finished {
                ""
            } else {
                " so far (the run did not finish)"
            }
        );
        let results = Results {
            score,
            max_score: tests.len() as f64,
            execution_time: Some((r.summary.elapsed.as_secs_f64() * 1000.0).round() / 1000.0),
            output,
            output_format: Some("text"),
            visibility: "visible",
            stdout_visibility: Some("hidden"),
            leaderboard: None,
            tests,
            extra_data: None,
        };
        results.to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::record;

    /// The fields Gradescope's results.json specification documents, with
    /// their types.
    #[test]
    fn results_follow_the_documented_schema() {
        let bytes = Gradescope.render(&record()).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["score"], 1.0);
        assert_eq!(v["max_score"], 3.0);
        assert!(v["execution_time"].is_number());
        let tests = v["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 3);
        for t in tests {
            for field in ["name", "output", "status", "visibility"] {
                assert!(t[field].is_string(), "{field} in {t}");
            }
            assert!(t["score"].is_number() && t["max_score"].is_number());
            assert!(t["tags"].as_array().unwrap().iter().all(|x| x.is_string()));
            assert!(["passed", "failed"].contains(&t["status"].as_str().unwrap()));
            assert!(
                ["hidden", "after_due_date", "after_published", "visible"]
                    .contains(&t["visibility"].as_str().unwrap())
            );
        }
        assert_eq!(tests[1]["name"], "toy/easy/3x2-9.txt");
        assert_eq!(
            tests[1]["output"],
            "wrong-answer: lights still on after 1 moves (2 lit)"
        );
        insta::assert_json_snapshot!(v);
    }
}
