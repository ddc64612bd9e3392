//! The scratch folders' tests (see `scratch`).
use super::*;

/// A finished case's folder leaves the candidates' reach before the
/// janitor removes it: the next case on the slot runs as the same user.
#[test]
fn a_retired_scratch_folder_is_out_of_reach_at_once() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let me = rustix::process::geteuid().as_raw();
    // Candidates running as the harness's user: moved out of reach.
    let (scratch, _) = run.scratch(0, None).unwrap();
    std::fs::write(scratch.path().join("answer"), "secret").unwrap();
    let old = scratch.path().to_owned();
    let retired = run.retire(scratch);
    assert!(!old.exists(), "the case's path is gone at once");
    assert_eq!(
        retired.path(),
        run.path().join(TRASH).join(old.file_name().unwrap())
    );
    let trash = std::fs::metadata(run.path().join(TRASH)).unwrap();
    assert_eq!(trash.permissions().mode() & 0o777, 0o700);
    assert_eq!(trash.uid(), me, "the harness's own folder");
    assert!(retired.path().join("answer").exists());
    let path = retired.path().to_owned();
    drop(retired);
    assert!(!path.exists(), "and removed when dropped");
    // A slot's user's (as root): given back to the harness, closed.
    if me == 0 {
        let slot_user = (4_000_001, 4_000_001);
        let (scratch, _) = run.scratch(1, Some(slot_user)).unwrap();
        let meta = std::fs::metadata(scratch.path()).unwrap();
        assert_eq!((meta.uid(), meta.gid()), slot_user);
        let retired = run.retire(scratch);
        let meta = std::fs::metadata(retired.path()).unwrap();
        assert_eq!(meta.uid(), 0, "the harness's again");
        assert_eq!(meta.permissions().mode() & 0o777, 0o700, "closed");
    }
}

#[test]
fn copies_keep_names_and_refuse_odd_files() {
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let (mut scratch, _) = run.scratch(0, None).unwrap();
    let src = tempfile::tempdir().unwrap();
    let (a, b) = (src.path().join("x/t"), src.path().join("y/t"));
    std::fs::create_dir_all(a.parent().unwrap()).unwrap();
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    std::fs::write(&a, "A").unwrap();
    std::fs::write(&b, "B").unwrap();
    let copies = scratch.copy_in(&[a.clone(), b.clone()], None, 10).unwrap();
    assert_eq!(copies[0], scratch.path().join("t"));
    assert_eq!(copies[1], scratch.path().join("1-t"));
    assert_eq!(std::fs::read(&copies[1]).unwrap(), b"B");
    // The bytes the harness loaded win over the file as it is now.
    let loaded = vec![b"a".to_vec(), b"b".to_vec()];
    let (mut fresh, _) = run.scratch(0, None).unwrap();
    let copies = fresh.copy_in(&[a.clone(), b], Some(&loaded), 10).unwrap();
    assert_eq!(std::fs::read(&copies[0]).unwrap(), b"a");
    // Never over what is there.
    let again = fresh.copy_in(&[a], Some(&loaded), 10).unwrap_err();
    assert!(again.to_string().contains("File exists"), "{again}");
    let err = scratch
        .copy_in(&[PathBuf::from("/dev/zero")], None, 10)
        .unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
    let path = scratch.path().to_owned();
    drop(scratch);
    assert!(!path.exists(), "a scratch folder goes with its case");
}

/// Folders are made ahead for a slot that has had a case, then taken
/// without a folder made on the case's path; each is new. Only where
/// the case runs as a user of its own (root's tiers): elsewhere see
/// the next test.
#[test]
fn scratch_folders_are_made_ahead_for_a_slots_next_cases() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: skipping: not root (folders are made ahead only for a slot's user)");
        return;
    }
    let user = Some((4_000_003, 4_000_003));
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let (first, low) = run.scratch(1, user).unwrap();
    assert!(low, "nothing was made ahead");
    run.make_ahead();
    let ahead = std::fs::read_dir(run.slot_dir(1)).unwrap().count();
    assert_eq!(ahead, 1 + RunDir::AHEAD);
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    for e in std::fs::read_dir(run.slot_dir(1)).unwrap().flatten() {
        let m = e.metadata().unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o700, "closed until given");
        if e.path() != first.path() {
            assert_eq!(m.uid(), 0, "the harness's");
        }
    }
    let (next, low) = run.scratch(1, user).unwrap();
    assert!(!low);
    assert_ne!(next.path(), first.path());
    assert_eq!(std::fs::read_dir(next.path()).unwrap().count(), 0);
    assert_eq!(
        std::fs::read_dir(run.slot_dir(1)).unwrap().count(),
        1 + RunDir::AHEAD,
        "taken, not made"
    );
    let (other, _) = run.scratch(2, user).unwrap();
    assert!(
        other.path().starts_with(run.slot_dir(2)),
        "another slot's own"
    );
}

