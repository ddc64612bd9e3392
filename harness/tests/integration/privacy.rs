//! What a case writes where every user may write (/tmp, /var/tmp,
//! /dev/shm, /run/lock, System V shared memory) is its own: no other case
//! running beside it sees it, and none of it outlives the case; any other
//! world-writable folder is read-only to it. Root's tier (each job slot's
//! view, kept by its keeper and emptied between cases) and bubblewrap's
//! alike.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{
    Fixture, harness_as_an_ordinary_user, read_scorecard, require, require_ordinary_bwrap,
};

/// The places every user may write.
const PLACES: [&str; 4] = harness::executor::SHARED;

/// The markers left in `PLACES`.
fn markers() -> Vec<String> {
    PLACES
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path().display().to_string())
        .filter(|p| p.contains("pg-mark-"))
        .collect()
}

/// System V shared memory segments on the machine.
fn segments() -> usize {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// A suite of `n` small solvable boards (`b0.txt`, `b1.txt`, ...).
fn boards(n: usize) -> Fixture {
    let names: Vec<String> = (0..n).map(|i| format!("b{i}.txt")).collect();
    let rows: Vec<(&str, Option<&str>)> = names
        .iter()
        .map(|n| (n.as_str(), Some("3x2\n#OO\n##O\n")))
        .collect();
    Fixture::with_rows(&rows)
}

/// [`boards`] where this is root; elsewhere `None`, skipped with a note
/// saying `why` the test needs root (or failed where CI requires
/// isolation).
fn boards_as_root(n: usize, why: &str) -> Option<Fixture> {
    require(rustix::process::geteuid().is_root(), why).then(|| boards(n))
}

/// `text` as the executable script `name` in `f`'s folder.
fn script(f: &Fixture, name: &str, text: impl AsRef<[u8]>) -> std::path::PathBuf {
    let path = f.dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `f`'s scorecard holds `cases` rows, each accepted with no detail.
fn assert_all_accepted(f: &Fixture, cases: usize, what: &str) {
    let verdicts: Vec<(String, String)> = read_scorecard(&f.scorecard())
        .into_iter()
        .map(|r| (r["verdict"].clone(), r["detail"].clone()))
        .collect();
    assert_eq!(
        verdicts,
        vec![("accepted".to_string(), String::new()); cases],
        "{what}"
    );
}

#[test]
fn what_a_case_leaves_dies_with_it() {
    let cases = 6;
    let Some(f) = boards_as_root(
        cases,
        "not root (an ordinary user's view is bubblewrap's, see the gallery)",
    ) else {
        return;
    };
    // Marks every shared place and its TMPDIR, waits while the other job
    // slot's case does the same, fails (exit 3) if it sees another case's
    // mark, leaves a shared memory segment, then answers right.
    // A world-writable folder none of the view's places covers and no
    // command line names (as a /var/crash, or a folder a course left at
    // 1777): the candidate knows where it is, and nothing it leaves there
    // may outlive the case.
    let drop = tempfile::Builder::new()
        .prefix("puzzlegrade-test-drop-")
        .tempdir_in("/var/lib")
        .unwrap();
    std::fs::set_permissions(drop.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let solver = script(
        &f,
        "marker",
        format!(
            "#!/bin/sh\n\
             me=$$\n\
             for d in {places} \"$TMPDIR\"; do echo x > \"$d/pg-mark-$me\" || {{ echo \"cannot write $d\" >&2; exit 4; }}; done\n\
             sleep 0.3\n\
             for d in {places}; do for m in \"$d\"/pg-mark-*; do\n\
               if [ -e \"$m\" ] && [ \"$m\" != \"$d/pg-mark-$me\" ]; then echo \"saw $m\" >&2; exit 3; fi\n\
             done; done\n\
             ipcmk -M 4096 >/dev/null || exit 5\n\
             echo x 2>/dev/null > \"{drop}/pg-mark-$me\"\n\
             exec {harness} solve --family lightsout \"$@\"\n",
            places = PLACES.join(" "),
            drop = drop.path().display(),
            harness = env!("CARGO_BIN_EXE_harness"),
        ),
    );
    let have_bwrap = crate::candidates::have("bwrap");
    for sandbox in ["auto", "bwrap"] {
        if sandbox == "bwrap" && !have_bwrap {
            continue;
        }
        assert_eq!(markers(), Vec::<String>::new(), "no marks before");
        let before = segments();
        f.grade(solver.to_str().unwrap())
            .args(["--jobs", "2", "--force", "--sandbox", sandbox])
            .assert()
            .code(0);
        assert_all_accepted(&f, cases, &format!("--sandbox {sandbox}"));
        assert_eq!(
            markers(),
            Vec::<String>::new(),
            "--sandbox {sandbox}: nothing left"
        );
        assert_eq!(segments(), before, "--sandbox {sandbox}: no segment left");
        let dropped: Vec<_> = std::fs::read_dir(drop.path()).unwrap().flatten().collect();
        assert!(
            dropped.is_empty(),
            "--sandbox {sandbox}: nothing left in a world-writable folder: {dropped:?}"
        );
        assert!(Path::new(&f.suite()).join("b0.txt").is_file());
    }
}

/// A candidate that fails (exit 3) if it finds a mark in a shared place
/// (where its own folder is kept too), beside its scratch folder or in it
/// (but its puzzle's copy), in /dev, a System V segment, or a process of
/// an earlier case; then leaves a
/// sleeping process of its own session, marks, a segment, a folder tree
/// and a symlink, and (every other case) a process of its own session
/// that keeps writing marks (`pg-late-TAG-PID`); then answers right.
fn leaver(f: &Fixture, tag: &str) -> std::path::PathBuf {
    script(
        f,
        "leaver",
        format!(
            "#!/bin/sh\n\
             for d in {places} \"$HOME/..\" /dev; do for m in \"$d\"/pg-* \"$d\"/.pg-*; do\n\
               if [ -e \"$m\" ] || [ -L \"$m\" ]; then echo \"saw $m\" >&2; exit 3; fi\n\
             done; done\n\
             if [ \"$(ipcs -m | grep -c '^0x')\" != 0 ]; then echo 'saw a segment' >&2; exit 3; fi\n\
             if [ \"$(ls -A \"$HOME\" | wc -l)\" != 1 ]; then echo \"saw\" $(ls -A \"$HOME\") >&2; exit 3; fi\n\
             mkdir -p \"$HOME/pg-junk/a\" && echo x > \"$HOME/pg-junk/f\"\n\
             for c in /proc/[0-9]*/cmdline; do case \"$(tr '\\0' ' ' < \"$c\" 2>/dev/null)\" in 'sleep 307 '*) echo \"saw a sleeper\" >&2; exit 3;; esac; done\n\
             setsid sleep 307 </dev/null >/dev/null 2>&1 &\n\
             for d in {places}; do echo x > \"$d/pg-mark-$$\"; mkdir -p \"$d/pg-tree-$$/a/b\"; ln -s / \"$d/.pg-link-$$\"; done\n\
             touch /dev/pg-dev-$$ 2>/dev/null||:\n\
             mkdir \"$HOME/../pg-beside-$$\" 2>/dev/null && chmod 0 \"$HOME/../pg-beside-$$\"\n\
             ipcmk -M 4096 >/dev/null || exit 5\n\
             case \"$1\" in *[0246].txt)\n\
               setsid sh -c 'while :; do for d in {places}; do : > \"$d/pg-late-{tag}-$$\"; done; done' </dev/null >/dev/null 2>&1 &\n\
               sleep 0.05;;\n\
             esac\n\
             exec {harness} solve --family lightsout \"$@\"\n",
            places = PLACES.join(" "),
            harness = env!("CARGO_BIN_EXE_harness"),
        ),
    )
}

/// `f`'s boards graded by `solver` as the ordinary user, with `extra`
/// arguments: the run's output, its stderr in words.
fn grade_as_ordinary(f: &Fixture, solver: &Path, extra: &[&str]) -> (std::process::Output, String) {
    let out = harness_as_an_ordinary_user(f.dir.path())
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .arg("--candidate")
        .arg(solver)
        .arg("--scorecard")
        .arg(f.scorecard())
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("+bwrap"), "bubblewrap's tier: {stderr}");
    (out, stderr)
}

/// The processes left on the machine that write the leaver's late marks
/// of `tag`.
fn late_writers(tag: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&format!("pg-late-{tag}-")) && !c.contains("cargo"))
        .collect()
}

