//! `loplayer`, `lightsout-ref` and `lightsout`: the 15-122 transcripts byte
//! for byte, every corpus board, and every error path with its exact text.

use assert_cmd::assert::OutputAssertExt;
use predicates::prelude::*;

use crate::support::{bin, corpus, temp_file};

const B34: &str = "3x2\n#OO\n##O\n";
const B32: &str = "3x2\n#O#\n#OO\n";
const BOARD0: &str = "5x5\n#OOOO\nOOOOO\nOOOOO\nOOOOO\nOOOOO\n";

#[test]
fn loplayer_reproduces_the_handout_session() {
    let board = temp_file("board0.txt", BOARD0);
    bin("loplayer")
        .arg(&board.path)
        .write_stdin("1:3\n2:4\n")
        .assert()
        .code(1)
        .stdout(
            "#0000\n00000\n00000\n00000\n00000\n\
             Flipping 1:3\n#00#0\n00###\n000#0\n00000\n00000\n\
             Flipping 2:4\n#00#0\n00##0\n0000#\n0000#\n00000\n",
        )
        .stderr("loplayer: end of input after 2 moves with 6 lights still on\n");
}

#[test]
fn lightsout_piped_into_loplayer_matches_the_handout() {
    let board = temp_file("3x2-34.txt", B34);
    let moves = bin("lightsout")
        .arg(&board.path)
        .assert()
        .code(0)
        .stdout("1:0\n");
    let moves = moves.get_output().stdout.clone();
    bin("loplayer")
        .arg(&board.path)
        .write_stdin(moves)
        .assert()
        .code(0)
        .stdout("#00\n##0\nFlipping 1:0\n000\n000\nYou got all the lights out!\n")
        .stderr("");
}

#[test]
fn lightsout_ref_reproduces_both_handout_transcripts() {
    let solvable = temp_file("3x2-34.txt", B34);
    bin("lightsout-ref")
        .arg(&solvable.path)
        .assert()
        .code(0)
        .stdout(
            "Here's the board we're starting with:\n#00\n##0\nBoard is solvable.\n\
         Solution bitmap (the squares marked # need to be pushed to solve):\n000\n#00\n",
        );
    let unsolvable = temp_file("3x2-32.txt", B32);
    bin("lightsout-ref")
        .arg(&unsolvable.path)
        .assert()
        .code(1)
        .stdout("Here's the board we're starting with:\n#0#\n#00\nNo solution was found!\n");
}

#[test]
fn lightsout_unsolvable_prints_nothing_on_stdout() {
    let board = temp_file("3x2-32.txt", B32);
    bin("lightsout")
        .arg(&board.path)
        .assert()
        .code(1)
        .stdout("")
        .stderr("No solution\n");
}

#[test]
fn every_corpus_board_solves_and_checks_with_the_minimum() {
    let Some(dir) = corpus("cmu15122-lightsout") else {
        return;
    };
    let listing = std::fs::read_to_string(dir.join("boards.csv")).unwrap();
    let mut checked = 0;
    for row in listing.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let (name, expect, min) = (cols[0], cols[1], cols[2]);
        let board = dir.join("boards").join(name);
        let out = bin("lightsout").arg(&board).output().unwrap();
        if expect == "unsolvable" {
            assert_eq!(out.status.code(), Some(1), "{name}");
            assert!(out.stdout.is_empty(), "{name}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{name}");
            let moves = out.stdout.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(
                moves.to_string(),
                min,
                "{name}: not a minimum-press solution"
            );
            bin("loplayer")
                .arg("--quiet")
                .arg(&board)
                .write_stdin(out.stdout)
                .assert()
                .code(0)
                .stdout("You got all the lights out!\n");
        }
        checked += 1;
    }
    assert_eq!(checked, 42);
}

#[test]
fn loplayer_already_solved_board_wins_without_input() {
    let board = temp_file("off.txt", "2x2\nOO\nOO\n");
    bin("loplayer")
        .arg(&board.path)
        .assert()
        .code(0)
        .stdout("00\n00\nYou got all the lights out!\n");
}

#[test]
fn loplayer_rejects_invalid_moves_strictly() {
    let board = temp_file("b.txt", BOARD0);
    let cases = [
        ("9:9\n", "move 1 \"9:9\" (line 1): outside 5x5 board"),
        ("0:0\n\n4:5\n", "move 2 \"4:5\" (line 3): outside 5x5 board"),
        ("1-3\n", "move 1 \"1-3\" (line 1): expected row:col"),
        ("quit\n", "move 1 \"quit\" (line 1): expected row:col"),
        ("1:-1\n", "move 1 \"1:-1\" (line 1): expected row:col"),
    ];
    for (input, message) in cases {
        bin("loplayer")
            .args(["--quiet"])
            .arg(&board.path)
            .write_stdin(input)
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!("loplayer: {message}\n"));
    }
}

#[test]
fn malformed_boards_name_file_and_line() {
    let cases = [
        ("", "line 1: expected a WxH header, found end of file"),
        (
            "5y5\n",
            "line 1: invalid character 'y' in the WxH header (expected 'x')",
        ),
        (
            "0x2\n",
            "line 1: board dimensions must be at least 1x1, found 0x2",
        ),
        (
            "2x2\n#O\nOx\n",
            "line 3: invalid character 'x' (expected '#' or 'O')",
        ),
        (
            "3x2\n#OO\n#\n",
            "line 4: board smaller than its WxH header: 3x2 needs 6 cells, found 4",
        ),
        (
            "2x1\n#O\n#\n",
            "line 3: board larger than its WxH header: '#' after the last of 2x1 cells",
        ),
    ];
    for (text, message) in cases {
        let board = temp_file("bad.txt", text);
        let expected = format!("{}: {message}\n", board.path.display());
        for tool in ["lightsout", "lightsout-ref", "loplayer"] {
            bin(tool)
                .arg(&board.path)
                .write_stdin("")
                .assert()
                .code(1)
                .stdout("")
                .stderr(format!("{tool}: {expected}"));
        }
    }
}