/// Where the case runs as the harness's own user, nothing is made
/// ahead: each folder is made as its case starts, under a name no
/// earlier case could guess, and a copy never goes through a link an
/// earlier case left.
#[test]
fn a_case_of_the_harness_user_gets_a_folder_made_as_it_starts() {
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let (mut first, low) = run.scratch(1, None).unwrap();
    assert!(!low, "nothing to make ahead");
    run.make_ahead();
    assert_eq!(
        std::fs::read_dir(run.slot_dir(1)).unwrap().count(),
        1,
        "nothing made ahead"
    );
    let (second, _) = run.scratch(1, None).unwrap();
    let name = |s: &Scratch| s.path().file_name().unwrap().to_string_lossy().into_owned();
    assert_ne!(name(&first), name(&second));
    assert!(name(&first).len() >= "case-".len() + 12, "{}", name(&first));
    // A link planted under a puzzle's name: the copy is refused, the
    // file it leads to untouched.
    let victim = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(victim.path(), "the TA's").unwrap();
    std::os::unix::fs::symlink(victim.path(), first.path().join("b.txt")).unwrap();
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("b.txt"), "3x2\n").unwrap();
    let err = first
        .copy_in(&[src.path().join("b.txt")], None, 100)
        .unwrap_err();
    assert!(err.to_string().contains("File exists"), "{err}");
    assert_eq!(std::fs::read_to_string(victim.path()).unwrap(), "the TA's");
}

/// As root, a case run as its slot's user gets each puzzle file as a
/// hard link to the slot's read-only copy: written once, the same
/// file for the slot's next case, which the slot's user can read but
/// not write; other bytes under the same path are a new copy; another
/// slot has its own.
#[test]
fn a_slots_cases_share_one_read_only_copy_of_a_puzzle() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: skipping: not root (the copies are links only for a slot's user)");
        return;
    }
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let src = tempfile::tempdir().unwrap();
    let puzzle = src.path().join("p.txt");
    std::fs::write(&puzzle, "on disk").unwrap();
    let user = (4_000_002, 4_000_002);
    let copy = |slot: usize, bytes: &[u8]| {
        let (mut s, _) = run.scratch(slot, Some(user)).unwrap();
        let c = run
            .copy_in(
                &mut s,
                slot,
                std::slice::from_ref(&puzzle),
                Some(&[bytes.to_vec()]),
                10,
            )
            .unwrap();
        let meta = std::fs::metadata(&c[0]).unwrap();
        assert_eq!(c[0], s.path().join("p.txt"), "named as the puzzle");
        assert_eq!(std::fs::read(&c[0]).unwrap(), bytes);
        (s, c[0].clone(), meta)
    };
    let (_first, path, a) = copy(0, b"loaded");
    let (_second, _, b) = copy(0, b"loaded");
    assert_eq!(a.ino(), b.ino(), "one file, linked twice");
    assert_eq!(
        (a.uid(), a.mode() & 0o7777),
        (0, 0o444),
        "the harness's, read-only"
    );
    let wrote = std::process::Command::new("sh")
        .args(["-c", &format!("echo x > {}", path.display())])
        .uid(user.0)
        .gid(user.1)
        .status()
        .unwrap();
    assert!(!wrote.success(), "the slot's user cannot write it");
    let (_third, _, c) = copy(0, b"changed");
    assert_ne!(c.ino(), a.ino(), "other bytes, another copy");
    let (_other, _, d) = copy(1, b"loaded");
    assert_ne!(d.ino(), a.ino(), "another slot's own");
    // Without a user of its own, a case gets a copy of its own.
    let (mut s, _) = run.scratch(2, None).unwrap();
    let c = run
        .copy_in(
            &mut s,
            2,
            std::slice::from_ref(&puzzle),
            Some(&[b"x".to_vec()]),
            10,
        )
        .unwrap();
    let meta = std::fs::metadata(&c[0]).unwrap();
    assert_eq!(meta.nlink(), 1);
    assert_ne!(meta.permissions().mode() & 0o200, 0, "its own, writable");
}

