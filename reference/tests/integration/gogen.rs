//! Gogen properties: generated puzzles are unique and solved back to the
//! generator's board; every solution the solver reports checks; the exam
//! form round-trips.

use proptest::prelude::*;
use reference::gogen::{
    Puzzle, Recipe, count_solutions, format_exam, parse_exam, random_puzzle, solutions, solve,
    valid_solution,
};
use reference::lightsout::rng;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_puzzles_are_unique_and_solve_back(words in 1usize..=10, seed: u64) {
        let (puzzle, board) = random_puzzle(&Recipe::exam(words), &mut rng(seed));
        prop_assert_eq!(valid_solution(&puzzle, &board), Ok(()));
        prop_assert_eq!(count_solutions(&puzzle, 5), 1);
        prop_assert_eq!(solve(&puzzle), Some(board));
        prop_assert_eq!(parse_exam(&format_exam(&puzzle)).unwrap(), puzzle);
    }

    #[test]
    fn any_givens_even_none_or_symmetric_give_a_unique_puzzle(
        cells in proptest::collection::btree_set(0usize..25, 0..4),
        words in 1usize..=8,
        seed: u64,
    ) {
        let recipe = Recipe {
            givens: cells.iter().map(|i| (i / 5, i % 5)).collect(),
            words,
            min_len: 2,
            max_len: 6,
        };
        let (puzzle, board) = random_puzzle(&recipe, &mut rng(seed));
        prop_assert_eq!(valid_solution(&puzzle, &board), Ok(()));
        prop_assert_eq!(solutions(&puzzle, 5), vec![board]);
    }

    #[test]
    fn fewer_words_keep_the_solution_and_every_reported_one_checks(
        keep in proptest::collection::vec(any::<bool>(), 0..12),
        seed: u64,
    ) {
        let (full, board) = random_puzzle(&Recipe::exam(8), &mut rng(seed));
        let words: Vec<String> = full
            .words
            .iter()
            .zip(keep.iter().chain(std::iter::repeat(&false)))
            .filter(|(_, k)| **k)
            .map(|(w, _)| w.clone())
            .collect();
        let loose = Puzzle { board: full.board, words };
        let found = solutions(&loose, 20);
        prop_assert!(!found.is_empty(), "the generator's board still fits");
        for (i, s) in found.iter().enumerate() {
            prop_assert_eq!(valid_solution(&loose, s), Ok(()));
            prop_assert!(!found[..i].contains(s), "solutions are distinct");
        }
        if found.len() < 20 {
            prop_assert!(found.contains(&board), "an exhaustive list has the generator's board");
        }
    }
}
