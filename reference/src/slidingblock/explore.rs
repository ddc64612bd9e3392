//! A plain breadth-first exploration of a tray's reachable layouts, kept
//! layer by layer, for the generator: it picks a puzzle's goal from a layer
//! at the depth it wants and knows that goal's fewest moves (the first
//! layer holding a layout that meets it). Blocks of one shape are
//! interchangeable, so a layout is its blocks sorted by shape, then corner.
//! Meant for small trays (the generator's); the solver's searches are the
//! fast ones.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::tray::{Block, Goal, Tray};

/// A layout: the blocks in canonical order (shape, then top-left corner).
pub type Layout = Box<[Block]>;

/// The layouts reachable from a tray, by depth (fewest moves from it).
pub struct Layers {
    height: u32,
    width: u32,
    /// Every layout seen, layer after layer.
    layouts: Vec<Layout>,
    /// Where each depth's layer starts in `layouts` (one more entry than
    /// there are layers: the last is `layouts.len()`).
    starts: Vec<usize>,
    complete: bool,
}

fn key(b: &Block) -> (u32, u32, u32, u32) {
    let s = b.shape();
    (s.height, s.width, b.top, b.left)
}

/// `blocks` in canonical order.
pub fn canonical(blocks: &[Block]) -> Layout {
    let mut v = blocks.to_vec();
    v.sort_unstable_by_key(key);
    v.into_boxed_slice()
}

/// Whether `layout` (canonical) holds every goal position.
pub fn meets(layout: &[Block], goal: &Goal) -> bool {
    goal.blocks
        .iter()
        .all(|g| layout.binary_search_by_key(&key(g), key).is_ok())
}

