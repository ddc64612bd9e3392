//! Grading whole classes: the five shipped course configs on the fixture
//! class (`tests/fixtures/classes/<course>/<submission>`), with the exact
//! points of every submission in `summary.csv`; archives, resuming, the
//! Gradescope export per submission and the older sliding-block format.
//!
//! Tests run at once: each run claims a uid range of its own.

use std::path::{Path, PathBuf};

use super::support::{copy_dir, harness, read_scorecard, replica, workspace};

/// The fixture class of `course`.
fn fixtures(course: &str) -> PathBuf {
    workspace()
        .join("harness/tests/fixtures/classes")
        .join(course)
}

/// Whether `program` can run here; without it the test prints why it
/// skips, unless PUZZLEGRADE_REQUIRE_TOOLS is set (CI, where `.ci/run`
/// installs it), where that is a failure.
pub fn have(program: &str) -> bool {
    let found = which_on_path(program);
    if !found {
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none(),
            "{program} is required here (PUZZLEGRADE_REQUIRE_TOOLS) but not installed"
        );
        eprintln!("note: skipping: {program} is not installed (.ci/run installs it)");
    }
    found
}

fn which_on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Grades `class` with `courses/<course>.toml`; returns the run, the
/// summary's text and the scorecard's path (in `out`).
pub fn grade_class(
    course: &str,
    class: &Path,
    out: &Path,
    extra: &[&str],
) -> (assert_cmd::assert::Assert, String) {
    let summary = out.join("summary.csv");
    let run = harness()
        .current_dir(out)
        .arg("grade")
        .arg("--course")
        .arg(workspace().join("courses").join(format!("{course}.toml")))
        .arg("--submissions")
        .arg(class)
        .arg("--summary")
        .arg(&summary)
        .args(["--jobs", "2"])
        .args(extra)
        .assert();
    let text = std::fs::read_to_string(&summary).unwrap_or_default();
    (run, text)
}

/// Whether `program` is installed; where it is not, says what `what`
/// skips, and fails where `PUZZLEGRADE_REQUIRE_TOOLS` is set (`.ci/run`
/// installs it).
fn tool(program: &str, what: &str) -> bool {
    if have(program) {
        return true;
    }
    assert!(
        std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none(),
        "{program} is absent and PUZZLEGRADE_REQUIRE_TOOLS is set"
    );
    eprintln!("note: {program} is absent; skipping {what}");
    false
}

/// The summary's columns up to `built` (points per item, total, max,
/// built), one line per submission.
pub fn points(summary: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_reader(summary.as_bytes());
    let header = reader.headers().unwrap().clone();
    let built = header.iter().position(|h| h == "built").unwrap();
    let mut lines = vec![header.iter().take(built + 1).collect::<Vec<_>>().join(",")];
    for r in reader.records() {
        let r = r.unwrap();
        lines.push(r.iter().take(built + 1).collect::<Vec<_>>().join(","));
    }
    lines
}

/// The 15-122 fixture class's points (3 CPU-seconds a case), sandboxed
/// or not: the handout's 19, task by task.
const CMU15122_POINTS: [&str; 8] = [
    "submission,Task 1 bitvector.c,Task 2 any BITVECTOR_LIMIT,Task 3 any unsigned type,\
     Task 4 board-ht.c,Task 5 exit 0 or 1,Task 5 no leaks,Task 6 moves,handin penalty,total,max,built",
    "broken,0,0,0,0,0,0,0,0,0,19,no",
    // Exits 0 on the 7 unsolvable boards (with either bit vector) and on
    // the battery's 3 unsolvable or malformed ones: 34 of 51 statuses,
    // 24 of 38 answers; a `main` that only says "no solution" has 28 and
    // 14 of them, and only what it does beyond that counts.
    "exit0,4,1,1,4,1.04,1,1.67,0,13.71,19,yes",
    // valgrind finds its leak on the 3 small unsolvable boards.
    "leaky,4,1,1,4,4,0,4,0,18,19,yes",
    // Its bit vectors break at BITVECTOR_LIMIT 8 (and so as uint8_t).
    "limit8,4,0,0,4,4,1,4,0,17,19,yes",
    "perfect,4,1,1,4,4,1,4,0,19,19,yes",
    // The perfect solver, handed in for the 11th time (folders 1 to 11):
    // half a point over the limit of 10.
    "resubmitted,4,1,1,4,4,1,4,-0.5,18.5,19,yes",
    // Spins on the 5x4 board, with either bit vector.
    "slow,4,1,1,4,3.65,1,3.67,0,18.32,19,yes",
];

/// The 15-122 overlay's library headers bring what the course's own do
/// (`lib/xalloc.h` stdio.h and stdlib.h, `lib/hset.h` stdlib.h), so a
/// handin that leans on them builds as it did in the course; and
/// `hset_insert` returns the element it replaced, `elem_equal_fn` naming
/// the client's function as the course's header does.
#[test]
fn the_15122_overlay_headers_bring_what_the_courses_do() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("header-only.c");
    std::fs::write(
        &source,
        "#include \"lib/xalloc.h\"\n#include \"lib/hset.h\"\n\
         static bool eq(hset_elem a, hset_elem b) { return a == b; }\n\
         static size_t h(hset_elem a) { return (size_t)a; }\n\
         int main(void) {\n\
         \x20   int *p = xmalloc(sizeof *p);\n\
         \x20   elem_equal_fn *e = eq;\n\
         \x20   hset_t H = hset_new(4, e, h, NULL);\n\
         \x20   if (hset_insert(H, p) != NULL) fprintf(stderr, \"replaced\\n\");\n\
         \x20   hset_elem old = hset_insert(H, p);\n\
         \x20   hset_free(H);\n\
         \x20   free(p);\n\
         \x20   return old == NULL ? 0 : 1;\n\
         }\n",
    )
    .unwrap();
    let lib = workspace().join("courses/cmu15122/lib");
    let hset = workspace().join("courses/cmu15122-hset/lib");
    let out = std::process::Command::new("gcc")
        .args(["-Wall", "-Wextra", "-Werror", "-std=c99", "-pedantic", "-I"])
        .arg(workspace().join("courses/cmu15122"))
        .arg("-I")
        .arg(workspace().join("courses/cmu15122-hset"))
        .arg("-I")
        .arg(&lib)
        .arg(&source)
        .arg(lib.join("xalloc.c"))
        .arg(lib.join("kv.c"))
        .arg(hset.join("hset.c"))
        .arg("-o")
        .arg(dir.path().join("a.out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::process::Command::new(dir.path().join("a.out"))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "the same element again: NULL, nothing replaced"
    );
}

/// A 15-122 solver that says `board solved` on stdout after its winning
/// moves: the course's own pipe into `loplayer` never reads that line
/// (loplayer stops at the win), so neither does the judge.
#[test]
fn the_15122_judge_reads_no_further_than_the_win() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("chatty");
    copy_dir(&fixtures("cmu15122").join("perfect"), &sub);
    let source = std::fs::read_to_string(sub.join("lightsout.c")).unwrap();
    let chatty = source.replace(
        "        free(press);\n        return 0;",
        "        printf(\"board solved\\n\");\n        free(press);\n        return 0;",
    );
    assert_ne!(chatty, source, "the fixture's solver changed: fix the test");
    std::fs::write(sub.join("lightsout.c"), chatty).unwrap();
    let out = harness()
        .current_dir(dir.path())
        .args(["grade", "--course", "cmu15122", "--submission"])
        .arg(&sub)
        .args(["--filter", "boards/", "--scorecard", "rows.csv"])
        .output()
        .unwrap();
    let rows = read_scorecard(&dir.path().join("rows.csv"));
    let cases: Vec<_> = rows
        .iter()
        .filter(|r| r["suite"].starts_with("boards"))
        .collect();
    assert!(
        cases.len() >= 19,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for r in cases {
        assert_eq!(r["verdict"], "accepted", "{r:?}");
    }
}

/// Each of the 15-122 handout's tasks graded as the course did: the
/// course's files laid over each submission (its own Makefile replaced),
/// bit vectors at other limits and types, the hash table on bool-array bit
/// vectors, the solver with both, and valgrind.
#[test]
fn cmu15122_class_task_by_task() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let (run, summary) = grade_class(
        "cmu15122-lightsout",
        &fixtures("cmu15122"),
        out.path(),
        &["--cpu-limit", "3s"],
    );
    run.code(1)
        .stdout(predicates::str::contains("perfect          19 / 19"))
        .stdout(predicates::str::contains(
            "broken            0 / 19  did not build",
        ));
    assert_eq!(points(&summary), CMU15122_POINTS);
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let row = |who: &str, suite: &str, case: &str| {
        rows.iter()
            .find(|r| r["candidate"] == who && r["suite"] == suite && r["case"] == case)
            .unwrap_or_else(|| panic!("no row {who} {suite} {case}"))
            .clone()
    };
    let broken = row("broken", "build", "build");
    assert_eq!(broken["verdict"], "compile-error");
    assert!(
        broken["detail"].starts_with("build exit 2: ")
            && (broken["detail"].contains("error: expected ';' before '}' token")
                || broken["detail"].contains("expected ‘;’")),
        "the compiler's last lines: {}",
        broken["detail"]
    );
    assert_eq!(
        rows.iter().filter(|r| r["candidate"] == "broken").count(),
        1,
        "one row for a submission that does not build"
    );
    let easy = |part: &str| format!("{part}/lightsout/easy");
    // slow hands in a Makefile that cannot build anything: the course's
    // replaced it.
    assert_eq!(row("slow", "build", "build")["verdict"], "accepted");
    assert_eq!(
        row("slow", &easy("boards"), "5x4-13.txt")["verdict"],
        "time-limit"
    );
    assert_eq!(
        row("exit0", &easy("boards-array"), "3x2-02.txt")["verdict"],
        "wrong-exit-status"
    );
    let leak = row("leaky", &easy("leaks"), "3x2-02.txt");
    assert_eq!(
        (leak["verdict"].as_str(), leak["detail"].as_str()),
        (
            "runtime-error",
            "exit status 99 (the contract has 0 and 1); stderr: \
             valgrind: 6 bytes definitely and 0 indirectly lost (the leak error)"
        )
    );
    assert_eq!(
        row("leaky", &easy("leaks"), "3x2-04.txt")["verdict"],
        "accepted",
        "solvable: freed"
    );
    let limit8 = row("limit8", &easy("bitvector-limit8"), "2x2-00.txt");
    assert_eq!(
        limit8["detail"],
        "line 9: expected \"flip-differs 11111111\", got \"flip-differs 01111111\""
    );
    assert_eq!(
        row("limit8", &easy("bitvector-limit32"), "2x2-00.txt")["verdict"],
        "accepted"
    );
    assert_eq!(row("perfect", "build", "build")["verdict"], "accepted");
    // Built in scratch copies: nothing was written into the class.
    assert!(!fixtures("cmu15122").join("perfect/lightsout").exists());
    assert!(!fixtures("cmu15122").join("perfect/lib").exists());
}

