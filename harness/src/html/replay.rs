//! Step-by-step replays of a candidate's answer, for the report: the board
//! after each move, the first illegal move, and what is left unsolved.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// A replay: frames to step through and how it ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    /// `lightsout` or `slidingblock`.
    pub family: &'static str,
    /// Rows and columns.
    pub size: (u32, u32),
    /// Frame 0 is the puzzle; frame i the state after move i.
    pub frames: Vec<Frame>,
    /// Goal blocks (sliding blocks), drawn as outlines.
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
    /// Lights Out: the rows, `#` on; sliding blocks: the blocks.
    pub cells: Vec<String>,
    /// Sliding blocks: `[top, left, bottom, right]` per block.
    pub blocks: Vec<[u32; 4]>,
    /// The cells the move touched (row, col).
    pub marked: Vec<(u32, u32)>,
}

/// The replay of `stdout` on the puzzle `files` of `family`, when that
/// family has one and the files can be read.
pub fn replay(family: &str, files: &[PathBuf], stdout: &[u8]) -> Option<Replay> {
    match (family, files) {
        ("lightsout", [board]) => lightsout(board, stdout),
        ("slidingblock", [init, goal]) => slidingblock(init, goal, stdout),
        _ => None,
    }
}

fn lightsout(file: &Path, stdout: &[u8]) -> Option<Replay> {
    use reference::lightsout::{format_board, parse_move, read_board};
    let mut board = read_board(file).ok()?;
    // The board file's rows, without its `WxH` header.
    let rows = |b: &reference::lightsout::Board| -> Vec<String> {
        format_board(b).lines().skip(1).map(String::from).collect()
    };
    let mut frames = vec![Frame {
        step: "start".into(),
        cells: rows(&board),
        blocks: Vec::new(),
        marked: Vec::new(),
    }];
    let mut end = None;
    for (i, line) in stdout.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line).trim().to_string();
        match parse_move(line, &board) {
            Ok(None) => continue,
            Ok(Some(cell)) => {
                board.press(cell);
                frames.push(Frame {
                    step: text,
                    cells: rows(&board),
                    blocks: Vec::new(),
                    marked: vec![(cell.row as u32, cell.col as u32)],
                });
            }
            Err(e) => {
                end = Some(format!("line {}: {text:?}: {e}", i + 1));
                break;
            }
        }
        if frames.len() > MAX_FRAMES {
            end = Some(format!(
                "more than {MAX_FRAMES} moves: the rest is not shown"
            ));
            break;
        }
    }
    let illegal = end.is_some();
    let end = end.unwrap_or_else(|| match board.count_on() {
        0 => "all lights out".into(),
        n => format!("{n} lights still on"),
    });
    Some(Replay {
        family: "lightsout",
        size: (board.height() as u32, board.width() as u32),
        frames,
        goal: Vec::new(),
        end,
        illegal,
    })
}

/// The most frames a replay holds (a report must stay a page).
pub const MAX_FRAMES: usize = 2000;

fn slidingblock(init: &Path, goal: &Path, stdout: &[u8]) -> Option<Replay> {
    use reference::slidingblock::{Format, parse_moves, read_puzzle};
    let (tray, goal) = read_puzzle(init, goal, Format::Corners).ok()?;
    let corners = |b: &reference::slidingblock::Block| [b.top, b.left, b.bottom, b.right];
    let mut board = reference::slidingblock::Board::new(&tray);
    let mut frames = vec![Frame {
        step: "start".into(),
        cells: Vec::new(),
        blocks: tray.blocks.iter().map(corners).collect(),
        marked: Vec::new(),
    }];
    let mut end = None;
    match parse_moves(stdout) {
        Err(e) => end = Some(e.to_string()),
        Ok(moves) => {
            for (line, mv) in moves {
                let step = format!(
                    "{} {} {} {}",
                    mv.from_row, mv.from_col, mv.to_row, mv.to_col
                );
                if let Err(e) = board.apply(mv) {
                    end = Some(format!("line {line}: {step:?}: {e}"));
                    break;
                }
                frames.push(Frame {
                    step,
                    cells: Vec::new(),
                    blocks: board.tray().blocks.iter().map(corners).collect(),
                    marked: vec![(mv.to_row, mv.to_col)],
                });
                if frames.len() > MAX_FRAMES {
                    end = Some(format!(
                        "more than {MAX_FRAMES} moves: the rest is not shown"
                    ));
                    break;
                }
            }
        }
    }
    let illegal = end.is_some();
    let end = end.unwrap_or_else(|| match board.unmet(&goal) {
        None => "every goal block in place".into(),
        Some(b) => format!(
            "goal block {} {} {} {} not in place",
            b.top, b.left, b.bottom, b.right
        ),
    });
    Some(Replay {
        family: "slidingblock",
        size: (tray.height, tray.width),
        frames,
        goal: goal.blocks.iter().map(corners).collect(),
        end,
        illegal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn lights_out_steps_and_the_first_illegal_move() {
        let dir = tempfile::tempdir().unwrap();
        let b = file(dir.path(), "b.txt", "3x2\n#OO\n##O\n");
        let r = replay("lightsout", std::slice::from_ref(&b), b"1:0\n").unwrap();
        assert_eq!(r.frames.len(), 2);
        assert_eq!(r.frames[1].cells, ["OOO", "OOO"]);
        assert_eq!(r.end, "all lights out");
        assert!(!r.illegal);
        let r = replay("lightsout", std::slice::from_ref(&b), b"0:1\n4:9\n1:0\n").unwrap();
        assert_eq!(r.frames.len(), 2, "stops at the illegal move");
        assert!(r.illegal);
        assert_eq!(r.end, "line 2: \"4:9\": outside 3x2 board");
        let r = replay("lightsout", &[b], b"0:0\n").unwrap();
        assert_eq!(r.end, "2 lights still on");
    }

    #[test]
    fn sliding_blocks_steps_and_unmet_goals() {
        let dir = tempfile::tempdir().unwrap();
        let init = file(dir.path(), "init", "2 3\n0 0 0 0\n1 1 1 2\n");
        let goal = file(dir.path(), "goal", "0 2 0 2\n");
        let r = replay("slidingblock", &[init.clone(), goal.clone()], b"0 0 0 2\n").unwrap();
        assert_eq!(r.frames[1].blocks[0], [0, 2, 0, 2]);
        assert_eq!(r.end, "every goal block in place");
        let r = replay("slidingblock", &[init.clone(), goal.clone()], b"0 0 1 0\n").unwrap();
        assert_eq!(r.end, "goal block 0 2 0 2 not in place");
        let r = replay("slidingblock", &[init, goal], b"0 0 0 1\n0 1 1 1\n").unwrap();
        assert!(r.illegal);
        assert_eq!(r.frames.len(), 2);
        assert!(r.end.starts_with("line 2: \"0 1 1 1\": "), "{}", r.end);
    }
}
