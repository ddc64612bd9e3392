//! Light chasing for boards of any size: the first row decides every
//! press below it, and which first rows work is GF(2)[y] arithmetic on the
//! Chebyshev-like polynomials of the board's width and height.

use super::board::{Board, spread_row, xor_into};
use crate::gf2::{Poly, gcd_with_inverse};

/// Light chasing plus GF(2)[y] arithmetic, for boards of any size.
#[derive(Clone, Debug)]
pub(super) struct Chase {
    pub(super) width: usize,
    pub(super) height: usize,
    /// `q_width`, the minimal polynomial of the path's adjacency matrix.
    pub(super) q: Poly,
    /// `gcd(R_height(1 + y), q)`.
    pub(super) d: Poly,
    /// `s * R_height(1 + y) ≡ d (mod q)`.
    pub(super) s: Poly,
    /// `q / d`: the null space is its multiples.
    pub(super) kernel: Poly,
    pub(super) nullity: usize,
}

impl Chase {
    pub(super) fn new(width: usize, height: usize) -> Self {
        let q = chebyshev(width);
        let one_plus_y = {
            let mut p = Poly::one();
            p.flip(1);
            p
        };
        let (mut prev, mut cur) = (Poly::zero(), Poly::one());
        for _ in 0..height {
            let mut next = cur.mul(&one_plus_y);
            next.add(&prev);
            prev = std::mem::replace(&mut cur, next.rem(&q));
        }
        let (d, s) = gcd_with_inverse(&cur, &q);
        let (kernel, zero) = q.div_rem(&d);
        debug_assert!(zero.is_zero());
        let nullity = d.degree().expect("gcd with a nonzero modulus is nonzero");
        Self {
            width,
            height,
            q,
            d,
            s,
            kernel,
            nullity,
        }
    }

    pub(super) fn stride(&self) -> usize {
        self.width.div_ceil(64)
    }

    /// The first-row presses of one solution, or `None` when unsolvable.
    pub(super) fn first_row(&self, board: &Board) -> Option<Vec<u64>> {
        let zero = vec![0; self.stride()];
        let rhs = self.overflow(Some(board), &zero);
        let (u, rem) = self.vector_to_poly(&rhs).div_rem(&self.d);
        if !rem.is_zero() {
            return None;
        }
        Some(self.poly_to_vector(&self.s.mul(&u).rem(&self.q)))
    }

    /// The i-th quiet pattern of the basis `y^i * q / d`.
    pub(super) fn quiet_pattern(&self, i: usize) -> Board {
        self.chase(None, &self.quiet_first_row(i))
    }

    /// The first row of the i-th quiet pattern.
    pub(super) fn quiet_first_row(&self, i: usize) -> Vec<u64> {
        let mut g = Poly::zero();
        g.add_shifted(&self.kernel, i);
        self.poly_to_vector(&g)
    }

    /// The full press pattern that chases `lights` down from first-row presses `x`.
    pub(super) fn chase(&self, lights: Option<&Board>, x: &[u64]) -> Board {
        let mut presses = Board::new(self.width, self.height);
        let last = self.run(lights, x, |r, row| presses.row_mut(r).copy_from_slice(row));
        debug_assert!(last.iter().all(|&w| w == 0), "chase left lights on");
        presses
    }

    /// The presses a chase would need below the last row (zero iff solved).
    pub(super) fn overflow(&self, lights: Option<&Board>, x: &[u64]) -> Vec<u64> {
        self.run(lights, x, |_, _| {})
    }

    pub(super) fn run(
        &self,
        lights: Option<&Board>,
        x: &[u64],
        mut each_row: impl FnMut(usize, &[u64]),
    ) -> Vec<u64> {
        let mut prev = vec![0; self.stride()];
        let mut cur = x.to_vec();
        let mut next = vec![0; self.stride()];
        for r in 0..self.height {
            each_row(r, &cur);
            spread_row(&cur, &mut next, self.width);
            xor_into(&mut next, &prev);
            if let Some(b) = lights {
                xor_into(&mut next, b.row(r));
            }
            std::mem::swap(&mut prev, &mut cur);
            std::mem::swap(&mut cur, &mut next);
        }
        cur
    }

    /// The polynomial g with g(J) e_1 = v: sum of q_k over the bits k of v.
    pub(super) fn vector_to_poly(&self, v: &[u64]) -> Poly {
        let bits = Poly::from_words(v.to_vec());
        let Some(top) = bits.degree() else {
            return Poly::zero();
        };
        let mut acc = Poly::zero();
        let (mut prev, mut cur) = (Poly::zero(), Poly::one());
        for k in 0..=top {
            if bits.coeff(k) {
                acc.add(&cur);
            }
            let mut next = prev;
            next.add_shifted(&cur, 1);
            prev = std::mem::replace(&mut cur, next);
        }
        acc
    }

    /// The vector g(J) e_1 for a polynomial g of degree < width.
    pub(super) fn poly_to_vector(&self, g: &Poly) -> Vec<u64> {
        let n = self.stride();
        let mut acc = vec![0; n];
        let mut cur = vec![0; n];
        cur[0] = 1;
        let mut next = vec![0; n];
        let Some(top) = g.degree() else {
            return acc;
        };
        for k in 0..=top {
            if g.coeff(k) {
                xor_into(&mut acc, &cur);
            }
            // J v = T v + v.
            spread_row(&cur, &mut next, self.width);
            xor_into(&mut next, &cur);
            std::mem::swap(&mut cur, &mut next);
        }
        acc
    }
}

/// q_n: q_0 = 1, q_1 = y, q_{k+1} = y q_k + q_{k-1}.
fn chebyshev(n: usize) -> Poly {
    let (mut prev, mut cur) = (Poly::zero(), Poly::one());
    for _ in 0..n {
        let mut next = prev;
        next.add_shifted(&cur, 1);
        prev = std::mem::replace(&mut cur, next);
    }
    cur
}
