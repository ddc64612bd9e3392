//! The Checker: replay moves on a tray (each slides one block in a straight
//! line through empty cells), judge the goal after the last move, and give
//! the CS61BL exit statuses case by case (`shared/specs/slidingblock-checker.md`).

use std::fmt;
use std::path::PathBuf;

use super::outcome::{Outcome, SolveReport};
use super::parse::{Format, PuzzleFileError, parse_moves, read_puzzle};
use super::tray::{Block, Goal, Move, Tray};
use crate::family::{Answer, Verified};

/// Why a move is impossible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MoveErrorKind {
    /// No block has its top-left corner at the move's start.
    #[error("no block has its top-left corner there")]
    NoBlock,
    /// Start and end differ in both row and column.
    #[error("diagonal move")]
    Diagonal,
    /// The block would end partly outside the tray.
    #[error("the block would leave the tray")]
    OutsideTray,
    /// Another block is in the way (or at the destination).
    #[error("blocked by the block at {0} {1}")]
    Blocked(u32, u32),
}

/// An impossible move and where it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {index} (line {line}) \"{mv}\": {kind}")]
pub struct MoveError {
    /// 1-based number of the move.
    pub index: usize,
    /// Line in the move list.
    pub line: usize,
    /// The move.
    pub mv: Move,
    /// Why it is impossible.
    pub kind: MoveErrorKind,
}

/// A tray being played: blocks and an owner map for O(area) moves.
#[derive(Debug, Clone)]
pub struct Board {
    height: u32,
    width: u32,
    /// 0 for an empty cell, else 1 + the index of the block covering it.
    owner: Vec<u32>,
    blocks: Vec<Block>,
}

impl Board {
    /// Sets up `tray` (which must be valid: blocks inside, not overlapping).
    pub fn new(tray: &Tray) -> Self {
        let mut owner = vec![0; (tray.height * tray.width) as usize];
        for (i, b) in tray.blocks.iter().enumerate() {
            for r in b.top..=b.bottom {
                let row = (r * tray.width) as usize;
                owner[row + b.left as usize..=row + b.right as usize].fill(i as u32 + 1);
            }
        }
        Self {
            height: tray.height,
            width: tray.width,
            owner,
            blocks: tray.blocks.clone(),
        }
    }

    fn at(&self, r: u32, c: u32) -> u32 {
        self.owner[(r * self.width + c) as usize]
    }

    /// Applies a move, or says why it is impossible (the board is unchanged).
    /// A move to the block's own position is a no-op.
    pub fn apply(&mut self, mv: Move) -> Result<(), MoveErrorKind> {
        if mv.from_row >= self.height || mv.from_col >= self.width {
            return Err(MoveErrorKind::NoBlock);
        }
        let k = self.at(mv.from_row, mv.from_col);
        let Some(&b) = (k as usize).checked_sub(1).and_then(|i| self.blocks.get(i)) else {
            return Err(MoveErrorKind::NoBlock);
        };
        if (b.top, b.left) != (mv.from_row, mv.from_col) {
            return Err(MoveErrorKind::NoBlock);
        }
        if (mv.to_row, mv.to_col) == (mv.from_row, mv.from_col) {
            return Ok(());
        }
        if mv.to_row != mv.from_row && mv.to_col != mv.from_col {
            return Err(MoveErrorKind::Diagonal);
        }
        let s = b.shape();
        let fits =
            |start: u32, len: u32, side: u32| u64::from(start) + u64::from(len) <= u64::from(side);
        if !fits(mv.to_row, s.height, self.height) || !fits(mv.to_col, s.width, self.width) {
            return Err(MoveErrorKind::OutsideTray);
        }
        let nb = b.moved_to(mv.to_row, mv.to_col);
        // The swept box: every cell in it must be empty or this block's own.
        // Checked from the block outwards so the reported blocker is the nearest.
        let (top, bottom) = (b.top.min(nb.top), b.bottom.max(nb.bottom));
        let (left, right) = (b.left.min(nb.left), b.right.max(nb.right));
        let rows: Vec<u32> = if nb.top < b.top {
            (top..=bottom).rev().collect()
        } else {
            (top..=bottom).collect()
        };
        let cols: Vec<u32> = if nb.left < b.left {
            (left..=right).rev().collect()
        } else {
            (left..=right).collect()
        };
        for &r in &rows {
            for &c in &cols {
                let o = self.at(r, c);
                if o != 0 && o != k {
                    let other = self.blocks[o as usize - 1];
                    return Err(MoveErrorKind::Blocked(other.top, other.left));
                }
            }
        }
        self.fill(&b, 0);
        self.fill(&nb, k);
        self.blocks[k as usize - 1] = nb;
        Ok(())
    }