/// The later 15-122 handouts, each its own bundled course: a handin
/// written for one (its board-ht.c on that year's lib/hdict.h, the 2025
/// bit vectors' index_t and bitvector_free) gets every point there, and
/// the 2015 handin (hash sets) does not build on them.
#[test]
fn cmu15122_every_handout_year() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let years = workspace().join("harness/tests/fixtures/handout-years");
    let perfect = fixtures("cmu15122").join("perfect");
    for (course, board_ht, bitvector) in [
        ("cmu15122-2016", "board-ht-2016.c", None),
        ("cmu15122-2022", "board-ht-2022.c", None),
        ("cmu15122-2025", "board-ht-2022.c", Some("bitvector-2025.c")),
    ] {
        let out = tempfile::tempdir().unwrap();
        let class = out.path().join("class");
        copy_dir(&perfect, &class.join("of-2015"));
        let sub = class.join(format!("of-{course}"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::copy(perfect.join("lightsout.c"), sub.join("lightsout.c")).unwrap();
        std::fs::copy(years.join(board_ht), sub.join("board-ht.c")).unwrap();
        let bv = bitvector.map_or(perfect.join("bitvector.c"), |b| years.join(b));
        std::fs::copy(bv, sub.join("bitvector.c")).unwrap();
        let summary = out.path().join("summary.csv");
        let run = harness()
            .current_dir(out.path())
            .args(["grade", "--course", course, "--submissions"])
            .arg(&class)
            .arg("--summary")
            .arg(&summary)
            .args(["--jobs", "2", "--cpu-limit", "3s"])
            .assert()
            .code(1);
        let text = std::fs::read_to_string(&summary).unwrap_or_default();
        let totals: Vec<String> = points(&text)
            .iter()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{} {} {}", f[0], f[f.len() - 3], f[f.len() - 1])
            })
            .collect();
        assert_eq!(
            totals,
            ["of-2015 0 no".to_string(), format!("of-{course} 19 yes")],
            "{course}: {run:?}"
        );
    }
}

/// The Fall 2014 15-122 handout (bit arrays, `ba-ht.c` over hash sets):
/// its 20 points as its writeup gives them, and its strange bit arrays
/// (bits in another order, `bitarray_new()` not 0): a solver that takes
/// an empty board to be 0 loses the boards built on them.
#[test]
fn cmu15122_fall_2014_bit_arrays() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let years = workspace().join("harness/tests/fixtures/handout-years");
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    // The 2015 fixture's solver, written for this handout's interfaces.
    let solver = std::fs::read_to_string(fixtures("cmu15122").join("perfect/lightsout.c"))
        .unwrap()
        .replace("#include \"board-ht.h\"\n", "#include \"lib/ba-ht.h\"\n")
        .replace("lib/bitvector.h", "lib/bitarray.h")
        .replace(
            "!bitvector_equal(B, bitvector_new())",
            "B != bitarray_new()",
        )
        .replace("bitvector", "bitarray");
    for (name, solver) in [
        ("perfect", solver.clone()),
        ("zero", solver.replace("B != bitarray_new()", "B != 0")),
    ] {
        let sub = class.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("lightsout.c"), solver).unwrap();
        std::fs::copy(years.join("bitarray-2014.c"), sub.join("bitarray.c")).unwrap();
        std::fs::copy(years.join("ba-ht-2014.c"), sub.join("ba-ht.c")).unwrap();
    }
    let (run, summary) = grade_class(
        "cmu15122-2014-lightsout",
        &class,
        out.path(),
        &["--cpu-limit", "3s"],
    );
    run.code(1);
    let points = points(&summary);
    assert_eq!(
        points[0],
        "submission,Task 1 bitarray.c,Task 2 ba-ht.c,Task 3 exit 0 or 1,Task 3 moves,\
         Task 3 no leaks,handin penalty,total,max,built"
    );
    assert_eq!(points[1], "perfect,6,5,3,5,1,0,20,20,yes");
    // On the strange bit arrays it never sees a lit board as out: exit 1
    // on the solvable ones, no moves.
    let zero: Vec<&str> = points[2].split(',').collect();
    assert_eq!(&zero[..3], ["zero", "6", "5"]);
    assert!(zero[3].parse::<f64>().unwrap() < 3.0, "{}", points[2]);
    assert!(zero[4].parse::<f64>().unwrap() < 5.0, "{}", points[2]);
}

/// A program of the grader's that does not build costs its task alone:
/// a hash table that treats bit vectors as integers does not compile on
/// bool-array ones, and its rows say what is missing.
#[test]
fn cmu15122_a_program_that_does_not_build_costs_its_task() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    let sub = class.join("integers");
    std::fs::create_dir_all(&sub).unwrap();
    let perfect = fixtures("cmu15122").join("perfect");
    for f in ["bitvector.c", "lightsout.c", "board-ht.c"] {
        std::fs::copy(perfect.join(f), sub.join(f)).unwrap();
    }
    let ht = std::fs::read_to_string(sub.join("board-ht.c"))
        .unwrap()
        .replace(
            "static size_t board_hash(hset_elem x) {",
            "static size_t board_hash(hset_elem x) {\n    return board_of(x) % 1024;",
        );
    std::fs::write(sub.join("board-ht.c"), ht).unwrap();
    let (run, summary) = grade_class(
        "cmu15122-lightsout",
        &class,
        out.path(),
        &["--cpu-limit", "3s", "--filter", "3x"],
    );
    run.code(1);
    // Its solver answers the five boards (two unsolvable) on its own bit
    // vectors and does not build on bool-array ones: 5 of 10 statuses
    // and answers, where a `main` that does nothing gets 6 of the
    // statuses (exit 0) and 4 of the answers (exit 1).
    assert_eq!(
        points(&summary)[1],
        "integers,4,1,1,0,0,1,0.67,0,7.67,19,yes",
        "Task 4 lost, and what the solver does beyond a stub on half of Tasks 5 and 6: it does not build on bool-array bit vectors either"
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let ht = rows
        .iter()
        .find(|r| r["suite"] == "board-ht/lightsout/easy")
        .unwrap();
    assert_eq!(
        (ht["verdict"].as_str(), ht["detail"].as_str()),
        ("compile-error", "missing board-ht-test")
    );
}

/// Under bubblewrap a class builds (its copies sit where the sandbox's own
/// /dev would hide them: they are bound in, writable for the build only)
/// and its conformance probes reach their files: the same points.
#[test]
fn cmu15122_class_under_bubblewrap() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    if !crate::candidates::have("bwrap") {
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_TOOLS").is_none(),
            "bwrap is absent and PUZZLEGRADE_REQUIRE_TOOLS is set"
        );
        eprintln!("note: bwrap is absent; skipping the class under bubblewrap");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let (run, summary) = grade_class(
        "cmu15122-lightsout",
        &fixtures("cmu15122"),
        out.path(),
        &["--cpu-limit", "3s", "--sandbox", "bwrap"],
    );
    run.code(1);
    assert_eq!(points(&summary), CMU15122_POINTS);
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    assert!(rows.iter().all(|r| r["isolation"].ends_with("+bwrap")));
    let broken = rows.iter().find(|r| r["candidate"] == "broken").unwrap();
    assert!(
        broken["detail"].starts_with("build exit 2: "),
        "{}",
        broken["detail"]
    );
}

