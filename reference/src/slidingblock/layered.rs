//! Proven fewest moves for trays of at most 64 cells, by breadth-first
//! search one layer at a time over compact state codes.
//!
//! A state's code scans the cells in row-major order, skipping cells that a
//! block already met covers, and writes one symbol per cell met: 0 for an
//! empty cell, `k + 1` for the top-left corner of a block of shape `k`.
//! Blocks of one shape are interchangeable, so this is canonical, and with
//! few empty cells it is short: pandemonium (6 x 6, 19 blocks in 5 shapes,
//! 2 empty cells) needs 21 symbols of 3 bits, one `u64`.
//!
//! Moves are reversible, so the neighbours of layer `d` lie in layers
//! `d - 1`, `d` and `d + 1`: layer `d + 1` is the sorted, deduplicated
//! successors of layer `d` minus layers `d` and `d - 1` (delayed duplicate
//! detection; no hash table). Expansion and sorting run on every core.
//! Layers are kept, 8 bytes a state, and the path is found backwards: a
//! neighbour of the goal in the layer before it, and so on to the start.

use rayon::prelude::*;

use super::outcome::{Outcome, SolveReport};
use super::tray::{Goal, Move, Shape, Tray};

/// At most this many shapes (symbols 1..=15 in four bits).
const MAX_SHAPES: usize = 15;

/// Frontier states expanded per task.
const CHUNK: usize = 1 << 14;

/// Everything fixed for one puzzle.
pub(super) struct Compact {
    width: u32,
    cells: u32,
    /// Per shape, per top-left cell, the cells the block covers (0 where
    /// the block does not fit).
    foot: Vec<[u64; 64]>,
    /// Per shape, per top-left cell, the next top-left cell one step up,
    /// down, left and right where the block still fits (64 = none).
    step: Vec<[[u8; 4]; 64]>,
    shapes: usize,
    /// Per shape, (height, width).
    sizes: Vec<(u32, u32)>,
    /// Every cell of the tray.
    all: u64,
    /// Symbols per state (blocks plus empty cells) and bits per symbol.
    slots: u32,
    bits: u32,
    /// Per shape, the top-left cells the goal wants.
    goal: Vec<u64>,
    start: u64,
}

/// A decoded state: top-left corners per shape, and every covered cell.
struct State {
    code: u64,
    corners: [u64; MAX_SHAPES],
    occupied: u64,
    /// Per cell, the symbol of the block whose corner is there (0 if none).
    symbol: [u8; 64],
    /// Per cell `i` (and `cells`), the cells that blocks with corners
    /// before `i` cover, and the symbols written before `i`: where a
    /// child's scan may start.
    covered_before: [u64; 65],
    slots_before: [u8; 65],
}

impl Compact {
    /// `None` when the tray is over 64 cells or a state does not fit in 64
    /// bits; the caller then uses the general search. `goal` must be
    /// feasible (no overlaps, no more positions of a shape than blocks).
    pub(super) fn new(tray: &Tray, goal: &Goal) -> Option<Self> {
        let (h, w) = (tray.height, tray.width);
        let cells = h * w;
        if cells > 64 {
            return None;
        }
        let mut shapes: Vec<Shape> = tray.blocks.iter().map(|b| b.shape()).collect();
        shapes.sort();
        shapes.dedup();
        if shapes.len() > MAX_SHAPES {
            return None;
        }
        let bits = (shapes.len() as u32 + 1)
            .next_power_of_two()
            .trailing_zeros();
        let area: u32 = tray
            .blocks
            .iter()
            .map(|b| b.shape().height * b.shape().width)
            .sum();
        let slots = tray.blocks.len() as u32 + (cells - area);
        if slots * bits > 64 {
            return None;
        }
        let mut foot = vec![[0u64; 64]; shapes.len()];
        let mut step = vec![[[64u8; 4]; 64]; shapes.len()];
        for (k, s) in shapes.iter().enumerate() {
            let fits = |r: u32, c: u32| r + s.height <= h && c + s.width <= w;
            for r in 0..h {
                for c in 0..w {
                    if !fits(r, c) {
                        continue;
                    }
                    let p = (r * w + c) as usize;
                    for rr in r..r + s.height {
                        for cc in c..c + s.width {
                            foot[k][p] |= 1 << (rr * w + cc);
                        }
                    }
                    let up = (r > 0).then(|| (r - 1, c));
                    let down = fits(r + 1, c).then_some((r + 1, c));
                    let left = (c > 0).then(|| (r, c - 1));
                    let right = fits(r, c + 1).then_some((r, c + 1));
                    for (d, to) in [up, down, left, right].into_iter().enumerate() {
                        if let Some((r2, c2)) = to {
                            step[k][p][d] = (r2 * w + c2) as u8;
                        }
                    }
                }
            }
        }
        let index = |s: Shape| shapes.binary_search(&s).expect("every shape is known");
        let mut goal_corners = vec![0u64; shapes.len()];
        for b in &goal.blocks {
            // A goal shape the tray lacks: no solution (the caller's check).
            let k = shapes.binary_search(&b.shape()).ok()?;
            goal_corners[k] |= 1 << (b.top * w + b.left);
        }
        let mut compact = Self {
            width: w,
            cells,
            foot,
            step,
            shapes: shapes.len(),
            sizes: shapes.iter().map(|s| (s.height, s.width)).collect(),
            all: u64::MAX >> (64 - cells),
            slots,
            bits,
            goal: goal_corners,
            start: 0,
        };
        let mut symbol = [0u8; 64];
        for b in &tray.blocks {
            symbol[(b.top * w + b.left) as usize] = index(b.shape()) as u8 + 1;
        }
        compact.start = compact.encode(&symbol);
        Some(compact)
    }

