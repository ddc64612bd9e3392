//! The result store (`--store DIR`, else the user's cache folder): a
//! second run of the same bytes runs nothing; a changed case or candidate
//! runs only what changed; a time-limit row is never taken again; an
//! altered entry is run again; two runs may share a store at once; no
//! case can reach it, and a run whose candidates could is not served and
//! leaves nothing they wrote there; a place that is not a store is
//! refused with nothing touched.

use std::path::Path;

use super::support::{read_scorecard, require, solver_script, workspace};

/// A folder for a test's candidate, suite and store where a job slot's
/// user reaches the candidate (in /home, as a user's would be); `None` (skipped with a note) where the run cannot
/// keep its candidates from the store: the store is used only where it
/// can (as root, a user per slot).
fn place() -> Option<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    if !require(
        rustix::process::geteuid().is_root(),
        "needs root (a user per job slot keeps the candidates from the store)",
    ) {
        return None;
    }
    let dir = tempfile::Builder::new()
        .prefix("pg-store-")
        .tempdir_in("/home")
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    Some(dir)
}

/// The reference solver as a `--candidate`, through a script in
/// `dir/bin` (a run says what it took from the store and what it ran).
fn solver(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let script = dir.join("bin/solver.sh");
    solver_script(&script, "");
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

/// `harness grade` of `candidate` on `suite` with the store `store`, its
/// scorecard `card`.
fn grading(suite: &Path, candidate: &Path, store: &Path, card: &Path) -> std::process::Command {
    let mut cmd = harness_here();
    cmd.args(["grade", "--suite"])
        .arg(suite)
        .arg("--candidate")
        .arg(candidate)
        .arg("--store")
        .arg(store)
        .arg("--scorecard")
        .arg(card);
    cmd
}

/// The harness, as the tests run it but with the store on (the test
/// command turns it off for every other test: `PUZZLEGRADE_NO_CACHE`).
fn harness_here() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_harness"));
    cmd.env_remove("PUZZLEGRADE_NO_CACHE");
    cmd
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
    let Some(dir) = place() else { return };
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    let solver = solver(dir.path());
    let (said, first) = grade(&suite, &solver, &store, &[]);
    let cases = first.len();
    assert!(cases >= 19, "{said}");
    assert!(
        said.contains(&format!("0 cases reused, {cases} run")),
        "{said}"
    );
    // The same bytes again: nothing runs, the same rows.
    let (said, second) = grade(&suite, &solver, &store, &[]);
    assert!(
        said.contains(&format!("{cases} cases reused, 0 run")),
        "{said}"
    );
    assert_eq!(without_times(&first), without_times(&second));
    let whole = |rows: &[std::collections::HashMap<String, String>]| {
        let mut v: Vec<Vec<(String, String)>> = rows
            .iter()
            .map(|r| {
                let mut r: Vec<_> = r.clone().into_iter().collect();
                r.sort();
                r
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        whole(&first),
        whole(&second),
        "the rows kept, times included"
    );
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
    assert!(
        said.contains(&format!("{} cases reused, 1 run", cases - 1)),
        "{said}"
    );
    // A changed candidate (one byte of its script): everything runs.
    let mut text = std::fs::read_to_string(&solver).unwrap();
    text.push('\n');
    std::fs::write(&solver, text).unwrap();
    let all_run = format!("0 cases reused, {cases} run");
    let (said, _) = grade(&suite, &solver, &store, &[]);
    assert!(said.contains(&all_run), "{said}");
    // Another limit: everything runs.
    let (said, _) = grade(&suite, &solver, &store, &["--time-limit", "200s"]);
    assert!(said.contains(&all_run), "{said}");
    // `--no-cache`: every case runs, nothing is said of the store.
    let (said, _) = grade(&suite, &solver, &store, &["--no-cache"]);
    assert!(!said.contains("result store"), "{said}");
    // PUZZLEGRADE_STORE names the store for a run that names none.
    let card = dir.path().join("env.csv");
    let out = harness_here()
        .args(["grade", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&solver)
        .arg("--scorecard")
        .arg(&card)
        .env("PUZZLEGRADE_STORE", &store)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("{cases} cases reused, 0 run")),
        "{said}"
    );
}

#[test]
fn a_time_limit_is_never_taken_again_and_a_bad_entry_runs_again() {
    let Some(dir) = place() else { return };
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    // Loops on one board, solves the others.
    std::fs::create_dir_all(dir.path().join("bin")).unwrap();
    let script = dir.path().join("bin/slow.sh");
    solver_script(
        &script,
        "case \"$1\" in *2x2-00*) while :; do :; done;; esac\n",
    );
    let args = ["--filter", "2x2", "--time-limit", "1s"];
    let (said, rows) = grade(&suite, &script, &store, &args);
    assert_eq!(rows.len(), 2, "{said}");
    let (said, rows) = grade(&suite, &script, &store, &args);
    assert!(said.contains("1 cases reused, 1 run"), "{said}");
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
    let Some(dir) = place() else { return };
    let suite = suite_copy(dir.path());
    let store = dir.path().join("store");
    let solver = solver(dir.path());
    let run = |card: &str, extra: &[&str]| {
        grading(&suite, &solver, &store, &dir.path().join(card))
            .args(extra)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Two, and a third that evicts all it can meanwhile (a store of 1 KiB).
    let runs = [
        run("a.csv", &[]),
        run("b.csv", &[]),
        run("c.csv", &["--store-size", "1KiB"]),
    ];
    for r in runs {
        let out = r.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{said}");
    }
    // Whatever each wrote, the store holds one whole entry a case.
    let (said, rows) = grade(&suite, &solver, &store, &[]);
    assert!(said.contains(" run"), "{said}");
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
        harness_here()
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
    super::support::copy_dir(
        &ws.join("adapters/cis521-examples"),
        &adapters.join("cis521-examples"),
    );
    let course = dir.join("courses/cis521-lightsout.toml");
    let config = std::fs::read_to_string(ws.join("courses/cis521-lightsout.toml")).unwrap();
    std::fs::write(&course, &config).unwrap();
    (course, config)
}

/// The CIS 521 config `config` with Q1 worth 4 points (not 2).
fn q1_at_4_points(config: &str) -> String {
    let changed = config.replacen(
        "name = \"Q1 get_board\"\nrule = \"share\"\nbeyond_stub = true\npoints = 2",
        "name = \"Q1 get_board\"\nrule = \"share\"\nbeyond_stub = true\npoints = 4",
        1,
    );
    assert_ne!(changed, config);
    changed
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
        let out = harness_here()
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
    // 4 builds (one a compile error) and 3 x 87 cases.
    assert_eq!(all, 265, "{said}");
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
    // noisy resubmits (a comment added): its build and its 87 cases run.
    let file = class.join("noisy/homework1_part2.py");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n# resubmitted\n");
    std::fs::write(&file, text).unwrap();
    let (said, third) = grade();
    assert!(
        said.contains(&format!("{} cases reused, 88 run", all - 88)),
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
        // (Both streams: a regrade says only what moved, on either.)
        let said = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
        (out.status.code(), said, summary)
    };
    let (_, _, before) = run("grade");
    assert!(before.contains("\nperfect,2,3,"), "{before}");
    // Q1's weight from 2 points to 4: `regrade` runs nothing, every
    // student's points follow the new rubric, and it names whose moved.
    std::fs::write(&course, q1_at_4_points(&config)).unwrap();
    let (code, said, after) = run("regrade");
    assert_eq!(code, Some(0), "{said}");
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
    // Only what moved, then one line: no table, no isolation, no summary
    // of the run.
    let mut want = lines.clone();
    want.push(format!(
        "regrade: 4 submissions, {} totals changed; 0 cases run",
        lines.len()
    ));
    let mut got: Vec<String> = said.lines().map(str::to_string).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{said}");
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
        Some(0),
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
    // A row of a case the suites do not hold (and of a submission not in
    // the class): named and left out, the totals as they were.
    let card = dir.path().join("rows.csv");
    let text = std::fs::read_to_string(&card).unwrap();
    let last = text
        .lines()
        .rfind(|l| l.starts_with("perfect,") && !l.contains('"'))
        .unwrap()
        .to_string();
    let stray = last.replacen("perfect,", "perfect-x,", 1);
    let odd = {
        let mut cells: Vec<String> = last.split(',').map(str::to_string).collect();
        let at = text
            .lines()
            .next()
            .unwrap()
            .split(',')
            .position(|h| h == "case")
            .unwrap();
        cells[at] = "9x9-99.txt".into();
        cells.join(",")
    };
    std::fs::write(&card, format!("{text}{odd}\n{stray}\n")).unwrap();
    let (code, said, summary) = run("regrade");
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "regrade leaves out 2 rows of cases or submissions the class does not hold: perfect "
        ),
        "{said}"
    );
    assert!(said.contains("9x9-99.txt"), "{said}");
    assert_eq!(summary, before, "they count for nothing");
    // Two rows of one case: an error naming it, the scorecard untouched.
    std::fs::write(&card, format!("{text}{last}\n")).unwrap();
    let (code, said, _) = run("regrade");
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("1 submission cases have more than one row: perfect "),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&card).unwrap(),
        format!("{text}{last}\n")
    );
    std::fs::write(&card, &text).unwrap();
    // A scorecard that lacks a row: regrade runs nothing and says what
    // would (exit 2), the scorecard as it was.
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

