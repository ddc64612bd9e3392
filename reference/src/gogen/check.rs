//! Checking a Gogen solution (the handout's `valid_solution`): each letter
//! 'A' to 'Y' exactly once, the given letters kept, and every word spelled by
//! king moves. A rejection names the word and the two letters that are not
//! adjacent, or the letter missing, repeated or changed.

use std::path::PathBuf;

use super::board::{Board, SIDE};
use super::parse::{Puzzle, PuzzleFileError, parse_solution, read_puzzle};
use crate::family::{Answer, Verified};
use crate::file::FileError;

/// Why a board is not a solution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// A cell without a letter.
    #[error("cell {0},{1} is empty")]
    EmptyCell(usize, usize),
    /// A letter outside 'A' to 'Y'.
    #[error("letter {letter} at {row},{col} is not A to Y")]
    NotInPlay {
        /// The letter.
        letter: char,
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// A letter in two cells.
    #[error("letter {letter} appears twice (at {} and {})", pos(*first), pos(*second))]
    Repeated {
        /// The letter.
        letter: char,
        /// The first cell.
        first: (usize, usize),
        /// The second cell.
        second: (usize, usize),
    },
    /// A given letter replaced.
    #[error("the puzzle gives {given} at {row},{col} but the solution has {found}")]
    Changed {
        /// The given letter.
        given: char,
        /// What is there instead.
        found: char,
        /// Row.
        row: usize,
        /// Column.
        col: usize,
    },
    /// Two consecutive letters of a word that are not a king move apart.
    #[error("word {word}: {a} at {} and {b} at {} are not adjacent", pos(*at_a), pos(*at_b))]
    NotAdjacent {
        /// The word.
        word: String,
        /// First letter.
        a: char,
        /// Its cell.
        at_a: (usize, usize),
        /// Second letter.
        b: char,
        /// Its cell.
        at_b: (usize, usize),
    },
}

fn pos((r, c): (usize, usize)) -> String {
    format!("{r},{c}")
}

/// Whether `solution` solves `puzzle`; the first reason when it does not.
pub fn valid_solution(puzzle: &Puzzle, solution: &Board) -> Result<(), Invalid> {
    let mut at: [Option<(usize, usize)>; 26] = [None; 26];
    for r in 0..SIDE {
        for c in 0..SIDE {
            let Some(letter) = solution.0[r][c] else {
                return Err(Invalid::EmptyCell(r, c));
            };
            if !(b'A'..=b'Y').contains(&letter) {
                return Err(Invalid::NotInPlay {
                    letter: char::from(letter),
                    row: r,
                    col: c,
                });
            }
            let slot = &mut at[usize::from(letter - b'A')];
            if let Some(first) = *slot {
                return Err(Invalid::Repeated {
                    letter: char::from(letter),
                    first,
                    second: (r, c),
                });
            }
            *slot = Some((r, c));
        }
    }
    // Now 25 cells hold 25 distinct letters of A-Y: none is missing (a
    // missing letter always shows first as an empty cell, a letter outside
    // A-Y or a repeated one).
    for r in 0..SIDE {
        for c in 0..SIDE {
            if let (Some(given), Some(found)) = (puzzle.board.0[r][c], solution.0[r][c])
                && given != found
            {
                return Err(Invalid::Changed {
                    given: char::from(given),
                    found: char::from(found),
                    row: r,
                    col: c,
                });
            }
        }
    }
    for word in &puzzle.words {
        for pair in word.as_bytes().windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (pa, pb) = (at[usize::from(a - b'A')], at[usize::from(b - b'A')]);
            let (Some(pa), Some(pb)) = (pa, pb) else {
                unreachable!("every letter A-Y is on the board")
            };
            let adjacent = pa != pb && pa.0.abs_diff(pb.0) <= 1 && pa.1.abs_diff(pb.1) <= 1;
            if !adjacent {
                return Err(Invalid::NotAdjacent {
                    word: word.clone(),
                    a: char::from(a),
                    at_a: pa,
                    b: char::from(b),
                    at_b: pb,
                });
            }
        }
    }
    Ok(())
}

