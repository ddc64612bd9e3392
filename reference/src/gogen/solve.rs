//! The Gogen solver: the handout's mask propagation (board update rules
//! (a)-(c), and every pair of consecutive word letters intersected with
//! each other's neighbourhood, until nothing changes), plus "a cell only one
//! letter can take" and "a cell whose king ring cannot seat every letter
//! that must touch this one" (a small bipartite matching, which refutes
//! hubs with too many word neighbours at once) and, at the fixpoint, a
//! matching of every unplaced letter to its own empty cell (Hall's
//! condition), then backtracking on the free letter with the fewest
//! possible cells. It can count solutions, to
//! tell a unique puzzle.

use super::board::{Board, LetterMask, NUM_LETTERS, SIDE, letter_index};
use super::check::valid_solution;
use super::parse::Puzzle;

#[derive(Clone)]
struct State {
    board: Board,
    masks: [LetterMask; NUM_LETTERS],
}

/// What the words ask: the distinct pairs of letters that must touch, and
/// per letter the set of letters (bit `l` for letter `l`) it must touch.
struct Words {
    pairs: Vec<(usize, usize)>,
    touch: [u32; NUM_LETTERS],
}

/// Up to `limit` solutions of `puzzle` (all of them when there are fewer).
pub fn solutions(puzzle: &Puzzle, limit: usize) -> Vec<Board> {
    let mut found = Vec::new();
    let Some(pairs) = pairs(puzzle) else {
        return found;
    };
    let mut touch = [0u32; NUM_LETTERS];
    for &(a, b) in &pairs {
        touch[a] |= 1 << b;
        touch[b] |= 1 << a;
    }
    let words = Words { pairs, touch };
    let state = State {
        board: puzzle.board,
        masks: [LetterMask::ALL; NUM_LETTERS],
    };
    search(state, &words, puzzle, limit, &mut found);
    found
}

/// One solution, if any.
pub fn solve(puzzle: &Puzzle) -> Option<Board> {
    solutions(puzzle, 1).pop()
}

/// The number of solutions, counting no further than `limit`.
pub fn count_solutions(puzzle: &Puzzle, limit: usize) -> usize {
    solutions(puzzle, limit).len()
}