/// `harness grade` run the way a user does (no flag): its store is the
/// user's cache folder (`XDG_CACHE_HOME`, here `cache` in `dir`).
fn by_default(dir: &Path) -> std::process::Command {
    let mut cmd = harness_here();
    cmd.current_dir(dir)
        .env_remove("PUZZLEGRADE_STORE")
        .env("XDG_CACHE_HOME", dir.join("cache"));
    cmd
}

/// The same `grade` command twice, the rubric's weights changed between:
/// the second runs no case (no flag: the user's cache folder) and its
/// points follow the new rubric.
#[test]
fn the_same_grade_command_after_a_rubric_change_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (course, config) = cis521_in(dir.path());
    let class = workspace().join("harness/tests/fixtures/classes/cis521");
    let grade = || {
        let out = by_default(dir.path())
            .args(["grade", "--force", "--course"])
            .arg(&course)
            .arg("--submissions")
            .arg(&class)
            .args(["--scorecard", "rows.csv", "--summary", "summary.csv"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let summary = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
        (said, summary)
    };
    let (said, before) = grade();
    let cache = dir.path().join("cache/puzzlegrade");
    assert!(
        said.contains(&format!(
            "result store {}: 0 cases reused, 265 run",
            cache.display()
        )),
        "{said}"
    );
    std::fs::write(&course, q1_at_4_points(&config)).unwrap();
    let (said, after) = grade();
    assert!(said.contains("265 cases reused, 0 run"), "{said}");
    assert_ne!(before, after, "the new weights count");
    assert!(before.contains("\nperfect,2,3,"), "{before}");
    assert!(after.contains("\nperfect,4,3,"), "{after}");
    // `--no-cache`: everything runs, the store untouched.
    let out = by_default(dir.path())
        .args(["grade", "--force", "--no-cache", "--course"])
        .arg(&course)
        .arg("--submissions")
        .arg(&class)
        .args(["--scorecard", "rows.csv"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("result store"));
}

/// `--store` (or `PUZZLEGRADE_STORE`) at a folder of other files, or at
/// a link to one: exit 2, one line saying why, not a file changed.
#[test]
fn a_place_that_is_not_a_store_is_refused_with_nothing_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    for i in 0..30 {
        std::fs::write(notes.join(format!("week{i:02}.md")), format!("notes {i}")).unwrap();
    }
    let before = snapshot(&notes);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    for (how, at) in [("--store", &notes), ("PUZZLEGRADE_STORE", &link)] {
        let mut cmd = by_default(dir.path());
        cmd.args([
            "grade",
            "--force",
            "--filter",
            "2x2",
            "--store-size",
            "1KiB",
        ]);
        if how == "--store" {
            cmd.arg("--store").arg(at);
        } else {
            cmd.env("PUZZLEGRADE_STORE", at);
        }
        let out = cmd.output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{how}: {said}");
        assert_eq!(said.lines().count(), 1, "{how}: {said}");
        assert!(said.contains("refusing the result store"), "{said}");
        assert_eq!(snapshot(&notes), before, "{how}: nothing changed");
    }
}

/// A run with `--sandbox none` as an ordinary user, or `--isolation
/// none` (its candidates run as that user, nothing between them and its
/// files): the store is not used, and a candidate that forges entries
/// with the store's own key has nothing served after it.
#[test]
fn a_run_whose_candidates_could_reach_the_store_leaves_nothing_they_wrote() {
    use super::support::{harness_as_an_ordinary_user, require_ordinary_bwrap};
    use std::os::unix::fs::PermissionsExt;
    if !require_ordinary_bwrap() {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("pg-store-")
        .tempdir_in("/home")
        .unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bin")).unwrap();
    let silent = d.join("bin/silent.sh");
    std::fs::write(&silent, "#!/bin/sh\nexit 0\n").unwrap();
    let forger = d.join("bin/forger.py");
    std::fs::write(
        &forger,
        "#!/usr/bin/python3\nimport hashlib, hmac, os, sqlite3\n\
         cache = os.environ.get('XDG_CACHE_HOME', '')\n\
         store = os.environ.get('PG_STORE') or os.path.join(cache, 'puzzlegrade')\n\
         here = os.environ.get('PG_DIR') or os.path.dirname(cache)\n\
         secret = open(os.path.join(store, 'secret'), 'rb').read()\n\
         db = sqlite3.connect(os.path.join(store, 'results.sqlite'), timeout=60)\n\
         n = 0\n\
         for key, body in db.execute('SELECT key, body FROM entries').fetchall():\n\
         \x20   forged = body.replace(b'\"wrong-answer\"', b'\"accepted\"').replace(b'\"wrong-exit-status\"', b'\"accepted\"')\n\
         \x20   mac = hmac.new(secret, len(key).to_bytes(8, 'little') + key + forged, hashlib.sha256).digest()\n\
         \x20   db.execute('UPDATE entries SET body = ?, mac = ? WHERE key = ?', (forged, mac, key))\n\
         \x20   n += 1\n\
         db.commit()\n\
         open(os.path.join(here, 'forged'), 'a').write(f'{n}\\n')\n",
    )
    .unwrap();
    for f in [&silent, &forger] {
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cache = d.join("cache");
    let store = cache.join("puzzlegrade");
    let run = |candidate: &Path, extra: &[&str]| {
        let out = harness_as_an_ordinary_user(d)
            .current_dir(d)
            .env_remove("PUZZLEGRADE_NO_CACHE")
            .env_remove("PUZZLEGRADE_STORE")
            .env("XDG_CACHE_HOME", &cache)
            .args(["grade", "--force", "--filter", "2x2", "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(candidate)
            .args(["--scorecard", "rows.csv", "--env"])
            .arg(format!("PG_STORE={}", store.display()))
            .arg("--env")
            .arg(format!("PG_DIR={}", d.display()))
            .args(extra)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let verdicts: Vec<String> = read_scorecard(&d.join("rows.csv"))
            .iter()
            .map(|r| r["verdict"].clone())
            .collect();
        (said, verdicts)
    };
    let (said, first) = run(&silent, &[]);
    assert!(said.contains("0 cases reused, 2 run"), "{said}");
    assert!(first.iter().all(|v| v != "accepted"), "{first:?}");
    let (said, _) = run(&silent, &[]);
    assert!(said.contains("2 cases reused, 0 run"), "{said}");
    let (said, _) = run(&forger, &["--sandbox", "none"]);
    assert!(
        said.contains("is not used: this run's candidates run as you"),
        "{said}"
    );
    let forged = std::fs::read_to_string(d.join("forged")).unwrap();
    assert!(
        forged.lines().all(|l| l.parse::<usize>().unwrap() >= 2),
        "{forged}"
    );
    let (said, again) = run(&silent, &[]);
    assert!(
        said.contains("0 cases reused, 2 run"),
        "nothing it wrote is served: {said}"
    );
    assert_eq!(again, first);
    // Nor with `--isolation none` (the same forger; a real one would
    // work: it has the key).
    std::fs::remove_file(d.join("forged")).unwrap();
    let (said, _) = run(&forger, &["--isolation", "none"]);
    assert!(said.contains("is not used"), "{said}");
    assert!(d.join("forged").exists(), "the forger ran");
    let (said, again) = run(&silent, &[]);
    assert!(said.contains("0 cases reused, 2 run"), "{said}");
    assert_eq!(again, first);
}
