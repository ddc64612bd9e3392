//! `junit`: JUnit XML (quick-junit), one testsuite per suite and one
//! testcase per case, so a student's CI shows failing puzzles as failing
//! tests. Our own failures are errors, cancelled cases are skipped. Where
//! the rows are a class's (several submissions, or one graded alone), each suite and test name
//! starts with the candidate (`alice/solver/...`, `alice: 2x2-1.txt`): a CI
//! server that merges tests of one name would merge students.

use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Export, Record};
use crate::outcome::{Row, Verdict};

/// The JUnit exporter.
pub struct Junit;

impl Export for Junit {
    fn render(&self, r: &Record) -> anyhow::Result<Vec<u8>> {
        let mut report = Report::new(format!("puzzlegrade: {}", r.candidate));
        // A class's rows (even one submission's, graded alone) are not the
        // run's own candidate: each test names its submission.
        let several = r.rows.iter().any(|row| row.candidate != r.candidate);
        let mut suites: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
        for row in &r.rows {
            let key = if several {
                format!("{}/{}", row.candidate, row.suite)
            } else {
                row.suite.clone()
            };
            suites.entry(key).or_default().push(row);
        }
        for (name, rows) in suites {
            let mut suite = TestSuite::new(name.as_str());
            for row in rows {
                let case_name = if several {
                    format!("{}: {}", row.candidate, row.case)
                } else {
                    row.case.clone()
                };
                let mut case = TestCase::new(case_name, status(row));
                case.set_classname(name.as_str());
                if let Some(ms) = row.wall_ms {
                    case.set_time(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
                }
                suite.add_test_case(case);
            }
            report.add_test_suite(suite);
        }
        Ok(report.to_string()?.into_bytes())
    }
}

fn status(row: &Row) -> TestCaseStatus {
    let kind = match row.verdict {
        Verdict::Accepted => return TestCaseStatus::success(),
        Verdict::Cancelled => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(row.detail.as_str());
            return s;
        }
        Verdict::HarnessError => NonSuccessKind::Error,
        _ => NonSuccessKind::Failure,
    };
    let mut s = TestCaseStatus::non_success(kind);
    s.set_message(row.verdict.as_str());
    s.set_type(row.verdict.as_str());
    s.set_description(row.detail.as_str());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::record;

    #[test]
    fn one_suite_per_suite_and_failures_with_the_verdict() {
        let bytes = Junit.render(&record()).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let suites: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testsuite"))
            .collect();
        assert_eq!(suites.len(), 2);
        assert_eq!(suites[0].attribute("name"), Some("toy/easy"));
        assert_eq!(suites[0].attribute("tests"), Some("2"));
        assert_eq!(suites[0].attribute("failures"), Some("1"));
        let failure = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert_eq!(failure.attribute("message"), Some("wrong-answer"));
        assert_eq!(
            failure.text(),
            Some("lights still on after 1 moves (2 lit)")
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn a_class_names_the_submission_in_every_test() {
        let mut r = record();
        let mut bob = r.rows.clone();
        for row in &mut bob {
            row.candidate = "bob".into();
        }
        r.rows.extend(bob);
        let text = String::from_utf8(Junit.render(&r).unwrap()).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let names: Vec<(&str, &str)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|n| {
                (
                    n.attribute("classname").unwrap(),
                    n.attribute("name").unwrap(),
                )
            })
            .collect();
        assert_eq!(names.len(), 6);
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 6, "no two tests of one name: {names:?}");
        assert!(names.contains(&("bob/toy/easy", "bob: 2x2-1.txt")));
    }
}