/// The distinct pairs of consecutive word letters, or `None` when a word
/// repeats a letter back to back (it can never be spelled).
fn pairs(puzzle: &Puzzle) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for w in &puzzle.words {
        for p in w.as_bytes().windows(2) {
            let (a, b) = (letter_index(p[0]), letter_index(p[1]));
            if a == b {
                return None;
            }
            let key = (a.min(b), a.max(b));
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
    Some(out)
}

fn search(mut s: State, words: &Words, puzzle: &Puzzle, limit: usize, found: &mut Vec<Board>) {
    if found.len() >= limit || !propagate(&mut s, words) {
        return;
    }
    let free = (0..NUM_LETTERS)
        .filter(|&l| s.masks[l].is_free())
        .min_by_key(|&l| s.masks[l].count());
    let Some(letter) = free else {
        if s.board.is_full() && valid_solution(puzzle, &s.board).is_ok() {
            found.push(s.board);
        }
        return;
    };
    for (r, c) in s.masks[letter].cells() {
        let mut next = s.clone();
        next.masks[letter] = LetterMask::cell(r, c);
        next.board.0[r][c] = Some(b'A' + letter as u8);
        search(next, words, puzzle, limit, found);
        if found.len() >= limit {
            return;
        }
    }
}

/// Narrows the masks and fills the board until nothing changes; false on a
/// contradiction (a letter with no cell, or a cell no letter can take).
fn propagate(s: &mut State, words: &Words) -> bool {
    loop {
        let before = (s.masks, s.board);
        if !update(s) {
            return false;
        }
        for &(a, b) in &words.pairs {
            let (mut ma, mut mb) = (s.masks[a], s.masks[b]);
            LetterMask::intersect_neighbourhoods(&mut ma, &mut mb);
            s.masks[a] = ma;
            s.masks[b] = mb;
        }
        // A letter that must touch k others needs a cell whose ring seats
        // all k at once, each within its own mask.
        for x in 0..NUM_LETTERS {
            let need = words.touch[x];
            if need.count_ones() < 2 {
                continue;
            }
            let mut keep = 0u32;
            let mut options = s.masks[x].0;
            while options != 0 {
                let b = options.trailing_zeros();
                options &= options - 1;
                let ring = RINGS[31 - b as usize];
                if need.count_ones() <= ring.count_ones() && seats(need, ring, &s.masks) {
                    keep |= 1 << b;
                }
            }
            if keep == 0 {
                return false;
            }
            s.masks[x] = LetterMask(keep);
        }
        if !update(s) {
            return false;
        }
        // A cell that only one letter can still take must hold it.
        for r in 0..SIDE {
            for c in 0..SIDE {
                if s.board.0[r][c].is_some() {
                    continue;
                }
                let mut takers = (0..NUM_LETTERS).filter(|&l| s.masks[l].get(r, c));
                match (takers.next(), takers.next()) {
                    (None, _) => return false,
                    (Some(l), None) => {
                        s.masks[l] = LetterMask::cell(r, c);
                        s.board.0[r][c] = Some(b'A' + l as u8);
                    }
                    _ => {}
                }
            }
        }
        if (s.masks, s.board) == before {
            // Every letter not yet placed needs an empty cell of its own
            // (Hall's condition over the whole board).
            let empty = LetterMask::ALL.0 & !s.board.occupied().0;
            let unplaced = (0..NUM_LETTERS)
                .filter(|&l| s.masks[l].is_free())
                .fold(0u32, |acc, l| acc | 1 << l);
            return seats(unplaced, empty, &s.masks);
        }
    }
}

/// Per cell (row-major index), the cells a king move away, as mask bits.
const RINGS: [u32; SIDE * SIDE] = rings();

const fn rings() -> [u32; SIDE * SIDE] {
    let mut out = [0u32; SIDE * SIDE];
    let mut i = 0;
    while i < SIDE * SIDE {
        let (r, c) = ((i / SIDE) as i32, (i % SIDE) as i32);
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (nr, nc) = (r + dr, c + dc);
                if !(dr == 0 && dc == 0)
                    && nr >= 0
                    && nr < SIDE as i32
                    && nc >= 0
                    && nc < SIDE as i32
                {
                    out[i] |= 1 << (31 - (nr as usize * SIDE + nc as usize));
                }
                dc += 1;
            }
            dr += 1;
        }
        i += 1;
    }
    out
}

/// Whether every letter in `letters` (a letter bitset) can take its own
/// cell of `cells` within its mask: Kuhn's augmenting paths.
fn seats(letters: u32, cells: u32, masks: &[LetterMask; NUM_LETTERS]) -> bool {
    const NONE: u8 = u8::MAX;
    fn augment(
        y: usize,
        cells: u32,
        masks: &[LetterMask; NUM_LETTERS],
        owner: &mut [u8; 32],
        seen: &mut u32,
    ) -> bool {
        let mut options = masks[y].0 & cells & !*seen;
        while options != 0 {
            let b = options.trailing_zeros() as usize;
            options &= options - 1;
            *seen |= 1 << b;
            let held = owner[b];
            if held == NONE || augment(usize::from(held), cells, masks, owner, seen) {
                owner[b] = y as u8;
                return true;
            }
        }
        false
    }
    let mut owner = [NONE; 32];
    let mut rest = letters;
    while rest != 0 {
        let y = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if !augment(y, cells, masks, &mut owner, &mut 0) {
            return false;
        }
    }
    true
}

