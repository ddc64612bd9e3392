//! `spawn`'s tests.

use super::*;

#[test]
fn a_failure_is_said_in_words() {
    let plan = Plan::new(&Launch {
        argv: vec!["/no/such/solver".into()],
        cwd: "/".into(),
        ..Launch::default()
    })
    .unwrap();
    let said = |step: Step, errno: i32| {
        let mut b = (step as u32).to_le_bytes().to_vec();
        b.extend(errno.to_le_bytes());
        plan.failure(&b).unwrap()
    };
    assert_eq!(plan.failure(b""), None, "nothing said: it started");
    assert_eq!(
        said(Step::Exec, libc::ENOENT),
        "cannot start /no/such/solver: No such file or directory (os error 2)"
    );
    assert_eq!(
        said(Step::Join, libc::EROFS),
        "cannot join the case's cgroup: Read-only file system (os error 30)"
    );
    assert!(
        Plan::new(&Launch {
            argv: vec!["a\0b".into()],
            ..Launch::default()
        })
        .is_err()
    );
}
