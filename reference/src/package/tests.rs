//! The package reader's tests: `problem.yaml` in both formats, and the
//! test cases' order.

use super::*;

#[test]
fn a_legacy_problem_yaml() {
    let p = Problem::parse(
        "name: Hello World!\n\
         source: Kattis\n\
         limits:\n  time_multiplier: 3\n  memory: 1024\n\
         validation: default\n\
         validator_flags: float_tolerance 1e-6 case_sensitive\n",
    )
    .unwrap();
    assert_eq!(p.name.as_deref(), Some("Hello World!"));
    assert!(!p.draft);
    assert_eq!(
        p.validation,
        Validation::Default(DefaultValidator {
            case_sensitive: true,
            space_change_sensitive: false,
            absolute: Some(1e-6),
            relative: Some(1e-6),
        })
    );
    assert_eq!(
        (p.time_limit, p.time_multiplier, p.time_safety_margin),
        (None, 3.0, 2.0)
    );
    assert_eq!((p.memory_mib, p.output_mib), (1024, 8));
    let custom = Problem::parse("validation: custom interactive\nvalidator_flags: -x 3\n").unwrap();
    assert_eq!(
        custom.validation,
        Validation::Custom {
            interactive: true,
            score: false,
            flags: "-x 3".into()
        }
    );
    let empty = Problem::parse("").unwrap();
    assert_eq!(
        empty.validation,
        Validation::Default(DefaultValidator::default())
    );
    assert_eq!((empty.time_multiplier, empty.memory_mib), (5.0, 2048));
}

#[test]
fn a_2023_07_draft_problem_yaml() {
    let p = Problem::parse(
        "problem_format_version: 2023-07-draft\n\
         type: [scoring, interactive]\n\
         name:\n  en: Guess\n  sv: Gissa\n\
         limits:\n  time_limit: 2.5\n  time_multipliers:\n    ac_to_time_limit: 3\n",
    )
    .unwrap();
    assert!(p.draft);
    assert_eq!(p.name.as_deref(), Some("Guess"));
    assert_eq!(
        (p.time_limit, p.time_multiplier, p.time_safety_margin),
        (Some(2.5), 3.0, 1.5)
    );
    assert!(matches!(
        p.validation,
        Validation::Custom {
            interactive: true,
            score: true,
            ..
        }
    ));
    // A multi-pass problem (its validator run again on its own
    // feedback) is not graded yet: said, never taken for interactive.
    let multi = Problem::parse("problem_format_version: 2023-07-draft\ntype: multi-pass\n");
    assert_eq!(
        multi.unwrap_err(),
        "type: multi-pass is not graded yet (docs/packages.md)"
    );
}

#[test]
fn a_bad_problem_yaml_says_what_and_where() {
    assert_eq!(
        Problem::parse("validation: maybe\n"),
        Err("validation: \"maybe\" is neither default nor custom".into())
    );
    assert_eq!(
        Problem::parse("limits:\n  memory: lots\n"),
        Err("limits.memory: String(\"lots\") is not a number".into())
    );
    assert_eq!(
        Problem::parse("validator_flags: float_tolerance\n"),
        Err("validator_flags: float_tolerance wants a number after it".into())
    );
    let unparsable = Problem::parse("name: [unclosed\n").unwrap_err();
    assert!(unparsable.starts_with("line "), "{unparsable}");
    assert_eq!(
        Problem::parse("- a\n- b\n"),
        Err("not a mapping of fields".into())
    );
}

/// A package written here: `problem.yaml` and `files` (path, text).
fn package(yaml: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("problem.yaml"), yaml).unwrap();
    for (path, text) in files {
        let at = t.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    t
}

#[test]
fn test_cases_in_the_formats_order() {
    let t = package(
        "",
        &[
            ("data/secret/b.in", "2"),
            ("data/secret/b.ans", "2"),
            ("data/secret/a/2.in", "x"),
            ("data/secret/a/2.ans", "x"),
            ("data/secret/a/10.in", "x"),
            ("data/secret/a/10.ans", "x"),
            ("data/secret/a/10.hint", "think"),
            ("data/secret/0.in", "0"),
            ("data/secret/0.ans", "0"),
            ("data/secret/0.desc", "the smallest"),
            ("data/sample/1.in", "1"),
            ("data/sample/1.ans", "1"),
            ("data/sample/notes.txt", "not a case"),
        ],
    );
    let cases = test_cases(t.path()).unwrap();
    let order: Vec<String> = cases
        .iter()
        .map(|c| format!("{}/{}", c.group, c.name))
        .collect();
    assert_eq!(
        order,
        [
            "sample/1",
            "secret/0",
            "secret/a/10",
            "secret/a/2",
            "secret/b"
        ]
    );
    assert!(cases[1].desc.is_some() && cases[1].hint.is_none());
    assert!(cases[2].hint.is_some());
}