/// The handout's `update`: (a) a letter on the board has just that cell;
/// (b) any other letter loses every occupied cell; (c) a letter left with one
/// cell is written there. False when a letter has no cell left.
fn update(s: &mut State) -> bool {
    for l in 0..NUM_LETTERS {
        let letter = b'A' + l as u8;
        if let Some((r, c)) = s.board.position(letter) {
            // A placed letter whose cell was ruled out (say, by a word
            // pair) is a contradiction, not something to overwrite.
            if !s.masks[l].get(r, c) {
                return false;
            }
            s.masks[l] = LetterMask::cell(r, c);
            continue;
        }
        let m = LetterMask(s.masks[l].0 & !s.board.occupied().0);
        s.masks[l] = m;
        match m.fixed_pos() {
            Some((r, c)) => s.board.0[r][c] = Some(letter),
            None if m.count() == 0 => return false,
            None => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gogen::parse::{parse_board_file, parse_solution, parse_words_file};

    #[test]
    fn solves_the_easy_corpus_puzzle_uniquely() {
        let p = Puzzle {
            board: parse_board_file("N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n").unwrap(),
            words: parse_words_file("BOXED\nFOAM\nJUSTICE\nMUSHY\nPLAYING\nQUAVER\nWICKED\n")
                .unwrap(),
        };
        let all = solutions(&p, 2);
        assert_eq!(
            all,
            [parse_solution("NGWKR\nTICED\nSYXVB\nHUAOF\nQJMLP\n").unwrap()]
        );
    }

    #[test]
    fn update_rules_match_figure_2() {
        let board = parse_board_file("N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n").unwrap();
        let mut s = State {
            board,
            masks: [LetterMask::ALL; NUM_LETTERS],
        };
        assert!(update(&mut s));
        assert_eq!(s.masks[letter_index(b'X')], LetterMask::cell(2, 2));
        assert_eq!(
            s.masks[letter_index(b'E')].to_string(),
            "01010\n11111\n01010\n11111\n01010\n"
        );
        assert_eq!(s.masks[letter_index(b'R')], LetterMask::cell(0, 4));
    }

    fn empty_board(words: &str) -> Puzzle {
        Puzzle {
            board: Board::default(),
            words: words.split(' ').map(String::from).collect(),
        }
    }

    #[test]
    fn hubs_are_counted_exactly() {
        // Nine letters cannot all touch A; eight can (A in the interior).
        assert_eq!(
            count_solutions(&empty_board("AB AC AD AE AF AG AH AI AJ"), 2),
            0
        );
        let eight = solutions(&empty_board("AB AC AD AE AF AG AH AI"), 3);
        assert_eq!(eight.len(), 3);
        // Two hubs of eight and nine; then four hubs that pack the board
        // tightly (found through the whole-board matching).
        let two = "AB AC AD AE AF AG AH AI BJ BK BL BM BN BO BP BQ BR";
        assert_eq!(count_solutions(&empty_board(two), 2), 0);
        let four = empty_board("AB AC AD AE AF BG BH BI BJ BK CL CM CN CO CP DQ DR DS DT DU");
        let found = solutions(&four, 4);
        assert_eq!(found.len(), 4);
        for (i, b) in found.iter().enumerate() {
            assert_eq!(valid_solution(&four, b), Ok(()));
            assert!(!found[..i].contains(b));
        }
        for b in &eight {
            assert_eq!(
                valid_solution(&empty_board("AB AC AD AE AF AG AH AI"), b),
                Ok(())
            );
            let (r, c) = b.position(b'A').unwrap();
            assert!((1..=3).contains(&r) && (1..=3).contains(&c), "A is inside");
        }
    }

    #[test]
    fn impossible_puzzles() {
        let board = parse_board_file("AB...\n.....\n.....\n.....\n.....\n").unwrap();
        let far = Puzzle {
            board,
            words: vec!["AY".into(), "YB".into(), "BE".into()],
        };
        // A and B are fixed adjacent; nothing forbids the rest, so many solutions.
        assert_eq!(count_solutions(&far, 2), 2);
        let board = parse_board_file("A...B\n.....\n.....\n.....\n.....\n").unwrap();
        assert_eq!(
            count_solutions(
                &Puzzle {
                    board,
                    words: vec!["AB".into()]
                },
                2
            ),
            0
        );
        assert_eq!(
            count_solutions(
                &Puzzle {
                    board,
                    words: vec!["ACCB".into()]
                },
                2
            ),
            0
        );
    }
}
