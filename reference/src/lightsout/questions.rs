//! Lights Out questions (CIS 521's `LightsOutPuzzle` methods, 15-110's Ruby
//! functions). A case is one board file; boards in transcripts are their
//! rows of `#` (on) and `O` (off), top to bottom, as in board files.

use std::collections::HashSet;
use std::path::PathBuf;

use super::{Board, Cell, Solver, read_board, rng, uniform};
use crate::family::{Grader, LoadError};

use crate::questions::{Question, Transcript};

const FORMS: &[&[&str]] = &[&["board"]];

/// How many boards `scramble` and `rand_board` transcripts hold.
pub const SCRAMBLES: usize = 40;
/// How many boards a `rand_board` transcript holds.
pub const RANDOM_BOARDS: usize = 200;

fn load(files: &[PathBuf]) -> Result<Board, LoadError> {
    match files {
        [f] => read_board(f).map_err(LoadError::new),
        _ => Err(LoadError::msg("a Lights Out question takes one board file")),
    }
}

/// `get_board` (CIS 521 Q1): the board as given.
pub const GET_BOARD: Question = Question {
    name: "lightsout:get_board",
    forms: FORMS,
    load: |f| Ok(Transcript::Exact(vec![rows(&load(f)?)])),
};

/// `create_puzzle(rows, cols)` (Q2): an all-off board of the board's size.
pub const CREATE_PUZZLE: Question = Question {
    name: "lightsout:create_puzzle",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        Ok(Transcript::Exact(vec![rows(&Board::new(
            b.width(),
            b.height(),
        ))]))
    },
};

/// `perform_move` (Q3) and 15-110's `select!`: for every cell, row by row,
/// a line `r c` and the board after pressing it on a fresh copy.
pub const PERFORM_MOVE: Question = Question {
    name: "lightsout:perform_move",
    forms: FORMS,
    load: |f| Ok(Transcript::Exact(vec![every_press(&load(f)?)])),
};

/// `successors` (Q7): the successors sorted by move, each a line `r c` and
/// its board (the adapter sorts; the count must be rows x cols).
pub const SUCCESSORS: Question = Question {
    name: "lightsout:successors",
    forms: FORMS,
    load: |f| Ok(Transcript::Exact(vec![every_press(&load(f)?)])),
};

/// `is_solved` (Q5) and 15-110's `all_out?`: `true`/`false` for the board,
/// then for an all-off board of its size.
pub const IS_SOLVED: Question = Question {
    name: "lightsout:is_solved",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        Ok(Transcript::Exact(vec![vec![
            b.is_solved().to_string(),
            "true".into(),
        ]]))
    },
};

/// `copy` (Q6): the copy's board; the original's after pressing (0, 0) on
/// the copy (unchanged); the copy's after pressing the last cell on the
/// original (only its own press).
pub const COPY: Question = Question {
    name: "lightsout:copy",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        let mut pressed = b.clone();
        pressed.press(Cell { row: 0, col: 0 });
        let mut lines = rows(&b);
        lines.extend(rows(&b));
        lines.extend(rows(&pressed));
        Ok(Transcript::Exact(vec![lines]))
    },
};

/// 15-110's `solvable?`: `true` or `false` (the quiet-pattern answer on
/// 5x5 boards; the reference's on any size).
pub const SOLVABLE: Question = Question {
    name: "lightsout:solvable",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        let s = Solver::new(b.width(), b.height()).is_solvable(&b);
        Ok(Transcript::Exact(vec![vec![s.to_string()]]))
    },
};

/// 15-110's `display(board)` (2 points), drawn on a recording Canvas by
/// the adapter, which describes the drawing: `background COLOUR` (a
/// rectangle covering the canvas), then for each circle of the 5x5 grid
/// it finds, row by row, `r,c FILL LABEL LABEL-COLOUR` (the text centred
/// on it). The handout: a gray background, a yellow circle where the board
/// has 1 and black where 0, the coordinate "r,c" in red at each centre.
pub const DISPLAY: Question = Question {
    name: "lightsout:display",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        let mut lines = vec!["background gray".to_string()];
        for row in 0..b.height() {
            for col in 0..b.width() {
                let fill = if b.get(Cell { row, col }) {
                    "yellow"
                } else {
                    "black"
                };
                lines.push(format!("{row},{col} {fill} {row},{col} red"));
            }
        }
        Ok(Transcript::Exact(vec![lines]))
    },
};

