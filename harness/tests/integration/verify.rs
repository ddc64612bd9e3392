//! `harness verify` on a package written here (no Rust for it): its judge
//! solutions in C and Python built as problemtools builds them, each run on
//! every case and checked against its folder (`accepted`, `wrong_answer`,
//! `run_time_error`, `time_limit_exceeded`), the time limit from the
//! slowest accepted one where the package gives none; a misfiled or
//! broken submission fails the run, a language the machine lacks is said
//! and not counted.

use std::path::{Path, PathBuf};

use crate::support::{
    harness, harness_as_an_ordinary_user, open_to_all, read_scorecard, require_ordinary_bwrap,
};

/// A package `sum` in `dir` (each case two numbers, the answer their sum)
/// with `subs` (path under `submissions/`, source), readable by every
/// job slot's user.
fn package(dir: &Path, subs: &[(&str, &str)]) -> PathBuf {
    let p = dir.join("sum");
    let mut files = vec![
        ("problem.yaml", "name: Sum\n"),
        ("data/sample/1.in", "1 2\n"),
        ("data/sample/1.ans", "3\n"),
        ("data/secret/2.in", "20 22\n"),
        ("data/secret/2.ans", "42\n"),
    ];
    let subs: Vec<(String, &str)> = subs
        .iter()
        .map(|(path, text)| (format!("submissions/{path}"), *text))
        .collect();
    files.extend(subs.iter().map(|(p, t)| (p.as_str(), *t)));
    for (path, text) in files {
        let at = p.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    open_to_all(dir);
    p
}

const SUM_C: &str = "#include <stdio.h>\nint main(void) { long a, b; scanf(\"%ld %ld\", &a, &b); printf(\"%ld\\n\", a + b); return 0; }\n";
const SUM_PY: &str = "a, b = map(int, input().split())\nprint(a + b)\n";
const OFF_PY: &str = "a, b = map(int, input().split())\nprint(a + b + (a > 10))\n";
const CRASH_PY: &str =
    "a, b = map(int, input().split())\nraise SystemExit(3 if a > 10 else print(a + b))\n";
const SPIN_C: &str = "#include <stdio.h>\nint main(void) { long a, b; scanf(\"%ld %ld\", &a, &b); if (a > 10) for (;;); printf(\"%ld\\n\", a + b); return 0; }\n";

/// Runs `harness verify` on `package`: its exit status, stdout, and the
/// scorecard's `(candidate, case, verdict)` rows.
fn verify(package: &Path, card: &Path) -> (Option<i32>, String, Vec<(String, String, String)>) {
    let out = harness()
        .args(["verify", "--jobs", "2", "--scorecard"])
        .arg(card)
        .arg("--force")
        .arg(package)
        .output()
        .unwrap();
    let mut rows: Vec<_> = read_scorecard(card)
        .into_iter()
        .map(|r| {
            (
                r["candidate"].clone(),
                r["case"].clone(),
                r["verdict"].clone(),
            )
        })
        .collect();
    rows.sort();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr);
    let quiet = |l: &str| l.starts_with("isolation") || l.starts_with("result store");
    assert!(err.lines().all(quiet), "{err}");
    (out.status.code(), said, rows)
}

