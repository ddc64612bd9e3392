//! The solver: search over canonical tray states, where blocks of one shape
//! are interchangeable, so a state is, per shape, the set of top-left
//! corners. A state is a fixed-length byte key (per shape a sorted list of
//! positions, or a bitset when that is shorter), stored once in an arena
//! and found again through a flat hash table of arena indices.
//!
//! A move slides one block any distance in a straight line. The default
//! search is best-first (weighted A*, counting the goal blocks out of place
//! and their distance to the nearest block of their shape): fast, not
//! shortest. `optimal` is breadth-first: fewest moves. Both end with no
//! solution once every reachable state is seen, or give up at `max_states`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::layered::Compact;
use super::outcome::{Outcome, SolveReport};
use super::space::{Layout, Space};
use super::tray::{Goal, Move, Tray};

/// How to search.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Breadth-first: a solution with the fewest moves.
    pub optimal: bool,
    /// Stop (and say so) after this many distinct states.
    pub max_states: usize,
}

/// The default state cap of the breadth-first search (`optimal`): about
/// 2 GB of layers at 8 bytes a state where states have compact codes (the
/// hardest CS61BL puzzle, pandemonium, stores 72 M).
pub const OPTIMAL_MAX_STATES: usize = 250_000_000;

impl SolveOptions {
    /// Breadth-first with the default cap, [`OPTIMAL_MAX_STATES`].
    pub fn optimal() -> Self {
        Self {
            optimal: true,
            max_states: OPTIMAL_MAX_STATES,
        }
    }
}

impl Default for SolveOptions {
    fn default() -> Self {
        Self {
            optimal: false,
            max_states: 40_000_000,
        }
    }
}

/// Which breadth-first search `solve` runs with `optimal` set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimalMethod {
    /// None: a goal position is of a shape the tray lacks, or two overlap,
    /// or a shape has more goal positions than blocks; no solution.
    GoalCannotFit,
    /// Layer by layer over 64-bit codes, on every core (trays of at most
    /// 64 cells whose states fit in 64 bits).
    Layered,
    /// One state at a time through a hash table of byte keys (the rest).
    HashTable,
}

/// The breadth-first search `solve` runs on this puzzle with `optimal`.
pub fn optimal_method(tray: &Tray, goal: &Goal) -> OptimalMethod {
    if Space::new(tray, goal).is_none() {
        OptimalMethod::GoalCannotFit
    } else if Compact::new(tray, goal).is_some() {
        OptimalMethod::Layered
    } else {
        OptimalMethod::HashTable
    }
}

/// The default search first tries the layered breadth-first search over
/// this many states (a few tens of milliseconds): small spaces get their
/// shortest answer at once.
pub const FIRST_BREADTH_FIRST_STATES: usize = 150_000;

/// Solves `tray` for `goal` (both valid: see `parse::read_puzzle`).
///
/// The default search first runs the breadth-first search over compact
/// codes within [`FIRST_BREADTH_FIRST_STATES`] (where the tray has them),
/// then a portfolio of weighted-A* runs, greedier first: each gets a state
/// budget and the next starts over if it runs out; an exhausted search is
/// a proof of no solution whatever its weight.
pub fn solve(tray: &Tray, goal: &Goal, options: &SolveOptions) -> SolveReport {
    let max = options.max_states.max(1);
    // Compact codes first (cheap to rule out): they need a feasible goal.
    let compact = Compact::new(tray, goal).filter(|_| Space::new(tray, goal).is_some());
    if options.optimal
        && let Some(compact) = &compact
    {
        return compact.run(max);
    }
    let plan: &[(Option<u32>, usize)] = if options.optimal {
        &[(None, usize::MAX)]
    } else {
        &[
            (Some(10), 2_000_000),
            (Some(3), 8_000_000),
            (Some(1), usize::MAX),
        ]
    };
    let mut spent = 0;
    if let Some(compact) = &compact {
        let allowed = FIRST_BREADTH_FIRST_STATES.min(max);
        let report = compact.run(allowed);
        if report.outcome != Outcome::GaveUp || allowed >= max {
            return report;
        }
        spent = allowed;
    }
    for &(weight, budget) in plan {
        let Some(space) = Space::new(tray, goal) else {
            return SolveReport {
                outcome: Outcome::NoSolution,
                states: 0,
            };
        };
        let allowed = budget.min(max - spent);
        let report = Search::new(space, weight, allowed).run(tray);
        spent += report.states;
        if report.outcome != Outcome::GaveUp || spent >= max {
            return SolveReport {
                outcome: report.outcome,
                states: spent,
            };
        }
    }
    SolveReport {
        outcome: Outcome::GaveUp,
        states: spent,
    }
}

