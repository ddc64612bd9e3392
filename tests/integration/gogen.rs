//! `gogen-solver` and `gogen-checker` as processes: the corpus puzzles, the
//! two wrong solutions, both file forms and every malformed-input path.

use predicates::prelude::*;

use crate::support::{bin, corpus, temp_file};

const BOARD: &str = "N.W.R\n.....\nS.X.B\n.....\nQ.M.P\n";
const WORDS: &str = "BOXED\nFOAM\nJUSTICE\nMUSHY\nPLAYING\nQUAVER\nWICKED\n";
const SOLUTION: &str = "NGWKR\nTICED\nSYXVB\nHUAOF\nQJMLP\n";

fn exam() -> String {
    format!("{BOARD}7\n{WORDS}")
}

#[test]
fn solver_solves_both_forms() {
    let puzzle = temp_file("easy.txt", exam());
    bin("gogen-solver")
        .arg(&puzzle.path)
        .assert()
        .code(0)
        .stdout(SOLUTION)
        .stderr("");
    let (b, w) = (temp_file("board", BOARD), temp_file("words", WORDS));
    bin("gogen-solver")
        .args(["--unique"])
        .arg(&b.path)
        .arg(&w.path)
        .assert()
        .code(0)
        .stdout(SOLUTION)
        .stderr("gogen-solver: the solution is unique\n");
}

#[test]
fn solver_says_no_solution_with_exit_1_and_empty_stdout() {
    // The word NR needs N (given at 0,0) next to R (given at 0,4).
    let puzzle = temp_file("p", format!("{BOARD}1\nNR\n"));
    bin("gogen-solver")
        .arg(&puzzle.path)
        .assert()
        .code(1)
        .stdout("")
        .stderr("gogen-solver: no solution\n");
}

#[test]
fn solver_and_checker_statuses_for_bad_input() {
    let good = temp_file("p", exam());
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(Vec<std::path::PathBuf>, i32, String)> = vec![
        (vec![], 2, "got 0".into()),
        (
            vec![good.path.clone(), good.path.clone(), good.path.clone()],
            2,
            "got 3".into(),
        ),
        (
            vec![dir.path().join("absent")],
            3,
            "absent: cannot read".into(),
        ),
        (vec![dir.path().to_owned()], 3, "is a directory".into()),
    ];
    for (files, status, wanted) in &cases {
        for tool in ["gogen-solver", "gogen-checker"] {
            bin(tool)
                .args(files)
                .write_stdin(SOLUTION)
                .assert()
                .code(*status)
                .stdout("")
                .stderr(predicate::str::contains(wanted.as_str()));
        }
    }
    bin("gogen-solver")
        .arg("--frobnicate")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Usage: gogen-solver"));
}

#[test]
fn every_malformed_puzzle_exits_4_naming_file_and_line() {
    let head = "N.W.R\n.....\n.....\n.....\n.....\n";
    let exams: &[(&str, String)] = &[
        (
            "line 2: a board row needs 5 cells, found \"....\"",
            "N.W.R\n....\n".into(),
        ),
        (
            "line 2: the board needs 5 rows, found 2",
            "N.W.R\n.....\n".into(),
        ),
        (
            "line 1: 'Z' is not a letter A to Y or '.'",
            "N.W.Z\n.....\n.....\n.....\n.....\n0\n".into(),
        ),
        (
            "line 3: letter N is given twice (also on line 1)",
            "N.W.R\n.....\n..N..\n.....\n.....\n0\n".into(),
        ),
        (
            "line 5: expected the number of words, found end of file",
            head.into(),
        ),
        (
            "line 6: expected the number of words, found \"two\"",
            format!("{head}two\n"),
        ),
        (
            "line 8: the file declares 3 words but has 2",
            format!("{head}3\nAB\nCD\n"),
        ),
        (
            "line 7: word \"FIZZ\": 'Z' is not a letter A to Y",
            format!("{head}1\nFIZZ\n"),
        ),
    ];
    for (wanted, text) in exams {
        let p = temp_file("exam.txt", text);
        for tool in ["gogen-solver", "gogen-checker"] {
            bin(tool)
                .arg(&p.path)
                .write_stdin(SOLUTION)
                .assert()
                .code(4)
                .stdout("")
                .stderr(format!("{tool}: {}: {wanted}\n", p.path.display()));
        }
    }
    // Two-file form: the error names the file at fault.
    let (b, w) = (temp_file("board", BOARD), temp_file("words", "OK\nno\n"));
    bin("gogen-solver")
        .arg(&b.path)
        .arg(&w.path)
        .assert()
        .code(4)
        .stderr(format!(
            "gogen-solver: {}: line 2: word \"no\": 'n' is not a letter A to Y\n",
            w.path.display()
        ));
    let extra = temp_file("board", format!("{BOARD}EXTRA\n"));
    let w = temp_file("words", WORDS);
    bin("gogen-checker")
        .arg(&extra.path)
        .arg(&w.path)
        .write_stdin(SOLUTION)
        .assert()
        .code(4)
        .stderr(format!(
            "gogen-checker: {}: line 6: unexpected \"EXTRA\" after the 5 board rows\n",
            extra.path.display()
        ));
}

