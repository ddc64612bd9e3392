//! Reading Gogen puzzles in three forms: the exam's single file (five board
//! lines with `.` for an empty cell, then the number of words, then the
//! words, separated by white space), the newspaper's single file (the
//! Evening Standard's nine given letters as three lines of three, a blank
//! line, then the words, one a line), and the two-file form (a board file
//! and a words file, one word per line). Also a candidate's solution: five
//! lines of five letters.

use std::path::{Path, PathBuf};

use super::board::{Board, SIDE};
use crate::file::{self, FileError, Located};

/// A puzzle: the given letters and the words to spell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The board with its given letters.
    pub board: Board,
    /// The words, upper case, letters 'A' to 'Y'.
    pub words: Vec<String>,
}

/// What is wrong with a puzzle file, and on which line (1-based).
pub type ParseError = Located<ParseErrorKind>;

/// The ways a Gogen file can be malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    /// Fewer than five board lines.
    #[error("the board needs 5 rows, found {found}")]
    TooFewRows {
        /// Rows found.
        found: usize,
    },
    /// A board line that is not five cells.
    #[error("a board row needs 5 cells, found {found:?}")]
    RowLength {
        /// The row as written.
        found: String,
    },
    /// A cell that is not a letter 'A' to 'Y' or `.`.
    #[error("{found:?} is not a letter A to Y or '.'")]
    BadCell {
        /// The character.
        found: char,
    },
    /// A letter given in two cells.
    #[error("letter {letter} is given twice (also on line {first_line})")]
    Repeated {
        /// The letter.
        letter: char,
        /// Where it was first given.
        first_line: usize,
    },
    /// No word count after the board.
    #[error("expected the number of words, found end of file")]
    MissingCount,
    /// A word count that is not a number.
    #[error("expected the number of words, found {found:?}")]
    BadCount {
        /// The token.
        found: String,
    },
    /// A different number of words than declared.
    #[error("the file declares {declared} words but has {found}")]
    CountMismatch {
        /// Declared.
        declared: usize,
        /// Present.
        found: usize,
    },
    /// A word with a character outside 'A' to 'Y'.
    #[error("word {word:?}: {found:?} is not a letter A to Y")]
    BadWord {
        /// The word.
        word: String,
        /// The character.
        found: char,
    },
    /// A newspaper-form file ends before its three rows of givens.
    #[error("the newspaper form needs 3 rows of given letters, found {found}")]
    TooFewGivenRows {
        /// Rows found.
        found: usize,
    },
    /// A newspaper-form row of given letters is not three characters.
    #[error("a row of given letters needs 3, found {found:?}")]
    GivenRowLength {
        /// The line as written.
        found: String,
    },
    /// The newspaper form's three rows of givens are not followed by a
    /// blank line.
    #[error("expected a blank line after the 3 rows of given letters, found {found:?}")]
    NoBlankLine {
        /// The line as written.
        found: String,
    },
    /// Something after the fifth row of a board file or a solution.
    #[error("unexpected {found:?} after the 5 board rows")]
    Trailing {
        /// The line.
        found: String,
    },
}

/// A puzzle that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PuzzleFileError {
    /// A file unreadable or malformed.
    #[error(transparent)]
    File(#[from] FileError<ParseError>),
    /// Neither one file nor two.
    #[error("a Gogen puzzle is one file (PUZZLE) or two (BOARD WORDS), got {0}")]
    FileCount(usize),
}

fn err(line: usize, kind: ParseErrorKind) -> ParseError {
    ParseError { line, kind }
}

/// The numbered lines of a text, line ends and trailing blanks removed.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()))
}

