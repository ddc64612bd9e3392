//! Checking a solver's answer: parse its `r:c` lines and replay them on the board.
//!
//! This is the logic of the course's `loplayer` used as a grader: every line
//! must be a move inside the board, and the lights must all be out at the end
//! (or, as the 15-122 course's own pipe reads it, at some move: then nothing
//! after it is read).

use std::fmt;

use super::board::{Board, Cell};
use super::solve::{Minimality, Solution};
use crate::family::{Answer, Verified};

/// Why a line is not a valid move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveErrorKind {
    /// The line is not `row:col` in decimal.
    #[error("expected row:col")]
    Syntax,
    /// The move names a cell outside the board.
    #[error("outside {width}x{height} board")]
    Outside {
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
    },
}

/// A line of a move list that is not a valid move on this board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {index} {text:?} (line {line}): {kind}")]
pub struct MoveError {
    /// 1-based number of the move (blank lines are not moves).
    pub index: usize,
    /// 1-based line number in the output.
    pub line: usize,
    /// The line as written (lossy UTF-8, at most 40 characters).
    pub text: String,
    /// What is wrong with it.
    pub kind: MoveErrorKind,
}

/// The verdict of replaying a move list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// All lights are out after the last move.
    Solved {
        /// Number of moves replayed.
        moves: usize,
    },
    /// Lights remain on after the last move.
    LightsOn {
        /// Number of moves replayed.
        moves: usize,
        /// Lights still on.
        lights_on: usize,
    },
    /// A line is not a valid move.
    BadMove(MoveError),
}

impl fmt::Display for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Replay::Solved { moves } => write!(f, "all lights out after {moves} moves"),
            Replay::LightsOn { moves, lights_on } => {
                write!(f, "lights still on after {moves} moves ({lights_on} lit)")
            }
            Replay::BadMove(e) => e.fmt(f),
        }
    }
}

/// Parses one line as a move `row:col` (decimal, whitespace around the
/// numbers allowed). Returns `Ok(None)` for a blank line.
pub fn parse_move(line: &[u8], board: &Board) -> Result<Option<Cell>, MoveErrorKind> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(None);
    }
    let colon = line
        .iter()
        .position(|&b| b == b':')
        .ok_or(MoveErrorKind::Syntax)?;
    let row = number(&line[..colon]).ok_or(MoveErrorKind::Syntax)?;
    let col = number(&line[colon + 1..]).ok_or(MoveErrorKind::Syntax)?;
    let cell = Cell { row, col };
    if !board.contains(cell) {
        return Err(MoveErrorKind::Outside {
            width: board.width(),
            height: board.height(),
        });
    }
    Ok(Some(cell))
}

fn number(text: &[u8]) -> Option<usize> {
    let text = text.trim_ascii();
    if text.is_empty() || text.len() > 18 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(text.iter().fold(0, |n, &d| n * 10 + usize::from(d - b'0')))
}

/// Builds the [`MoveError`] for a line.
pub fn move_error(index: usize, line: usize, text: &[u8], kind: MoveErrorKind) -> MoveError {
    let text = String::from_utf8_lossy(text.trim_ascii());
    let text = if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text.into_owned()
    };
    MoveError {
        index,
        line,
        text,
        kind,
    }
}

/// A board being played, with its count of lights on kept up to date so
/// that "all out?" costs nothing after each press (loplayer asks it after
/// every move, and a move list can have millions of moves).
#[derive(Debug, Clone)]
pub struct Game {
    board: Board,
    lights_on: usize,
}

impl Game {
    /// Starts a game on `board`.
    pub fn new(board: Board) -> Self {
        let lights_on = board.count_on();
        Self { board, lights_on }
    }

    /// Presses `cell` (which must be on the board).
    pub fn press(&mut self, cell: Cell) {
        let Cell { row, col } = cell;
        self.flip(cell);
        if row > 0 {
            self.flip(Cell { row: row - 1, col });
        }
        if row + 1 < self.board.height() {
            self.flip(Cell { row: row + 1, col });
        }
        if col > 0 {
            self.flip(Cell { row, col: col - 1 });
        }
        if col + 1 < self.board.width() {
            self.flip(Cell { row, col: col + 1 });
        }
    }

    fn flip(&mut self, cell: Cell) {
        if self.board.get(cell) {
            self.lights_on -= 1;
        } else {
            self.lights_on += 1;
        }
        self.board.toggle(cell);
    }

    /// The lights still on.
    pub fn lights_on(&self) -> usize {
        self.lights_on
    }

    /// The board as it is now.
    pub fn board(&self) -> &Board {
        &self.board
    }
}

/// Replays `output` (one `r:c` per line) on a copy of `board` and judges the
/// final state. Blank lines are skipped; any other line must be a move.
pub fn replay(board: &Board, output: &[u8]) -> Replay {
    replay_lines(board, output, false)
}