/// A slot's finished folder, retired, is emptied and kept for the slot's
/// next case: whatever its case left (files, folders, a link out, the
/// folder opened to all) is gone and the folder closed before it is
/// given again; a folder another user still owns, or one moved out of
/// the slot's folder, is removed, never kept.
#[test]
fn a_retired_folder_is_emptied_and_kept_for_the_slots_next_case() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: skipping: not root (folders are kept only for a slot's user)");
        return;
    }
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let user = (4_000_004, 4_000_004);
    let run = RunDir::new(&std::env::temp_dir()).unwrap();
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("p.txt"), "3x3\n").unwrap();
    let (mut first, _) = run.scratch(1, Some(user)).unwrap();
    run.copy_in(&mut first, 1, &[src.path().join("p.txt")], None, 100)
        .unwrap();
    // What the case leaves: a file, a folder with a file, a link out,
    // and its folder opened to everyone.
    let at = first.path().to_owned();
    std::fs::write(at.join("left.txt"), "mine").unwrap();
    std::fs::create_dir_all(at.join("deep/er")).unwrap();
    std::fs::write(at.join("deep/er/x"), "x").unwrap();
    std::os::unix::fs::symlink(src.path(), at.join("out")).unwrap();
    std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o777)).unwrap();
    let kept_before = run.ready.lock().unwrap().len();
    run.recycle(run.retire(first));
    assert_eq!(run.ready.lock().unwrap().len(), kept_before + 1, "kept");
    assert!(
        src.path().join("p.txt").exists(),
        "nothing followed the link"
    );
    // The next case on slot 1 is given folders kept or made ahead: each
    // empty, closed to all but its user.
    let mut seen = false;
    for _ in 0..=RunDir::AHEAD {
        let (next, _) = run.scratch(1, Some(user)).unwrap();
        assert_eq!(std::fs::read_dir(next.path()).unwrap().count(), 0);
        let meta = std::fs::metadata(next.path()).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, 0o700);
        assert_eq!((meta.uid(), meta.gid()), user);
        seen |= next.path() == at;
        if seen {
            break;
        }
    }
    assert!(seen, "the kept folder was given again");
    // Still the other user's (not given back): removed, not kept.
    let (other, _) = run.scratch(1, Some(user)).unwrap();
    let path = other.path().to_owned();
    let kept_before = run.ready.lock().unwrap().len();
    run.recycle(other);
    assert_eq!(run.ready.lock().unwrap().len(), kept_before);
    assert!(!path.exists());
}

/// A folder of a case run as the harness's own user is kept for its
/// slot's next case only where the run keeps them (its sandbox ends every
/// process of a case with it): emptied, closed, brought back from the
/// retired into the slot's folder; elsewhere each case gets a new one.
#[test]
fn a_harness_users_folder_is_kept_only_where_the_run_keeps_them() {
    for keep in [false, true] {
        let run = RunDir::new(&std::env::temp_dir())
            .unwrap()
            .keeping_own(keep);
        let src = tempfile::tempdir().unwrap();
        std::fs::write(src.path().join("p.txt"), "3x3\n").unwrap();
        let (mut first, _) = run.scratch(0, None).unwrap();
        run.copy_in(&mut first, 0, &[src.path().join("p.txt")], None, 100)
            .unwrap();
        let name = first.path().file_name().unwrap().to_owned();
        std::fs::create_dir_all(first.path().join("deep/er")).unwrap();
        run.recycle(run.retire(first));
        let (next, _) = run.scratch(0, None).unwrap();
        assert_eq!(
            next.path().file_name() == Some(name.as_os_str()),
            keep,
            "kept: {keep}"
        );
        assert_eq!(next.path().parent(), Some(run.slot_dir(0).as_path()));
        assert_eq!(std::fs::read_dir(next.path()).unwrap().count(), 0);
        assert!(!run.trash().join(&name).exists(), "nothing left retired");
    }
}
