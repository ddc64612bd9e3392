//! The store's own tests: what is kept, what is served, where a store may
//! be, and many users of one store at once.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::*;

fn row(verdict: Verdict, cpu_ms: f64) -> Row {
    let mut r = Row::new("alice", "toy", "toy/easy", "a.txt");
    r.verdict = verdict;
    r.cpu_ms = Some(cpu_ms);
    r.wall_ms = Some(cpu_ms + 1.0);
    r
}

fn key(text: &str) -> Key {
    Sha256::digest(text).into()
}

fn limits() -> Limits {
    Limits::new(std::time::Duration::from_secs(10), 1 << 30)
}

/// A folder of this test's own (not /tmp's sticky folder itself).
fn folder() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn db_of(dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(dir.join(place::DB)).unwrap()
}

#[test]
fn only_the_candidates_own_verdicts_far_from_a_limit_are_kept() {
    let mut limits = limits();
    limits.cpu = Some(std::time::Duration::from_secs(4));
    assert!(reusable(&row(Verdict::Accepted, 100.0), &limits));
    assert!(reusable(&row(Verdict::WrongAnswer, 1900.0), &limits));
    assert!(
        !reusable(&row(Verdict::Accepted, 2100.0), &limits),
        "past half the CPU limit"
    );
    for v in [
        Verdict::TimeLimit,
        Verdict::MemoryLimit,
        Verdict::HarnessError,
        Verdict::Cancelled,
    ] {
        assert!(!reusable(&row(v, 1.0), &limits), "{v:?}");
    }
}

#[test]
fn an_entry_the_harness_did_not_write_is_never_served() {
    let dir = folder();
    let at = dir.path().join("store");
    let store = Store::open(&at, 1 << 20).unwrap();
    let k = key("a case");
    store.keep(&k, &row(Verdict::WrongAnswer, 5.0), &limits());
    assert_eq!(store.get::<Row>(&k).unwrap().verdict, Verdict::WrongAnswer);
    // Its verdict rewritten in place, as a rogue with the database would.
    let conn = db_of(store.dir());
    let body: Vec<u8> = conn
        .query_row("SELECT body FROM entries", [], |r| r.get(0))
        .unwrap();
    let forged = String::from_utf8(body)
        .unwrap()
        .replace("wrong-answer", "accepted");
    conn.execute("UPDATE entries SET body = ?1", [forged.as_bytes()])
        .unwrap();
    assert!(store.get::<Row>(&k).is_none(), "its MAC no longer holds");
    let left: i64 = conn
        .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0, "the forged entry is removed");
    // A whole entry added without the key: not served either.
    conn.execute(
        "INSERT INTO entries VALUES (?1, ?2, ?3, 0)",
        rusqlite::params![&k[..], forged.as_bytes(), &[0u8; 32][..]],
    )
    .unwrap();
    assert!(store.get::<Row>(&k).is_none());
    // Renewed (after a run whose candidates could reach it): nothing kept
    // before is served, even an entry it wrote itself.
    store.keep(&k, &row(Verdict::Accepted, 5.0), &limits());
    Store::renew(store.dir()).unwrap();
    let again = Store::open(&at, 1 << 20).unwrap();
    assert!(again.get::<Row>(&k).is_none());
}

#[test]
fn over_its_limit_the_entries_read_longest_ago_go_and_nothing_else() {
    let dir = folder();
    let at = dir.path().join("store");
    let store = Store::open(&at, 1 << 30).unwrap();
    let keys: Vec<Key> = (0..4000).map(|i| key(&format!("case {i}"))).collect();
    for k in &keys {
        store.keep(k, &row(Verdict::Accepted, 5.0), &limits());
    }
    // The first half last read long ago.
    let conn = db_of(store.dir());
    for k in &keys[..2000] {
        conn.execute("UPDATE entries SET used = 1 WHERE key = ?1", [&k[..]])
            .unwrap();
    }
    drop(conn);
    let size = db::Db::size(&store.db.conn()).unwrap();
    drop(store);
    let store = Store::open(&at, size * 2 / 3).unwrap();
    let kept: Vec<bool> = keys.iter().map(|k| store.get::<Row>(k).is_some()).collect();
    assert!(kept[2000..].iter().all(|k| *k), "the ones read lately stay");
    let gone = kept[..2000].iter().filter(|k| !**k).count();
    assert!(gone > 500, "{gone} of the old ones went");
    let names: Vec<_> = std::fs::read_dir(store.dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("results.sqlite") || n == "secret")
    );
}