/// Replays `output` as the 15-122 handout's `loplayer` reads it from a
/// pipe: move by move until the lights are out, then no further ("you can
/// exit loplayer ... by winning the game"): what follows the winning move
/// (a `board solved` line, more moves) is never read. A line that is not
/// a move before that ends the game unwon.
pub fn replay_until_won(board: &Board, output: &[u8]) -> Replay {
    replay_lines(board, output, true)
}

/// [`replay`], or with `until_won`, [`replay_until_won`].
fn replay_lines(board: &Board, output: &[u8], until_won: bool) -> Replay {
    let mut game = Game::new(board.clone());
    let mut moves = 0;
    for (line_no, line) in output.split(|&b| b == b'\n').enumerate() {
        if until_won && game.lights_on() == 0 {
            break;
        }
        match parse_move(line, board) {
            Ok(None) => {}
            Ok(Some(cell)) => {
                moves += 1;
                game.press(cell);
            }
            Err(kind) => return Replay::BadMove(move_error(moves + 1, line_no + 1, line, kind)),
        }
    }
    match game.lights_on() {
        0 => Replay::Solved { moves },
        lights_on => Replay::LightsOn { moves, lights_on },
    }
}

/// Verifies a candidate's moves (the stdout of an exit 0) as the answer
/// they are: every line a move inside the board, and no light left on
/// after the last.
pub fn verify(board: &Board, stdout: &[u8]) -> Verified {
    verified(replay(board, stdout))
}

/// Verifies a candidate's moves as the 15-122 course's own pipe into
/// `loplayer` does ([`replay_until_won`]).
pub fn verify_until_won(board: &Board, stdout: &[u8]) -> Verified {
    verified(replay_until_won(board, stdout))
}

fn verified(replayed: Replay) -> Verified {
    match replayed {
        Replay::Solved { moves } => Verified {
            result: Ok(()),
            moves: Some(moves as u64),
        },
        r @ Replay::LightsOn { moves, .. } => Verified {
            result: Err(r.to_string()),
            moves: Some(moves as u64),
        },
        r @ Replay::BadMove(_) => Verified {
            result: Err(r.to_string()),
            moves: None,
        },
    }
}

/// Writes a solution's moves, `row:col` a line, row by row, to `out` in
/// blocks of about 64 KiB (no string of the whole answer is ever built: a
/// 10000 x 10000 answer is hundreds of megabytes).
pub fn write_moves(solution: &Solution, out: &mut impl std::io::Write) -> std::io::Result<()> {
    const BLOCK: usize = 1 << 16;
    /// A number and its end byte in fixed-size storage, copied whole (one
    /// 16-byte store), advanced by `len`. A side is at most 10^9 cells, so
    /// at most 10 digits and the end byte.
    #[derive(Clone, Copy)]
    struct Piece {
        bytes: [u8; 16],
        len: usize,
    }
    fn piece(n: usize, end: u8) -> Piece {
        let mut digits = itoa::Buffer::new();
        let text = digits.format(n).as_bytes();
        let mut bytes = [0u8; 16];
        bytes[..text.len()].copy_from_slice(text);
        bytes[text.len()] = end;
        Piece {
            bytes,
            len: text.len() + 1,
        }
    }
    let presses = &solution.presses;
    // Every column's `c\n` once; the row's `r:` once a row.
    let columns: Vec<Piece> = (0..presses.width()).map(|c| piece(c, b'\n')).collect();
    let mut buf = vec![0u8; BLOCK + 2 * 16];
    let mut at = 0;
    for r in 0..presses.height() {
        let prefix = piece(r, b':');
        for (w, &word) in presses.row(r).iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let col = &columns[w * 64 + bits.trailing_zeros() as usize];
                bits &= bits - 1;
                buf[at..at + 16].copy_from_slice(&prefix.bytes);
                at += prefix.len;
                buf[at..at + 16].copy_from_slice(&col.bytes);
                at += col.len;
            }
            if at >= BLOCK - 64 * 32 {
                out.write_all(&buf[..at])?;
                at = 0;
            }
        }
    }
    out.write_all(&buf[..at])
}

/// The note on stderr for a solution not proven minimal (empty when it is).
pub fn minimality_note(solution: &Solution) -> String {
    match solution.minimality {
        Minimality::Proven => String::new(),
        Minimality::BestFound { nullity } => format!(
            "note: 2^{nullity} solutions, too many to search; \
             printing the fewest presses found, not proven minimal\n"
        ),
    }
}

