//! Gogen's model: letter masks exactly as the Imperial handout fixes them
//! (the 25 most significant bits of a u32, row by row, the low 7 bits always
//! zero) and the 5x5 board of letters 'A' to 'Y'.

use std::fmt;

/// Board side.
pub const SIDE: usize = 5;
/// Letters in play: 'A' to 'Y' ('Z' is not used).
pub const NUM_LETTERS: usize = 25;

/// The possible cells of one letter: cell (r, c) is bit 31 - (5r + c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LetterMask(pub u32);

const FULL: u32 = 0xFFFF_FF80;
/// Cells of column 0 and of column 4.
const COL0: u32 = bit(0, 0) | bit(1, 0) | bit(2, 0) | bit(3, 0) | bit(4, 0);
const COL4: u32 = bit(0, 4) | bit(1, 4) | bit(2, 4) | bit(3, 4) | bit(4, 4);

const fn bit(row: usize, col: usize) -> u32 {
    1 << (31 - (row * SIDE + col))
}

impl LetterMask {
    /// No cell.
    pub const EMPTY: Self = Self(0);
    /// Every cell.
    pub const ALL: Self = Self(FULL);

    /// Just the cell (`row`, `col`).
    pub fn cell(row: usize, col: usize) -> Self {
        assert!(
            row < SIDE && col < SIDE,
            "cell {row},{col} is off the board"
        );
        Self(bit(row, col))
    }

    /// Whether (`row`, `col`) is set.
    pub fn get(self, row: usize, col: usize) -> bool {
        assert!(
            row < SIDE && col < SIDE,
            "cell {row},{col} is off the board"
        );
        self.0 & bit(row, col) != 0
    }

    /// Sets (`row`, `col`) to `value`.
    pub fn set(&mut self, row: usize, col: usize, value: bool) {
        assert!(
            row < SIDE && col < SIDE,
            "cell {row},{col} is off the board"
        );
        if value {
            self.0 |= bit(row, col);
        } else {
            self.0 &= !bit(row, col);
        }
    }

    /// Sets every cell to `value` (the low 7 bits stay zero).
    pub fn set_all(&mut self, value: bool) {
        self.0 = if value { FULL } else { 0 };
    }

    /// The number of cells set.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// At least two possible cells.
    pub fn is_free(self) -> bool {
        self.count() >= 2
    }

    /// The one cell, when exactly one is set.
    pub fn fixed_pos(self) -> Option<(usize, usize)> {
        (self.count() == 1).then(|| {
            let i = self.0.leading_zeros() as usize;
            (i / SIDE, i % SIDE)
        })
    }

    /// The cells set, row by row.
    pub fn cells(self) -> impl Iterator<Item = (usize, usize)> {
        (0..SIDE * SIDE)
            .filter(move |i| self.0 & (1 << (31 - i)) != 0)
            .map(|i| (i / SIDE, i % SIDE))
    }

    /// Every cell at most one king move from a set cell (the cells themselves included).
    pub fn neighbourhood(self) -> Self {
        let m = self.0;
        let across = m | ((m & !COL4) >> 1) | ((m & !COL0) << 1);
        Self((across | (across >> 5) | (across << 5)) & FULL)
    }

    /// `a` and `b` each intersected with the other's neighbourhood (the
    /// handout's `intersect_neighbourhoods`).
    pub fn intersect_neighbourhoods(a: &mut Self, b: &mut Self) {
        let (na, nb) = (a.neighbourhood(), b.neighbourhood());
        a.0 &= nb.0;
        b.0 &= na.0;
    }
}