/// As an ordinary user (bubblewrap's tier, kept per job slot: the slot's
/// cases enter one sandbox one after another, as the same user) each
/// case finds the slot's private places empty, nothing beside its own
/// scratch folder, no System V segment and no process of the last case,
/// at one job and at two.
#[test]
fn as_an_ordinary_user_a_slots_next_case_finds_nothing_of_the_last() {
    if !require_ordinary_bwrap() {
        return;
    }
    let cases = 8;
    let f = boards(cases);
    let solver = leaver(&f, "user");
    for jobs in ["1", "2"] {
        let (out, stderr) =
            grade_as_ordinary(&f, &solver, &["--jobs", jobs, "--force", "--no-cache"]);
        assert_all_accepted(&f, cases, &format!("--jobs {jobs}"));
        assert_eq!(out.status.code(), Some(0), "--jobs {jobs}: {stderr}");
        assert_eq!(late_writers("user"), Vec::<String>::new(), "--jobs {jobs}");
    }
}

/// A job slot's cases share the slot's view one after another: each finds
/// it empty, whatever the last one left in it, even a process of the last
/// case that escaped its group (`setsid`) and goes on writing there until
/// the case's cgroup kills it; and each has System V objects of its own.
#[test]
fn a_slots_next_case_finds_nothing_of_the_last() {
    let cases = 8;
    let Some(f) = boards_as_root(cases, "not root (a kept view is root's)") else {
        return;
    };
    let solver = leaver(&f, "root");
    let before = segments();
    f.grade(solver.to_str().unwrap())
        .args(["--jobs", "1"])
        .assert()
        .code(0);
    assert_all_accepted(&f, cases, "");
    assert_eq!(markers(), Vec::<String>::new(), "nothing on the machine");
    assert_eq!(segments(), before, "no segment left");
    assert_eq!(
        late_writers("root"),
        Vec::<String>::new(),
        "the escapees died with their cases"
    );
}