/// The student contract's answer for `board`, from the reference's minimum
/// solution: moves `r:c` and exit 0, or `No solution` on stderr and exit 1.
pub fn answer(minimum: Option<&Solution>) -> Answer {
    match minimum {
        None => Answer {
            stdout: String::new(),
            stderr: "No solution\n".into(),
            exit_code: 1,
        },
        Some(s) => {
            let mut stdout = Vec::new();
            write_moves(s, &mut stdout).expect("writing to memory");
            Answer {
                stdout: String::from_utf8(stdout).expect("digits and colons"),
                stderr: minimality_note(s),
                exit_code: 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::Check;
    use crate::lightsout::parse_board;

    fn b34() -> Board {
        parse_board(b"3x2\n#OO\n##O\n").unwrap()
    }

    #[test]
    fn replays_a_solution() {
        assert_eq!(replay(&b34(), b"1:0\n"), Replay::Solved { moves: 1 });
        assert_eq!(replay(&b34(), b"1:0\r\n\n"), Replay::Solved { moves: 1 });
        assert_eq!(replay(&b34(), b" 1 : 0 "), Replay::Solved { moves: 1 });
    }

    #[test]
    fn lights_left_on() {
        assert_eq!(
            replay(&b34(), b""),
            Replay::LightsOn {
                moves: 0,
                lights_on: 3
            }
        );
        let r = replay(&b34(), b"1:0\n0:0\n");
        assert_eq!(r.to_string(), "lights still on after 2 moves (3 lit)");
    }

    #[test]
    fn loplayer_reads_no_further_than_the_win() {
        let b = b34();
        // The win, then a line loplayer never reads, and a move that would
        // light the board again.
        let out = b"1:0\nboard solved\n0:0\n";
        assert_eq!(replay_until_won(&b, out), Replay::Solved { moves: 1 });
        assert_eq!(
            replay(&b, out).to_string(),
            "move 2 \"board solved\" (line 2): expected row:col"
        );
        // Before the win, a line that is not a move ends the game unwon.
        assert!(matches!(
            replay_until_won(&b, b"board\n1:0\n"),
            Replay::BadMove(_)
        ));
        // Never won: the same as reading it all.
        assert_eq!(replay_until_won(&b, b"0:0\n"), replay(&b, b"0:0\n"));
        assert!(verify_until_won(&b, b"0:0\n").result.is_err());
        assert!(verify_until_won(&b, out).result.is_ok());
    }

    #[test]
    fn judge_covers_the_contract() {
        use crate::families::family;
        let dir = tempfile::tempdir().unwrap();
        let load = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            family("lightsout").unwrap().load(&[path]).unwrap()
        };
        let case = load("b34", "3x2\n#OO\n##O\n");
        let j = |out: &[u8], code| case.judge(out, code);
        assert_eq!(j(b"1:0\n", 0).check, Check::Accepted);
        assert_eq!(
            (j(b"1:0\n", 0).moves, j(b"1:0\n", 0).best_moves),
            (Some(1), Some(1))
        );
        let slow = j(b"0:0\n0:0\n1:0\n", 0);
        assert_eq!(
            (slow.check, slow.moves, slow.best_moves),
            (Check::Accepted, Some(3), Some(1))
        );
        assert_eq!(j(b"", 0).detail, "lights still on after 0 moves (3 lit)");
        assert_eq!(j(b"", 1).check, Check::WrongExitStatus);
        assert_eq!(j(b"", 3).detail, "exit status 3 (the contract has 0 and 1)");
        let none = load("b32", "3x2\n#O#\n#OO\n");
        let jn = |out: &[u8], code| none.judge(out, code).check;
        assert_eq!(jn(b"", 1), Check::Accepted);
        assert_eq!(jn(b"\n", 1), Check::Accepted);
        assert_eq!(jn(b"0:0\n", 1), Check::WrongExitStatus);
        assert_eq!(jn(b"", 0), Check::WrongExitStatus);
        assert_eq!(
            none.judge(b"0:0\n", 0).detail,
            "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)"
        );
        assert_eq!(jn(b"", -1), Check::RuntimeError);
    }

    #[test]
    fn answer_follows_the_contract() {
        use crate::lightsout::solve_minimum;
        let a = answer(solve_minimum(&b34()).as_ref());
        assert_eq!(
            (a.stdout.as_str(), a.stderr.as_str(), a.exit_code),
            ("1:0\n", "", 0)
        );
        let a = answer(None);
        assert_eq!(
            (a.stdout.as_str(), a.stderr.as_str(), a.exit_code),
            ("", "No solution\n", 1)
        );
    }

    #[test]
    fn bad_moves_say_which_and_why() {
        let r = replay(&b34(), b"0:0\n\n4:9\n");
        assert_eq!(r.to_string(), "move 2 \"4:9\" (line 3): outside 3x2 board");
        let r = replay(&b34(), b"1,0\n");
        assert_eq!(r.to_string(), "move 1 \"1,0\" (line 1): expected row:col");
        for bad in [
            &b"1:"[..],
            b":1",
            b"-1:0",
            b"1:0:0",
            b"a:b",
            b"99999999999999999999:0",
        ] {
            assert!(matches!(replay(&b34(), bad), Replay::BadMove(_)), "{bad:?}");
        }
    }
}
