//! A Kattis/ICPC problem package, written here with no line of Rust for
//! it, is a suite: its cases read in the format's order, each `.in` on the
//! candidate's stdin, the output judged by the default validator with the
//! package's flags, its answers out of every candidate's reach; a package
//! asking for what is not graded yet is one line, exit 2.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::{harness, open_to_all, read_scorecard};

/// A package `sum` in `dir`: each case two numbers, the answer their sum
/// (a tolerance of 1e-6), a sample and a secret group; readable by every
/// candidate's user.
fn package(dir: &Path, yaml: &str) -> PathBuf {
    let p = dir.join("sum");
    for (path, text) in [
        ("problem.yaml", yaml),
        ("data/sample/1.in", "1 2\n"),
        ("data/sample/1.ans", "3\n"),
        ("data/secret/big/10.in", "0.5 0.25\n"),
        ("data/secret/big/10.ans", "0.75\n"),
        ("data/secret/big/2.in", "1e9 1\n"),
        ("data/secret/big/2.ans", "1000000001\n"),
        ("data/secret/zero.in", "0 0\n"),
        ("data/secret/zero.ans", "0\n"),
    ] {
        let at = p.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    open_to_all(dir);
    p
}

/// A course on the package `sum` (a tolerance of 1e-6), in a folder of
/// its own: its config (`extra` lines, then its part and a rubric item
/// for each `(name, rule, points, cases)`) and the folder.
fn sum_course(extra: &str, items: &[(&str, &str, u32, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    package(
        dir.path(),
        "name: Sum\nvalidator_flags: float_tolerance 1e-6\n",
    );
    let mut text = format!(
        "name = \"sum course\"\nfamily = \"package\"\n{extra}\
         [[part]]\nname = \"sum\"\ncommand = \"{{submission}}/sum.sh\"\nsuites = [\"sum\"]\n"
    );
    for (name, rule, points, cases) in items {
        text.push_str(&format!(
            "[[rubric]]\nname = \"{name}\"\nrule = \"{rule}\"\npoints = {points}\npart = \"sum\"\ncases = \"{cases}\"\n"
        ));
    }
    let config = dir.path().join("course.toml");
    std::fs::write(&config, text).unwrap();
    (dir, config)
}

/// `harness grade --no-cache` of `candidate` on package `pkg`, `extra`
/// arguments before the suite, its scorecard `card`.
fn grade_on(pkg: &Path, candidate: &Path, card: &Path, extra: &[&str]) -> std::process::Output {
    harness()
        .args(["grade", "--no-cache"])
        .args(extra)
        .arg("--suite")
        .arg(pkg)
        .arg("--candidate")
        .arg(candidate)
        .arg("--scorecard")
        .arg(card)
        .output()
        .unwrap()
}

/// An executable script `name` in `dir` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `(case, verdict, detail)` of each row of `card`, by case (rows come
/// as cases end).
fn rows(card: &Path) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = read_scorecard(card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone(), r["detail"].clone()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn a_package_is_a_suite_judged_by_its_default_validator() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(
        dir.path(),
        "name: Sum\nvalidation: default\nvalidator_flags: float_tolerance 1e-6\n",
    );
    let grade = |candidate: &Path, name: &str| {
        let card = dir.path().join(format!("{name}.csv"));
        let out = grade_on(&sum, candidate, &card, &[]);
        (out.status.code(), rows(&card))
    };
    // Reads its case on stdin, given no argument: the sum, printed as
    // awk prints it (1e+09 + 1 as 1000000001; 0.75).
    let honest = script(
        dir.path(),
        "honest",
        "[ $# -eq 0 ] || { echo \"given $*\" >&2; exit 9; }\nawk '{ printf \"%.10g\\n\", $1 + $2 }'",
    );
    let accepted = |case: &str| (case.to_string(), "accepted".to_string(), String::new());
    let order = ["sample/1", "secret/big/10", "secret/big/2", "secret/zero"];
    assert_eq!(
        grade(&honest, "honest"),
        (Some(0), order.map(accepted).to_vec())
    );
    // Within the tolerance, and a word for a number.
    let near = script(
        dir.path(),
        "near",
        "awk '{ s = $1 + $2; if (s == 0) print \"zero\"; else printf \"%.10g\\n\", s + 1e-7 }'",
    );
    let (code, got) = grade(&near, "near");
    assert_eq!(code, Some(1));
    assert_eq!(
        got.last().unwrap(),
        &(
            "secret/zero".into(),
            "wrong-answer".into(),
            "line 1: \"zero\" where a number was expected".into()
        )
    );
    assert!(got[..3].iter().all(|r| r.1 == "accepted"), "{got:?}");
    // A crash is a run-time error; a peek at the answers finds nothing
    // (the package's folder is out of every case's sight).
    let crash = script(dir.path(), "crash", "exit 4");
    let (_, got) = grade(&crash, "crash");
    assert!(
        got.iter().all(
            |r| r.1 == "runtime-error" && r.2 == "exit status 4 (a run that ends well exits 0)"
        ),
        "{got:?}"
    );
    let peek = script(
        dir.path(),
        "peek",
        &format!(
            "cat {}/data/secret/zero.ans 2>/dev/null || echo nothing",
            sum.display()
        ),
    );
    let (_, got) = grade(&peek, "peek");
    let zero = got.iter().find(|r| r.0 == "secret/zero").unwrap();
    assert_eq!(
        zero.1, "wrong-answer",
        "the answer was out of reach: {zero:?}"
    );
}

#[test]
fn a_package_asking_for_what_is_not_graded_yet_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(
        dir.path(),
        "problem_format_version: 2023-07-draft\ntype: multi-pass\n",
    );
    std::fs::create_dir_all(sum.join("output_validators/v")).unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {}: type: multi-pass is not graded yet (docs/packages.md)\n",
            sum.join("problem.yaml").display()
        ));
    // Its own validator asked for, in a language not built here.
    std::fs::write(sum.join("problem.yaml"), "validation: custom\n").unwrap();
    std::fs::write(
        sum.join("output_validators/v/check.xyz"),
        "main = pure ()\n",
    )
    .unwrap();
    let out = harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with(&format!(
            "harness: {}: in no language problemtools knows (by the names of its files)",
            sum.join("output_validators/v").display()
        )) && said.lines().count() == 1,
        "{said}"
    );
    std::fs::write(
        sum.join("problem.yaml"),
        "validator_flags: float_tolerance x\n",
    )
    .unwrap();
    std::fs::remove_file(sum.join("data/secret/zero.ans")).unwrap();
    let out = harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "harness: {}: validator_flags: float_tolerance x: not a tolerance\n",
            sum.join("problem.yaml").display()
        )
    );
}

