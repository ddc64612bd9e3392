//! Lights Out answers replayed for a report: the board after each press.

use std::path::Path;

use super::{Board, format_board, parse_move, read_board};
use crate::replay::{Frame, MAX_FRAMES, Replay};

/// The replay of the moves in `stdout` on the board `file`: lights after
/// each press, up to the first move that is not one.
pub fn replay_answer(file: &Path, stdout: &[u8]) -> Option<Replay> {
    let mut board = read_board(file).ok()?;
    // The board file's rows, without its `WxH` header.
    let rows =
        |b: &Board| -> Vec<String> { format_board(b).lines().skip(1).map(String::from).collect() };
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
        size: (board.height() as u32, board.width() as u32),
        frames,
        goal: Vec::new(),
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
    fn lights_out_steps_and_the_first_illegal_move() {
        let dir = tempfile::tempdir().unwrap();
        let b = file(dir.path(), "b.txt", "3x2\n#OO\n##O\n");
        let r = replay_answer(&b, b"1:0\n").unwrap();
        assert_eq!(r.frames.len(), 2);
        assert_eq!(r.frames[1].cells, ["OOO", "OOO"]);
        assert_eq!(r.end, "all lights out");
        assert!(!r.illegal);
        let r = replay_answer(&b, b"0:1\n4:9\n1:0\n").unwrap();
        assert_eq!(r.frames.len(), 2, "stops at the illegal move");
        assert!(r.illegal);
        assert_eq!(r.end, "line 2: \"4:9\": outside 3x2 board");
        let r = replay_answer(&b, b"0:0\n").unwrap();
        assert_eq!(r.end, "2 lights still on");
    }
}
