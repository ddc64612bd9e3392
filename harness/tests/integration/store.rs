//! The result store (`--store DIR`, else the user's cache folder): a
//! second run of the same bytes runs nothing; a changed case or candidate
//! runs only what changed; a time-limit row is never taken again; an
//! altered entry is run again; two runs may share a store at once; no
//! case can reach it, and a run whose candidates could is not served and
//! leaves nothing they wrote there; a place that is not a store is
//! refused with nothing touched.

use std::path::Path;

use super::support::{read_scorecard, require, solver_script, workspace};

/// The reference solver as a `--candidate`, through a script in
/// `dir/bin` that appends a line to `dir/ran.log` each time it runs (the
/// run is not isolated: `--isolation none`; the log is outside its
/// folder, whose files are in its rows' keys).
fn logging_solver(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let script = dir.join("bin/solver.sh");
    let log = dir.join("ran.log");
    solver_script(&script, &format!("echo \"$1\" >> {}\n", log.display()));
    script
}

/// `harness grade` of `candidate` on `suite` with the store `store` and
/// `extra` arguments: its stderr, and the scorecard's rows.
fn grade(
    suite: &Path,
    candidate: &Path,
    store: &Path,
    extra: &[&str],
) -> (String, Vec<std::collections::HashMap<String, String>>) {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("rows.csv");
    let out = grading(suite, candidate, store, &card)
        .args(extra)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        read_scorecard(&card),
    )
}

/// `harness grade` (not isolated) of `candidate` on `suite` with the store
/// `store`, its scorecard `card`.
fn grading(suite: &Path, candidate: &Path, store: &Path, card: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.args(["grade", "--isolation", "none", "--suite"])
        .arg(suite)
        .arg("--candidate")
        .arg(candidate)
        .arg("--store")
        .arg(store)
        .arg("--scorecard")
        .arg(card);
    cmd
}

/// The lines of the log, then emptied.
fn ran(dir: &Path) -> usize {
    let log = dir.join("ran.log");
    let n = std::fs::read_to_string(&log).map_or(0, |t| t.lines().count());
    let _ = std::fs::remove_file(&log);
    n
}

