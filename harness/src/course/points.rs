//! A class's points: the rubric applied to each submission's rows, and
//! `summary.csv`, one line per submission.

use std::path::Path;

use anyhow::Context;

use std::collections::BTreeMap;

use super::Course;
use super::contest::CREDIT_ITEM;
use super::rubric::{Rule, Score, Visibility, round, show};
use crate::job::BUILD;
use crate::outcome::{Row, Verdict};

/// One submission's line of `summary.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    /// The submission id.
    pub submission: String,
    /// Per rubric item, in config order.
    pub items: Vec<(String, Score)>,
    /// The items after the rubric's: the course's `[policy]` (points 0
    /// or less) and the contest's extra credit (beyond the maximum), each
    /// with why.
    pub extra: Vec<(String, f64, String)>,
    /// The sum.
    pub total: f64,
    /// The most a submission can get.
    pub max: f64,
    /// The most each rubric item can give over the class's cases (an
    /// `each` item capped at 8 over 14 cases of 0.3: 4.2), in config order.
    pub item_max: Vec<f64>,
    /// Whether it built.
    pub built: bool,
    /// Cases accepted, and in all (build rows aside).
    pub accepted: usize,
    /// Cases run.
    pub cases: usize,
    /// Its live contest entry (a platform's leaderboard), where the
    /// course has a contest and the submission enters: set by the caller,
    /// which reads the submission's entry file.
    pub entry: Option<super::contest::Live>,
    /// Why no score can be given, where one cannot: a case the harness
    /// could not grade (`harness-error`) or that never ran (`cancelled`).
    /// Its points would be a 0 the student did not earn: platforms give
    /// none ([`crate::platform`]).
    pub ungraded: Option<String>,
    /// Who handed it in, as the platform names them (a group's members;
    /// empty where the class folder does not say).
    pub users: Vec<String>,
}

/// Why `rows` (one submission's) give no score: the first case the
/// harness could not grade, or that a stop left unrun.
pub fn ungraded(rows: &[&Row]) -> Option<String> {
    let mut bad: Vec<&&Row> = rows
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::HarnessError | Verdict::Cancelled))
        .collect();
    bad.sort_by(|a, b| (&a.suite, &a.case).cmp(&(&b.suite, &b.case)));
    let first = bad.first()?;
    let others = match bad.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    Some(match first.verdict {
        Verdict::Cancelled => format!(
            "{}/{} was not graded: the run was stopped{others}",
            first.suite, first.case
        ),
        _ => format!(
            "the grader failed on {}/{}: {}{others}",
            first.suite, first.case, first.detail
        ),
    })
}

/// Why one submission's `rows` are not all there (a stop before its build
/// or some of its cases, of `keys`): then they give no score.
fn unfinished(rows: &[&Row], keys: &[(String, String)]) -> Option<String> {
    let Some(build) = rows.iter().find(|r| r.suite == BUILD) else {
        return Some("not built: the run was stopped before its build".into());
    };
    if build.verdict != Verdict::Accepted {
        return None;
    }
    let have: std::collections::HashSet<(&str, &str)> = rows
        .iter()
        .map(|r| (r.suite.as_str(), r.case.as_str()))
        .collect();
    let missing = keys
        .iter()
        .filter(|(s, c)| !have.contains(&(s.as_str(), c.as_str())))
        .count();
    (missing > 0).then(|| {
        format!(
            "{missing} of its {} cases have no row (the run was stopped before them; --resume runs them)",
            keys.len()
        )
    })
}

/// An item `only_with` another gives nothing where that gave nothing
/// (judged on the other's own points, before any gate of its own).
fn gate(course: &Course, items: &mut [(String, Score)]) {
    let earned: Vec<bool> = items.iter().map(|(_, s)| s.points > 0.0).collect();
    for (item, (_, score)) in course.file.rubric.iter().zip(items.iter_mut()) {
        let Some(gate) = &item.only_with else {
            continue;
        };
        let open = course
            .file
            .rubric
            .iter()
            .position(|i| &i.name == gate)
            .is_some_and(|at| earned[at]);
        if !open && score.points > 0.0 {
            score.points = 0.0;
            score.gated_by = Some(gate.clone());
        }
    }
}