/// The search's memory: every state once, with how it was reached.
struct Search {
    space: Space,
    /// `None` for breadth-first; else f = depth + weight * heuristic.
    weight: Option<u32>,
    max_states: usize,
    arena: Vec<u8>,
    parent: Vec<u32>,
    /// The move that reached each state: from and to positions.
    via: Vec<(u32, u32)>,
    depth: Vec<u32>,
    table: HashTable<u32>,
    hasher: foldhash::fast::FixedState,
    /// Scratch: occupancy bitset of the state being expanded.
    occupied: Vec<u8>,
}

impl Search {
    fn new(space: Space, weight: Option<u32>, max_states: usize) -> Self {
        let cells = space.cells;
        Self {
            space,
            weight,
            max_states: max_states.max(1),
            arena: Vec::new(),
            parent: Vec::new(),
            via: Vec::new(),
            depth: Vec::new(),
            table: HashTable::new(),
            hasher: foldhash::fast::FixedState::with_seed(0x5b1d),
            occupied: vec![0; cells.div_ceil(8)],
        }
    }

    fn key(&self, i: u32) -> &[u8] {
        let l = self.space.key_len;
        &self.arena[i as usize * l..(i as usize + 1) * l]
    }

    /// Stores `key` unless already seen; its index when new.
    fn insert(&mut self, key: &[u8], parent: u32, via: (u32, u32), depth: u32) -> Option<u32> {
        let hash = self.hasher.hash_one(key);
        let l = self.space.key_len;
        let arena = &self.arena;
        if self
            .table
            .find(hash, |&i| {
                &arena[i as usize * l..(i as usize + 1) * l] == key
            })
            .is_some()
        {
            return None;
        }
        let index = self.parent.len() as u32;
        self.arena.extend_from_slice(key);
        self.parent.push(parent);
        self.via.push(via);
        self.depth.push(depth);
        let arena = &self.arena;
        self.table.insert_unique(hash, index, |&i| {
            self.hasher
                .hash_one(&arena[i as usize * l..(i as usize + 1) * l])
        });
        Some(index)
    }

    fn run(mut self, tray: &Tray) -> SolveReport {
        let start = self.space.encode(tray);
        self.insert(&start, u32::MAX, (0, 0), 0);
        if self.space.is_goal(&start) {
            return self.report(Outcome::Solved(Vec::new()));
        }
        let mut heap = BinaryHeap::new();
        if self.weight.is_some() {
            heap.push(Reverse((self.space.heuristic(&start), 0u32)));
        }
        let mut next_bfs = 0u32;
        let mut children = Vec::new();
        loop {
            let current = if self.weight.is_none() {
                if next_bfs as usize >= self.parent.len() {
                    return self.report(Outcome::NoSolution);
                }
                next_bfs += 1;
                next_bfs - 1
            } else {
                match heap.pop() {
                    Some(Reverse((_, i))) => i,
                    None => return self.report(Outcome::NoSolution),
                }
            };
            children.clear();
            self.expand(current, &mut children);
            let depth = self.depth[current as usize] + 1;
            let l = self.space.key_len;
            for c in 0..children.len() / (l + 8) {
                let rec = &children[c * (l + 8)..(c + 1) * (l + 8)];
                let from = u32::from_le_bytes(rec[l..l + 4].try_into().expect("4 bytes"));
                let to = u32::from_le_bytes(rec[l + 4..l + 8].try_into().expect("4 bytes"));
                let key = &rec[..l];
                let Some(index) = self.insert(key, current, (from, to), depth) else {
                    continue;
                };
                if self.space.is_goal(key) {
                    return self.report(Outcome::Solved(self.path(index)));
                }
                if self.parent.len() >= self.max_states {
                    return self.report(Outcome::GaveUp);
                }
                if let Some(weight) = self.weight {
                    let f = depth + weight * self.space.heuristic(self.key(index));
                    heap.push(Reverse((f, index)));
                }
            }
        }
    }