/// The bundled easy Lights Out suite, copied (to be changed).
fn suite_copy(dir: &Path) -> std::path::PathBuf {
    let to = dir.join("suite/easy");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(workspace().join("suites/lightsout/easy")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to
}

fn without_times(rows: &[std::collections::HashMap<String, String>]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            [
                "case",
                "verdict",
                "detail",
                "exit_code",
                "moves",
                "best_moves",
            ]
            .iter()
            .map(|k| r[*k].clone())
            .collect()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_second_run_runs_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    let solver = logging_solver(dir.path());
    let (said, first) = grade(&suite, &solver, &store, &[]);
    let cases = first.len();
    assert!(cases >= 19, "{said}");
    assert_eq!(ran(dir.path()), cases);
    assert!(
        said.contains(&format!("0 cases reused, {cases} run")),
        "{said}"
    );
    // The same bytes again: nothing runs, the same rows.
    let (said, second) = grade(&suite, &solver, &store, &[]);
    assert_eq!(ran(dir.path()), 0, "{said}");
    assert!(
        said.contains(&format!("{cases} cases reused, 0 run")),
        "{said}"
    );
    assert_eq!(without_times(&first), without_times(&second));
    // One case replaced (its board changed): only it runs.
    let board = suite.join("3x3-07.txt");
    let text = std::fs::read_to_string(&board).unwrap();
    // One light toggled (an on light `#` off, or the first off one on).
    let changed = match text.rfind('#') {
        Some(at) => format!("{}O{}", &text[..at], &text[at + 1..]),
        None => text.replacen('O', "#", 1),
    };
    assert_ne!(changed, text);
    std::fs::write(&board, changed).unwrap();
    let (said, _) = grade(&suite, &solver, &store, &[]);
    assert_eq!(ran(dir.path()), 1, "{said}");
    assert!(
        said.contains(&format!("{} cases reused, 1 run", cases - 1)),
        "{said}"
    );
    // A changed candidate (one byte of its script): everything runs.
    let mut text = std::fs::read_to_string(&solver).unwrap();
    text.push('\n');
    std::fs::write(&solver, text).unwrap();
    let (said, _) = grade(&suite, &solver, &store, &[]);
    assert_eq!(ran(dir.path()), cases, "{said}");
    // Another limit: everything runs.
    let (said, _) = grade(&suite, &solver, &store, &["--time-limit", "200s"]);
    assert_eq!(ran(dir.path()), cases, "{said}");
    // `--no-cache`: every case runs, nothing is said of the store.
    let (said, _) = grade(&suite, &solver, &store, &["--no-cache"]);
    assert_eq!(ran(dir.path()), cases, "{said}");
    assert!(!said.contains("result store"), "{said}");
    // PUZZLEGRADE_STORE names the store for a run that names none.
    let card = dir.path().join("env.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["grade", "--isolation", "none", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&solver)
        .arg("--scorecard")
        .arg(&card)
        .env("PUZZLEGRADE_STORE", &store)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(ran(dir.path()), 0, "{said}");
    assert!(
        said.contains(&format!("{cases} cases reused, 0 run")),
        "{said}"
    );
}

#[test]
fn a_time_limit_is_never_taken_again_and_a_bad_entry_runs_again() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    // Loops on one board, solves the others.
    std::fs::create_dir_all(dir.path().join("bin")).unwrap();
    let script = dir.path().join("bin/slow.sh");
    let log = dir.path().join("ran.log");
    solver_script(
        &script,
        &format!(
            "echo \"$1\" >> {}\ncase \"$1\" in *2x2-00*) while :; do :; done;; esac\n",
            log.display()
        ),
    );
    let args = ["--filter", "2x2", "--time-limit", "1s"];
    let (said, rows) = grade(&suite, &script, &store, &args);
    assert_eq!(rows.len(), 2, "{said}");
    assert_eq!(ran(dir.path()), 2);
    let (said, rows) = grade(&suite, &script, &store, &args);
    assert!(said.contains("1 cases reused, 1 run"), "{said}");
    assert_eq!(ran(dir.path()), 1, "only the time-limit case");
    let verdicts: Vec<_> = rows.iter().map(|r| r["verdict"].as_str()).collect();
    assert!(
        verdicts.contains(&"time-limit") && verdicts.contains(&"accepted"),
        "{verdicts:?}"
    );
    // The accepted row's entry altered in the database: it runs again,
    // and is kept anew.
    let db = rusqlite::Connection::open(store.join("results.sqlite")).unwrap();
    let altered = db
        .execute(
            "UPDATE entries SET body = CAST(replace(CAST(body AS TEXT), '\"accepted\"', \
             '\"wrong-answer\"') AS BLOB)",
            [],
        )
        .unwrap();
    assert_eq!(altered, 1);
    drop(db);
    let (said, _) = grade(&suite, &script, &store, &args);
    assert!(said.contains("0 cases reused, 2 run"), "{said}");
    let (said, _) = grade(&suite, &script, &store, &args);
    assert!(said.contains("1 cases reused, 1 run"), "{said}");
}

#[test]
fn two_runs_share_a_store_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    let solver = logging_solver(dir.path());
    let run = |card: &str| grading(&suite, &solver, &store, &dir.path().join(card)).spawn();
    let (mut a, mut b) = (run("a.csv").unwrap(), run("b.csv").unwrap());
    assert_eq!(a.wait().unwrap().code(), Some(0));
    assert_eq!(b.wait().unwrap().code(), Some(0));
    ran(dir.path());
    // Whatever each wrote, the store holds one whole entry a case.
    let (said, rows) = grade(&suite, &solver, &store, &[]);
    assert_eq!(ran(dir.path()), 0, "{said}");
    assert!(rows.iter().all(|r| r["verdict"] == "accepted"), "{rows:?}");
}

#[test]
fn no_case_reaches_the_store() {
    use std::os::unix::fs::PermissionsExt;
    if !require(
        rustix::process::geteuid().is_root(),
        "needs root (a user per job slot)",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let store = dir.path().join("store");
    let rogue = dir.path().join("rogue.sh");
    std::fs::write(
        &rogue,
        "#!/bin/sh\nls -A \"$PG_STORE\" 2>/dev/null | wc -l\n\
         echo x > \"$PG_STORE/results.sqlite\" 2>/dev/null\n\
         echo x > \"$PG_STORE/planted\" 2>/dev/null\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&rogue, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.path().join("out");
    // Twice: the first run keeps its rows, the second (its outputs kept
    // apart) finds them and runs nothing; a rogue run after another
    // candidate's rows are in the store sees none of them.
    let run = |candidate: &Path, out: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
            .current_dir(dir.path())
            .args(["grade", "--filter", "2x2", "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(candidate)
            .arg("--store")
            .arg(&store)
            .args(["--scorecard", "rows.csv", "--force", "--keep-output"])
            .arg(out)
            .arg("--env")
            .arg(format!("PG_STORE={}", store.display()))
            .output()
            .unwrap()
    };
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    let solver = dir.path().join("bin/solver.sh");
    solver_script(&solver, "");
    let said = run(&solver, &dir.path().join("solved"));
    let said = String::from_utf8_lossy(&said.stderr);
    assert!(said.contains("0 cases reused, 2 run"), "{said}");
    let before = snapshot(&store);
    let said = run(&rogue, &out);
    assert_eq!(said.status.code(), Some(1));
    let seen: Vec<String> = walkdir::WalkDir::new(&out)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "stdout"))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(seen, ["0", "0"], "each case sees no entry");
    let after = snapshot(&store);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "no file planted or replaced"
    );
    assert!(!store.join("planted").exists());
    // The solver's rows are served as they were kept.
    let again = run(&solver, &dir.path().join("again"));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("2 cases reused, 0 run"), "{said}");
    let mode = std::fs::metadata(&store).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o700
    );
}