#[test]
fn every_submission_gets_the_verdict_its_folder_names() {
    // (In an ordinary folder, as a course keeps its packages: not under
    // /tmp, which every case's view replaces anyway.)
    let dir = tempfile::Builder::new()
        .prefix("puzzlegrade-verify-")
        .tempdir_in("/home")
        .unwrap();
    let answer = dir.path().join("sum/data/sample/1.ans");
    let peek = format!(
        "import os, sys\nif os.path.exists({:?}): sys.exit(3)\n{SUM_PY}",
        answer.display().to_string()
    );
    let sum = package(
        dir.path(),
        &[
            ("accepted/sum.c", SUM_C),
            ("accepted/sum.py", SUM_PY),
            // Right, unless it can read the package's answers (then exit 3).
            ("accepted/peek.py", &peek),
            ("accepted/two/main.py", SUM_PY),
            ("accepted/two/README", "the folder is one program\n"),
            ("accepted/sum.hs", "main = interact id\n"),
            ("accepted/notes.txt", "not a program: left out\n"),
            ("wrong_answer/off.py", OFF_PY),
            ("wrong_answer/zero.py", "print(0)\n"),
            ("run_time_error/crash.py", CRASH_PY),
            ("time_limit_exceeded/spin.c", SPIN_C),
        ],
    );
    let card = dir.path().join("v.csv");
    let (code, said, rows) = verify(&sum, &card);
    let lines: Vec<&str> = said.lines().collect();
    assert!(
        lines[0].starts_with("time limit 1 s (the slowest accepted submission's ")
            && lines[0].ends_with("x 5, rounded up to a second); runs watched to 2 s"),
        "{said}"
    );
    let marks: Vec<Vec<&str>> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            // (Not run: its time is `-`.)
            let said = if w[2] == "-" { w[3] } else { w.last().unwrap() };
            vec![w[0], w[1], w[2], said]
        })
        .collect();
    assert_eq!(
        marks,
        [
            ["submissions/accepted/peek.py", "AC", "ok", "AC"],
            ["submissions/accepted/sum.c", "AC", "ok", "AC"],
            ["submissions/accepted/sum.hs", "AC", "-", "-"],
            ["submissions/accepted/sum.py", "AC", "ok", "AC"],
            ["submissions/accepted/two", "AC", "ok", "AC"],
            ["submissions/wrong_answer/off.py", "WA", "ok", "WA"],
            ["submissions/wrong_answer/zero.py", "WA", "ok", "WA"],
            ["submissions/run_time_error/crash.py", "RTE", "ok", "RTE"],
            ["submissions/time_limit_exceeded/spin.c", "TLE", "ok", "TLE"],
        ],
        "{said}"
    );
    assert!(
        said.contains("Haskell needs ghc, which this machine lacks"),
        "{said}"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"8 as their folders say, 0 not, 1 not verified here (no compiler)"
    );
    assert_eq!(code, Some(0), "{said}");
    // Every build and case in the scorecard, by the submission's path.
    let of = |name: &str| -> Vec<(String, String)> {
        rows.iter()
            .filter(|r| r.0 == format!("submissions/{name}"))
            .map(|r| (r.1.clone(), r.2.clone()))
            .collect()
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        of("accepted/two"),
        pairs(&[
            ("build", "accepted"),
            ("sample/1", "accepted"),
            ("secret/2", "accepted")
        ])
    );
    // Rejected on the sample, as problemtools it is not run on the rest
    // (`on_reject: break`, the format's default).
    assert_eq!(
        of("wrong_answer/zero.py"),
        pairs(&[
            ("build", "accepted"),
            ("sample/1", "wrong-answer"),
            ("secret/2", "cancelled")
        ])
    );
    assert_eq!(
        of("wrong_answer/off.py")[2],
        ("secret/2".into(), "wrong-answer".into())
    );
    assert_eq!(
        of("run_time_error/crash.py")[2],
        ("secret/2".into(), "runtime-error".into())
    );
    assert_eq!(
        of("time_limit_exceeded/spin.c")[2],
        ("secret/2".into(), "time-limit".into())
    );

    // The limit its accepted submissions set, kept for `grade` as Kattis
    // keeps it; then the package's own.
    harness()
        .args(["verify", "--write-timelimit"])
        .arg(&sum)
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(sum.join(".timelimit")).unwrap(),
        "1\n"
    );
    let (_, said, _) = verify(&sum, &card);
    assert!(
        said.starts_with("time limit 1 s (the package's own); runs watched to 2 s\n"),
        "{said}"
    );

    // A misfiled submission and one that does not build: exit 1.
    let bad = package(
        dir.path().join("bad").as_path(),
        &[
            ("accepted/sum.c", SUM_C),
            ("accepted/broken.c", "int main( {\n"),
            ("wrong_answer/right.py", SUM_PY),
        ],
    );
    let (code, said, _) = verify(&bad, &dir.path().join("bad.csv"));
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.lines()
            .any(|l| l.starts_with("submissions/accepted/broken.c")
                && l.contains("WRONG")
                && l.contains("compile-error: build exit 1")),
        "{said}"
    );
    assert!(
        said.lines()
            .any(|l| l.starts_with("submissions/wrong_answer/right.py") && l.ends_with("  AC")),
        "{said}"
    );
    assert!(said.ends_with("1 as their folders say, 2 not, 0 not verified here (no compiler)\n"));
}