/// A package's own time limit (`.timelimit`, as problemtools and Kattis
/// write it) is its cases', judged in CPU time as the run's would be.
#[test]
fn a_packages_own_time_limit_is_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(dir.path(), "validation: default\n");
    std::fs::write(sum.join(".timelimit"), "1\n").unwrap();
    let spin = script(dir.path(), "spin", "while :; do :; done");
    let card = dir.path().join("spin.csv");
    assert_eq!(
        grade_on(&sum, &spin, &card, &["--filter", "zero"])
            .status
            .code(),
        Some(1)
    );
    let got = rows(&card);
    assert_eq!(got.len(), 1);
    // (CPU time where the run measures it, as root here; else the wall
    // clock's.)
    assert_eq!(got[0].1, "time-limit", "{got:?}");
    assert!(got[0].2.ends_with("over 1s"), "{got:?}");
}

/// A validator in C: the sum checked as a number, the difference said in
/// `judgemessage.txt`; with the flag `fussy` it fails (exit 3) on a sum
/// of nothing, a judge's error.
const CHECK_C: &str = r#"#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    double a, b, want, got;
    char path[4096];
    FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r"), *msg;
    if (argc < 4 || !in || !ans || fscanf(in, "%lf %lf", &a, &b) != 2
        || fscanf(ans, "%lf", &want) != 1)
        return 1;
    snprintf(path, sizeof path, "%sjudgemessage.txt", argv[3]);
    if (!(msg = fopen(path, "w")))
        return 2;
    if (argc > 4 && strcmp(argv[4], "fussy") == 0 && a == 0 && b == 0)
        return 3;
    if (scanf("%lf", &got) != 1) {
        fprintf(msg, "no number\n");
        return 43;
    }
    if (got != want) {
        fprintf(msg, "%g + %g is %g, not %g\n", a, b, want, got);
        return 43;
    }
    return 42;
}
"#;