#[test]
fn cmu15110_class_in_ruby() {
    if !tool("ruby", "the CMU 15-110 class") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let (run, summary) = grade_class("cmu15110-lightsout", &fixtures("cmu15110"), out.path(), &[]);
    run.code(1);
    assert_eq!(
        points(&summary),
        [
            "submission,rand_board,display,select!,all_out?,solvable?,total,max,built",
            "broken,0,0,0,0,0,0,10,no",
            // lazy and raises label their circles in black, not red.
            "lazy,2,0,2,2,0,6,10,yes",
            "perfect,2,2,2,2,2,10,10,yes",
            "raises,2,0,0,2,2,6,10,yes",
        ]
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let lazy = rows
        .iter()
        .find(|r| r["candidate"] == "lazy" && r["suite"] == "display/lightsout/5x5")
        .unwrap();
    assert_eq!(lazy["verdict"], "wrong-answer", "{lazy:?}");
    // Said in the handout's terms: the adapter's labels name the call.
    assert!(
        lazy["detail"]
            .starts_with("display(board) drew the circle at 0,0 (fill, text, text colour) as 0,0 ")
            && lazy["detail"].contains(" 0,0 black, expected 0,0 ")
            && lazy["detail"].contains(" 0,0 red (the board: [["),
        "{}",
        lazy["detail"]
    );
    let solvable = rows
        .iter()
        .find(|r| {
            r["candidate"] == "lazy"
                && r["suite"] == "solvable/lightsout/5x5"
                && r["verdict"] == "wrong-answer"
        })
        .unwrap();
    assert!(
        solvable["detail"]
            .starts_with("solvable?(board) returned true, expected false (the board: [[")
            && solvable["detail"].ends_with("]])"),
        "{}",
        solvable["detail"]
    );
    let raised = rows
        .iter()
        .find(|r| r["candidate"] == "raises" && r["suite"] == "select/lightsout/5x5")
        .unwrap();
    assert_eq!(raised["verdict"], "runtime-error");
    // With what Ruby said: the error line of its traceback.
    assert!(
        raised["detail"]
            .starts_with("adapter exit 3: the function raised or crashed (see stderr); stderr: ")
            && raised["detail"].contains("Error"),
        "{}",
        raised["detail"]
    );
}

#[test]
fn cis521_class_in_python() {
    let out = tempfile::tempdir().unwrap();
    let gs = format!("gradescope:{}", out.path().join("gs").display());
    let (run, summary) = grade_class(
        "cis521-lightsout",
        &fixtures("cis521"),
        out.path(),
        &["--export", &gs, "--export", "json:class.json"],
    );
    run.code(1);
    // The class's JSON export carries the points beside the rows.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("class.json")).unwrap()).unwrap();
    let noisy = json["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["submission"] == "noisy")
        .unwrap();
    assert_eq!(
        (noisy["total"].as_f64(), noisy["max"].as_f64()),
        (Some(37.0), Some(40.0))
    );
    assert_eq!(noisy["items"][5]["name"], "Q6 copy");
    assert_eq!(noisy["items"][5]["points"], 0.0);
    assert_eq!(json["points"].as_array().unwrap().len(), 4);
    assert!(json["rows"].as_array().unwrap().len() > 200);
    assert_eq!(
        points(&summary),
        [
            "submission,Q1 get_board,Q2 create_puzzle,Q3 perform_move,Q4 scramble,\
             Q5 is_solved,Q6 copy,Q7 successors,Q8 find_solution,The handout's examples,\
             total,max,built",
            "broken,0,0,0,0,0,0,0,0,0,0,40,no",
            "greedy,2,3,5,5,2,3,5,0,0,25,40,yes",
            "noisy,2,3,5,5,2,0,5,15,0,37,40,yes",
            "perfect,2,3,5,5,2,3,5,15,0,40,40,yes",
        ]
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    // The greedy answers solve the boards (accepted) but are not the
    // fewest presses, so Q8 gives nothing for them.
    let greedy: Vec<_> = rows
        .iter()
        .filter(|r| r["candidate"] == "greedy" && r["suite"].starts_with("find_solution/"))
        .collect();
    assert_eq!(greedy.len(), 10);
    assert!(greedy.iter().any(|r| r["verdict"] == "accepted"
        && r["moves"].parse::<u64>().unwrap() > r["best_moves"].parse::<u64>().unwrap()));
    assert!(
        greedy
            .iter()
            .any(|r| r["verdict"] == "wrong-exit-status" && r["case"] == "3x2-02.txt"),
        "[] instead of None on an unsolvable board"
    );
    // The student is told why a right answer earned nothing.
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gs/greedy/results.json")).unwrap())
            .unwrap();
    let q8 = results["tests"][7]["output"].as_str().unwrap();
    let long = greedy
        .iter()
        .find(|r| r["verdict"] == "accepted" && r["moves"] != r["best_moves"])
        .unwrap();
    let line = format!(
        "{}/{}: a solution of {} moves; this item needs the fewest, {}",
        long["suite"], long["case"], long["moves"], long["best_moves"]
    );
    assert!(q8.lines().any(|l| l == line), "{line} in\n{q8}");
    // In the handout's terms (the part's `says`), not the contract's exit
    // statuses; the scorecard keeps the contract's words.
    assert!(
        q8.lines().any(|l| l
            == "find_solution/lightsout/easy/3x2-02.txt: wrong result: find_solution() \
                returned moves, but this puzzle has no solution (None expected)"),
        "{q8}"
    );
    assert!(!q8.contains("exit 1"), "{q8}");
    // Printing at import does not spoil a transcript.
    assert!(
        rows.iter()
            .filter(|r| r["candidate"] == "noisy" && r["suite"].starts_with("get_board/"))
            .all(|r| r["verdict"] == "accepted")
    );
    let build = rows
        .iter()
        .find(|r| r["candidate"] == "broken" && r["suite"] == "build")
        .unwrap();
    assert!(
        build["detail"].ends_with("SyntaxError: expected ':'"),
        "{}",
        build["detail"]
    );
}

/// A function-level answer that is wrong is said as the handout writes the
/// call and its values: `perform_move(0, 0) left the board [[...]],
/// expected [[...]]`, in Python's True and False.
#[test]
fn cis521_wrong_function_said_in_the_handouts_terms() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    std::fs::create_dir_all(class.join("cellonly")).unwrap();
    let perfect =
        std::fs::read_to_string(fixtures("cis521").join("perfect/homework1_part2.py")).unwrap();
    let wrong = perfect.replace(
        "for r, c in ((row, col), (row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):",
        "for r, c in ((row, col),):",
    );
    assert_ne!(wrong, perfect);
    std::fs::write(class.join("cellonly/homework1_part2.py"), wrong).unwrap();
    let (run, _) = grade_class(
        "cis521-lightsout",
        &class,
        out.path(),
        &["--filter", "perform_move/lightsout/easy/2x2-00"],
    );
    run.code(1);
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let row = rows
        .iter()
        .find(|r| r["suite"] == "perform_move/lightsout/easy")
        .unwrap();
    let board =
        std::fs::read_to_string(workspace().join("suites/lightsout/easy/2x2-00.txt")).unwrap();
    let cells: Vec<Vec<bool>> = board
        .lines()
        .skip(1)
        .map(|l| l.chars().map(|c| c == '#').collect())
        .collect();
    let literal = |b: &[Vec<bool>]| {
        let rows: Vec<String> = b
            .iter()
            .map(|r| {
                let v: Vec<&str> = r
                    .iter()
                    .map(|&x| if x { "True" } else { "False" })
                    .collect();
                format!("[{}]", v.join(", "))
            })
            .collect();
        format!("[{}]", rows.join(", "))
    };
    // Pressing (0, 0) of a 2x2 board toggles all but (1, 1).
    let mut only = cells.clone();
    only[0][0] = !only[0][0];
    let mut right = cells.clone();
    for (r, c) in [(0, 0), (0, 1), (1, 0)] {
        right[r][c] = !right[r][c];
    }
    assert_eq!(
        row["detail"],
        format!(
            "perform_move(0, 0) left the board {}, expected {} (the board: {})",
            literal(&only),
            literal(&right),
            literal(&cells)
        )
    );
}

/// `--export gradescope:` with a file's name: one submission's results.json
/// at exactly that path (as Gradescope reads it); for a class, which needs
/// a folder, a setup error before anything is written.
#[test]
fn a_gradescope_export_named_as_a_file() {
    let out = tempfile::tempdir().unwrap();
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "cis521", "--submission"])
        .arg(fixtures("cis521").join("perfect"))
        .args(["--filter", "get_board/", "--scorecard", "one.csv"])
        .args(["--export", "gradescope:results/results.json"])
        .assert()
        .code(0);
    let file = out.path().join("results/results.json");
    assert!(file.is_file(), "a file, not a folder");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(results["tests"][0]["name"], "Q1 get_board");
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "cis521", "--submissions"])
        .arg(fixtures("cis521"))
        .args(["--scorecard", "class.csv", "--export", "gradescope:class.json"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--export gradescope:class.json names a file, but a class's Gradescope results are a folder",
        ));
    assert!(!out.path().join("class.csv").exists());
    assert!(!out.path().join("class.json").exists());
}