/// Parses five board rows from the start of `text`; returns the board and
/// the number of lines used. `solution` allows any letter A-Z, and no
/// repetition check (the checker reports those as invalid solutions).
fn board_rows(text: &str, solution: bool) -> Result<(Board, usize), ParseError> {
    let mut board = Board::default();
    let mut seen = [0usize; 26];
    let mut rows = 0;
    for (no, line) in lines(text) {
        if rows == SIDE {
            break;
        }
        let cells: Vec<char> = line.trim_start().chars().collect();
        if cells.len() != SIDE {
            return Err(err(no, ParseErrorKind::RowLength { found: line.into() }));
        }
        for (c, &ch) in cells.iter().enumerate() {
            let ok = ch == '.' || (ch.is_ascii_uppercase() && (solution || ch != 'Z'));
            if !ok {
                return Err(err(no, ParseErrorKind::BadCell { found: ch }));
            }
            if ch == '.' {
                continue;
            }
            if solution {
                seen[usize::from(ch as u8 - b'A')] = no;
            } else {
                first_time(&mut seen, ch, no)?;
            }
            board.0[rows][c] = Some(ch as u8);
        }
        rows += 1;
    }
    if rows < SIDE {
        let last = lines(text).count().max(1);
        return Err(err(last, ParseErrorKind::TooFewRows { found: rows }));
    }
    Ok((board, rows))
}

fn check_word(word: &str, line: usize) -> Result<String, ParseError> {
    match word.chars().find(|&c| !('A'..='Y').contains(&c)) {
        Some(found) => Err(err(
            line,
            ParseErrorKind::BadWord {
                word: word.into(),
                found,
            },
        )),
        None => Ok(word.into()),
    }
}

/// Parses the exam's single-file form.
pub fn parse_exam(text: &str) -> Result<Puzzle, ParseError> {
    let (board, used) = board_rows(text, false)?;
    let mut tokens = lines(text)
        .skip(used)
        .flat_map(|(no, l)| l.split_whitespace().map(move |t| (no, t)));
    let (count_line, count) = tokens
        .next()
        .ok_or_else(|| err(lines(text).count().max(1), ParseErrorKind::MissingCount))?;
    let declared: usize = count.parse().map_err(|_| {
        err(
            count_line,
            ParseErrorKind::BadCount {
                found: count.into(),
            },
        )
    })?;
    let words = tokens
        .map(|(no, w)| check_word(w, no))
        .collect::<Result<Vec<_>, _>>()?;
    if words.len() != declared {
        let last = lines(text).count().max(1);
        return Err(err(
            last,
            ParseErrorKind::CountMismatch {
                declared,
                found: words.len(),
            },
        ));
    }
    Ok(Puzzle { board, words })
}

/// Records given letter `ch` on line `no`; an error if it was given before
/// (`seen` holds each letter's first line, 0 for none).
fn first_time(seen: &mut [usize; 26], ch: char, no: usize) -> Result<(), ParseError> {
    let i = usize::from(ch as u8 - b'A');
    if seen[i] != 0 {
        return Err(err(
            no,
            ParseErrorKind::Repeated {
                letter: ch,
                first_line: seen[i],
            },
        ));
    }
    seen[i] = no;
    Ok(())
}

/// Parses the newspaper form: three lines of three given letters (the
/// cells of rows and columns 0, 2 and 4; `.` for none), a blank line, then
/// the words, one a line (blank lines ignored).
pub fn parse_newspaper(text: &str) -> Result<Puzzle, ParseError> {
    let mut board = Board::default();
    let mut seen = [0usize; 26];
    let mut it = lines(text);
    for r in 0..3 {
        let Some((no, line)) = it.next() else {
            let last = lines(text).count().max(1);
            return Err(err(last, ParseErrorKind::TooFewGivenRows { found: r }));
        };
        let cells: Vec<char> = line.trim().chars().collect();
        if cells.len() != 3 {
            return Err(err(
                no,
                ParseErrorKind::GivenRowLength { found: line.into() },
            ));
        }
        for (c, &ch) in cells.iter().enumerate() {
            if ch == '.' {
                continue;
            }
            if !('A'..='Y').contains(&ch) {
                return Err(err(no, ParseErrorKind::BadCell { found: ch }));
            }
            first_time(&mut seen, ch, no)?;
            board.0[2 * r][2 * c] = Some(ch as u8);
        }
    }
    match it.next() {
        Some((_, l)) if l.trim().is_empty() => {}
        Some((no, l)) => return Err(err(no, ParseErrorKind::NoBlankLine { found: l.into() })),
        None => {}
    }
    let words = it
        .map(|(no, l)| (no, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(no, w)| check_word(w, no))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Puzzle { board, words })
}

/// Whether a single-file puzzle is in the newspaper form: its first line
/// holds three characters (the exam form's holds five).
pub fn is_newspaper(text: &str) -> bool {
    lines(text)
        .next()
        .is_some_and(|(_, l)| l.trim().chars().count() == 3)
}

