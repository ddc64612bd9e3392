//! Tests of the package's grading: groups as folders, problemtools'
//! default grader, a custom grader's groups.

use super::*;
use Judged::*;

fn put(dir: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        let at = dir.join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, t).unwrap();
    }
}

fn ok(t: f64) -> Option<Graded> {
    Some(Graded {
        verdict: Accepted,
        score: None,
        time: t,
    })
}

fn bad(v: Judged) -> Option<Graded> {
    Some(Graded {
        verdict: v,
        score: None,
        time: 0.1,
    })
}

/// problemtools' `oddecho`: a scoring problem of two subtasks, the
/// sample ignored, the first subtask its cases' least, the second
/// accepted if any is.
fn oddecho(dir: &Path) -> Group {
    put(
        dir,
        &[
            (
                "data/testdata.yaml",
                "on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n",
            ),
            (
                "data/sample/testdata.yaml",
                "on_reject: continue\nrange: 0 0\naccept_score: 0\ngrader_flags: first_error\n",
            ),
            ("data/sample/1.in", ""),
            ("data/sample/1.ans", ""),
            (
                "data/secret/testdata.yaml",
                "on_reject: continue\nrange: 0 100\ngrader_flags: first_error accept_if_any_accepted\n",
            ),
            (
                "data/secret/subtask1/testdata.yaml",
                "on_reject: break\naccept_score: 50\nrange: 0 50\ngrader_flags: min\n",
            ),
            ("data/secret/subtask1/1.in", ""),
            ("data/secret/subtask1/1.ans", ""),
            ("data/secret/subtask1/2.in", ""),
            ("data/secret/subtask1/2.ans", ""),
            ("data/secret/subtask2/01.in", ""),
            ("data/secret/subtask2/01.ans", ""),
            ("data/secret/subtask2/02.in", ""),
            ("data/secret/subtask2/02.ans", ""),
        ],
    );
    Group::open(dir).unwrap()
}

#[test]
fn groups_as_the_folders_with_their_configs_inherited() {
    let t = tempfile::tempdir().unwrap();
    let g = oddecho(t.path());
    assert_eq!(
        (g.path.as_str(), g.config.range, g.best_score()),
        ("", (0.0, 100.0), 100.0)
    );
    let Item::Group(secret) = &g.items[1] else {
        panic!()
    };
    let Item::Group(sub1) = &secret.items[0] else {
        panic!()
    };
    assert_eq!(sub1.path, "secret/subtask1");
    assert_eq!(
        sub1.items,
        [
            Item::Case("secret/subtask1/1".into()),
            Item::Case("secret/subtask1/2".into())
        ]
    );
    assert_eq!(
        (sub1.config.accept_score, sub1.config.on_reject_break),
        (50.0, true)
    );
    // subtask2 has no testdata.yaml: its parent's.
    let Item::Group(sub2) = &secret.items[1] else {
        panic!()
    };
    assert_eq!(sub2.config, secret.config);
    assert!(!sub2.config.on_reject_break);
}

#[test]
fn scores_and_verdicts_as_problemtools_default_grader_gives_them() {
    let t = tempfile::tempdir().unwrap();
    let g = oddecho(t.path());
    // Every case accepted: 50 + 2, the sample ignored.
    let all = g.grade(&|_| ok(0.2)).unwrap();
    assert_eq!((all.verdict, all.score), (Accepted, Some(52.0)));
    // The first subtask only (the second's cases wrong): its 50, and
    // the secret group accepted as one of its groups is.
    let part = g
        .grade(&|n| {
            if n.contains("subtask2") {
                bad(WrongAnswer)
            } else {
                ok(0.1)
            }
        })
        .unwrap();
    assert_eq!((part.verdict, part.score), (Accepted, Some(50.0)));
    // A rejected first case of subtask1 breaks it: its min is 0.
    let first = g
        .grade(&|n| match n {
            "secret/subtask1/1" => bad(TimeLimit),
            _ => ok(0.3),
        })
        .unwrap();
    assert_eq!((first.verdict, first.score), (Accepted, Some(2.0)));
    // Pass-fail defaults: the worst error, break at the first.
    let t2 = tempfile::tempdir().unwrap();
    put(
        t2.path(),
        &[
            ("data/secret/a.in", ""),
            ("data/secret/a.ans", ""),
            ("data/secret/b.in", ""),
            ("data/secret/b.ans", ""),
            ("data/sample/1.in", ""),
            ("data/sample/1.ans", ""),
        ],
    );
    let pf = Group::open(t2.path()).unwrap();
    let r = pf
        .grade(&|n| match n {
            "secret/a" => bad(WrongAnswer),
            "secret/b" => bad(RunTimeError),
            _ => ok(0.5),
        })
        .unwrap();
    assert_eq!((r.verdict, r.time), (WrongAnswer, 0.5));
    assert_eq!(pf.grade(&|_| ok(0.2)).unwrap().verdict, Accepted);
}