    fn fill(&mut self, b: &Block, value: u32) {
        for r in b.top..=b.bottom {
            let row = (r * self.width) as usize;
            self.owner[row + b.left as usize..=row + b.right as usize].fill(value);
        }
    }

    /// The first goal block not held by a block of exactly that position.
    pub fn unmet(&self, goal: &Goal) -> Option<Block> {
        goal.blocks.iter().copied().find(|g| {
            let k = self.at(g.top, g.left);
            k == 0 || self.blocks[k as usize - 1] != *g
        })
    }

    /// The tray as it stands.
    pub fn tray(&self) -> Tray {
        Tray {
            height: self.height,
            width: self.width,
            blocks: self.blocks.clone(),
        }
    }
}

/// Replays `moves` (with their line numbers) on `tray`: the final board, or
/// the first impossible move.
pub fn replay(tray: &Tray, moves: &[(usize, Move)]) -> Result<Board, MoveError> {
    let mut board = Board::new(tray);
    for (i, &(line, mv)) in moves.iter().enumerate() {
        board.apply(mv).map_err(|kind| MoveError {
            index: i + 1,
            line,
            mv,
            kind,
        })?;
    }
    Ok(board)
}

/// The Checker's exit status and its one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckerReport {
    /// 0 solved, 1 goal not met, 2 usage, 3 unreadable file, 4 malformed
    /// move line, 5 malformed or invalid init or goal, 6 impossible move.
    pub status: u8,
    /// Why.
    pub reason: String,
}

impl fmt::Display for CheckerReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// The whole Checker: `args` are its command-line files, `stdin` every byte
/// of its input. Every error is found and the lowest status wins.
pub fn run_checker(args: &[PathBuf], stdin: &[u8], format: Format) -> CheckerReport {
    let report = |status, reason: String| CheckerReport { status, reason };
    let [init, goal] = args else {
        return report(
            2,
            format!("expected 2 arguments (init goal), got {}", args.len()),
        );
    };
    let puzzle = read_puzzle(init, goal, format);
    if let Err(e @ PuzzleFileError::Unreadable { .. }) = &puzzle {
        return report(3, e.to_string());
    }
    let moves = match parse_moves(stdin) {
        Ok(m) => m,
        Err(e) => return report(4, format!("moves: {e}")),
    };
    let (tray, goal) = match puzzle {
        Ok(p) => p,
        Err(e) => return report(5, e.to_string()),
    };
    match replay(&tray, &moves) {
        Err(e) => report(6, e.to_string()),
        Ok(board) => match board.unmet(&goal) {
            None => report(0, format!("goal met after {} moves", moves.len())),
            Some(b) => report(
                1,
                format!(
                    "goal not met after {} moves: no {}x{} block at {b}",
                    moves.len(),
                    b.shape().height,
                    b.shape().width
                ),
            ),
        },
    }
}

