//! Sliding-block answers replayed for a report: the blocks after each
//! move, and the goal's places.

use std::path::Path;

use super::{Block, Board, Format, parse_moves, read_puzzle};
use crate::replay::{Frame, MAX_FRAMES, Replay};

/// The replay of the moves in `stdout` on the tray `init` for `goal`:
/// the blocks after each move, up to the first illegal one, and the goal's
/// places as outlines.
pub fn replay_answer(init: &Path, goal: &Path, stdout: &[u8]) -> Option<Replay> {
    let (tray, goal) = read_puzzle(init, goal, Format::Corners).ok()?;
    let corners = |b: &Block| [b.top, b.left, b.bottom, b.right];
    let mut board = Board::new(&tray);
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
        size: (tray.height, tray.width),
        frames,
        goal: goal.blocks.iter().map(corners).collect(),
        end,
        illegal,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn file(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn sliding_blocks_steps_and_unmet_goals() {
        let dir = tempfile::tempdir().unwrap();
        let init = file(dir.path(), "init", "2 3\n0 0 0 0\n1 1 1 2\n");
        let goal = file(dir.path(), "goal", "0 2 0 2\n");
        let r = replay_answer(&init, &goal, b"0 0 0 2\n").unwrap();
        assert_eq!(r.frames[1].blocks[0], [0, 2, 0, 2]);
        assert_eq!(r.end, "every goal block in place");
        let r = replay_answer(&init, &goal, b"0 0 1 0\n").unwrap();
        assert_eq!(r.end, "goal block 0 2 0 2 not in place");
        let r = replay_answer(&init, &goal, b"0 0 0 1\n0 1 1 1\n").unwrap();
        assert!(r.illegal);
        assert_eq!(r.frames.len(), 2);
        assert!(r.end.starts_with("line 2: \"0 1 1 1\": "), "{}", r.end);
    }
}