#[test]
fn checker_verdicts_and_reasons() {
    let p = temp_file("p", exam());
    let rows: &[(&str, i32, &str)] = &[
        (SOLUTION, 0, "valid solution"),
        (
            "NGWKR\nTICED\nSVXYB\nHUAOF\nQJMLP\n",
            1,
            "word MUSHY: H at 3,0 and Y at 2,3 are not adjacent",
        ),
        (
            "NGWKR\nTICED\nSYXVB\nHUAOF\nQJMZP\n",
            1,
            "letter Z at 4,3 is not A to Y",
        ),
        (
            "NGWKR\nTICED\nSYXVB\nHUAOF\nQJMNP\n",
            1,
            "letter N appears twice (at 0,0 and 4,3)",
        ),
        (
            "GNWKR\nTICED\nSYXVB\nHUAOF\nQJMLP\n",
            1,
            "the puzzle gives N at 0,0 but the solution has G",
        ),
        (
            "NGWKR\nTICED\n",
            1,
            "solution line 2: the board needs 5 rows, found 2",
        ),
        ("", 1, "solution line 1: the board needs 5 rows, found 0"),
    ];
    for (solution, status, reason) in rows {
        bin("gogen-checker")
            .arg(&p.path)
            .write_stdin(*solution)
            .assert()
            .code(*status)
            .stdout("")
            .stderr(format!("gogen-checker: {reason}\n"));
    }
}

#[test]
fn corpus_puzzles_solve_and_wrong_solutions_are_rejected() {
    let Some(dir) = corpus("imperial-gogen") else {
        return;
    };
    let files = |level: &str| {
        [
            dir.join(format!("board-{level}.txt")),
            dir.join(format!("words-{level}.txt")),
        ]
    };
    let solution = std::fs::read_to_string(dir.join("solution-easy.txt")).unwrap();
    bin("gogen-solver")
        .args(files("easy"))
        .assert()
        .code(0)
        .stdout(solution.clone());
    for level in ["easy", "medium", "hard"] {
        let out = bin("gogen-solver").args(files(level)).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{level}");
        bin("gogen-checker")
            .args(files(level))
            .write_stdin(out.stdout)
            .assert()
            .code(0)
            .stderr("gogen-checker: valid solution\n");
    }
    // The corpus's hard puzzle has more than one solution (the solver's
    // properties test that every solution it reports checks).
    for (level, said) in [
        ("easy", "is unique"),
        ("medium", "is unique"),
        ("hard", "is not unique"),
    ] {
        bin("gogen-solver")
            .arg("--unique")
            .args(files(level))
            .assert()
            .code(0)
            .stderr(format!("gogen-solver: the solution {said}\n"));
    }
    for (wrong, reason) in [
        (
            "solution-wrong1.txt",
            "word MUSHY: H at 3,0 and Y at 2,3 are not adjacent",
        ),
        ("solution-wrong2.txt", "letter Z at 4,3 is not A to Y"),
    ] {
        bin("gogen-checker")
            .args(files("easy"))
            .write_stdin(std::fs::read(dir.join(wrong)).unwrap())
            .assert()
            .code(1)
            .stderr(format!("gogen-checker: {reason}\n"));
    }
}