/// A package with no accepted submission, or a scoring one, is refused
/// in one line, exit 2.
#[test]
fn what_cannot_be_verified_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(dir.path(), &[("wrong_answer/off.py", OFF_PY)]);
    harness()
        .arg("verify")
        .arg(&sum)
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {}: no accepted submission (the format asks for one)\n",
            sum.join("submissions/accepted").display()
        ));
    std::fs::write(sum.join("data/testdata.yaml"), "grading: custom\n").unwrap();
    std::fs::create_dir_all(sum.join("submissions/accepted")).unwrap();
    std::fs::write(sum.join("submissions/accepted/sum.py"), SUM_PY).unwrap();
    harness()
        .arg("verify")
        .arg(&sum)
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {}: a group asks for the package's own grader (grading: custom), and it holds none\n",
            sum.join("graders").display()
        ));
    // One that does not build: said once, naming it.
    std::fs::create_dir_all(sum.join("graders")).unwrap();
    std::fs::write(sum.join("graders/grade.c"), "int main(void) { return }\n").unwrap();
    let out = harness().arg("verify").arg(&sum).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "harness: {}: the package's grader did not build: ",
            sum.join("graders/grade.c").display()
        )),
        "{err}"
    );
}

/// A package's own grader (legacy `grading: custom`, a program of
/// `graders/`), run as problemtools runs it: its group's results on its
/// stdin (`VERDICT SCORE` a line), its flags as arguments, `VERDICT
/// SCORE` on its stdout. This one accepts a group where at least half
/// its cases are (its flag `half`), scoring 1 a case accepted.
#[test]
fn a_packages_own_grader_grades_its_groups() {
    let dir = tempfile::tempdir().unwrap();
    const HALF_PY: &str = "a, b = map(int, input().split())\nprint(a + b if a < 10 else 0)\n";
    let sum = package(
        dir.path(),
        &[
            ("accepted/sum.py", SUM_PY),
            // Right on the sample and 3 4, wrong on 20 22: half of secret.
            ("accepted/half.py", HALF_PY),
            ("wrong_answer/off.py", OFF_PY),
        ],
    );
    let grader = "import sys\n\
        results = [l.split() for l in sys.stdin if l.strip()]\n\
        good = sum(1 for v, s in results if v == 'AC')\n\
        need = len(results) / 2 if 'half' in sys.argv[1:] else len(results)\n\
        print('AC' if good >= need else 'WA', good)\n";
    for (path, text) in [
        ("problem.yaml", "type: scoring\n"),
        (
            "data/testdata.yaml",
            "on_reject: continue\nrange: 0 2\ngrader_flags: ignore_sample\n",
        ),
        (
            "data/secret/testdata.yaml",
            "on_reject: continue\ngrading: custom\ngrader_flags: half\nrange: 0 2\n",
        ),
        ("data/secret/3.in", "3 4\n"),
        ("data/secret/3.ans", "7\n"),
        ("graders/grade.py", grader),
    ] {
        std::fs::create_dir_all(sum.join(path).parent().unwrap()).unwrap();
        std::fs::write(sum.join(path), text).unwrap();
    }
    open_to_all(&sum);
    let (code, said, _) = verify(&sum, &dir.path().join("g.csv"));
    let line = |name: &str| {
        said.lines()
            .find(|l| l.starts_with(name))
            .map(|l| {
                l.split("  ")
                    .filter(|w| !w.is_empty())
                    .last()
                    .unwrap()
                    .trim()
                    .to_string()
            })
            .unwrap()
    };
    // (`half.py` reaches 1 of 2: accepted by the grader, not full marks:
    // a `partially_accepted` one in an `accepted` folder.)
    assert_eq!(line("submissions/accepted/sum.py"), "AC (2)", "{said}");
    assert_eq!(line("submissions/accepted/half.py"), "AC (1)", "{said}");
    assert_eq!(line("submissions/wrong_answer/off.py"), "AC (1)", "{said}");
    assert_eq!(code, Some(1), "{said}");
}

