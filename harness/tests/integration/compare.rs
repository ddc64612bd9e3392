//! `harness compare` as a user runs it: two scorecards, the table, the
//! exit status and the JSON export.

use predicates::prelude::PredicateBooleanExt;

use super::support::harness;

const HEADER: &str = "candidate,family,suite,case,verdict,detail,exit_code,signal,wall_ms,cpu_ms,max_rss_kb,moves,best_moves,isolation\n";

fn card(dir: &std::path::Path, name: &str, rows: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut text = HEADER.to_string();
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn regressions_exit_1_and_identical_scorecards_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let base = card(
        dir.path(),
        "base.csv",
        &[
            "alice,lightsout,lightsout/easy,a.txt,accepted,,0,,100,90,1000,3,3,none",
            "alice,lightsout,lightsout/easy,b.txt,accepted,,0,,100,90,1000,3,3,none",
            "bob,lightsout,lightsout/easy,a.txt,wrong-answer,lights on,0,,100,90,1000,2,3,none",
        ],
    );
    let new = card(
        dir.path(),
        "new.csv",
        &[
            "alice,lightsout,lightsout/easy,a.txt,accepted,,0,,400,390,1000,3,3,none",
            "alice,lightsout,lightsout/easy,b.txt,time-limit,still running,,SIGKILL,80000,80000,1000,,,none",
            "bob,lightsout,lightsout/easy,a.txt,accepted,,0,,100,90,1000,3,3,none",
        ],
    );
    let json = dir.path().join("changes.json");
    harness()
        .arg("compare")
        .arg(&base)
        .arg(&new)
        .arg("--export")
        .arg(format!("json:{}", json.display()))
        .assert()
        .code(1)
        .stdout(
            "  newly-failing  alice  lightsout/easy/b.txt: accepted 90.0 ms 3 moves -> time-limit 80000.0 ms\n\
            \x20        slower  alice  lightsout/easy/a.txt: accepted 90.0 ms 3 moves -> accepted 390.0 ms 3 moves\n\
            \x20 newly-passing  bob  lightsout/easy/a.txt: wrong-answer 90.0 ms 2 moves -> accepted 90.0 ms 3 moves\n\
            3 cases in both; 1 newly-failing, 1 newly-passing, 1 slower; REGRESSED\n",
        );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["regressed"], true);
    assert_eq!(v["changes"][0]["kind"], "newly-failing");
    assert_eq!(v["changes"][0]["new"]["verdict"], "time-limit");
    // The same scorecard twice: nothing changed, exit 0. A 4x slowdown under
    // --min-delta is no change either.
    harness()
        .arg("compare")
        .arg(&base)
        .arg(&base)
        .assert()
        .code(0)
        .stdout("3 cases in both; no change; nothing regressed\n");
    harness()
        .args(["compare", "--min-delta", "1s"])
        .arg(&base)
        .arg(&new)
        .assert()
        .code(1)
        .stdout(predicates::str::contains("slower").not());
    // The same program on a busy machine: its wall time doubled, its CPU
    // time the same. CPU time is compared by default: nothing regressed;
    // wall time on request says slower.
    let busy = card(
        dir.path(),
        "busy.csv",
        &[
            "alice,lightsout,lightsout/easy,a.txt,accepted,,0,,200,91,1000,3,3,none",
            "alice,lightsout,lightsout/easy,b.txt,accepted,,0,,210,89,1000,3,3,none",
            "bob,lightsout,lightsout/easy,a.txt,wrong-answer,lights on,0,,190,90,1000,2,3,none",
        ],
    );
    harness()
        .arg("compare")
        .arg(&base)
        .arg(&busy)
        .assert()
        .code(0)
        .stdout("3 cases in both; no change; nothing regressed\n");
    harness()
        .args(["compare", "--metric", "wall"])
        .arg(&base)
        .arg(&busy)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "slower  alice  lightsout/easy/a.txt: accepted 100.0 ms 3 moves -> accepted 200.0 ms",
        ));
    // Rows without CPU time (no isolation): their wall times, never one of
    // each.
    let plain = |name: &str, ms: &str| {
        card(
            dir.path(),
            name,
            &[&format!(
                "alice,lightsout,lightsout/easy,a.txt,accepted,,0,,{ms},,1000,3,3,none"
            )],
        )
    };
    harness()
        .arg("compare")
        .arg(plain("p1.csv", "100"))
        .arg(plain("p2.csv", "400"))
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "accepted 100.0 ms 3 moves -> accepted 400.0 ms 3 moves",
        ));
    harness()
        .arg("compare")
        .arg(&base)
        .arg(dir.path().join("nope.csv"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nope.csv"));
}

/// A leaderboard with its sidecar: entry `e`, one case `toy/a` whose
/// counted runs took `runs` seconds (the median is the leaderboard's).
fn board(dir: &std::path::Path, name: &str, runs: &[f64]) -> std::path::PathBuf {
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let path = dir.join(format!("{name}.csv"));
    std::fs::write(
        &path,
        format!("rank,entry,solved,par2_s,noisy_cases,toy/a\n1,e,1,{median},0,{median}\n"),
    )
    .unwrap();
    let side = serde_json::json!({"entries": [{"entry": "e", "cases": [{
        "case": "toy/a", "solved": true, "runs_s": runs,
        "median_s": median, "mad_s": dev[dev.len() / 2],
    }]}]});
    std::fs::write(path.with_extension("json"), side.to_string()).unwrap();
    path
}

/// Two contests of one program on a noisy machine: its medians differ by
/// 30% (beyond the 20% threshold) but its runs spread by 20 ms (MAD) on
/// each side, so the 30 ms is noise: exit 0, and the table says how many
/// changes the noise explained. With runs spread by 1 ms the same medians
/// are `slower`; `--noise 0` goes by the thresholds alone.
#[test]
fn a_contest_time_change_within_its_runs_noise_is_not_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let compare = |base: &std::path::Path, new: &std::path::Path, extra: &[&str]| {
        let mut cmd = harness();
        cmd.args(["compare", "--min-delta", "10ms"])
            .args(extra)
            .arg(base)
            .arg(new);
        cmd.assert()
    };
    let noisy_base = board(dir.path(), "nb", &[0.08, 0.10, 0.12]);
    let noisy_new = board(dir.path(), "nn", &[0.11, 0.13, 0.15]);
    compare(&noisy_base, &noisy_new, &[]).code(0).stdout(
        "1 cases with their runs' spread: 1 time change within its noise, not counted\n\
         1 cases in both; no change; nothing regressed\n",
    );
    compare(&noisy_base, &noisy_new, &["--noise", "0"])
        .code(1)
        .stdout(predicates::str::contains(
            "slower  e  toy/a: accepted 100.0 ms (MAD 20.0) -> accepted 130.0 ms (MAD 20.0)",
        ));
    let steady_base = board(dir.path(), "sb", &[0.099, 0.10, 0.101]);
    let steady_new = board(dir.path(), "sn", &[0.129, 0.13, 0.131]);
    compare(&steady_base, &steady_new, &[])
        .code(1)
        .stdout(predicates::str::contains("0 time changes within its noise"));
    // A broken sidecar is named, exit 2.
    std::fs::write(steady_new.with_extension("json"), "{").unwrap();
    compare(&steady_base, &steady_new, &[])
        .code(2)
        .stderr(predicates::str::contains(
            "sn.json: not the leaderboard's JSON",
        ));
}