/// Verifies a Solver's moves (the stdout of an exit 0) exactly as
/// [`run_checker`] judges its stdin: every line four numbers, every move
/// possible, the goal met after the last one.
pub fn verify(tray: &Tray, goal: &Goal, stdout: &[u8]) -> Verified {
    let moves = match parse_moves(stdout) {
        Ok(m) => m,
        Err(e) => {
            return Verified {
                result: Err(format!("output {e}")),
                moves: None,
            };
        }
    };
    let count = Some(moves.len() as u64);
    let result = match replay(tray, &moves) {
        Err(e) => {
            return Verified {
                result: Err(e.to_string()),
                moves: None,
            };
        }
        Ok(board) => match board.unmet(goal) {
            None => Ok(()),
            Some(b) => Err(format!(
                "goal not met after {} moves: no {}x{} block at {b}",
                moves.len(),
                b.shape().height,
                b.shape().width
            )),
        },
    };
    Verified {
        result,
        moves: count,
    }
}

/// The Solver contract's answer from a search report: the moves and exit
/// 0, or nothing on stdout and exit 1 with the reason on stderr.
pub fn answer(report: &SolveReport) -> Answer {
    match &report.outcome {
        Outcome::Solved(moves) => Answer {
            stdout: moves.iter().map(|m| format!("{m}\n")).collect(),
            stderr: String::new(),
            exit_code: 0,
        },
        Outcome::NoSolution => Answer {
            stdout: String::new(),
            stderr: "no solution\n".into(),
            exit_code: 1,
        },
        Outcome::GaveUp => Answer {
            stdout: String::new(),
            stderr: format!(
                "gave up after {} states (--max-states); not proven unsolvable\n",
                report.states
            ),
            exit_code: 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slidingblock::parse::{parse_goal, parse_tray};

    fn board(text: &str) -> Board {
        Board::new(&parse_tray(text.as_bytes(), Format::Corners).unwrap())
    }

    #[test]
    fn moves_slide_through_empty_cells_only() {
        let mut b = board("2 3\n0 0 0 0\n1 1 1 1\n");
        assert_eq!(b.apply(Move::new(0, 0, 0, 2)), Ok(()));
        assert_eq!(b.apply(Move::new(0, 2, 1, 2)), Ok(()));
        assert_eq!(
            b.apply(Move::new(1, 2, 1, 0)),
            Err(MoveErrorKind::Blocked(1, 1))
        );
        assert_eq!(b.apply(Move::new(1, 2, 0, 0)), Err(MoveErrorKind::Diagonal));
        assert_eq!(b.apply(Move::new(0, 1, 0, 2)), Err(MoveErrorKind::NoBlock));
        assert_eq!(
            b.apply(Move::new(1, 2, 1, 5)),
            Err(MoveErrorKind::OutsideTray)
        );
        assert_eq!(b.apply(Move::new(1, 2, 1, 2)), Ok(()));
        assert_eq!(b.apply(Move::new(9, 9, 1, 2)), Err(MoveErrorKind::NoBlock));
    }

    #[test]
    fn only_the_top_left_corner_names_a_block() {
        let mut b = board("3 3\n0 0 1 1\n");
        assert_eq!(b.apply(Move::new(1, 1, 1, 2)), Err(MoveErrorKind::NoBlock));
        assert_eq!(b.apply(Move::new(0, 0, 1, 0)), Ok(()));
        assert_eq!(b.tray().blocks, [Block::new(1, 0, 2, 1)]);
    }

    #[test]
    fn goals_accept_any_block_of_the_shape() {
        let tray = parse_tray(b"1 3\n0 0 0 0\n0 2 0 2\n", Format::Corners).unwrap();
        let goal = parse_goal(b"0 2 0 2\n0 2 0 2\n", Format::Corners, &tray).unwrap();
        assert_eq!(Board::new(&tray).unmet(&goal), None);
        let goal = parse_goal(b"0 1 0 1\n", Format::Corners, &tray).unwrap();
        assert_eq!(Board::new(&tray).unmet(&goal), Some(Block::new(0, 1, 0, 1)));
    }
}
