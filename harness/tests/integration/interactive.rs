//! An interactive problem (`type: interactive`, the legacy `validation:
//! custom interactive`), written here with no line of Rust for it: the
//! candidate and the package's validator talk, each one's stdout the
//! other's stdin, and the verdicts are problemtools' (a wrong answer the
//! validator gave first stands whatever the candidate does next; a
//! candidate that crashed or hung first gets its own). The validator
//! runs under the candidates' isolation beside the candidate, which can
//! neither read the secret the validator was given nor stop it.

use std::path::{Path, PathBuf};

use crate::support::{
    container, harness, harness_as_an_ordinary_user, open_to_all, read_scorecard, require,
    require_ordinary_bwrap,
};

/// The validator: the secret number in the case's `.in`, ten guesses,
/// `higher`, `lower` or `correct` to each.
const VALIDATOR: &str = r#"import sys
secret = int(open(sys.argv[1]).read())
def wrong(why):
    open(sys.argv[3] + 'judgemessage.txt', 'w').write(why)
    sys.exit(43)
for n in range(1, 11):
    line = sys.stdin.readline()
    try:
        guess = int(line)
    except ValueError:
        wrong('guess %d: not a number: %r' % (n, line))
    if not 1 <= guess <= 1000:
        wrong('guess %d out of range: %d' % (n, guess))
    if guess == secret:
        print('correct', flush=True)
        sys.exit(42)
    print('higher' if guess < secret else 'lower', flush=True)
wrong('no correct guess in 10')
"#;

const SEARCH_C: &str = "#include <stdio.h>\n#include <string.h>\n\
int main(void) { int lo = 1, hi = 1000; char said[32];\n\
  for (;;) { int m = (lo + hi) / 2; printf(\"%d\\n\", m); fflush(stdout);\n\
    if (scanf(\"%31s\", said) != 1) return 1;\n\
    if (!strcmp(said, \"correct\")) return 0;\n\
    if (!strcmp(said, \"lower\")) hi = m - 1; else lo = m + 1; } }\n";

const SEARCH_PY: &str = r#"lo, hi = 1, 1000
while True:
    m = (lo + hi) // 2
    print(m, flush=True)
    said = input()
    if said == 'correct':
        break
    lo, hi = (lo, m - 1) if said == 'lower' else (m + 1, hi)
"#;

/// Guesses once, then ends well: the validator reads the end, a wrong
/// answer.
const ONCE_PY: &str = "print(500, flush=True)\n";

/// Out of range (the validator's wrong answer comes first), then reads
/// its end of file and crashes: still a wrong answer.
const CRASH_AFTER_PY: &str = "print(-1, flush=True)\ninput()\n";

/// Ends at once with status 3: the candidate first, a run-time error.
const QUITS_C: &str = "int main(void) { return 3; }\n";

/// Never flushes: each waits for the other, a time limit.
const NO_FLUSH_C: &str = "#include <stdio.h>\n\
int main(void) { char said[32]; printf(\"500\\n\"); scanf(\"%31s\", said); return 0; }\n";

/// Looks for the validator among the processes it can see, and for its
/// files, to read the secret (and answer it) or to kill it; finding
/// neither, it guesses 0 (out of range): a wrong answer, as filed.
const PEEK_PY: &str = r#"import os, signal
secret = None
for pid in os.listdir('/proc'):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    try:
        args = open('/proc/%s/cmdline' % pid, 'rb').read().split(b'\0')
    except OSError:
        continue
    if not any(a.endswith(b'.in') for a in args):
        continue
    for a in args:
        if a.endswith(b'.in'):
            for at in ['/proc/%s/cwd/%s' % (pid, a.decode()), a.decode()]:
                try:
                    secret = int(open(at).read())
                except (OSError, ValueError):
                    pass
    try:
        os.kill(int(pid), signal.SIGKILL)
    except OSError:
        pass
print(secret if secret is not None else 0, flush=True)
"#;

/// The package `guess` in `dir`: three secret numbers, the validator, and
/// a submission of each kind, readable by every job slot's user.
fn package(dir: &Path, yaml: &str) -> PathBuf {
    let p = dir.join("guess");
    for (path, text) in [
        ("problem.yaml", yaml),
        ("data/sample/1.interaction", ">500\n<correct\n"),
        ("data/secret/1.in", "500\n"),
        ("data/secret/1.ans", "the validator keeps the number\n"),
        ("data/secret/2.in", "1\n"),
        ("data/secret/2.ans", "\n"),
        ("data/secret/3.in", "777\n"),
        ("data/secret/3.ans", "\n"),
        ("output_validator/validate.py", VALIDATOR),
        ("submissions/accepted/search.c", SEARCH_C),
        ("submissions/accepted/search.py", SEARCH_PY),
        ("submissions/wrong_answer/once.py", ONCE_PY),
        ("submissions/wrong_answer/crash_after.py", CRASH_AFTER_PY),
        ("submissions/wrong_answer/peek.py", PEEK_PY),
        ("submissions/run_time_error/quits.c", QUITS_C),
        ("submissions/time_limit_exceeded/no_flush.c", NO_FLUSH_C),
    ] {
        let at = p.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    open_to_all(dir);
    p
}

/// A folder of the machine's own (not under /tmp, which every case sees a
/// private copy of: a case peeking there would find nothing either way).
fn ordinary_folder() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("puzzlegrade-interactive-")
        .tempdir_in("/home")
        .unwrap();
    open_to_all(dir.path());
    dir
}

/// Each submission's line of verify's table, from `said`: its name, what
/// its folder says, whether it matched, its verdict.
fn lines(said: &str) -> Vec<String> {
    said.lines()
        .filter(|l| l.starts_with("submissions/"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            format!(
                "{} {} {} {}",
                words[0],
                words[1],
                words[2],
                words[words.len() - 1]
            )
        })
        .collect()
}

