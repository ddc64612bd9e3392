//! The feedback every platform starts from: one test per rubric item (its
//! points, its maximum, the cases behind it and the first failures, as
//! the course words them), then the policy's and the contest's items, in
//! Gradescope's `results.json` shape. Each platform keeps or hides parts of
//! it by its own rules.

use crate::course::Course;
use crate::course::points::Points;
use crate::course::rubric::Rule;
use crate::export::gradescope::{Results, Test};
use crate::job::BUILD;
use crate::outcome::{Row, Verdict};

/// Gradescope's `results.json` of one submission: one test per rubric
/// item (its points, its maximum, the cases behind it and the first
/// failures), then the policy's and the contest's items.
pub(super) fn results(course: &Course, p: &Points, rows: &[Row]) -> Results {
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.candidate == p.submission)
        .collect();
    let mut tests = Vec::new();
    for (i, ((name, score), item)) in p.items.iter().zip(&course.file.rubric).enumerate() {
        // The first failures by suite and case, whatever order the rows
        // finished in: the same feedback on every run.
        let mut failing: Vec<&&Row> = mine
            .iter()
            .filter(|r| item.selects(&r.suite, &r.case) && !item.passes(r))
            .collect();
        failing.sort_by(|a, b| (&a.suite, &a.case).cmp(&(&b.suite, &b.case)));
        let failures: Vec<String> = failing
            .iter()
            .take(10)
            .map(|r| match (r.verdict, r.moves, r.best_moves) {
                // Right, but not the fewest presses the item asks for.
                (Verdict::Accepted, Some(m), Some(b)) => format!(
                    "{}/{}: a solution of {m} moves; this item needs the fewest, {b}",
                    r.suite, r.case
                ),
                _ => format!("{}/{}: {}", r.suite, r.case, said(course, r)),
            })
            .collect();
        let output = if item.rule == Rule::CompilePenalty {
            if p.built {
                "it builds".into()
            } else {
                "it does not build".into()
            }
        } else if !p.built {
            "not run: your submission did not build (see above)".into()
        } else {
            let mut o = format!("{} of {} cases passed", score.passed, score.cases);
            if let Some(k) = score.stub_passed.filter(|&k| k > 0) {
                o.push_str(&format!(
                    "; the handout's empty stubs pass at most {k} of them, and only what an answer does beyond that counts"
                ));
            }
            if let Some(gate) = &score.gated_by {
                // (A secret item is not named.)
                let shown = course
                    .file
                    .rubric
                    .iter()
                    .find(|i| &i.name == gate)
                    .is_some_and(|i| {
                        course.visibility(i) == crate::course::rubric::Visibility::Visible
                    });
                let other = if shown {
                    format!("\"{gate}\"")
                } else {
                    "another item".to_string()
                };
                o.push_str(&format!(
                    "; it counts only where {other} earns points, and that earned none"
                ));
            }
            for f in failures {
                o.push('\n');
                o.push_str(&f);
            }
            // What passed with a word of the course's `notes` (memcheck's
            // errors a leak check does not count): said, not counted.
            let mut noted: Vec<&&Row> = mine
                .iter()
                .filter(|r| item.selects(&r.suite, &r.case) && item.passes(r))
                .filter(|r| r.detail.contains("note: "))
                .collect();
            noted.sort_by(|a, b| (&a.suite, &a.case).cmp(&(&b.suite, &b.case)));
            for r in noted.iter().take(10) {
                let note = &r.detail[r.detail.find("note: ").unwrap_or(0)..];
                o.push_str(&format!("\n{}/{}: passed, with a {note}", r.suite, r.case));
            }
            o
        };
        let shown = course.visibility(item) == crate::course::rubric::Visibility::Visible;
        let max_score = p.item_max.get(i).copied().unwrap_or_else(|| item.max());
        tests.push(Test {
            name: name.clone(),
            // Gradescope's numbering: the item's place in the rubric.
            number: Some((i + 1).to_string()),
            score: score.points,
            max_score,
            // Gradescope colours a test by it: every point, or not.
            status: Some(if score.points >= max_score {
                "passed"
            } else {
                "failed"
            }),
            output,
            visibility: course.visibility(item).as_str(),
            tags: item.tag_list(),
            description: Some(if item.description.is_none() && !shown {
                // Its glob would name the cases it hides.
                let mut general = item.clone();
                general.cases = None;
                general.describe()
            } else {
                item.describe()
            }),
        });
    }
    for (name, points, why) in &p.extra {
        tests.push(Test {
            name: name.clone(),
            number: None,
            score: *points,
            max_score: 0.0,
            status: None,
            output: why.clone(),
            visibility: "visible",
            tags: Vec::new(),
            description: None,
        });
    }
    let build = mine.iter().find(|r| r.suite == BUILD);
    Results {
        score: p.total,
        max_score: p.max,
        // The run's own time, where one submission was graded (the
        // platform's results set it): a sum of case times is not it.
        execution_time: None,
        output_format: Some("text"),
        output: match build {
            Some(r) if r.verdict == Verdict::CompileError => built(r),
            Some(r) if r.verdict != Verdict::Accepted => format!(
                "Your submission could not be built, through no fault of yours \
                 (the course staff will look at it): {}",
                r.detail
            ),
            _ => format!(
                "{}: {} of {} cases accepted",
                course.file.name, p.accepted, p.cases
            ),
        },
        visibility: "visible",
        stdout_visibility: Some(course.file.stdout_visibility.as_str()),
        leaderboard: p
            .entry
            .as_ref()
            .map(crate::course::contest::Live::leaderboard),
        tests,
        // For the staff: what graded it and the tallies behind the score.
        extra_data: Some(serde_json::json!({
            "puzzlegrade": env!("CARGO_PKG_VERSION"),
            "course": course.file.name,
            "built": p.built,
            "accepted": p.accepted,
            "cases": p.cases,
            "users": p.users,
        })),
    }
}