#[test]
fn bundled_suites_match_their_listings() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/gogen");
    for (level, files) in [("easy", 1), ("hard", 2), ("solved", 1), ("newspaper", 1)] {
        let dir = root.join(level);
        let mut listing = csv::Reader::from_path(dir.join(format!("{level}.csv"))).unwrap();
        let mut rows = 0;
        for row in listing.records() {
            let row = row.unwrap();
            let paths: Vec<_> = (0..files).map(|i| dir.join(&row[i])).collect();
            let out = bin("gogen-solver").args(&paths).output().unwrap();
            let expect = &row[files];
            let status = if expect == "solvable" { 0 } else { 1 };
            assert_eq!(out.status.code(), Some(status), "{level}/{}", &row[0]);
            if status == 0 {
                bin("gogen-checker")
                    .args(&paths)
                    .write_stdin(out.stdout)
                    .assert()
                    .code(0);
            }
            rows += 1;
        }
        let want = match level {
            "easy" => 16,
            "solved" => 6,
            "newspaper" => 12,
            _ => 24,
        };
        assert_eq!(rows, want, "{level}");
    }
}

#[test]
fn odd_but_well_formed_words() {
    // Words sharing a line, a one-letter word and a repeated word: fine.
    let p = temp_file("p", "A.B.C\n.....\nD.E.F\n.....\nG.H.I\n3\nJ JK\nJK\n");
    let out = bin("gogen-solver").arg(&p.path).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    bin("gogen-checker")
        .arg(&p.path)
        .write_stdin(out.stdout)
        .assert()
        .code(0);
    // A letter twice in a row can never be spelled.
    let book = temp_file("p", "A.B.C\n.....\nD.E.F\n.....\nG.H.I\n1\nBOOK\n");
    bin("gogen-solver")
        .arg(&book.path)
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn evening_standard_puzzles_in_the_newspaper_form() {
    let Some(dir) = corpus("evening-standard-gogen") else {
        return;
    };
    let mut listing = csv::Reader::from_path(dir.join("expected.csv")).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for row in listing.records() {
        let row = row.unwrap();
        let (file, expect) = (dir.join(&row[0]), row[1].to_string());
        let out = bin("gogen-solver")
            .arg("--unique")
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        match expect.as_str() {
            "unique" => {
                assert_eq!(out.status.code(), Some(0), "{}", &row[0]);
                assert_eq!(
                    stderr, "gogen-solver: the solution is unique\n",
                    "{}",
                    &row[0]
                );
                bin("gogen-checker")
                    .arg(&file)
                    .write_stdin(out.stdout)
                    .assert()
                    .code(0);
            }
            "unsolvable" => assert_eq!(out.status.code(), Some(1), "{}", &row[0]),
            "malformed" => {
                assert_eq!(out.status.code(), Some(4), "{}", &row[0]);
                assert!(stderr.contains(": line "), "a line is named: {stderr}");
            }
            other => panic!("unknown outcome {other}"),
        }
        *seen.entry(expect).or_insert(0) += 1;
    }
    let counts: Vec<(String, i32)> = seen.into_iter().collect();
    assert_eq!(
        counts,
        [
            ("malformed".to_string(), 1),
            ("unique".to_string(), 46),
            ("unsolvable".to_string(), 2)
        ]
    );
    // The typo named exactly: 39.txt gives the letter D twice.
    bin("gogen-solver")
        .arg(dir.join("39.txt"))
        .assert()
        .code(4)
        .stderr(format!(
            "gogen-solver: {}: line 3: letter D is given twice (also on line 2)\n",
            dir.join("39.txt").display()
        ));
}