/// The most bits a 15-122 bit vector driver may report (`limit L`): the
/// widest unsigned type.
const MOST_BITS: usize = 64;

/// A 15-122 driver's first line, `limit L`, read; then `expect(L)`
/// compared line for line with the rest.
fn with_limit(board: &Board, expect: fn(&Board, usize) -> Vec<String>) -> Transcript {
    let board = board.clone();
    let sample = {
        let mut lines = vec![format!("limit {}", 25)];
        lines.extend(expect(&board, 25));
        lines.iter().map(|l| format!("{l}\n")).collect()
    };
    Transcript::Judged {
        test: Box::new(move |got: &[&str]| {
            let limit = got
                .first()
                .and_then(|l| l.strip_prefix("limit "))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=MOST_BITS).contains(n))
                .ok_or_else(|| {
                    format!(
                        "line 1: expected \"limit L\" (1 to {MOST_BITS}), got {:?}",
                        got.first().copied().unwrap_or("the end of the output")
                    )
                })?;
            let want = expect(&board, limit);
            crate::questions::compare(&want, &got[1..]).map_err(|e| {
                // Lines counted from the driver's first.
                match e.strip_prefix("line ").and_then(|r| r.split_once(':')) {
                    Some((n, rest)) => match n.parse::<usize>() {
                        Ok(n) => format!("line {}:{rest}", n + 1),
                        Err(_) => e,
                    },
                    None => e,
                }
            })
        }),
        sample,
    }
}

/// The bit vector a 15-122 driver makes from a board under `limit`: from
/// `bitvector_new()`, index `i % limit` flipped for each lit cell `i`
/// (row-major).
fn board_bits(board: &Board, limit: usize) -> Vec<bool> {
    let mut bits = vec![false; limit];
    for row in 0..board.height() {
        for col in 0..board.width() {
            if board.get(Cell { row, col }) {
                bits[(row * board.width() + col) % limit] ^= true;
            }
        }
    }
    bits
}

fn bit_line(name: &str, bits: impl IntoIterator<Item = bool>) -> String {
    let bits: String = bits
        .into_iter()
        .map(|b| if b { '1' } else { '0' })
        .collect();
    format!("{name} {bits}")
}

/// 15-122 Tasks 1-3: the course's `lib/bitvector.h` interface, driven by
/// our bit vector test driver (`courses/cmu15122/tests/bitvector-test.c`)
/// built with the student's `bitvector.c` at some `BITVECTOR_LIMIT` and
/// unsigned type. After `limit L`: `new` (the bits of `bitvector_new()`),
/// `board` (the board's bits, [`board_bits`]), `complement` (every index
/// flipped), `board` again (flips make new vectors), three `equal` lines
/// (the board built in reverse order: 1; board and complement: 0; two new
/// vectors: 1), `flip-differs` (per index: the board and the board with
/// it flipped differ) and `flip-twice` (flipped twice: equal again).
pub const BITVECTOR: Question = Question {
    name: "lightsout:bitvector",
    forms: FORMS,
    load: |f| {
        Ok(with_limit(&load(f)?, |board, limit| {
            let bits = board_bits(board, limit);
            vec![
                bit_line("new", vec![false; limit]),
                bit_line("board", bits.iter().copied()),
                bit_line("complement", bits.iter().map(|b| !b)),
                bit_line("board", bits.iter().copied()),
                "equal 1".into(),
                "equal 0".into(),
                "equal 1".into(),
                bit_line("flip-differs", vec![true; limit]),
                bit_line("flip-twice", vec![true; limit]),
            ]
        }))
    },
};

/// What 15-122's board hash table driver stores with the board itself.
pub const BOARD_HT_TEST: usize = 200;

