//! A course's contest (`[contest]`): which submissions enter (those
//! holding the entry file, its first line the team name), which of the
//! course's programs are timed (the family's solver part, and a Checker
//! part where one is named) and the extra credit by place. The timing is
//! `harness contest --course`; the credit goes into the class summary with
//! `harness grade --contest-credit`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use serde::Deserialize;

/// The summary's item for the contest's extra credit.
pub const CREDIT_ITEM: &str = "contest extra credit";

/// Most characters of a team name (CS61BL: "<= 15 alphanumeric characters").
pub const TEAM_NAME_MAX: usize = 15;

/// `[contest]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContestFile {
    /// The file whose presence enters a submission; its first line is the
    /// team name.
    #[serde(default = "default_entry_file")]
    pub entry_file: String,
    /// A part whose program is timed too, on the reference's move lists
    /// (CS61BL: "we will also check how fast your Checker program is").
    #[serde(default)]
    pub checker: Option<String>,
    /// Extra credit by place, best first (CS61BL: 3, 2, 2, 1, 1, 1).
    #[serde(default)]
    pub credit: Vec<f64>,
}

fn default_entry_file() -> String {
    "contest.txt".into()
}

impl ContestFile {
    /// Checks the part and the credit.
    pub fn validate(&self, parts: &[super::PartFile]) -> Result<(), String> {
        if let Some(c) = &self.checker
            && !parts.iter().any(|p| &p.name == c)
        {
            return Err(format!("checker part {c:?} is not in the config"));
        }
        if let Some(x) = self.credit.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(format!("credit {x} must be a number of at least 0"));
        }
        if !super::inside(&self.entry_file) {
            return Err(format!(
                "entry_file {:?} must name a file inside the submission",
                self.entry_file
            ));
        }
        Ok(())
    }

    /// The credit for `place` (1 is best).
    pub fn credit_for(&self, place: usize) -> f64 {
        place
            .checked_sub(1)
            .and_then(|i| self.credit.get(i))
            .copied()
            .unwrap_or(0.0)
    }
}

/// A submission's team: `None` without the entry file (not an entry);
/// else its first line, or why it is not a team name (1 to 15 ASCII
/// letters and digits).
///
/// The file is the student's, read by the harness: a link is not followed
/// (it could name another student's file, whose first line the reason
/// would show), and the reason shows at most 40 characters of the line.
pub fn team(dir: &Path, entry_file: &str) -> Option<Result<String, String>> {
    let path = dir.join(entry_file);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return Some(Err(format!("{entry_file} is not a plain file")));
    }
    let bytes = std::fs::read(&path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let first = text.lines().next().unwrap_or("").trim_end_matches('\r');
    let ok = !first.is_empty()
        && first.len() <= TEAM_NAME_MAX
        && first.bytes().all(|b| b.is_ascii_alphanumeric());
    Some(if ok {
        Ok(first.to_string())
    } else {
        let shown: String = first.chars().take(40).collect();
        let more = if shown.len() < first.len() { "..." } else { "" };
        Err(format!(
            "{entry_file}: team name {shown:?}{more} is not 1 to {TEAM_NAME_MAX} letters and digits"
        ))
    })
}

/// A submission's live contest entry, for a platform's leaderboard while
/// the handins come in: its team and how its solver part did on the graded
/// cases (the places and the credit come from `harness contest`, on
/// puzzles nobody has seen).
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    /// The team name.
    pub team: String,
    /// Solver cases accepted.
    pub solved: usize,
    /// Solver cases run.
    pub cases: usize,
    /// CPU seconds over the accepted ones (the contest's clock).
    pub cpu_seconds: f64,
}

impl Live {
    /// The entry of `team` from a submission's rows: those of `part`, the
    /// family's solver part (its suites are named `part/...`).
    pub fn of(team: &str, part: &str, rows: &[crate::outcome::Row]) -> Self {
        let prefix = format!("{part}/");
        let mine: Vec<_> = rows
            .iter()
            .filter(|r| r.suite.starts_with(&prefix))
            .collect();
        let solved: Vec<_> = mine
            .iter()
            .filter(|r| r.verdict == crate::outcome::Verdict::Accepted)
            .collect();
        let ms: f64 = solved.iter().filter_map(|r| r.cpu_ms).sum();
        Live {
            team: team.to_string(),
            solved: solved.len(),
            cases: mine.len(),
            cpu_seconds: (ms / 10.0).round() / 100.0,
        }
    }