/// Regrades: `--only ID` regrades chosen submissions into the class's
/// scorecard (their rows replaced, the others kept, the summary over the
/// whole class); a selection of nothing, an unknown id or a config naming
/// a suite that does not exist is a setup error (exit 2) that leaves the
/// scorecard as it was, and makes none.
#[test]
fn regrades_replace_chosen_rows_and_refuse_empty_selections() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    copy_dir(&fixtures("cis521"), &class);
    let grade = |extra: &[&str]| {
        harness()
            .current_dir(out.path())
            .args(["grade", "--course", "cis521", "--submissions"])
            .arg(&class)
            .args(["--jobs", "2"])
            .args(extra)
            .assert()
    };
    grade(&["--summary", "before.csv"]).code(1);
    let scorecard = out.path().join("scorecard.csv");
    let rows_before = std::fs::read(&scorecard).unwrap();
    // Nothing selected: no run, nothing touched, nothing made.
    grade(&["--filter", "zzz", "--force"])
        .code(2)
        .stderr(
            "harness: course UPenn CIS 521 HW1 Lights Out: no case selected (--filter \"zzz\" matches no part/suite/case): nothing to grade\n",
        );
    assert_eq!(std::fs::read(&scorecard).unwrap(), rows_before);
    grade(&["--filter", "zzz", "--scorecard", "new.csv"]).code(2);
    assert!(!out.path().join("new.csv").exists());
    // A submissions folder that does not exist: the same.
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "cis521", "--submissions", "nosuch"])
        .args(["--scorecard", "none.csv"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot read submissions nosuch"));
    assert!(!out.path().join("none.csv").exists());
    grade(&["--only", "nobody"])
        .code(2)
        .stderr(predicates::str::contains(
            "--only nobody: no submission of that id in the class",
        ));
    assert_eq!(std::fs::read(&scorecard).unwrap(), rows_before);
    // greedy fixes find_solution and is regraded alone.
    std::fs::copy(
        class.join("perfect/homework1_part2.py"),
        class.join("greedy/homework1_part2.py"),
    )
    .unwrap();
    grade(&["--only", "greedy", "--summary", "after.csv"]).code(1);
    let before = std::fs::read_to_string(out.path().join("before.csv")).unwrap();
    let after = std::fs::read_to_string(out.path().join("after.csv")).unwrap();
    let totals = |text: &str| -> Vec<String> {
        points(text)
            .iter()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{} {}", f[0], f[f.len() - 3])
            })
            .collect()
    };
    assert_eq!(
        totals(&before),
        ["broken 0", "greedy 25", "noisy 37", "perfect 40"]
    );
    assert_eq!(
        totals(&after),
        ["broken 0", "greedy 40", "noisy 37", "perfect 40"]
    );
    let rows = read_scorecard(&scorecard);
    let old_rows = {
        let text = String::from_utf8(rows_before).unwrap();
        text.lines().count()
    };
    assert_eq!(rows.len() + 1, old_rows, "one row per case, as before");
    assert!(
        rows.iter()
            .filter(|r| r["candidate"] == "greedy")
            .all(|r| r["verdict"] == "accepted")
    );
    // A config naming a suite that does not exist: the file and line.
    let config = out.path().join("course.toml");
    let text = std::fs::read_to_string(workspace().join("courses/cis521-lightsout.toml"))
        .unwrap()
        .replace(
            "../suites/lightsout/easy",
            &format!("{}/nosuch", out.path().display()),
        );
    std::fs::write(&config, &text).unwrap();
    let line = text.lines().position(|l| l.contains("/nosuch")).unwrap() + 1;
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "course.toml", "--submissions"])
        .arg(&class)
        .args(["--scorecard", "missing.csv"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "course.toml: line {line}: part \"get_board\": suite {}/nosuch does not exist",
            out.path().display()
        )));
    assert!(!out.path().join("missing.csv").exists());
    // An unknown key is reported on its own line.
    std::fs::write(&config, "name = \"x\"\nfamily = \"lightsout\"\nbogus = 1\n").unwrap();
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "course.toml", "--submissions"])
        .arg(&class)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "course.toml: line 3: unknown field `bogus`",
        ));
}

/// A hard suite of three puzzles the fixture's breadth-first Solver solves
/// in a few seconds (the bundled 40 take it about 15 s on two cores).
fn small_hard_suite(dir: &Path) -> PathBuf {
    let hard = dir.join("fx/hard");
    std::fs::create_dir_all(&hard).unwrap();
    let from = workspace().join("suites/slidingblock/hard");
    let mut listing = String::from("initial config file, goal file, comments\n");
    for p in ["pennant", "random.6x5.30", "random.4x4.12"] {
        for f in [p.to_string(), format!("{p}.goal")] {
            std::fs::copy(from.join(&f), hard.join(&f)).unwrap();
        }
        listing.push_str(&format!("{p},{p}.goal\n"));
    }
    std::fs::write(hard.join("hard.csv"), listing).unwrap();
    hard
}

/// CS61BL as the course's environment built and judged it: JUnit on the
/// class path (a handed-in test builds), a file neither program uses never
/// costs the build, and a Solver that crashes (the JVM exits 1, the
/// contract's "no solution") is `runtime-error` on every puzzle, unsolvable
/// ones too.
#[test]
fn cs61bl_crashes_and_files_the_build_does_not_need() {
    if !have("javac") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    // The perfect Solver handed in with a JUnit test, as the course's
    // environment built, and a scratch file that does not compile, which
    // neither program uses.
    let tested = class.join("tested");
    copy_dir(&fixtures("cs61bl").join("perfect"), &tested);
    std::fs::write(
        tested.join("SolverTest.java"),
        "import junit.framework.TestCase;\n\
         public class SolverTest extends TestCase { public void testNothing() { assertTrue(true); } }\n",
    )
    .unwrap();
    std::fs::write(
        tested.join("Scratch.java"),
        "public class Scratch { oops }\n",
    )
    .unwrap();
    // A Solver that crashes on every puzzle: the JVM exits 1, which is
    // the contract's "no solution" on an unsolvable one.
    let crashing = class.join("crashing");
    std::fs::create_dir_all(&crashing).unwrap();
    std::fs::write(
        crashing.join("Solver.java"),
        "public class Solver { public static void main(String[] a) { throw new IllegalStateException(\"boom\"); } }\n",
    )
    .unwrap();
    let easy = workspace().join("suites/slidingblock/easy");
    let out = harness()
        .current_dir(dir.path())
        .args(["grade", "--course", "cs61bl", "--submissions"])
        .arg(&class)
        .arg("--suite")
        .arg(&easy)
        .args(["--filter", "easy/", "--scorecard", "rows.csv"])
        .output()
        .unwrap();
    let rows = read_scorecard(&dir.path().join("rows.csv"));
    let of = |who: &str| -> Vec<&std::collections::HashMap<String, String>> {
        rows.iter()
            .filter(|r| r["candidate"] == who && r["suite"] != "build")
            .collect()
    };
    let tested = of("tested");
    assert!(
        !tested.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        tested.iter().all(|r| r["verdict"] == "accepted"),
        "built without the files it does not need: {tested:?}"
    );
    let crashing = of("crashing");
    assert!(!crashing.is_empty());
    for r in crashing {
        assert_eq!(r["verdict"], "runtime-error", "{r:?}");
        assert_eq!(
            r["detail"],
            "crashed: Exception in thread \"main\" java.lang.IllegalStateException: boom",
            "{r:?}"
        );
    }
}

#[test]
fn cs61bl_class_in_java() {
    if !have("javac") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let hard = small_hard_suite(out.path());
    let easy = workspace().join("suites/slidingblock/easy");
    let gs = format!("gradescope:{}", out.path().join("gs").display());
    let (run, summary) = grade_class(
        "cs61bl-slidingblock",
        &fixtures("cs61bl"),
        out.path(),
        &[
            "--suite",
            easy.to_str().unwrap(),
            "--suite",
            hard.to_str().unwrap(),
            "--wall-limit",
            "8s",
            "--export",
            &gs,
        ],
    );
    // Each item's maximum is what it can give on these cases: 3 hard
    // puzzles at 0.3, not the cap of 8.
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gs/perfect/results.json")).unwrap())
            .unwrap();
    assert_eq!(results["tests"][1]["name"], "hard (0.3 each)");
    assert_eq!(results["tests"][1]["max_score"], 0.9);
    assert_eq!(results["max_score"], 12.9);
    // Failures listed by suite and case, however the rows finished.
    let exit0: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gs/exit0/results.json")).unwrap())
            .unwrap();
    for test in exit0["tests"].as_array().unwrap() {
        let cases: Vec<&str> = test["output"]
            .as_str()
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(": ").next().unwrap())
            .collect();
        let mut sorted = cases.clone();
        sorted.sort();
        assert_eq!(cases, sorted, "{}", test["name"]);
    }
    assert!(
        exit0["tests"][0]["output"]
            .as_str()
            .unwrap()
            .lines()
            .count()
            > 2,
        "failures to order: {}",
        exit0["tests"][0]
    );
    run.code(1);
    assert_eq!(
        points(&summary),
        [
            "submission,easy (all),hard (0.3 each),Checker exit statuses,\
             Solver exit statuses,total,max,built",
            // Its Checker is right on 28 of the 66 probes; one that does
            // nothing (exit 0) on the 13 that want 0.
            "badchecker,8,0.9,0.57,2,11.47,12.9,yes",
            "broken,0,0,0,0,0,12.9,no",
            "exit0,0,0.9,2,1.69,4.59,12.9,yes",
            // No Checker.java: none of the Checker's points, whatever
            // "Could not find or load main class" would have matched.
            "nochecker,8,0.9,0,2,10.9,12.9,yes",
            "perfect,8,0.9,2,2,12.9,12.9,yes",
            "slow,8,0.6,2,2,12.6,12.9,yes",
        ]
    );
    assert!(
        summary.contains("Checker exit statuses 28/66 (stub 13)"),
        "{summary}"
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let nochecker: Vec<_> = rows
        .iter()
        .filter(|r| r["candidate"] == "nochecker" && r["suite"].starts_with("checker-statuses/"))
        .collect();
    assert!(!nochecker.is_empty());
    for r in nochecker {
        assert_eq!(
            (r["verdict"].as_str(), r["detail"].as_str()),
            ("compile-error", "missing Checker.java")
        );
    }
    let slow = rows
        .iter()
        .find(|r| r["candidate"] == "slow" && r["case"] == "random.6x5.30+random.6x5.30.goal")
        .unwrap();
    assert_eq!(slow["verdict"], "time-limit");
    // The perfect Solver takes its arguments as given (absolute, as the
    // course's scripts gave them): it solved every case.
    assert!(
        rows.iter()
            .filter(|r| r["candidate"] == "perfect")
            .all(|r| r["verdict"] == "accepted")
    );
    assert!(!fixtures("cs61bl").join("perfect/Solver.class").exists());
}

