//! Seeded random puzzles. [`deep_puzzle`] (the bundled suites'): blocks
//! dropped at random into a tray, and a goal taken from a layout at a
//! chosen depth of the breadth-first layers from it, so its fewest moves
//! are known and at least that depth; [`unsolvable_puzzle`]: a goal that
//! no reachable layout meets though each of its positions alone is
//! reachable (only an exhaustive search says no).
//! [`random_puzzle`] (property tests, batteries): a random walk from a
//! layout with its goal, solvable but possibly met at the start.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::check::Board;
use super::explore::{Layers, canonical, meets};
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

/// Up to `count` blocks of sides 1 to `max_side` dropped at random into
/// an `h` x `w` tray (fewer if it fills up).
fn drop_blocks(h: u32, w: u32, count: usize, max_side: u32, rng: &mut ChaCha8Rng) -> Tray {
    let mut blocks: Vec<Block> = Vec::new();
    let mut attempts = 0;
    while blocks.len() < count && attempts < count * 50 {
        attempts += 1;
        let bh = rng.random_range(1..=max_side.min(h));
        let bw = rng.random_range(1..=max_side.min(w));
        let top = rng.random_range(0..=h - bh);
        let left = rng.random_range(0..=w - bw);
        let b = Block::new(top, left, top + bh - 1, left + bw - 1);
        if !blocks.iter().any(|o| o.overlaps(&b)) {
            blocks.push(b);
        }
    }
    Tray {
        height: h,
        width: w,
        blocks,
    }
}

