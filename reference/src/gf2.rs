//! Polynomials over GF(2), bit-packed in u64 words (bit i is the coefficient of y^i).
//!
//! Lights Out on an m x n board reduces to arithmetic in GF(2)\[y\] modulo a
//! Chebyshev-like polynomial of degree n (see `lightsout::solve`), so the
//! solver needs only what is here: shifted XOR, multiplication, division with
//! remainder and the extended Euclidean algorithm, all O(n^2 / 64).

/// A polynomial over GF(2). Trailing zero words are always trimmed, so two
/// equal polynomials have equal representations and `degree` is cheap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poly {
    words: Vec<u64>,
}

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Self {
        Self::default()
    }

    /// The constant polynomial 1.
    pub fn one() -> Self {
        Self::monomial(0)
    }

    /// y^k.
    pub fn monomial(k: usize) -> Self {
        let mut p = Self::zero();
        p.flip(k);
        p
    }

    /// Builds a polynomial from little-endian coefficient words.
    pub fn from_words(words: Vec<u64>) -> Self {
        let mut p = Self { words };
        p.trim();
        p
    }

    /// The coefficient words, little-endian, without trailing zeros.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Whether this is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.words.is_empty()
    }

    /// The degree, or `None` for the zero polynomial.
    pub fn degree(&self) -> Option<usize> {
        let top = *self.words.last()?;
        Some((self.words.len() - 1) * 64 + 63 - top.leading_zeros() as usize)
    }

    /// The coefficient of y^k.
    pub fn coeff(&self, k: usize) -> bool {
        self.words
            .get(k / 64)
            .is_some_and(|w| w >> (k % 64) & 1 == 1)
    }

    /// Flips the coefficient of y^k.
    pub fn flip(&mut self, k: usize) {
        if self.words.len() <= k / 64 {
            self.words.resize(k / 64 + 1, 0);
        }
        self.words[k / 64] ^= 1 << (k % 64);
        self.trim();
    }

    /// self += other * y^shift.
    pub fn add_shifted(&mut self, other: &Poly, shift: usize) {
        if other.is_zero() {
            return;
        }
        let (ws, bs) = (shift / 64, shift % 64);
        let need = other.words.len() + ws + 1;
        if self.words.len() < need {
            self.words.resize(need, 0);
        }
        if bs == 0 {
            for (i, &w) in other.words.iter().enumerate() {
                self.words[i + ws] ^= w;
            }
        } else {
            for (i, &w) in other.words.iter().enumerate() {
                self.words[i + ws] ^= w << bs;
                self.words[i + ws + 1] ^= w >> (64 - bs);
            }
        }
        self.trim();
    }

    /// self += other.
    pub fn add(&mut self, other: &Poly) {
        self.add_shifted(other, 0);
    }

    /// self * y + self, that is self * (1 + y).
    pub fn mul_one_plus_y(&self) -> Poly {
        let mut p = self.clone();
        p.add_shifted(self, 1);
        p
    }

    /// The product self * other (schoolbook, bit-packed).
    pub fn mul(&self, other: &Poly) -> Poly {
        let (small, big) = if self.weight() <= other.weight() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Poly::zero();
        for k in small.ones() {
            out.add_shifted(big, k);
        }
        out
    }

    /// Quotient and remainder of self / divisor.
    ///
    /// # Panics
    /// If `divisor` is zero.
    pub fn div_rem(&self, divisor: &Poly) -> (Poly, Poly) {
        let dd = divisor.degree().expect("division by the zero polynomial");
        let mut rem = self.clone();
        let mut quot = Poly::zero();
        while let Some(rd) = rem.degree() {
            if rd < dd {
                break;
            }
            quot.flip(rd - dd);
            rem.add_shifted(divisor, rd - dd);
        }
        (quot, rem)
    }

    /// self mod modulus.
    pub fn rem(&self, modulus: &Poly) -> Poly {
        self.div_rem(modulus).1
    }

    /// The number of nonzero coefficients.
    pub fn weight(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// The exponents with coefficient 1, ascending.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }

    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
    }
}

/// The greatest common divisor `d` of `a` and `m`, and `s` with
/// `s * a ≡ d (mod m)`, deg s < deg m.
///
/// # Panics
/// If `m` is zero.
pub fn gcd_with_inverse(a: &Poly, m: &Poly) -> (Poly, Poly) {
    assert!(!m.is_zero(), "modulus must be nonzero");
    // Invariant: r0 ≡ s0 * a and r1 ≡ s1 * a (mod m).
    let (mut r0, mut s0) = (m.clone(), Poly::zero());
    let (mut r1, mut s1) = (a.rem(m), Poly::one());
    while let Some(d1) = r1.degree() {
        while let Some(d0) = r0.degree() {
            if d0 < d1 {
                break;
            }
            r0.add_shifted(&r1, d0 - d1);
            s0.add_shifted(&s1, d0 - d1);
        }
        std::mem::swap(&mut r0, &mut r1);
        std::mem::swap(&mut s0, &mut s1);
    }
    (r0, s0.rem(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(bits: &[usize]) -> Poly {
        let mut q = Poly::zero();
        for &b in bits {
            q.flip(b);
        }
        q
    }

    #[test]
    fn degree_and_trim() {
        assert_eq!(Poly::zero().degree(), None);
        assert_eq!(p(&[0]).degree(), Some(0));
        assert_eq!(p(&[130, 3]).degree(), Some(130));
        let mut q = p(&[130]);
        q.flip(130);
        assert!(q.is_zero());
    }

    #[test]
    fn multiply_and_divide_round_trip() {
        // (1 + y)(1 + y + y^2) = 1 + y^3 over GF(2).
        assert_eq!(p(&[0, 1]).mul(&p(&[0, 1, 2])), p(&[0, 3]));
        let a = p(&[0, 5, 64, 100, 200]);
        let b = p(&[1, 3, 70]);
        let (q, r) = a.div_rem(&b);
        let mut back = q.mul(&b);
        back.add(&r);
        assert_eq!(back, a);
        assert!(r.degree() < b.degree());
    }

    #[test]
    fn gcd_and_inverse() {
        // gcd((1+y)^2 (y^2+y+1), (1+y)(y^3+y+1)) = 1 + y.
        let a = p(&[0, 1]).mul(&p(&[0, 1])).mul(&p(&[0, 1, 2]));
        let m = p(&[0, 1]).mul(&p(&[0, 1, 3]));
        let (d, s) = gcd_with_inverse(&a, &m);
        assert_eq!(d, p(&[0, 1]));
        assert_eq!(s.mul(&a).rem(&m), d.rem(&m));
    }
}