/// A scoring problem (the 2023-07 draft's `type: scoring`): points per
/// group as problemtools' default grader gives them (`testdata.yaml`:
/// each group's cases worth its `accept_score`, the sample ignored), the
/// full score (`range`'s top) `accepted`, less `partially_accepted`.
#[test]
fn a_scoring_problem_s_submissions_by_their_points() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(
        dir.path(),
        &[
            ("accepted/sum.py", SUM_PY),
            ("partially_accepted/off.py", OFF_PY),
            ("wrong_answer/crash_is_not_wrong.py", CRASH_PY),
        ],
    );
    for (path, text) in [
        (
            "problem.yaml",
            "problem_format_version: 2023-07-draft\ntype: scoring\n",
        ),
        (
            "data/testdata.yaml",
            "on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n",
        ),
        (
            "data/secret/testdata.yaml",
            // (Its own flags: a group takes those it lacks from above,
            // `ignore_sample` too.)
            "on_reject: continue\nrange: 0 100\ngrader_flags: first_error accept_if_any_accepted\n",
        ),
        (
            "data/secret/small/testdata.yaml",
            "accept_score: 40\non_reject: break\ngrader_flags: min\n",
        ),
        ("data/secret/small/1.in", "3 4\n"),
        ("data/secret/small/1.ans", "7\n"),
        (
            "data/secret/large/testdata.yaml",
            "accept_score: 60\non_reject: break\ngrader_flags: min\n",
        ),
        ("data/secret/large/1.in", "30 40\n"),
        ("data/secret/large/1.ans", "70\n"),
    ] {
        std::fs::create_dir_all(sum.join(path).parent().unwrap()).unwrap();
        std::fs::write(sum.join(path), text).unwrap();
    }
    std::fs::remove_file(sum.join("data/secret/2.in")).unwrap();
    std::fs::remove_file(sum.join("data/secret/2.ans")).unwrap();
    open_to_all(&sum);
    let (code, said, _) = verify(&sum, &dir.path().join("s.csv"));
    let lines: Vec<&str> = said.lines().collect();
    let row = |n: usize, name: &str, mark: &str, got: &str| {
        let l = lines[n];
        assert!(
            l.starts_with(name)
                && l.contains(&format!(" {mark} "))
                && l.ends_with(&format!("  {got}")),
            "{said}"
        );
    };
    row(1, "submissions/accepted/sum.py", "ok", "AC (100)");
    row(2, "submissions/partially_accepted/off.py", "ok", "AC (40)");
    // Filed as a wrong answer, it crashes on the large group: a partial
    // solution by the package's grading.
    row(
        3,
        "submissions/wrong_answer/crash_is_not_wrong.py",
        "WRONG",
        "AC (40)",
    );
    assert_eq!(code, Some(1), "{said}");
}