    /// Appends every successor of state `i` to `out` as key bytes followed
    /// by the move's from and to positions (u32 little-endian each).
    fn expand(&mut self, i: u32, out: &mut Vec<u8>) {
        let space = &self.space;
        let (w, h) = (space.width, space.height);
        let key = &self.arena[i as usize * space.key_len..(i as usize + 1) * space.key_len];
        // Occupancy as a bitset; a bitset class of 1x1 blocks is its own.
        let occ = &mut self.occupied;
        occ.fill(0);
        for (k, shape) in space.shapes.iter().enumerate() {
            if matches!(space.layouts[k], Layout::Bits) && shape.height == 1 && shape.width == 1 {
                let off = space.offsets[k];
                for (o, &b) in occ.iter_mut().zip(&key[off..off + space.cells.div_ceil(8)]) {
                    *o |= b;
                }
            } else {
                space.each_block_of(key, k, |p| {
                    let (r, c) = (p / w, p % w);
                    for rr in r..r + shape.height {
                        for cc in c..c + shape.width {
                            let q = (rr * w + cc) as usize;
                            occ[q / 8] |= 1 << (q % 8);
                        }
                    }
                });
            }
        }
        let occ = &self.occupied;
        let full = |r: u32, c: u32| {
            let q = (r * w + c) as usize;
            occ[q / 8] >> (q % 8) & 1 == 1
        };
        let free_row = |row: u32, c: u32, len: u32| (c..c + len).all(|cc| !full(row, cc));
        let free_col = |col: u32, r: u32, len: u32| (r..r + len).all(|rr| !full(rr, col));
        let emit = |k: usize, from: u32, to: u32, out: &mut Vec<u8>| {
            let start = out.len();
            out.extend_from_slice(key);
            space.relocate(&mut out[start..], k, from, to);
            out.extend_from_slice(&from.to_le_bytes());
            out.extend_from_slice(&to.to_le_bytes());
        };
        for (k, shape) in space.shapes.iter().enumerate() {
            let (bh, bw) = (shape.height, shape.width);
            if matches!(space.layouts[k], Layout::Bits) && bh == 1 && bw == 1 {
                // Many interchangeable 1x1 blocks: start from the empty cells
                // (few, in a full tray) and pull in each 1x1 next to one.
                let off = space.offsets[k];
                let is_unit = |r: u32, c: u32| {
                    let q = (r * w + c) as usize;
                    key[off + q / 8] >> (q % 8) & 1 == 1
                };
                for q in 0..space.cells as u32 {
                    if full(q / w, q % w) {
                        continue;
                    }
                    let (er, ec) = (q / w, q % w);
                    // (neighbour that may slide into the hole, step direction)
                    let dirs: [(bool, i64, i64); 4] = [
                        (er + 1 < h, 1, 0),
                        (er > 0, -1, 0),
                        (ec + 1 < w, 0, 1),
                        (ec > 0, 0, -1),
                    ];
                    for (ok, dr, dc) in dirs {
                        if !ok {
                            continue;
                        }
                        let (nr, nc) = ((i64::from(er) + dr) as u32, (i64::from(ec) + dc) as u32);
                        if !is_unit(nr, nc) {
                            continue;
                        }
                        // Slide from (nr, nc) towards the hole and beyond.
                        let (mut tr, mut tc) = (er, ec);
                        loop {
                            emit(k, nr * w + nc, tr * w + tc, out);
                            let (xr, xc) = (i64::from(tr) - dr, i64::from(tc) - dc);
                            if xr < 0
                                || xc < 0
                                || xr >= i64::from(h)
                                || xc >= i64::from(w)
                                || full(xr as u32, xc as u32)
                            {
                                break;
                            }
                            (tr, tc) = (xr as u32, xc as u32);
                        }
                    }
                }
                continue;
            }
            space.each_block_of(key, k, |p| {
                let (r, c) = (p / w, p % w);
                let mut d = 1;
                while d <= r && free_row(r - d, c, bw) {
                    emit(k, p, p - d * w, out);
                    d += 1;
                }
                let mut d = 1;
                while r + bh - 1 + d < h && free_row(r + bh - 1 + d, c, bw) {
                    emit(k, p, p + d * w, out);
                    d += 1;
                }
                let mut d = 1;
                while d <= c && free_col(c - d, r, bh) {
                    emit(k, p, p - d, out);
                    d += 1;
                }
                let mut d = 1;
                while c + bw - 1 + d < w && free_col(c + bw - 1 + d, r, bh) {
                    emit(k, p, p + d, out);
                    d += 1;
                }
            });
        }
    }

    fn path(&self, mut i: u32) -> Vec<Move> {
        let w = self.space.width;
        let mut moves = Vec::new();
        while self.parent[i as usize] != u32::MAX {
            let (from, to) = self.via[i as usize];
            moves.push(Move::new(from / w, from % w, to / w, to % w));
            i = self.parent[i as usize];
        }
        moves.reverse();
        moves
    }

