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

use rayon::prelude::*;

use super::board::{Board, Cell};

/// Bits of `c` resolved by one transform (a table of 2^18 `i32`, 1 MiB:
/// it stays in a core's cache; 16 to 20 measured within 10% of each other).
const TRANSFORM_BITS: usize = 18;

/// The additions the transform search may spend: about 60 s on two cores
/// of the project's machine, where 170 x 170 (nullity 36) took 55.6 s.
pub(super) const MAX_TRANSFORM_WORK: u64 = 5 << 38;

/// The additions the transform search needs for a null space of dimension
/// `k` on a board of `cells` cells.
pub(super) fn transform_work(k: usize, cells: usize) -> u64 {
    if k >= 64 {
        return u64::MAX;
    }
    let b = k.min(TRANSFORM_BITS);
    let per_table = (cells as u64).saturating_add((b as u64) << b);
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
    let b = k.min(table_bits);
    best_of(&gathered, k, b)
}

/// The best `c` over tables of 2^`b` entries.
fn best_of(gathered: &[(u64, i32)], k: usize, b: usize) -> u64 {
    let low_bits = k - b;
    let low_mask = (1u64 << low_bits) - 1;
    // (largest F, its c): larger F first, then the smaller c.
    let better = |x: (i32, u64), y: (i32, u64)| match x.0.cmp(&y.0) {
        std::cmp::Ordering::Greater => x,
        std::cmp::Ordering::Less => y,
        std::cmp::Ordering::Equal => (x.0, x.1.min(y.1)),
    };
    let best = (0..1u64 << low_bits)
        .into_par_iter()
        .fold(
            || (vec![0i32; 1 << b], (i32::MIN, u64::MAX)),
            |(mut table, best), a| {
                table.fill(0i32);
                for &(v, s) in gathered {
                    let odd = (v & low_mask & a).count_ones() & 1 == 1;
                    let at = &mut table[(v >> low_bits) as usize];
                    *at += if odd { -s } else { s };
                }
                transform(&mut table);
                // The largest value first (a plain scan), its first place
                // only when it can matter.
                let top = largest(&table);
                if top < best.0 {
                    return (table, best);
                }
                let high = table
                    .iter()
                    .position(|&x| x == top)
                    .expect("the maximum is there");
                let found = (top, a | (high as u64) << low_bits);
                (table, better(best, found))
            },
        )
        .map(|(_, best)| best)
        .reduce(|| (i32::MIN, u64::MAX), better);
    best.1
}

/// The largest entry, eight lanes at a time (so the compiler uses vectors).
fn largest(table: &[i32]) -> i32 {
    let mut lanes = [i32::MIN; 8];
    let chunks = table.chunks_exact(8);
    let rest = chunks.remainder().iter().copied().max().unwrap_or(i32::MIN);
    for chunk in chunks {
        for (m, &x) in lanes.iter_mut().zip(chunk) {
            *m = (*m).max(x);
        }
    }
    lanes.into_iter().fold(rest, i32::max)
}

/// In-place Walsh-Hadamard transform (unnormalised): the first levels
/// within cache-sized blocks, then the rest across them; two levels a pass
/// where it can.
fn transform(a: &mut [i32]) {
    let n = a.len();
    let block = n.min(1 << 12);
    for chunk in a.chunks_mut(block) {
        let mut h = 1;
        if block >= 8 {
            // The three smallest levels at once, eight entries at a time.
            for eight in chunk.chunks_exact_mut(8) {
                let mut x: [i32; 8] = eight.try_into().expect("eight entries");
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
fn levels(a: &mut [i32], mut h: usize, end: usize) {
    while 4 * h <= end {
        two_levels(a, h);
        h *= 4;
    }
    if h < end {
        butterflies(a, h);
    }
}

/// Levels `h` and `2h` in one pass: quadruples `h` apart.
fn two_levels(a: &mut [i32], h: usize) {
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
fn butterflies(a: &mut [i32], h: usize) {
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
                // Whole tables, and tables of 8 entries (the rest walked).
                for bits in [TRANSFORM_BITS, 3] {
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