/// Every file below `dir`, with its bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The CIS 521 course beside the bundled suites and adapters, in `dir`
/// (to be changed): its config's path and text.
fn cis521_in(dir: &Path) -> (std::path::PathBuf, String) {
    let ws = workspace();
    std::fs::create_dir(dir.join("courses")).unwrap();
    // (Copies: to be changed, and the cases see no symlink out of the
    // private /tmp.)
    super::support::copy_dir(&ws.join("suites"), &dir.join("suites"));
    let adapters = dir.join("adapters");
    std::fs::create_dir(&adapters).unwrap();
    for e in std::fs::read_dir(ws.join("adapters")).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), adapters.join(e.file_name())).unwrap();
        }
    }
    let course = dir.join("courses/cis521-lightsout.toml");
    let config = std::fs::read_to_string(ws.join("courses/cis521-lightsout.toml")).unwrap();
    std::fs::write(&course, &config).unwrap();
    (course, config)
}

/// Rows by (submission, suite, case), each whole (times included).
fn by_key(
    rows: Vec<std::collections::HashMap<String, String>>,
) -> std::collections::BTreeMap<(String, String, String), Vec<(String, String)>> {
    rows.into_iter()
        .map(|r| {
            let key = (
                r["candidate"].clone(),
                r["suite"].clone(),
                r["case"].clone(),
            );
            let mut all: Vec<(String, String)> = r.into_iter().collect();
            all.sort();
            (key, all)
        })
        .collect()
}

/// A class graded again with its store builds nothing and runs nothing:
/// every row, build rows and times included, is the first run's. A
/// resubmission builds and runs only itself; a part whose required files
/// changed makes each copy that built again from the store (what it lacks
/// is unknown until it is there) and runs no case; one replaced board
/// runs only the rows that read it, on copies made from the store, with
/// no build.
#[test]
fn a_class_graded_again_builds_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (course, config) = cis521_in(dir.path());
    let class = dir.path().join("class");
    super::support::copy_dir(
        &workspace().join("harness/tests/fixtures/classes/cis521"),
        &class,
    );
    let grade = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
            .current_dir(dir.path())
            .args(["grade", "--force", "--jobs", "2", "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--scorecard", "rows.csv", "--store", "store"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        (said, by_key(read_scorecard(&dir.path().join("rows.csv"))))
    };
    let (said, first) = grade();
    let all = first.len();
    // 4 builds (one a compile error) and 3 x 80 cases.
    assert_eq!(all, 244, "{said}");
    assert!(
        said.contains(&format!("0 cases reused, {all} run")),
        "{said}"
    );
    let (said, second) = grade();
    assert!(
        said.contains(&format!("{all} cases reused, 0 run")),
        "{said}"
    );
    assert_eq!(first, second, "every row the first run's, times included");
    // noisy resubmits (a comment added): its build and its 80 cases run.
    let file = class.join("noisy/homework1_part2.py");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n# resubmitted\n");
    std::fs::write(&file, text).unwrap();
    let (said, third) = grade();
    assert!(
        said.contains(&format!("{} cases reused, 81 run", all - 81)),
        "{said}"
    );
    for (key, row) in &third {
        let same = first[key] == *row;
        assert_eq!(same, key.0 != "noisy", "{key:?}");
    }
    // A part requires another file: each copy that built is made again
    // from the store (what it lacks is unknown), and nothing runs.
    let changed = config.replacen(
        "judge = \"lightsout:get_board\"",
        "judge = \"lightsout:get_board\"\nrequire = [\"homework1_part2.py\"]",
        1,
    );
    assert_ne!(changed, config);
    std::fs::write(&course, changed).unwrap();
    let (said, _) = grade();
    assert!(
        said.contains(&format!(
            "{all} cases reused (3 of them builds whose copies it made again), 0 run"
        )),
        "{said}"
    );
    // One board replaced: each of the 3 built submissions runs it in each
    // of the 8 parts whose suite holds it, and nothing builds.
    let board = dir.path().join("suites/lightsout/easy/3x3-07.txt");
    let text = std::fs::read_to_string(&board).unwrap();
    let changed = match text.rfind('#') {
        Some(at) => format!("{}O{}", &text[..at], &text[at + 1..]),
        None => text.replacen('O', "#", 1),
    };
    std::fs::write(&board, changed).unwrap();
    let (said, after) = grade();
    assert!(
        said.contains(&format!(
            "{} cases reused (3 of them builds whose copies it made again), 24 run",
            all - 24
        )),
        "{said}"
    );
    let ran: Vec<_> = after
        .keys()
        .filter(|k| second.get(*k) != after.get(*k))
        .filter(|k| k.0 != "noisy")
        .collect();
    assert!(
        ran.iter().all(|k| k.2.ends_with("3x3-07.txt")),
        "only the replaced board's rows changed: {ran:?}"
    );
}

