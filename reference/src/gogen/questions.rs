//! The Imperial Gogen exam's functions. A case is one puzzle (exam form, or
//! board and words); masks in transcripts are `%08x` (the handout's 25 high
//! bits of a `uint32_t`), boards five lines of letters and `.`.
//!
//! The Part A functions are called on the *test masks* of a case: for a
//! puzzle, for each letter 'A' to 'Y' in turn, its cell alone when the
//! board holds it, else every cell the board leaves empty (rules (a) and
//! (b) of `update`); for a *mask case* (a file of masks, `%08x` one a
//! line, as `adapters/gogen-exam/masks/`: each edge mask alone,
//! `00000000`, `ffffff80`, `80000000` for cell 0,0, `00000080` for cell
//! 4,4, and families: every cell alone, every cell missing, every row and
//! column, 64 seeded random masks), those masks. The course judges each
//! function on all of them at once (the exam's marks are a function's).

use std::path::PathBuf;

use super::{Board, LetterMask, NUM_LETTERS, Puzzle, SIDE, read_puzzle, valid_solution};
use crate::family::{Grader, LoadError};

use crate::questions::{Question, Transcript};

const FORMS: &[&[&str]] = &[&["puzzle"], &["board", "words"]];

fn load(files: &[PathBuf]) -> Result<Puzzle, LoadError> {
    read_puzzle(files).map_err(LoadError::new)
}

fn exact(lines: Vec<String>) -> Transcript {
    Transcript::Exact(vec![lines])
}

fn hex(m: LetterMask) -> String {
    format!("{:08x}", m.0)
}

fn letters() -> impl Iterator<Item = u8> {
    (0..NUM_LETTERS as u8).map(|i| b'A' + i)
}

fn cells() -> impl Iterator<Item = (usize, usize)> {
    (0..SIDE * SIDE).map(|i| (i / SIDE, i % SIDE))
}

/// The test masks of a board (see the module's documentation).
pub fn test_masks(board: &Board) -> Vec<LetterMask> {
    let free = LetterMask(LetterMask::ALL.0 & !board.occupied().0);
    letters()
        .map(|l| match board.position(l) {
            Some((r, c)) => LetterMask::cell(r, c),
            None => free,
        })
        .collect()
}

/// The most masks a mask case holds (the driver's `MOST_MASKS`).
pub const MOST_MASKS: usize = 64;

/// The masks a mask case holds: lines of eight hex digits, one to
/// [`MOST_MASKS`] of them (blank lines aside).
pub fn read_masks(text: &str) -> Option<Vec<LetterMask>> {
    let masks: Option<Vec<LetterMask>> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|t| {
            (t.len() == 8 && t.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(t, 16).ok().map(LetterMask))
                .flatten()
        })
        .collect();
    masks.filter(|m| (1..=MOST_MASKS).contains(&m.len()))
}

/// A case's test masks: a mask case's, or a puzzle's.
fn case_masks(files: &[PathBuf]) -> Result<Vec<LetterMask>, LoadError> {
    if let [one] = files
        && let Ok(text) = std::fs::read_to_string(one)
        && let Some(masks) = read_masks(&text)
    {
        return Ok(masks);
    }
    Ok(test_masks(&load(files)?.board))
}

fn fixed(m: LetterMask) -> String {
    match m.fixed_pos() {
        Some((r, c)) => format!("1 {r} {c}"),
        None => "0".into(),
    }
}

/// `get_bit_value` (5 marks): per test mask, its 25 bits as `0`/`1`, row
/// by row.
pub const GET_BIT_VALUE: Question = Question {
    name: "gogen:get_bit_value",
    forms: FORMS,
    load: |f| {
        let masks = case_masks(f)?;
        let stub = vec!["0".repeat(SIDE * SIDE); masks.len()];
        Ok(exact(
            masks
                .into_iter()
                .map(|m| {
                    cells()
                        .map(|(r, c)| if m.get(r, c) { '1' } else { '0' })
                        .collect()
                })
                .collect(),
        )
        .with_stub(stub))
    },
};