/// Every submission's points from the scorecard's rows, and its handins
/// (for the course's `[policy]`; a submission missing from `handins` had
/// one, at an unknown time).
pub fn points(
    course: &Course,
    ids: &[String],
    keys: &[(String, String)],
    rows: &[Row],
    handins: &super::policy::Handins,
    credits: Option<&BTreeMap<String, super::contest::Credit>>,
) -> Vec<Points> {
    let item_max: Vec<f64> = course
        .file
        .rubric
        .iter()
        .map(|i| i.max_over(keys.iter().map(|(s, c)| (s.as_str(), c.as_str()))))
        .collect();
    let max = round(item_max.iter().sum());
    let stubs = super::stub::verdicts(course);
    // Each submission's rows, found once (not a pass over every row a
    // submission: a class of 1,000 has 100,000).
    let mut by_id: std::collections::HashMap<&str, Vec<&Row>> = Default::default();
    for r in rows {
        by_id.entry(r.candidate.as_str()).or_default().push(r);
    }
    ids.iter()
        .map(|id| {
            let mine: Vec<&Row> = by_id.get(id.as_str()).cloned().unwrap_or_default();
            let built = !mine
                .iter()
                .any(|r| r.suite == BUILD && r.verdict == Verdict::CompileError);
            let cases: Vec<&Row> = mine.iter().copied().filter(|r| r.suite != BUILD).collect();
            let mut items: Vec<(String, Score)> = course
                .file
                .rubric
                .iter()
                .map(|i| (i.name.clone(), super::stub::score(i, &cases, built, &stubs)))
                .collect();
            gate(course, &mut items);
            let rubric = round(items.iter().map(|(_, s)| s.points).sum());
            let mut extra: Vec<(String, f64, String)> = course
                .file
                .policy
                .iter()
                .flat_map(|p| p.apply(&handins.get(id).cloned().unwrap_or_default(), rubric))
                .map(|(name, points, why)| (name.to_string(), points, why))
                .collect();
            if let Some(credits) = credits {
                extra.push(match credits.get(id) {
                    Some(c) => (CREDIT_ITEM.into(), c.credit, c.detail.clone()),
                    None => (
                        CREDIT_ITEM.into(),
                        0.0,
                        "not in the contest's credit file".into(),
                    ),
                });
            }
            Points {
                submission: id.clone(),
                total: round(rubric + extra.iter().map(|(_, p, _)| p).sum::<f64>()),
                items,
                item_max: item_max.clone(),
                extra,
                max,
                built,
                accepted: cases
                    .iter()
                    .filter(|r| r.verdict == Verdict::Accepted)
                    .count(),
                cases: cases.len(),
                entry: None,
                ungraded: ungraded(&mine).or_else(|| unfinished(&mine, keys)),
                users: handins.get(id).map(|h| h.users.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

/// The rubric's item names and each submission's points, from a class
/// run's scorecard alone (its submissions and cases are the rows').
pub fn of_rows(course: &Course, rows: &[Row]) -> (Vec<String>, Vec<Points>) {
    let mut ids: Vec<String> = rows.iter().map(|r| r.candidate.clone()).collect();
    ids.sort();
    ids.dedup();
    let mut keys: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r.suite != BUILD)
        .map(|r| (r.suite.clone(), r.case.clone()))
        .collect();
    keys.sort();
    keys.dedup();
    (
        course.item_names(),
        points(course, &ids, &keys, rows, &Default::default(), None),
    )
}

/// `points` as students see them (`--student-view`): cases accepted and
/// run counted over the cases no item that is not `visible` selects (a
/// hidden item's points stay in the total; its cases are nothing a
/// student can count).
pub fn for_students(course: &Course, points: &mut [Points], rows: &[Row]) {
    let hidden = course.hidden_from_students();
    let mut by_id: std::collections::HashMap<&str, (usize, usize)> = Default::default();
    for r in rows {
        if r.suite != BUILD && !hidden(&r.suite, &r.case) {
            let (accepted, cases) = by_id.entry(r.candidate.as_str()).or_default();
            *accepted += usize::from(r.verdict == Verdict::Accepted);
            *cases += 1;
        }
    }
    for p in points {
        (p.accepted, p.cases) = by_id
            .get(p.submission.as_str())
            .copied()
            .unwrap_or_default();
    }
}

/// The points as the terminal shows them: a line per submission (its
/// total of the most, and cases accepted or that it did not build).
pub fn table(points: &[Points]) -> String {
    let width = points.iter().map(|p| p.submission.len()).max().unwrap_or(0);
    let mut out = String::new();
    for p in points {
        out.push_str(&format!(
            "{:width$}  {:>6} / {}  {}\n",
            p.submission,
            // (Not graded: no total, not a 0.)
            match p.ungraded {
                Some(_) => "-".to_string(),
                None => show(p.total),
            },
            show(p.max),
            if let Some(why) = &p.ungraded {
                format!("not graded: {why}")
            } else if p.built {
                format!("{} of {} cases accepted", p.accepted, p.cases)
            } else {
                "did not build".to_string()
            }
        ));
    }
    out
}

/// One submission's score as one line: `score: 37 / 40 points (92.5%)`,
/// the percentage within 0..100.
pub fn score_line(p: &Points) -> String {
    let pct = if p.max > 0.0 {
        (100.0 * p.total / p.max).clamp(0.0, 100.0)
    } else {
        0.0
    };
    format!(
        "score: {} / {} points ({}%)",
        show(p.total),
        show(p.max),
        show(pct)
    )
}

/// Each submission's total in a `summary.csv` [`write_summary`] wrote (the
/// points before a regrade).
pub fn read_totals(path: &Path) -> anyhow::Result<Vec<(String, f64)>> {
    use anyhow::Context as _;
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let header = r.headers()?.clone();
    let total = header
        .iter()
        .position(|h| h == "total")
        .with_context(|| format!("{}: no `total` column", path.display()))?;
    let mut out = Vec::new();
    for (n, record) in r.records().enumerate() {
        let record = record.with_context(|| format!("{}: line {}", path.display(), n + 2))?;
        let points = record[total].parse().unwrap_or(f64::NAN);
        out.push((crate::outcome::unguard_cell(&record[0]).to_string(), points));
    }
    Ok(out)
}

/// `summary.csv`: one row per submission (points per rubric item, total,
/// the most possible, whether it built, cases accepted of cases run, and
/// the counts behind each item: for students, `student_view`, those of
/// `visible` items only), written atomically.
pub fn write_summary(
    path: &Path,
    course: &Course,
    points: &[Points],
    student_view: bool,
) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["submission".to_string()];
    match points.first() {
        Some(p) => header.extend(
            p.items
                .iter()
                .map(|(n, _)| n.clone())
                .chain(p.extra.iter().map(|(n, _, _)| n.clone())),
        ),
        None => header.extend(course.item_names()),
    }
    header.extend(
        [
            "total", "max", "built", "accepted", "cases", "counts", "graded",
        ]
        .map(String::from),
    );
    w.write_record(crate::outcome::guard_cells(&header))?;
    for p in points {
        let mut record = vec![p.submission.clone()];
        record.extend(p.items.iter().map(|(_, s)| show(s.points)));
        record.extend(p.extra.iter().map(|(_, points, _)| show(*points)));
        let counts: Vec<String> = p
            .items
            .iter()
            .zip(&course.file.rubric)
            .filter(|(_, i)| i.rule != Rule::CompilePenalty)
            .filter(|(_, i)| !student_view || course.visibility(i) == Visibility::Visible)
            .map(|((name, s), _)| format!("{name} {}", s.counts()))
            .collect();
        // Not graded: no total (a 0 the student did not earn), and why.
        let (total, graded) = match &p.ungraded {
            Some(why) => (String::new(), format!("no: {why}")),
            None => (show(p.total), "yes".to_string()),
        };
        record.extend([
            total,
            show(p.max),
            if p.built { "yes" } else { "no" }.to_string(),
            p.accepted.to_string(),
            p.cases.to_string(),
            counts.join("; "),
            graded,
        ]);
        w.write_record(crate::outcome::guard_cells(&record))?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::export::write_atomically(path, &bytes)
}

/// The class's points as JSON (the class JSON export's `points`): per
/// submission its items (points, cases passed of cases), the policy's
/// and contest's items with why, the total, the maximum and the counts.
pub fn to_json(points: &[Points]) -> serde_json::Value {
    serde_json::Value::Array(
        points
            .iter()
            .map(|p| {
                serde_json::json!({
                    "submission": p.submission,
                    "items": p.items.iter().zip(&p.item_max).map(|((name, s), max)| serde_json::json!({
                        "name": name,
                        "points": s.points,
                        "max": max,
                        "passed": s.passed,
                        "cases": s.cases,
                        "stub_passed": s.stub_passed,
                        "gated_by": s.gated_by,
                    })).collect::<Vec<_>>(),
                    "extra": p.extra.iter().map(|(name, points, why)| serde_json::json!({
                        "name": name,
                        "points": points,
                        "why": why,
                    })).collect::<Vec<_>>(),
                    "total": p.ungraded.is_none().then_some(p.total),
                    "graded": p.ungraded.is_none(),
                    "ungraded": p.ungraded,
                    "max": p.max,
                    "built": p.built,
                    "accepted": p.accepted,
                    "cases": p.cases,
                })
            })
            .collect(),
    )
}

/// Adds the class's points to the JSON export at `path` (written by the
/// run, which knows rows, not points) as its `points`.
pub fn add_to_json_export(path: &Path, points: &[Points]) -> anyhow::Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut doc: serde_json::Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not the run's JSON", path.display()))?;
    doc["points"] = to_json(points);
    crate::export::write_atomically(path, &crate::export::pretty_json(&doc)?)
}
