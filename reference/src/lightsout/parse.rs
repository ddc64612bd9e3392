//! Reading the CMU 15-122 board format: `WxH` (width first), then W*H cells,
//! `#` on and `O` off, row-major; whitespace anywhere is ignored (so CRLF is fine).
//!
//! The course reads single-digit W and H and at most 25 cells; multi-digit
//! dimensions are accepted here as an extension, up to [`MAX_CELLS`].

use std::fmt;
use std::path::Path;

use super::board::Board;
use crate::file::{FileError, Located, parse_file};

/// The largest board accepted, in cells (a 31622 x 31622 board; 125 MB of bits).
pub const MAX_CELLS: u64 = 1_000_000_000;

/// What is wrong with a board's text, and on which line (1-based).
pub type ParseError = Located<ParseErrorKind>;

/// The ways a board's text can be malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The file is empty or only whitespace.
    #[error("expected a WxH header, found end of file")]
    MissingHeader,
    /// The header is not `digits x digits`.
    #[error("invalid character {found} in the WxH header (expected {expected})")]
    BadHeader {
        /// The offending character, quoted, or `end of file`.
        found: Found,
        /// What the parser wanted there.
        expected: &'static str,
    },
    /// A dimension is zero.
    #[error("board dimensions must be at least 1x1, found {width}x{height}")]
    ZeroSize {
        /// Declared width.
        width: u64,
        /// Declared height.
        height: u64,
    },
    /// The declared board is larger than [`MAX_CELLS`].
    #[error("board {width}x{height} is larger than the {MAX_CELLS}-cell limit")]
    TooLarge {
        /// Declared width.
        width: u64,
        /// Declared height.
        height: u64,
    },
    /// A cell that is neither `#` nor `O`.
    #[error("invalid character {found} (expected '#' or 'O')")]
    BadCell {
        /// The offending character, quoted.
        found: Found,
    },
    /// The file ends before W*H cells.
    #[error(
        "board smaller than its WxH header: {width}x{height} needs {needed} cells, found {found}"
    )]
    TooFewCells {
        /// Declared width.
        width: usize,
        /// Declared height.
        height: usize,
        /// W*H.
        needed: usize,
        /// Cells read before the end of the file.
        found: usize,
    },
    /// Something other than whitespace follows the last cell.
    #[error("board larger than its WxH header: {found} after the last of {width}x{height} cells")]
    TrailingData {
        /// Declared width.
        width: usize,
        /// Declared height.
        height: usize,
        /// The first extra character, quoted.
        found: Found,
    },
}

/// A byte found in the input, shown quoted (or escaped when not printable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A byte.
    Byte(u8),
    /// The end of the input.
    Eof,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Byte(b) if b.is_ascii_graphic() => write!(f, "'{}'", *b as char),
            Found::Byte(b) => write!(f, "'{}'", b.escape_ascii()),
            Found::Eof => f.write_str("end of file"),
        }
    }
}

/// A board file that could not be read or parsed, naming the file.
pub type BoardFileError = FileError<ParseError>;

/// Reads and parses a board file.
pub fn read_board(path: &Path) -> Result<Board, BoardFileError> {
    parse_file(path, parse_board)
}

/// Parses a board from the bytes of a board file.
pub fn parse_board(text: &[u8]) -> Result<Board, ParseError> {
    let mut s = Scanner {
        text,
        pos: 0,
        line: 1,
    };
    if s.peek().is_none() {
        return Err(s.error(ParseErrorKind::MissingHeader));
    }
    let width = s.number("a digit")?;
    match s.peek() {
        Some(b'x') => s.pos += 1,
        other => return Err(s.bad_header(other, "'x'")),
    }
    let height = s.number("a digit")?;
    if width == 0 || height == 0 {
        return Err(s.error(ParseErrorKind::ZeroSize { width, height }));
    }
    if width.saturating_mul(height) > MAX_CELLS {
        return Err(s.error(ParseErrorKind::TooLarge { width, height }));
    }
    let (width, height) = (width as usize, height as usize);
    let mut board = Board::new(width, height);
    let stride = board.stride();
    let words = board.words_mut();
    for r in 0..height {
        for c in 0..width {
            match s.peek() {
                Some(b'#') => words[r * stride + c / 64] |= 1 << (c % 64),
                Some(b'O') => {}
                Some(b) => {
                    return Err(s.error(ParseErrorKind::BadCell {
                        found: Found::Byte(b),
                    }));
                }
                None => {
                    return Err(s.error(ParseErrorKind::TooFewCells {
                        width,
                        height,
                        needed: width * height,
                        found: r * width + c,
                    }));
                }
            }
            s.pos += 1;
        }
    }
    if let Some(b) = s.peek() {
        return Err(s.error(ParseErrorKind::TrailingData {
            width,
            height,
            found: Found::Byte(b),
        }));
    }
    Ok(board)
}