#[test]
fn what_a_rejection_cuts_off() {
    let t = tempfile::tempdir().unwrap();
    let g = oddecho(t.path());
    let none = |_: &str| false;
    assert!(!g.cut_off("secret/subtask1/2", &none));
    // subtask1 breaks: its second case is cut off by its first.
    let first = |n: &str| n == "secret/subtask1/1";
    assert!(g.cut_off("secret/subtask1/2", &first));
    // secret continues, and accepts if any is: subtask2 still counts.
    assert!(!g.cut_off("secret/subtask2/01", &first));
    // Pass-fail defaults: a rejected sample cuts off every secret case.
    let t2 = tempfile::tempdir().unwrap();
    put(
        t2.path(),
        &[
            ("data/secret/a.in", ""),
            ("data/secret/a.ans", ""),
            ("data/sample/1.in", ""),
            ("data/sample/1.ans", ""),
        ],
    );
    let pf = Group::open(t2.path()).unwrap();
    assert!(pf.cut_off("secret/a", &|n| n == "sample/1"));
    assert!(!pf.cut_off("sample/1", &|n| n == "secret/a"));
}

#[test]
fn a_bad_testdata_yaml_is_named() {
    let t = tempfile::tempdir().unwrap();
    put(
        t.path(),
        &[
            ("data/secret/testdata.yaml", "on_reject: sometimes\n"),
            ("data/secret/a.in", ""),
            ("data/secret/a.ans", ""),
        ],
    );
    let e = Group::open(t.path()).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: on_reject: \"sometimes\" is neither break nor continue",
            t.path().join("data/secret/testdata.yaml").display()
        )
    );
}

/// A group asking for the package's own grader is graded by it (given
/// the children that count and its flags); the groups above by the
/// default grader, taking its score.
#[test]
fn a_custom_grader_grades_its_groups_alone() {
    let case = |n: &str| Item::Case(n.to_owned());
    let custom = Config {
        custom_grading: true,
        grader_flags: vec!["half".into()],
        ..Config::default()
    };
    let top = Group {
        path: String::new(),
        config: Config {
            on_reject_break: false,
            ..Config::default()
        },
        items: vec![
            Item::Group(Group {
                path: "secret/a".into(),
                config: custom,
                items: vec![case("secret/a/1"), case("secret/a/2"), case("secret/a/3")],
            }),
            case("secret/b"),
        ],
    };
    let result = |n: &str| {
        Some(Graded {
            verdict: if n == "secret/a/2" {
                Judged::WrongAnswer
            } else {
                Judged::Accepted
            },
            score: None,
            time: 0.5,
        })
    };
    let seen = std::cell::RefCell::new(Vec::new());
    let grader = |children: &[Graded], flags: &[String]| {
        seen.borrow_mut().push((
            children.iter().map(|c| c.verdict).collect::<Vec<_>>(),
            flags.to_vec(),
        ));
        (Judged::Accepted, Some(7.0))
    };
    let got = top.grade_by(&result, Some(&grader)).unwrap();
    // (on_reject: break in the custom group: its third case is not
    // counted after the wrong answer.)
    assert_eq!(
        *seen.borrow(),
        [(
            vec![Judged::Accepted, Judged::WrongAnswer],
            vec!["half".to_string()]
        )]
    );
    assert_eq!((got.verdict, got.score), (Judged::Accepted, Some(8.0)));
    // Without a grader to run, every group by default.
    assert_eq!(top.grade(&result).unwrap().verdict, Judged::WrongAnswer);
    assert_eq!(Judged::from_short("TLE"), Some(Judged::TimeLimit));
    assert_eq!(Judged::from_short("XX"), None);
}
