//! A course's handin policy (`[policy]`): a limit of handins with a
//! penalty per extra one (15-122: ten, half a point each), and a due time
//! with a penalty per day, or part of one, a handin is late. Each is an
//! item of its own in the summary, after the rubric's.
//!
//! A submission's handins come from the class folder: earlier handins as
//! numbered folders (`alice/1`, `alice/2`, ...; the highest is graded and
//! its number is the count), or Gradescope's `submission_metadata.json` in
//! the graded folder (`created_at`; `previous_submissions` plus this one
//! is the count). Without a time, a handin is not late.

use std::path::Path;

use chrono::{DateTime, FixedOffset};
use serde::Deserialize;

use super::rubric::round;

/// The summary's item for handins over the limit.
pub const HANDIN_ITEM: &str = "handin penalty";
/// The summary's item for lateness.
pub const LATE_ITEM: &str = "late penalty";

/// Each submission's handins, by id.
pub type Handins = std::collections::BTreeMap<String, Handin>;

/// `[policy]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// Handins allowed without penalty.
    #[serde(default)]
    pub handin_limit: Option<u32>,
    /// Points off per handin over the limit.
    #[serde(default)]
    pub penalty_per_extra: f64,
    /// When the assignment is due: RFC 3339 with its offset
    /// (`2015-11-24T22:00:00-05:00`).
    #[serde(default)]
    pub due: Option<String>,
    /// Points off per day, or part of one, a handin is late.
    #[serde(default)]
    pub late_per_day: f64,
    /// A handin more than this many days late gets no points at all.
    #[serde(default)]
    pub late_days_max: Option<u32>,
}

/// What the class folder says of one submission's handins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Handin {
    /// How many times it was handed in (the graded one the last).
    pub count: Option<u32>,
    /// When the graded one was handed in.
    pub at: Option<DateTime<FixedOffset>>,
    /// When it was due, as the platform says for this submission (its
    /// students' extension counted): before the course's `due`.
    pub due: Option<DateTime<FixedOffset>>,
    /// The platform's last time for a late handin: one after it gets no
    /// points.
    pub late_due: Option<DateTime<FixedOffset>>,
    /// Who handed it in (a group's members), as the platform names them.
    pub users: Vec<String>,
}

impl PolicyFile {
    /// Checks the numbers and the due time.
    pub fn validate(&self) -> Result<(), String> {
        for (name, x) in [
            ("penalty_per_extra", self.penalty_per_extra),
            ("late_per_day", self.late_per_day),
        ] {
            if !x.is_finite() || x < 0.0 {
                return Err(format!("{name} must be a number of at least 0, got {x}"));
            }
        }
        self.due_time().map(|_| ())
    }

    fn due_time(&self) -> Result<Option<DateTime<FixedOffset>>, String> {
        self.due
            .as_deref()
            .map(|d| {
                DateTime::parse_from_rfc3339(d)
                    .map_err(|e| format!("due {d:?} is not an RFC 3339 time with an offset ({e})"))
            })
            .transpose()
    }

    /// The policy's items, in summary order: a late penalty where the
    /// course has a due time or a penalty per day (the due time then from
    /// the platform's metadata).
    pub fn items(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.handin_limit.is_some() {
            out.push(HANDIN_ITEM);
        }
        if self.late() {
            out.push(LATE_ITEM);
        }
        out
    }

    fn late(&self) -> bool {
        self.due.is_some() || self.late_per_day > 0.0 || self.late_days_max.is_some()
    }