/// Parses a single-file puzzle in either form (told apart by its first
/// line).
pub fn parse_single(text: &str) -> Result<Puzzle, ParseError> {
    if is_newspaper(text) {
        parse_newspaper(text)
    } else {
        parse_exam(text)
    }
}

/// The newspaper form's text for a puzzle whose given letters are all on
/// the even rows and columns (`None` otherwise).
pub fn format_newspaper(puzzle: &Puzzle) -> Option<String> {
    let b = &puzzle.board;
    let odd = (0..SIDE * SIDE).any(|i| {
        let (r, c) = (i / SIDE, i % SIDE);
        (r % 2 == 1 || c % 2 == 1) && b.0[r][c].is_some()
    });
    if odd {
        return None;
    }
    let mut out = String::new();
    for r in [0, 2, 4] {
        for c in [0, 2, 4] {
            out.push(b.0[r][c].map_or('.', char::from));
        }
        out.push('\n');
    }
    out.push('\n');
    for w in &puzzle.words {
        out.push_str(w);
        out.push('\n');
    }
    Some(out)
}

/// Parses a board file of the two-file form (five rows, nothing after).
pub fn parse_board_file(text: &str) -> Result<Board, ParseError> {
    let (board, used) = board_rows(text, false)?;
    trailing(text, used)?;
    Ok(board)
}