/// A package's own output validator (problemtools' protocol) judges its
/// outputs: built once (C here, Python in the draft's folder, run by the
/// machine's CPython where PyPy is not), run under the candidates'
/// isolation with the case's input and answer, its flags, the output on
/// stdin: 42 accepted, 43 wrong answer with its `judgemessage.txt`, any
/// other exit a judge error (never the candidate's); one that does not
/// build stops the run before the scorecard is touched.
#[test]
fn a_packages_own_output_validator_judges_its_outputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(dir.path(), "validation: custom\nvalidator_flags: fussy\n");
    let check = sum.join("output_validators/check");
    std::fs::create_dir_all(&check).unwrap();
    std::fs::write(check.join("check.c"), CHECK_C).unwrap();
    open_to_all(&sum);
    let grade = |candidate: &Path, name: &str| {
        let card = dir.path().join(format!("{name}.csv"));
        let out = grade_on(&sum, candidate, &card, &[]);
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let got = if card.exists() {
            rows(&card)
        } else {
            Vec::new()
        };
        (out.status.code(), got, said)
    };
    let honest = script(
        dir.path(),
        "honest",
        "awk '{ printf \"%.10g\\n\", $1 + $2 }'",
    );
    let (code, got, said) = grade(&honest, "honest");
    let accepted = |case: &str| (case.to_string(), "accepted".to_string(), String::new());
    assert_eq!(
        got,
        [
            accepted("sample/1"),
            accepted("secret/big/10"),
            accepted("secret/big/2"),
            (
                "secret/zero".into(),
                "harness-error".into(),
                "the package's output validator failed: exit 3 (42 or 43 expected)".into()
            ),
        ],
        "{said}"
    );
    assert_eq!(code, Some(1), "{said}");
    // Its judgement and its message; a crash never reaches it.
    let off = script(dir.path(), "off", "awk '{ print $1 + $2 + 1 }'");
    let (_, got, _) = grade(&off, "off");
    assert_eq!(
        got[0],
        (
            "sample/1".into(),
            "wrong-answer".into(),
            "1 + 2 is 3, not 4".into()
        )
    );
    let crash = script(dir.path(), "crash", "exit 4");
    let (_, got, _) = grade(&crash, "crash");
    assert!(got.iter().all(|r| r.1 == "runtime-error"), "{got:?}");
    // Without isolation, from the package's folder by a relative path:
    // the validator has a folder of its own, and its files their paths.
    let card = dir.path().join("none.csv");
    harness()
        .current_dir(dir.path())
        .args([
            "grade",
            "--no-cache",
            "--isolation",
            "none",
            "--suite",
            "sum",
        ])
        .arg("--candidate")
        .arg(&off)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(1);
    assert_eq!(rows(&card)[0].2, "1 + 2 is 3, not 4");
    let left: Vec<_> = walkdir::WalkDir::new(&sum)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "judgemessage.txt")
        .collect();
    assert!(left.is_empty(), "nothing written in the package: {left:?}");

    // The draft's folder, a Python validator: its flags as given.
    let py = dir.path().join("py");
    std::fs::create_dir_all(&py).unwrap();
    std::fs::write(
        py.join("problem.yaml"),
        "problem_format_version: 2023-07-draft\n",
    )
    .unwrap();
    std::fs::create_dir_all(py.join("data/secret")).unwrap();
    std::fs::write(py.join("data/secret/a.in"), "2 2\n").unwrap();
    // (A group's own flags come after the package's.)
    std::fs::write(
        py.join("data/secret/testdata.yaml"),
        "output_validator_flags: strict\n",
    )
    .unwrap();
    std::fs::write(py.join("data/secret/a.ans"), "4\n").unwrap();
    std::fs::create_dir_all(py.join("output_validator/v")).unwrap();
    std::fs::write(
        py.join("output_validator/v/validate.py"),
        "import sys\n\
         want = open(sys.argv[2]).read().split()\n\
         got = sys.stdin.read().split()\n\
         open(sys.argv[3] + 'judgemessage.txt', 'w').write('got %s, flags %s' % (got, sys.argv[4:]))\n\
         sys.exit(42 if got == want else 43)\n",
    )
    .unwrap();
    open_to_all(&py);
    let card = dir.path().join("py.csv");
    assert_eq!(grade_on(&py, &off, &card, &[]).status.code(), Some(1));
    assert_eq!(
        rows(&card),
        [(
            "secret/a".into(),
            "wrong-answer".into(),
            "got ['5'], flags ['strict']".into()
        )]
    );

    // Kept in the result store with the validator it was judged by: a
    // changed validator judges again.
    // (One scorecard, written over: the candidate's folder holds it, and
    // another file there would be another candidate.)
    let stored = || {
        let name = "stored.csv";
        let out = harness()
            .env_remove("PUZZLEGRADE_NO_CACHE")
            .env_remove("PUZZLEGRADE_STORE")
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .args(["grade", "--force", "--suite"])
            .arg(&sum)
            .arg("--candidate")
            .arg(&off)
            .arg("--scorecard")
            .arg(dir.path().join(name))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let line = said
            .lines()
            .find(|l| l.starts_with("result store"))
            .map(str::to_owned);
        (
            line.unwrap_or(said).split(": ").nth(1).map(str::to_owned),
            rows(&dir.path().join(name)),
        )
    };
    assert_eq!(stored().0.as_deref(), Some("0 cases reused, 4 run"));
    assert_eq!(
        stored().0.as_deref(),
        Some("3 cases reused, 1 run"),
        "not the judge's error"
    );
    std::fs::write(
        check.join("check.c"),
        CHECK_C.replace(" is %g, not", " makes %g, not"),
    )
    .unwrap();
    let (line, got) = stored();
    assert_eq!(line.as_deref(), Some("0 cases reused, 4 run"));
    assert_eq!(got[0].2, "1 + 2 makes 3, not 4");

    // One that does not build: one line naming it, exit 2, no scorecard.
    std::fs::write(check.join("check.c"), "int main( {\n").unwrap();
    let (code, got, said) = grade(&honest, "broken");
    assert_eq!(code, Some(2), "{said}");
    assert!(got.is_empty() && !dir.path().join("broken.csv").exists());
    assert!(
        said.starts_with(&format!(
            "harness: {}: the package's output validator did not build: build exit 1: ",
            check.display()
        )) && said.lines().count() == 1,
        "{said}"
    );
}