#[test]
fn imperial_class_in_c_through_the_exam_driver() {
    let out = tempfile::tempdir().unwrap();
    let (run, summary) = grade_class("imperial-gogen", &fixtures("imperial"), out.path(), &[]);
    run.code(1);
    assert_eq!(
        points(&summary),
        [
            "submission,A1 get_bit_value,A2 set_bit_value,A3 set_all_bits,A4 is_free_letter,\
             A5 get_fixed_letter_pos,A6 intersect_neighbourhoods,B1 get_letter_position,\
             B2 valid_solution,B3 update,B4 solve_board,B5 challenge comment,does not compile,\
             total,max,built",
            "broken,0,0,0,0,0,0,0,0,0,0,0,-10,-10,100,no",
            // get_fixed_letter_pos is wrong on the empty mask alone: the
            // function is wrong, and A5's 10 marks are lost (Part A is
            // judged a function at a time, as the exam marks it). It also
            // hands in an edited gogen.h that cannot compile: the exam's
            // overwrites it.
            "empty-mask,5,5,5,10,0,15,7,10,15,15,3,0,90,100,yes",
            // Part B is the skeleton's `return false` stubs: they pass 1,
            // 15, 1 and 2 cases of B1 to B4 (10.08 marks as a plain
            // share), and earn nothing. Its comment above main has two
            // letters of the challenge's solution swapped.
            "part-a-only,5,5,5,10,10,15,0,0,0,0,0,0,50,100,yes",
            "perfect,5,5,5,10,10,15,7,10,15,15,3,0,100,100,yes",
        ]
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let q5 = |who: &str| {
        rows.iter()
            .find(|r| r["candidate"] == who && r["suite"].starts_with("q5/"))
            .map(|r| (r["verdict"].clone(), r["detail"].clone()))
            .unwrap()
    };
    assert_eq!(q5("perfect").0, "accepted");
    let empty = rows
        .iter()
        .find(|r| r["candidate"] == "empty-mask" && r["verdict"] != "accepted")
        .unwrap();
    assert_eq!(
        (
            empty["suite"].as_str(),
            empty["case"].as_str(),
            empty["detail"].as_str()
        ),
        (
            "get_fixed_letter_pos/gogen-exam/masks",
            "empty.mask",
            // In the exam's terms: the driver's labels name the call.
            "get_fixed_letter_pos(0x00000000, &row, &col) gave (found row col) 1 -1 -1, expected 0"
        )
    );
    assert_eq!(
        q5("part-a-only").0,
        "wrong-answer",
        "{:?}",
        q5("part-a-only")
    );
    let counts = summary
        .lines()
        .find(|l| l.starts_with("part-a-only,"))
        .unwrap();
    assert!(
        counts.contains("B2 valid_solution 15/22 (stub 15)"),
        "{counts}"
    );
}

/// A handin that uses the exam header's mask constants (`BOARD_ONES`,
/// `FIRST_CELL_SET`) and calls `print_bitmask` from `gogen.c` builds on
/// our headers, as on the exam's, and gets every mark.
#[test]
fn the_imperial_headers_have_the_exams_constants() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    let sub = class.join("constants");
    copy_dir(&fixtures("imperial").join("perfect"), &sub);
    let mask = std::fs::read_to_string(sub.join("letter_mask.c")).unwrap();
    let uses = mask
        .replace("#define FULL 0xFFFFFF80u\n", "")
        .replace("value ? FULL : 0", "value ? BOARD_ONES : BOARD_ZEROS");
    assert_ne!(uses, mask, "the fixture changed: fix the test");
    std::fs::write(sub.join("letter_mask.c"), uses).unwrap();
    let gogen = std::fs::read_to_string(sub.join("gogen.c")).unwrap();
    let calls = gogen.replace(
        "int main(void) { return 0; }",
        "int main(void) {\n    print_bitmask(FIRST_CELL_SET | LAST_COL_SET);\n    return 0;\n}",
    );
    assert_ne!(calls, gogen, "the fixture changed: fix the test");
    std::fs::write(sub.join("gogen.c"), calls).unwrap();
    let (run, summary) = grade_class("imperial-gogen", &class, out.path(), &[]);
    run.code(0);
    assert_eq!(
        points(&summary)[1],
        "constants,5,5,5,10,10,15,7,10,15,15,3,0,100,100,yes"
    );
}

/// Submission ids a spreadsheet would run as formulas are written as text
/// (a leading `'`) in the scorecard and summary.csv, and read back as they
/// were: `--resume` finds every row kept.
#[test]
fn no_cell_is_a_formula() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    for id in ["=HYPERLINK(A1)", "@SUM(1)"] {
        copy_dir(&fixtures("imperial").join("perfect"), &class.join(id));
    }
    let (run, summary) = grade_class("imperial-gogen", &class, out.path(), &[]);
    run.code(0);
    let lines = points(&summary);
    assert!(lines[1].starts_with("'=HYPERLINK(A1),5,"), "{}", lines[1]);
    assert!(lines[2].starts_with("'@SUM(1),5,"), "{}", lines[2]);
    let card = std::fs::read_to_string(out.path().join("scorecard.csv")).unwrap();
    assert!(card.contains("\n'=HYPERLINK(A1),"), "{card}");
    assert!(!card.contains("\n=HYPERLINK"), "{card}");
    let rows = card.lines().count();
    harness()
        .current_dir(out.path())
        .arg("grade")
        .arg("--course")
        .arg(workspace().join("courses/imperial-gogen.toml"))
        .arg("--submissions")
        .arg(&class)
        .args(["--summary", "summary.csv", "--jobs", "2", "--resume"])
        .assert()
        .code(0);
    let again = std::fs::read_to_string(out.path().join("scorecard.csv")).unwrap();
    assert_eq!(
        again.lines().count(),
        rows,
        "every row kept, none run again"
    );
    assert_eq!(
        points(&std::fs::read_to_string(out.path().join("summary.csv")).unwrap()),
        lines
    );
}

/// The exam's skeleton as handed out (`adapters/gogen-exam/skeleton`: its
/// bool stubs return false, its void ones do nothing) earns nothing, though
/// it passes cases of every question but two: what the reference says a
/// stub prints is what the real stubs print through the driver.
#[test]
fn the_imperial_skeleton_earns_nothing() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let skeleton = workspace().join("adapters/gogen-exam/skeleton");
    let stubs = class.join("stubs");
    std::fs::create_dir(&stubs).unwrap();
    for f in ["letter_mask.c", "gogen.c"] {
        std::fs::copy(skeleton.join(f), stubs.join(f)).unwrap();
    }
    let (run, summary) = grade_class("imperial-gogen", &class, out.path(), &[]);
    run.code(1);
    assert_eq!(
        points(&summary)[1],
        "stubs,0,0,0,0,0,0,0,0,0,0,0,0,0,100,yes"
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let passed = |part: &str| {
        rows.iter()
            .filter(|r| r["suite"].starts_with(&format!("{part}/")) && r["verdict"] == "accepted")
            .count()
    };
    assert_eq!(
        [
            "get_bit_value",
            "set_bit_value",
            "set_all_bits",
            "is_free_letter",
            "get_fixed_letter_pos",
            "intersect_neighbourhoods",
            "get_letter_position",
            "valid_solution",
            "update",
            "solve_board",
        ]
        .map(passed),
        [1, 0, 0, 5, 6, 7, 1, 15, 1, 2]
    );
}

/// A class of archives and folders for the 15-122 course: alice as a zip,
/// bob as a .tar.gz (both the perfect solver), a zip that escapes its
/// folder, and two submissions with the same id.
fn archive_class(dir: &Path) {
    use std::io::Write;
    let perfect = fixtures("cmu15122").join("perfect");
    let files = ["lightsout.c", "bitvector.c", "board-ht.c", "board-ht.h"];
    // alice.zip: one top-level folder, as students zip theirs.
    let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join("alice.zip")).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for f in files {
        zip.start_file(format!("alice/{f}"), opts).unwrap();
        zip.write_all(&std::fs::read(perfect.join(f)).unwrap())
            .unwrap();
    }
    zip.finish().unwrap();
    // bob.tar.gz: the files at the top.
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(dir.join("bob.tar.gz")).unwrap(),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(gz);
    for f in files {
        tar.append_path_with_name(perfect.join(f), f).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
    // evil.zip: an entry that leaves the folder.
    let mut zip = zip::ZipWriter::new(std::fs::File::create(dir.join("evil.zip")).unwrap());
    zip.start_file("../../escaped.txt", opts).unwrap();
    zip.write_all(b"out").unwrap();
    zip.finish().unwrap();
    // carol twice: a folder and an archive.
    std::fs::create_dir(dir.join("carol")).unwrap();
    for f in files {
        std::fs::copy(perfect.join(f), dir.join("carol").join(f)).unwrap();
    }
    std::fs::copy(dir.join("alice.zip"), dir.join("carol.zip")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a submission").unwrap();
}

#[test]
fn archives_resume_and_gradescope_per_submission() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    std::fs::create_dir(&class).unwrap();
    archive_class(&class);
    let gs = out.path().join("gs");
    let args = ["--export", &format!("gradescope:{}", gs.display())];
    let (run, summary) = grade_class("cmu15122-lightsout", &class, out.path(), &args);
    run.code(1);
    assert_eq!(
        points(&summary),
        [
            CMU15122_POINTS[0],
            "alice,4,1,1,4,4,1,4,0,19,19,yes",
            "bob,4,1,1,4,4,1,4,0,19,19,yes",
            "carol,4,1,1,4,4,1,4,0,19,19,yes",
            "carol+carol.zip,0,0,0,0,0,0,0,0,0,19,no",
            "evil,0,0,0,0,0,0,0,0,0,19,no",
        ]
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let detail = |who: &str| {
        rows.iter()
            .find(|r| r["candidate"] == who && r["suite"] == "build")
            .unwrap()["detail"]
            .clone()
    };
    assert_eq!(
        detail("evil"),
        "evil.zip: cannot unpack: entry \"../../escaped.txt\" leaves the folder"
    );
    assert_eq!(
        detail("carol+carol.zip"),
        "carol.zip: a second submission with the id \"carol\" (rename one)"
    );
    assert!(!out.path().join("escaped.txt").exists());

    // Gradescope: one results.json per submission, a test per rubric item.
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(gs.join("alice/results.json")).unwrap()).unwrap();
    assert_eq!(results["score"], 19.0);
    assert_eq!(results["max_score"], 19.0);
    assert_eq!(results["tests"][0]["name"], "Task 1 bitvector.c");
    assert_eq!(results["tests"][0]["score"], 4.0);
    assert_eq!(results["tests"][1]["name"], "Task 2 any BITVECTOR_LIMIT");
    let evil: serde_json::Value =
        serde_json::from_slice(&std::fs::read(gs.join("evil/results.json")).unwrap()).unwrap();
    assert_eq!(evil["score"], 0.0);
    assert!(
        evil["output"]
            .as_str()
            .unwrap()
            .starts_with("Your submission did not build: evil.zip")
    );

    // Resume after a crash that lost bob's last rows: only they run again,
    // and the summary is the same.
    let card = out.path().join("scorecard.csv");
    let text = std::fs::read_to_string(&card).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !(l.starts_with("bob,") && l.contains(",usage/")))
        .collect();
    let dropped = text.lines().count() - kept.len();
    assert_eq!(dropped, 13, "bob's usage rows");
    std::fs::write(&card, kept.join("\n") + "\n").unwrap();
    let (run, again) = grade_class("cmu15122-lightsout", &class, out.path(), &["--resume"]);
    run.code(1);
    assert_eq!(again, summary);
    let rows = read_scorecard(&card);
    assert_eq!(rows.len(), text.lines().count() - 1, "every row once");
    // Without --resume or --force an existing scorecard is not touched.
    let (run, _) = grade_class("cmu15122-lightsout", &class, out.path(), &[]);
    run.code(2)
        .stderr(predicates::str::contains("exists; --resume continues it"));
}