/// A case's scratch folder (its HOME and TMPDIR) holds only its own
/// copies, whatever the slot's last case did to its own (left files in
/// it, opened it to every user, marked it with an extended attribute) or
/// tried on the folders made ahead for the next cases (planting a file in
/// each name it could guess).
#[test]
fn a_scratch_folder_holds_only_the_cases_copies() {
    let cases = 8;
    let f = boards(cases);
    let solver = script(
        &f,
        "scratcher",
        format!(
            "#!/bin/sh\n\
             here=$(ls -A \"$TMPDIR\")\n\
             [ \"$here\" = \"$(basename \"$1\")\" ] || {{ echo \"found: $here\" >&2; exit 3; }}\n\
             [ \"$(stat -c %a \"$TMPDIR\")\" = 700 ] || {{ echo 'opened' >&2; exit 3; }}\n\
             python3 -c 'import os,sys; sys.exit(3 if os.listxattr(os.environ[\"TMPDIR\"]) else 0)' || {{ echo 'marked' >&2; exit 3; }}\n\
             case \"$1\" in\n\
               *1.txt) echo x > \"$TMPDIR/left\";;\n\
               *3.txt) chmod 777 \"$TMPDIR\";;\n\
               *5.txt) python3 -c 'import os; os.setxattr(os.environ[\"TMPDIR\"], \"user.note\", b\"x\")' 2>/dev/null;;\n\
               *0.txt|*2.txt) n=${{TMPDIR##*case-}}; i=1; while [ $i -le 200 ]; do\n\
                   echo x 2>/dev/null > \"${{TMPDIR%case-*}}case-$((n + i))/planted\"; i=$((i + 1)); done;;\n\
             esac\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    f.grade(solver.to_str().unwrap())
        .args(["--jobs", "1"])
        .assert()
        .code(0);
    assert_all_accepted(&f, cases, "");
}

/// A candidate that fails (exit 3) where it finds a key another case
/// stored in its user's keyrings (`@u`, `@us`), its session keyring or its
/// user's persistent keyring, else stores one in each (exit 4 where it
/// cannot store one in `@u`) and answers right; `None` (skipped with a
/// note) where this machine's `keyctl` numbers are not written here.
fn key_keeper(f: &Fixture) -> Option<std::path::PathBuf> {
    let (add_key, keyctl) = match std::env::consts::ARCH {
        "x86_64" => (248, 250),
        "aarch64" => (217, 219),
        other => {
            eprintln!("note: skipping: no keyctl numbers written here for {other}");
            return None;
        }
    };
    Some(script(
        f,
        "keeper.py",
        format!(
            r#"#!/usr/bin/env python3
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
L = ctypes.c_long
def keyctl(*a): return libc.syscall(L({keyctl}), *[L(x) if isinstance(x, int) else x for x in a])
rings = [-4, -5, -3]
persistent = keyctl(22, -1, -3)
if persistent > 0: rings.append(persistent)
found = [r for r in rings if keyctl(10, r, b"user", b"pg-mark", 0) >= 0]
if found:
    print("found a key in", found, file=sys.stderr)
    sys.exit(3)
stored, refused = [], False
for r in rings:
    if libc.syscall(L({add_key}), b"user", b"pg-mark", b"x", L(1), L(r)) > 0:
        stored.append(r)
    elif ctypes.get_errno() == 1:
        refused = True  # EPERM: the harness's seccomp filter
if -4 not in stored and not refused:
    print("could not store a key in @u", file=sys.stderr)
    sys.exit(4)
os.execv("{harness}", ["{harness}", "solve", "--family", "lightsout"] + sys.argv[1:])
"#,
            harness = env!("CARGO_BIN_EXE_harness"),
        ),
    ))
}

/// The kernel's keyrings are no channel between a slot's cases (which run
/// as one user): as root every isolated case's seccomp filter refuses the
/// keyring calls (EPERM), and beneath it a key a case stores in its
/// user's keyrings (`@u`, `@us`), its session keyring or its user's
/// persistent keyring, the next case does not find; nor does a case on
/// the other slot beside it.
#[test]
fn a_slots_next_case_finds_no_key_of_the_last() {
    let cases = 6;
    let Some(f) = boards_as_root(cases, "not root (a user per slot is root's)") else {
        return;
    };
    let Some(solver) = key_keeper(&f) else {
        return;
    };
    for jobs in ["1", "2"] {
        f.grade(solver.to_str().unwrap())
            .args(["--jobs", jobs, "--force"])
            .assert()
            .code(0);
        assert_all_accepted(&f, cases, &format!("--jobs {jobs}"));
    }
}

/// As an ordinary user (bubblewrap's tier: every case runs as the
/// harness's own user) the keyrings are no channel either: the filter
/// refuses their calls, and beneath it a job slot's cases, one after
/// another in the slot's user namespace, each find its keyrings emptied.
/// (Without a sandbox they are one: `--sandbox none` fails this test.)
#[test]
fn as_an_ordinary_user_a_case_finds_no_key_of_the_last() {
    if !require_ordinary_bwrap() {
        return;
    }
    let cases = 6;
    let f = boards(cases);
    let Some(solver) = key_keeper(&f) else {
        return;
    };
    for jobs in ["1", "2"] {
        let (out, stderr) = grade_as_ordinary(&f, &solver, &["--jobs", jobs, "--force"]);
        assert_eq!(out.status.code(), Some(0), "--jobs {jobs}: {stderr}");
        assert_all_accepted(&f, cases, &format!("--jobs {jobs}"));
    }
}

/// Reading leaves no trace a later case could see: the access time of a
/// file a case's view keeps (its puzzle copy, one file with the slot's
/// other cases given that puzzle; the candidate's own program) does not
/// change when the case reads it. (Otherwise the first case to read a
/// file could tell the next ones something by when it read it.)
#[test]
fn reading_a_file_leaves_no_access_time() {
    let cases = 3;
    let Some(f) = boards_as_root(cases, "not root (a kept view is root's)") else {
        return;
    };
    let solver = script(
        &f,
        "reader",
        format!(
            "#!/bin/sh\n\
             for file in \"$1\" \"$0\"; do\n\
               before=$(stat -c %x \"$file\"); sleep 0.02; cat \"$file\" >/dev/null\n\
               after=$(stat -c %x \"$file\")\n\
               [ \"$before\" = \"$after\" ] || {{ echo \"$file read at $after\" >&2; exit 3; }}\n\
             done\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    f.grade(solver.to_str().unwrap())
        .args(["--jobs", "1"])
        .assert()
        .code(0);
    assert_all_accepted(&f, cases, "");
}

/// As an ordinary user no case reaches its job slot's holder (the pid 1
/// of the slot's sandbox, its user's own process): SIGKILL to it or to
/// every process it may signal kills nothing (were the holder killed, the
/// case would die with it), and its descriptors, environment, memory and
/// root are closed to the case.
#[test]
fn as_an_ordinary_user_no_case_reaches_its_slots_holder() {
    if !require_ordinary_bwrap() {
        return;
    }
    let cases = 4;
    let f = boards(cases);
    let solver = script(
        &f,
        "poker",
        format!(
            "#!/bin/sh\n\
             kill -9 1 2>/dev/null; kill -9 -1 2>/dev/null; sleep 0.2\n\
             got=''\n\
             for p in fd/0 environ mem root/proc/1/environ; do\n\
               if head -c 1 /proc/1/$p >/dev/null 2>&1; then got=\"$got $p\"; fi\n\
             done\n\
             if ls /proc/1/fd/ >/dev/null 2>&1; then got=\"$got fd\"; fi\n\
             if [ -n \"$got\" ]; then echo \"reached:$got\" >&2; exit 3; fi\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    let (_, stderr) = grade_as_ordinary(&f, &solver, &["--jobs", "1"]);
    assert_all_accepted(&f, cases, &stderr);
}

/// `harness` (a command, its program set) grading `f`'s boards at one job
/// with a candidate that sleeps 0.4 s before it solves, started and not
/// waited for: a run whose slot's keeper or holder a test kills midway.
fn slow_run(f: &Fixture, mut harness: std::process::Command) -> std::process::Child {
    let solver = script(
        f,
        "slow",
        format!(
            "#!/bin/sh\nsleep 0.4\nexec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    harness
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", solver.to_str().unwrap(), "--jobs", "1"])
        .arg("--scorecard")
        .arg(f.scorecard())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// The run ended well and every one of `f`'s `cases` was accepted.
fn ended_well(f: &Fixture, mut run: std::process::Child, cases: usize) {
    assert!(run.wait().unwrap().success());
    let verdicts: Vec<String> = read_scorecard(&f.scorecard())
        .into_iter()
        .map(|r| format!("{} {}", r["verdict"], r["detail"]))
        .collect();
    assert_eq!(verdicts, vec!["accepted ".to_string(); cases]);
}

/// As an ordinary user, a job slot's bubblewrap holder that dies (an
/// administrator's `kill -9` from outside: a case can neither signal it,
/// its pid 1, nor reach its memory) takes the case running in its
/// namespaces with it: that case is tried again in a new sandbox, and
/// every case is accepted.
#[test]
fn as_an_ordinary_user_a_holder_that_dies_costs_no_case() {
    if !require_ordinary_bwrap() {
        return;
    }
    let cases = 6;
    let f = boards(cases);
    let run = slow_run(&f, harness_as_an_ordinary_user(f.dir.path()));
    // setpriv execs the harness: its pid is the run's. The holder is the
    // child of the harness's child (bubblewrap), named `hold`.
    let harness = run.id().to_string();
    let parent_of = |pid: &str| -> Option<String> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some(
            stat.rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .to_string(),
        )
    };
    let holder = || {
        std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
            let pid = e.file_name().to_string_lossy().into_owned();
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd);
            let held = cmd.contains("hold\0") || cmd.contains("__hold\0");
            (held && parent_of(&parent_of(&pid)?)? == harness).then_some(pid)
        })
    };
    let start = std::time::Instant::now();
    let pid = loop {
        if let Some(p) = holder() {
            break p;
        }
        assert!(start.elapsed().as_secs() < 20, "no holder came");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // Mid-case: its first case sleeps 0.4 s.
    std::thread::sleep(std::time::Duration::from_millis(150));
    std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap();
    ended_well(&f, run, cases);
}

/// A job slot's keeper that dies (an administrator's `kill`: no candidate
/// can signal root's process) costs no case: the next case's view is made
/// by a keeper started again.
#[test]
fn a_keeper_that_dies_is_started_again() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: skipping: not root (a keeper is root's)");
        return;
    }
    let cases = 6;
    let f = boards(cases);
    let run = slow_run(
        &f,
        std::process::Command::new(env!("CARGO_BIN_EXE_harness")),
    );
    let harness = run.id().to_string();
    // The keeper: the harness's child named harness-exec (or `harness
    // __keeper`).
    let keeper = || {
        std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let parent = stat.rsplit(')').next()?.split_whitespace().nth(1)?;
            let cmd = String::from_utf8_lossy(&cmdline);
            (parent == harness && (cmd.contains("harness-exec") || cmd.contains("__keeper")))
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
    };
    let start = std::time::Instant::now();
    let pid = loop {
        if let Some(p) = keeper() {
            break p;
        }
        assert!(start.elapsed().as_secs() < 20, "no keeper came");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap();
    ended_well(&f, run, cases);
}

/// A case inherits no descriptor but its stdin, stdout and stderr: not
/// even one the harness inherited from whoever started it (here a file
/// open for writing on descriptor 7, as a CI runner or make might leave).
#[test]
fn a_case_inherits_no_descriptor_of_the_harness() {
    let f = Fixture::new();
    let solver = script(
        &f,
        "fds",
        format!(
            "#!/bin/sh\n\
             [ -e /proc/$$/fd/7 ] && {{ echo 'inherited 7' >&2; exit 3; }}\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    );
    let open = f.dir.path().join("open-for-writing");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec 7>'{}'; exec \"$0\" grade --suite '{}' --candidate '{}' --scorecard '{}'",
            open.display(),
            f.suite().display(),
            solver.display(),
            f.scorecard().display()
        ))
        .arg(env!("CARGO_BIN_EXE_harness"))
        .output()
        .unwrap();
    let rows = f.rows();
    assert_eq!(rows.len(), 2, "{}", String::from_utf8_lossy(&out.stderr));
    for r in rows.values() {
        assert!(
            r["verdict"] == "accepted" || r["detail"].contains("exit 1"),
            "{r:?}"
        );
        assert!(!r["detail"].contains("inherited"), "{r:?}");
    }
}

/// A candidate that lives in /tmp runs in /tmp (its own folder), and that
/// is the case's private /tmp with the candidate brought back into it, not
/// the machine's: it sees nothing else there and leaves nothing there.
#[test]
fn a_candidate_in_tmp_sees_a_private_tmp() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("note: skipping: not root (bubblewrap's view is tested in the gallery)");
        return;
    }
    let f = Fixture::new();
    let secret = tempfile::Builder::new()
        .prefix("pg-secret-")
        .tempfile_in("/tmp")
        .unwrap();
    std::fs::set_permissions(secret.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let solver = tempfile::Builder::new()
        .prefix("pg-candidate-")
        .suffix(".sh")
        .tempfile_in("/tmp")
        .unwrap();
    std::fs::write(
        solver.path(),
        format!(
            "#!/bin/sh\n\
             [ \"$(pwd)\" = /tmp ] || exit 6\n\
             for f in /tmp/pg-secret-*; do [ -e \"$f\" ] && {{ echo \"saw $f\" >&2; exit 3; }}; done\n\
             [ -x \"$0\" ] || exit 7\n\
             echo x > /tmp/pg-left-$$ || exit 4\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(solver.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Still open for writing here: the exec fails (ETXTBSY) after the
    // case's process became the slot's user; the row says why, as ours.
    f.grade(solver.path().to_str().unwrap()).assert().code(1);
    for r in f.rows().values() {
        assert_eq!(r["verdict"], "harness-error", "{r:?}");
        assert!(r["detail"].contains("Text file busy"), "{r:?}");
    }
    let solver = solver.into_temp_path();
    f.grade(solver.to_str().unwrap())
        .arg("--force")
        .assert()
        .code(0);
    let left: Vec<_> = std::fs::read_dir("/tmp")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pg-left-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