/// A package's memory and output limits (`limits.memory`, `limits.output`
/// in MiB) are its cases': a peak over the memory is `memory-limit`, more
/// output than its limit `output-limit`; within them, accepted.
#[test]
fn a_packages_own_memory_and_output_limits_are_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(
        dir.path(),
        "validation: default\nlimits:\n  memory: 64\n  output: 1\n",
    );
    let grade = |candidate: &Path, name: &str| {
        let card = dir.path().join(format!("{name}.csv"));
        grade_on(&sum, candidate, &card, &["--filter", "sample"]);
        rows(&card)
    };
    // 128 MiB touched, then the right answer.
    let big = script(
        dir.path(),
        "big",
        "python3 -c \"b = bytearray(128 << 20); b[::4096] = b'x' * (32 << 10); print(3)\"",
    );
    let got = grade(&big, "big");
    assert_eq!(got[0].1, "memory-limit", "{got:?}");
    assert!(
        got[0].2.ends_with("over the problem's limit of 64 MiB"),
        "{got:?}"
    );
    // 2 MiB of output, then within both.
    let loud = script(dir.path(), "loud", "head -c 2097152 /dev/zero | tr '\\0' x");
    let got = grade(&loud, "loud");
    assert_eq!(got[0].1, "output-limit", "{got:?}");
    assert!(got[0].2.starts_with("stdout over 1048576 bytes"), "{got:?}");
    let small = script(
        dir.path(),
        "small",
        "python3 -c \"b = bytearray(8 << 20); print(3)\"",
    );
    assert_eq!(grade(&small, "small")[0].1, "accepted");
}

