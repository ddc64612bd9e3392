//! A candidate that rewrites the live suite files changes nobody's
//! verdict: every case's copies are written from the bytes the harness
//! read when it loaded the puzzle, before any candidate ran.

use std::os::unix::fs::PermissionsExt;

use crate::support::{harness, read_scorecard};

#[test]
fn rewriting_the_suite_changes_no_later_case() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("lights/s");
    std::fs::create_dir_all(&suite).unwrap();
    // Two solvable boards, graded one after the other.
    std::fs::write(suite.join("a.txt"), "3x2\n#OO\n##O\n").unwrap();
    std::fs::write(suite.join("b.txt"), "2x2\n##\n##\n").unwrap();
    std::fs::write(suite.join("s.csv"), "board,expect\na.txt,\nb.txt,\n").unwrap();
    // Rewrites every board of the suite, then answers as the reference
    // does on the copy it was given.
    let rogue = dir.path().join("rogue");
    std::fs::write(
        &rogue,
        format!(
            "#!/bin/sh\nfor f in {}/*.txt; do printf 'garbage\\n' > \"$f\"; done\nexec {} solve --family lightsout \"$@\"\n",
            suite.display(),
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&rogue, std::fs::Permissions::from_mode(0o755)).unwrap();
    let card = dir.path().join("card.csv");
    // As the harness's own user (as a normal user always is): the suite is
    // within the candidate's reach.
    harness()
        .args(["grade", "--run-as", "harness", "--jobs", "1", "--suite"])
        .arg(&suite)
        .arg("--candidate")
        .arg(&rogue)
        .arg("--scorecard")
        .arg(&card)
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(suite.join("b.txt")).unwrap(),
        "garbage\n",
        "the rogue did rewrite the suite"
    );
    let verdicts: Vec<(String, String)> = read_scorecard(&card)
        .into_iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("a.txt".to_string(), "accepted".to_string()),
            ("b.txt".to_string(), "accepted".to_string())
        ]
    );
}
