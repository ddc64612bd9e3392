//! A puzzle's state space: a tray state as a fixed-length byte key (per
//! shape a sorted list of top-left corners, or a bitset when that is
//! shorter), and what the search asks of a key: is it the goal, how far is
//! it, which blocks sit where, what a move makes of it.

use super::tray::{Goal, Shape, Tray};

/// How one shape's positions are stored in a key.
#[derive(Clone, Copy, Debug)]
pub(super) enum Layout {
    /// `count` sorted positions of `width` bytes each.
    List { count: usize },
    /// A bitset over all cells.
    Bits,
}

/// Everything fixed for one puzzle.
pub(super) struct Space {
    pub(super) height: u32,
    pub(super) width: u32,
    pub(super) cells: usize,
    /// Bytes per position in a list: 1 up to 256 cells, else 2.
    pub(super) pos_bytes: usize,
    pub(super) shapes: Vec<Shape>,
    pub(super) layouts: Vec<Layout>,
    pub(super) offsets: Vec<usize>,
    pub(super) key_len: usize,
    /// Goal positions per shape, sorted, duplicates removed.
    pub(super) goal_lists: Vec<Vec<u32>>,
    /// The same as bitsets over the cells (in key bitset format).
    pub(super) goal_bits: Vec<Vec<u8>>,
}

impl Space {
    /// `None` when the goal can never be met: a goal shape the tray lacks,
    /// more goal positions of a shape than blocks of it, or two goal
    /// positions that overlap.
    pub(super) fn new(tray: &Tray, goal: &Goal) -> Option<Self> {
        let mut shapes: Vec<Shape> = tray.blocks.iter().map(|b| b.shape()).collect();
        shapes.sort();
        shapes.dedup();
        let counts: Vec<usize> = shapes
            .iter()
            .map(|s| tray.blocks.iter().filter(|b| b.shape() == *s).count())
            .collect();
        let mut wanted = goal.blocks.clone();
        wanted.sort();
        wanted.dedup();
        for (i, a) in wanted.iter().enumerate() {
            if wanted[i + 1..].iter().any(|b| a.overlaps(b)) {
                return None;
            }
        }
        let cells = (tray.height * tray.width) as usize;
        let mut goal_lists = vec![Vec::new(); shapes.len()];
        let mut goal_bits = vec![vec![0u8; cells.div_ceil(8)]; shapes.len()];
        for g in &wanted {
            let k = shapes.binary_search(&g.shape()).ok()?;
            let p = g.top * tray.width + g.left;
            goal_lists[k].push(p);
            goal_bits[k][p as usize / 8] |= 1 << (p % 8);
            if goal_lists[k].len() > counts[k] {
                return None;
            }
        }
        for list in &mut goal_lists {
            list.sort_unstable();
        }
        let pos_bytes = if cells <= 256 { 1 } else { 2 };
        let bitset_bytes = cells.div_ceil(8);
        let mut layouts = Vec::new();
        let mut offsets = Vec::new();
        let mut key_len = 0;
        for &count in &counts {
            offsets.push(key_len);
            if count * pos_bytes <= bitset_bytes {
                layouts.push(Layout::List { count });
                key_len += count * pos_bytes;
            } else {
                layouts.push(Layout::Bits);
                key_len += bitset_bytes;
            }
        }
        Some(Self {
            height: tray.height,
            width: tray.width,
            cells,
            pos_bytes,
            shapes,
            layouts,
            offsets,
            key_len,
            goal_lists,
            goal_bits,
        })
    }

    pub(super) fn read_pos(&self, key: &[u8], at: usize) -> u32 {
        if self.pos_bytes == 1 {
            u32::from(key[at])
        } else {
            u32::from(u16::from_le_bytes([key[at], key[at + 1]]))
        }
    }

    pub(super) fn write_pos(&self, key: &mut [u8], at: usize, pos: u32) {
        if self.pos_bytes == 1 {
            key[at] = pos as u8;
        } else {
            key[at..at + 2].copy_from_slice(&(pos as u16).to_le_bytes());
        }
    }