/// A test group's `output_validator_flags` (`testdata.yaml`) judge its
/// cases after the package's own flags: here a tolerance for one group
/// alone; a bad one is named by its group, exit 2.
#[test]
fn a_test_groups_own_validator_flags_judge_its_cases() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sum = package(dir.path(), "validation: default\n");
    let flags = sum.join("data/secret/big/testdata.yaml");
    std::fs::write(
        &flags,
        "output_validator_flags: float_absolute_tolerance 0.5\n",
    )
    .unwrap();
    std::fs::set_permissions(&flags, std::fs::Permissions::from_mode(0o644)).unwrap();
    let near = script(
        dir.path(),
        "near",
        "awk '{ printf \"%.10g\\n\", $1 + $2 + 0.25 }'",
    );
    let card = dir.path().join("near.csv");
    assert_eq!(grade_on(&sum, &near, &card, &[]).status.code(), Some(1));
    let verdicts: Vec<(String, String)> = rows(&card).into_iter().map(|r| (r.0, r.1)).collect();
    let v = |c: &str, w: &str| (c.to_string(), w.to_string());
    assert_eq!(
        verdicts,
        [
            v("sample/1", "wrong-answer"),
            v("secret/big/10", "accepted"),
            v("secret/big/2", "accepted"),
            v("secret/zero", "wrong-answer"),
        ]
    );
    std::fs::write(&flags, "output_validator_flags: float_tolerance x\n").unwrap();
    harness()
        .args(["grade", "--suite"])
        .arg(&sum)
        .args(["--candidate", "true"])
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {}: output_validator_flags (its testdata.yaml, or a group's above): float_tolerance x: not a tolerance\n",
            sum.join("data/secret/big").display()
        ));
}

/// A course config grades a class on a package (`family = "package"`, a
/// part whose suite is the package): its cases judged by the package's
/// own validator and flags, rubric points per test group by a case glob.
#[test]
fn a_course_grades_a_class_on_a_package_with_points_per_group() {
    let (dir, config) = sum_course(
        "",
        &[
            ("sample", "all", 1, "*/sample/*"),
            ("big numbers", "all", 3, "*/secret/big/*"),
            ("secret", "share", 6, "*/secret/*"),
        ],
    );
    let class = dir.path().join("class");
    for (who, body) in [
        ("alice", "awk '{ printf \"%.10g\\n\", $1 + $2 }'"),
        // Right below 100 only: the big group's 1e9 + 1 is wrong.
        ("bob", "awk '{ s = $1 + $2; print (s < 100 ? s : 0) }'"),
    ] {
        std::fs::create_dir_all(class.join(who)).unwrap();
        script(&class.join(who), "sum.sh", body);
        for d in [&class, &class.join(who)] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let summary = dir.path().join("summary.csv");
    let card = dir.path().join("rows.csv");
    harness()
        .args(["grade", "--no-cache", "--course"])
        .arg(&config)
        .arg("--submissions")
        .arg(&class)
        .arg("--summary")
        .arg(&summary)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let totals: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[at("submission")].to_string(), r[at("total")].to_string())
        })
        .collect();
    // alice: 1 + 3 + 6; bob: the sample, no big group, 2 of 3 secret cases.
    assert_eq!(
        totals,
        [("alice".into(), "10".into()), ("bob".into(), "5".into())],
        "{text}"
    );
    let bob: Vec<_> = read_scorecard(&card)
        .into_iter()
        .filter(|r| r["candidate"] == "bob" && r["verdict"] != "accepted")
        .map(|r| (r["case"].clone(), r["detail"].clone()))
        .collect();
    assert_eq!(
        bob,
        [(
            "secret/big/2".to_string(),
            "line 1: 0 where 1000000001 was expected (off by 1.000000001e9)".to_string()
        )]
    );
}

/// A scoring validator (legacy `validation: custom score`): 10 points
/// for the sum, 5 for one off by one, written in `score.txt`.
const SCORE_PY: &str = r#"import sys
want = float(open(sys.argv[2]).read())
got = sys.stdin.read().split()
if not got:
    sys.exit(43)
