//! Reading tray, goal and move files. Trays: `height width`, then one block
//! per line, `top left bottom right` (inclusive corners); goals: block lines
//! only; moves: `r c r' c'`. Also the course's older block format,
//! `height width row col`, behind [`Format::SizeCorner`].
//!
//! Lines end in LF or CRLF; spaces or tabs separate numbers, and may lead or
//! trail; empty lines at the end of a file are ignored, anywhere else they
//! are an error. Numbers are decimal digits only (no sign), as Java's
//! `int` reads them: at most 2147483647.

use std::path::Path;

use super::tray::{Block, Goal, MAX_SIDE, Move, Tray};
use crate::file::{self, FileError, Located};

/// How a block line is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// `top left bottom right` (the CS61BL project 3 format).
    #[default]
    Corners,
    /// `height width row col` (the course's older format).
    SizeCorner,
}

/// What is wrong with a tray or goal file, and on which line (1-based).
pub type ParseError = Located<ParseErrorKind>;

/// The ways a tray or goal file can be malformed or invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// A tray file with no header.
    #[error("expected the tray size `height width`, found end of file")]
    MissingHeader,
    /// The header is not two integers.
    #[error("expected the tray size `height width`, found {found:?}")]
    BadHeader {
        /// The line as written.
        found: String,
    },
    /// A side is zero or over 256.
    #[error("tray {height}x{width}: each side must be 1 to 256")]
    BadSize {
        /// Rows.
        height: u64,
        /// Columns.
        width: u64,
    },
    /// A block line is not four integers.
    #[error("expected 4 non-negative integers ({expected}), found {found:?}")]
    BadBlock {
        /// The line as written.
        found: String,
        /// The field names.
        expected: &'static str,
    },
    /// An empty line before the end of the file.
    #[error("empty line")]
    BlankLine,
    /// A block whose bottom-right corner is above or left of its top-left.
    #[error("block {found:?}: its bottom-right corner is above or left of its top-left")]
    Inverted {
        /// The line as written.
        found: String,
    },
    /// A block outside the tray.
    #[error("block {block} lies outside the {height}x{width} tray")]
    Outside {
        /// The block.
        block: Block,
        /// Tray rows.
        height: u32,
        /// Tray columns.
        width: u32,
    },
    /// Two blocks of the tray share a cell.
    #[error("block {block} overlaps block {other} of line {other_line}")]
    Overlap {
        /// The block.
        block: Block,
        /// The block it overlaps.
        other: Block,
        /// That block's line.
        other_line: usize,
    },
}

/// A line of moves that is not four non-negative integers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: expected 4 non-negative integers `r c r' c'`, found {found:?}")]
pub struct MoveLineError {
    /// The line (1-based).
    pub line: usize,
    /// The line as written (at most 40 characters).
    pub found: String,
}

/// A tray or goal file that cannot be used.
pub type PuzzleFileError = FileError<ParseError>;

/// Reads a file, rejecting folders (which `read` would report oddly).
pub fn read_file(path: &Path) -> Result<Vec<u8>, PuzzleFileError> {
    file::read_file(path)
}

/// Reads and validates a tray and a goal file.
pub fn read_puzzle(
    init: &Path,
    goal: &Path,
    format: Format,
) -> Result<(Tray, Goal), PuzzleFileError> {
    let (init_text, goal_text) = (read_file(init)?, read_file(goal)?);
    let tray = parse_tray(&init_text, format).map_err(FileError::invalid(init))?;
    let goal = parse_goal(&goal_text, format, &tray).map_err(FileError::invalid(goal))?;
    Ok((tray, goal))
}

/// The numbered lines of a file, without line ends, trailing empty lines dropped.
fn lines(text: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out: Vec<(usize, &[u8])> = text
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .collect();
    while out.last().is_some_and(|(_, l)| l.trim_ascii().is_empty()) {
        out.pop();
    }
    out
}

/// Shows a line in an error message: lossy UTF-8, at most 40 characters.
fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line.trim_ascii());
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// Exactly `N` non-negative decimal integers of at most 2147483647.
fn numbers<const N: usize>(line: &[u8]) -> Option<[u32; N]> {
    let mut out = [0u32; N];
    let mut fields = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty());
    for slot in &mut out {
        let f = fields.next()?;
        if f.is_empty() || f.len() > 10 || !f.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = f.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        *slot = u32::try_from(n).ok().filter(|&n| n <= i32::MAX as u32)?;
    }
    fields.next().is_none().then_some(out)
}

fn block_line(line: &[u8], format: Format, no: usize) -> Result<Block, ParseError> {
    let err = |kind| ParseError { line: no, kind };
    let expected = match format {
        Format::Corners => "top left bottom right",
        Format::SizeCorner => "height width row col",
    };
    if line.trim_ascii().is_empty() {
        return Err(err(ParseErrorKind::BlankLine));
    }
    let [a, b, c, d] = numbers::<4>(line).ok_or_else(|| {
        err(ParseErrorKind::BadBlock {
            found: shown(line),
            expected,
        })
    })?;
    match format {
        Format::Corners if c < a || d < b => {
            Err(err(ParseErrorKind::Inverted { found: shown(line) }))
        }
        Format::Corners => Ok(Block::new(a, b, c, d)),
        Format::SizeCorner if a == 0 || b == 0 => {
            Err(err(ParseErrorKind::Inverted { found: shown(line) }))
        }
        Format::SizeCorner => Ok(Block::new(c, d, c + a - 1, d + b - 1)),
    }
}

