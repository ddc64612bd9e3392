//! What the handout's empty stubs earn: every case of a part that a
//! `beyond_stub` rubric item counts, judged on the answer a program that
//! does nothing gives there (the reference's [`reference::family::Case::stub`]:
//! a function's stub through its adapter, a whole program's "no solution"),
//! with no candidate run. A case whose stub the reference cannot tell (its
//! suite gone since the run, a judge without one) is one the stub fails.

use std::collections::BTreeMap;

use super::rubric::{Item, Score, round};
use super::{Course, PartKind};
use crate::discover::discover;
use crate::outcome::{Row, Verdict};

/// The stub's verdict on each case, by (suite as in a row, case).
pub type Stubs = BTreeMap<(String, String), Verdict>;

/// The stub's verdict on each case of the parts a `beyond_stub` item counts.
pub fn verdicts(course: &Course) -> Stubs {
    let mut out = Stubs::new();
    for part in &course.parts {
        let PartKind::Suites(grader) = part.kind else {
            continue;
        };
        let name = &part.file.name;
        let counted = course
            .file
            .rubric
            .iter()
            .any(|i| i.beyond_stub && i.part.contains(name));
        if !counted {
            continue;
        }
        let Ok(cases) = discover(&part.suites, Some(course.family), None) else {
            continue;
        };
        for c in cases {
            let Some(verdict) = c
                .files
                .as_ref()
                .ok()
                .and_then(|files| judge(grader, &c).load(files).ok())
                .and_then(|case| {
                    let stub = case.stub()?;
                    Some(case.judge(stub.stdout.as_bytes(), stub.exit_code.into()))
                })
                .map(|j| Verdict::from(j.check))
            else {
                continue;
            };
            out.insert((format!("{name}/{}", c.suite), c.name), verdict);
        }
    }
    out
}

/// What judges case `c` of a part judged by `grader`: the grader, but for
/// a problem package's case, which keeps its package's own.
fn judge(
    grader: &'static dyn reference::family::Grader,
    c: &crate::job::Case,
) -> &'static dyn reference::family::Grader {
    if c.family.name() == grader.name() {
        c.family
    } else {
        grader
    }
}

/// `item`'s [`Item::score`], less what the handout's empty stub earns on
/// the same cases where the item is `beyond_stub`; `stubs`: the stub's
/// verdicts ([`verdicts`]).
pub fn score(item: &Item, rows: &[&Row], built: bool, stubs: &Stubs) -> Score {
    let mut score = item.score(rows, built);
    if !item.beyond_stub || score.cases == 0 {
        return score;
    }
    let stub_passed = rows
        .iter()
        .filter(|r| item.selects(&r.suite, &r.case))
        .filter(|r| {
            stubs
                .get(&(r.suite.clone(), r.case.clone()))
                .is_some_and(|&verdict| {
                    item.passes(&Row {
                        verdict,
                        moves: None,
                        ..(**r).clone()
                    })
                })
        })
        .count();
    score.stub_passed = Some(stub_passed);
    let n = score.cases as f64;
    let (s, k) = (score.passed as f64 / n, stub_passed as f64 / n);
    score.points = if k >= 1.0 {
        0.0
    } else {
        round(item.points * ((s - k) / (1.0 - k)).max(0.0))
    };
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::rubric::Rule;

    fn item(rule: Rule, points: f64) -> Item {
        assert_eq!(rule, Rule::Share);
        let toml = format!("name = 'x'\nrule = 'share'\npoints = {points}\npart = 'solver'\n");
        toml::from_str(&toml).unwrap()
    }

    fn row(suite: &str, case: &str, verdict: Verdict) -> Row {
        let mut r = Row::new("s", "toy", suite, case);
        r.verdict = verdict;
        r
    }

    /// A share beyond the stub: the stub's own answers, and any no better,
    /// earn nothing; a case the stub passes costs more when missed.
    #[test]
    fn a_share_beyond_the_stub() {
        let mut it = item(Rule::Share, 10.0);
        it.beyond_stub = true;
        // Four cases; the stub passes the first (a `false` the question
        // expects) and fails the rest.
        let names = ["a", "b", "c", "d"];
        let stubs: Stubs = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let v = if i == 0 {
                    Verdict::Accepted
                } else {
                    Verdict::WrongAnswer
                };
                (("solver/s".to_string(), n.to_string()), v)
            })
            .collect();
        let score = |it: &Item, passing: &[&str]| {
            let rows: Vec<Row> = names
                .iter()
                .map(|n| {
                    let v = if passing.contains(n) {
                        Verdict::Accepted
                    } else {
                        Verdict::WrongAnswer
                    };
                    row("solver/s", n, v)
                })
                .collect();
            let refs: Vec<&Row> = rows.iter().collect();
            (
                score(it, &refs, true, &stubs).points,
                it.score(&refs, true).points,
            )
        };
        assert_eq!(score(&it, &["a"]), (0.0, 2.5), "the stub itself");
        assert_eq!(score(&it, &["b"]), (0.0, 2.5), "no better than the stub");
        assert_eq!(score(&it, &["a", "b"]), (3.333333, 5.0));
        assert_eq!(score(&it, &["b", "c", "d"]), (6.666667, 7.5));
        assert_eq!(score(&it, &["a", "b", "c", "d"]), (10.0, 10.0));
        assert_eq!(score(&it, &[]), (0.0, 0.0));
        // Not beyond the stub: the plain share.
        it.beyond_stub = false;
        assert_eq!(score(&it, &["a"]), (2.5, 2.5));
    }
}