    /// Each item's points (0 or less) for a submission with `handin`,
    /// whose rubric gave `points`, and why, for people.
    pub fn apply(&self, handin: &Handin, points: f64) -> Vec<(&'static str, f64, String)> {
        let mut out = Vec::new();
        if let Some(limit) = self.handin_limit {
            let (off, why) = match handin.count {
                Some(n) if n > limit => (
                    self.penalty_per_extra * f64::from(n - limit),
                    format!("{n} handins, {} over the limit of {limit}", n - limit),
                ),
                Some(n) => (0.0, format!("{n} handins, the limit is {limit}")),
                None => (
                    0.0,
                    "one handin (no earlier ones in the class folder)".into(),
                ),
            };
            out.push((HANDIN_ITEM, -round(off), why));
        }
        if self.late() {
            let due = handin.due.or(self.due_time().ok().flatten());
            let (off, why) = match (handin.at, due) {
                (Some(at), _) if handin.late_due.is_some_and(|last| at > last) => (
                    points.max(0.0),
                    format!(
                        "handed in {at}, after the last time for late handins ({})",
                        handin.late_due.unwrap_or(at)
                    ),
                ),
                (Some(at), Some(due)) if at > due => {
                    let late = at - due;
                    let days = (late.num_seconds() + 86_399) / 86_400;
                    if self.late_days_max.is_some_and(|m| days > i64::from(m)) {
                        (
                            points.max(0.0),
                            format!(
                                "handed in {at}, {days} days late: more than the {} allowed",
                                self.late_days_max.unwrap_or(0)
                            ),
                        )
                    } else {
                        (
                            self.late_per_day * days as f64,
                            format!("handed in {at}, {days} day(s) late"),
                        )
                    }
                }
                (Some(at), Some(_)) => (0.0, format!("handed in {at}, on time")),
                (Some(_), None) => (0.0, "no due time known: not late".into()),
                (None, _) => (0.0, "no handin time known: not late".into()),
            };
            out.push((LATE_ITEM, -round(off), why));
        }
        out
    }
}

/// Gradescope's metadata file, where a submission folder holds one.
const METADATA: &str = "submission_metadata.json";

