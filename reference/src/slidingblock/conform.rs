//! The CS61BL batteries: the Checker row by row of
//! `shared/specs/slidingblock-checker.md` (ambiguous rows accept each listed
//! status), several errors at once, and seeded random move lists judged by
//! our own checker; the Solver's statuses 0 to 4 and its answers.

use super::{
    Format, Goal, Outcome, Recipe, SolveOptions, Tray, format_blocks, format_tray, parse_moves,
    random_puzzle, replay, solve,
};
use crate::battery::Output;
use crate::battery::{Battery, FolderId};
use crate::lightsout::rng;

/// A 2x3 tray with 1x1 blocks at 0 0 and 1 1.
const TRAY: &str = "2 3\n0 0 0 0\n1 1 1 1\n";
/// A 1x1 block wanted at 0 2.
const GOAL: &str = "0 2 0 2\n";

/// The Checker battery.
pub fn checker(b: &mut Battery) {
    // (case, init, goal, stdin, accepted statuses)
    let rows: &[(&str, &str, &str, &str, &[i32])] = &[
        ("valid moves reach the goal", TRAY, GOAL, "0 0 0 2\n", &[0]),
        (
            "goal reached, then left",
            TRAY,
            GOAL,
            "0 0 0 2\n0 2 0 1\n",
            &[1],
        ),
        ("no moves, goal already met", TRAY, "0 0 0 0\n", "", &[0]),
        ("no moves, goal not met", TRAY, GOAL, "", &[1]),
        ("line with 3 integers", TRAY, GOAL, "1 2 3\n", &[4]),
        ("line with 5 integers", TRAY, GOAL, "0 0 0 2 0\n", &[4]),
        ("words", TRAY, GOAL, "up up down down\n", &[4]),
        ("blank line inside stdin", TRAY, GOAL, "\n0 0 0 2\n", &[4]),
        (
            "blank line after the moves",
            TRAY,
            GOAL,
            "0 0 0 2\n\n",
            &[4],
        ),
        (
            "integer too large for 32 bits",
            TRAY,
            GOAL,
            "0 0 0 99999999999\n",
            &[4],
        ),
        ("negative coordinate", TRAY, GOAL, "0 0 -1 0\n", &[4]),
        (
            "target outside the tray (ambiguous)",
            TRAY,
            GOAL,
            "0 0 0 5\n",
            &[4, 6],
        ),
        (
            "leading and trailing spaces",
            TRAY,
            GOAL,
            "  0 0 0 2  \n",
            &[0],
        ),
        ("CRLF line ends", TRAY, GOAL, "0 0 0 2\r\n", &[0]),
        ("no final newline", TRAY, GOAL, "0 0 0 2", &[0]),
        (
            "two spaces or a tab (ambiguous)",
            TRAY,
            GOAL,
            "0  0\t0 2\n",
            &[0, 4],
        ),
        (
            "leading zeros (ambiguous)",
            TRAY,
            GOAL,
            "00 0 0 02\n",
            &[0, 1, 4],
        ),
        (
            "plus sign (ambiguous)",
            TRAY,
            GOAL,
            "+0 0 0 2\n",
            &[0, 1, 4],
        ),
        ("diagonal move", TRAY, GOAL, "0 0 1 2\n", &[6]),
        (
            "path blocked",
            "2 3\n0 0 0 0\n0 1 0 1\n",
            GOAL,
            "0 0 0 2\n",
            &[6],
        ),
        (
            "no block has its corner there",
            TRAY,
            GOAL,
            "0 1 0 2\n",
            &[6],
        ),
        (
            "inside a block but not its corner",
            "2 3\n0 0 1 1\n",
            GOAL,
            "1 1 1 2\n",
            &[6],
        ),
        (
            "move to its own position (ambiguous)",
            TRAY,
            GOAL,
            "0 0 0 0\n",
            &[1, 6],
        ),
        (
            "an impossible move, then a malformed line",
            TRAY,
            GOAL,
            "0 0 1 2\n1 2\n",
            &[4],
        ),
        (
            "malformed stdin and an invalid init",
            "2 3\n0 0 0 9\n",
            GOAL,
            "1 2\n",
            &[4],
        ),
        (
            "overlapping blocks in init",
            "2 3\n0 0 0 1\n0 1 1 1\n",
            GOAL,
            "",
            &[5],
        ),
        (
            "block outside the tray in init",
            "2 3\n0 0 0 3\n",
            GOAL,
            "",
            &[5],
        ),
        (
            "block outside the tray in goal",
            TRAY,
            "0 3 0 3\n",
            "",
            &[5],
        ),
        ("inverted block", "2 3\n1 1 0 0\n", GOAL, "", &[5]),
        (
            "tray header not two integers",
            "2\n0 0 0 0\n",
            GOAL,
            "",
            &[5],
        ),
        ("blank line in init", "2 3\n\n0 0 0 0\n", GOAL, "", &[5]),
        ("tray larger than 256", "300 3\n0 0 0 0\n", GOAL, "", &[5]),
        ("zero side", "0 3\n", GOAL, "", &[5]),
        (
            "block line of 5 integers in init",
            "2 3\n0 0 0 0 0\n",
            GOAL,
            "",
            &[5],
        ),
        (
            "block line of 5 integers in goal",
            TRAY,
            "0 2 0 2 0\n",
            "",
            &[5],
        ),
        ("empty goal file", TRAY, "", "", &[0]),
        (
            "goal names a position twice",
            TRAY,
            "0 0 0 0\n0 0 0 0\n",
            "",
            &[0],
        ),
        (
            "goal block of a size the tray lacks (ambiguous)",
            TRAY,
            "0 0 1 1\n",
            "",
            &[1, 5],
        ),
        (
            "a bad move line and a bad init (lowest wins)",
            "2 3\n9 9 9 9\n",
            GOAL,
            "x\n",
            &[4],
        ),
        (
            "an impossible move after the goal is met",
            TRAY,
            GOAL,
            "0 0 0 2\n0 2 1 0\n",
            &[6],
        ),
    ];
    for (name, init, goal, stdin, expect) in rows {
        let f = b.folder(
            &[("init", init.as_bytes()), ("goal", goal.as_bytes())],
            stdin.as_bytes(),
        );
        b.case(name, &f, &["init", "goal"], &[], expect, Output::Any);
    }
    let f = b.folder(
        &[("init", TRAY.as_bytes()), ("goal", GOAL.as_bytes())],
        b"0 0 0 2\n",
    );
    usage_cases(b, &f);
    let f = b.folder(&[("init", TRAY.as_bytes())], b"1 2 3\n");
    b.case(
        "missing file and a bad stdin line",
        &f,
        &["init", "-"],
        &[],
        &[3],
        Output::Any,
    );
    random_move_lists(b);
}

