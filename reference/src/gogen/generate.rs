//! Seeded random Gogen puzzles: a random solved board, words that are king
//! walks on it (letter strings, not dictionary words: we ship no
//! dictionary), given letters at a chosen set of cells (and more where
//! words cannot make the solution unique), then words removed one by one
//! while the solution stays unique.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::board::{Board, SIDE};
use super::parse::Puzzle;
use super::solve::count_solutions;

/// The knobs of a random puzzle.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// The cells whose letters are given.
    pub givens: Vec<(usize, usize)>,
    /// Words drawn before trimming (more are added if still not unique).
    pub words: usize,
    /// Shortest word.
    pub min_len: usize,
    /// Longest word.
    pub max_len: usize,
}

impl Recipe {
    /// The exam's layout: the nine cells with even row and column given.
    pub fn exam(words: usize) -> Self {
        Self {
            givens: (0..SIDE)
                .step_by(2)
                .flat_map(|r| (0..SIDE).step_by(2).map(move |c| (r, c)))
                .collect(),
            words,
            min_len: 4,
            max_len: 7,
        }
    }
}

/// Words drawn beyond the recipe's before a letter is given instead.
const EXTRA_WORDS: usize = 100;

/// A random puzzle with a unique solution, and that solution. Words are
/// drawn until the solution is unique; when `EXTRA_WORDS` more than the
/// recipe's are not enough, a letter is given instead. Then every word that
/// uniqueness does not need is removed.
pub fn random_puzzle(recipe: &Recipe, rng: &mut ChaCha8Rng) -> (Puzzle, Board) {
    let mut letters: Vec<u8> = (b'A'..=b'Y').collect();
    for i in (1..letters.len()).rev() {
        letters.swap(i, rng.random_range(0..=i));
    }
    let mut solution = Board::default();
    for (i, &l) in letters.iter().enumerate() {
        solution.0[i / SIDE][i % SIDE] = Some(l);
    }
    let mut board = Board::default();
    for &(r, c) in &recipe.givens {
        board.0[r][c] = solution.0[r][c];
    }
    let mut puzzle = Puzzle {
        board,
        words: Vec::new(),
    };
    while puzzle.words.len() < recipe.words || count_solutions(&puzzle, 2) != 1 {
        if puzzle.words.len() < recipe.words + EXTRA_WORDS {
            puzzle.words.push(king_walk(&solution, recipe, rng));
            continue;
        }
        // Words alone cannot pin every letter when the givens are symmetric
        // (none, or only the centre, say: a turned board is as good), so
        // give one more letter.
        let free: Vec<usize> = (0..SIDE * SIDE)
            .filter(|&i| puzzle.board.0[i / SIDE][i % SIDE].is_none())
            .collect();
        let i = free[rng.random_range(0..free.len())];
        puzzle.board.0[i / SIDE][i % SIDE] = solution.0[i / SIDE][i % SIDE];
    }
    // Trim: drop each word (in random order) that uniqueness does not need.
    let mut i = puzzle.words.len();
    while i > 0 {
        i -= 1;
        let removed = puzzle.words.remove(i);
        if count_solutions(&puzzle, 2) != 1 {
            puzzle.words.insert(i, removed);
        }
    }
    (puzzle, solution)
}

/// The letters along a random walk of king moves that never revisits a cell.
fn king_walk(solution: &Board, recipe: &Recipe, rng: &mut ChaCha8Rng) -> String {
    let len = rng.random_range(recipe.min_len..=recipe.max_len);
    let (mut r, mut c) = (rng.random_range(0..SIDE), rng.random_range(0..SIDE));
    let mut seen = vec![(r, c)];
    while seen.len() < len {
        let options: Vec<(usize, usize)> = (-1i32..=1)
            .flat_map(|dr| (-1i32..=1).map(move |dc| (dr, dc)))
            .filter(|&d| d != (0, 0))
            .map(|(dr, dc)| (r as i32 + dr, c as i32 + dc))
            .filter(|&(nr, nc)| (0..SIDE as i32).contains(&nr) && (0..SIDE as i32).contains(&nc))
            .map(|(nr, nc)| (nr as usize, nc as usize))
            .filter(|p| !seen.contains(p))
            .collect();
        if options.is_empty() {
            break;
        }
        (r, c) = options[rng.random_range(0..options.len())];
        seen.push((r, c));
    }
    seen.iter()
        .map(|&(r, c)| char::from(solution.0[r][c].expect("full board")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gogen::check::valid_solution;
    use crate::lightsout::rng;

    #[test]
    fn puzzles_are_unique_and_repeatable() {
        for seed in 0..10 {
            let (p, s) = random_puzzle(&Recipe::exam(8), &mut rng(seed));
            assert_eq!(count_solutions(&p, 2), 1, "seed {seed}");
            assert_eq!(valid_solution(&p, &s), Ok(()));
            assert_eq!(random_puzzle(&Recipe::exam(8), &mut rng(seed)).0, p);
        }
    }
}
