//! Sliding-block properties: every generated puzzle is solved, the moves
//! check, and the optimal search is never longer than the default one.

use proptest::prelude::*;
use reference::lightsout::rng;
use reference::slidingblock::{Outcome, Recipe, SolveOptions, random_puzzle, replay, solve};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_puzzles_solve_and_check(
        height in 2u32..=5,
        width in 2u32..=5,
        blocks in 2usize..=9,
        walk in 0usize..=40,
        goal_blocks in 0usize..=3,
        seed: u64,
    ) {
        let recipe = Recipe { height, width, blocks, max_side: 2, walk, goal_blocks };
        let (tray, goal) = random_puzzle(&recipe, &mut rng(seed));
        let fast = solve(&tray, &goal, &SolveOptions::default());
        let Outcome::Solved(moves) = fast.outcome else {
            return Err(TestCaseError::fail(format!("not solved: {fast:?}")));
        };
        let lines: Vec<_> = moves.iter().copied().enumerate().collect();
        let board = replay(&tray, &lines).expect("every move is possible");
        prop_assert!(board.unmet(&goal).is_none());
        let best = solve(&tray, &goal, &SolveOptions { optimal: true, ..Default::default() });
        let Outcome::Solved(shortest) = best.outcome else {
            return Err(TestCaseError::fail("optimal search failed"));
        };
        prop_assert!(shortest.len() <= moves.len());
        let lines: Vec<_> = shortest.iter().copied().enumerate().collect();
        prop_assert!(replay(&tray, &lines).expect("possible").unmet(&goal).is_none());
    }
}