#[test]
fn a_rubric_change_runs_nothing() {
    // The CIS 521 course in a folder of the test's own (its rubric is
    // changed below).
    let dir = tempfile::tempdir().unwrap();
    let (course, config) = cis521_in(dir.path());
    let ws = workspace();
    let class = ws.join("harness/tests/fixtures/classes/cis521");
    let run = |what: &str| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_harness"));
        cmd.current_dir(dir.path())
            .args([what, "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--scorecard", "rows.csv", "--summary", "summary.csv"]);
        let out = cmd.output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
        (out.status.code(), said, summary)
    };
    let (_, _, before) = run("grade");
    assert!(before.contains("\nperfect,2,3,"), "{before}");
    // Q1's weight from 2 points to 4: `regrade` runs nothing, every
    // student's points follow the new rubric, and it names whose moved.
    let changed = config.replacen(
        "name = \"Q1 get_board\"\nrule = \"share\"\npoints = 2",
        "name = \"Q1 get_board\"\nrule = \"share\"\npoints = 4",
        1,
    );
    assert_ne!(changed, config);
    std::fs::write(&course, changed).unwrap();
    let (_, said, after) = run("regrade");
    assert!(said.contains(", 0 to run"), "{said}");
    assert_ne!(before, after);
    assert!(after.contains("Q1 get_board"), "{after}");
    let moved = |summary: &str| -> Vec<String> {
        let totals = |s: &str| -> Vec<(String, String)> {
            let mut r = csv::Reader::from_reader(s.as_bytes());
            let at = r
                .headers()
                .unwrap()
                .iter()
                .position(|h| h == "total")
                .unwrap();
            r.records()
                .map(|x| x.unwrap())
                .map(|x| (x[0].to_string(), x[at].to_string()))
                .collect()
        };
        let (was, now) = (totals(&before), totals(summary));
        was.iter()
            .zip(&now)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| format!("{}: {} -> {}", a.0, a.1, b.1))
            .collect()
    };
    let lines = moved(&after);
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(said.lines().any(|l| l == line), "{line} in {said}");
    }
    assert!(
        said.contains(&format!(
            "regrade: 4 submissions, {} totals changed; 0 cases run",
            lines.len()
        )),
        "{said}"
    );
    // Back to 2 points: the first summary, byte for byte.
    std::fs::write(&course, &config).unwrap();
    let (_, _, again) = run("regrade");
    assert_eq!(before, again);
    // A regrade runs nothing, so a machine without the course's programs
    // (no python3 on PATH) may do it; a grade there stops.
    let lacking = |what: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
            .current_dir(dir.path())
            .args([what, "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--scorecard", "rows.csv", "--summary", "summary.csv"])
            .env("PATH", "/nonexistent")
            .output()
            .unwrap()
    };
    let out = lacking("regrade");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = lacking("grade");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("this machine has no python3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A scorecard that lacks a row: regrade runs nothing and says what
    // would (exit 2), the scorecard as it was.
    let card = dir.path().join("rows.csv");
    let text = std::fs::read_to_string(&card).unwrap();
    let cut: String = text
        .lines()
        .take(text.lines().count() - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&card, &cut).unwrap();
    let (code, said, _) = run("regrade");
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("1 builds and cases have no row"), "{said}");
    assert!(
        said.contains("`harness grade --resume` runs them"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&card).unwrap(), cut);
}
