//! A stub earns nothing in any course: each course's submission as its
//! handout's skeleton leaves it (`harness/tests/fixtures/stubs/`), graded
//! by the bundled course, gets 0 on every item it is the stub of, though
//! it passes cases in most of them (a `find_solution` returning None is
//! right on the unsolvable boards, an empty Solver exits 0 where the
//! probes want 0, a `main` that returns 1 is right on unsolvable boards
//! and leaks nothing).

use std::path::Path;

use crate::support::{harness, read_scorecard, workspace};

/// Grades `class` by `course`; the summary's lines up to `built`, and the
/// scorecard's rows.
fn grade(
    course: &str,
    class: &Path,
) -> (Vec<String>, Vec<std::collections::HashMap<String, String>>) {
    let out = tempfile::tempdir().unwrap();
    let (run, summary) =
        crate::class::grade_class(course, class, out.path(), &["--cpu-limit", "10s"]);
    run.code(1);
    let lines = crate::class::points(&summary);
    (lines, read_scorecard(&out.path().join("scorecard.csv")))
}

/// A class of the stub folders `names` (copied, with `extra` files from
/// another fixture beside each).
fn class(names: &[&str], extra: Option<(&str, &[&str])>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let stubs = workspace().join("harness/tests/fixtures/stubs");
    for name in names {
        let to = dir.path().join(name);
        std::fs::create_dir(&to).unwrap();
        for e in std::fs::read_dir(stubs.join(name)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
        if let Some((from, files)) = extra {
            let from = workspace()
                .join("harness/tests/fixtures/classes")
                .join(from);
            for f in files {
                std::fs::copy(from.join(f), to.join(f)).unwrap();
            }
        }
    }
    dir
}

/// How many of a submission's rows were accepted.
fn accepted(rows: &[std::collections::HashMap<String, String>], id: &str) -> usize {
    rows.iter()
        .filter(|r| {
            r["candidate"] == id && r["verdict"] == "accepted" && !r["suite"].starts_with("build")
        })
        .count()
}

#[test]
fn the_cis521_skeleton_earns_nothing() {
    if !crate::class::have("python3") {
        return;
    }
    let class = class(&["cis521"], None);
    let (lines, rows) = grade("cis521-lightsout", class.path());
    assert_eq!(
        lines,
        [
            "submission,Q1 get_board,Q2 create_puzzle,Q3 perform_move,Q4 scramble,Q5 is_solved,Q6 copy,Q7 successors,Q8 find_solution,The handout's examples,total,max,built",
            "cis521,0,0,0,0,0,0,0,0,0,0,40,yes",
        ]
    );
    // It is right where None is: the unsolvable boards.
    assert!(accepted(&rows, "cis521") > 0, "{rows:?}");
}

#[test]
fn the_cmu15110_stubs_earn_nothing() {
    if !crate::class::have("ruby") {
        return;
    }
    let class = class(&["cmu15110"], None);
    let (lines, _) = grade("cmu15110-lightsout", class.path());
    assert_eq!(
        lines,
        [
            "submission,rand_board,display,select!,all_out?,solvable?,total,max,built",
            "cmu15110,0,0,0,0,0,0,10,yes",
        ]
    );
}

/// An empty Solver and Checker: exit 0, nothing printed, on every case
/// and probe.
#[test]
fn the_cs61bl_empty_programs_earn_nothing() {
    if !crate::class::have("javac") {
        return;
    }
    let class = class(&["cs61bl"], None);
    let (lines, rows) = grade("cs61bl-slidingblock", class.path());
    assert_eq!(
        lines,
        [
            "submission,easy (all),hard (0.3 each),Checker exit statuses,Solver exit statuses,total,max,built",
            "cs61bl,0,0,0,0,0,20,yes",
        ]
    );
    // Exit 0 is what the probes of a correct answer want.
    assert!(accepted(&rows, "cs61bl") > 0, "{rows:?}");
}

/// A `main` that returns 0, and one that returns 1, beside a working bit
/// vector and hash table: Tasks 1-4 are theirs, the solver's items
/// nothing (the exit-1 `main` is right on every unsolvable board and
/// leaks nothing).
#[test]
fn a_cmu15122_main_that_does_nothing_earns_nothing() {
    if !crate::class::have("valgrind") {
        return;
    }
    let files: &[&str] = &["bitvector.c", "board-ht.c", "board-ht.h"];
    let class = class(
        &["cmu15122-exit0", "cmu15122-exit1"],
        Some(("cmu15122/perfect", files)),
    );
    let (lines, rows) = grade("cmu15122-lightsout", class.path());
    assert_eq!(
        lines,
        [
            "submission,Task 1 bitvector.c,Task 2 any BITVECTOR_LIMIT,Task 3 any unsigned type,\
             Task 4 board-ht.c,Task 5 exit 0 or 1,Task 5 no leaks,Task 6 moves,handin penalty,total,max,built",
            "cmu15122-exit0,4,1,1,4,0,0,0,0,10,19,yes",
            "cmu15122-exit1,4,1,1,4,0,0,0,0,10,19,yes",
        ]
    );
    let leaks_passed = rows
        .iter()
        .filter(|r| r["candidate"] == "cmu15122-exit1" && r["suite"].starts_with("leaks/"))
        .all(|r| r["verdict"] != "runtime-error");
    assert!(leaks_passed, "valgrind found nothing to say: {rows:?}");
    // The feedback says why the leak point is not given.
    let out = tempfile::tempdir().unwrap();
    let (run, _) = crate::class::grade_class(
        "cmu15122-lightsout",
        class.path(),
        out.path(),
        &["--cpu-limit", "10s", "--export", "gradescope:gs"],
    );
    run.code(1);
    let feedback =
        std::fs::read_to_string(out.path().join("gs/cmu15122-exit1/results.json")).unwrap();
    assert!(
        feedback.contains(
            "it counts only where \\\"Task 6 moves\\\" earns points, and that earned none"
        ),
        "{feedback}"
    );
}

/// "Free of memory leaks (as reported by valgrind)": a 15-122 handin that
/// reads past its array on every board but frees all it allocates keeps
/// the leak point, and the detail and the feedback name the error it did
/// not count; the leaky fixture (no free on unsolvable boards) loses it.
#[test]
fn an_invalid_read_is_not_a_leak() {
    if !crate::class::have("valgrind") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fixtures = workspace().join("harness/tests/fixtures");
    let perfect = fixtures.join("classes/cmu15122/perfect");
    // The perfect solver, reading one element past its array of presses
    // on every board (and freeing all it allocates).
    let solver = std::fs::read_to_string(perfect.join("lightsout.c")).unwrap();
    let reads_past = solver.replace(
        "    bool *press = xcalloc((size_t)width * height, sizeof(bool));\n",
        "    bool *press = xcalloc((size_t)width * height, sizeof(bool));\n    \
         volatile bool past = press[width * height];\n    (void)past;\n",
    );
    assert_ne!(reads_past, solver);
    let leaky =
        std::fs::read_to_string(fixtures.join("classes/cmu15122/leaky/lightsout.c")).unwrap();
    for (id, lightsout) in [("reads-past", reads_past), ("leaky", leaky)] {
        let to = dir.path().join(id);
        std::fs::create_dir(&to).unwrap();
        for f in ["bitvector.c", "board-ht.c", "board-ht.h"] {
            std::fs::copy(perfect.join(f), to.join(f)).unwrap();
        }
        std::fs::write(to.join("lightsout.c"), lightsout).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.csv");
    let scorecard = out.path().join("scorecard.csv");
    harness()
        .current_dir(out.path())
        .arg("grade")
        .arg("--course")
        .arg(workspace().join("courses/cmu15122-lightsout.toml"))
        .arg("--submissions")
        .arg(dir.path())
        .arg("--summary")
        .arg(&summary)
        .arg("--scorecard")
        .arg(&scorecard)
        .args(["--jobs", "2", "--cpu-limit", "10s"])
        .args(["--export", "gradescope:gs"])
        .assert()
        .code(1);
    let rows = read_scorecard(&scorecard);
    let leaks = |id: &str| -> Vec<(String, String)> {
        let mut v: Vec<_> = rows
            .iter()
            .filter(|r| r["candidate"] == id && r["suite"].starts_with("leaks/"))
            .map(|r| (r["verdict"].clone(), r["detail"].clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let note = "note: valgrind (not counted against the leak point): 1 x an invalid read or write";
    let read_past = leaks("reads-past");
    assert!(
        !read_past.is_empty()
            && read_past
                .iter()
                .all(|(v, d)| v == "accepted" && d.ends_with(note)),
        "{read_past:?}"
    );
    let leaky = leaks("leaky");
    assert!(
        leaky.iter().any(|(v, d)| v == "runtime-error"
            && d.ends_with(" bytes definitely and 0 indirectly lost (the leak error)")),
        "{leaky:?}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    let points: Vec<(String, String)> = csv::Reader::from_reader(text.as_bytes())
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (r["submission"].clone(), r["Task 5 no leaks"].clone())
        })
        .collect();
    assert!(
        points.contains(&("reads-past".into(), "1".into())),
        "{points:?}"
    );
    assert!(points.contains(&("leaky".into(), "0".into())), "{points:?}");
    let feedback = std::fs::read_to_string(out.path().join("gs/reads-past/results.json")).unwrap();
    assert!(
        feedback.contains("passed, with a note: valgrind (not counted against the leak point): 1 x an invalid read or write"),
        "{feedback}"
    );
}

/// A 15-122 handin's year is found by the interfaces its code uses: the
/// 2015 fixture (hash sets), and the same solver with each later year's
/// table (keys and values, entries) and the 2025 bit vectors.
#[test]
fn a_cmu15122_handins_year_is_found_by_its_interfaces() {
    let fixtures = workspace().join("harness/tests/fixtures");
    let perfect = fixtures.join("classes/cmu15122/perfect");
    let years = fixtures.join("handout-years");
    let dir = tempfile::tempdir().unwrap();
    for (course, board_ht, bitvector) in [
        ("cmu15122", None, None),
        ("cmu15122-2016", Some("board-ht-2016.c"), None),
        ("cmu15122-2022", Some("board-ht-2022.c"), None),
        (
            "cmu15122-2025",
            Some("board-ht-2022.c"),
            Some("bitvector-2025.c"),
        ),
    ] {
        let sub = dir.path().join(course);
        std::fs::create_dir(&sub).unwrap();
        std::fs::copy(perfect.join("lightsout.c"), sub.join("lightsout.c")).unwrap();
        let ht = board_ht.map_or(perfect.join("board-ht.c"), |f| years.join(f));
        std::fs::copy(ht, sub.join("board-ht.c")).unwrap();
        let bv = bitvector.map_or(perfect.join("bitvector.c"), |f| years.join(f));
        std::fs::copy(bv, sub.join("bitvector.c")).unwrap();
        let out = harness()
            .args(["courses", "--for"])
            .arg(&sub)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{course}: {stdout}");
        let best = stdout.split_whitespace().next();
        assert_eq!(best, Some(course), "{stdout}");
    }
    // A folder of nothing of theirs: no course fits, exit 1.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "nothing here").unwrap();
    harness()
        .args(["courses", "--for"])
        .arg(&empty)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no one bundled course fits"));
}

/// CS61BL's "2 points for Solver exiting with correct exit statuses":
/// the status alone. A Solver that says why on stdout as it exits 1 on an
/// unsolvable tray (or 2, 3, 4 on its errors) keeps every point of the
/// item; the suites' items judge what it prints.
#[test]
fn a_status_item_judges_the_status_alone() {
    if !crate::class::have("javac") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let perfect = workspace().join("harness/tests/fixtures/classes/cs61bl/perfect");
    let talker = dir.path().join("talker");
    std::fs::create_dir(&talker).unwrap();
    for e in std::fs::read_dir(&perfect).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), talker.join(e.file_name())).unwrap();
    }
    let solver = std::fs::read_to_string(talker.join("Solver.java"))
        .unwrap()
        .replace("System.exit(", "leave(")
        .replacen(
            "public class Solver {",
            "public class Solver {\n    static void leave(int status) {\n        \
             if (status != 0) System.out.println(\"no solution, or a bad argument\");\n        \
             System.exit(status);\n    }",
            1,
        );
    std::fs::write(talker.join("Solver.java"), solver).unwrap();
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.csv");
    harness()
        .current_dir(out.path())
        .arg("grade")
        .arg("--course")
        .arg(workspace().join("courses/cs61bl-slidingblock.toml"))
        .arg("--submissions")
        .arg(dir.path())
        .arg("--summary")
        .arg(&summary)
        .args(["--jobs", "2", "--filter", "solver-statuses"])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&summary).unwrap();
    let row: std::collections::HashMap<String, String> = csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(row["Solver exit statuses"], "2", "{text}");
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let printed = rows
        .iter()
        .filter(|r| r["suite"].starts_with("solver-statuses/") && r["exit_code"] != "0")
        .count();
    assert!(printed > 0, "{rows:?}");
}