/// 15-122 Task 4: the course's `board-ht.h` interface (`ht_new`,
/// `ht_insert`, `ht_lookup`), driven by our driver
/// (`courses/cmu15122/tests/board-ht-test.c`) built with the student's
/// `board-ht.c` and a bool-array bit vector. The table is made with
/// capacity 4 (it must grow); the board's bit vector with index `j`
/// flipped is inserted for every even `j` below the limit (`test` = `j`),
/// then the board (`test` = 200). Every lookup is by a freshly built,
/// equal vector. After `limit L`: `j: T` or `j: none` for each `j`, then
/// `board: 200` and `complement: none`.
pub const BOARD_HT: Question = Question {
    name: "lightsout:board-ht",
    forms: FORMS,
    load: |f| {
        Ok(with_limit(&load(f)?, |_, limit| {
            let mut lines: Vec<String> = (0..limit)
                .map(|j| {
                    if j % 2 == 0 {
                        format!("{j}: {j}")
                    } else {
                        format!("{j}: none")
                    }
                })
                .collect();
            lines.push(format!("board: {BOARD_HT_TEST}"));
            lines.push("complement: none".into());
            lines
        }))
    },
};

/// `scramble` (Q4): [`SCRAMBLES`] boards, each the board scrambled afresh.
/// Each must differ from the board by presses (so stay solvable exactly
/// when it was), and they must not all be the same.
pub const SCRAMBLE: Question = Question {
    name: "lightsout:scramble",
    forms: FORMS,
    load: |f| {
        let b = load(f)?;
        let solver = Solver::new(b.width(), b.height());
        let mut r = rng(521);
        let sample: String = (0..SCRAMBLES)
            .map(|_| {
                let presses = uniform(b.width(), b.height(), &mut r);
                let mut s = b.clone();
                s.apply_presses(&presses);
                rows(&s)
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
            })
            .collect();
        let varied = b.width() * b.height() - solver.nullity() >= 2;
        let board = b.clone();
        Ok(Transcript::Judged {
            test: Box::new(move |got| {
                let boards = boards(got, board.width(), board.height(), SCRAMBLES)?;
                for (i, s) in boards.iter().enumerate() {
                    let mut diff = s.clone();
                    diff.xor_with(&board);
                    if !solver.is_solvable(&diff) {
                        return Err(format!(
                            "board {} is not the board after presses (lights were toggled alone)",
                            i + 1
                        ));
                    }
                }
                if varied && boards.iter().collect::<HashSet<_>>().len() < 2 {
                    return Err(format!("all {SCRAMBLES} scrambles are the same board"));
                }
                Ok(())
            }),
            sample,
        })
    },
};

/// 15-110's `rand_board`: [`RANDOM_BOARDS`] 5x5 boards of 0s and 1s (the
/// adapter draws 1 as `#`, 0 as `O`, anything else as `?`); each cell must
/// be on in 30% to 70% of them (a fair coin is outside that about once in
/// 10^8 runs) and not all boards the same. The case's board is not used.
pub const RAND_BOARD: Question = Question {
    name: "lightsout:rand_board",
    forms: FORMS,
    load: |f| {
        load(f)?;
        let mut r = rng(15_110);
        let sample: String = (0..RANDOM_BOARDS)
            .map(|_| {
                let b = uniform(5, 5, &mut r);
                rows(&b)
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
            })
            .collect();
        Ok(Transcript::Judged {
            test: Box::new(|got| {
                let boards = boards(got, 5, 5, RANDOM_BOARDS)?;
                for row in 0..5 {
                    for col in 0..5 {
                        let on = boards.iter().filter(|b| b.get(Cell { row, col })).count();
                        let (lo, hi) = (RANDOM_BOARDS * 3 / 10, RANDOM_BOARDS * 7 / 10);
                        if !(lo..=hi).contains(&on) {
                            return Err(format!(
                                "cell ({row},{col}) is 1 on {on} of {RANDOM_BOARDS} boards (a fair draw: {lo} to {hi})"
                            ));
                        }
                    }
                }
                if boards.iter().collect::<HashSet<_>>().len() < 2 {
                    return Err("every board is the same".into());
                }
                Ok(())
            }),
            sample,
        })
    },
};

/// A board's rows of `#` and `O` (its board file without the header).
pub fn rows(b: &Board) -> Vec<String> {
    crate::lightsout::format_board(b)
        .lines()
        .skip(1)
        .map(String::from)
        .collect()
}

/// For every cell, row by row: `r c`, then the board after pressing it.
fn every_press(b: &Board) -> Vec<String> {
    let mut lines = Vec::new();
    for row in 0..b.height() {
        for col in 0..b.width() {
            let mut p = b.clone();
            p.press(Cell { row, col });
            lines.push(format!("{row} {col}"));
            lines.extend(rows(&p));
        }
    }
    lines
}

