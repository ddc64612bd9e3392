//! Exact minimum-press search by Walsh-Hadamard transform, for null spaces
//! too large to walk one solution at a time over the whole board.
//!
//! The solutions are `p + sum c_i q_i` over the quiet patterns `q_i`, one
//! per `c` in F_2^k. Give each cell its column `v` (bit `i` set when `q_i`
//! has the cell) and a sign `s` (+1 when `p` leaves it off, -1 when on).
//! The cell is pressed by solution `c` exactly when `p`'s bit differs from
//! the parity of `c . v`, so the press count is `(cells - F(c)) / 2` with
//! `F(c) = sum over cells of s * (-1)^(c . v)`: `F` is the Walsh-Hadamard
//! transform of the signs gathered by column, and the fewest presses are at
//! its largest value.
//!
//! With `c` split into `a` (the low `k - b` bits) and `b` (the high `b`
//! bits), for each `a` the signs are gathered into a table over the high
//! bits of `v`, each times `(-1)^(a . v)`, and one transform of 2^b entries
//! gives `F(a, b)` for every `b`. The work is
//! `2^(k-b) * (columns + b * 2^b)`, spread over every core: 2^k solutions
//! for about `b` additions each instead of one pass over the board each.
//!
//! Two things make it fast. Sixteen settings of `a` (its lowest four bits)
//! share one table, one to a lane of each row, so every level of the
//! transform adds whole rows (plain vector additions, no shuffles) and the
//! gathering is done once for sixteen. And the entries are `i16` whenever
//! every value fits (each is a signed sum of some of the signs, so at most
//! the number of cells: boards up to 32,767 cells), which doubles the
//! lanes a vector holds. Together about 3x faster than one `i32` transform
//! per `a` (39 x 39: 2.45 -> 0.76 s; 170 x 170: 55.6 -> 22.2 s).

use rayon::prelude::*;

use super::board::{Board, Cell};

/// Bits of `c` resolved by one table (2^18 entries: 16 lanes of 2^14 rows,
/// 512 KiB of `i16` or 1 MiB of `i32`, in a core's cache; 16 to 20
/// measured within 10% of each other).
const TRANSFORM_BITS: usize = 18;

/// The work the transform search may spend, in the units of
/// [`transform_work`]: an estimated 45 s on two cores of the project's machine
/// for nullity 37 on a 200 x 200 board (170 x 170, nullity 36: 22 s).
pub(super) const MAX_TRANSFORM_WORK: u64 = 5 << 39;

/// The work the transform search needs for a null space of dimension `k`
/// on a board of `cells` cells: per table, the gathering (a pass over the
/// cells, weighted 3: it is not vectorised as the transform is) and the
/// transform's additions.
pub(super) fn transform_work(k: usize, cells: usize) -> u64 {
    if k >= 64 {
        return u64::MAX;
    }
    let b = k.min(TRANSFORM_BITS);
    let per_table = (cells as u64)
        .saturating_mul(3)
        .saturating_add((b as u64) << b);
    (1u64 << (k - b)).saturating_mul(per_table)
}

/// The combination `c` (bit `i` for quiet pattern `basis[i]`) with the
/// fewest presses in `p + sum c_i basis_i`; among equals, the smallest `c`.
pub(super) fn minimum_combination(p: &Board, basis: &[Board]) -> u64 {
    search(p, basis, TRANSFORM_BITS)
}

/// [`minimum_combination`] with tables of 2^`table_bits` entries.
fn search(p: &Board, basis: &[Board], table_bits: usize) -> u64 {
    let k = basis.len();
    assert!(k < 64, "a null space of dimension {k} is too large");
    if k == 0 {
        return 0;
    }
    let width = p.width();
    let mut columns = vec![0u64; width * p.height()];
    for (i, q) in basis.iter().enumerate() {
        for cell in q.cells_on() {
            columns[cell.row * width + cell.col] |= 1 << i;
        }
    }
    // Signs gathered by column: (column, sum of signs), columns distinct.
    let mut signed: Vec<(u64, i32)> = columns
        .iter()
        .enumerate()
        .map(|(index, &v)| {
            let on = p.get(Cell {
                row: index / width,
                col: index % width,
            });
            (v, if on { -1 } else { 1 })
        })
        .collect();
    signed.sort_unstable_by_key(|&(v, _)| v);
    let mut gathered: Vec<(u64, i32)> = Vec::with_capacity(signed.len());
    for (v, s) in signed {
        match gathered.last_mut() {
            Some((last, sum)) if *last == v => *sum += s,
            _ => gathered.push((v, s)),
        }
    }
    gathered.retain(|&(_, s)| s != 0);
    if table_bits > LANE_BITS && k >= table_bits + LANE_BITS {
        // Sixteen settings of `a` at once, one to a lane.
        return best_of_lanes(&gathered, k, table_bits - LANE_BITS);
    }
    let b = k.min(table_bits);
    best_of(&gathered, k, b)
}