const TABLE: [&str; 7] = [
    "submissions/accepted/search.c AC ok AC",
    "submissions/accepted/search.py AC ok AC",
    "submissions/wrong_answer/crash_after.py WA ok WA",
    "submissions/wrong_answer/once.py WA ok WA",
    "submissions/wrong_answer/peek.py WA ok WA",
    "submissions/run_time_error/quits.c RTE ok RTE",
    "submissions/time_limit_exceeded/no_flush.c TLE ok TLE",
];

/// Asserts that verify's run `out` was in the tier whose word is `tier`
/// (its isolation line says it), exited 0, and found every submission
/// as [`TABLE`] says.
fn as_filed(out: &std::process::Output, tier: &str) {
    let said = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(tier), "the tier {tier}: {err}");
    assert_eq!(out.status.code(), Some(0), "{said}{err}");
    let mut got = lines(&said);
    got.sort();
    let mut want = TABLE.map(String::from).to_vec();
    want.sort();
    assert_eq!(got, want, "{said}");
}

#[test]
fn an_interactive_problems_submissions_talk_with_its_validator() {
    let dir = ordinary_folder();
    let guess = package(
        dir.path(),
        "problem_format_version: 2023-07-draft\ntype: interactive\n",
    );
    let card = dir.path().join("v.csv");
    let out = harness()
        .args(["verify", "--no-cache", "--jobs", "2", "--scorecard"])
        .arg(&card)
        .arg(&guess)
        .output()
        .unwrap();
    as_filed(&out, "+uid");
    // The validator's words are the wrong answers' details; the
    // candidate's crash after them is not what it is judged by.
    let detail = |sub: &str| {
        read_scorecard(&card)
            .into_iter()
            .find(|r| r["candidate"].ends_with(sub) && r["verdict"] != "accepted")
            .map(|r| (r["verdict"].clone(), r["detail"].clone()))
            .unwrap()
    };
    assert_eq!(
        detail("crash_after.py"),
        ("wrong-answer".into(), "guess 1 out of range: -1".into())
    );
    assert_eq!(
        detail("peek.py"),
        ("wrong-answer".into(), "guess 1 out of range: 0".into())
    );
    assert_eq!(detail("quits.c").0, "runtime-error");
    // The package's answers, the secrets, are as they were.
    assert_eq!(
        std::fs::read_to_string(guess.join("data/secret/3.in")).unwrap(),
        "777\n"
    );
}

#[test]
fn grade_runs_a_candidate_on_an_interactive_package() {
    let dir = ordinary_folder();
    // The legacy format's words for it.
    let guess = package(dir.path(), "validation: custom interactive\n");
    std::fs::rename(
        guess.join("output_validator"),
        guess.join("output_validators"),
    )
    .unwrap();
    let py = guess.join("submissions/accepted/search.py");
    let card = dir.path().join("g.csv");
    let out = harness()
        .args(["grade", "--no-cache", "--suite"])
        .arg(&guess)
        .arg("--candidate")
        .arg(format!("python3 {}", py.display()))
        .arg("--scorecard")
        .arg(&card)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let mut rows: Vec<_> = read_scorecard(&card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    rows.sort();
    let accepted = |c: &str| (c.to_string(), "accepted".to_string());
    assert_eq!(
        rows,
        [
            accepted("secret/1"),
            accepted("secret/2"),
            accepted("secret/3")
        ]
    );
    // One that hangs without flushing: a time limit on each case.
    let hang = guess.join("submissions/time_limit_exceeded/no_flush.c");
    let bin = dir.path().join("no_flush");
    let built = std::process::Command::new("gcc")
        .arg("-o")
        .arg(&bin)
        .arg(&hang)
        .status()
        .unwrap();
    assert!(built.success());
    let out = harness()
        .args(["grade", "--no-cache", "--time-limit", "1s", "--suite"])
        .arg(&guess)
        .arg("--candidate")
        .arg(&bin)
        .arg("--scorecard")
        .arg(dir.path().join("h.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdicts: Vec<_> = read_scorecard(&dir.path().join("h.csv"))
        .into_iter()
        .map(|r| r["verdict"].clone())
        .collect();
    assert_eq!(verdicts, ["time-limit"; 3]);
}

#[test]
fn as_an_ordinary_user_the_two_talk_in_bubblewrap() {
    if !require_ordinary_bwrap() {
        return;
    }
    let dir = ordinary_folder();
    let guess = package(
        dir.path(),
        "problem_format_version: 2023-07-draft\ntype: interactive\n",
    );
    let out = harness_as_an_ordinary_user(dir.path())
        .args(["verify", "--no-cache"])
        .arg(&guess)
        .output()
        .unwrap();
    as_filed(&out, "+bwrap");
}

/// In a container with its engine's default privileges (no view of its
/// own: Landlock's tier, a user per job slot as root), the candidate and
/// its validator still run side by side, each as its own user.
#[test]
fn in_a_container_the_two_talk_under_landlock() {
    if !require(
        rustix::process::geteuid().is_root(),
        "the container replica needs root (it drops to a container's privileges)",
    ) {
        return;
    }
    let dir = ordinary_folder();
    let guess = package(
        dir.path(),
        "problem_format_version: 2023-07-draft\ntype: interactive\n",
    );
    let out = std::process::Command::new(container())
        .arg(env!("CARGO_BIN_EXE_harness"))
        .args(["verify", "--no-cache", "--jobs", "2"])
        .arg(&guess)
        .output()
        .unwrap();
    as_filed(&out, "+landlock");
}