/// Parses and validates a tray file: sides 1 to 256, every block inside,
/// no two overlapping.
pub fn parse_tray(text: &[u8], format: Format) -> Result<Tray, ParseError> {
    let lines = lines(text);
    let Some(&(_, header)) = lines.first() else {
        return Err(ParseError {
            line: 1,
            kind: ParseErrorKind::MissingHeader,
        });
    };
    let [height, width] = numbers::<2>(header).ok_or_else(|| ParseError {
        line: 1,
        kind: ParseErrorKind::BadHeader {
            found: shown(header),
        },
    })?;
    if !(1..=MAX_SIDE).contains(&height) || !(1..=MAX_SIDE).contains(&width) {
        return Err(ParseError {
            line: 1,
            kind: ParseErrorKind::BadSize {
                height: height.into(),
                width: width.into(),
            },
        });
    }
    let mut tray = Tray {
        height,
        width,
        blocks: Vec::with_capacity(lines.len() - 1),
    };
    // Which block (by index) covers each cell, to find overlaps in O(area).
    let mut owner = vec![u32::MAX; (height * width) as usize];
    let mut block_lines = Vec::with_capacity(lines.len() - 1);
    for &(no, line) in &lines[1..] {
        let block = block_line(line, format, no)?;
        if !tray.contains(&block) {
            return Err(ParseError {
                line: no,
                kind: ParseErrorKind::Outside {
                    block,
                    height,
                    width,
                },
            });
        }
        let index = tray.blocks.len() as u32;
        for r in block.top..=block.bottom {
            for c in block.left..=block.right {
                let cell = &mut owner[(r * width + c) as usize];
                if *cell != u32::MAX {
                    let other = *cell as usize;
                    return Err(ParseError {
                        line: no,
                        kind: ParseErrorKind::Overlap {
                            block,
                            other: tray.blocks[other],
                            other_line: block_lines[other],
                        },
                    });
                }
                *cell = index;
            }
        }
        tray.blocks.push(block);
        block_lines.push(no);
    }
    Ok(tray)
}

/// Parses a goal file and checks every block lies inside `tray`. An empty
/// goal is valid (nothing to satisfy).
pub fn parse_goal(text: &[u8], format: Format, tray: &Tray) -> Result<Goal, ParseError> {
    let mut goal = Goal::default();
    for (no, line) in lines(text) {
        let block = block_line(line, format, no)?;
        if !tray.contains(&block) {
            return Err(ParseError {
                line: no,
                kind: ParseErrorKind::Outside {
                    block,
                    height: tray.height,
                    width: tray.width,
                },
            });
        }
        goal.blocks.push(block);
    }
    Ok(goal)
}

/// Parses a move list, one `r c r' c'` per line, with the line number of
/// each move. The first malformed line is the error. Unlike a puzzle file,
/// a move list has no blank lines anywhere, not even at the end (the staff
/// Checker stops with "Line too short"); only a missing final newline is
/// forgiven.
pub fn parse_moves(text: &[u8]) -> Result<Vec<(usize, Move)>, MoveLineError> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let pieces = if text.is_empty() {
        Vec::new()
    } else {
        body.split(|&b| b == b'\n').collect()
    };
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .map(|(no, line)| {
            numbers::<4>(line)
                .map(|[a, b, c, d]| (no, Move::new(a, b, c, d)))
                .ok_or_else(|| MoveLineError {
                    line: no,
                    found: shown(line),
                })
        })
        .collect()
}

/// Rewrites a tray file (or, with `goal`, a goal file) from one block
/// format to the other. A goal is read against the largest tray, so any
/// goal that parses converts.
pub fn convert(text: &[u8], goal: bool, from: Format, to: Format) -> Result<String, ParseError> {
    if goal {
        let any = Tray {
            height: MAX_SIDE,
            width: MAX_SIDE,
            blocks: Vec::new(),
        };
        parse_goal(text, from, &any).map(|g| format_blocks(&g.blocks, to))
    } else {
        parse_tray(text, from).map(|t| format_tray(&t, to))
    }
}

/// Writes a tray in `format`.
pub fn format_tray(tray: &Tray, format: Format) -> String {
    let mut out = format!("{} {}\n", tray.height, tray.width);
    out.push_str(&format_blocks(&tray.blocks, format));
    out
}