    fn report(&self, outcome: Outcome) -> SolveReport {
        SolveReport {
            outcome,
            states: self.parent.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slidingblock::check::replay;
    use crate::slidingblock::parse::{Format, parse_goal, parse_tray};

    fn puzzle(tray: &str, goal: &str) -> (Tray, Goal) {
        let t = parse_tray(tray.as_bytes(), Format::Corners).unwrap();
        let g = parse_goal(goal.as_bytes(), Format::Corners, &t).unwrap();
        (t, g)
    }

    fn solves(t: &Tray, g: &Goal, moves: &[Move]) -> bool {
        let lines: Vec<(usize, Move)> = moves.iter().copied().enumerate().collect();
        replay(t, &lines).is_ok_and(|b| b.unmet(g).is_none())
    }

    #[test]
    fn swaps_two_blocks_around_a_hole() {
        let (t, g) = puzzle("2 2\n0 0 0 0\n0 1 1 1\n", "1 0 1 0\n");
        for optimal in [false, true] {
            let r = solve(
                &t,
                &g,
                &SolveOptions {
                    optimal,
                    ..Default::default()
                },
            );
            let Outcome::Solved(moves) = r.outcome else {
                panic!("{r:?}")
            };
            assert!(solves(&t, &g, &moves));
            if optimal {
                assert_eq!(moves, [Move::new(0, 0, 1, 0)]);
            }
        }
    }

    #[test]
    fn unsolvable_and_trivial() {
        let (t, g) = puzzle("1 3\n0 0 0 0\n0 1 0 1\n", "0 2 0 2\n0 0 0 0\n");
        assert_eq!(
            solve(&t, &g, &SolveOptions::default()).outcome,
            Outcome::Solved(vec![Move::new(0, 1, 0, 2)])
        );
        let (t, g) = puzzle("1 3\n0 0 0 0\n0 1 0 1\n", "0 0 0 1\n");
        assert_eq!(
            solve(&t, &g, &SolveOptions::default()).outcome,
            Outcome::NoSolution
        );
        let (t, g) = puzzle("1 2\n0 0 0 0\n", "0 0 0 0\n");
        assert_eq!(
            solve(&t, &g, &SolveOptions::default()).outcome,
            Outcome::Solved(vec![])
        );
        // A 1x1 can never pass another in a 1-row tray.
        let (t, g) = puzzle("1 3\n0 0 0 0\n0 1 0 1\n", "0 0 0 0\n0 2 0 2\n");
        assert_eq!(
            solve(&t, &g, &SolveOptions::default()).outcome,
            Outcome::Solved(vec![Move::new(0, 1, 0, 2)])
        );
    }

    /// The layered search over compact codes and the hash-table
    /// breadth-first search agree on the fewest moves, on solvable and
    /// unsolvable random puzzles, and both answers replay to the goal.
    #[test]
    fn layered_and_hash_breadth_first_agree() {
        use crate::lightsout::rng;
        use crate::slidingblock::generate::{Recipe, random_puzzle};
        use crate::slidingblock::layered::Compact;
        let recipes = [
            (4, 4, 8, 2),
            (5, 4, 10, 2),
            (3, 5, 9, 3),
            (6, 3, 12, 2),
            (4, 6, 9, 3),
        ];
        let (mut compared, mut unsolvable) = (0, 0);
        for (h, w, blocks, max_side) in recipes {
            for seed in 0..40 {
                let recipe = Recipe {
                    height: h,
                    width: w,
                    blocks,
                    max_side,
                    walk: 60,
                    goal_blocks: 1 + (seed as usize % 3),
                };
                let (t, g) = random_puzzle(&recipe, &mut rng(seed));
                // Every other seed, a goal from another layout: often unreachable.
                let g = if seed % 2 == 1 {
                    let (other, _) = random_puzzle(&recipe, &mut rng(seed + 1000));
                    Goal {
                        blocks: other.blocks.into_iter().take(2).collect(),
                    }
                } else {
                    g
                };
                let Some(space) = Space::new(&t, &g) else {
                    continue;
                };
                let Some(compact) = Compact::new(&t, &g) else {
                    continue;
                };
                let layered = compact.run(usize::MAX);
                let hashed = Search::new(space, None, usize::MAX).run(&t);
                match (&layered.outcome, &hashed.outcome) {
                    (Outcome::Solved(a), Outcome::Solved(b)) => {
                        assert_eq!(a.len(), b.len(), "{h}x{w} seed {seed}");
                        assert!(solves(&t, &g, a), "{h}x{w} seed {seed}");
                    }
                    (Outcome::NoSolution, Outcome::NoSolution) => {
                        assert_eq!(layered.states, hashed.states, "{h}x{w} seed {seed}");
                        unsolvable += 1;
                    }
                    other => panic!("{h}x{w} seed {seed}: {other:?}"),
                }
                compared += 1;
            }
        }
        assert!(compared > 150 && unsolvable > 10, "{compared} {unsolvable}");
    }

    #[test]
    fn gives_up_at_the_state_cap() {
        let (t, g) = puzzle("3 3\n0 0 0 0\n0 1 0 1\n1 1 1 1\n", "2 2 2 2\n");
        let r = solve(
            &t,
            &g,
            &SolveOptions {
                optimal: true,
                max_states: 2,
            },
        );
        assert_eq!((r.outcome, r.states), (Outcome::GaveUp, 2));
    }
}