    /// Gradescope's `leaderboard`: the team, cases solved (more is
    /// better), CPU seconds over them (less is better).
    pub fn leaderboard(&self) -> Vec<serde_json::Value> {
        vec![
            serde_json::json!({ "name": "Team", "value": self.team }),
            serde_json::json!({ "name": "Solved", "value": self.solved }),
            serde_json::json!({ "name": "CPU seconds", "value": self.cpu_seconds, "order": "asc" }),
        ]
    }
}

/// One submission's line of the credit file `harness contest --credit`
/// writes and `harness grade --contest-credit` reads.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
pub struct Credit {
    /// The submission id.
    pub submission: String,
    /// Its team name (empty: not an entry).
    pub team: String,
    /// Its place (1 is best; ties share one), or none.
    pub place: Option<usize>,
    /// The extra credit.
    pub credit: f64,
    /// Why, for people.
    pub detail: String,
}

/// One entry's place in a contest, as its credit is figured from it.
pub struct Placed {
    /// The entry (a submission id).
    pub entry: String,
    /// Its rank (1 is best; ties share one).
    pub rank: usize,
    /// Cases solved.
    pub solved: usize,
    /// Cases in all.
    pub cases: usize,
    /// Its PAR-2 score, in seconds.
    pub par2: f64,
}

/// Each submission's place and extra credit: an entry's from its rank
/// (ties share a place and its credit), the others none, saying why.
/// `entrants`: every submission's id and team (`None`: no entry file;
/// `Err`: why the file names no team).
pub fn credits(
    contest: Option<&ContestFile>,
    entrants: &[(String, Option<Result<String, String>>)],
    placed: &[Placed],
) -> Vec<Credit> {
    entrants
        .iter()
        .map(|(id, team)| {
            let standing = placed.iter().find(|s| &s.entry == id);
            let (place, credit, detail) = match (team, standing) {
                (Some(Err(why)), _) => (None, 0.0, format!("not an entry: {why}")),
                (None, None) => (
                    None,
                    0.0,
                    format!(
                        "not an entry: no {}",
                        contest.map_or("contest.txt", |c| c.entry_file.as_str())
                    ),
                ),
                (_, Some(s)) => (
                    Some(s.rank),
                    contest.map_or(0.0, |c| c.credit_for(s.rank)),
                    format!(
                        "{} place of {} entries: {} of {} cases, PAR-2 {:.3} s",
                        ordinal(s.rank),
                        placed.len(),
                        s.solved,
                        s.cases,
                        s.par2
                    ),
                ),
                (_, None) => (None, 0.0, "not timed".into()),
            };
            Credit {
                submission: id.clone(),
                team: match team {
                    Some(Ok(t)) => t.clone(),
                    _ => String::new(),
                },
                place,
                credit,
                detail,
            }
        })
        .collect()
}

/// `1st`, `2nd`, `3rd`, `11th`...
fn ordinal(n: usize) -> String {
    match (n % 10, n % 100) {
        (1, x) if x != 11 => format!("{n}st"),
        (2, x) if x != 12 => format!("{n}nd"),
        (3, x) if x != 13 => format!("{n}rd"),
        _ => format!("{n}th"),
    }
}

