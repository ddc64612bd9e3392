//! What the handout's empty stubs earn: every case of a part that a
//! `beyond_stub` rubric item counts, judged on the answers of programs
//! that do nothing there (the reference's [`reference::family::Case::stubs`]:
//! a function's stub through its adapter; a whole program's empty `main`
//! and its "no solution", [`reference::family::NOTHING_DONE`]; the same two
//! on a battery's probes), with no candidate run. An item's stub share is
//! the best one of them passes: each is one program. A case whose stub
//! the reference cannot tell (its suite gone since the run, a judge
//! without one) is one every stub fails.

use std::collections::BTreeMap;

use reference::family::NOTHING_DONE;

use super::rubric::{Item, Rule, Score, round};
use super::{Course, PartKind};
use crate::discover::discover;
use crate::outcome::{Row, Verdict};

/// Each stub's verdict on each case (in the order of the case's stubs),
/// by (suite as in a row, case).
pub type Stubs = BTreeMap<(String, String), Vec<Verdict>>;

/// The stubs' verdicts on each case of the parts a `beyond_stub` item
/// counts.
pub fn verdicts(course: &Course) -> Stubs {
    let mut out = Stubs::new();
    for part in &course.parts {
        let name = &part.file.name;
        let counted = course
            .file
            .rubric
            .iter()
            .any(|i| i.beyond_stub && i.part.contains(name));
        if !counted {
            continue;
        }
        match part.kind {
            PartKind::Suites(grader) => suites(&mut out, part, grader, course),
            PartKind::Conform(role) => {
                // The battery's probes, written where nothing runs them:
                // their files are read for a probe whose output is judged.
                let Ok(dir) = tempfile::tempdir() else {
                    continue;
                };
                let Ok(probes) = part.probes(course.family, role, dir.path()) else {
                    continue;
                };
                let suite = format!(
                    "{name}/{}",
                    crate::battery::suite_name(course.family.name(), role)
                );
                for (case, probe) in probes {
                    let verdicts = NOTHING_DONE
                        .iter()
                        .map(|&code| {
                            crate::grade::probe::stub_verdict(course.family, &probe, code.into())
                        })
                        .collect();
                    out.insert((suite.clone(), case), verdicts);
                }
            }
        }
    }
    out
}

/// The stubs' verdicts on the cases of a part of suites.
fn suites(
    out: &mut Stubs,
    part: &super::Part,
    grader: &'static dyn reference::family::Grader,
    course: &Course,
) {
    let Ok(cases) = discover(&part.suites, Some(course.family), None) else {
        return;
    };
    for c in cases {
        let Some(case) = c
            .files
            .as_ref()
            .ok()
            .and_then(|files| judge(grader, &c).load(files).ok())
        else {
            continue;
        };
        let verdicts = case
            .stubs()
            .iter()
            .map(|stub| {
                let j = case.judge(stub.stdout.as_bytes(), stub.exit_code.into());
                Verdict::from(j.check)
            })
            .collect();
        out.insert(
            (format!("{}/{}", part.file.name, c.suite), c.name),
            verdicts,
        );
    }
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

/// `item`'s [`Item::score`], less what the handout's empty stubs earn on
/// the same cases where the item is `beyond_stub`; `stubs`: their
/// verdicts ([`verdicts`]). With `k` the most cases one stub passes: a
/// `share` gives `points x (s - k) / (1 - k)` (`s`, `k` as shares, at
/// least 0); an `each` counts the cases passed beyond `k`; an `all` that
/// a stub passes whole gives nothing.
pub fn score(item: &Item, rows: &[&Row], built: bool, stubs: &Stubs) -> Score {
    let mut score = item.score(rows, built);
    if !item.beyond_stub || score.cases == 0 {
        return score;
    }
    let selected: Vec<&&Row> = rows
        .iter()
        .filter(|r| item.selects(&r.suite, &r.case))
        .collect();
    let most = selected
        .iter()
        .filter_map(|r| stubs.get(&(r.suite.clone(), r.case.clone())))
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    let stub_passed = (0..most)
        .map(|which| {
            selected
                .iter()
                .filter(|r| {
                    stubs
                        .get(&(r.suite.clone(), r.case.clone()))
                        .and_then(|v| v.get(which))
                        .is_some_and(|&verdict| {
                            item.passes(&Row {
                                verdict,
                                moves: None,
                                ..(***r).clone()
                            })
                        })
                })
                .count()
        })
        .max()
        .unwrap_or(0);
    score.stub_passed = Some(stub_passed);
    let n = score.cases as f64;
    let (s, k) = (score.passed as f64 / n, stub_passed as f64 / n);
    score.points = match item.rule {
        Rule::Share if k >= 1.0 => 0.0,
        Rule::Share => round(item.points * ((s - k) / (1.0 - k)).max(0.0)),
        Rule::Each => {
            let p = item.points * score.passed.saturating_sub(stub_passed) as f64;
            round(item.cap.map_or(p, |c| p.min(c)))
        }
        Rule::All if stub_passed == score.cases => 0.0,
        Rule::All | Rule::CompilePenalty => score.points,
    };
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(rule: &str, points: f64) -> Item {
        let toml = format!("name = 'x'\nrule = '{rule}'\npoints = {points}\npart = 'solver'\n");
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
        let mut it = item("share", 10.0);
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
                (("solver/s".to_string(), n.to_string()), vec![v])
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