    /// The key of a tray.
    pub(super) fn encode(&self, tray: &Tray) -> Vec<u8> {
        let mut key = vec![0u8; self.key_len];
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); self.shapes.len()];
        for b in &tray.blocks {
            let k = self
                .shapes
                .binary_search(&b.shape())
                .expect("every shape is known");
            lists[k].push(b.top * self.width + b.left);
        }
        for (k, mut list) in lists.into_iter().enumerate() {
            list.sort_unstable();
            let off = self.offsets[k];
            match self.layouts[k] {
                Layout::List { .. } => {
                    for (i, p) in list.into_iter().enumerate() {
                        self.write_pos(&mut key, off + i * self.pos_bytes, p);
                    }
                }
                Layout::Bits => {
                    for p in list {
                        key[off + p as usize / 8] |= 1 << (p % 8);
                    }
                }
            }
        }
        key
    }

    /// Position `i` of shape `k`'s list in `key`.
    pub(super) fn list_pos(&self, key: &[u8], k: usize, i: usize) -> u32 {
        self.read_pos(key, self.offsets[k] + i * self.pos_bytes)
    }

    /// Whether shape `k` has a block at `pos` in `key`.
    pub(super) fn has(&self, key: &[u8], k: usize, pos: u32) -> bool {
        let off = self.offsets[k];
        match self.layouts[k] {
            Layout::List { count } => {
                let (mut lo, mut hi) = (0, count);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    match self.list_pos(key, k, mid).cmp(&pos) {
                        std::cmp::Ordering::Less => lo = mid + 1,
                        std::cmp::Ordering::Greater => hi = mid,
                        std::cmp::Ordering::Equal => return true,
                    }
                }
                false
            }
            Layout::Bits => key[off + pos as usize / 8] >> (pos % 8) & 1 == 1,
        }
    }

    /// Moves shape `k`'s block from `from` to `to` in `key`, keeping it
    /// canonical (a sorted list shifts in place).
    pub(super) fn relocate(&self, key: &mut [u8], k: usize, from: u32, to: u32) {
        let off = self.offsets[k];
        match self.layouts[k] {
            Layout::List { count } => {
                let at = |i: usize| off + i * self.pos_bytes;
                let mut i = (0..count)
                    .find(|&i| self.read_pos(key, at(i)) == from)
                    .expect("the block is there");
                while i + 1 < count && self.read_pos(key, at(i + 1)) < to {
                    let next = self.read_pos(key, at(i + 1));
                    self.write_pos(key, at(i), next);
                    i += 1;
                }
                while i > 0 && self.read_pos(key, at(i - 1)) > to {
                    let prev = self.read_pos(key, at(i - 1));
                    self.write_pos(key, at(i), prev);
                    i -= 1;
                }
                self.write_pos(key, at(i), to);
            }
            Layout::Bits => {
                key[off + from as usize / 8] &= !(1 << (from % 8));
                key[off + to as usize / 8] |= 1 << (to % 8);
            }
        }
    }

    pub(super) fn is_goal(&self, key: &[u8]) -> bool {
        (0..self.shapes.len()).all(|k| match self.layouts[k] {
            Layout::List { .. } => self.goal_lists[k].iter().all(|&p| self.has(key, k, p)),
            Layout::Bits => {
                let off = self.offsets[k];
                let bits = &key[off..off + self.goal_bits[k].len()];
                bits.iter()
                    .zip(&self.goal_bits[k])
                    .all(|(&have, &want)| have & want == want)
            }
        })
    }

    /// Per shape, each goal position not yet held is charged the Manhattan
    /// distance (in cells) to the nearest block of that shape that is not
    /// itself on a goal position. With interchangeable blocks in a full tray
    /// this is the distance the hole still has to travel.
    pub(super) fn heuristic(&self, key: &[u8]) -> u32 {
        let mut total = 0;
        let mut spare = Vec::new();
        for k in 0..self.shapes.len() {
            if self.goal_lists[k].is_empty() {
                continue;
            }
            let is_goal_cell = |p: u32| self.goal_bits[k][p as usize / 8] >> (p % 8) & 1 == 1;
            spare.clear();
            self.each_block_of(key, k, |p| {
                if !is_goal_cell(p) {
                    spare.push(p);
                }
            });
            for &g in &self.goal_lists[k] {
                if self.has(key, k, g) {
                    continue;
                }
                let (gr, gc) = (g / self.width, g % self.width);
                let nearest = spare
                    .iter()
                    .map(|&p| (p / self.width).abs_diff(gr) + (p % self.width).abs_diff(gc))
                    .min()
                    .unwrap_or(0);
                total += nearest;
            }
        }
        total
    }

    pub(super) fn each_block_of(&self, key: &[u8], k: usize, mut f: impl FnMut(u32)) {
        let off = self.offsets[k];
        match self.layouts[k] {
            Layout::List { count } => (0..count).for_each(|i| f(self.list_pos(key, k, i))),
            Layout::Bits => {
                for (byte_index, &byte) in key[off..off + self.cells.div_ceil(8)].iter().enumerate()
                {
                    let mut b = byte;
                    while b != 0 {
                        let bit = b.trailing_zeros();
                        b &= b - 1;
                        f(byte_index as u32 * 8 + bit);
                    }
                }
            }
        }
    }
}