/// The text of a board file for `board`: the `WxH` header, then one line
/// of `#` and `O` per row.
pub fn format_board(board: &Board) -> String {
    let mut text = format!("{}x{}\n", board.width(), board.height());
    text.reserve((board.width() + 1) * board.height());
    for row in 0..board.height() {
        for col in 0..board.width() {
            text.push(if board.get(super::Cell { row, col }) {
                '#'
            } else {
                'O'
            });
        }
        text.push('\n');
    }
    text
}

/// A cursor over the bytes that skips whitespace and counts lines.
struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
}

impl Scanner<'_> {
    /// The next non-whitespace byte, without consuming it.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.text.get(self.pos) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {}
                _ => return Some(b),
            }
            self.pos += 1;
        }
        None
    }

    /// A run of decimal digits (after optional whitespace).
    fn number(&mut self, expected: &'static str) -> Result<u64, ParseError> {
        match self.peek() {
            Some(b) if b.is_ascii_digit() => {}
            other => return Err(self.bad_header(other, expected)),
        }
        let mut n: u64 = 0;
        while let Some(&b) = self.text.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            n = n.saturating_mul(10).saturating_add(u64::from(b - b'0'));
            self.pos += 1;
        }
        Ok(n)
    }

    fn bad_header(&self, found: Option<u8>, expected: &'static str) -> ParseError {
        let found = found.map_or(Found::Eof, Found::Byte);
        self.error(ParseErrorKind::BadHeader { found, expected })
    }

    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            line: self.line,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_board(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn parses_course_boards_including_crlf() {
        let b = parse_board(b"3x2\n#OO\n##O\n").unwrap();
        assert_eq!((b.width(), b.height()), (3, 2));
        assert_eq!(b.to_string(), "#00\n##0\n");
        let crlf = parse_board(b"5x5\r\nOOOOO\r\nOOOOO\r\nOO#OO\r\nOOOOO\r\nOOOOO\r\n").unwrap();
        assert_eq!(crlf.count_on(), 1);
        let spaced = parse_board(b" 2 x 2 # O\n\n O # ").unwrap();
        assert_eq!(spaced.to_string(), "#0\n0#\n");
    }

    #[test]
    fn format_round_trips() {
        let b = parse_board(b"3x2\n#OO\n##O\n").unwrap();
        assert_eq!(format_board(&b), "3x2\n#OO\n##O\n");
        assert_eq!(parse_board(format_board(&b).as_bytes()).unwrap(), b);
    }

    #[test]
    fn multi_digit_dimensions() {
        let mut text = String::from("12x10\n");
        for _ in 0..10 {
            text.push_str("#OOOOOOOOOOO\n");
        }
        let b = parse_board(text.as_bytes()).unwrap();
        assert_eq!((b.width(), b.height(), b.count_on()), (12, 10, 10));
    }

    #[test]
    fn error_messages_name_the_line() {
        assert_eq!(err(""), "line 1: expected a WxH header, found end of file");
        assert_eq!(
            err("\n\n"),
            "line 3: expected a WxH header, found end of file"
        );
        assert_eq!(
            err("5y5\n"),
            "line 1: invalid character 'y' in the WxH header (expected 'x')"
        );
        assert_eq!(
            err("x5\n"),
            "line 1: invalid character 'x' in the WxH header (expected a digit)"
        );
        assert_eq!(
            err("5x\n"),
            "line 2: invalid character end of file in the WxH header (expected a digit)"
        );
        assert_eq!(
            err("0x3\n"),
            "line 1: board dimensions must be at least 1x1, found 0x3"
        );
        assert_eq!(
            err("100000x100000\n"),
            "line 1: board 100000x100000 is larger than the 1000000000-cell limit"
        );
        assert_eq!(
            err("2x2\n#O\nOx\n"),
            "line 3: invalid character 'x' (expected '#' or 'O')"
        );
        assert_eq!(
            err("2x2\n#O\n0#\n"),
            "line 3: invalid character '0' (expected '#' or 'O')"
        );
        assert_eq!(
            err("3x2\n#OO\n#\n"),
            "line 4: board smaller than its WxH header: 3x2 needs 6 cells, found 4"
        );
        assert_eq!(
            err("2x1\n#O\nO\n"),
            "line 3: board larger than its WxH header: 'O' after the last of 2x1 cells"
        );
        assert_eq!(
            err("1x1\n\x01"),
            "line 2: invalid character '\\x01' (expected '#' or 'O')"
        );
    }
}
