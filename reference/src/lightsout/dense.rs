//! The press matrix of a board of at most 64 cells, eliminated once
//! (Gauss-Jordan over GF(2), a board as the bits of a u64): a solution is a
//! few XORs, the quiet patterns a list of masks.

use super::board::Board;

/// Dense Gauss-Jordan elimination of the press matrix, for boards of at most
/// 64 cells: cell `r * width + c` is bit `r * width + c` of a u64.
#[derive(Clone, Debug)]
pub(super) struct Dense {
    pub(super) width: usize,
    pub(super) height: usize,
    /// For each pivot: the row combination `E_r` and the pivot cell.
    pub(super) pivots: Vec<(u64, usize)>,
    /// Combinations that must have even parity with the lights.
    pub(super) checks: Vec<u64>,
    /// A basis of the null space.
    pub(super) null: Vec<u64>,
}

impl Dense {
    pub(super) fn new(width: usize, height: usize) -> Self {
        let n = width * height;
        let cross = |i: usize| {
            let (r, c) = (i / width, i % width);
            let mut m = 1u64 << i;
            if r > 0 {
                m |= 1 << (i - width);
            }
            if r + 1 < height {
                m |= 1 << (i + width);
            }
            if c > 0 {
                m |= 1 << (i - 1);
            }
            if c + 1 < width {
                m |= 1 << (i + 1);
            }
            m
        };
        let mut rows: Vec<(u64, u64)> = (0..n).map(|i| (cross(i), 1 << i)).collect();
        let mut pivot_cells = Vec::new();
        for col in 0..n {
            let rank = pivot_cells.len();
            let Some(p) = (rank..n).find(|&j| rows[j].0 >> col & 1 == 1) else {
                continue;
            };
            rows.swap(rank, p);
            let (a, e) = rows[rank];
            for (j, row) in rows.iter_mut().enumerate() {
                if j != rank && row.0 >> col & 1 == 1 {
                    row.0 ^= a;
                    row.1 ^= e;
                }
            }
            pivot_cells.push(col);
        }
        let rank = pivot_cells.len();
        let pivots: Vec<(u64, usize)> = rows[..rank]
            .iter()
            .zip(&pivot_cells)
            .map(|(&(_, e), &cell)| (e, cell))
            .collect();
        let checks = rows[rank..].iter().map(|&(_, e)| e).collect();
        let null = (0..n)
            .filter(|c| !pivot_cells.contains(c))
            .map(|free| {
                let mut v = 1u64 << free;
                for (r, &cell) in pivot_cells.iter().enumerate() {
                    if rows[r].0 >> free & 1 == 1 {
                        v |= 1 << cell;
                    }
                }
                v
            })
            .collect();
        Self {
            width,
            height,
            pivots,
            checks,
            null,
        }
    }

    pub(super) fn particular(&self, lights: u64) -> Option<u64> {
        if self
            .checks
            .iter()
            .any(|&e| (e & lights).count_ones() % 2 == 1)
        {
            return None;
        }
        Some(self.pivots.iter().fold(0, |x, &(e, cell)| {
            x | u64::from((e & lights).count_ones() % 2) << cell
        }))
    }

    pub(super) fn to_mask(&self, board: &Board) -> u64 {
        (0..self.height).fold(0, |m, r| m | board.row(r)[0] << (r * self.width))
    }

    pub(super) fn to_board(&self, mask: u64) -> Board {
        let mut b = Board::new(self.width, self.height);
        let row_mask = super::board::last_word_mask(self.width);
        for r in 0..self.height {
            b.row_mut(r)[0] = mask >> (r * self.width) & row_mask;
        }
        b
    }
}