/// A 19-byte file whose header says a billion cells, read under a 500 MB
/// address-space limit: each tool names the file's fault (it once
/// allocated the board first and aborted).
#[test]
fn a_huge_header_over_a_short_body_is_an_error_not_an_abort() {
    let board = temp_file("huge.txt", "1x1000000000\n#\n#\n");
    for tool in ["lightsout", "lightsout-ref", "loplayer"] {
        let exe = assert_cmd::cargo::cargo_bin(tool);
        std::process::Command::new("sh")
            .args(["-c", "ulimit -v 500000 && exec \"$0\" \"$1\""])
            .arg(&exe)
            .arg(&board.path)
            .stdin(std::process::Stdio::null())
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "{tool}: {}: line 4: board smaller than its WxH header: 1x1000000000 needs 1000000000 cells, found 2\n",
                board.path.display()
            ));
    }
}

#[test]
fn missing_file_and_usage_errors_exit_1() {
    for tool in ["lightsout", "lightsout-ref", "loplayer"] {
        bin(tool)
            .arg("/nonexistent/board.txt")
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with(format!(
                "{tool}: /nonexistent/board.txt: cannot read: "
            )));
        bin(tool)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains("Usage: "));
        bin(tool).args(["a", "b"]).assert().code(1).stdout("");
        bin(tool)
            .arg("--help")
            .assert()
            .code(0)
            .stdout(predicate::str::contains("Usage: "));
        bin(tool)
            .arg("--version")
            .assert()
            .code(0)
            .stdout(format!("{tool} {}\n", env!("CARGO_PKG_VERSION")));
    }
    bin("lightsout")
        .assert()
        .stderr(predicate::str::contains("Usage: lightsout <board name>"));
}

#[test]
fn loplayer_quiet_checks_a_long_move_list() {
    // A 1000x1000 board with one light on: 100_000 presses of one cell (an
    // even number, so no change), then the solver's own answer.
    let mut text = String::from("1000x1000\n");
    for _ in 0..1000 {
        text.push_str(&"O".repeat(1000));
        text.push('\n');
    }
    let board = temp_file("big.txt", text.replacen('O', "#", 1));
    let solution = bin("lightsout").arg(&board.path).output().unwrap().stdout;
    let mut input = "500:500\n".repeat(100_000);
    input.push_str(std::str::from_utf8(&solution).unwrap());
    bin("loplayer")
        .arg("-q")
        .arg(&board.path)
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout("You got all the lights out!\n");
}

#[test]
fn bundled_suites_verify_against_their_listings() {
    let suites = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
    bin("puzzlegen")
        .arg("verify")
        .arg(&suites)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("easy.csv: 19/19 boards verified"))
        .stdout(predicate::str::contains("hard.csv: 17/17 boards verified"));
}

#[test]
fn puzzlegen_regenerates_the_bundled_suites_byte_for_byte() {
    let out = tempfile::tempdir().unwrap();
    bin("puzzlegen")
        .args(["suites", "--out"])
        .arg(out.path())
        .assert()
        .code(0);
    let bundled = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("suites");
    let files = |root: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = walkdir::WalkDir::new(root)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().strip_prefix(root).unwrap().to_owned())
            // The CS61BL best-known table comes from the corpus
            // (`puzzlegen optimal`, scripts/optimal-table), not `suites`.
            .filter(|p| p != std::path::Path::new("slidingblock/optimal.csv"))
            .collect();
        v.sort();
        v
    };
    let ours = files(&bundled);
    assert_eq!(ours, files(out.path()), "the same files");
    assert_eq!(
        ours.len(),
        36 + 40 + 3 + 2 * (16 + 40) + 2 + 2 + 16 + 6 + 12 + 2 * 24 + 1 + 5,
        "lightsout boards (easy, hard, 5x5), sliding trays and goals and best-known \
         tables, gogen puzzles \
         (easy, solved, newspaper, hard, challenge), listings"
    );
    for f in &ours {
        assert_eq!(
            std::fs::read(bundled.join(f)).unwrap(),
            std::fs::read(out.path().join(f)).unwrap(),
            "{}",
            f.display()
        );
    }
}

/// A stdin line far longer than any move (60 MB, no newline) fails each
/// checker cleanly with its documented status, never an abort.
#[test]
fn huge_stdin_lines_fail_cleanly() {
    let line = vec![b'y'; 60 << 20];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: [(&str, Vec<std::path::PathBuf>, i32, &str); 3] = [
        (
            "loplayer",
            vec![root.join("suites/lightsout/easy/2x2-01.txt")],
            1,
            "loplayer: line 1 is longer than 1048576 bytes\n",
        ),
        (
            "sbp-checker",
            vec![
                root.join("suites/slidingblock/easy/one.block"),
                root.join("suites/slidingblock/easy/one.block.goal"),
            ],
            4,
            "sbp-checker: stdin line 1 is longer than 1048576 bytes\n",
        ),
        (
            "gogen-checker",
            vec![root.join("suites/gogen/easy/no.givens.txt")],
            1,
            "gogen-checker: stdin line 1 is longer than 1048576 bytes\n",
        ),
    ];
    for (tool, files, status, message) in cases {
        bin(tool)
            .args(&files)
            .write_stdin(line.clone())
            .assert()
            .code(status)
            .stderr(message);
    }
}