/// Writes the credit file.
pub fn write_credits(path: &Path, credits: &[Credit]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for c in credits {
        let guard = |t: &str| crate::outcome::guard_cell(t).into_owned();
        w.serialize(Credit {
            submission: guard(&c.submission),
            team: guard(&c.team),
            detail: guard(&c.detail),
            ..c.clone()
        })?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::export::write_atomically(path, &bytes)
}

/// Reads a credit file, by submission; errors name the file and line.
pub fn read_credits(path: &Path) -> anyhow::Result<BTreeMap<String, Credit>> {
    let mut r = csv::Reader::from_path(path)
        .with_context(|| format!("cannot read contest credit {}", path.display()))?;
    let mut out = BTreeMap::new();
    for (i, c) in r.deserialize::<Credit>().enumerate() {
        let mut c = c.with_context(|| format!("{}: line {}", path.display(), i + 2))?;
        for t in [&mut c.submission, &mut c.team, &mut c.detail] {
            *t = crate::outcome::unguard_cell(t).to_owned();
        }
        out.insert(c.submission.clone(), c);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names_as_the_handout_says() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(team(d.path(), "contest.txt"), None, "no file: no entry");
        for (text, ok) in [
            ("Speedy\nAlice, Bob\n", Some("Speedy")),
            ("Team42\r\n", Some("Team42")),
            ("ABCDEFGHIJKLMNO", Some("ABCDEFGHIJKLMNO")),
            ("ABCDEFGHIJKLMNOP\n", None),
            ("Fast Team\n", None),
            ("\nSpeedy\n", None),
            ("Caf\u{e9}\n", None),
        ] {
            std::fs::write(d.path().join("contest.txt"), text).unwrap();
            let got = team(d.path(), "contest.txt").unwrap();
            match ok {
                Some(name) => assert_eq!(got, Ok(name.to_string()), "{text:?}"),
                None => assert!(
                    got.unwrap_err()
                        .contains("is not 1 to 15 letters and digits"),
                    "{text:?}"
                ),
            }
        }
        // A link to another file (another student's, the system's) is
        // not read; a long line is not shown whole.
        std::fs::write(d.path().join("secret"), "SECRET-LINE\n").unwrap();
        std::fs::remove_file(d.path().join("contest.txt")).unwrap();
        std::os::unix::fs::symlink(d.path().join("secret"), d.path().join("contest.txt")).unwrap();
        assert_eq!(
            team(d.path(), "contest.txt"),
            Some(Err("contest.txt is not a plain file".into()))
        );
        std::fs::remove_file(d.path().join("contest.txt")).unwrap();
        std::fs::write(d.path().join("contest.txt"), "x".repeat(5000)).unwrap();
        let long = team(d.path(), "contest.txt").unwrap().unwrap_err();
        assert!(long.len() < 120 && long.contains("\"... is not"), "{long}");
        let c: ContestFile = toml::from_str("credit = [3, 2, 2, 1, 1, 1]").unwrap();
        assert_eq!(
            (1..=7).map(|p| c.credit_for(p)).collect::<Vec<_>>(),
            [3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0]
        );
        assert_eq!(c.entry_file, "contest.txt");
    }

    #[test]
    fn a_live_entry_counts_its_solver_part_only() {
        use crate::outcome::{Row, Verdict};
        let row = |suite: &str, verdict: Verdict, cpu: f64| {
            let mut r = Row::new("alice", "fam", suite, "p1");
            r.verdict = verdict;
            r.cpu_ms = Some(cpu);
            r
        };
        let rows = [
            row("solver/easy", Verdict::Accepted, 1234.0),
            row("solver/hard", Verdict::Accepted, 10.0),
            row("solver/hard", Verdict::TimeLimit, 80_000.0),
            row("checker/easy", Verdict::Accepted, 5000.0),
            row("build", Verdict::Accepted, 700.0),
        ];
        let live = Live::of("Speedy", "solver", &rows);
        assert_eq!(
            live,
            Live {
                team: "Speedy".into(),
                solved: 2,
                cases: 3,
                cpu_seconds: 1.24
            }
        );
        assert_eq!(
            serde_json::Value::from(live.leaderboard()).to_string(),
            r#"[{"name":"Team","value":"Speedy"},{"name":"Solved","value":2},{"name":"CPU seconds","order":"asc","value":1.24}]"#
        );
    }

    #[test]
    fn credit_files_round_trip() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("credit.csv");
        let rows = vec![
            Credit {
                submission: "alice".into(),
                team: "Speedy".into(),
                place: Some(1),
                credit: 3.0,
                detail: "1st of 2 entries".into(),
            },
            Credit {
                submission: "bob".into(),
                team: String::new(),
                place: None,
                credit: 0.0,
                detail: "no contest.txt: not an entry".into(),
            },
        ];
        write_credits(&p, &rows).unwrap();
        let back = read_credits(&p).unwrap();
        assert_eq!(back["alice"], rows[0]);
        assert_eq!(back["bob"], rows[1]);
        std::fs::write(&p, "submission,team,place,credit,detail\nx,y,first,1,z\n").unwrap();
        assert!(format!("{:#}", read_credits(&p).unwrap_err()).contains("credit.csv: line 2"));
    }
}
