//! A tiny family for tests (cargo feature `toy`): proof that a family
//! enters through the table alone. A puzzle is one row of lights, `1` on
//! and `0` off (a file of one line); pressing `i` toggles lights `i` and
//! `i + 1`. A solution turns every light off; one exists exactly when an
//! even number are on. The candidate prints the presses, one a line, and
//! exits 0, or prints nothing and exits 1 when there is no solution.
//!
//! It has everything a family can have: a Solver battery, replays, and a
//! question (`toy:count`: the number of lights on).

use std::path::{Path, PathBuf};

use crate::battery::{Battery, Output};
use crate::family::{
    Answer, Family, Grader, LoadError, LoadOptions, Role, Statuses, Verified, battery_of,
};
use crate::questions::{Question, Transcript};
use crate::replay::{Frame, MAX_FRAMES, Replay};

/// The toy family.
pub struct Toy;

/// A row of lights.
pub type Row = Vec<bool>;

/// Reads a row file: one line of `0` and `1`, at least one light.
pub fn read_row(path: &Path) -> Result<Row, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::msg(format!("{}: {e}", path.display())))?;
    let line = text.trim_end_matches('\n');
    if line.is_empty() || line.contains('\n') {
        return Err(LoadError::msg(format!(
            "{}: line 1: expected one row of 0 and 1",
            path.display()
        )));
    }
    line.chars()
        .map(|c| match c {
            '0' => Ok(false),
            '1' => Ok(true),
            other => Err(LoadError::msg(format!(
                "{}: line 1: expected 0 or 1, found {other:?}",
                path.display()
            ))),
        })
        .collect()
}

/// The presses that solve `row` (each needed once, left to right), or
/// `None` when an odd number of lights are on.
pub fn solve(row: &Row) -> Option<Vec<usize>> {
    let mut row = row.clone();
    let mut presses = Vec::new();
    for i in 0..row.len().saturating_sub(1) {
        if row[i] {
            press(&mut row, i);
            presses.push(i);
        }
    }
    row.iter().all(|on| !on).then_some(presses)
}

fn press(row: &mut Row, i: usize) {
    row[i] = !row[i];
    row[i + 1] = !row[i + 1];
}

/// The presses of an answer, each checked against the row's length.
fn presses(row: &Row, stdout: &[u8]) -> Result<Vec<usize>, String> {
    let text = String::from_utf8_lossy(stdout);
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.parse::<usize>() {
            Ok(i) if i + 1 < row.len() => out.push(i),
            _ => return Err(format!("line {}: {line:?} is no press", n + 1)),
        }
    }
    Ok(out)
}

fn lights(row: &Row) -> String {
    row.iter().map(|&on| if on { '#' } else { 'O' }).collect()
}

impl Family for Toy {
    type Puzzle = Row;
    const NAME: &'static str = "toy";
    const LISTING_FORMS: &'static [&'static [&'static str]] = &[&["row"]];
    const STATUSES: Statuses = Statuses::AnswerOrNone;

    fn load(files: &[PathBuf], _options: &LoadOptions) -> Result<Row, LoadError> {
        read_row(&files[0])
    }

    fn verify(row: &Row, stdout: &[u8]) -> Verified {
        match presses(row, stdout) {
            Err(why) => Verified {
                result: Err(why),
                moves: None,
            },
            Ok(list) => {
                let mut r = row.clone();
                for &i in &list {
                    press(&mut r, i);
                }
                let on = r.iter().filter(|&&on| on).count();
                Verified {
                    result: if on == 0 {
                        Ok(())
                    } else {
                        Err(format!("{on} lights still on"))
                    },
                    moves: Some(list.len() as u64),
                }
            }
        }
    }

    fn solvable(row: &Row) -> Option<bool> {
        Some(solve(row).is_some())
    }

    fn best_moves(row: &Row) -> Option<u64> {
        solve(row).map(|p| p.len() as u64)
    }

    fn answer(row: &Row) -> Answer {
        match solve(row) {
            Some(p) => Answer {
                stdout: p.iter().map(|i| format!("{i}\n")).collect(),
                stderr: String::new(),
                exit_code: 0,
            },
            None => Answer {
                stdout: String::new(),
                stderr: "No solution\n".into(),
                exit_code: 1,
            },
        }
    }

    fn battery(role: Role) -> Option<Battery> {
        battery_of(role, &[(Role::Solver, solver_battery)])
    }

    fn replay(files: &[PathBuf], stdout: &[u8]) -> Option<Replay> {
        let [file] = files else { return None };
        let mut row = read_row(file).ok()?;
        let frame = |step: String, row: &Row, marked| Frame {
            step,
            cells: vec![lights(row)],
            blocks: Vec::new(),
            marked,
        };
        let mut frames = vec![frame("start".into(), &row, Vec::new())];
        let (list, end) = match presses(&row, stdout) {
            Ok(list) => (list, None),
            Err(why) => (Vec::new(), Some(why)),
        };
        for i in list.into_iter().take(MAX_FRAMES) {
            press(&mut row, i);
            let marked = vec![(0, i as u32), (0, i as u32 + 1)];
            frames.push(frame(i.to_string(), &row, marked));
        }
        let illegal = end.is_some();
        let on = row.iter().filter(|&&on| on).count();
        Some(Replay {
            size: (1, row.len() as u32),
            frames,
            goal: Vec::new(),
            end: end.unwrap_or_else(|| format!("{on} lights still on")),
            illegal,
        })
    }

    const QUESTIONS: &'static [&'static dyn Grader] = &[&COUNT];
}

/// The Solver battery: a solvable row, an unsolvable one, a missing file.
fn solver_battery(b: &mut Battery) {
    let f = b.folder(&[("row", b"0110\n"), ("odd", b"100\n")], b"");
    b.case("solvable", &f, &["row"], &["row"], &[0], Output::Solves);
    b.case("unsolvable", &f, &["odd"], &[], &[1], Output::Empty);
    b.case("missing file", &f, &["-"], &[], &[1], Output::Empty);
}

/// `count(row)`: the number of lights on.
pub const COUNT: Question = Question {
    name: "toy:count",
    forms: &[&["row"]],
    load: |files| {
        let [file] = files else {
            return Err(LoadError::msg("toy:count takes one row file"));
        };
        let on = read_row(file)?.iter().filter(|&&on| on).count();
        Ok(Transcript::Exact(vec![vec![on.to_string()]]))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_solvable_when_an_even_number_is_on() {
        assert_eq!(solve(&vec![false, true, true, false]), Some(vec![1]));
        assert_eq!(solve(&vec![true, false, false, true]), Some(vec![0, 1, 2]));
        assert_eq!(solve(&vec![true, false, false]), None);
        assert_eq!(solve(&vec![true]), None);
        let row = vec![false, true, true, false];
        assert_eq!(Toy::verify(&row, b"1\n").result, Ok(()));
        assert_eq!(
            Toy::verify(&row, b"0\n").result,
            Err("2 lights still on".into())
        );
        assert_eq!(
            Toy::verify(&row, b"3\n").result,
            Err("line 1: \"3\" is no press".into())
        );
    }
}