/// Parses a words file: one word per line, blank lines ignored.
pub fn parse_words_file(text: &str) -> Result<Vec<String>, ParseError> {
    lines(text)
        .map(|(no, l)| (no, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(no, w)| check_word(w, no))
        .collect()
}

/// Parses a candidate's solution: five rows of five letters (or `.`),
/// nothing after but blank lines.
pub fn parse_solution(text: &str) -> Result<Board, ParseError> {
    let start = text.len() - text.trim_start_matches(['\n', '\r']).len();
    let skipped = text[..start].matches('\n').count();
    let (board, used) =
        board_rows(&text[start..], true).map_err(|e| err(e.line + skipped, e.kind))?;
    trailing(&text[start..], used).map_err(|e| err(e.line + skipped, e.kind))?;
    Ok(board)
}

fn trailing(text: &str, used: usize) -> Result<(), ParseError> {
    match lines(text).skip(used).find(|(_, l)| !l.trim().is_empty()) {
        Some((no, l)) => Err(err(no, ParseErrorKind::Trailing { found: l.into() })),
        None => Ok(()),
    }
}

fn read(path: &Path) -> Result<String, FileError<ParseError>> {
    let bytes = file::read_file(path)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads a puzzle: one file (the exam or the newspaper form) or two
/// (board, words).
pub fn read_puzzle(files: &[PathBuf]) -> Result<Puzzle, PuzzleFileError> {
    match files {
        [one] => Ok(parse_single(&read(one)?).map_err(FileError::invalid(one))?),
        [board, words] => {
            let (b, w) = (read(board)?, read(words)?);
            Ok(Puzzle {
                board: parse_board_file(&b).map_err(FileError::invalid(board))?,
                words: parse_words_file(&w).map_err(FileError::invalid(words))?,
            })
        }
        other => Err(PuzzleFileError::FileCount(other.len())),
    }
}

/// The exam form's text for a puzzle.
pub fn format_exam(puzzle: &Puzzle) -> String {
    let mut out = puzzle.board.to_string();
    out.push_str(&format!("{}\n", puzzle.words.len()));
    for w in &puzzle.words {
        out.push_str(w);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAM: &str = "N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n2\nBOXED\nFOAM\n";

    fn exam_err(text: &str) -> String {
        parse_exam(text).unwrap_err().to_string()
    }

    #[test]
    fn both_forms_parse_alike() {
        let p = parse_exam(EXAM).unwrap();
        assert_eq!(p.words, ["BOXED", "FOAM"]);
        assert_eq!(p.board.position(b'X'), Some((2, 2)));
        assert_eq!(format_exam(&p), EXAM);
        let b = parse_board_file("N.W.R\r\n.....\nS.X.B\n.....\nQ.M.P\n\n").unwrap();
        assert_eq!(b, p.board);
        assert_eq!(parse_words_file("BOXED\n\nFOAM\n").unwrap(), p.words);
        let spaced = parse_exam("N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n\n2 BOXED FOAM").unwrap();
        assert_eq!(spaced, p);
    }

    #[test]
    fn malformed_puzzles_name_the_line() {
        assert_eq!(
            exam_err("N.W.R\n....\n"),
            "line 2: a board row needs 5 cells, found \"....\""
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n"),
            "line 2: the board needs 5 rows, found 2"
        );
        assert_eq!(
            exam_err("N.W.Z\n.....\n.....\n.....\n.....\n0\n"),
            "line 1: 'Z' is not a letter A to Y or '.'"
        );
        assert_eq!(
            exam_err("N.W.n\n.....\n.....\n.....\n.....\n0\n"),
            "line 1: 'n' is not a letter A to Y or '.'"
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n..N..\n.....\n.....\n0\n"),
            "line 3: letter N is given twice (also on line 1)"
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n.....\n.....\n.....\n"),
            "line 5: expected the number of words, found end of file"
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n.....\n.....\n.....\ntwo\n"),
            "line 6: expected the number of words, found \"two\""
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n.....\n.....\n.....\n3\nAB\nCD\n"),
            "line 8: the file declares 3 words but has 2"
        );
        assert_eq!(
            exam_err("N.W.R\n.....\n.....\n.....\n.....\n1\nFIZZ\n"),
            "line 7: word \"FIZZ\": 'Z' is not a letter A to Y"
        );
        assert_eq!(
            parse_words_file("OK\nno\n").unwrap_err().to_string(),
            "line 2: word \"no\": 'n' is not a letter A to Y"
        );
        assert_eq!(
            parse_board_file("N.W.R\n.....\n.....\n.....\n.....\nEXTRA\n")
                .unwrap_err()
                .to_string(),
            "line 6: unexpected \"EXTRA\" after the 5 board rows"
        );
    }

    #[test]
    fn solutions_allow_any_capital_letter() {
        let s = parse_solution("\nNGWKR\nTICED\nSYXVB\nHUAOF\nQJMZP\n").unwrap();
        assert_eq!(s.0[4][3], Some(b'Z'));
        assert_eq!(
            parse_solution("NGWKR\nTICED\n").unwrap_err().to_string(),
            "line 2: the board needs 5 rows, found 2"
        );
    }
}

#[cfg(test)]
mod newspaper_tests {
    use super::*;

    #[test]
    fn the_newspaper_form_and_its_errors() {
        let p = parse_single("CBK\r\nDJW\r\nTQX\r\n\r\nAMID\r\nBARK\r\n").unwrap();
        assert_eq!(p.board.to_string(), "C.B.K\n.....\nD.J.W\n.....\nT.Q.X\n");
        assert_eq!(p.words, ["AMID", "BARK"]);
        assert_eq!(
            format_newspaper(&p).unwrap(),
            "CBK\nDJW\nTQX\n\nAMID\nBARK\n"
        );
        assert!(is_newspaper("CBK\n") && !is_newspaper("C.B.K\n"));
        let e = |t: &str| parse_newspaper(t).unwrap_err().to_string();
        assert_eq!(
            e("CBK\nDJ\n"),
            "line 2: a row of given letters needs 3, found \"DJ\""
        );
        assert_eq!(
            e("CBK\nDJW\nTQX\nAMID\n"),
            "line 4: expected a blank line after the 3 rows of given letters, found \"AMID\""
        );
        assert_eq!(
            e("CBK\nDJW\nTQC\n\n"),
            "line 3: letter C is given twice (also on line 1)"
        );
        assert_eq!(e("CBK\nDJZ\n"), "line 2: 'Z' is not a letter A to Y or '.'");
        assert_eq!(
            e("CBK\nDJW\nTQX\n\nAM1D\n"),
            "line 5: word \"AM1D\": '1' is not a letter A to Y"
        );
        assert_eq!(
            e("CBK\n"),
            "line 1: the newspaper form needs 3 rows of given letters, found 1"
        );
        // The exam form is still read as it was.
        assert!(parse_single("A....\n.....\n.....\n.....\n.....\n1\nAB\n").is_ok());
        // A puzzle with a given off the 3x3 grid has no newspaper form.
        let off = parse_exam(".A...\n.....\n.....\n.....\n.....\n0\n").unwrap();
        assert!(format_newspaper(&off).is_none());
    }
}