/// Settings of the low bits of `c` handled side by side, one to a lane of
/// a table row: every transform level is then a pass over whole rows, which
/// the compiler turns into plain vector additions (no shuffles), and the
/// sixteen transforms share the gathering.
const LANE_BITS: usize = 4;
const LANES: usize = 1 << LANE_BITS;

/// `(-1)^(m . l)` as a flag: lane `l` of a cell whose column has low bits
/// `m` takes the negated sign.
const LANE_FLIPS: [[bool; LANES]; LANES] = {
    let mut t = [[false; LANES]; LANES];
    let mut m = 0;
    while m < LANES {
        let mut l = 0;
        while l < LANES {
            t[m][l] = (m & l).count_ones() % 2 == 1;
            l += 1;
        }
        m += 1;
    }
    t
};

/// [`best_of`] with the lowest [`LANE_BITS`] bits of `c` in the lanes of
/// tables of 2^`b` rows; `k - b` must be at least [`LANE_BITS`].
fn best_of_lanes(gathered: &[(u64, i32)], k: usize, b: usize) -> u64 {
    if fits_in_i16(gathered) {
        best_of_lanes_in::<i16>(gathered, k, b)
    } else {
        best_of_lanes_in::<i32>(gathered, k, b)
    }
}

fn best_of_lanes_in<T: Entry>(gathered: &[(u64, i32)], k: usize, b: usize) -> u64 {
    let low_bits = k - b;
    assert!(low_bits >= LANE_BITS, "{low_bits} low bits");
    let low_mask = (1u64 << low_bits) - 1;
    let lane_mask = LANES as u64 - 1;
    let signed: Vec<(usize, u64, T)> = gathered
        .iter()
        .map(|&(v, s)| {
            let s = T::try_from(s).unwrap_or_else(|_| unreachable!("checked by the caller"));
            ((v >> low_bits) as usize, v & low_mask, s)
        })
        .collect();
    let better = |x: (T, u64), y: (T, u64)| match x.0.cmp(&y.0) {
        std::cmp::Ordering::Greater => x,
        std::cmp::Ordering::Less => y,
        std::cmp::Ordering::Equal => (x.0, x.1.min(y.1)),
    };
    let len = LANES << b;
    let best = (0..1u64 << (low_bits - LANE_BITS))
        .into_par_iter()
        .fold(
            || (vec![T::ZERO; len], (T::MIN, u64::MAX)),
            |(mut table, best), batch| {
                let a0 = batch << LANE_BITS;
                table.fill(T::ZERO);
                for &(row, low, s) in &signed {
                    let s = if (low & a0).count_ones() & 1 == 1 {
                        -s
                    } else {
                        s
                    };
                    let flips = &LANE_FLIPS[(low & lane_mask) as usize];
                    let at = &mut table[row * LANES..(row + 1) * LANES];
                    for (x, &flip) in at.iter_mut().zip(flips) {
                        *x = *x + if flip { -s } else { s };
                    }
                }
                // Every level is across rows: strides of whole rows.
                let block = len.min(1 << 12);
                for chunk in table.chunks_mut(block) {
                    levels(chunk, LANES, block);
                }
                levels(&mut table, block, len);
                let top = largest(&table);
                if top < best.0 {
                    return (table, best);
                }
                // The first place holds the smallest c among equals: the
                // row is c's high part, the lane its lowest bits.
                let at = table
                    .iter()
                    .position(|&x| x == top)
                    .expect("the maximum is there");
                let c = (a0 | (at % LANES) as u64) | ((at / LANES) as u64) << low_bits;
                (table, better(best, (top, c)))
            },
        )
        .map(|(_, best)| best)
        .reduce(|| (T::MIN, u64::MAX), better);
    best.1
}

/// The largest entry, sixteen lanes at a time (so the compiler uses
/// vectors).
fn largest<T: Entry>(table: &[T]) -> T {
    let mut lanes = [T::MIN; 16];
    let chunks = table.chunks_exact(16);
    let rest = chunks.remainder().iter().copied().max().unwrap_or(T::MIN);
    for chunk in chunks {
        for (m, &x) in lanes.iter_mut().zip(chunk) {
            *m = (*m).max(x);
        }
    }
    lanes.into_iter().fold(rest, Ord::max)
}

/// Whether every transform value fits in an `i16`: each is a signed sum of
/// some of the gathered signs, so at most the sum of their sizes.
fn fits_in_i16(gathered: &[(u64, i32)]) -> bool {
    let total: i64 = gathered
        .iter()
        .map(|&(_, s)| i64::from(s.unsigned_abs()))
        .sum();
    total <= i64::from(i16::MAX)
}

