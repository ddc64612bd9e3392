//! The sliding-block model: blocks as inclusive corner rectangles, trays of
//! at most 256 x 256 cells, goals, and moves (a block's top-left corner
//! before and after a straight slide).

use std::fmt;

/// The largest tray side the course allows.
pub const MAX_SIDE: u32 = 256;

/// A block: rows `top..=bottom`, columns `left..=right`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block {
    /// Top row.
    pub top: u32,
    /// Left column.
    pub left: u32,
    /// Bottom row (inclusive).
    pub bottom: u32,
    /// Right column (inclusive).
    pub right: u32,
}

/// A block's size; blocks of one shape are interchangeable for goals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
}

impl Block {
    /// A block from its corners (inclusive).
    pub fn new(top: u32, left: u32, bottom: u32, right: u32) -> Self {
        Self {
            top,
            left,
            bottom,
            right,
        }
    }

    /// Its size.
    pub fn shape(&self) -> Shape {
        Shape {
            height: self.bottom - self.top + 1,
            width: self.right - self.left + 1,
        }
    }

    /// The same block with its top-left corner at (`row`, `col`).
    pub fn moved_to(&self, row: u32, col: u32) -> Block {
        let s = self.shape();
        Block::new(row, col, row + s.height - 1, col + s.width - 1)
    }

    /// Whether the two blocks share a cell.
    pub fn overlaps(&self, other: &Block) -> bool {
        self.top <= other.bottom
            && other.top <= self.bottom
            && self.left <= other.right
            && other.left <= self.right
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.top, self.left, self.bottom, self.right
        )
    }
}

/// A tray and its blocks, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tray {
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// The blocks; no two overlap, all inside the tray.
    pub blocks: Vec<Block>,
}

impl Tray {
    /// Whether `b` lies inside the tray.
    pub fn contains(&self, b: &Block) -> bool {
        b.bottom < self.height && b.right < self.width
    }
}

/// The tray turned a quarter clockwise: cell (r, c) goes to (c, height-1-r).
pub fn rotated(tray: &Tray) -> Tray {
    Tray {
        height: tray.width,
        width: tray.height,
        blocks: tray
            .blocks
            .iter()
            .map(|b| rotate_block(b, tray.height))
            .collect(),
    }
}

/// A goal turned with its tray (of `height` rows before turning).
pub fn rotated_goal(goal: &Goal, height: u32) -> Goal {
    Goal {
        blocks: goal
            .blocks
            .iter()
            .map(|b| rotate_block(b, height))
            .collect(),
    }
}

fn rotate_block(b: &Block, height: u32) -> Block {
    Block::new(b.left, height - 1 - b.bottom, b.right, height - 1 - b.top)
}

/// A goal: block positions that must each hold a block of that size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Goal {
    /// The required positions.
    pub blocks: Vec<Block>,
}

/// A move: slide the block whose top-left corner is `from` to `to`, in a
/// straight line through empty cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Row of the top-left corner before.
    pub from_row: u32,
    /// Column of the top-left corner before.
    pub from_col: u32,
    /// Row of the top-left corner after.
    pub to_row: u32,
    /// Column of the top-left corner after.
    pub to_col: u32,
}

impl Move {
    /// A move from (`r`, `c`) to (`r2`, `c2`).
    pub fn new(r: u32, c: u32, r2: u32, c2: u32) -> Self {
        Self {
            from_row: r,
            from_col: c,
            to_row: r2,
            to_col: c2,
        }
    }
}

/// `r c r' c'`, the course's move line.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.from_row, self.from_col, self.to_row, self.to_col
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_overlaps() {
        let a = Block::new(1, 1, 2, 2);
        assert_eq!(
            a.shape(),
            Shape {
                height: 2,
                width: 2
            }
        );
        assert_eq!(a.moved_to(3, 0), Block::new(3, 0, 4, 1));
        assert!(a.overlaps(&Block::new(2, 2, 2, 2)));
        assert!(!a.overlaps(&Block::new(3, 1, 3, 1)));
        assert_eq!(Move::new(1, 1, 0, 1).to_string(), "1 1 0 1");
    }

    #[test]
    fn quarter_turns() {
        let t = Tray {
            height: 2,
            width: 3,
            blocks: vec![Block::new(0, 0, 0, 1), Block::new(1, 2, 1, 2)],
        };
        let r = rotated(&t);
        assert_eq!((r.height, r.width), (3, 2));
        assert_eq!(r.blocks, [Block::new(0, 1, 1, 1), Block::new(2, 0, 2, 0)]);
        let full_turn = rotated(&rotated(&rotated(&r)));
        assert_eq!(full_turn, t);
    }
}
