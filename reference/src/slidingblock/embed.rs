//! Big trays from small puzzles: [`embed`] puts a puzzle into a big tray
//! filled with blocks that can never move ([`frozen`] proves which cannot),
//! so the puzzle keeps its reachable layouts and fewest moves.

use super::tray::{Block, Goal, Tray};

/// `tray` and `goal` put into a `height` x `width` tray with their top-left
/// corner at (`row`, `col`) (at least 1 each, and room on every side), the
/// rest filled with blocks of sides up to `max_side` that can never move:
/// four around the puzzle in a pinwheel (each reaches one cell past a
/// corner of it, so none has a side that only the puzzle's cells face),
/// then the rest filled row by row. The puzzle's reachable layouts and
/// fewest moves are the small one's.
pub fn embed(
    tray: &Tray,
    goal: &Goal,
    (height, width): (u32, u32),
    (row, col): (u32, u32),
    max_side: u32,
) -> Option<(Tray, Goal)> {
    let (r0, c0) = (row, col);
    let (r1, c1) = (row + tray.height - 1, col + tray.width - 1);
    if r0 == 0 || c0 == 0 || r1 + 2 > height || c1 + 2 > width || max_side == 0 {
        return None;
    }
    let shift = |b: &Block| Block::new(b.top + row, b.left + col, b.bottom + row, b.right + col);
    let mut taken = vec![false; (height * width) as usize];
    let mut blocks: Vec<Block> = tray.blocks.iter().map(shift).collect();
    for r in r0..=r1 {
        taken[(r * width + c0) as usize..=(r * width + c1) as usize].fill(true);
    }
    let pinwheel = [
        Block::new(r0, c1 + 1, r1 + 1, c1 + 1),
        Block::new(r1 + 1, c0 - 1, r1 + 1, c1),
        Block::new(r0 - 1, c0 - 1, r1, c0 - 1),
        Block::new(r0 - 1, c0, r0 - 1, c1 + 1),
    ];
    let put = |b: Block, blocks: &mut Vec<Block>, taken: &mut Vec<bool>| {
        for r in b.top..=b.bottom {
            taken[(r * width + b.left) as usize..=(r * width + b.right) as usize].fill(true);
        }
        blocks.push(b);
    };
    for b in pinwheel {
        put(b, &mut blocks, &mut taken);
    }
    for r in 0..height {
        for c in 0..width {
            if taken[(r * width + c) as usize] {
                continue;
            }
            let mut right = c;
            while right + 1 < width
                && right + 1 - c < max_side
                && !taken[(r * width + right + 1) as usize]
            {
                right += 1;
            }
            let mut bottom = r;
            while bottom + 1 < height
                && bottom + 1 - r < max_side
                && (c..=right).all(|x| !taken[((bottom + 1) * width + x) as usize])
            {
                bottom += 1;
            }
            put(Block::new(r, c, bottom, right), &mut blocks, &mut taken);
        }
    }
    let big = Tray {
        height,
        width,
        blocks,
    };
    let goal = Goal {
        blocks: goal.blocks.iter().map(shift).collect(),
    };
    Some((big, goal))
}

/// The blocks of `tray` (by index) that can never move whatever the others
/// do: the largest set each of whose blocks has, on every side, the tray's
/// edge or a cell of a block of the set.
pub fn frozen(tray: &Tray) -> Vec<bool> {
    let (h, w) = (tray.height, tray.width);
    let mut owner = vec![0u32; (h * w) as usize];
    for (i, b) in tray.blocks.iter().enumerate() {
        for r in b.top..=b.bottom {
            owner[(r * w + b.left) as usize..=(r * w + b.right) as usize].fill(i as u32 + 1);
        }
    }
    let mut set = vec![true; tray.blocks.len()];
    let held = |set: &[bool], r: u32, c: u32| {
        let o = owner[(r * w + c) as usize];
        o != 0 && set[o as usize - 1]
    };
    loop {
        let mut changed = false;
        for (i, b) in tray.blocks.iter().enumerate() {
            if !set[i] {
                continue;
            }
            let stuck = (b.top == 0 || (b.left..=b.right).any(|c| held(&set, b.top - 1, c)))
                && (b.bottom + 1 == h || (b.left..=b.right).any(|c| held(&set, b.bottom + 1, c)))
                && (b.left == 0 || (b.top..=b.bottom).any(|r| held(&set, r, b.left - 1)))
                && (b.right + 1 == w || (b.top..=b.bottom).any(|r| held(&set, r, b.right + 1)));
            if !stuck {
                set[i] = false;
                changed = true;
            }
        }
        if !changed {
            return set;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lightsout::rng;
    use crate::slidingblock::generate::deep_puzzle;
    use crate::slidingblock::generate::tests::recipe;
    use crate::slidingblock::outcome::Outcome;
    use crate::slidingblock::solve::{SolveOptions, solve};

    #[test]
    fn an_embedded_puzzle_keeps_its_fewest_moves_and_its_fillers_never_move() {
        let made = deep_puzzle(&recipe(10), &mut rng(3)).unwrap();
        let (big, goal) = embed(&made.tray, &made.goal, (40, 30), (7, 9), 6).unwrap();
        let still = frozen(&big);
        let n = made.tray.blocks.len();
        assert!(still[n..].iter().all(|&f| f), "a filler can move");
        assert!(big.blocks.len() > n + 20);
        let mut cells = 0;
        for b in &big.blocks {
            let s = b.shape();
            cells += s.height * s.width;
        }
        let free: u32 = 16
            - made
                .tray
                .blocks
                .iter()
                .map(|b| b.shape().height * b.shape().width)
                .sum::<u32>();
        assert_eq!(
            cells,
            40 * 30 - free,
            "everything but the puzzle's holes is filled"
        );
        match solve(&big, &goal, &SolveOptions::optimal()).outcome {
            Outcome::Solved(m) => assert_eq!(m.len(), 10),
            other => panic!("{other:?}"),
        }
        // A filler beside a free strip is not frozen.
        let open = Tray {
            height: 1,
            width: 3,
            blocks: vec![Block::new(0, 0, 0, 0)],
        };
        assert_eq!(frozen(&open), vec![false]);
        assert!(embed(&made.tray, &made.goal, (40, 30), (0, 9), 6).is_none());
    }
}