/// Writes block lines (a goal file) in `format`.
pub fn format_blocks(blocks: &[Block], format: Format) -> String {
    let mut out = String::with_capacity(blocks.len() * 12);
    for b in blocks {
        let line = match format {
            Format::Corners => b.to_string(),
            Format::SizeCorner => {
                let s = b.shape();
                format!("{} {} {} {}", s.height, s.width, b.top, b.left)
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tray_err(text: &str) -> String {
        parse_tray(text.as_bytes(), Format::Corners)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn parses_trays_goals_and_moves() {
        let tray = parse_tray(b"2 3\n0 0 0 0\r\n  1 1 1 2  \n\n", Format::Corners).unwrap();
        assert_eq!((tray.height, tray.width, tray.blocks.len()), (2, 3, 2));
        assert_eq!(tray.blocks[1], Block::new(1, 1, 1, 2));
        let goal = parse_goal(b"1 0 1 0", Format::Corners, &tray).unwrap();
        assert_eq!(goal.blocks, [Block::new(1, 0, 1, 0)]);
        assert!(
            parse_goal(b"", Format::Corners, &tray)
                .unwrap()
                .blocks
                .is_empty()
        );
        let moves = parse_moves(b"0 0 1 0\n1 1\t0 1\r\n").unwrap();
        assert_eq!(
            moves,
            [(1, Move::new(0, 0, 1, 0)), (2, Move::new(1, 1, 0, 1))]
        );
        assert_eq!(
            parse_moves(b"00 0 0 02").unwrap()[0].1,
            Move::new(0, 0, 0, 2)
        );
    }

    #[test]
    fn older_format_round_trips() {
        let old = parse_tray(b"3 3\n2 1 0 0\n1 2 2 1\n", Format::SizeCorner).unwrap();
        assert_eq!(old.blocks, [Block::new(0, 0, 1, 0), Block::new(2, 1, 2, 2)]);
        let new = format_tray(&old, Format::Corners);
        assert_eq!(new, "3 3\n0 0 1 0\n2 1 2 2\n");
        assert_eq!(
            format_tray(
                &parse_tray(new.as_bytes(), Format::Corners).unwrap(),
                Format::SizeCorner
            ),
            "3 3\n2 1 0 0\n1 2 2 1\n"
        );
    }

    #[test]
    fn tray_errors_name_the_line() {
        assert_eq!(
            tray_err(""),
            "line 1: expected the tray size `height width`, found end of file"
        );
        assert_eq!(
            tray_err("2 x\n"),
            "line 1: expected the tray size `height width`, found \"2 x\""
        );
        assert_eq!(
            tray_err("300 3\n"),
            "line 1: tray 300x3: each side must be 1 to 256"
        );
        assert_eq!(
            tray_err("0 3\n"),
            "line 1: tray 0x3: each side must be 1 to 256"
        );
        assert_eq!(tray_err("2 2\n\n0 0 0 0\n"), "line 2: empty line");
        assert_eq!(
            tray_err("2 2\n0 0 0 0 0\n"),
            "line 2: expected 4 non-negative integers (top left bottom right), found \"0 0 0 0 0\""
        );
        assert_eq!(
            tray_err("2 2\n1 1 0 0\n"),
            "line 2: block \"1 1 0 0\": its bottom-right corner is above or left of its top-left"
        );
        assert_eq!(
            tray_err("2 2\n0 0 0 2\n"),
            "line 2: block 0 0 0 2 lies outside the 2x2 tray"
        );
        assert_eq!(
            tray_err("2 2\n0 0 1 0\n1 0 1 1\n"),
            "line 3: block 1 0 1 1 overlaps block 0 0 1 0 of line 2"
        );
        assert_eq!(
            tray_err("2 2\n0 0 -1 0\n"),
            "line 2: expected 4 non-negative integers (top left bottom right), found \"0 0 -1 0\""
        );
    }

    #[test]
    fn move_errors() {
        for bad in [
            &b"1 2 3"[..],
            b"0 0 0 0 0",
            b"a b c d",
            b"0 0 -1 0",
            b"0 0 0 99999999999",
            b"+1 0 0 0",
            b"\n0 0 0 2",
        ] {
            assert!(
                parse_moves(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(
            parse_moves(b"0 0 0 1\n1 2 3\n").unwrap_err().to_string(),
            "line 2: expected 4 non-negative integers `r c r' c'`, found \"1 2 3\""
        );
        assert_eq!(parse_moves(b"\n0 0 0 2").unwrap_err().line, 1);
        // Blank lines at the end are blank lines too (the staff Checker's
        // "Line too short"); a missing final newline is fine.
        assert_eq!(parse_moves(b"\n").unwrap_err().line, 1);
        assert_eq!(parse_moves(b"0 0 0 2\n\n").unwrap_err().line, 2);
        assert_eq!(parse_moves(b"0 0 0 2\r\n \r\n").unwrap_err().line, 2);
        assert_eq!(parse_moves(b"").unwrap(), []);
        assert_eq!(parse_moves(b"0 0 0 2").unwrap().len(), 1);
        assert_eq!(
            parse_moves(b"0 0 0 2147483647").unwrap()[0].1.to_col,
            2147483647
        );
    }
}
