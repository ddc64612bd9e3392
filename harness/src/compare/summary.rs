//! `harness compare` on two class summaries (`summary.csv`, as `grade
//! --class --summary` and `regrade` write them): each submission's total
//! before and after (a rubric changed, a regrade, another year's
//! handout): which moved and by how much, which are new, which are gone.
//! Pure: totals in, changes out.

use std::path::Path;

use serde::Serialize;

use crate::course::rubric::show;

/// Whether the CSV at `path` is a class summary: its header starts with
/// `submission` and has `total` and `max` columns.
pub fn is_summary(path: &Path) -> bool {
    let Ok(mut r) = csv::Reader::from_path(path) else {
        return false;
    };
    let Ok(header) = r.headers() else {
        return false;
    };
    header.get(0) == Some("submission")
        && header.iter().any(|h| h == "total")
        && header.iter().any(|h| h == "max")
}

/// One submission's total in both summaries (`None`: not in that one;
/// `Some(None)`: there, not graded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    /// The submission.
    pub submission: String,
    /// Its total before.
    pub before: Option<Option<f64>>,
    /// And after.
    pub after: Option<Option<f64>>,
}

impl Moved {
    /// How its total changed: `+3`, `-0.5`, `new`, `gone`, `graded`,
    /// `not graded`; `None`: the same.
    pub fn change(&self) -> Option<String> {
        match (self.before, self.after) {
            (None, Some(_)) => Some("new".into()),
            (Some(_), None) => Some("gone".into()),
            (Some(Some(b)), Some(Some(a))) if (a - b).abs() > 1e-9 => Some(if a > b {
                format!("+{}", show(a - b))
            } else {
                format!("-{}", show(b - a))
            }),
            (Some(None), Some(Some(_))) => Some("graded".into()),
            (Some(Some(_)), Some(None)) => Some("not graded".into()),
            _ => None,
        }
    }

    /// Whether it lost points, or its grade (exit 1).
    pub fn regressed(&self) -> bool {
        match (self.before, self.after) {
            (Some(Some(b)), Some(Some(a))) => a < b - 1e-9,
            (Some(Some(_)), Some(None)) | (Some(_), None) => true,
            _ => false,
        }
    }
}

/// Two summaries compared: every submission in either, by name.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Every submission's totals.
    pub submissions: Vec<Moved>,
    /// Whether any lost points, its grade, or its row.
    pub regressed: bool,
}

/// The totals of the summaries at `before` and `after`, side by side.
pub fn compare(before: &Path, after: &Path) -> anyhow::Result<Comparison> {
    let read = |path: &Path| -> anyhow::Result<Vec<(String, Option<f64>)>> {
        Ok(crate::course::points::read_totals(path)?
            .into_iter()
            .map(|(s, t)| (s, (!t.is_nan()).then_some(t)))
            .collect())
    };
    let (b, a) = (read(before)?, read(after)?);
    let mut names: Vec<&String> = b.iter().chain(&a).map(|(s, _)| s).collect();
    names.sort();
    names.dedup();
    let find = |side: &[(String, Option<f64>)], name: &str| {
        side.iter().find(|(s, _)| s == name).map(|(_, t)| *t)
    };
    let submissions: Vec<Moved> = names
        .into_iter()
        .map(|name| Moved {
            submission: name.clone(),
            before: find(&b, name),
            after: find(&a, name),
        })
        .collect();
    let regressed = submissions.iter().any(Moved::regressed);
    Ok(Comparison {
        submissions,
        regressed,
    })
}

/// The comparison for people: a line per submission that changed, then
/// the counts.
pub fn table(c: &Comparison) -> String {
    let total = |t: Option<Option<f64>>| match t {
        None => "-".to_string(),
        Some(None) => "not graded".to_string(),
        Some(Some(t)) => show(t),
    };
    let changed: Vec<(&Moved, String)> = c
        .submissions
        .iter()
        .filter_map(|m| m.change().map(|ch| (m, ch)))
        .collect();
    let width = changed
        .iter()
        .map(|(m, _)| m.submission.len())
        .max()
        .unwrap_or(0)
        .max("submission".len());
    let mut out = String::new();
    if !changed.is_empty() {
        out.push_str(&format!(
            "{:width$}  {:>10}  {:>10}  change\n",
            "submission", "before", "after"
        ));
    }
    for (m, ch) in &changed {
        out.push_str(&format!(
            "{:width$}  {:>10}  {:>10}  {ch}\n",
            m.submission,
            total(m.before),
            total(m.after)
        ));
    }
    let count = |f: &dyn Fn(&Moved) -> bool| c.submissions.iter().filter(|m| f(m)).count();
    let up =
        count(&|m| matches!((m.before, m.after), (Some(Some(b)), Some(Some(a))) if a > b + 1e-9));
    let down =
        count(&|m| matches!((m.before, m.after), (Some(Some(b)), Some(Some(a))) if a < b - 1e-9));
    let new = count(&|m| m.before.is_none());
    let gone = count(&|m| m.after.is_none());
    let same = count(&|m| m.change().is_none());
    out.push_str(&format!(
        "{} moved ({up} up, {down} down), {new} new, {gone} gone, {same} unchanged\n",
        up + down
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_moved_new_and_gone() {
        let dir = tempfile::tempdir().unwrap();
        let (b, a) = (dir.path().join("b.csv"), dir.path().join("a.csv"));
        let head = "submission,Q1,total,max,built,accepted,cases,counts,graded\n";
        std::fs::write(
            &b,
            format!("{head}ann,3,37,40,yes,7,8,,yes\nbo,1,25,40,yes,5,8,,yes\ncy,0,,40,yes,0,8,,no: x\ndi,2,12,40,yes,2,8,,yes\neve,4,40,40,yes,8,8,,yes\n"),
        )
        .unwrap();
        std::fs::write(
            &a,
            format!("{head}ann,4,40,40,yes,8,8,,yes\nbo,0,20.5,40,yes,4,8,,yes\ncy,1,30,40,yes,6,8,,yes\neve,4,40,40,yes,8,8,,yes\nfay,1,10,40,yes,2,8,,yes\n"),
        )
        .unwrap();
        assert!(is_summary(&a));
        let c = compare(&b, &a).unwrap();
        assert!(c.regressed, "bo lost points, di is gone");
        assert_eq!(
            table(&c),
            "submission      before       after  change\n\
             ann                 37          40  +3\n\
             bo                  25        20.5  -4.5\n\
             cy          not graded          30  graded\n\
             di                  12           -  gone\n\
             fay                  -          10  new\n\
             2 moved (1 up, 1 down), 1 new, 1 gone, 1 unchanged\n"
        );
        let rows = dir.path().join("rows.csv");
        std::fs::write(&rows, "candidate,suite,case,verdict\n").unwrap();
        assert!(!is_summary(&rows));
    }
}