/// A solvable puzzle made from `recipe` by a random walk (its goal may be
/// met at the start).
pub fn random_puzzle(recipe: &Recipe, rng: &mut ChaCha8Rng) -> (Tray, Goal) {
    let solved = drop_blocks(
        recipe.height,
        recipe.width,
        recipe.blocks,
        recipe.max_side,
        rng,
    );
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

/// The knobs of a puzzle whose goal comes from the search.
#[derive(Clone, Debug)]
pub struct DeepRecipe {
    /// Tray rows.
    pub height: u32,
    /// Tray columns.
    pub width: u32,
    /// Blocks to try to place (fewer if the tray fills up).
    pub blocks: usize,
    /// Largest block side.
    pub max_side: u32,
    /// The fewest moves the goal must need (a solvable puzzle's exactly).
    pub depth: usize,
    /// Goal positions to name at first (more when fewer are met sooner).
    pub goal_blocks: usize,
    /// Most layouts the breadth-first search may store.
    pub max_states: usize,
}

impl DeepRecipe {
    /// Its blocks dropped at random into its tray.
    fn layout(&self, rng: &mut ChaCha8Rng) -> Tray {
        drop_blocks(self.height, self.width, self.blocks, self.max_side, rng)
    }
}

/// A made puzzle and what its making proved.
#[derive(Clone, Debug)]
pub struct Made {
    /// The start.
    pub tray: Tray,
    /// The goal.
    pub goal: Goal,
    /// Its fewest moves, or `None`: no reachable layout meets it.
    pub fewest: Option<usize>,
    /// Layouts the making's search stored.
    pub states: usize,
}

/// Random layouts tried before a recipe is called impossible.
const TRIES: usize = 2_000;

/// A solvable puzzle whose fewest moves are exactly `recipe.depth`: blocks
/// dropped at random, the layouts reachable from them explored
/// breadth-first, a layout picked at random in the layer at that depth,
/// and as the goal its first `goal_blocks` positions (blocks that moved
/// first), more while fewer are met by a shallower layout (all of them are
/// met by none). `None` when no layout of the recipe reaches that depth.
pub fn deep_puzzle(recipe: &DeepRecipe, rng: &mut ChaCha8Rng) -> Option<Made> {
    for _ in 0..TRIES {
        let tray = recipe.layout(rng);
        let layers = Layers::explore(&tray, recipe.max_states);
        if layers.depth() < recipe.depth || (layers.depth() == recipe.depth && !layers.complete()) {
            continue;
        }
        if let Some(goal) = deep_goal(&layers, &tray, recipe, rng) {
            return Some(Made {
                tray,
                goal,
                fewest: Some(recipe.depth),
                states: layers.len(),
            });
        }
    }
    None
}

/// A goal met first at `recipe.depth` moves from `tray` (see
/// [`deep_puzzle`]), if this tray's layers give one.
fn deep_goal(
    layers: &Layers,
    tray: &Tray,
    recipe: &DeepRecipe,
    rng: &mut ChaCha8Rng,
) -> Option<Goal> {
    let layer = layers.layer(recipe.depth);
    // Few goal positions first, as the course's goals have: one block's
    // position first reached at that depth, or a few of one layout's.
    if recipe.goal_blocks <= 1 {
        let firsts = layers.first_reached(recipe.depth);
        if !firsts.is_empty() {
            let at = firsts[rng.random_range(0..firsts.len())];
            return Some(Goal { blocks: vec![at] });
        }
    }
    let start = canonical(&tray.blocks);
    for k in recipe.goal_blocks.max(2)..=3 {
        for _ in 0..40 {
            let far = &layer[rng.random_range(0..layer.len())];
            let mut moved: Vec<Block> = far
                .iter()
                .copied()
                .filter(|b| !meets(&start, &Goal { blocks: vec![*b] }))
                .collect();
            if moved.len() < k {
                continue;
            }
            shuffle(&mut moved, rng);
            let goal = Goal {
                blocks: moved[..k].to_vec(),
            };
            if layers.fewest(&goal) == Some(recipe.depth) {
                return Some(goal);
            }
        }
    }
    let far = &layer[rng.random_range(0..layer.len())];
    let (mut order, mut kept): (Vec<Block>, Vec<Block>) = far
        .iter()
        .partition(|b| !meets(&start, &Goal { blocks: vec![**b] }));
    shuffle(&mut order, rng);
    shuffle(&mut kept, rng);
    order.extend(kept);
    for k in recipe.goal_blocks.max(1)..=order.len() {
        let goal = Goal {
            blocks: order[..k].to_vec(),
        };
        if layers.fewest(&goal) == Some(recipe.depth) {
            return Some(goal);
        }
    }
    None
}

/// An unsolvable puzzle that only an exhaustive search proves so: blocks
/// dropped at random whose reachable layouts number `min_states` to
/// `recipe.max_states` (all explored), and a goal of two block positions
/// each reachable alone but never together. `None`
/// when the recipe gives no such puzzle.
pub fn unsolvable_puzzle(
    recipe: &DeepRecipe,
    min_states: usize,
    rng: &mut ChaCha8Rng,
) -> Option<Made> {
    for _ in 0..TRIES {
        let tray = recipe.layout(rng);
        let layers = Layers::explore(&tray, recipe.max_states);
        if !layers.complete() || layers.len() < min_states || tray.blocks.len() < 2 {
            continue;
        }
        let pairs = layers.never_together();
        if pairs.is_empty() {
            continue;
        }
        let (a, b) = pairs[rng.random_range(0..pairs.len())];
        return Some(Made {
            tray,
            goal: Goal { blocks: vec![a, b] },
            fewest: None,
            states: layers.len(),
        });
    }
    None
}

/// A solvable puzzle of a big search: blocks dropped at random (then some
/// taken out until `holes` cells are empty), the goal
/// one block's position after a long random walk (the biggest block of a
/// shape no other block has; with `goal_blocks` over 1, the whole layout
/// the walk reached), its fewest moves proven by the optimal
/// breadth-first search; kept when they are at least `recipe.depth` and the
/// proof stored `states.start` to `states.end` states. For spaces too big to
/// keep layer by layer (`deep_puzzle`'s way). `None` when no try of
/// `tries` gives one.
pub fn far_puzzle(
    recipe: &DeepRecipe,
    holes: u32,
    states: std::ops::Range<usize>,
    tries: usize,
    rng: &mut ChaCha8Rng,
) -> Option<Made> {
    use super::outcome::Outcome;
    use super::solve::{SolveOptions, solve};
    for _ in 0..tries {
        let mut tray = recipe.layout(rng);
        // Blocks taken out at random until `holes` cells are empty: the
        // empty cells, more than anything, set the size of the search.
        let area = |b: &Block| b.shape().height * b.shape().width;
        let mut empty = recipe.height * recipe.width - tray.blocks.iter().map(area).sum::<u32>();
        while empty < holes && !tray.blocks.is_empty() {
            let b = tray.blocks.remove(rng.random_range(0..tray.blocks.len()));
            empty += area(&b);
        }
        let unique = |b: &&Block| {
            tray.blocks
                .iter()
                .filter(|o| o.shape() == b.shape())
                .count()
                == 1
        };
        let area = |b: &&Block| b.shape().height * b.shape().width;
        let Some(index) = tray
            .blocks
            .iter()
            .filter(unique)
            .max_by_key(area)
            .and_then(|b| tray.blocks.iter().position(|o| o == b))
        else {
            continue;
        };
        let walked = walk(&tray, 5_000, rng);
        let goal = Goal {
            blocks: if recipe.goal_blocks <= 1 {
                vec![walked.blocks[index]]
            } else {
                walked.blocks.clone()
            },
        };
        let options = SolveOptions {
            optimal: true,
            max_states: states.end,
        };
        let report = solve(&tray, &goal, &options);
        match report.outcome {
            Outcome::Solved(moves)
                if moves.len() >= recipe.depth && states.contains(&report.states) =>
            {
                return Some(Made {
                    tray,
                    goal,
                    fewest: Some(moves.len()),
                    states: report.states,
                });
            }
            _ => {}
        }
    }
    None
}

fn shuffle<T>(v: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
}

#[cfg(test)]
pub(crate) mod tests {
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

    /// A small recipe (4x4, ten blocks) for tests, `depth` moves deep.
    pub(crate) fn recipe(depth: usize) -> DeepRecipe {
        DeepRecipe {
            height: 4,
            width: 4,
            blocks: 10,
            max_side: 2,
            depth,
            goal_blocks: 1,
            max_states: 200_000,
        }
    }

    #[test]
    fn deep_puzzles_need_exactly_their_depth() {
        for seed in 0..6 {
            let made = deep_puzzle(&recipe(12), &mut rng(seed)).expect("a 4x4 reaches 12");
            assert_eq!(made.fewest, Some(12));
            let again = deep_puzzle(&recipe(12), &mut rng(seed)).unwrap();
            assert_eq!((&made.tray, &made.goal), (&again.tray, &again.goal));
            match solve(&made.tray, &made.goal, &SolveOptions::optimal()).outcome {
                Outcome::Solved(m) => assert_eq!(m.len(), 12, "seed {seed}"),
                other => panic!("seed {seed}: {other:?}"),
            }
        }
    }

    #[test]
    fn unsolvable_puzzles_need_the_whole_search() {
        for seed in 0..4 {
            let made = unsolvable_puzzle(&recipe(0), 100, &mut rng(seed)).expect("one exists");
            assert_eq!(made.fewest, None);
            let report = solve(&made.tray, &made.goal, &SolveOptions::optimal());
            assert_eq!(report.outcome, Outcome::NoSolution, "seed {seed}");
            assert!(made.states >= 100);
            // Each goal position alone is reachable.
            for g in &made.goal.blocks {
                let one = Goal { blocks: vec![*g] };
                let r = solve(&made.tray, &one, &SolveOptions::optimal());
                assert!(matches!(r.outcome, Outcome::Solved(_)), "seed {seed}: {g}");
            }
        }
    }

    #[test]
    fn far_puzzles_are_proven_by_the_optimal_search() {
        let r = DeepRecipe {
            goal_blocks: 9,
            ..recipe(5)
        };
        for seed in 0..3 {
            let m = far_puzzle(&r, 3, 50..1_000_000, 50, &mut rng(seed)).expect("a 4x4 gives one");
            let fewest = m.fewest.unwrap();
            assert!(
                fewest >= 5 && (50..1_000_000).contains(&m.states),
                "seed {seed}"
            );
            let area: u32 = m
                .tray
                .blocks
                .iter()
                .map(|b| b.shape().height * b.shape().width)
                .sum();
            assert!(16 - area >= 3, "seed {seed}: at least 3 empty cells");
            assert_eq!(m.goal.blocks.len(), m.tray.blocks.len(), "the whole layout");
            match solve(&m.tray, &m.goal, &SolveOptions::optimal()).outcome {
                Outcome::Solved(moves) => assert_eq!(moves.len(), fewest),
                other => panic!("seed {seed}: {other:?}"),
            }
        }
    }
}
