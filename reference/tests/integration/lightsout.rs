//! Lights Out properties: every solution verifies, minimum-press agrees with
//! brute force, solvability agrees with the quiet-pattern parity test.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use proptest::prelude::*;
use reference::lightsout::{Board, Minimality, Solver, rng, scrambled, uniform};

/// For every board of a size, the fewest presses that solve it (u8::MAX when
/// unsolvable), by trying all 2^(w*h) press sets in Gray-code order.
fn brute_force_table(width: usize, height: usize) -> Vec<u8> {
    let n = width * height;
    let cross = |i: usize| {
        let (r, c) = (i / width, i % width);
        let mut m = 1u32 << i;
        if r > 0 {
            m |= 1 << (i - width);
        }
        if r + 1 < height {
            m |= 1 << (i + width);
        }
        if c > 0 {
            m |= 1 << (i - 1);
        }
        if c + 1 < width {
            m |= 1 << (i + 1);
        }
        m
    };
    let crosses: Vec<u32> = (0..n).map(cross).collect();
    let mut best = vec![u8::MAX; 1 << n];
    best[0] = 0;
    let mut lights = 0u32;
    for step in 1u32..1 << n {
        lights ^= crosses[step.trailing_zeros() as usize];
        let presses = (step ^ (step >> 1)).count_ones() as u8;
        let slot = &mut best[lights as usize];
        *slot = (*slot).min(presses);
    }
    best
}

fn table(width: usize, height: usize) -> Vec<u8> {
    type Tables = Mutex<HashMap<(usize, usize), Vec<u8>>>;
    static TABLES: OnceLock<Tables> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    let mut guard = tables.lock().unwrap();
    guard
        .entry((width, height))
        .or_insert_with(|| brute_force_table(width, height))
        .clone()
}

fn mask(board: &Board) -> usize {
    board
        .cells_on()
        .map(|c| 1 << (c.row * board.width() + c.col))
        .sum()
}

fn verifies(board: &Board, presses: &Board) -> bool {
    let mut after = board.clone();
    for cell in presses.cells_on() {
        after.press(cell);
    }
    after.is_solved()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn minimum_press_matches_brute_force(w in 1usize..=5, h in 1usize..=4, seed: u64) {
        let board = uniform(w, h, &mut rng(seed));
        let expected = table(w, h)[mask(&board)];
        let solver = Solver::new(w, h);
        match solver.solve_minimum(&board) {
            Some(s) => {
                prop_assert!(verifies(&board, &s.presses));
                prop_assert_eq!(s.minimality, Minimality::Proven);
                prop_assert_eq!(s.press_count(), expected as usize);
            }
            None => prop_assert_eq!(expected, u8::MAX),
        }
        prop_assert_eq!(solver.is_solvable(&board), expected != u8::MAX);
    }

    #[test]
    fn solutions_verify_up_to_12x12(w in 1usize..=12, h in 1usize..=12, seed: u64, scramble: bool) {
        let mut r = rng(seed);
        let board = if scramble { scrambled(w, h, w * h / 2 + 1, &mut r) } else { uniform(w, h, &mut r) };
        let solver = Solver::new(w, h);
        let any = solver.solve(&board);
        let min = solver.solve_minimum(&board);
        prop_assert_eq!(any.is_some(), min.is_some());
        prop_assert_eq!(solver.is_solvable(&board), any.is_some());
        if scramble {
            prop_assert!(any.is_some(), "scrambled boards are solvable");
        }
        if let (Some(any), Some(min)) = (any, min) {
            prop_assert!(verifies(&board, &any));
            prop_assert!(verifies(&board, &min.presses));
            prop_assert!(min.press_count() <= any.count_on());
        }
        // Solvable exactly when even inside every quiet pattern.
        let even = solver.quiet_patterns().iter().all(|q| {
            q.cells_on().filter(|&c| board.get(c)).count() % 2 == 0
        });
        prop_assert_eq!(even, solver.is_solvable(&board));
    }
}

#[test]
fn singular_sizes_have_quiet_patterns_that_verify() {
    // 8000 is singular for N x N; smaller singular sizes behave alike.
    for n in [4, 5, 9, 11, 16, 17, 19, 23, 24, 30] {
        let solver = Solver::new(n, n);
        assert!(solver.nullity() > 0, "{n}x{n} is singular");
        for q in solver.quiet_patterns() {
            assert!(verifies(&Board::new(n, n), &q));
        }
    }
    assert_eq!(Solver::new(6, 6).nullity(), 0);
}

#[test]
fn all_on_large_boards_verify() {
    for n in [63, 64, 65, 127, 129, 300] {
        let board = Board::all_on(n, n);
        let solver = Solver::new(n, n);
        let presses = solver
            .solve(&board)
            .expect("all-on N x N is always solvable");
        assert!(verifies(&board, &presses), "{n}");
    }
}

#[test]
fn non_square_wide_and_tall() {
    let mut r = rng(3);
    for (w, h) in [(200, 3), (3, 200), (1, 100), (100, 1), (130, 65)] {
        let board = scrambled(w, h, 50, &mut r);
        let presses = Solver::new(w, h).solve(&board).unwrap();
        assert!(verifies(&board, &presses), "{w}x{h}");
    }
}