#[test]
fn the_older_sliding_block_format_and_relative_paths() {
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    // One "submission" whose run command is our solver reading the older
    // format: it can only solve the cases if it is given converted copies.
    std::fs::create_dir_all(class.join("old")).unwrap();
    let course = out.path().join("old.toml");
    let solver = replica("sbp-solver");
    let config = |format: &str| {
        format!(
            "name = \"CS47B\"\nfamily = \"slidingblock\"\n\n\
             [[part]]\nname = \"solver\"\ncommand = \"{solver} --old-format\"\n\
             suites = [\"{}\"]\npaths = \"relative\"\nformat = \"{format}\"\n\n\
             [[rubric]]\nname = \"easy\"\nrule = \"each\"\npoints = 1\npart = \"solver\"\n",
            workspace().join("suites/slidingblock/easy").display()
        )
    };
    let run = |format: &str, code: i32| {
        std::fs::write(&course, config(format)).unwrap();
        harness()
            .current_dir(out.path())
            .args(["grade", "--force", "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--summary", "summary.csv", "--jobs", "2"])
            .assert()
            .code(code);
        points(&std::fs::read_to_string(out.path().join("summary.csv")).unwrap())
    };
    assert_eq!(
        run("size-corner", 0),
        ["submission,easy,total,max,built", "old,16,16,16,yes"]
    );
    // The files as they are: the old-format reader refuses most of them.
    let as_is = run("as-is", 1);
    assert_ne!(as_is[1], "old,16,16,16,yes", "{as_is:?}");
}

#[test]
fn bad_course_configs_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let course = dir.path().join("c.toml");
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    // The suite the configs name exists (a missing one is its own error:
    // regrades_replace_chosen_rows_and_refuse_empty_selections).
    std::fs::create_dir(dir.path().join("s")).unwrap();
    for (text, message) in [
        (
            "name = \"x\"\nfamily = \"lightsout\"\n\n[[part]]\nname = \"a\"\ncommand = \"x\"\nsuites = [\"s\"]\njudge = \"lightsout:dance\"\n[[rubric]]\nname = \"r\"\nrule = \"all\"\npoints = 1\npart = \"a\"\n",
            "part \"a\": unknown judge \"lightsout:dance\"",
        ),
        (
            "name = \"x\"\nfamily = \"lightsout\"\nbuild = 3\n",
            "line 3: invalid type: integer `3`, expected struct BuildFile",
        ),
        (
            "name = \"x\"\nfamily = \"lightsout\"\n\n[[part]]\nname = \"a\"\ncommand = \"x\"\nsuites = [\"s\"]\n[[rubric]]\nname = \"r\"\nrule = \"each\"\npoints = 1\npart = \"b\"\n",
            "rubric item \"r\": part \"b\" is not in the config",
        ),
        (
            "name = \"x\"\nfamily = \"lightsout\"\n\n[[part]]\nname = \"a\"\ncommand = \"x\"\nsuites = [\"s\"]\nrequire = [\"../../etc/passwd\"]\n[[rubric]]\nname = \"r\"\nrule = \"all\"\npoints = 1\npart = \"a\"\n",
            "part \"a\": require \"../../etc/passwd\" must name a file inside the submission",
        ),
        (
            "name = \"x\"\nfamily = \"lightsout\"\n[build]\ncommand = \"true\"\nrequire = [\"/etc/passwd\"]\n\n[[part]]\nname = \"a\"\ncommand = \"x\"\nsuites = [\"s\"]\n[[rubric]]\nname = \"r\"\nrule = \"all\"\npoints = 1\npart = \"a\"\n",
            "[build] require \"/etc/passwd\" must name a file inside the submission",
        ),
    ] {
        std::fs::write(&course, text).unwrap();
        harness()
            .args(["grade", "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(course.display().to_string()))
            .stderr(predicates::str::contains(message));
    }
}

/// A class with hostile submissions: a build that never ends, a program
/// that rewrites itself for the next case, deletes what it can reach and
/// signals its parent. The class goes on, the honest submission's points
/// are whole, the class folder is untouched, every row is written.
/// A Lights Out course in `dir` that builds with the student's own
/// Makefile (no overlay: what a hostile build can do is the point), on the
/// bundled easy boards (1 point each) and the usage battery (1 point), with
/// `build_limit` for its build.
fn makefile_course(dir: &Path, build_limit: &str) -> PathBuf {
    let suite = workspace().join("suites/lightsout/easy");
    let text = format!(
        "name = \"Lights Out, the student's Makefile\"\n\
         family = \"lightsout\"\n\
         [build]\ncommand = \"make lightsout\"\ntime_limit = \"{build_limit}\"\n\
         [[part]]\nname = \"boards\"\ncommand = \"{{submission}}/lightsout\"\nsuites = [{suite:?}]\n\
         [[part]]\nname = \"usage\"\nconform = \"solver\"\ncommand = \"{{submission}}/lightsout\"\n\
         [[rubric]]\nname = \"boards\"\nrule = \"each\"\npoints = 1\npart = \"boards\"\n\
         [[rubric]]\nname = \"usage errors exit 1\"\nrule = \"all\"\npoints = 1\npart = \"usage\"\n",
        suite = suite.display().to_string()
    );
    let course = dir.join("course.toml");
    std::fs::write(&course, text).unwrap();
    course
}

/// An honest 15-122 solver with its own Makefile as `class/honest`: light
/// chasing, instant on every board (a breadth-first search could meet
/// the wall-clock limits these tests set on a loaded machine).
fn honest(class: &Path) {
    let dir = class.join("honest");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        workspace().join("harness/tests/candidates/lightsout-chase.c"),
        dir.join("lightsout.c"),
    )
    .unwrap();
    std::fs::write(
        dir.join("Makefile"),
        "lightsout: lightsout.c\n\t$(CC) -O2 lightsout.c -o lightsout\n",
    )
    .unwrap();
}