/// `count` boards of `width` x `height` read from consecutive rows.
fn boards(got: &[&str], width: usize, height: usize, count: usize) -> Result<Vec<Board>, String> {
    if got.len() != count * height {
        return Err(format!(
            "expected {count} boards of {height} rows ({} lines), got {} lines",
            count * height,
            got.len()
        ));
    }
    let mut out = Vec::with_capacity(count);
    for (i, chunk) in got.chunks(height).enumerate() {
        let mut b = Board::new(width, height);
        for (row, line) in chunk.iter().enumerate() {
            if line.len() != width || !line.bytes().all(|c| c == b'#' || c == b'O') {
                return Err(format!(
                    "line {}: expected {width} cells of '#' or 'O', got {line:?}",
                    i * height + row + 1
                ));
            }
            for (col, c) in line.bytes().enumerate() {
                if c == b'#' {
                    b.toggle(Cell { row, col });
                }
            }
        }
        out.push(b);
    }
    Ok(out)
}

/// A handout's examples (CIS 521's `>>>` sessions, a question's to a file:
/// `adapters/cis521-examples/`), run as written by the course's adapter:
/// `ok` for each example, in order (its `@ >>> SOURCE` labels aside).
pub const EXAMPLES: Question = Question {
    name: "lightsout:examples",
    forms: FORMS,
    load: |f| {
        let [file] = f else {
            return Err(LoadError::msg("a handout's examples are one file"));
        };
        let text = std::fs::read_to_string(file).map_err(LoadError::new)?;
        let examples = text
            .lines()
            .map(str::trim_start)
            .filter(|l| *l == ">>>" || l.starts_with(">>> "))
            .count();
        if examples == 0 {
            return Err(LoadError::msg(format!(
                "{}: no example (a `>>> ` line)",
                file.display()
            )));
        }
        Ok(Transcript::Exact(vec![vec!["ok".to_string(); examples]]))
    },
};

/// Every question of the family, in the order the handouts ask them.
pub static QUESTIONS: &[&dyn Grader] = &[
    &GET_BOARD,
    &CREATE_PUZZLE,
    &PERFORM_MOVE,
    &SCRAMBLE,
    &IS_SOLVED,
    &COPY,
    &SUCCESSORS,
    &RAND_BOARD,
    &SOLVABLE,
    &DISPLAY,
    &BITVECTOR,
    &BOARD_HT,
    &EXAMPLES,
    // A solver's moves judged as 15-122's pipe into loplayer reads them.
    &crate::family::Adapter::<super::LoPlayer>::NEW,
];

#[cfg(test)]
mod tests {
    use crate::family::{Case, Check};

    use super::*;

    #[test]
    fn bit_vector_transcripts_follow_the_limit_the_driver_reports() {
        let t = case(&BITVECTOR, "3x2\n#O#\nOO#\n");
        let at = |limit: usize, board: &str, complement: &str| {
            let ones = "1".repeat(limit);
            format!(
                "limit {limit}\nnew {}\nboard {board}\ncomplement {complement}\nboard {board}\n\
                 equal 1\nequal 0\nequal 1\nflip-differs {ones}\nflip-twice {ones}\n",
                "0".repeat(limit)
            )
        };
        // Cells 0, 2 and 5 lit: indices 0, 2 and 1 under limit 4.
        let four = at(4, "1110", "0001");
        assert_eq!(t.judge(four.as_bytes(), 0).check, Check::Accepted, "{four}");
        // Under limit 3, cells 2 and 5 fold onto index 2: off again.
        let three = at(3, "100", "011");
        assert_eq!(t.judge(three.as_bytes(), 0).check, Check::Accepted);
        let wrong = three.replace("complement 011", "complement 111");
        let j = t.judge(wrong.as_bytes(), 0);
        assert_eq!(j.check, Check::WrongAnswer);
        assert_eq!(
            j.detail,
            "line 4: expected \"complement 011\", got \"complement 111\""
        );
        assert!(
            t.judge(b"limit 0\n", 0)
                .detail
                .starts_with("line 1: expected \"limit L\"")
        );
        assert_eq!(
            t.judge(t.answer().stdout.as_bytes(), 0).check,
            Check::Accepted
        );
    }