/// Imperial's Part A is judged a function at a time, as the exam marks
/// it: a `letter_mask.c` whose neighbourhoods wrap from a row's last
/// column into the next row's first loses all 15 marks of
/// `intersect_neighbourhoods` (the random masks show it, whichever
/// puzzles do), and nothing else; the empty-mask fixture (wrong only on
/// the empty mask) loses `get_fixed_letter_pos`'s 10.
#[test]
fn an_imperial_function_with_one_bug_loses_its_marks() {
    if !crate::class::have("gcc") {
        return;
    }
    let fixtures = workspace().join("harness/tests/fixtures/classes/imperial");
    let dir = tempfile::tempdir().unwrap();
    let wraps = dir.path().join("wraps");
    std::fs::create_dir(&wraps).unwrap();
    std::fs::copy(fixtures.join("perfect/gogen.c"), wraps.join("gogen.c")).unwrap();
    let mask = std::fs::read_to_string(fixtures.join("perfect/letter_mask.c")).unwrap();
    let bug = mask.replace(
        "if (rr >= 0 && rr < HEIGHT && cc >= 0 && cc < WIDTH) out |= bit(rr, cc);",
        "int i = rr * WIDTH + cc;\n                        \
         if (i >= 0 && i < HEIGHT * WIDTH) out |= 1u << (31 - i);",
    );
    assert_ne!(bug, mask);
    std::fs::write(wraps.join("letter_mask.c"), bug).unwrap();
    let empty_mask = dir.path().join("empty-mask");
    std::fs::create_dir(&empty_mask).unwrap();
    for f in ["gogen.c", "letter_mask.c"] {
        std::fs::copy(fixtures.join("empty-mask").join(f), empty_mask.join(f)).unwrap();
    }
    let (lines, rows) = grade("imperial-gogen", dir.path());
    assert_eq!(
        lines,
        [
            "submission,A1 get_bit_value,A2 set_bit_value,A3 set_all_bits,A4 is_free_letter,\
             A5 get_fixed_letter_pos,A6 intersect_neighbourhoods,B1 get_letter_position,\
             B2 valid_solution,B3 update,B4 solve_board,B5 challenge comment,does not compile,total,max,built",
            "empty-mask,5,5,5,10,0,15,7,10,15,15,3,0,90,100,yes",
            "wraps,5,5,5,10,10,0,7,10,15,15,3,0,85,100,yes",
        ]
    );
    let random = rows
        .iter()
        .find(|r| {
            r["candidate"] == "wraps"
                && r["suite"].starts_with("intersect_neighbourhoods/")
                && r["case"] == "random.masks"
        })
        .unwrap();
    assert_eq!(random["verdict"], "wrong-answer", "{random:?}");
}