/// `set_bit_value` (5 marks): per test mask, 25 masks: the mask with each
/// cell in turn set to the opposite of its value.
pub const SET_BIT_VALUE: Question = Question {
    name: "gogen:set_bit_value",
    forms: FORMS,
    load: |f| {
        let masks = case_masks(f)?;
        let stub = masks
            .iter()
            .map(|&m| vec![hex(m); SIDE * SIDE].join(" "))
            .collect();
        Ok(exact(
            masks
                .into_iter()
                .map(|m| {
                    cells()
                        .map(|(r, c)| {
                            let mut x = m;
                            x.set(r, c, !m.get(r, c));
                            hex(x)
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect(),
        )
        .with_stub(stub))
    },
};

/// `set_all_bits` (5 marks): per test mask, the mask after
/// `set_all_bits(true)`, then after `set_all_bits(false)`.
pub const SET_ALL_BITS: Question = Question {
    name: "gogen:set_all_bits",
    forms: FORMS,
    load: |f| {
        let masks = case_masks(f)?;
        let line = format!("{} {}", hex(LetterMask::ALL), hex(LetterMask::EMPTY));
        let stub = masks
            .iter()
            .map(|&m| format!("{} {}", hex(m), hex(m)))
            .collect();
        Ok(exact(vec![line; masks.len()]).with_stub(stub))
    },
};

/// `is_free_letter` (10 marks): per test mask, `1` or `0`.
pub const IS_FREE_LETTER: Question = Question {
    name: "gogen:is_free_letter",
    forms: FORMS,
    load: |f| {
        let masks = case_masks(f)?;
        let stub = vec!["0".to_string(); masks.len()];
        Ok(exact(
            masks
                .into_iter()
                .map(|m| if m.is_free() { "1" } else { "0" }.to_string())
                .collect(),
        )
        .with_stub(stub))
    },
};

/// `get_fixed_letter_pos` (10 marks): per test mask, `1 row col` or `0`.
pub const GET_FIXED_LETTER_POS: Question = Question {
    name: "gogen:get_fixed_letter_pos",
    forms: FORMS,
    load: |f| {
        let masks = case_masks(f)?;
        let stub = vec!["0".to_string(); masks.len()];
        Ok(exact(masks.into_iter().map(fixed).collect()).with_stub(stub))
    },
};

/// `intersect_neighbourhoods` (15 marks): for each word, each pair of
/// adjacent letters (a, b): the test masks of a and b after the call; on
/// a mask case, each mask with the next (the last with the first).
pub const INTERSECT_NEIGHBOURHOODS: Question = Question {
    name: "gogen:intersect_neighbourhoods",
    forms: FORMS,
    load: |f| {
        let (mut lines, mut stub) = (Vec::new(), Vec::new());
        let mut pair = |mut a: LetterMask, mut b: LetterMask| {
            stub.push(format!("{} {}", hex(a), hex(b)));
            LetterMask::intersect_neighbourhoods(&mut a, &mut b);
            lines.push(format!("{} {}", hex(a), hex(b)));
        };
        // A mask case: each mask with the next, the last with the first.
        if let [one] = f
            && let Some(masks) = std::fs::read_to_string(one)
                .ok()
                .and_then(|t| read_masks(&t))
        {
            for (i, &a) in masks.iter().enumerate() {
                pair(a, masks[(i + 1) % masks.len()]);
            }
            return Ok(exact(lines).with_stub(stub));
        }
        let p = load(f)?;
        let masks = test_masks(&p.board);
        for word in &p.words {
            for two in word.as_bytes().windows(2) {
                pair(
                    masks[usize::from(two[0] - b'A')],
                    masks[usize::from(two[1] - b'A')],
                );
            }
        }
        Ok(exact(lines).with_stub(stub))
    },
};

/// `get_letter_position` (7 marks): per letter 'A' to 'Y' on the puzzle's
/// board, `1 row col` (its first cell, row by row) or `0`.
pub const GET_LETTER_POSITION: Question = Question {
    name: "gogen:get_letter_position",
    forms: FORMS,
    load: |f| {
        let p = load(f)?;
        Ok(exact(
            letters()
                .map(|l| match p.board.position(l) {
                    Some((r, c)) => format!("1 {r} {c}"),
                    None => "0".into(),
                })
                .collect(),
        )
        .with_stub(vec!["0".to_string(); NUM_LETTERS]))
    },
};

/// The boards `valid_solution` is asked about: the puzzle's board, then it
/// with (0,0) and (4,4) swapped, with (0,0) and (0,1) swapped, and with
/// (2,2) overwritten by the letter at (0,0).
pub fn validity_boards(board: &Board) -> Vec<Board> {
    let mut out = vec![*board];
    let mut b = *board;
    let t = b.0[0][0];
    b.0[0][0] = b.0[4][4];
    b.0[4][4] = t;
    out.push(b);
    let mut b = *board;
    b.0[0].swap(0, 1);
    out.push(b);
    let mut b = *board;
    b.0[2][2] = b.0[0][0];
    out.push(b);
    out
}

/// `valid_solution` (10 marks): `1` or `0` for each of
/// [`validity_boards`] with the puzzle's words (best on full boards: the
/// `gogen/solved` suite). The function sees only a board and the words,
/// so a board is valid when every letter is on it once and every word can
/// be spelled, whatever letters the puzzle gave.
pub const VALID_SOLUTION: Question = Question {
    name: "gogen:valid_solution",
    forms: FORMS,
    load: |f| {
        let given = load(f)?;
        let p = Puzzle {
            board: Board::default(),
            words: given.words.clone(),
        };
        let boards = validity_boards(&given.board);
        Ok(exact(
            boards
                .iter()
                .map(|b| {
                    if valid_solution(&p, b).is_ok() {
                        "1"
                    } else {
                        "0"
                    }
                    .to_string()
                })
                .collect(),
        )
        .with_stub(vec!["0".to_string(); boards.len()]))
    },
};

/// `update` (15 marks): called on the puzzle's board with every mask all
/// ones: the board after (five lines), then the 25 masks. Rule (b) may read
/// the board as it is when each letter's turn comes, or as it was when the
/// call began: the handout allows both, and both are accepted.
pub const UPDATE: Question = Question {
    name: "gogen:update",
    forms: FORMS,
    load: |f| {
        let p = load(f)?;
        let mut stub: Vec<String> = p.board.to_string().lines().map(String::from).collect();
        stub.extend(std::iter::repeat_n(hex(LetterMask::ALL), NUM_LETTERS));
        Ok(
            Transcript::Exact(vec![update(&p.board, false), update(&p.board, true)])
                .with_stub(stub),
        )
    },
};

/// The handout's `update` on all-ones masks, letter by letter; `snapshot`
/// reads the occupied cells once, before the first letter.
fn update(board: &Board, snapshot: bool) -> Vec<String> {
    let mut board = *board;
    let start = board.occupied();
    let mut masks = [LetterMask::ALL; NUM_LETTERS];
    for (i, l) in letters().enumerate() {
        match board.position(l) {
            Some((r, c)) => masks[i] = LetterMask::cell(r, c),
            None => {
                let taken = if snapshot { start } else { board.occupied() };
                masks[i].0 &= !taken.0;
                if let Some((r, c)) = masks[i].fixed_pos() {
                    board.0[r][c] = Some(l);
                }
            }
        }
    }
    let mut lines: Vec<String> = board.to_string().lines().map(String::from).collect();
    lines.extend(masks.iter().map(|&m| hex(m)));
    lines
}

/// Every question of the family, in the order the handouts ask them.
pub static QUESTIONS: &[&dyn Grader] = &[
    &GET_BIT_VALUE,
    &SET_BIT_VALUE,
    &SET_ALL_BITS,
    &IS_FREE_LETTER,
    &GET_FIXED_LETTER_POS,
    &INTERSECT_NEIGHBOURHOODS,
    &GET_LETTER_POSITION,
    &VALID_SOLUTION,
    &UPDATE,
];

#[cfg(test)]
mod tests {
    use crate::family::{Case, Check};

    use super::*;

    fn case(q: &Question, text: &str) -> Transcript {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.txt");
        std::fs::write(&p, text).unwrap();
        (q.load)(&[p]).unwrap()
    }

    const SOLVED: &str = "ABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWXY\n2\nAGMSY\nEIMQU\n";

    #[test]
    fn transcripts_follow_the_handout() {
        let t = case(&GET_FIXED_LETTER_POS, SOLVED);
        let out = t.answer().stdout;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 25);
        assert_eq!((lines[0], lines[24]), ("1 0 0", "1 4 4"));
        // The edge masks, each a case of its own.
        for (mask, fixed) in [
            ("00000000", "0"),
            ("ffffff80\n", "0"),
            ("80000000\n", "1 0 0"),
            ("00000080", "1 4 4"),
        ] {
            let t = case(&GET_FIXED_LETTER_POS, mask);
            assert_eq!(t.answer().stdout, format!("{fixed}\n"), "{mask}");
        }
        assert_eq!(
            case(&IS_FREE_LETTER, "00000000").answer().stdout,
            "0\n",
            "no cell: not free (fixed nowhere either)"
        );
        assert!(read_masks("0000000").is_none() && read_masks("ABCDE\nFGHIJ").is_none());
        assert_eq!(
            read_masks("80000000\n\nffffff80\n"),
            Some(vec![LetterMask(0x8000_0000), LetterMask::ALL])
        );
        assert!(read_masks(&"00000080\n".repeat(MOST_MASKS + 1)).is_none());
        let t = case(&VALID_SOLUTION, SOLVED);
        assert_eq!(t.answer().stdout, "1\n0\n1\n0\n");
        // Swapping A and B keeps every word spelled: valid, though the
        // puzzle gave A at (0,0) (the function never sees the givens).
        let t = case(
            &VALID_SOLUTION,
            "ABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWXY\n1\nBC\n",
        );
        assert_eq!(t.answer().stdout, "1\n1\n0\n0\n");
        let t = case(&GET_BIT_VALUE, SOLVED);
        assert!(
            t.answer()
                .stdout
                .starts_with("1000000000000000000000000\n0100000000000000000000000\n")
        );
        assert_eq!(
            case(&SET_ALL_BITS, SOLVED).answer().stdout.lines().next(),
            Some("ffffff80 00000000")
        );
        // Figure 5 to 7 of the handout, through the masks of two letters.
        let t = case(
            &INTERSECT_NEIGHBOURHOODS,
            "A....\n.....\n.....\n.....\n....B\n1\nAB\n",
        );
        assert_eq!(t.answer().stdout, "00000000 00000000\n");
    }

    #[test]
    fn update_accepts_both_readings_of_rule_b() {
        // 24 letters given: the last one is fixed by rule (c).
        let board = "ABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWX.\n0\n";
        let t = case(&UPDATE, board);
        let live = update(&read_puzzle_text(board).board, false);
        assert_eq!(live[4], "UVWXY", "rule (c) places Y");
        assert_eq!(live.last().map(String::as_str), Some("00000080"));
        let text = live.join("\n");
        assert_eq!(t.judge(text.as_bytes(), 0).check, Check::Accepted);
        let snap = update(&read_puzzle_text(board).board, true).join("\n");
        assert_eq!(t.judge(snap.as_bytes(), 0).check, Check::Accepted);
        let wrong = text.replace("00000080", "ffffff80");
        assert_eq!(t.judge(wrong.as_bytes(), 0).check, Check::WrongAnswer);
    }

    /// What a stub prints (a `bool` one's false, a `void` one's nothing
    /// done) passes exactly where a correct function's transcript is the
    /// same.
    #[test]
    fn stubs_pass_where_the_answer_is_what_they_print() {
        let stub_passes = |q: &Question, text: &str| {
            let t = case(q, text);
            let stub = t.stubs().pop().expect("every question knows its stub");
            t.judge(stub.stdout.as_bytes(), stub.exit_code.into()).check == Check::Accepted
        };
        let empty = ".....\n.....\n.....\n.....\n.....\n1\nAB\n";
        assert!(stub_passes(&GET_LETTER_POSITION, empty));
        assert!(!stub_passes(&GET_LETTER_POSITION, SOLVED));
        // An unfinished board is never valid, a solved one is.
        assert!(stub_passes(&VALID_SOLUTION, empty));
        assert!(!stub_passes(&VALID_SOLUTION, SOLVED));
        // update on an empty board leaves every mask all ones.
        assert!(stub_passes(&UPDATE, empty));
        assert!(!stub_passes(&UPDATE, SOLVED));
        // The empty mask: no bit set, no bit to flip back, not free.
        assert!(stub_passes(&GET_BIT_VALUE, "00000000"));
        assert!(!stub_passes(&SET_BIT_VALUE, "00000000"));
        assert!(stub_passes(&IS_FREE_LETTER, "00000000"));
        assert!(!stub_passes(&IS_FREE_LETTER, "ffffff80"));
        assert!(!stub_passes(&SET_ALL_BITS, "ffffff80"));
        // The stub's transcript is not the answer.
        let t = case(&VALID_SOLUTION, SOLVED);
        assert_eq!(t.answer().stdout, "1\n0\n1\n0\n");
        assert_eq!(t.stubs()[0].stdout, "0\n0\n0\n0\n");
    }

    fn read_puzzle_text(text: &str) -> Puzzle {
        crate::gogen::parse_exam(text).unwrap()
    }
}
