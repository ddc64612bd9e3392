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
    // A body too short for its header is named without the board's
    // memory (a 19-byte file may say 1x1000000000).
    if s.text.len() - s.pos < width * height {
        return Err(short(&mut s, width, height));
    }
    let mut board = Board::new(width, height);
    let stride = board.stride();
    let words = board.words_mut();
    for r in 0..height {
        let row = &mut words[r * stride..(r + 1) * stride];
        // Fast path: whole words of cells with nothing between them (the
        // usual file, one row a line); anything else (whitespace inside a
        // row, a bad byte, the end of the file) goes byte by byte below,
        // which also counts lines and names errors.
        let mut start = 0;
        if s.peek().is_some() {
            while start < width {
                let n = (width - start).min(64);
                let Some(bits) = s.text.get(s.pos..s.pos + n).and_then(cell_bits) else {
                    break;
                };
                row[start / 64] = bits;
                s.pos += n;
                start += n;
            }
        }
        for c in start..width {
            match s.peek() {
                Some(b'#') => row[c / 64] |= 1 << (c % 64),
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

/// The error a body of fewer bytes than its `width` x `height` cells
/// gives, found as [`parse_board`] would find it (a bad byte first, else
/// too few cells), without the board.
fn short(s: &mut Scanner<'_>, width: usize, height: usize) -> ParseError {
    // (Fewer bytes than cells: the end comes before the last cell.)
    let mut found = 0;
    while let Some(b) = s.peek() {
        if b != b'#' && b != b'O' {
            return s.error(ParseErrorKind::BadCell {
                found: Found::Byte(b),
            });
        }
        s.pos += 1;
        found += 1;
    }
    s.error(ParseErrorKind::TooFewCells {
        width,
        height,
        needed: width * height,
        found,
    })
}

/// The lights of up to 64 cells given as `#` and `O` only (bit i for
/// byte i), or `None` if any other byte is among them. Eight bytes at a
/// time in a u64 (SWAR): a fraction of a nanosecond per cell.
fn cell_bits(cells: &[u8]) -> Option<u64> {
    let mut bits = 0u64;
    let mut bad = 0u64;
    let mut eights = cells.chunks_exact(8);
    for (i, eight) in eights.by_ref().enumerate() {
        let x = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
        let (on, off) = (zero_bytes(x ^ ON_BYTES), zero_bytes(x ^ OFF_BYTES));
        bad |= !(on | off) & HIGH_BITS;
        bits |= gather(on) << (8 * i);
    }
    let done = cells.len() - eights.remainder().len();
    for (i, &b) in eights.remainder().iter().enumerate() {
        bits |= u64::from(b == b'#') << (done + i);
        bad |= u64::from((b != b'#') & (b != b'O'));
    }
    (bad == 0).then_some(bits)
}

const ON_BYTES: u64 = u64::from_ne_bytes([b'#'; 8]);
const OFF_BYTES: u64 = u64::from_ne_bytes([b'O'; 8]);
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that is zero (exact: no borrows
/// cross bytes).
fn zero_bytes(x: u64) -> u64 {
    let low = 0x7f7f_7f7f_7f7f_7f7f;
    !(((x & low) + low) | x) & HIGH_BITS
}

/// The high bits of the eight bytes packed into the low 8 bits, byte i to
/// bit i (every product term lands on its own bit, so nothing carries).
fn gather(high_bits: u64) -> u64 {
    ((high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
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

    #[test]
    fn a_body_shorter_than_its_header_is_named_without_the_board() {
        // 19 bytes saying a billion cells: the error, not the allocation
        // (the tools aborted under an address-space limit).
        assert_eq!(
            err("1x1000000000\n#\n#\n"),
            "line 4: board smaller than its WxH header: 1x1000000000 needs 1000000000 cells, found 2"
        );
        assert_eq!(
            err("30000x30000\n#O\nOx\n"),
            "line 3: invalid character 'x' (expected '#' or 'O')"
        );
        // Just short: the same words either way.
        assert_eq!(
            err("3x3\n#O#\nO#O\n"),
            "line 4: board smaller than its WxH header: 3x3 needs 9 cells, found 6"
        );
        assert_eq!(
            err("3x3\n#O#\nO#O\n  \n\n\n"),
            "line 7: board smaller than its WxH header: 3x3 needs 9 cells, found 6"
        );
    }

    #[test]
    fn long_rows_name_the_line_and_count_cells() {
        // Rows wider than a word go through the fast path until the bad byte.
        let mut text = String::from("130x4\n");
        for r in 0..4 {
            let mut row = "#".repeat(130);
            if r == 2 {
                row.replace_range(70..71, "x");
            }
            text += &row;
            text.push('\n');
        }
        assert_eq!(
            err(&text),
            "line 4: invalid character 'x' (expected '#' or 'O')"
        );
        let short = format!("130x2\n{}\n{}\n", "O".repeat(130), "#".repeat(100));
        assert_eq!(
            err(&short),
            "line 4: board smaller than its WxH header: 130x2 needs 260 cells, found 230"
        );
        let long = format!("64x1\n{}\n", "#".repeat(65));
        assert_eq!(
            err(&long),
            "line 2: board larger than its WxH header: '#' after the last of 64x1 cells"
        );
    }

    proptest::proptest! {
        /// The word-at-a-time path and the byte-by-byte path agree: a board
        /// reads the same however its cells are split by whitespace.
        #[test]
        fn whitespace_anywhere_reads_the_same_board(
            width in 1usize..200,
            height in 1usize..6,
            seed in proptest::prelude::any::<u64>(),
            breaks in proptest::collection::vec((0usize..1200, 0usize..4), 0..8),
        ) {
            let mut state = seed | 1;
            let board = Board::from_fn(width, height, |_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state & 1 == 1
            });
            let text = format_board(&board);
            proptest::prop_assert_eq!(&parse_board(text.as_bytes()).unwrap(), &board);
            let crlf = text.replace('\n', "\r\n");
            proptest::prop_assert_eq!(&parse_board(crlf.as_bytes()).unwrap(), &board);
            let mut spaced = text.clone().into_bytes();
            for (at, kind) in breaks {
                let at = at.min(spaced.len());
                let at = at.max(spaced.iter().position(|&b| b == b'\n').unwrap() + 1);
                spaced.insert(at, [b' ', b'\n', b'\t', b'\r'][kind]);
            }
            proptest::prop_assert_eq!(&parse_board(&spaced).unwrap(), &board);
        }
    }
}
