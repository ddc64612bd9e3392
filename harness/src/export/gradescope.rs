//! `gradescope`: Gradescope's autograder `results.json`: the score, its
//! maximum, the execution time, and one test per case (one point each
//! until rubrics come), visible to the student.

use serde::Serialize;

use super::{Export, Record};
use crate::outcome::Verdict;

/// The Gradescope exporter.
pub struct Gradescope;

#[derive(Serialize)]
struct Results {
    score: f64,
    max_score: f64,
    execution_time: f64,
    output: String,
    visibility: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    number: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    visibility: &'static str,
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
                    number: (i + 1).to_string(),
                    score: if passed { 1.0 } else { 0.0 },
                    max_score: 1.0,
                    status: if passed { "passed" } else { "failed" },
                    output,
                    visibility: "visible",
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
            execution_time: (r.summary.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
            output,
            visibility: "visible",
            stdout_visibility: "hidden",
            tests,
        };
        let mut bytes = serde_json::to_vec_pretty(&results)?;
        bytes.push(b'\n');
        Ok(bytes)
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