#[test]
fn hostile_submissions_cannot_hurt_the_class() {
    use std::os::unix::fs::PermissionsExt;
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    honest(&class);
    std::fs::create_dir_all(class.join("hangs")).unwrap();
    std::fs::write(class.join("hangs/Makefile"), "lightsout:\n\tsleep 1000\n").unwrap();
    std::fs::create_dir_all(class.join("vandal")).unwrap();
    let script = "#!/bin/sh\n\
        echo 'exit 0' > \"$0\" 2>/dev/null\n\
        rm -rf \"$(dirname \"$0\")\"/* ../* 2>/dev/null\n\
        kill -9 $PPID 2>/dev/null\n\
        kill -9 -1 2>/dev/null\n\
        exit 1\n";
    std::fs::write(class.join("vandal/run.sh"), script).unwrap();
    std::fs::write(
        class.join("vandal/Makefile"),
        "lightsout: run.sh\n\tcp run.sh lightsout\n\tchmod 755 lightsout\n",
    )
    .unwrap();
    std::fs::set_permissions(
        class.join("vandal/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let before = std::fs::read(class.join("vandal/run.sh")).unwrap();
    // The 15-122 course with a 3 s build limit.
    let course = makefile_course(out.path(), "3s");
    harness()
        .current_dir(out.path())
        .args(["grade", "--course"])
        .arg(&course)
        .arg("--submissions")
        .arg(&class)
        .args(["--summary", "summary.csv", "--jobs", "2"])
        .args(["--wall-limit", "5s"])
        .assert()
        .code(1);
    let summary = std::fs::read_to_string(out.path().join("summary.csv")).unwrap();
    assert_eq!(
        points(&summary),
        [
            "submission,boards,usage errors exit 1,total,max,built",
            "hangs,0,0,0,20,no",
            "honest,19,1,20,20,yes",
            // It says "no solution" on every board: right on the 7
            // unsolvable ones, whatever else it tried.
            "vandal,7,0,7,20,yes",
        ]
    );
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    let hangs = rows.iter().find(|r| r["candidate"] == "hangs").unwrap();
    assert_eq!(hangs["verdict"], "compile-error");
    assert!(
        hangs["detail"].starts_with("the build ran out of its limits (3s)"),
        "{}",
        hangs["detail"]
    );
    assert_eq!(
        rows.iter().filter(|r| r["candidate"] == "vandal").count(),
        1 + 19 + 13
    );
    assert_eq!(
        std::fs::read(class.join("vandal/run.sh")).unwrap(),
        before,
        "the class folder untouched"
    );
    assert!(class.join("honest/lightsout.c").is_file());
}

/// No student reads another's work during a class run: a submission that
/// searches every place a candidate may write (/tmp, /var/tmp, /dev/shm,
/// where the class's builds are) and the class's own folder (found on the
/// harness's command line) for another student's secret finds nothing,
/// in its build or in any case, with the default isolation and under
/// bubblewrap. Without a view of its own (`--sandbox none`) it would.
#[test]
fn students_cannot_read_each_other() {
    use std::os::unix::fs::PermissionsExt;
    if !crate::support::require(
        rustix::process::geteuid().is_root(),
        "not root (an ordinary user's class is bubblewrap's, see the gallery)",
    ) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let class = out.path().join("class");
    honest(&class);
    std::fs::write(class.join("honest/notes.txt"), "SECRET-7f3a\n").unwrap();
    std::fs::create_dir_all(class.join("snoop")).unwrap();
    // Exit 3 naming what it found; else "no solution" everywhere.
    let search = "#!/bin/sh\n\
        found=$( { grep -rl 'SECRET-7f3[a]' /tmp /var/tmp /dev/shm 2>/dev/null;\n\
          for c in /proc/[0-9]*/cmdline; do\n\
            tr '\\0' '\\n' 2>/dev/null < \"$c\" | grep -A1 -x -- --submissions | tail -n +2;\n\
          done | while read -r d; do grep -rl 'SECRET-7f3[a]' \"$d\" 2>/dev/null; done; } | head -1)\n\
        if [ -n \"$found\" ]; then echo \"LEAK $found\" >&2; exit 3; fi\n\
        exit 1\n";
    std::fs::write(class.join("snoop/search.sh"), search).unwrap();
    std::fs::write(
        class.join("snoop/Makefile"),
        "lightsout: search.sh\n\tsh search.sh; [ $$? = 1 ]\n\tcp search.sh lightsout\n\tchmod 755 lightsout\n",
    )
    .unwrap();
    let course = makefile_course(out.path(), "120s");
    let mut sandboxes = vec!["auto"];
    if crate::candidates::have("bwrap") {
        sandboxes.push("bwrap");
    }
    for sandbox in sandboxes {
        harness()
            .current_dir(out.path())
            .args(["grade", "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--summary", "summary.csv", "--jobs", "2", "--force"])
            .args(["--wall-limit", "10s", "--sandbox", sandbox])
            .assert()
            .code(1);
        let rows = read_scorecard(&out.path().join("scorecard.csv"));
        let leaks: Vec<_> = rows
            .iter()
            .filter(|r| r["candidate"] == "snoop" && r["verdict"] != "accepted")
            .filter(|r| r["verdict"] != "wrong-exit-status" && r["verdict"] != "wrong-answer")
            .map(|r| format!("{} {}: {}", r["verdict"], r["case"], r["detail"]))
            .collect();
        assert_eq!(leaks, Vec::<String>::new(), "--sandbox {sandbox}");
        let summary = std::fs::read_to_string(out.path().join("summary.csv")).unwrap();
        assert_eq!(
            points(&summary),
            [
                "submission,boards,usage errors exit 1,total,max,built",
                "honest,19,1,20,20,yes",
                "snoop,7,0,7,20,yes",
            ],
            "--sandbox {sandbox}"
        );
    }
}

/// The CS61BL contest as the handout runs it: the submissions with a
/// contest.txt naming a team (at most 15 letters and digits) enter, timed
/// as Solver and as Checker (on the reference's move lists) on puzzles
/// they never saw; places give the handout's 3 / 2 / 2 course points, which
/// `grade --contest-credit` adds beyond the maximum.
#[test]
fn cs61bl_contest_extra_credit_by_place() {
    if !have("javac") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    // Three puzzles standing for the unreleased ones (puzzlegen
    // slidingblock-contest makes those; tested with puzzlegen).
    let contest = small_hard_suite(out.path());
    let credit = out.path().join("credit.csv");
    let course = workspace().join("courses/cs61bl-slidingblock.toml");
    harness()
        .current_dir(out.path())
        .args(["contest", "--course"])
        .arg(&course)
        .arg("--entries")
        .arg(fixtures("cs61bl"))
        .arg("--suite")
        .arg(&contest)
        .args(["--runs", "1", "--warmup", "0", "--time-limit", "8s"])
        .args(["--leaderboard", "board.csv", "--credit"])
        .arg(&credit)
        .assert()
        .code(0)
        .stderr(predicates::str::contains(
            "harness: badchecker does not enter: contest.txt: team name \"The Fast Team!\" \
             is not 1 to 15 letters and digits",
        ));
    let rows = read_scorecard(&credit);
    let of = |who: &str| {
        let r = rows.iter().find(|r| r["submission"] == who).unwrap();
        (
            r["team"].clone(),
            r["place"].clone(),
            r["credit"].clone(),
            r["detail"].clone(),
        )
    };
    assert_eq!(
        of("badchecker"),
        (
            String::new(),
            String::new(),
            "0.0".into(),
            "not an entry: contest.txt: team name \"The Fast Team!\" is not 1 to 15 letters and digits"
                .into()
        )
    );
    assert_eq!(of("broken").3, "not an entry: no contest.txt");
    // slow is stuck on one puzzle: third of three, still 2 points; the
    // other two solve all 6 cases (3 as Solver, 3 as Checker) and share
    // 1st and 2nd by time.
    let slow = of("slow");
    assert_eq!(
        (slow.0.as_str(), slow.1.as_str(), slow.2.as_str()),
        ("Tortoise", "3", "2.0")
    );
    assert!(
        slow.3.starts_with("3rd place of 3 entries: 5 of 6 cases"),
        "{}",
        slow.3
    );
    let mut top: Vec<(String, String)> = ["perfect", "exit0"]
        .iter()
        .map(|w| {
            let (_, place, credit, detail) = of(w);
            assert!(detail.contains("6 of 6 cases"), "{detail}");
            (place, credit)
        })
        .collect();
    top.sort();
    assert_eq!(
        top,
        [("1".into(), "3.0".into()), ("2".into(), "2.0".into())]
    );
    // The credit in the class's summary, beyond the maximum (a quick
    // regrade of one easy puzzle).
    let easy = workspace().join("suites/slidingblock/easy");
    let credit_arg = credit.display().to_string();
    let (run, summary) = grade_class(
        "cs61bl-slidingblock",
        &fixtures("cs61bl"),
        out.path(),
        &[
            "--suite",
            easy.to_str().unwrap(),
            "--filter",
            "already.there",
            "--contest-credit",
            &credit_arg,
        ],
    );
    run.code(1);
    let lines = points(&summary);
    assert_eq!(
        lines[0],
        "submission,easy (all),hard (0.3 each),Checker exit statuses,Solver exit statuses,\
         contest extra credit,total,max,built"
    );
    let line = |who: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("{who},")))
            .unwrap()
            .clone()
    };
    // (A Solver that does nothing solves the one puzzle already there:
    // the easy item gives nothing beyond that.)
    assert_eq!(line("slow"), "slow,0,0,0,0,2,2,12,yes");
    assert_eq!(line("badchecker"), "badchecker,0,0,0,0,0,0,12,yes");
    assert_eq!(line("broken"), "broken,0,0,0,0,0,0,12,no");
}

/// One CS61BL submission graded where a platform puts it: an entry's
/// Gradescope results carry the contest's live leaderboard (team, solved,
/// CPU seconds) and Autolab's line its scoreboard; a submission whose
/// contest.txt names no team has neither; the autograder's log is hidden
/// from students unless the course says otherwise.
#[test]
fn cs61bl_one_submission_on_the_platforms_leaderboards() {
    if !have("javac") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let hard = small_hard_suite(out.path());
    let grade = |who: &str, code: i32| {
        let dir = out.path().join(who);
        harness()
            .current_dir(out.path())
            .args(["grade", "--course", "cs61bl", "--submission"])
            .arg(fixtures("cs61bl").join(who))
            .arg("--suite")
            .arg(&hard)
            .arg("--results")
            .arg(dir.join("results.json"))
            .arg("--autolab")
            .arg(dir.join("autolab.json"))
            .arg("--scorecard")
            .arg(dir.join("rows.csv"))
            .assert()
            .code(code)
            .stdout(predicates::str::contains("score: "));
        let results: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
        // The scores are the last line (the formatted feedback before it).
        let autolab = std::fs::read_to_string(dir.join("autolab.json")).unwrap();
        let autolab: serde_json::Value =
            serde_json::from_str(autolab.lines().last().unwrap()).unwrap();
        (results, autolab)
    };
    let (results, autolab) = grade("perfect", 0);
    assert_eq!(results["stdout_visibility"], "hidden");
    let board = results["leaderboard"].as_array().unwrap();
    assert_eq!(
        board[0],
        serde_json::json!({"name": "Team", "value": "Speedy"})
    );
    assert_eq!(board[1], serde_json::json!({"name": "Solved", "value": 3}));
    assert_eq!(board[2]["name"], "CPU seconds");
    assert_eq!(board[2]["order"], "asc");
    let cpu = board[2]["value"].as_f64().unwrap();
    assert!(cpu > 0.0, "{board:?}");
    assert_eq!(autolab["scoreboard"], serde_json::json!([3, cpu]));
    let (results, autolab) = grade("badchecker", 1);
    assert!(results.get("leaderboard").is_none(), "{results}");
    assert!(autolab.get("scoreboard").is_none(), "{autolab}");
}

/// Each shipped config's maximum is its handout's total of what a program
/// can judge (CS61BL: the 20 code points; its contest's extra credit is
/// beyond them).
#[test]
fn every_shipped_course_gives_its_handouts_total() {
    for (file, total) in [
        ("cmu15122-lightsout.toml", 19.0),
        ("cmu15110-lightsout.toml", 10.0),
        ("cis521-lightsout.toml", 40.0),
        ("imperial-gogen.toml", 100.0),
        ("cs61bl-slidingblock.toml", 20.0),
    ] {
        let course =
            harness::course::Course::load(&workspace().join("courses").join(file)).unwrap();
        assert_eq!(course.max_points(), total, "{file}");
    }
}