#[test]
fn a_package_with_a_missing_answer_or_no_case_is_named() {
    let t = package("", &[("data/secret/1.in", "1")]);
    let e = test_cases(t.path()).unwrap_err().to_string();
    assert!(
        e.ends_with("data/secret/1.in: no answer beside it (1.ans)"),
        "{e}"
    );
    let t = package("", &[]);
    let e = test_cases(t.path()).unwrap_err().to_string();
    assert!(
        e.ends_with("/data: no test case (a .in file under data/sample or data/secret)"),
        "{e}"
    );
}

#[test]
fn a_timelimit_file_and_a_draft_validator_folder() {
    let t = package("validation: default\n", &[(".timelimit", "3\n")]);
    assert_eq!(Problem::open(t.path()).unwrap().time_limit, Some(3.0));
    let t = package("", &[(".timelimit", "soon\n")]);
    let e = Problem::open(t.path()).unwrap_err().to_string();
    assert!(
        e.ends_with(".timelimit: \"soon\" is not a time limit in seconds"),
        "{e}"
    );
    let t = package(
        "problem_format_version: 2023-07-draft\n",
        &[("output_validator/validator.py", "")],
    );
    assert!(matches!(
        Problem::open(t.path()).unwrap().validation,
        Validation::Custom { .. }
    ));
    let missing = tempfile::tempdir().unwrap();
    let e = Problem::open(missing.path()).unwrap_err().to_string();
    assert!(e.contains("problem.yaml: "), "{e}");
}

/// problemtools' own example packages, where `PROBLEMTOOLS_EXAMPLES`
/// names their folder (`examples/` of github.com/Kattis/problemtools):
/// each one's `problem.yaml` and test cases read as the format says.
/// Skipped with a note where it is not set.
#[test]
fn problemtools_examples_read_as_the_format_says() {
    let Some(dir) = std::env::var_os("PROBLEMTOOLS_EXAMPLES").map(PathBuf::from) else {
        eprintln!(
            "note: skipping: PROBLEMTOOLS_EXAMPLES names no folder of problemtools' examples"
        );
        return;
    };
    let read = |name: &str| {
        let at = dir.join(name);
        let p = Problem::open(&at).unwrap();
        let cases = test_cases(&at).unwrap();
        (p, cases)
    };
    let (hello, cases) = read("hello");
    assert_eq!(hello.name.as_deref(), Some("Hello World!"));
    assert_eq!(
        hello.validation,
        Validation::Default(DefaultValidator::default())
    );
    assert_eq!((hello.memory_mib, cases.len()), (512, 1));
    let (different, _) = read("different");
    assert!(matches!(
        different.validation,
        Validation::Custom {
            interactive: false,
            ..
        }
    ));
    assert_eq!(different.time_safety_margin, 4.0);
    let (guess, cases) = read("guess");
    assert!(guess.draft);
    assert!(matches!(
        guess.validation,
        Validation::Custom {
            interactive: true,
            ..
        }
    ));
    assert_eq!(
        (guess.time_multiplier, guess.time_safety_margin),
        (2.0, 4.0)
    );
    assert_eq!(cases.len(), 10, "its samples are interactions, not cases");
    let (oddecho, cases) = read("oddecho");
    assert!(oddecho.draft && oddecho.scoring);
    assert_eq!(
        oddecho.validation,
        Validation::Default(DefaultValidator::default())
    );
    let mut groups: Vec<&str> = cases.iter().map(|c| c.group.as_str()).collect();
    groups.dedup();
    assert_eq!(groups, ["sample", "secret/subtask1", "secret/subtask2"]);
}

#[test]
fn the_output_validator_is_the_first_program_of_its_folder() {
    let t = tempfile::tempdir().unwrap();
    let put = |p: &str| {
        let at = t.path().join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, "x").unwrap();
    };
    assert_eq!(output_validator(t.path()).unwrap(), None);
    put("legacy/output_validators/b_second.py");
    put("legacy/output_validators/a_first/validate.cc");
    put("legacy/output_validators/a_first/validate.h");
    let v = output_validator(&t.path().join("legacy")).unwrap().unwrap();
    assert_eq!(v.language.id, "cpp");
    assert!(v.path.ends_with("output_validators/a_first"));
    put("draft/output_validator/guess_validator/validate.py");
    let v = output_validator(&t.path().join("draft")).unwrap().unwrap();
    assert_eq!(
        (v.language.id, v.main.to_str()),
        ("python3", Some("validate.py"))
    );
    put("odd/output_validators/check.xyz");
    let e = output_validator(&t.path().join("odd"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("output_validators/check.xyz: in no language problemtools knows"),
        "{e}"
    );
}