/// Why a failing row failed, for a student: what went wrong in words (no
/// verdict names), then the judge's detail in the course's terms, the
/// harness's own words (an adapter's exit code) left out.
pub fn said(course: &Course, r: &Row) -> String {
    let detail = course.in_terms(&r.suite, &r.detail);
    if r.verdict == Verdict::Cancelled {
        return "not run: grading was stopped".into();
    }
    let what = word(course, r.verdict);
    // (An adapter's exit: the row's exit status says which words its
    // detail starts with.)
    let raised = r.exit_code.map(reference::questions::raised);
    let detail = match raised.as_deref().and_then(|p| detail.strip_prefix(p)) {
        Some(rest) => match rest.strip_prefix("; stderr: ") {
            Some(error) => format!("the function raised {error}"),
            None => "the function raised an exception or crashed".into(),
        },
        None => detail,
    };
    if detail.is_empty() {
        what.into()
    } else {
        format!("{what}: {detail}")
    }
}

/// `verdict` for a student: the course's word for it, or ours (no
/// verdict names).
pub fn word(course: &Course, verdict: Verdict) -> &str {
    let ours = match verdict {
        Verdict::WrongAnswer => "wrong answer",
        // (The detail says which status, or what a function returned.)
        Verdict::WrongExitStatus => "wrong result",
        Verdict::TimeLimit => "too slow",
        Verdict::MemoryLimit => "used too much memory",
        Verdict::OutputLimit => "printed too much",
        Verdict::RuntimeError => "crashed",
        Verdict::CompileError => "did not build",
        Verdict::HarnessError => "not graded, through no fault of yours",
        Verdict::Cancelled => "not run",
        Verdict::Accepted => "passed",
    };
    course
        .file
        .verdicts
        .get(&verdict)
        .map_or(ours, String::as_str)
}

/// A build's failure (its row), for a student: the compiler's lines each
/// on its own line again, after the build command's exit status where it
/// exited (the row's exit status says how its detail starts).
fn built(r: &Row) -> String {
    let exited = r.exit_code.map(crate::grade::build::exited);
    match exited.as_deref().and_then(|p| r.detail.strip_prefix(p)) {
        Some(rest) => format!(
            "Your submission did not build (the build command's exit {}):\n{}",
            r.exit_code.unwrap_or_default(),
            rest.replace(" | ", "\n")
        ),
        None => format!(
            "Your submission did not build: {}",
            r.detail.replace(" | ", "\n")
        ),
    }
}