off = abs(float(got[0]) - want)
if off > 1:
    open(sys.argv[3] + 'judgemessage.txt', 'w').write('off by %g' % off)
    sys.exit(43)
if want != 0:
    open(sys.argv[3] + 'score.txt', 'w').write('10' if off == 0 else '5')
sys.exit(42)
"#;

/// A scoring validator's `score.txt` is its accepted rows' `score`; a
/// validator that must give points and gives none, or gives them where the
/// problem has no scores, is a judge error.
#[test]
fn a_scoring_validators_points_are_its_rows_scores() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(dir.path(), "validation: custom score\n");
    let v = sum.join("output_validators/v");
    std::fs::create_dir_all(&v).unwrap();
    std::fs::write(v.join("score.py"), SCORE_PY).unwrap();
    open_to_all(dir.path());
    let exact = script(dir.path(), "exact", "awk '{ print $1 + $2 }'");
    let near = script(dir.path(), "near", "awk '{ print $1 + $2 + 1 }'");
    let scores = |candidate: &Path, name: &str| {
        let card = dir.path().join(format!("{name}.csv"));
        grade_on(&sum, candidate, &card, &[]);
        let mut got: Vec<_> = read_scorecard(&card)
            .into_iter()
            .map(|r| (r["case"].clone(), r["verdict"].clone(), r["score"].clone()))
            .collect();
        got.sort();
        got
    };
    let row = |case: &str, verdict: &str, score: &str| {
        (case.to_string(), verdict.to_string(), score.to_string())
    };
    // (`secret/zero`'s answer is 0: the validator writes no score there,
    // and this problem's validator must.)
    assert_eq!(
        scores(&exact, "exact"),
        [
            row("sample/1", "accepted", "10.0"),
            row("secret/big/10", "accepted", "10.0"),
            row("secret/big/2", "accepted", "10.0"),
            row("secret/zero", "harness-error", ""),
        ]
    );
    assert_eq!(scores(&near, "near")[0], row("sample/1", "accepted", "5.0"));
    let card = dir.path().join("exact.csv");
    let zero = read_scorecard(&card)
        .into_iter()
        .find(|r| r["case"] == "secret/zero")
        .unwrap();
    assert_eq!(
        zero["detail"],
        "the package's output validator failed: it wrote no score.txt, and the problem's scores are its"
    );
    // A validator of a problem that gives no points writing them.
    std::fs::write(sum.join("problem.yaml"), "validation: custom\n").unwrap();
    let got = scores(&exact, "plain");
    assert_eq!(got[0], row("sample/1", "harness-error", ""));
    assert_eq!(got[3], row("secret/zero", "accepted", ""));
}

/// A contest whose suites are all problem packages is ranked as the ICPC
/// ranks: problems solved (every case of one), then the penalty (the
/// solved problems' times), each problem a column of the leaderboard.
#[test]
fn a_contest_on_packages_is_ranked_by_problems() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(dir.path(), "name: Sum\n");
    let again = dir.path().join("again");
    std::fs::create_dir_all(again.join("data/secret")).unwrap();
    std::fs::copy(sum.join("problem.yaml"), again.join("problem.yaml")).unwrap();
    std::fs::write(again.join("data/secret/1.in"), "5 6\n").unwrap();
    std::fs::write(again.join("data/secret/1.ans"), "11\n").unwrap();
    open_to_all(dir.path());
    let entries = dir.path().join("entries");
    for (name, body) in [
        ("good", "awk '{ printf \"%.10g\\n\", $1 + $2 }'"),
        (
            "slow",
            "awk 'BEGIN { for (i = 0; i < 2000000; i++) x += i } { printf \"%.10g\\n\", $1 + $2 }'",
        ),
        // Right on one case of `sum` (zero), on none of `again`.
        ("zero", "echo 0"),
    ] {
        std::fs::create_dir_all(entries.join(name)).unwrap();
        script(&entries.join(name), "run", body);
    }
    let board = dir.path().join("board.csv");
    let out = harness()
        .args([
            "contest",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--time-limit",
            "10s",
        ])
        .arg("--entries")
        .arg(&entries)
        .arg("--suite")
        .arg(&sum)
        .arg("--suite")
        .arg(&again)
        .arg("--leaderboard")
        .arg(&board)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.starts_with("rank  entry  solved   penalty (s)  noisy\n"),
        "{said}"
    );
    let text = std::fs::read_to_string(&board).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        lines[0],
        [
            "rank",
            "entry",
            "solved",
            "penalty_s",
            "noisy_cases",
            "sum",
            "again"
        ]
    );
    let firsts: Vec<(&str, &str, &str)> = lines[1..].iter().map(|l| (l[0], l[1], l[2])).collect();
    assert_eq!(
        firsts,
        [("1", "good", "2"), ("2", "slow", "2"), ("3", "zero", "0")]
    );
    assert_eq!(&lines[3][5..], ["unsolved", "unsolved"]);
    let side: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("board.json")).unwrap())
            .unwrap();
    assert_eq!(side["settings"]["ranking"], "icpc");
    assert_eq!(side["entries"][0]["problems_solved"], 2);
}