    fn encode(&self, symbol: &[u8; 64]) -> u64 {
        let mut code = 0u64;
        let mut covered = 0u64;
        let mut i = 0;
        while i < self.cells {
            if covered >> i & 1 == 0 {
                let s = symbol[i as usize];
                code = code << self.bits | u64::from(s);
                if s != 0 {
                    covered |= self.foot[s as usize - 1][i as usize];
                }
            }
            i += 1;
        }
        code
    }

    fn decode(&self, code: u64) -> State {
        let mut state = State {
            code,
            corners: [0; MAX_SHAPES],
            occupied: 0,
            symbol: [0; 64],
            covered_before: [0; 65],
            slots_before: [0; 65],
        };
        let mask = (1u64 << self.bits) - 1;
        let mut shift = self.slots * self.bits;
        let mut slot = 0u8;
        for i in 0..self.cells as usize {
            state.covered_before[i] = state.occupied;
            state.slots_before[i] = slot;
            if state.occupied >> i & 1 == 1 {
                continue;
            }
            slot += 1;
            shift -= self.bits;
            let s = (code >> shift & mask) as usize;
            if s != 0 {
                state.corners[s - 1] |= 1 << i;
                state.occupied |= self.foot[s - 1][i];
                state.symbol[i] = s as u8;
            }
        }
        state.covered_before[self.cells as usize] = state.occupied;
        state.slots_before[self.cells as usize] = slot;
        state
    }

    /// The code of `state` with its block of shape `k` moved from `p` to
    /// `q` (`state.symbol` already says so): only the cells from the first
    /// of the two corners to the last cell of the two footprints are
    /// scanned again; before and after, the symbols are the parent's.
    fn encode_child(&self, state: &State, k: usize, p: usize, q: usize) -> u64 {
        let lo = p.min(q);
        let hi = 63 - (self.foot[k][p] | self.foot[k][q]).leading_zeros() as usize;
        let mut covered = state.covered_before[lo];
        let mut middle = 0u64;
        for j in lo..=hi {
            if covered >> j & 1 == 0 {
                let s = state.symbol[j];
                middle = middle << self.bits | u64::from(s);
                if s != 0 {
                    covered |= self.foot[s as usize - 1][j];
                }
            }
        }
        let after = self.bits * (self.slots - u32::from(state.slots_before[hi + 1]));
        let from = self.bits * (self.slots - u32::from(state.slots_before[lo]));
        let prefix = state.code.checked_shr(from).unwrap_or(0);
        let prefix = prefix.checked_shl(from).unwrap_or(0);
        let suffix = state.code & ((1u64 << after) - 1);
        prefix | middle << after | suffix
    }

    fn is_goal(&self, corners: &[u64; MAX_SHAPES]) -> bool {
        (0..self.shapes).all(|k| corners[k] & self.goal[k] == self.goal[k])
    }