/// The best `c` over tables of 2^`b` entries: of `i16` when every value
/// fits (each is a signed sum of some of the signs, so at most the number of
/// cells in size), which halves the memory traffic and doubles the vector
/// lanes; else of `i32`.
fn best_of(gathered: &[(u64, i32)], k: usize, b: usize) -> u64 {
    if fits_in_i16(gathered) {
        best_of_in::<i16>(gathered, k, b)
    } else {
        best_of_in::<i32>(gathered, k, b)
    }
}

/// A transform table's entry type.
trait Entry:
    Copy
    + Ord
    + Send
    + Sync
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Neg<Output = Self>
    + TryFrom<i32>
{
    const ZERO: Self;
    const MIN: Self;
}

impl Entry for i16 {
    const ZERO: Self = 0;
    const MIN: Self = i16::MIN;
}

impl Entry for i32 {
    const ZERO: Self = 0;
    const MIN: Self = i32::MIN;
}

fn best_of_in<T: Entry>(gathered: &[(u64, i32)], k: usize, b: usize) -> u64 {
    let low_bits = k - b;
    let low_mask = (1u64 << low_bits) - 1;
    let signed: Vec<(u64, T)> = gathered
        .iter()
        .map(|&(v, s)| {
            let s = T::try_from(s).unwrap_or_else(|_| unreachable!("checked by the caller"));
            (v, s)
        })
        .collect();
    // (largest F, its c): larger F first, then the smaller c.
    let better = |x: (T, u64), y: (T, u64)| match x.0.cmp(&y.0) {
        std::cmp::Ordering::Greater => x,
        std::cmp::Ordering::Less => y,
        std::cmp::Ordering::Equal => (x.0, x.1.min(y.1)),
    };
    let best = (0..1u64 << low_bits)
        .into_par_iter()
        .fold(
            || (vec![T::ZERO; 1 << b], (T::MIN, u64::MAX)),
            |(mut table, best), a| {
                table.fill(T::ZERO);
                for &(v, s) in &signed {
                    let odd = (v & low_mask & a).count_ones() & 1 == 1;
                    let at = &mut table[(v >> low_bits) as usize];
                    *at = *at + if odd { -s } else { s };
                }
                match largest_transformed(&mut table, best.0) {
                    Some((top, high)) => {
                        (table, better(best, (top, a | (high as u64) << low_bits)))
                    }
                    None => (table, best),
                }
            },
        )
        .map(|(_, best)| best)
        .reduce(|| (T::MIN, u64::MAX), better);
    best.1
}

/// The largest value of the table's transform and its first place, or
/// `None` when it is below `floor`.
fn largest_transformed<T: Entry>(table: &mut [T], floor: T) -> Option<(T, usize)> {
    transform(table);
    let top = largest(table);
    if top < floor {
        return None;
    }
    let at = table
        .iter()
        .position(|&x| x == top)
        .expect("the maximum is there");
    Some((top, at))
}

/// In-place Walsh-Hadamard transform (unnormalised): the first levels
/// within cache-sized blocks, then the rest across them; two levels a pass
/// where it can.
fn transform<T: Entry>(a: &mut [T]) {
    let n = a.len();
    let block = n.min(1 << 12);
    for chunk in a.chunks_mut(block) {
        let mut h = 1;
        if block >= 8 {
            // The three smallest levels at once, eight entries at a time.
            for eight in chunk.chunks_exact_mut(8) {
                let mut x: [T; 8] = eight.try_into().unwrap_or_else(|_| unreachable!());
                for h in [1, 2, 4] {
                    for i in 0..8 {
                        if i & h == 0 {
                            let (u, v) = (x[i], x[i + h]);
                            x[i] = u + v;
                            x[i + h] = u - v;
                        }
                    }
                }
                eight.copy_from_slice(&x);
            }
            h = 8;
        }
        levels(chunk, h, block);
    }
    levels(a, block, n);
}

/// The levels from `h` up to (not including) `end`, two at a time.
fn levels<T: Entry>(a: &mut [T], mut h: usize, end: usize) {
    while 4 * h <= end {
        two_levels(a, h);
        h *= 4;
    }
    if h < end {
        butterflies(a, h);
    }
}

/// Levels `h` and `2h` in one pass: quadruples `h` apart.
fn two_levels<T: Entry>(a: &mut [T], h: usize) {
    for group in a.chunks_exact_mut(4 * h) {
        let (ab, cd) = group.split_at_mut(2 * h);
        let (a0, b0) = ab.split_at_mut(h);
        let (c0, d0) = cd.split_at_mut(h);
        for (((w, x), y), z) in a0
            .iter_mut()
            .zip(b0.iter_mut())
            .zip(c0.iter_mut())
            .zip(d0.iter_mut())
        {
            let (p, q, r, t) = (*w + *x, *w - *x, *y + *z, *y - *z);
            *w = p + r;
            *x = q + t;
            *y = p - r;
            *z = q - t;
        }
    }
}