    #[test]
    fn board_hash_table_transcripts() {
        let t = case(&BOARD_HT, "2x2\n#O\nO#\n");
        let right = "limit 3\n0: 0\n1: none\n2: 2\nboard: 200\ncomplement: none\n";
        assert_eq!(t.judge(right.as_bytes(), 0).check, Check::Accepted);
        let by_pointer = "limit 3\n0: none\n1: none\n2: none\nboard: none\ncomplement: none\n";
        assert_eq!(
            t.judge(by_pointer.as_bytes(), 0).detail,
            "line 2: expected \"0: 0\", got \"0: none\""
        );
    }

    fn case(q: &Question, text: &str) -> Transcript {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.txt");
        std::fs::write(&p, text).unwrap();
        (q.load)(&[p]).unwrap()
    }

    #[test]
    fn the_handout_examples() {
        // CIS 521 Q3: create_puzzle(3, 3); perform_move(1, 1).
        let t = case(&PERFORM_MOVE, "3x3\nOOO\nOOO\nOOO\n");
        let out = t.answer().stdout;
        assert!(out.starts_with("0 0\n##O\n#OO\nOOO\n"), "{out}");
        assert!(out.contains("1 1\nO#O\n###\nO#O\n"), "{out}");
        assert_eq!(t.judge(out.as_bytes(), 0).check, Check::Accepted);
        // Q7: a 2x3 board has 6 successors.
        let t = case(&SUCCESSORS, "3x2\nOOO\nOOO\n");
        assert_eq!(t.answer().stdout.lines().count(), 6 * 3);
        // 15-110 Q5: the handout's unsolvable example.
        let t = case(&SOLVABLE, "5x5\n#OOO#\nO###O\nO#OOO\n#OOOO\nO#OO#\n");
        assert_eq!(t.answer().stdout, "false\n");
        let t = case(&SOLVABLE, "5x5\n#OO##\nOOO##\n##O##\nO#O##\nO####\n");
        assert_eq!(t.answer().stdout, "true\n");
        let t = case(&IS_SOLVED, "2x2\n#O\nO#\n");
        assert_eq!(t.answer().stdout, "false\ntrue\n");
        // 15-110 Q2: the handout's board drawn.
        let t = case(&DISPLAY, "5x5\n#OOO#\nO###O\nO#OOO\n#OOOO\nO#OO#\n");
        let out = t.answer().stdout;
        assert!(
            out.starts_with("background gray\n0,0 yellow 0,0 red\n0,1 black 0,1 red\n"),
            "{out}"
        );
        assert_eq!(out.lines().count(), 26);
        let t = case(&COPY, "2x2\nOO\nOO\n");
        assert_eq!(t.answer().stdout, "OO\nOO\nOO\nOO\n##\n#O\n");
    }

    #[test]
    fn random_functions_are_judged_by_their_properties() {
        let t = case(&SCRAMBLE, "3x3\n#OO\nOOO\nOO#\n");
        let sample = t.answer().stdout;
        assert_eq!(t.judge(sample.as_bytes(), 0).check, Check::Accepted);
        // Always the board itself: not random.
        let same = "#OO\nOOO\nOO#\n".repeat(SCRAMBLES);
        let j = t.judge(same.as_bytes(), 0);
        assert_eq!(
            (j.check, j.detail.as_str()),
            (Check::WrongAnswer, "all 40 scrambles are the same board")
        );
        // Single lights toggled: off the press space on a 5x5 board.
        let t = case(&SCRAMBLE, "5x5\nOOOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n");
        let one = "#OOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n".repeat(SCRAMBLES);
        assert!(
            t.judge(one.as_bytes(), 0)
                .detail
                .starts_with("board 1 is not")
        );

        let t = case(&RAND_BOARD, "5x5\nOOOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n");
        assert_eq!(
            t.judge(t.answer().stdout.as_bytes(), 0).check,
            Check::Accepted
        );
        let ones = "#####\n".repeat(5 * RANDOM_BOARDS);
        assert!(
            t.judge(ones.as_bytes(), 0)
                .detail
                .starts_with("cell (0,0) is 1 on 200 of 200")
        );
        let twos = "??###\n".repeat(5 * RANDOM_BOARDS);
        assert!(
            t.judge(twos.as_bytes(), 0)
                .detail
                .starts_with("line 1: expected 5 cells")
        );
    }
}