impl Layers {
    /// Explores breadth-first from `tray` until every reachable layout is
    /// seen or `max_states` are (the last layer then partial: a layout's
    /// depth is exact all the same, breadth-first finds each at its depth).
    pub fn explore(tray: &Tray, max_states: usize) -> Layers {
        let hasher = foldhash::fast::FixedState::with_seed(26);
        let hash = |l: &[Block]| hasher.hash_one(l);
        let mut layouts: Vec<Layout> = vec![canonical(&tray.blocks)];
        let mut table: HashTable<u32> = HashTable::new();
        table.insert_unique(hash(&layouts[0]), 0, |&i| hash(&layouts[i as usize]));
        let mut starts = vec![0, 1];
        let (h, w) = (tray.height, tray.width);
        let mut owner = vec![0u32; (h * w) as usize];
        let mut complete = true;
        'layers: while starts[starts.len() - 2] < starts[starts.len() - 1] {
            let (from, to) = (starts[starts.len() - 2], starts[starts.len() - 1]);
            for at in from..to {
                let layout = layouts[at].clone();
                owner.fill(0);
                for (i, b) in layout.iter().enumerate() {
                    for r in b.top..=b.bottom {
                        let row = (r * w) as usize;
                        owner[row + b.left as usize..=row + b.right as usize].fill(i as u32 + 1);
                    }
                }
                let free = |r: u32, c: u32| owner[(r * w + c) as usize] == 0;
                for (i, b) in layout.iter().enumerate() {
                    for dir in 0..4 {
                        let mut cur = *b;
                        loop {
                            // The strip the block's leading side moves into.
                            let open = match dir {
                                0 => {
                                    cur.top > 0
                                        && (cur.left..=cur.right).all(|c| free(cur.top - 1, c))
                                }
                                1 => {
                                    cur.bottom + 1 < h
                                        && (cur.left..=cur.right).all(|c| free(cur.bottom + 1, c))
                                }
                                2 => {
                                    cur.left > 0
                                        && (cur.top..=cur.bottom).all(|r| free(r, cur.left - 1))
                                }
                                _ => {
                                    cur.right + 1 < w
                                        && (cur.top..=cur.bottom).all(|r| free(r, cur.right + 1))
                                }
                            };
                            if !open {
                                break;
                            }
                            cur = match dir {
                                0 => cur.moved_to(cur.top - 1, cur.left),
                                1 => cur.moved_to(cur.top + 1, cur.left),
                                2 => cur.moved_to(cur.top, cur.left - 1),
                                _ => cur.moved_to(cur.top, cur.left + 1),
                            };
                            let mut next = layout.to_vec();
                            next[i] = cur;
                            let next = canonical(&next);
                            let hv = hash(&next);
                            if table.find(hv, |&j| layouts[j as usize] == next).is_none() {
                                if layouts.len() >= max_states {
                                    complete = false;
                                    break 'layers;
                                }
                                table.insert_unique(hv, layouts.len() as u32, |&j| {
                                    hash(&layouts[j as usize])
                                });
                                layouts.push(next);
                            }
                        }
                    }
                }
            }
            starts.push(layouts.len());
        }
        if *starts.last().unwrap_or(&0) != layouts.len() {
            starts.push(layouts.len());
        }
        // The last entry closes the last non-empty layer.
        while starts.len() > 1 && starts[starts.len() - 1] == starts[starts.len() - 2] {
            starts.pop();
        }
        Layers {
            height: h,
            width: w,
            layouts,
            starts,
            complete,
        }
    }

    /// Whether every reachable layout was seen.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// Layouts seen.
    pub fn len(&self) -> usize {
        self.layouts.len()
    }

    /// Whether none were (never: the start is one).
    pub fn is_empty(&self) -> bool {
        self.layouts.is_empty()
    }

    /// The deepest depth with a layout seen.
    pub fn depth(&self) -> usize {
        self.starts.len() - 2
    }

    /// The layouts at `depth` fewest moves from the start.
    pub fn layer(&self, depth: usize) -> &[Layout] {
        &self.layouts[self.starts[depth]..self.starts[depth + 1]]
    }

    /// The fewest moves to a layout meeting `goal`, among those seen.
    pub fn fewest(&self, goal: &Goal) -> Option<usize> {
        (0..=self.depth()).find(|&d| self.layer(d).iter().any(|l| meets(l, goal)))
    }

    /// The block positions first held at `depth` (none shallower holds
    /// them), in a fixed order.
    pub fn first_reached(&self, depth: usize) -> Vec<Block> {
        let mut seen: std::collections::HashSet<(u32, u32, u32, u32)> = Default::default();
        for d in 0..depth {
            for l in self.layer(d) {
                seen.extend(l.iter().map(key));
            }
        }
        let mut out: Vec<Block> = Vec::new();
        for l in self.layer(depth) {
            for b in l.iter() {
                if seen.insert(key(b)) {
                    out.push(*b);
                }
            }
        }
        out
    }

    /// Pairs of block positions each held by some layout seen but never
    /// both by one, not overlapping, of blocks the start has enough of (a
    /// goal no reachable layout meets when the exploration is complete), in
    /// a fixed order.
    pub fn never_together(&self) -> Vec<(Block, Block)> {
        let mut index: std::collections::HashMap<(u32, u32, u32, u32), usize> = Default::default();
        let mut positions: Vec<Block> = Vec::new();
        for l in &self.layouts {
            for b in l.iter() {
                index.entry(key(b)).or_insert_with(|| {
                    positions.push(*b);
                    positions.len() - 1
                });
            }
        }
        let n = positions.len();
        let mut together = vec![false; n * n];
        let mut ids = Vec::new();
        for l in &self.layouts {
            ids.clear();
            ids.extend(l.iter().map(|b| index[&key(b)]));
            for &a in &ids {
                for &b in &ids {
                    together[a * n + b] = true;
                }
            }
        }
        let start = &self.layouts[0];
        let count = |s| start.iter().filter(|b| b.shape() == s).count();
        let mut out = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let (pa, pb) = (positions[a], positions[b]);
                let enough = pa.shape() != pb.shape() || count(pa.shape()) >= 2;
                if !together[a * n + b] && !pa.overlaps(&pb) && enough {
                    out.push((pa, pb));
                }
            }
        }
        out
    }

    /// Whether some layout seen holds block position `b`.
    pub fn ever_holds(&self, b: &Block) -> bool {
        self.layouts
            .iter()
            .any(|l| l.binary_search_by_key(&key(b), key).is_ok())
    }

    /// A layout as a tray.
    pub fn tray(&self, layout: &[Block]) -> Tray {
        Tray {
            height: self.height,
            width: self.width,
            blocks: layout.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slidingblock::outcome::Outcome;
    use crate::slidingblock::solve::{SolveOptions, solve};

    fn tray(h: u32, w: u32, blocks: &[(u32, u32, u32, u32)]) -> Tray {
        Tray {
            height: h,
            width: w,
            blocks: blocks
                .iter()
                .map(|&(a, b, c, d)| Block::new(a, b, c, d))
                .collect(),
        }
    }

    #[test]
    fn one_block_in_a_row_reaches_each_cell_in_one_slide() {
        let l = Layers::explore(&tray(1, 5, &[(0, 0, 0, 0)]), 100);
        assert!(l.complete());
        assert_eq!((l.len(), l.depth(), l.layer(1).len()), (5, 1, 4));
    }

    #[test]
    fn depths_agree_with_the_optimal_solver() {
        // Pennant: the 2x2 from the top left to the bottom left, 62 moves.
        let t = tray(
            5,
            4,
            &[
                (0, 0, 1, 1),
                (0, 2, 0, 3),
                (1, 2, 1, 3),
                (2, 0, 2, 0),
                (2, 1, 2, 1),
                (3, 0, 4, 0),
                (3, 1, 4, 1),
                (3, 2, 3, 3),
                (4, 2, 4, 3),
            ],
        );
        let l = Layers::explore(&t, 1_000_000);
        assert!(l.complete());
        let goal = Goal {
            blocks: vec![Block::new(3, 0, 4, 1)],
        };
        let fewest = l.fewest(&goal).unwrap();
        assert_eq!(fewest, 62);
        match solve(&t, &goal, &SolveOptions::optimal()).outcome {
            Outcome::Solved(m) => assert_eq!(m.len(), fewest),
            other => panic!("{other:?}"),
        }
        // A whole layout from a layer is exactly that deep.
        let far = l.layer(l.depth())[0].to_vec();
        let goal = Goal { blocks: far };
        match solve(&t, &goal, &SolveOptions::optimal()).outcome {
            Outcome::Solved(m) => assert_eq!(m.len(), l.depth()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_capped_exploration_says_so() {
        let l = Layers::explore(&tray(4, 4, &[(0, 0, 0, 0), (1, 1, 1, 1)]), 10);
        assert!(!l.complete());
        assert_eq!(l.len(), 10);
    }
}
