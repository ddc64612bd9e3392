//! The Lights Out board: an m x n grid of lights, bit-packed one row per run of u64 words.

use std::fmt;

/// A cell position, 0-based, as the course writes it: `row:col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Row, 0 at the top.
    pub row: usize,
    /// Column, 0 at the left.
    pub col: usize,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.row, self.col)
    }
}

/// A grid of lights (or, for a solution, of presses): `width` columns by
/// `height` rows. Column `c` of row `r` is bit `c % 64` of word
/// `r * stride + c / 64`; bits past the width are always zero.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    width: usize,
    height: usize,
    stride: usize,
    words: Vec<u64>,
}

impl Board {
    /// An all-off board.
    ///
    /// # Panics
    /// If either dimension is zero.
    pub fn new(width: usize, height: usize) -> Self {
        assert!(width > 0 && height > 0, "a board has at least one cell");
        let stride = width.div_ceil(64);
        Self {
            width,
            height,
            stride,
            words: vec![0; stride * height],
        }
    }

    /// An all-on board.
    pub fn all_on(width: usize, height: usize) -> Self {
        let mut b = Self::new(width, height);
        let mask = b.last_word_mask();
        for r in 0..height {
            let row = b.row_mut(r);
            row.fill(!0);
            *row.last_mut().expect("rows are never empty") &= mask;
        }
        b
    }

    /// A board whose light at each cell is `on(cell)`.
    pub fn from_fn(width: usize, height: usize, mut on: impl FnMut(Cell) -> bool) -> Self {
        let mut b = Self::new(width, height);
        for row in 0..height {
            for col in 0..width {
                if on(Cell { row, col }) {
                    b.toggle(Cell { row, col });
                }
            }
        }
        b
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Words per row.
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Whether `cell` lies on the board.
    pub fn contains(&self, cell: Cell) -> bool {
        cell.row < self.height && cell.col < self.width
    }

    /// Whether the light at `cell` is on.
    ///
    /// # Panics
    /// If `cell` is outside the board.
    pub fn get(&self, cell: Cell) -> bool {
        assert!(self.contains(cell), "{cell} is outside the board");
        self.row(cell.row)[cell.col / 64] >> (cell.col % 64) & 1 == 1
    }

    /// Toggles the single light at `cell`.
    pub fn toggle(&mut self, cell: Cell) {
        assert!(self.contains(cell), "{cell} is outside the board");
        self.row_mut(cell.row)[cell.col / 64] ^= 1 << (cell.col % 64);
    }

    /// Presses `cell`: toggles it and its up to four orthogonal neighbours.
    pub fn press(&mut self, cell: Cell) {
        self.toggle(cell);
        let Cell { row, col } = cell;
        if row > 0 {
            self.toggle(Cell { row: row - 1, col });
        }
        if row + 1 < self.height {
            self.toggle(Cell { row: row + 1, col });
        }
        if col > 0 {
            self.toggle(Cell { row, col: col - 1 });
        }
        if col + 1 < self.width {
            self.toggle(Cell { row, col: col + 1 });
        }
    }

    /// Presses every cell set in `presses` (same dimensions), in O(cells / 64).
    ///
    /// # Panics
    /// If the dimensions differ.
    pub fn apply_presses(&mut self, presses: &Board) {
        assert_eq!(
            (self.width, self.height),
            (presses.width, presses.height),
            "press pattern has other dimensions"
        );
        let mut effect = vec![0; self.stride];
        for r in 0..self.height {
            spread_row(presses.row(r), &mut effect, self.width);
            if r > 0 {
                xor_into(&mut effect, presses.row(r - 1));
            }
            if r + 1 < self.height {
                xor_into(&mut effect, presses.row(r + 1));
            }
            xor_into(self.row_mut(r), &effect);
        }
    }

    /// Whether every light is off.
    pub fn is_solved(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of lights on.
    pub fn count_on(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The cells that are on, row by row, left to right.
    pub fn cells_on(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.height).flat_map(move |row| {
            self.row(row).iter().enumerate().flat_map(move |(i, &w)| {
                let mut w = w;
                std::iter::from_fn(move || {
                    (w != 0).then(|| {
                        let b = w.trailing_zeros() as usize;
                        w &= w - 1;
                        Cell {
                            row,
                            col: i * 64 + b,
                        }
                    })
                })
            })
        })
    }

    /// XORs `other` (same dimensions) into this board, cell by cell.
    pub fn xor_with(&mut self, other: &Board) {
        assert_eq!((self.width, self.height), (other.width, other.height));
        xor_into(&mut self.words, &other.words);
    }

    /// The words of row `r`.
    pub(crate) fn row(&self, r: usize) -> &[u64] {
        &self.words[r * self.stride..(r + 1) * self.stride]
    }

    /// The words of row `r`, mutable; callers keep bits past the width zero.
    pub(crate) fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.words[r * self.stride..(r + 1) * self.stride]
    }

    /// All words, row-major.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// All words, row-major, mutable.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    fn last_word_mask(&self) -> u64 {
        last_word_mask(self.width)
    }
}