/// The checker's status and reason: 0 valid, 1 invalid, 2 usage, 3
/// unreadable file, 4 malformed puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckerReport {
    /// Exit status.
    pub status: u8,
    /// Why.
    pub reason: String,
}

/// The whole checker: puzzle file(s) and the solution text.
pub fn run_checker(files: &[PathBuf], solution: &[u8]) -> CheckerReport {
    let report = |status, reason: String| CheckerReport { status, reason };
    let puzzle = match read_puzzle(files) {
        Ok(p) => p,
        Err(e @ PuzzleFileError::FileCount(_)) => return report(2, e.to_string()),
        Err(e @ PuzzleFileError::File(FileError::Unreadable { .. })) => {
            return report(3, e.to_string());
        }
        Err(e) => return report(4, e.to_string()),
    };
    let text = String::from_utf8_lossy(solution);
    match parse_solution(&text) {
        Err(e) => report(1, format!("solution {e}")),
        Ok(board) => match valid_solution(&puzzle, &board) {
            Ok(()) => report(0, "valid solution".into()),
            Err(e) => report(1, e.to_string()),
        },
    }
}

/// Verifies a candidate's board (the stdout of an exit 0) as
/// `gogen-checker` does: exactly five rows of five letters that solve
/// `puzzle`.
pub fn verify(puzzle: &Puzzle, stdout: &[u8]) -> Verified {
    let result = match parse_solution(&String::from_utf8_lossy(stdout)) {
        Err(e) => Err(format!("output {e}")),
        Ok(board) => valid_solution(puzzle, &board).map_err(|e| e.to_string()),
    };
    Verified {
        result,
        moves: None,
    }
}

/// The solver contract's answer: the board and exit 0, or nothing on
/// stdout and exit 1.
pub fn answer(solution: Option<&Board>) -> Answer {
    match solution {
        Some(board) => Answer {
            stdout: board.to_string(),
            stderr: String::new(),
            exit_code: 0,
        },
        None => Answer {
            stdout: String::new(),
            stderr: "no solution\n".into(),
            exit_code: 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gogen::parse::{parse_board_file, parse_words_file};

    fn easy() -> Puzzle {
        Puzzle {
            board: parse_board_file("N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n").unwrap(),
            words: parse_words_file("BOXED\nFOAM\nJUSTICE\nMUSHY\nPLAYING\nQUAVER\nWICKED\n")
                .unwrap(),
        }
    }

    fn check(solution: &str) -> Result<(), Invalid> {
        valid_solution(&easy(), &parse_solution(solution).unwrap())
    }

    #[test]
    fn the_easy_solution_and_the_two_wrong_ones() {
        assert_eq!(check("NGWKR\nTICED\nSYXVB\nHUAOF\nQJMLP\n"), Ok(()));
        assert_eq!(
            check("NGWKR\nTICED\nSVXYB\nHUAOF\nQJMLP\n")
                .unwrap_err()
                .to_string(),
            "word MUSHY: H at 3,0 and Y at 2,3 are not adjacent"
        );
        assert_eq!(
            check("NGWKR\nTICED\nSYXVB\nHUAOF\nQJMZP\n")
                .unwrap_err()
                .to_string(),
            "letter Z at 4,3 is not A to Y"
        );
    }

    #[test]
    fn every_rejection_reason() {
        assert_eq!(
            check("NGWKR\nTICED\nSYXVB\nHUAOF\nQJM.P\n").unwrap_err(),
            Invalid::EmptyCell(4, 3)
        );
        assert_eq!(
            check("NGWKR\nTICED\nSYXVB\nHUAOF\nQJMNP\n")
                .unwrap_err()
                .to_string(),
            "letter N appears twice (at 0,0 and 4,3)"
        );
        assert_eq!(
            check("GNWKR\nTICED\nSYXVB\nHUAOF\nQJMLP\n")
                .unwrap_err()
                .to_string(),
            "the puzzle gives N at 0,0 but the solution has G"
        );
    }
}
