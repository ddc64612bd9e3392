//! A replay of a wrong answer as one still picture (SVG), for a platform
//! that shows images beside a test (PrairieLearn): the puzzle as given and
//! where the answer left it (or the state before its illegal move), side
//! by side, drawn from the replay's generic frames (lit cells, pieces, goal
//! outlines, the cells the last move touched), so it knows no family.

use base64::Engine as _;
use reference::replay::{Frame, Replay};

/// A cell's side, in pixels.
const CELL: u32 = 18;
/// Space between the two boards and around them, in pixels.
const GAP: u32 = 16;
/// Height of a board's caption, in pixels.
const CAPTION: u32 = 18;
/// The narrowest panel, in pixels (a caption's width).
const PANEL: u32 = 110;
/// Piece colours, by the piece's index (the HTML report's palette).
const COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22",
];

/// The picture of `rep`: SVG text.
pub fn svg(rep: &Replay) -> String {
    let (rows, cols) = rep.size;
    let h = rows * CELL;
    // Each board's panel, wide enough for its caption.
    let w = (cols * CELL).max(PANEL);
    let width = 3 * GAP + 2 * w;
    let height = 2 * GAP + h + CAPTION;
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    out.push_str(&format!(
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    ));
    let last = rep.frames.len().saturating_sub(1);
    let after = if rep.illegal {
        format!("before move {} (illegal)", last + 1)
    } else if last == 1 {
        "after 1 move".to_string()
    } else {
        format!("after {last} moves")
    };
    for (i, (frame, caption)) in [(0, "the puzzle".to_string()), (last, after)]
        .into_iter()
        .enumerate()
    {
        let Some(f) = rep.frames.get(frame) else {
            continue;
        };
        let x0 = GAP + i as u32 * (w + GAP);
        board(&mut out, rep, f, x0, GAP, frame == last && !rep.illegal);
        out.push_str(&format!(
            r#"<text x="{x0}" y="{}">{}</text>"#,
            GAP + h + CAPTION - 4,
            maud::html! { (caption) }.into_string()
        ));
    }
    out.push_str("</svg>");
    out
}

/// One board of `rep` in state `f` at (`x0`, `y0`); `left`: lit cells are
/// what the answer left on.
fn board(out: &mut String, rep: &Replay, f: &Frame, x0: u32, y0: u32, left: bool) {
    let (rows, cols) = rep.size;
    let at = |r: u32, c: u32| (x0 + c * CELL, y0 + r * CELL);
    out.push_str(&format!(
        r##"<rect x="{x0}" y="{y0}" width="{}" height="{}" fill="#eeeeee" stroke="#999999"/>"##,
        cols * CELL,
        rows * CELL
    ));
    let lit = if left { "#d62728" } else { "#f2c14e" };
    for (r, line) in f.cells.iter().enumerate() {
        for (c, ch) in line.chars().enumerate() {
            if ch == '#' {
                let (x, y) = at(r as u32, c as u32);
                out.push_str(&format!(
                    r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{lit}" stroke="#999999"/>"##
                ));
            }
        }
    }
    for (n, [top, left, bottom, right]) in f.blocks.iter().enumerate() {
        let (x, y) = at(*top, *left);
        out.push_str(&format!(
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#333333"/>"##,
            x + 1,
            y + 1,
            (right + 1 - left) * CELL - 2,
            (bottom + 1 - top) * CELL - 2,
            COLOURS[n % COLOURS.len()]
        ));
    }
    for [top, left, bottom, right] in &rep.goal {
        let (x, y) = at(*top, *left);
        out.push_str(&format!(
            r##"<rect x="{x}" y="{y}" width="{}" height="{}" fill="none" stroke="#000000" stroke-width="2" stroke-dasharray="4 3"/>"##,
            (right + 1 - left) * CELL,
            (bottom + 1 - top) * CELL
        ));
    }
    for (r, c) in &f.marked {
        let (x, y) = at(*r, *c);
        out.push_str(&format!(
            r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="none" stroke="#000000" stroke-width="2"/>"##
        ));
    }
}

/// `svg` as a `data:` URL, as an `<img>` shows it.
pub fn data_url(svg: &str) -> String {
    format!(
        "data:image/svg+xml;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(svg)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(step: &str, cells: &[&str], marked: Vec<(u32, u32)>) -> Frame {
        Frame {
            step: step.into(),
            cells: cells.iter().map(|s| s.to_string()).collect(),
            blocks: vec![[0, 0, 0, 1]],
            marked,
        }
    }

    #[test]
    fn a_replay_is_drawn_as_two_boards() {
        let rep = Replay {
            size: (2, 3),
            frames: vec![
                frame("", &["#..", "..#"], vec![]),
                frame("1:1", &["...", "..#"], vec![(0, 0), (0, 1), (1, 0)]),
            ],
            goal: vec![[1, 1, 1, 2]],
            end: "1 light left".into(),
            illegal: false,
        };
        let svg = svg(&rep);
        // Two panels of 110 px (boards of 3x2 cells of 18 px), 16 px
        // apart: 3*16 + 2*110 wide.
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="268" height="86""#),
            "{svg}"
        );
        for (mark, count, what) in [
            ("fill=\"#f2c14e\"", 2, "the puzzle's two lit cells"),
            ("fill=\"#d62728\" stroke=\"#999999\"", 1, "one left on"),
            ("stroke-dasharray", 2, "the goal on each board"),
            (
                "stroke-width=\"2\"/>",
                3,
                "the touched cells, on the last board",
            ),
        ] {
            assert_eq!(svg.matches(mark).count(), count, "{what}");
        }
        assert!(svg.contains(">the puzzle</text>") && svg.contains(">after 1 move</text>"));
        let url = data_url(&svg);
        assert!(url.starts_with("data:image/svg+xml;base64,PHN2Zy"), "{url}");
        let illegal = Replay {
            illegal: true,
            ..rep
        };
        assert!(super::svg(&illegal).contains(">before move 2 (illegal)</text>"));
    }
}
