//! The Landlock tier (`--sandbox landlock`; what `auto` takes where no view
//! of its own can be made: root in a container with its engine's default
//! privileges, or an ordinary user without bubblewrap): a rogue candidate
//! reads neither the suites nor the shared /tmp, writes nowhere but its
//! scratch folder, reaches no TCP port nor abstract socket outside its
//! case and signals nothing outside it; without the tier (`none`) the same
//! rogue does all of that, so the probes can fail. A right solver is
//! accepted under it, as root and as an ordinary user.

use std::path::Path;

use super::support::{harness_as_an_ordinary_user, require, workspace};

/// The rogue: each probe, and what it got.
const ROGUE: &str = r#"#!/bin/sh
cat "$PG_SUITE/2x2-00.txt" >/dev/null 2>&1 && echo suite:read || echo suite:denied
cat /tmp/pg-landlock-secret-* >/dev/null 2>&1 && echo secret:read || echo secret:denied
(echo x > /var/tmp/pg-landlock-$$) 2>/dev/null && echo vartmp:wrote || echo vartmp:denied
rm -f /var/tmp/pg-landlock-$$
echo x > "$TMPDIR/mine" && echo scratch:wrote || echo scratch:denied
python3 - "$PG_PORT" <<'PY'
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    print("tcp:connected")
except OSError:
    print("tcp:denied")
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0pg-landlock-test")
    print("abstract:connected")
except OSError:
    print("abstract:denied")
PY
kill -0 "$PG_PID" 2>/dev/null && echo signal:sent || echo signal:denied
exit 1
"#;

/// Whether Landlock can be used here (required where CI requires
/// isolation).
fn landlock_here() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        .current_dir(dir.path())
        .args([
            "grade",
            "--sandbox",
            "landlock",
            "--filter",
            "2x2-00",
            "--suite",
        ])
        .arg(workspace().join("suites/lightsout/easy"))
        .args(["--candidate", "true", "--scorecard", "rows.csv"])
        .output()
        .unwrap();
    // 2: `--sandbox landlock: ... is not enforced by this kernel`.
    require(
        out.status.code() != Some(2),
        &format!(
            "this kernel does not enforce Landlock: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The reference solver, as a candidate.
fn solver() -> String {
    format!("{} solve --family lightsout", env!("CARGO_BIN_EXE_harness"))
}

/// The rogue graded once under `sandbox` (as an ordinary user where
/// `user`): each line it printed.
fn probe(sandbox: &str, user: bool) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let rogue = dir.path().join("rogue.sh");
    std::fs::write(&rogue, ROGUE).unwrap();
    std::fs::set_permissions(&rogue, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Another student's file where everyone may read it, in /tmp (not
    // named to the case: a path its command line or `--env` names is
    // kept in its reach).
    let secret = tempfile::Builder::new()
        .prefix("pg-landlock-secret-")
        .tempfile_in("/tmp")
        .unwrap();
    std::fs::set_permissions(secret.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let abstract_name = {
        use std::os::linux::net::SocketAddrExt;
        std::os::unix::net::SocketAddr::from_abstract_name(b"pg-landlock-test").unwrap()
    };
    let _abstract = std::os::unix::net::UnixListener::bind_addr(&abstract_name);
    // A process of the harness's own user, outside the case.
    let mut sleeper = if user {
        let mut c = std::process::Command::new("setpriv");
        c.args([
            "--reuid=61000",
            "--regid=61000",
            "--clear-groups",
            "sleep",
            "60",
        ]);
        c
    } else {
        let mut c = std::process::Command::new("sleep");
        c.arg("60");
        c
    };
    let mut sleeper = sleeper.spawn().unwrap();
    let suite = workspace().join("suites/lightsout/easy");
    let mut cmd = if user {
        harness_as_an_ordinary_user(dir.path())
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
    };
    let env = |k: &str, v: &dyn AsRef<Path>| format!("{k}={}", v.as_ref().display());
    let out = cmd
        .current_dir(dir.path())
        .args([
            "grade",
            "--sandbox",
            sandbox,
            "--filter",
            "2x2-00",
            "--suite",
        ])
        .arg(&suite)
        .arg("--candidate")
        .arg(&rogue)
        .args(["--scorecard", "rows.csv", "--keep-output", "out", "--env"])
        .arg(env("PG_SUITE", &suite))
        .arg("--env")
        .arg(format!("PG_PORT={port}"))
        .arg("--env")
        .arg(format!("PG_PID={}", sleeper.id()))
        .output()
        .unwrap();
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let stdout = walkdir::WalkDir::new(dir.path().join("out"))
        .into_iter()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "stdout"))
        .unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    std::fs::read_to_string(stdout.path())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const CLOSED: [&str; 7] = [
    "suite:denied",
    "secret:denied",
    "vartmp:denied",
    "scratch:wrote",
    "tcp:denied",
    "abstract:denied",
    "signal:denied",
];

#[test]
fn landlock_closes_every_way_out_of_a_case() {
    if !landlock_here() {
        return;
    }
    let root = rustix::process::geteuid().is_root();
    assert_eq!(
        probe("landlock", false),
        CLOSED,
        "as {}",
        if root { "root" } else { "this user" }
    );
    if !root {
        return;
    }
    assert_eq!(probe("landlock", true), CLOSED, "as an ordinary user");
    // The same rogue without it, as an ordinary user: every probe
    // succeeds (so the probes can fail).
    assert_eq!(
        probe("none", true),
        [
            "suite:read",
            "secret:read",
            "vartmp:wrote",
            "scratch:wrote",
            "tcp:connected",
            "abstract:connected",
            "signal:sent",
        ]
    );
}

#[test]
fn a_right_solver_is_accepted_under_landlock() {
    if !landlock_here() {
        return;
    }
    let root = rustix::process::geteuid().is_root();
    for user in [false, true] {
        if user && !root {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = if user {
            harness_as_an_ordinary_user(dir.path())
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
        };
        // As an ordinary user, every case's processes are that user's:
        // more than one at a time is refused (see
        // a_fork_bomb_under_landlock_as_an_ordinary_user_costs_only_its_own_row).
        let jobs = if user { "1" } else { "2" };
        let out = cmd
            .current_dir(dir.path())
            .args(["grade", "--sandbox", "landlock", "--jobs", jobs, "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(solver())
            .args(["--scorecard", "rows.csv"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("lightsout/easy: 19/19 accepted"),
            "{stdout}"
        );
        assert!(
            stderr.lines().next().unwrap_or("").contains("+landlock"),
            "{stderr}"
        );
    }
}