/// Two class summaries (`summary.csv`): each submission's total, moved,
/// new or gone, exit 1 where one lost points; a summary against a
/// scorecard is one clear line, exit 2.
#[test]
fn two_class_summaries_compare_by_total() {
    let dir = tempfile::tempdir().unwrap();
    let head = "submission,Q1,total,max,built,accepted,cases,counts,graded\n";
    let before = dir.path().join("before.csv");
    let after = dir.path().join("after.csv");
    std::fs::write(
        &before,
        format!("{head}ann,3,37,40,yes,7,8,,yes\nbo,1,25,40,yes,5,8,,yes\n"),
    )
    .unwrap();
    std::fs::write(
        &after,
        format!("{head}ann,4,40,40,yes,8,8,,yes\nbo,1,25,40,yes,5,8,,yes\n"),
    )
    .unwrap();
    harness()
        .arg("compare")
        .arg(&before)
        .arg(&after)
        .assert()
        .code(0)
        .stdout(
            "submission      before       after  change\n\
             ann                 37          40  +3\n\
             1 moved (1 up, 0 down), 0 new, 0 gone, 1 unchanged\n",
        );
    harness()
        .arg("compare")
        .arg(&after)
        .arg(&before)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "ann                 40          37  -3\n",
        ));
    let rows = dir.path().join("rows.csv");
    std::fs::write(&rows, "candidate,suite,case,verdict,time_ms\n").unwrap();
    harness()
        .arg("compare")
        .arg(&before)
        .arg(&rows)
        .assert()
        .code(2)
        .stderr(format!(
            "harness: {} is a class summary and {} a scorecard: compare two of a kind\n",
            before.display(),
            rows.display()
        ));
}