/// CIS 521's own examples run as written: a `create_puzzle` whose rows
/// are one list (`[[False] * cols] * rows`) passes every question the
/// harness builds from board files, and fails the handout's examples of
/// `perform_move`, `successors` and `find_solution`, each saying what it
/// printed.
#[test]
fn the_cis521_examples_run_as_written() {
    if !crate::class::have("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sample = workspace().join("courses/samples/cis521-lightsout/homework1_part2.py");
    let text = std::fs::read_to_string(&sample).unwrap();
    let aliased = text.replace(
        "return LightsOutPuzzle([[False] * cols for _ in range(rows)])",
        "return LightsOutPuzzle([[False] * cols] * rows)",
    );
    assert_ne!(aliased, text);
    for (id, code) in [("aliased", &aliased), ("sample", &text)] {
        std::fs::create_dir(dir.path().join(id)).unwrap();
        std::fs::write(dir.path().join(id).join("homework1_part2.py"), code).unwrap();
    }
    let (lines, rows) = grade("cis521-lightsout", dir.path());
    assert_eq!(
        lines,
        [
            "submission,Q1 get_board,Q2 create_puzzle,Q3 perform_move,Q4 scramble,Q5 is_solved,Q6 copy,\
             Q7 successors,Q8 find_solution,The handout's examples,total,max,built",
            "aliased,2,3,5,5,2,3,5,15,0,40,40,yes",
            "sample,2,3,5,5,2,3,5,15,0,40,40,yes",
        ]
    );
    let mut failed: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["candidate"] == "aliased" && r["suite"].starts_with("examples/"))
        .filter(|r| r["verdict"] != "accepted")
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    failed.sort();
    assert_eq!(
        failed,
        [
            ("find_solution.py.txt".into(), "wrong-answer".into()),
            ("perform_move.py.txt".into(), "wrong-answer".into()),
            ("successors.py.txt".into(), "wrong-answer".into()),
        ]
    );
    let perform = rows
        .iter()
        .find(|r| r["candidate"] == "aliased" && r["case"] == "perform_move.py.txt")
        .unwrap();
    assert!(
        perform["detail"]
            .contains("printed '[[True, True, True], [True, True, True], [True, True, True]]'"),
        "{}",
        perform["detail"]
    );
    assert!(
        rows.iter()
            .filter(|r| r["candidate"] == "sample" && r["suite"].starts_with("examples/"))
            .all(|r| r["verdict"] == "accepted"),
        "{rows:?}"
    );
}
