//! Rubrics as data: each item of a course config turns a submission's rows
//! into points by one rule over the rows it selects (a part, and a glob over
//! `suite/case` within it).

use serde::Deserialize;

use crate::outcome::{Row, Verdict};

/// One rubric item (`[[rubric]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Its name (a column of `summary.csv`).
    pub name: String,
    /// How its rows become points.
    pub rule: Rule,
    /// `all` and `share`: the item's points; `each`: points per case
    /// passed; `compile-penalty`: the marks taken off.
    pub points: f64,
    /// The parts whose rows count (not for `compile-penalty`): one name
    /// (`part = "boards"`) or several (`part = ["boards", "leaks"]`), as
    /// a task the course graded on several programs or batteries.
    #[serde(default, deserialize_with = "one_or_many")]
    pub part: Vec<String>,
    /// Only rows whose `suite/case` (within the part) matches this glob.
    #[serde(default)]
    pub cases: Option<String>,
    /// Not the rows whose `suite/case` (within the part) matches this glob
    /// (cases of a bundled suite the course's own set had no kind of).
    #[serde(default)]
    pub except: Option<String>,
    /// The most an `each` item gives.
    #[serde(default)]
    pub cap: Option<f64>,
    /// A case passes only with an answer of no more moves than the fewest
    /// known (CIS 521's optimal `find_solution`).
    #[serde(default)]
    pub minimum_moves: bool,
    /// The verdicts a case passes with (default: `accepted`): a task
    /// judged on the exit status alone also passes a `wrong-answer`
    /// (15-122's Task 5, solvable or not, apart from Task 6's moves).
    #[serde(default)]
    pub passes_on: Vec<Verdict>,
    /// Who sees the item's test in a Gradescope export (a secret test:
    /// `after_due_date`).
    #[serde(default)]
    pub visibility: Visibility,
    /// What the item checks, for the student (PrairieLearn's test
    /// `description`); without it, one is made from the rule and parts.
    #[serde(default)]
    pub description: Option<String>,
    /// Gradescope's test `tags` (learning objectives); without them, the
    /// item's parts.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// The item counts only what an answer does beyond the handout's
    /// empty stubs (see [`super::stub`]): with `s` the share of cases
    /// passed and `k` the most one stub passes, a `share` gives
    /// `points x (s - k) / (1 - k)`, at least 0; an `each` counts the
    /// cases passed beyond `k`; an `all` a stub passes whole gives
    /// nothing. The stub (or any answer no better) earns nothing.
    #[serde(default)]
    pub beyond_stub: bool,
    /// The item gives its points only where the rubric item of this name
    /// gave some: a property of a working program (15-122's "free of
    /// memory leaks", which a program that does nothing has too) earns
    /// nothing for one that does nothing.
    #[serde(default)]
    pub only_with: Option<String>,
}

/// Gradescope's visibility of a test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Shown at once.
    #[default]
    Visible,
    /// Shown after the due date.
    AfterDueDate,
    /// Shown once the grades are published.
    AfterPublished,
    /// Never shown to the student.
    Hidden,
}

impl Visibility {
    /// The stricter of two: visible, then after the due date, after
    /// publishing, hidden.
    pub fn stricter(self, other: Visibility) -> Visibility {
        let rank = |v: Visibility| match v {
            Visibility::Visible => 0,
            Visibility::AfterDueDate => 1,
            Visibility::AfterPublished => 2,
            Visibility::Hidden => 3,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }

    /// As Gradescope spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
            Visibility::Hidden => "hidden",
        }
    }
}

/// A string or a list of strings, as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// A path or a list of paths, as a list.
pub(crate) fn paths<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<std::path::PathBuf>, D::Error> {
    Ok(one_or_many(d)?.into_iter().map(Into::into).collect())
}

/// How an item scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// All the points when every selected case passes, else none.
    All,
    /// `points` per case passed, up to `cap`.
    Each,
    /// The points in proportion to the cases passed.
    Share,
    /// `points` taken off when the submission does not build.
    CompilePenalty,
}

/// An item's score for one submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// Points (negative for a penalty).
    pub points: f64,
    /// Cases passed.
    pub passed: usize,
    /// Cases selected.
    pub cases: usize,
    /// Of them, the most cases one of the handout's empty stubs passes,
    /// for a `beyond_stub` item.
    pub stub_passed: Option<usize>,
    /// The item it gives nothing without, where that gave nothing
    /// ([`Item::only_with`]).
    pub gated_by: Option<String>,
}