/// One submission graded where a platform puts it: Gradescope's
/// `/autograder/submission` (here a link to a fixture, which a class
/// folder would skip), its handins from `submission_metadata.json` beside
/// it, and `results.json` at exactly the path asked for.
#[test]
fn one_submission_where_the_platform_puts_it() {
    if !tool("valgrind", "the 15-122 course's leak check") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ag = out.path().join("autograder");
    std::fs::create_dir_all(&ag).unwrap();
    std::os::unix::fs::symlink(fixtures("cmu15122").join("perfect"), ag.join("submission"))
        .unwrap();
    // Gradescope's record: this is the 12th handin.
    std::fs::write(
        ag.join("submission_metadata.json"),
        r#"{"id": 7, "created_at": "2015-11-24T20:00:00-05:00",
            "previous_submissions": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}],
            "users": [{"email": "alice@andrew.cmu.edu"}]}"#,
    )
    .unwrap();
    let results = ag.join("results/results.json");
    harness()
        .current_dir(out.path())
        .args(["grade", "--course"])
        .arg(workspace().join("courses/cmu15122-lightsout.toml"))
        .arg("--submission")
        .arg(ag.join("submission"))
        .args(["--id", "alice", "--cpu-limit", "3s", "--results"])
        .arg(&results)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "alice      18 / 19  191 of 191 cases accepted",
        ));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    assert_eq!(
        (json["score"].as_f64(), json["max_score"].as_f64()),
        (Some(18.0), Some(19.0))
    );
    let last = json["tests"].as_array().unwrap().last().unwrap();
    assert_eq!(last["name"], "handin penalty");
    assert_eq!(last["score"], -1.0);
    assert_eq!(last["output"], "12 handins, 2 over the limit of 10");
    let rows = read_scorecard(&out.path().join("scorecard.csv"));
    assert!(rows.iter().all(|r| r["candidate"] == "alice"));
    // --results is for one submission; the two ways of naming a class
    // exclude each other.
    harness()
        .args([
            "grade",
            "--course",
            "x.toml",
            "--submissions",
            "class",
            "--results",
            "r.json",
        ])
        .assert()
        .code(2);
    harness()
        .args([
            "grade",
            "--course",
            "x.toml",
            "--submissions",
            "class",
            "--submission",
            "s",
        ])
        .assert()
        .code(2);
}

/// The course configs, adapters and suites are built into the binary: from
/// a folder that is no checkout, `--course cis521` grades with the bundled
/// config (written out once into the cache folder), and `harness courses`
/// lists the nine (15-122 in five handout years).
#[test]
fn bundled_courses_grade_from_any_folder() {
    let out = tempfile::tempdir().unwrap();
    let cache = out.path().join("cache");
    harness()
        .current_dir(out.path())
        .env("PUZZLEGRADE_CACHE", &cache)
        .arg("courses")
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "cis521        cis521-lightsout.toml         lightsout       40 points  UPenn CIS 521 HW1 Lights Out",
        ))
        .stdout(predicates::str::contains(
            "cmu15122-2022 cmu15122-2022-lightsout.toml  lightsout       19 points  CMU 15-122 Lights Out (hdict of entries: the 2019 to 2024 handouts)",
        ))
        .stdout(predicates::function::function(|s: &str| s.lines().count() == 9));
    let run = harness()
        .current_dir(out.path())
        .env("PUZZLEGRADE_CACHE", &cache)
        .args(["grade", "--course", "cis521", "--submissions"])
        .arg(fixtures("cis521"))
        .args(["--summary", "summary.csv", "--jobs", "2"])
        .assert()
        .code(1);
    let summary = std::fs::read_to_string(out.path().join("summary.csv")).unwrap();
    let totals: Vec<String> = points(&summary)
        .iter()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!("{} {}", f[0], f[f.len() - 3])
        })
        .collect();
    assert_eq!(
        totals,
        ["broken 0", "greedy 25", "noisy 37", "perfect 40"],
        "{run:?}"
    );
    // A secret test: the bundled config with its last item (Q8) shown
    // after the due date, beside the written-out one (its paths hold).
    let written = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .find(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .unwrap()
        .path()
        .join("courses");
    let secret = written.join("secret.toml");
    let mut text = std::fs::read_to_string(written.join("cis521-lightsout.toml")).unwrap();
    text.push_str("visibility = \"after_due_date\"\n");
    // And a secret part: Q7's, whose item is then hidden too.
    let text = text.replacen(
        "judge = \"lightsout:successors\"\n",
        "judge = \"lightsout:successors\"\nvisibility = \"hidden\"\n",
        1,
    );
    std::fs::write(&secret, text).unwrap();
    harness()
        .current_dir(out.path())
        .args(["grade", "--course"])
        .arg(&secret)
        .arg("--submission")
        .arg(fixtures("cis521").join("perfect"))
        .args(["--results", "results.json", "--scorecard", "one.csv"])
        .assert()
        .code(0);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    // (The item the appended line lands in: the last, the handout's
    // examples.)
    assert_eq!(results["tests"][8]["name"], "The handout's examples");
    assert_eq!(results["tests"][8]["visibility"], "after_due_date");
    assert_eq!(results["tests"][7]["name"], "Q8 find_solution");
    assert_eq!(results["tests"][7]["visibility"], "visible");
    assert_eq!(results["tests"][6]["name"], "Q7 successors");
    assert_eq!(results["tests"][6]["visibility"], "hidden");
    assert_eq!(results["tests"][5]["visibility"], "visible");
    assert_eq!(results["stdout_visibility"], "hidden");
    harness()
        .current_dir(out.path())
        .env("PUZZLEGRADE_CACHE", &cache)
        .args(["grade", "--course", "cis999", "--submissions", "."])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no course config cis999 here, and no bundled course of that name (cis521, cmu15110, cmu15122, cmu15122-2014, cmu15122-2016, cmu15122-2022, cmu15122-2025, cs61bl, imperial)",
        ));
}

/// Shell completions and manual pages come from the command line's own
/// definitions.
#[test]
fn completions_and_manual_pages() {
    harness()
        .args(["completions", "bash"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("_harness()"))
        .stdout(predicates::str::contains("--submission"));
    // A reader that stops at the first line: exit 0, nothing on stderr
    // (a broken pipe panicked, exit 101).
    let out = std::process::Command::new("bash")
        .args([
            "-c",
            "\"$0\" completions fish | head -1 >/dev/null; echo ${PIPESTATUS[0]}",
        ])
        .arg(env!("CARGO_BIN_EXE_harness"))
        .output()
        .unwrap();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stdout).as_ref(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        ("0\n", "")
    );
    let dir = tempfile::tempdir().unwrap();
    harness().arg("man").arg(dir.path()).assert().code(0);
    let grade = std::fs::read_to_string(dir.path().join("harness-grade.1")).unwrap();
    assert!(grade.contains("\n.TH harness-grade 1 "), "{grade}");
    assert!(grade.contains("\\-\\-contest\\-credit"));
    assert!(dir.path().join("harness.1").is_file());
    assert!(
        !dir.path().join("harness-__guard.1").exists(),
        "no page for internal commands"
    );
}

/// The perfect fixture on the course's own suites, the bundled easy and
/// hard (40 puzzles, 0.3 each, capped at 8): every case accepted, the hard
/// item's full 8 points (14 puzzles gave 4.2), 20 of 20 in all.
#[test]
fn cs61bl_perfect_fixture_earns_every_hard_point_on_the_bundled_suites() {
    if !have("javac") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let results = out.path().join("results.json");
    harness()
        .current_dir(out.path())
        .args(["grade", "--course", "cs61bl", "--jobs", "2", "--submission"])
        .arg(fixtures("cs61bl").join("perfect"))
        .arg("--results")
        .arg(&results)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "solver/slidingblock/hard: 40/40 accepted",
        ))
        .stdout(predicates::str::contains("score: 20 / 20 points (100%)"));
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    let hard = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "hard (0.3 each)")
        .unwrap();
    assert_eq!(
        (hard["score"].as_f64(), hard["max_score"].as_f64()),
        (Some(8.0), Some(8.0))
    );
}

/// A handed-in file with mode 000 is graded on its content (modes as
/// handed in are incidental); a FIFO in a file's place is named as what it
/// is, with the fix, in the student's words: never "missing", never the
/// interpreter's `[Errno 13]`.
#[test]
fn unreadable_and_special_handins_are_named_for_what_they_are() {
    use std::os::unix::fs::PermissionsExt;
    let out = tempfile::tempdir().unwrap();
    let class = out.path().join("class");
    copy_dir(&fixtures("cis521"), &class);
    let perfect = class.join("perfect/homework1_part2.py");
    std::fs::set_permissions(&perfect, std::fs::Permissions::from_mode(0o000)).unwrap();
    let greedy = class.join("greedy/homework1_part2.py");
    std::fs::remove_file(&greedy).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &greedy,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let gs = out.path().join("gs");
    let args = ["--export", &format!("gradescope:{}", gs.display())];
    let (run, summary) = grade_class("cis521-lightsout", &class, out.path(), &args);
    run.code(1);
    assert!(summary.contains("\nperfect,2,3,"), "{summary}");
    let output = |who: &str| -> String {
        let text = std::fs::read(gs.join(who).join("results.json")).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&text).unwrap();
        v["output"].as_str().unwrap().to_string()
    };
    assert_eq!(
        output("greedy"),
        "Your submission did not build: cannot copy the submission: \
         homework1_part2.py is a FIFO, not a file: hand in the file itself"
    );
    assert_eq!(
        output("perfect"),
        "UPenn CIS 521 HW1 Lights Out: 87 of 87 cases accepted"
    );
}
