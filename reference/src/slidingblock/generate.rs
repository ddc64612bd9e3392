//! Seeded random puzzles: blocks dropped at random into a tray, a random
//! walk of moves from there, and a goal taken from the starting layout, so
//! every puzzle made is solvable (moves can be undone).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::check::Board;
use super::tray::{Block, Goal, Move, Tray};

/// The knobs of a random puzzle.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// Tray rows.
    pub height: u32,
    /// Tray columns.
    pub width: u32,
    /// Blocks to try to place (fewer if the tray fills up).
    pub blocks: usize,
    /// Largest block side.
    pub max_side: u32,
    /// Random moves walked from the goal layout.
    pub walk: usize,
    /// How many blocks the goal names (the first ones placed).
    pub goal_blocks: usize,
}

/// A solvable puzzle made from `recipe`.
pub fn random_puzzle(recipe: &Recipe, rng: &mut ChaCha8Rng) -> (Tray, Goal) {
    let (h, w) = (recipe.height, recipe.width);
    let mut blocks: Vec<Block> = Vec::new();
    let mut attempts = 0;
    while blocks.len() < recipe.blocks && attempts < recipe.blocks * 50 {
        attempts += 1;
        let bh = rng.random_range(1..=recipe.max_side.min(h));
        let bw = rng.random_range(1..=recipe.max_side.min(w));
        let top = rng.random_range(0..=h - bh);
        let left = rng.random_range(0..=w - bw);
        let b = Block::new(top, left, top + bh - 1, left + bw - 1);
        if !blocks.iter().any(|o| o.overlaps(&b)) {
            blocks.push(b);
        }
    }
    let solved = Tray {
        height: h,
        width: w,
        blocks,
    };
    let goal = Goal {
        blocks: solved
            .blocks
            .iter()
            .take(recipe.goal_blocks)
            .copied()
            .collect(),
    };
    (walk(&solved, recipe.walk, rng), goal)
}

/// The tray after `steps` random tries of a move (a block, a direction, 1
/// to 3 cells; impossible ones are not made). Moves can be undone, so the
/// tray reached solves exactly the goals the tray given solves: a fresh
/// puzzle from a known one (a contest's unreleased puzzles).
pub fn walk(tray: &Tray, steps: usize, rng: &mut ChaCha8Rng) -> Tray {
    let mut board = Board::new(tray);
    if tray.blocks.is_empty() {
        return tray.clone();
    }
    for _ in 0..steps {
        let blocks = board.tray().blocks;
        let b = blocks[rng.random_range(0..blocks.len())];
        let (dr, dc) = [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)][rng.random_range(0..4usize)];
        let dist = rng.random_range(1..=3i64);
        let (r, c) = (i64::from(b.top) + dr * dist, i64::from(b.left) + dc * dist);
        if r < 0 || c < 0 {
            continue;
        }
        // Impossible moves are simply not made.
        let _ = board.apply(Move::new(b.top, b.left, r as u32, c as u32));
    }
    board.tray()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lightsout::rng;
    use crate::slidingblock::outcome::Outcome;
    use crate::slidingblock::solve::{SolveOptions, solve};

    #[test]
    fn random_puzzles_are_solvable_and_repeatable() {
        let recipe = Recipe {
            height: 4,
            width: 4,
            blocks: 8,
            max_side: 2,
            walk: 30,
            goal_blocks: 2,
        };
        for seed in 0..20 {
            let (t, g) = random_puzzle(&recipe, &mut rng(seed));
            assert_eq!(
                (t.clone(), g.clone()),
                random_puzzle(&recipe, &mut rng(seed))
            );
            let r = solve(&t, &g, &SolveOptions::default());
            assert!(matches!(r.outcome, Outcome::Solved(_)), "seed {seed}");
        }
    }
}