/// `grade --suite` on a scoring package says the points its cases come to
/// by the package's own test groups (40 of 100: one group of two).
#[test]
fn a_scoring_packages_points_in_grades_output() {
    let dir = tempfile::tempdir().unwrap();
    let sum = package(dir.path(), "type: scoring\n");
    for (path, text) in [
        ("data/testdata.yaml", "on_reject: continue\nrange: 0 100\n"),
        (
            "data/secret/testdata.yaml",
            "on_reject: continue\nrange: 0 100\n",
        ),
        (
            "data/secret/big/testdata.yaml",
            "accept_score: 60\nrange: 0 60\ngrader_flags: min\n",
        ),
        (
            "data/secret/small/testdata.yaml",
            "accept_score: 40\nrange: 0 40\ngrader_flags: min\n",
        ),
        ("data/secret/small/1.in", "1 2\n"),
        ("data/secret/small/1.ans", "3\n"),
    ] {
        std::fs::create_dir_all(sum.join(path).parent().unwrap()).unwrap();
        std::fs::write(sum.join(path), text).unwrap();
    }
    for gone in ["data/sample", "data/secret/zero.in", "data/secret/zero.ans"] {
        let at = sum.join(gone);
        if at.is_dir() {
            std::fs::remove_dir_all(at).unwrap();
        } else {
            std::fs::remove_file(at).unwrap();
        }
    }
    open_to_all(dir.path());
    // Right on the small numbers, one off on the big ones.
    let candidate = script(
        dir.path(),
        "near",
        "awk '{ s = $1 + $2; printf \"%.10g\\n\", (s > 10 ? s + 1 : s) }'",
    );
    let out = grade_on(&sum, &candidate, &dir.path().join("g.csv"), &[]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.ends_with(&format!(
            "{}: 40 points of 100 (the package's test groups)\n",
            sum.display()
        )),
        "{said}"
    );
}

/// A course on a package packs into a Gradescope kit that grades its
/// sample, through the kit, with a container's privileges (`harness
/// package` tries it so before anyone gets it): full marks.
#[test]
fn a_package_courses_gradescope_kit_grades_its_sample() {
    let (dir, config) = sum_course(
        "sample = \"sample\"\n",
        &[
            ("sample", "all", 4, "*/sample/*"),
            ("secret", "share", 6, "*/secret/*"),
        ],
    );
    std::fs::create_dir_all(dir.path().join("sample")).unwrap();
    script(
        &dir.path().join("sample"),
        "sum.sh",
        "awk '{ printf \"%.10g\\n\", $1 + $2 }'",
    );
    let kit = dir.path().join("kit");
    let out = harness()
        .args(["package", "gradescope", "--course"])
        .arg(&config)
        .arg("-o")
        .arg(&kit)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}{err}");
    assert!(
        said.contains(&format!(
            "tried: the course's sample {} got 10 / 10 points through the kit in ",
            dir.path().join("sample").display()
        )),
        "{said}"
    );
    assert!(said.contains("with a container's capabilities"), "{said}");
}
