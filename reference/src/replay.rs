//! Replays of an answer, for a report: the puzzle after each move, drawn
//! from generic frames (lit cells, pieces, goal outlines, the cells a move
//! touched) so that whoever draws them knows no family. Each family that
//! has moves makes its own (its `replay.rs`).

use serde::Serialize;

/// A replay: frames to step through and how it ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    /// Rows and columns.
    pub size: (u32, u32),
    /// Frame 0 is the puzzle; frame i the state after move i.
    pub frames: Vec<Frame>,
    /// Goal places, drawn as outlines: `[top, left, bottom, right]`.
    pub goal: Vec<[u32; 4]>,
    /// How the answer ends: the first illegal move, or what is left.
    pub end: String,
    /// Whether the answer fails at an illegal move (the last frame is the
    /// state before it).
    pub illegal: bool,
}

/// One state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frame {
    /// The move that led here, as written.
    pub step: String,
    /// Lit cells, as rows with `#` for lit (empty when nothing is lit):
    /// drawn lit, and as left on in the last frame of an answer that
    /// ends without an illegal move.
    pub cells: Vec<String>,
    /// Pieces, `[top, left, bottom, right]` each, coloured by their index.
    pub blocks: Vec<[u32; 4]>,
    /// The cells the move touched (row, col).
    pub marked: Vec<(u32, u32)>,
}

/// The most frames a replay holds (a report must stay a page).
pub const MAX_FRAMES: usize = 2000;