/// `Store::open(at)` refused, its message, and nothing below `dir`
/// changed.
fn refused(dir: &Path, at: &Path) -> String {
    let before = snapshot(dir);
    let err = Store::open(at, 1 << 20).unwrap_err();
    assert!(matches!(err, StoreError::Refused { .. }), "{err}");
    assert_eq!(snapshot(dir), before, "nothing changed or removed");
    err.to_string()
}

fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, u32, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .map(|e| {
            let m = e.path().symlink_metadata().unwrap();
            let bytes = if m.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (e.into_path(), m.mode(), bytes)
        })
        .collect()
}

#[test]
fn a_place_that_is_not_a_store_is_refused_and_nothing_is_touched() {
    let dir = folder();
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    for i in 0..30 {
        std::fs::write(notes.join(format!("week{i:02}.md")), "notes").unwrap();
    }
    let said = refused(dir.path(), &notes);
    assert!(
        said.contains("it is not a result store: it holds week00.md and 29 more"),
        "{said}"
    );
    // A link to it (another user's, or one's own): refused as a link.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    assert!(refused(dir.path(), &link).contains("symbolic link"));
    // A file.
    assert!(refused(dir.path(), &notes.join("week01.md")).contains("not a folder"));
    // A folder its group may write, and one on the way.
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o770)).unwrap();
    let said = refused(dir.path(), &open);
    assert!(
        said.contains("can be written by its group (mode 770)"),
        "{said}"
    );
    let said = refused(dir.path(), &open.join("store"));
    assert!(said.contains("can be written by its group"), "{said}");
    assert!(!open.join("store").exists());
    // The older form (a file per row in folders 00..ff).
    let old = dir.path().join("old");
    std::fs::create_dir_all(old.join("3f")).unwrap();
    std::fs::write(old.join("3f/abc.row"), "puzzlegrade-store 2\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o700)).unwrap();
    let said = refused(dir.path(), &old);
    assert!(said.contains("older form"), "{said}");
    // A database of another program's.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o700)).unwrap();
    let file = other.join(place::DB);
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(other.join(place::SECRET), [0u8; 32]).unwrap();
    std::fs::set_permissions(
        other.join(place::SECRET),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let said = refused(dir.path(), &other);
    assert!(said.contains("is not a puzzlegrade result store"), "{said}");
}

#[test]
fn a_store_of_another_user_or_format_is_refused() {
    let dir = folder();
    let at = dir.path().join("store");
    let store = Store::open(&at, 1 << 20).unwrap();
    store.keep(&key("x"), &row(Verdict::Accepted, 1.0), &limits());
    drop(store);
    // Written by a newer harness: refused, kept as it is.
    db_of(&at).pragma_update(None, "user_version", 4).unwrap();
    let said = refused(dir.path(), &at);
    assert!(
        said.contains("newer puzzlegrade (store format 4; this harness reads 3)"),
        "{said}"
    );
    db_of(&at).pragma_update(None, "user_version", 3).unwrap();
    // Its key readable by others.
    std::fs::set_permissions(at.join("secret"), std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(refused(dir.path(), &at).contains("secret is not a file"));
    std::fs::set_permissions(at.join("secret"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(Store::open(&at, 1 << 20).is_ok(), "as it was: it opens");
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: another user's store is tested as root only (chown)");
        return;
    }
    // Made first by another user (a shared place): refused.
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(61_000), Some(61_000)).unwrap();
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
    let said = refused(dir.path(), &theirs);
    assert!(said.contains("belongs to uid 61000"), "{said}");
    // A link of theirs on the way.
    let link = dir.path().join("via");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(61_000), Some(61_000)).unwrap();
    let said = refused(dir.path(), &link.join("store"));
    assert!(said.contains("goes through the link"), "{said}");
}

#[test]
fn many_runs_on_one_store_lose_nothing_and_serve_nothing_half_written() {
    let dir = folder();
    let at = dir.path().join("store");
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let at = at.clone();
            std::thread::spawn(move || {
                let store = Store::open(&at, 1 << 30).unwrap();
                for i in 0..300 {
                    let mut r = row(Verdict::Accepted, f64::from(i));
                    r.detail = format!("writer {w} row {i}");
                    store.keep(&key(&format!("{w}/{i}")), &r, &limits());
                }
            })
        })
        .collect();
    // A third that evicts everything it can while the others write.
    let evictor = {
        let at = at.clone();
        std::thread::spawn(move || {
            for _ in 0..20 {
                while Store::open(&at, 1).is_err() {}
            }
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    evictor.join().unwrap();
    let store = Store::open(&at, 1 << 30).unwrap();
    for w in 0..3 {
        for i in 0..300 {
            // Evicted or whole: never another's, never torn.
            if let Some(r) = store.get::<Row>(&key(&format!("{w}/{i}"))) {
                assert_eq!(r.detail, format!("writer {w} row {i}"));
            }
        }
    }
    // With no evictor, every row of two writers at once is there.
    let at = dir.path().join("second");
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let at = at.clone();
            std::thread::spawn(move || {
                let store = Store::open(&at, 1 << 30).unwrap();
                for i in 0..300 {
                    store.keep(
                        &key(&format!("{w}/{i}")),
                        &row(Verdict::Accepted, 1.0),
                        &limits(),
                    );
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = Store::open(&at, 1 << 30).unwrap();
    let n = (0..2)
        .flat_map(|w| (0..300).map(move |i| key(&format!("{w}/{i}"))))
        .filter(|k| store.get::<Row>(k).is_some())
        .count();
    assert_eq!(n, 600);
}

#[test]
fn a_build_is_kept_whole_by_content_and_made_again() {
    use std::os::unix::ffi::OsStrExt;
    let dir = folder();
    let store = Store::open(&dir.path().join("store"), 1 << 30).unwrap();
    let copy = |name: &str, extra: &[u8]| {
        let c = dir.path().join(name);
        std::fs::create_dir_all(c.join("lib")).unwrap();
        std::fs::write(c.join("lib/shared.h"), vec![7u8; 100_000]).unwrap();
        std::fs::write(c.join("solver"), extra).unwrap();
        std::fs::set_permissions(c.join("solver"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(c.join(odd), b"latin-1").unwrap();
        std::os::unix::fs::symlink("solver", c.join("run")).unwrap();
        c
    };
    let (a, b) = (copy("a", b"one"), copy("b", b"two"));
    let (ka, kb) = (key("build a"), key("build b"));
    assert!(tree::save(&mut store.db.conn(), &ka, &a).unwrap());
    assert!(tree::save(&mut store.db.conn(), &kb, &b).unwrap());
    let blobs: i64 = store
        .db
        .conn()
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 4, "the shared header once: {blobs}");
    let again = dir.path().join("again");
    assert!(tree::restore(&mut store.db.conn(), &ka, &again));
    assert_eq!(key::tree_digest(&again, &[]), key::tree_digest(&a, &[]));
    assert_ne!(key::tree_digest(&a, &[]), key::tree_digest(&b, &[]));
    // Two trees apart only in a name's bytes that are not UTF-8: two keys.
    let (x, y) = (dir.path().join("x"), dir.path().join("y"));
    std::fs::create_dir_all(&x).unwrap();
    std::fs::create_dir_all(&y).unwrap();
    std::fs::write(x.join(std::ffi::OsStr::from_bytes(b"\xe9")), "").unwrap();
    std::fs::write(y.join(std::ffi::OsStr::from_bytes(b"\xe8")), "").unwrap();
    assert_ne!(key::tree_digest(&x, &[]), key::tree_digest(&y, &[]));
    // A blob altered in the database: not made again.
    store
        .db
        .conn()
        .execute("UPDATE blobs SET bytes = x'00'", [])
        .unwrap();
    assert!(!tree::restore(
        &mut store.db.conn(),
        &ka,
        &dir.path().join("bad")
    ));
}

#[test]
fn a_build_stopped_by_its_limits_or_a_signal_is_not_kept() {
    let dir = folder();
    let store = Store::open(&dir.path().join("store"), 1 << 30).unwrap();
    let built = |detail: &str, exit: Option<i32>| {
        let mut r = row(Verdict::CompileError, 1.0);
        r.detail = detail.into();
        r.exit_code = exit;
        let k = key(detail);
        store.keep_build(&k, &r, dir.path(), Vec::new());
        store.get::<Built>(&k).is_some()
    };
    assert!(built("build exit 2: error: expected ';'", Some(2)));
    assert!(built("missing Solver.java", None));
    assert!(!built(
        "the build ran out of its limits (80s); no output",
        None
    ));
    assert!(!built("build killed by SIGKILL: no output", None));
}

#[test]
fn runs_that_make_one_store_at_once_all_open_it() {
    let dir = folder();
    for round in 0..20 {
        let at = dir.path().join(format!("store-{round}"));
        let opened: Vec<_> = (0..6)
            .map(|_| {
                let at = at.clone();
                std::thread::spawn(move || Store::open(&at, 1 << 20).map(|_| ()))
            })
            .collect();
        for o in opened {
            let result = o.join().unwrap();
            assert!(result.is_ok(), "round {round}: {}", result.unwrap_err());
        }
    }
}
