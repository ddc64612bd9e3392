//! Seeded board generators: scrambled boards (always solvable) and uniform
//! random boards (solvable with probability 2^-nullity).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::board::{Board, Cell};

/// The random number generator behind every seeded generator: ChaCha8, whose
/// stream for a given seed is fixed across versions and platforms.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A board reached from all-off by `presses` presses of random cells
/// (repeats allowed), so always solvable.
pub fn scrambled(width: usize, height: usize, presses: usize, rng: &mut ChaCha8Rng) -> Board {
    let mut b = Board::new(width, height);
    for _ in 0..presses {
        b.press(Cell {
            row: rng.random_range(0..height),
            col: rng.random_range(0..width),
        });
    }
    b
}

/// A board whose every light is on with probability one half, independently.
pub fn uniform(width: usize, height: usize, rng: &mut ChaCha8Rng) -> Board {
    Board::from_fn(width, height, |_| rng.random())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lightsout::Solver;

    #[test]
    fn same_seed_same_board() {
        assert_eq!(uniform(9, 7, &mut rng(5)), uniform(9, 7, &mut rng(5)));
        assert_ne!(uniform(9, 7, &mut rng(5)), uniform(9, 7, &mut rng(6)));
        assert_eq!(
            scrambled(30, 30, 40, &mut rng(1)),
            scrambled(30, 30, 40, &mut rng(1))
        );
    }

    #[test]
    fn scrambled_boards_are_solvable() {
        let solver = Solver::new(5, 5);
        let mut r = rng(7);
        for _ in 0..200 {
            assert!(solver.is_solvable(&scrambled(5, 5, 6, &mut r)));
        }
    }
}