/// The mask of valid bits in the last word of a row of `width` cells.
pub(crate) fn last_word_mask(width: usize) -> u64 {
    match width % 64 {
        0 => !0,
        r => (1u64 << r) - 1,
    }
}

/// `dst = src + (src shifted one column left) + (src shifted one column
/// right)`: the effect on a row of pressing the cells `src` of that row.
pub(crate) fn spread_row(src: &[u64], dst: &mut [u64], width: usize) {
    let n = src.len();
    for i in 0..n {
        let w = src[i];
        let from_left = (w << 1) | if i > 0 { src[i - 1] >> 63 } else { 0 };
        let from_right = (w >> 1) | if i + 1 < n { src[i + 1] << 63 } else { 0 };
        dst[i] = w ^ from_left ^ from_right;
    }
    if let Some(last) = dst.last_mut() {
        *last &= last_word_mask(width);
    }
}

/// `dst ^= src`, word by word.
pub(crate) fn xor_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// Rows of `#` (on) and `0` (off), each ending in a newline: the way the
/// 15-122 handout's transcripts show a board.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = String::with_capacity(self.width + 1);
        for row in 0..self.height {
            line.clear();
            for col in 0..self.width {
                line.push(if self.get(Cell { row, col }) {
                    '#'
                } else {
                    '0'
                });
            }
            line.push('\n');
            f.write_str(&line)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board {}x{}\n{self}", self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(row: usize, col: usize) -> Cell {
        Cell { row, col }
    }

    #[test]
    fn press_toggles_cross_clipped_at_edges() {
        let mut b = Board::new(5, 5);
        b.press(at(1, 3));
        assert_eq!(b.to_string(), "000#0\n00###\n000#0\n00000\n00000\n");
        b.press(at(0, 0));
        assert_eq!(b.count_on(), 8);
        assert!(b.get(at(0, 1)) && b.get(at(1, 0)) && b.get(at(0, 0)));
    }

    #[test]
    fn press_across_word_boundaries() {
        let mut b = Board::new(130, 3);
        b.press(at(1, 64));
        let on: Vec<Cell> = b.cells_on().collect();
        assert_eq!(
            on,
            vec![at(0, 64), at(1, 63), at(1, 64), at(1, 65), at(2, 64)]
        );
        b.press(at(2, 129));
        assert!(b.get(at(2, 128)) && b.get(at(1, 129)) && b.get(at(2, 129)));
    }

    #[test]
    fn apply_presses_equals_pressing_one_by_one() {
        let presses = Board::from_fn(70, 4, |c| (c.row * 7 + c.col * 3) % 5 == 0);
        let mut fast = Board::new(70, 4);
        fast.apply_presses(&presses);
        let mut slow = Board::new(70, 4);
        for c in presses.cells_on() {
            slow.press(c);
        }
        assert_eq!(fast, slow);
    }

    #[test]
    fn all_on_keeps_padding_zero() {
        let b = Board::all_on(65, 2);
        assert_eq!(b.count_on(), 130);
        assert!(!Board::all_on(3, 3).is_solved());
    }
}