/// Seeded random puzzles: the solution, half of it, one move made
/// diagonal, and a garbage line inserted; expected statuses are our own
/// checker's (these are not ambiguous rows).
fn random_move_lists(b: &mut Battery) {
    for seed in 0..6u64 {
        let (init, goal_text, tray, goal) =
            random_files(4 + (seed % 3) as u32, 6, 30, 61_000 + seed);
        let report = solve(&tray, &goal, &SolveOptions::default());
        let Outcome::Solved(moves) = report.outcome else {
            continue;
        };
        let lines: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        let mut variants = vec![
            ("solution", lines.join("\n") + "\n"),
            (
                "half a solution",
                lines[..lines.len() / 2].join("\n") + "\n",
            ),
        ];
        if let Some(first) = moves.first() {
            let mut bent = lines.clone();
            bent[0] = format!(
                "{} {} {} {}",
                first.from_row,
                first.from_col,
                first.from_row + 1,
                first.from_col + 1
            );
            variants.push(("a diagonal move", bent.join("\n") + "\n"));
            let mut garbage = lines.clone();
            garbage.insert(garbage.len() / 2, "0 0 0".into());
            variants.push(("a garbage line", garbage.join("\n") + "\n"));
        }
        for (what, stdin) in variants {
            let f = b.folder(
                &[("init", init.as_bytes()), ("goal", goal_text.as_bytes())],
                stdin.as_bytes(),
            );
            let want = checker_status(&tray, &goal, stdin.as_bytes());
            let name = format!("random puzzle {seed}: {what}");
            b.case(&name, &f, &["init", "goal"], &[], &[want], Output::Any);
        }
    }
}