impl Score {
    /// `passed/cases`, and the stub's where it counts: `15/22 (stub 15)`.
    pub fn counts(&self) -> String {
        let mut counts = match self.stub_passed {
            Some(k) if k > 0 => format!("{}/{} (stub {k})", self.passed, self.cases),
            _ => format!("{}/{}", self.passed, self.cases),
        };
        if let Some(gate) = &self.gated_by {
            counts.push_str(&format!(" (nothing without {gate})"));
        }
        counts
    }
}

impl Item {
    /// Checks the item against the config's parts.
    pub fn validate(&self, parts: &[super::PartFile]) -> Result<(), String> {
        if !self.points.is_finite() || self.points < 0.0 {
            return Err(format!(
                "points must be a number of at least 0, got {}",
                self.points
            ));
        }
        if self.beyond_stub && self.rule == Rule::CompilePenalty {
            return Err("beyond_stub is for items over cases".into());
        }
        match (self.rule, self.part.is_empty()) {
            (Rule::CompilePenalty, true) => {}
            (Rule::CompilePenalty, false) => {
                return Err("a compile-penalty takes no part".into());
            }
            (_, true) => return Err("names no part".into()),
            (_, false) => {
                if let Some(p) = self
                    .part
                    .iter()
                    .find(|p| !parts.iter().any(|q| &q.name == *p))
                {
                    return Err(format!("part {p:?} is not in the config"));
                }
            }
        }
        if self.rule == Rule::CompilePenalty && !self.passes_on.is_empty() {
            return Err("passes_on is for items over cases".into());
        }
        if self.cap.is_some() && self.rule != Rule::Each {
            return Err("cap is for rule each".into());
        }
        for g in self.cases.iter().chain(&self.except) {
            globset::Glob::new(g).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// What the item checks, in a line: its `description`, or one made
    /// from its rule, points and parts.
    pub fn describe(&self) -> String {
        if let Some(d) = &self.description {
            return d.clone();
        }
        let over = match &self.cases {
            Some(g) => format!("the cases {g} of {}", self.part.join(", ")),
            None => format!("the cases of {}", self.part.join(", ")),
        };
        let points = match show(self.points).as_str() {
            "1" => "1 point".to_string(),
            n => format!("{n} points"),
        };
        let fewest = if self.minimum_moves {
            " (each answer with the fewest moves known)"
        } else {
            ""
        };
        let line = match self.rule {
            Rule::All if self.beyond_stub => format!(
                "{points} when every one of {over} passes, where the handout's empty stubs do not"
            ),
            Rule::All => format!("{points} when every one of {over} passes"),
            Rule::Share if self.beyond_stub => format!(
                "{points} in proportion to {over} passed beyond what the handout's empty stub passes"
            ),
            Rule::Share => format!("{points} in proportion to {over} passed"),
            Rule::Each if self.beyond_stub => format!(
                "{points} for each of {over} passed beyond as many as the handout's empty stubs pass{}",
                self.cap
                    .map(|c| format!(", at most {}", show(c)))
                    .unwrap_or_default()
            ),
            Rule::Each => match self.cap {
                Some(cap) => format!("{points} for each of {over} passed, at most {}", show(cap)),
                None => format!("{points} for each of {over} passed"),
            },
            Rule::CompilePenalty => {
                format!("{points} off when the submission does not build")
            }
        };
        format!("{line}{fewest}")
    }

    /// Gradescope's tags for the item: its `tags`, or its parts.
    pub fn tag_list(&self) -> Vec<String> {
        self.tags.clone().unwrap_or_else(|| self.part.clone())
    }

    /// Whether a row's `suite` and `case` fall in this item.
    pub fn selects(&self, suite: &str, case: &str) -> bool {
        let Some(rest) = self.part.iter().find_map(|part| {
            suite
                .strip_prefix(part.as_str())
                .and_then(|r| r.strip_prefix('/'))
        }) else {
            return false;
        };
        let within = format!("{rest}/{case}");
        let matches = |g: &str| {
            globset::Glob::new(g)
                .map(|g| g.compile_matcher().is_match(&within))
                .unwrap_or(false)
        };
        self.cases.as_deref().is_none_or(matches) && !self.except.as_deref().is_some_and(matches)
    }

    /// The most points the item gives, over a class whose cases are `keys`
    /// (suite, case).
    pub fn max_over<'a>(&self, keys: impl IntoIterator<Item = (&'a str, &'a str)>) -> f64 {
        match self.rule {
            Rule::All | Rule::Share => self.points,
            Rule::CompilePenalty => 0.0,
            Rule::Each => {
                let n = keys.into_iter().filter(|(s, c)| self.selects(s, c)).count();
                let most = self.points * n as f64;
                round(self.cap.map_or(most, |c| most.min(c)))
            }
        }
    }

    /// The most points, when no case count is needed (`each` needs a cap).
    pub fn max(&self) -> f64 {
        match self.rule {
            Rule::All | Rule::Share => self.points,
            Rule::CompilePenalty => 0.0,
            Rule::Each => self.cap.unwrap_or(0.0),
        }
    }

    /// Whether a row passes: accepted (or a verdict of `passes_on`), and
    /// with the fewest moves when the item asks for them.
    pub fn passes(&self, row: &Row) -> bool {
        let verdict_passes = if self.passes_on.is_empty() {
            row.verdict == Verdict::Accepted
        } else {
            self.passes_on.contains(&row.verdict)
        };
        verdict_passes
            && (!self.minimum_moves
                || match (row.moves, row.best_moves) {
                    (Some(m), Some(b)) => m <= b,
                    _ => true,
                })
    }

    /// The item's score for one submission's rows; `built` is false when
    /// the submission did not build.
    pub fn score(&self, rows: &[&Row], built: bool) -> Score {
        if self.rule == Rule::CompilePenalty {
            return Score {
                points: if built { 0.0 } else { -self.points },
                passed: 0,
                cases: 0,
                stub_passed: None,
                gated_by: None,
            };
        }
        let selected: Vec<&&Row> = rows
            .iter()
            .filter(|r| self.selects(&r.suite, &r.case))
            .collect();
        let cases = selected.len();
        let passed = selected.iter().filter(|r| self.passes(r)).count();
        let points = match self.rule {
            Rule::All if cases > 0 && passed == cases => self.points,
            Rule::All => 0.0,
            Rule::Share if cases > 0 => self.points * passed as f64 / cases as f64,
            Rule::Share => 0.0,
            Rule::Each => {
                let p = self.points * passed as f64;
                self.cap.map_or(p, |c| p.min(c))
            }
            Rule::CompilePenalty => unreachable!("handled above"),
        };
        Score {
            points: round(points),
            passed,
            cases,
            stub_passed: None,
            gated_by: None,
        }
    }
}

/// Rounded to a millionth (so 0.3 x 7 is 2.1).
pub fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Points as a summary shows them: up to two decimals, no trailing zeros.
pub fn show(x: f64) -> String {
    let s = format!("{:.2}", round(x));
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(rule: Rule, points: f64) -> Item {
        Item {
            name: "x".into(),
            rule,
            points,
            part: vec!["solver".into()],
            cases: Some("*/hard/*".into()),
            except: None,
            cap: None,
            minimum_moves: false,
            passes_on: Vec::new(),
            visibility: Visibility::Visible,
            description: None,
            tags: None,
            beyond_stub: false,
            only_with: None,
        }
    }

    #[test]
    fn beyond_stub_is_for_items_over_cases() {
        let mut all = item(Rule::CompilePenalty, 3.0);
        all.part.clear();
        all.beyond_stub = true;
        assert_eq!(
            all.validate(&[]).unwrap_err(),
            "beyond_stub is for items over cases"
        );
    }

    #[test]
    fn an_item_describes_itself_and_tags_its_parts() {
        let mut each = item(Rule::Each, 0.5);
        each.cap = Some(4.0);
        assert_eq!(
            each.describe(),
            "0.5 points for each of the cases */hard/* of solver passed, at most 4"
        );
        let mut all = item(Rule::All, 10.0);
        all.cases = None;
        all.minimum_moves = true;
        assert_eq!(
            all.describe(),
            "10 points when every one of the cases of solver passes (each answer with the fewest moves known)"
        );
        assert_eq!(all.tag_list(), ["solver"]);
        all.description = Some("finds the fewest presses".into());
        all.tags = Some(vec!["search".into()]);
        assert_eq!(
            (all.describe().as_str(), all.tag_list()),
            ("finds the fewest presses", vec!["search".to_string()])
        );
    }

    fn row(suite: &str, case: &str, verdict: Verdict) -> Row {
        let mut r = Row::new("alice", "toy", suite, case);
        r.verdict = verdict;
        r
    }

    #[test]
    fn the_cs61bl_scheme() {
        let mut rows = Vec::new();
        for i in 0..30 {
            let v = if i < 28 {
                Verdict::Accepted
            } else {
                Verdict::TimeLimit
            };
            rows.push(row("solver/toy/hard", &format!("c{i}"), v));
        }
        rows.push(row("solver/toy/easy", "e1", Verdict::Accepted));
        rows.push(row("solver/toy/easy", "e2", Verdict::WrongAnswer));
        let refs: Vec<&Row> = rows.iter().collect();
        let mut hard = item(Rule::Each, 0.3);
        hard.cap = Some(8.0);
        assert_eq!(hard.score(&refs, true).points, 8.0, "28 x 0.3 capped");
        assert_eq!(hard.score(&refs, true).passed, 28);
        let mut easy = item(Rule::All, 8.0);
        easy.cases = Some("*/easy/*".into());
        assert_eq!(
            easy.score(&refs, true),
            Score {
                points: 0.0,
                passed: 1,
                cases: 2,
                stub_passed: None,
                gated_by: None,
            }
        );
        let mut share = item(Rule::Share, 2.0);
        share.cases = None;
        assert_eq!(share.score(&refs, true).points, round(2.0 * 29.0 / 32.0));
        let mut seven = item(Rule::Each, 0.3);
        seven.cases = Some("*/hard/c[0-6]".into());
        assert_eq!(seven.score(&refs, true).points, 2.1);
        assert_eq!(show(2.1), "2.1");
        assert_eq!(show(8.0), "8");
        assert_eq!(show(-10.0), "-10");
        assert_eq!(show(1.8333333), "1.83");
        let pen = Item {
            rule: Rule::CompilePenalty,
            part: Vec::new(),
            cases: None,
            ..item(Rule::CompilePenalty, 10.0)
        };
        assert_eq!(pen.score(&[], false).points, -10.0);
        assert_eq!(pen.score(&[], true).points, 0.0);
        assert_eq!(
            hard.max_over(rows.iter().map(|r| (r.suite.as_str(), r.case.as_str()))),
            8.0
        );
    }

    #[test]
    fn minimum_moves_and_part_prefixes() {
        let mut r = row("find_solution/toy/easy", "2x2.txt", Verdict::Accepted);
        r.moves = Some(4);
        r.best_moves = Some(3);
        let mut it = item(Rule::Share, 15.0);
        it.part = vec!["find_solution".into()];
        it.cases = None;
        assert!(it.passes(&r), "any accepted answer without the requirement");
        it.minimum_moves = true;
        assert!(!it.passes(&r));
        r.moves = Some(3);
        assert!(it.passes(&r));
        assert!(
            !it.selects("find_solution2/x", "c"),
            "whole part names only"
        );
    }

    #[test]
    fn an_item_leaves_out_what_its_except_names() {
        let mut it = item(Rule::Each, 0.3);
        it.except = Some("*/hard/{unsolvable.*,full.*}".into());
        assert!(it.selects("solver/sb/hard", "klotski"));
        assert!(!it.selects("solver/sb/hard", "unsolvable.4x4"));
        assert!(!it.selects("solver/sb/hard", "full.150x150"));
        assert!(
            !it.selects("solver/sb/easy", "klotski"),
            "cases still applies"
        );
    }

    #[test]
    fn several_parts_and_the_verdicts_a_case_passes_with() {
        let rows = [
            row("boards/toy/easy", "a", Verdict::Accepted),
            row("boards/toy/easy", "b", Verdict::WrongAnswer),
            row("array/toy/easy", "a", Verdict::WrongExitStatus),
            row("leaks/toy/easy", "a", Verdict::Accepted),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let mut task5 = item(Rule::Share, 4.0);
        task5.cases = None;
        task5.part = vec!["boards".into(), "array".into()];
        assert_eq!(
            task5.score(&refs, true).cases,
            3,
            "the leaks part is not named"
        );
        assert_eq!(task5.score(&refs, true).points, round(4.0 / 3.0));
        task5.passes_on = vec![Verdict::Accepted, Verdict::WrongAnswer];
        assert_eq!(task5.score(&refs, true).passed, 2);
        let toml_item: Item = toml::from_str(
            "name = \"t\"\nrule = \"all\"\npoints = 1\npart = [\"a\", \"b\"]\npasses_on = [\"wrong-answer\"]",
        )
        .unwrap();
        assert_eq!(toml_item.part, ["a", "b"]);
        assert_eq!(toml_item.passes_on, [Verdict::WrongAnswer]);
        let one: Item =
            toml::from_str("name = \"t\"\nrule = \"all\"\npoints = 1\npart = \"a\"").unwrap();
        assert_eq!(one.part, ["a"]);
        assert_eq!(one.visibility, Visibility::Visible);
        let secret: Item = toml::from_str(
            "name = \"t\"\nrule = \"all\"\npoints = 1\npart = \"a\"\nvisibility = \"after_due_date\"",
        )
        .unwrap();
        assert_eq!(secret.visibility.as_str(), "after_due_date");
        assert!(
            toml::from_str::<Item>(
                "name = \"t\"\nrule = \"all\"\npoints = 1\npart = \"a\"\nvisibility = \"secret\""
            )
            .is_err()
        );
    }
}