/// What Gradescope's `submission_metadata.json` in `dir` says, if it is
/// there: the time of this handin and how many there were. A file that
/// does not read as Gradescope's is an error naming it.
pub fn read_metadata(dir: &Path) -> Result<Option<Handin>, String> {
    let path = dir.join(METADATA);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    // Gradescope's fields (gradescope-autograders.readthedocs.io,
    // "Submission Metadata"); the dates may be null.
    #[derive(Deserialize, Default)]
    struct Assignment {
        #[serde(default)]
        due_date: Option<String>,
        #[serde(default)]
        late_due_date: Option<String>,
    }
    #[derive(Deserialize)]
    struct User {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        email: Option<String>,
        // A student's own dates (an extension), where Gradescope gives them.
        #[serde(default)]
        assignment: Option<Assignment>,
    }
    #[derive(Deserialize)]
    struct Metadata {
        created_at: String,
        #[serde(default)]
        previous_submissions: Vec<serde_json::Value>,
        #[serde(default)]
        assignment: Option<Assignment>,
        #[serde(default)]
        users: Vec<User>,
    }
    let m: Metadata =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let time = |field: &str, t: &Option<String>| {
        t.as_deref()
            .map(|t| {
                DateTime::parse_from_rfc3339(t)
                    .map_err(|e| format!("{}: {field} {t:?}: {e}", path.display()))
            })
            .transpose()
    };
    let at = time("created_at", &Some(m.created_at.clone()))?;
    // The latest of the assignment's dates and each member's own: a
    // group's handin is due when its latest extension ends.
    let mut due = None;
    let mut late_due = None;
    for a in m
        .assignment
        .iter()
        .chain(m.users.iter().filter_map(|u| u.assignment.as_ref()))
    {
        due = due.max(time("due_date", &a.due_date)?);
        late_due = late_due.max(time("late_due_date", &a.late_due_date)?);
    }
    Ok(Some(Handin {
        count: Some(m.previous_submissions.len() as u32 + 1),
        at,
        due,
        late_due,
        users: m
            .users
            .iter()
            .filter_map(|u| u.name.clone().or_else(|| u.email.clone()))
            .collect(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> PolicyFile {
        toml::from_str(
            "handin_limit = 10\npenalty_per_extra = 0.5\ndue = \"2015-11-24T22:00:00-05:00\"\n\
             late_per_day = 2\nlate_days_max = 2\n",
        )
        .unwrap()
    }

    fn at(t: &str) -> Option<DateTime<FixedOffset>> {
        Some(DateTime::parse_from_rfc3339(t).unwrap())
    }

    #[test]
    fn handins_over_the_limit_and_days_late() {
        let p = policy();
        p.validate().unwrap();
        assert_eq!(p.items(), [HANDIN_ITEM, LATE_ITEM]);
        let eleven = Handin {
            count: Some(11),
            at: at("2015-11-24T21:59:00-05:00"),
            ..Handin::default()
        };
        let got: Vec<f64> = p.apply(&eleven, 19.0).iter().map(|x| x.1).collect();
        assert_eq!(got, [-0.5, 0.0]);
        let thirteen_late = Handin {
            count: Some(13),
            at: at("2015-11-25T03:00:01Z"),
            ..Handin::default()
        };
        let got = p.apply(&thirteen_late, 19.0);
        assert_eq!((got[0].1, got[1].1), (-1.5, -2.0), "a second past: one day");
        assert_eq!(
            got[1].2,
            "handed in 2015-11-25 03:00:01 +00:00, 1 day(s) late"
        );
        let too_late = Handin {
            count: None,
            at: at("2015-11-27T22:00:01-05:00"),
            ..Handin::default()
        };
        let got = p.apply(&too_late, 17.5);
        assert_eq!(
            (got[0].1, got[1].1),
            (0.0, -17.5),
            "three days: nothing left"
        );
        assert_eq!(
            p.apply(&Handin::default(), 19.0)[1].1,
            0.0,
            "no time: not late"
        );
        let bad: PolicyFile = toml::from_str("due = \"tomorrow\"").unwrap();
        assert!(
            bad.validate()
                .unwrap_err()
                .starts_with("due \"tomorrow\" is not an RFC 3339")
        );
    }

    #[test]
    fn gradescope_metadata() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(read_metadata(d.path()), Ok(None));
        std::fs::write(
            d.path().join(METADATA),
            r#"{"id": 1, "created_at": "2015-11-24T20:01:02.365935-05:00",
                "previous_submissions": [{"submission_time": "x"}, {"submission_time": "y"}],
                "users": []}"#,
        )
        .unwrap();
        let h = read_metadata(d.path()).unwrap().unwrap();
        assert_eq!(h.count, Some(3));
        assert_eq!(
            h.at.unwrap().to_rfc3339(),
            "2015-11-24T20:01:02.365935-05:00"
        );
        assert_eq!((h.due, h.late_due, h.users.len()), (None, None, 0));
        // Gradescope's due dates, a group of two, one with an extension.
        std::fs::write(
            d.path().join(METADATA),
            r#"{"created_at": "2018-07-02T10:00:00-07:00", "previous_submissions": [],
                "assignment": {"due_date": "2018-07-01T23:00:00-07:00", "late_due_date": null},
                "users": [{"email": "a@x.edu", "name": "Ann"},
                          {"email": "b@x.edu", "name": null,
                           "assignment": {"due_date": "2018-07-03T23:00:00-07:00",
                                          "late_due_date": "2018-07-05T23:00:00-07:00"}}]}"#,
        )
        .unwrap();
        let h = read_metadata(d.path()).unwrap().unwrap();
        assert_eq!(
            h.due,
            at("2018-07-03T23:00:00-07:00"),
            "the later: the extension"
        );
        assert_eq!(h.late_due, at("2018-07-05T23:00:00-07:00"));
        assert_eq!(h.users, ["Ann", "b@x.edu"]);
        // No due time in the config: the platform's decides.
        let p: PolicyFile = toml::from_str("late_per_day = 2").unwrap();
        assert_eq!(p.items(), [LATE_ITEM]);
        assert_eq!(p.apply(&h, 10.0)[0].1, 0.0, "within the extension");
        let mut late = h.clone();
        late.at = at("2018-07-04T00:00:00-07:00");
        assert_eq!(
            p.apply(&late, 10.0)[0].1,
            -2.0,
            "an hour past the extension"
        );
        late.at = at("2018-07-06T00:00:00-07:00");
        let past = p.apply(&late, 10.0);
        assert_eq!(past[0].1, -10.0, "{}", past[0].2);
        assert!(past[0].2.contains("after the last time for late handins"));
        assert_eq!(
            p.apply(
                &Handin {
                    at: h.at,
                    ..Handin::default()
                },
                10.0
            )[0]
            .2,
            "no due time known: not late"
        );
        std::fs::write(d.path().join(METADATA), "{}").unwrap();
        assert!(
            read_metadata(d.path())
                .unwrap_err()
                .contains("missing field `created_at`")
        );
    }
}