    /// Calls `f(child, from, to, is_goal)` for every state one move away.
    fn expand(&self, code: u64, mut f: impl FnMut(u64, u32, u32, bool)) {
        let mut state = self.decode(code);
        let empty = !state.occupied & self.all;
        for k in 0..self.shapes {
            let (h, w) = self.sizes[k];
            // A block can move only if the cell next to its corner on that
            // side is empty (spurious candidates at row ends have no step).
            let next_to_empty = [
                empty.checked_shl(self.width).unwrap_or(0),
                empty.checked_shr(h * self.width).unwrap_or(0),
                empty << 1,
                empty.checked_shr(w).unwrap_or(0),
            ];
            for (d, near) in next_to_empty.into_iter().enumerate() {
                let mut blocks = state.corners[k] & near;
                while blocks != 0 {
                    let p = blocks.trailing_zeros() as usize;
                    blocks &= blocks - 1;
                    let rest = state.occupied & !self.foot[k][p];
                    let mut q = self.step[k][p][d] as usize;
                    while q < 64 && self.foot[k][q] & rest == 0 {
                        state.symbol[p] = 0;
                        state.symbol[q] = k as u8 + 1;
                        let child = self.encode_child(&state, k, p, q);
                        state.symbol[q] = 0;
                        state.symbol[p] = k as u8 + 1;
                        state.corners[k] ^= 1 << p | 1 << q;
                        let goal = self.is_goal(&state.corners);
                        state.corners[k] ^= 1 << p | 1 << q;
                        f(child, p as u32, q as u32, goal);
                        q = self.step[k][q][d] as usize;
                    }
                }
            }
        }
    }

    /// Breadth-first search; gives up (saying `max_states` states) when the
    /// next layer would take the states stored past `max_states`.
    pub(super) fn run(&self, max_states: usize) -> SolveReport {
        let start_corners = self.decode(self.start).corners;
        if self.is_goal(&start_corners) {
            return report(Outcome::Solved(Vec::new()), 1);
        }
        let mut layers: Vec<Vec<u64>> = vec![vec![self.start]];
        let mut stored = 1usize;
        loop {
            let frontier = layers.last().expect("the start layer");
            let parts: Vec<(Vec<u64>, Option<u64>)> = frontier
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut out = Vec::with_capacity(chunk.len() * 8);
                    let mut hit = None;
                    for &s in chunk {
                        self.expand(s, |child, _, _, goal| {
                            if goal {
                                hit = Some(child);
                            }
                            out.push(child);
                        });
                    }
                    out.sort_unstable();
                    out.dedup();
                    (out, hit)
                })
                .collect();
            if let Some(goal) = parts.iter().find_map(|(_, hit)| *hit) {
                return report(Outcome::Solved(self.path(&layers, goal)), stored);
            }
            let mut next = concat(parts);
            next.par_sort_unstable();
            next.dedup();
            let previous: &[u64] = match layers.len() {
                1 => &[],
                n => &layers[n - 2],
            };
            let next = subtract(subtract(next, frontier), previous);
            if next.is_empty() {
                return report(Outcome::NoSolution, stored);
            }
            if stored + next.len() > max_states {
                return report(Outcome::GaveUp, max_states);
            }
            stored += next.len();
            layers.push(next);
        }
    }

    /// The moves from the start to `goal`, a child of the last layer.
    fn path(&self, layers: &[Vec<u64>], goal: u64) -> Vec<Move> {
        let w = self.width;
        let mut moves = Vec::with_capacity(layers.len());
        let mut current = goal;
        for layer in layers.iter().rev() {
            let mut back = None;
            self.expand(current, |child, from, to, _| {
                if back.is_none() && layer.binary_search(&child).is_ok() {
                    back = Some((child, from, to));
                }
            });
            let (child, from, to) = back.expect("a layer's state has a parent in the layer before");
            // `current` reached `child` by from -> to; forwards it is to -> from.
            moves.push(Move::new(to / w, to % w, from / w, from % w));
            current = child;
        }
        moves.reverse();
        moves
    }
}

/// `a` without the elements of `b`; both sorted, `a` without duplicates.
fn subtract(mut a: Vec<u64>, b: &[u64]) -> Vec<u64> {
    let mut j = 0;
    a.retain(|x| {
        while j < b.len() && b[j] < *x {
            j += 1;
        }
        j >= b.len() || b[j] != *x
    });
    a
}

/// The parts' states, one vector, copied on every core.
fn concat(parts: Vec<(Vec<u64>, Option<u64>)>) -> Vec<u64> {
    let total = parts.iter().map(|(v, _)| v.len()).sum();
    let mut all = vec![0u64; total];
    let mut rest = all.as_mut_slice();
    let mut jobs = Vec::with_capacity(parts.len());
    for (v, _) in &parts {
        let (head, tail) = rest.split_at_mut(v.len());
        jobs.push((head, v));
        rest = tail;
    }
    jobs.into_par_iter()
        .for_each(|(to, from)| to.copy_from_slice(from));
    all
}

fn report(outcome: Outcome, states: usize) -> SolveReport {
    SolveReport { outcome, states }
}