/// A scoring problem whose validator gives each case its points
/// (`score.txt`): a submission's score is their sum, as problemtools'
/// default grader adds them.
#[test]
fn a_scoring_validators_points_make_a_submissions_score() {
    let dir = tempfile::tempdir().unwrap();
    const NEAR_PY: &str = "a, b = map(int, input().split())\nprint(a + b + 1)\n";
    let sum = package(
        dir.path(),
        &[
            ("accepted/sum.py", SUM_PY),
            ("partially_accepted/near.py", NEAR_PY),
        ],
    );
    let score = "import sys\n\
        want = int(open(sys.argv[2]).read())\n\
        got = int(sys.stdin.read())\n\
        open(sys.argv[3] + 'score.txt', 'w').write('10' if got == want else '5')\n\
        sys.exit(42 if abs(got - want) <= 1 else 43)\n";
    for (path, text) in [
        ("problem.yaml", "type: scoring\nvalidation: custom score\n"),
        (
            "data/testdata.yaml",
            "on_reject: continue\nrange: 0 20\ngrader_flags: ignore_sample\n",
        ),
        // (Its own flags: it would take `ignore_sample` from above.)
        (
            "data/secret/testdata.yaml",
            "on_reject: continue\nrange: 0 20\ngrader_flags: ''\n",
        ),
        ("data/secret/3.in", "1 1\n"),
        ("data/secret/3.ans", "2\n"),
        ("output_validators/v/score.py", score),
    ] {
        std::fs::create_dir_all(sum.join(path).parent().unwrap()).unwrap();
        std::fs::write(sum.join(path), text).unwrap();
    }
    open_to_all(&sum);
    let card = dir.path().join("s.csv");
    let (code, said, _) = verify(&sum, &card);
    let lines: Vec<&str> = said.lines().collect();
    assert!(
        lines[1].starts_with("submissions/accepted/sum.py") && lines[1].ends_with("  AC (20)"),
        "{said}"
    );
    assert!(
        lines[2].starts_with("submissions/partially_accepted/near.py")
            && lines[2].ends_with("  AC (10)"),
        "{said}"
    );
    assert_eq!(code, Some(0), "{said}");
    let near: Vec<String> = read_scorecard(&card)
        .into_iter()
        .filter(|r| r["candidate"].ends_with("near.py") && r["suite"] != "build")
        .map(|r| r["score"].clone())
        .collect();
    assert_eq!(near, ["5.0"; 3], "each case's points in the scorecard");
}

/// Builds and rows are kept in the result store as a class's are: a
/// second verify builds nothing (each build's copy made again from the
/// store) and runs nothing.
#[test]
fn a_second_verify_takes_builds_and_rows_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(
        dir.path(),
        &[("accepted/sum.c", SUM_C), ("wrong_answer/off.py", OFF_PY)],
    );
    let stored = || {
        let out = harness()
            .env_remove("PUZZLEGRADE_NO_CACHE")
            .env_remove("PUZZLEGRADE_STORE")
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .arg("verify")
            .arg(&sum)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let line = said
            .lines()
            .find(|l| l.starts_with("result store"))
            .map(str::to_owned);
        line.unwrap_or(said).split(": ").nth(1).map(str::to_owned)
    };
    assert_eq!(
        stored().as_deref(),
        Some("0 cases reused, 6 run (2 of them builds)")
    );
    assert_eq!(
        stored().as_deref(),
        Some("6 cases reused (2 of them builds whose copies it made again), 0 run")
    );
}

/// As an ordinary user (bubblewrap's tier, kept per job slot), verify
/// builds the package's own validator and its submissions in their
/// sandboxes, hands the validator's `judgemessage.txt` back, and gets
/// every verdict its folders name.
#[test]
fn as_an_ordinary_user_verify_builds_and_judges_in_bubblewrap() {
    if !require_ordinary_bwrap() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sum = package(
        dir.path(),
        &[("accepted/sum.c", SUM_C), ("wrong_answer/off.py", OFF_PY)],
    );
    std::fs::write(sum.join("problem.yaml"), "validation: custom\n").unwrap();
    let v = sum.join("output_validators/v");
    std::fs::create_dir_all(&v).unwrap();
    std::fs::write(
        v.join("check.py"),
        "import sys\n\
         want = open(sys.argv[2]).read().split()\n\
         got = sys.stdin.read().split()\n\
         open(sys.argv[3] + 'judgemessage.txt', 'w').write('%s, not %s' % (got, want))\n\
         sys.exit(42 if got == want else 43)\n",
    )
    .unwrap();
    let card = dir.path().join("v.csv");
    let out = harness_as_an_ordinary_user(dir.path())
        .arg("verify")
        .arg(&sum)
        .arg("--scorecard")
        .arg(&card)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("+bwrap"), "bubblewrap's tier: {err}");
    assert_eq!(out.status.code(), Some(0), "{said}{err}");
    assert!(
        said.ends_with("2 as their folders say, 0 not, 0 not verified here (no compiler)\n"),
        "{said}"
    );
    let wrong: Vec<_> = read_scorecard(&card)
        .into_iter()
        .filter(|r| r["verdict"] == "wrong-answer")
        .map(|r| (r["case"].clone(), r["detail"].clone()))
        .collect();
    assert_eq!(
        wrong,
        [("secret/2".to_string(), "['43'], not ['42']".to_string())]
    );
}