/// What the Checker exits with on valid files: 4 for a malformed move
/// line, 6 for an impossible move, 1 for the goal not met, else 0 (as
/// [`super::run_checker`] decides).
fn checker_status(tray: &Tray, goal: &Goal, stdin: &[u8]) -> i32 {
    match parse_moves(stdin) {
        Err(_) => 4,
        Ok(moves) => match replay(tray, &moves) {
            Err(_) => 6,
            Ok(board) if board.unmet(goal).is_none() => 0,
            Ok(_) => 1,
        },
    }
}

/// The statuses both programs share: 2 for a wrong argument count, 3 for
/// an argument that is no readable file (missing, or a folder).
fn usage_cases(b: &mut Battery, f: &FolderId) {
    let cases: &[(&str, &[&str], i32)] = &[
        ("no arguments", &[], 2),
        ("one argument", &["init"], 2),
        ("three arguments", &["init", "goal", "goal"], 2),
        ("missing init file", &["-", "goal"], 3),
        ("missing goal file", &["init", "-"], 3),
        ("a folder as init", &["/", "goal"], 3),
        ("a folder as goal", &["init", "/"], 3),
    ];
    for (name, args, status) in cases {
        b.case(name, f, args, &[], &[*status], Output::Any);
    }
}

/// A seeded random solvable puzzle, 4 wide, `height` high: its init and
/// goal files' text, and the puzzle.
fn random_files(
    height: u32,
    blocks: usize,
    walk: usize,
    seed: u64,
) -> (String, String, Tray, Goal) {
    let recipe = Recipe {
        height,
        width: 4,
        blocks,
        max_side: 2,
        walk,
        goal_blocks: 2,
    };
    let (tray, goal) = random_puzzle(&recipe, &mut rng(seed));
    let init = format_tray(&tray, Format::Corners);
    let goal_text = format_blocks(&goal.blocks, Format::Corners);
    (init, goal_text, tray, goal)
}

/// The Solver battery: statuses 2 to 4, then answers checked by replay.
pub fn solver(b: &mut Battery) {
    let f = b.folder(&[("init", TRAY.as_bytes()), ("goal", GOAL.as_bytes())], b"");
    usage_cases(b, &f);
    b.case(
        "solvable: one move",
        &f,
        &["init", "goal"],
        &["init", "goal"],
        &[0],
        Output::Solves,
    );
    let malformed: &[(&str, &str, &str)] = &[
        (
            "malformed init: overlapping blocks",
            "2 3\n0 0 0 1\n0 1 1 1\n",
            GOAL,
        ),
        ("malformed init: bad header", "2\n0 0 0 0\n", GOAL),
        ("malformed goal: block outside the tray", TRAY, "0 3 0 3\n"),
        ("malformed goal: 5 numbers", TRAY, "0 2 0 2 0\n"),
    ];
    for (name, init, goal) in malformed {
        let f = b.folder(&[("init", init.as_bytes()), ("goal", goal.as_bytes())], b"");
        b.case(name, &f, &["init", "goal"], &[], &[4], Output::Any);
    }
    // Unsolvable: a 1x2 block that must go down, a 1x1 block that can only
    // ever sit below it; and a goal block of a size the tray lacks.
    let unsolvable: &[(&str, &str, &str)] = &[
        (
            "unsolvable: blocked for good",
            "2 2\n0 0 0 1\n1 0 1 0\n",
            "1 0 1 1\n",
        ),
        (
            "unsolvable: no block of the goal's size",
            "1 2\n0 0 0 1\n",
            "0 0 0 0\n",
        ),
    ];
    for (name, init, goal) in unsolvable {
        let f = b.folder(&[("init", init.as_bytes()), ("goal", goal.as_bytes())], b"");
        b.case(name, &f, &["init", "goal"], &[], &[1], Output::Empty);
    }
    for seed in 0..3u64 {
        let (init, goal_text, _, _) = random_files(5, 7, 40, 62_000 + seed);
        let f = b.folder(
            &[("init", init.as_bytes()), ("goal", goal_text.as_bytes())],
            b"",
        );
        let name = format!("solvable: random puzzle {seed}");
        b.case(
            &name,
            &f,
            &["init", "goal"],
            &["init", "goal"],
            &[0],
            Output::Solves,
        );
    }
}