/// Five rows of five `0`/`1`, as the handout's figures draw a mask.
impl fmt::Display for LetterMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..SIDE {
            for c in 0..SIDE {
                f.write_str(if self.get(r, c) { "1" } else { "0" })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

/// A 5x5 board: a letter 'A'..='Y' or `None` (written `.`) per cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board(pub [[Option<u8>; SIDE]; SIDE]);

impl Board {
    /// The first cell holding `letter`, row by row.
    pub fn position(&self, letter: u8) -> Option<(usize, usize)> {
        (0..SIDE * SIDE)
            .map(|i| (i / SIDE, i % SIDE))
            .find(|&(r, c)| self.0[r][c] == Some(letter))
    }

    /// The cells holding a letter.
    pub fn occupied(&self) -> LetterMask {
        let mut m = LetterMask::EMPTY;
        for r in 0..SIDE {
            for c in 0..SIDE {
                if self.0[r][c].is_some() {
                    m.set(r, c, true);
                }
            }
        }
        m
    }

    /// Whether every cell holds a letter.
    pub fn is_full(&self) -> bool {
        self.0.iter().flatten().all(Option::is_some)
    }
}

/// Five lines of five characters, `.` for an empty cell.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in &self.0 {
            for cell in row {
                write!(f, "{}", cell.map_or('.', char::from))?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

/// The index 0..25 of a letter 'A'..='Y'.
pub fn letter_index(letter: u8) -> usize {
    usize::from(letter - b'A')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(rows: &str) -> LetterMask {
        let mut m = LetterMask::EMPTY;
        for (r, line) in rows.split_whitespace().enumerate() {
            for (c, ch) in line.bytes().enumerate() {
                m.set(r, c, ch == b'1');
            }
        }
        m
    }

    #[test]
    // Grouped by board row (5 bits each) and the 7 unused low bits, as in
    // the handout's Table 1.
    #[allow(clippy::unusual_byte_groupings)]
    fn table_1_bit_layout() {
        // 'X' at row 2, column 2; 'R' at row 0, column 4.
        assert_eq!(
            LetterMask::cell(2, 2).0,
            0b00000_00000_00100_00000_00000_0000000
        );
        assert_eq!(
            LetterMask::cell(0, 4).0,
            0b00001_00000_00000_00000_00000_0000000
        );
        let e = mask("01010 11111 01010 11111 01010");
        assert_eq!(e.0, 0b01010_11111_01010_11111_01010_0000000);
        assert_eq!(e.0 & 0x7F, 0);
    }

    #[test]
    fn bits_set_get_and_fixed() {
        let mut m = LetterMask::EMPTY;
        m.set(4, 4, true);
        assert!(m.get(4, 4) && !m.is_free());
        assert_eq!(m.fixed_pos(), Some((4, 4)));
        m.set(0, 0, true);
        assert!(m.is_free());
        assert_eq!(m.fixed_pos(), None);
        m.set_all(true);
        assert_eq!((m.0, m.count()), (0xFFFF_FF80, 25));
        m.set_all(false);
        assert_eq!(m, LetterMask::EMPTY);
        assert_eq!(LetterMask::EMPTY.fixed_pos(), None);
    }

    #[test]
    fn figures_2_and_3_neighbourhoods() {
        let x = mask("00000 00000 00100 00000 00000");
        let e = mask("01010 11111 01010 11111 01010");
        let r = mask("00001 00000 00000 00000 00000");
        assert_eq!(x.neighbourhood(), mask("00000 01110 01110 01110 00000"));
        assert_eq!(e.neighbourhood(), mask("11111 11111 11111 11111 11111"));
        assert_eq!(r.neighbourhood(), mask("00011 00011 00000 00000 00000"));
        // Figure 4: E within both X's and R's neighbourhoods.
        let e_fixed = LetterMask(e.0 & x.neighbourhood().0 & r.neighbourhood().0);
        assert_eq!(e_fixed, mask("00000 00010 00000 00000 00000"));
    }

    #[test]
    fn figures_5_to_7_intersect_neighbourhoods() {
        let mut fst = mask("00110 00000 00000 01000 00000");
        let mut snd = mask("00000 00000 00000 00000 10000");
        assert_eq!(fst.neighbourhood(), mask("01111 01111 11100 11100 11100"));
        assert_eq!(snd.neighbourhood(), mask("00000 00000 00000 11000 11000"));
        LetterMask::intersect_neighbourhoods(&mut fst, &mut snd);
        assert_eq!(fst, mask("00000 00000 00000 01000 00000"));
        assert_eq!(snd, mask("00000 00000 00000 00000 10000"));
        assert_eq!(fst.to_string(), "00000\n00000\n00000\n01000\n00000\n");
    }

    #[test]
    fn corners_do_not_wrap() {
        assert_eq!(LetterMask::cell(0, 4).neighbourhood().count(), 4);
        assert_eq!(
            LetterMask::cell(1, 0).neighbourhood(),
            mask("11000 11000 11000 00000 00000")
        );
        assert_eq!(LetterMask::cell(4, 4).neighbourhood().0 & 0x7F, 0);
    }
}