/// One level of the transform: pairs `h` apart.
fn butterflies<T: Entry>(a: &mut [T], h: usize) {
    for pair in a.chunks_exact_mut(2 * h) {
        let (x, y) = pair.split_at_mut(h);
        for (u, v) in x.iter_mut().zip(y.iter_mut()) {
            let (s, d) = (*u + *v, *u - *v);
            *u = s;
            *v = d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The transform search and the walk over every solution agree on the
    /// fewest presses, with the table split (nullity past 20) and not.
    #[test]
    fn agrees_with_walking_every_solution() {
        use crate::lightsout::{Solver, rng, scrambled};
        // (size, nullity): 19 x 19 is 16, 30 x 30 is 20, 4 x 4 is 4.
        for (n, k) in [(4, 4), (19, 16), (30, 20)] {
            let solver = Solver::new(n, n);
            let basis = solver.quiet_patterns();
            assert_eq!(basis.len(), k);
            for seed in 0..3 {
                let board = scrambled(n, n, n * n / 3, &mut rng(seed));
                let p = solver.solve(&board).expect("scrambled boards are solvable");
                let walked = super::super::solve::minimize_board_for_tests(p.clone(), &basis);
                // Whole tables; tables of 2^8 entries, sixteen lanes of 16
                // rows; and plain tables of 8 entries.
                for bits in [TRANSFORM_BITS, 8, 3] {
                    let c = search(&p, &basis, bits);
                    let found = super::super::solve::combine(p.clone(), &basis, c);
                    let name = format!("{n}x{n} seed {seed} bits {bits}");
                    assert_eq!(found.count_on(), walked.count_on(), "{name}");
                    let mut lights = board.clone();
                    lights.apply_presses(&found);
                    assert!(lights.is_solved(), "{name}");
                }
            }
        }
    }

    /// The 16-bit and 32-bit tables, split or whole, one `a` a table or
    /// sixteen in lanes, find the `c` of the definition, ties included:
    /// the smallest `c` of the largest `F`.
    #[test]
    fn both_table_widths_agree() {
        use crate::lightsout::{Solver, rng, scrambled};
        let solver = Solver::new(19, 19);
        let basis = solver.quiet_patterns();
        for seed in 0..4 {
            let board = scrambled(19, 19, 120, &mut rng(seed));
            let p = solver.solve(&board).expect("scrambled boards are solvable");
            let columns = |i: usize| -> u64 {
                basis
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| {
                        q.get(Cell {
                            row: i / 19,
                            col: i % 19,
                        })
                    })
                    .map(|(j, _)| 1u64 << j)
                    .sum()
            };
            let gathered: Vec<(u64, i32)> = {
                let mut g: Vec<(u64, i32)> = (0..19 * 19)
                    .map(|i| {
                        let on = p.get(Cell {
                            row: i / 19,
                            col: i % 19,
                        });
                        (columns(i), if on { -1 } else { 1 })
                    })
                    .collect();
                g.sort_unstable();
                g
            };
            let k = basis.len();
            // Every c by its definition: the largest F, then the smallest c.
            let f = |c: u64| -> i32 {
                gathered
                    .iter()
                    .map(|&(v, s)| if (c & v).count_ones() % 2 == 1 { -s } else { s })
                    .sum()
            };
            let want = (0..1u64 << k).max_by_key(|&c| (f(c), std::cmp::Reverse(c)));
            for b in [1, 3, 8, k] {
                let name = format!("seed {seed} b {b}");
                assert_eq!(Some(best_of_in::<i16>(&gathered, k, b)), want, "{name}");
                assert_eq!(Some(best_of_in::<i32>(&gathered, k, b)), want, "{name}");
                if k - b >= LANE_BITS {
                    let lanes = (
                        best_of_lanes_in::<i16>(&gathered, k, b),
                        best_of_lanes_in::<i32>(&gathered, k, b),
                    );
                    assert_eq!((Some(lanes.0), Some(lanes.1)), (want, want), "lanes {name}");
                }
            }
        }
    }

    #[test]
    fn the_transform_matches_its_definition() {
        // 2^13 entries: the eight-wide kernel, paired levels, a single
        // level, and a level across the 4096-entry blocks.
        let f: Vec<i32> = (0..1 << 13)
            .map(|i: i32| (i * 7919 + 13) % 11 - 5)
            .collect();
        let mut a = f.clone();
        transform(&mut a);
        for (c, &got) in a.iter().enumerate() {
            let want: i32 = f
                .iter()
                .enumerate()
                .map(|(v, &s)| if (c & v).count_ones() % 2 == 1 { -s } else { s })
                .sum();
            assert_eq!(got, want, "c = {c}");
        }
    }
}
