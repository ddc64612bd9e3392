//! The harness where platforms run it: in a container with its engine's
//! default privileges (the `container` replica of test-helpers: no
//! CAP_SYS_ADMIN, the engines' seccomp profile, /sys/fs/cgroup read-only).
//! It takes the strongest tier such a container allows by itself (a user
//! per job slot, rlimits, private copies, `no_new_privs`, and what a case
//! leaves running killed by its user after it), says what is missing, and
//! grades as anywhere else.

use super::support::{container, replica, require, workspace};

fn root() -> bool {
    require(
        rustix::process::geteuid().is_root(),
        "the container replica needs root (it drops to a container's privileges)",
    )
}

/// `harness grade` on the easy Lights Out suite with `candidate` and
/// `extra` arguments, run under `wrap` (the container replica) or as it
/// is: how it ended, and its scorecard's rows.
fn grade(
    wrap: Option<&str>,
    candidate: &str,
    extra: &[&str],
) -> (
    std::process::Output,
    Vec<std::collections::HashMap<String, String>>,
) {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.csv");
    let mut cmd = match wrap {
        Some(w) => {
            let mut c = std::process::Command::new(w);
            c.arg(env!("CARGO_BIN_EXE_harness"));
            c
        }
        None => std::process::Command::new(env!("CARGO_BIN_EXE_harness")),
    };
    let out = cmd
        .arg("grade")
        .args(extra)
        .arg("--suite")
        .arg(workspace().join("suites/lightsout/easy"))
        .args(["--candidate", candidate, "--scorecard"])
        .arg(&card)
        .output()
        .unwrap();
    let rows = if card.exists() {
        super::support::read_scorecard(&card)
    } else {
        Vec::new()
    };
    (out, rows)
}

#[test]
fn grades_in_a_container_with_default_privileges() {
    if !root() {
        return;
    }
    let (out, rows) = grade(Some(container()), &replica("lightsout"), &["--jobs", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.starts_with("isolation: copies+uid+rlimits+cpus+landlock; not available: a view of its own (mount namespaces are refused here"),
        "{stderr}"
    );
    assert!(stderr.contains("not available: cgroups ("), "{stderr}");
    assert!(
        stdout.contains("lightsout/easy: 19/19 accepted"),
        "{stdout}"
    );
    assert!(
        rows.iter()
            .all(|r| r["isolation"] == "copies+uid+rlimits+cpus+landlock")
    );
}

/// Without cgroups, the case's user kills what each case left running
/// (`kill(-1)` from a child of no exit signal, which the harness's
/// reaping of orphans never takes): in 30 runs of two job slots, never a
/// `cannot kill what uid ... left running` line (the old killer, a
/// started `true`, lost its wait to the reaping 13 times in 1,000 cases).
#[test]
fn no_kill_is_lost_in_thirty_container_runs() {
    if !root() {
        return;
    }
    for run in 0..30 {
        let (out, rows) = grade(Some(container()), &replica("lightsout"), &["--jobs", "2"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "run {run}: {stderr}");
        assert!(!stderr.contains("cannot kill"), "run {run}: {stderr}");
        assert_eq!(rows.len(), 19, "run {run}");
    }
}

/// Without cgroups, what a case leaves running in a session of its own
/// is killed by the slot's user after the case (each case, one job slot,
/// finds no daemon of the last one), and set-user-ID programs gain
/// nothing (`no_new_privs`).
#[test]
fn escapees_and_privileges_in_a_container() {
    if !root() {
        return;
    }
    // Each case counts the daemons of its user still running (a killed
    // one is the harness's zombie until it reaps it: the harness is a
    // subreaper), says whether it may gain
    // privileges, leaves a daemon and fails.
    let candidate = "sh -c 'n=$(pgrep -c -r R,S,D,T -u $(id -u) -x sleep); \
         p=$(grep NoNewPrivs /proc/self/status | tr -d \"\\t\"); \
         setsid sleep 300 </dev/null >/dev/null 2>&1 & sleep 0.2; echo \"$n $p\" >&2; exit 3'";
    let (out, rows) = grade(
        Some(container()),
        candidate,
        &["--jobs", "1", "--filter", "x2-0"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(rows.len(), 5, "{rows:?}");
    for r in &rows {
        assert!(
            r["detail"].ends_with("stderr: 0 NoNewPrivs:1"),
            "no daemon of the last case, no privilege to gain: {:?}",
            r["detail"]
        );
    }
    // And none is left when the run is over.
    let uid = rows[0]["isolation"].clone();
    assert!(uid.contains("uid"));
    // (A process killed an instant before may still be tearing down on
    // a loaded machine: a leaked one would stay its 300 s.)
    let mut left = Vec::new();
    for _ in 0..50 {
        left = std::process::Command::new("pgrep")
            .args(["-f", "^sleep 300$"])
            .output()
            .unwrap()
            .stdout;
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if !left.is_empty() {
        // (What it is, and what the harness said, to tell a leak from a
        // slow teardown.)
        let pids = String::from_utf8_lossy(&left)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(",");
        let ps = std::process::Command::new("ps")
            .args(["-o", "pid,ppid,uid,stat,pidns,etimes,args", "-p", &pids])
            .output()
            .unwrap();
        panic!(
            "left running:\n{}\nthe harness said:\n{}",
            String::from_utf8_lossy(&ps.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The seccomp filter every isolated case runs under: the kernel
/// keyrings and io_uring answer EPERM, as root (the full tier) and in a
/// container; without isolation they work as ever (io_uring_setup with
/// no parameters: EFAULT).
#[test]
fn keyrings_and_io_uring_are_refused_in_every_tier() {
    if !root() {
        return;
    }
    let probe = "sh -c 'python3 -c \"import ctypes, sys; l = ctypes.CDLL(None, use_errno=True); \
                 r = l.syscall(425, 1, 0); e = ctypes.get_errno(); \
                 k = l.syscall(250, 0, -3, 0); f = ctypes.get_errno(); \
                 print(r, e, k < 0, f if k < 0 else 0, file=sys.stderr)\"; exit 3'";
    let detail = |wrap: Option<&str>, extra: &[&str]| {
        let mut args = vec!["--filter", "2x2-01"];
        args.extend_from_slice(extra);
        let (out, rows) = grade(wrap, probe, &args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        rows[0]["detail"].clone()
    };
    assert!(
        detail(None, &[]).ends_with("stderr: -1 1 True 1"),
        "{}",
        detail(None, &[])
    );
    let contained = detail(Some(container()), &[]);
    assert!(contained.ends_with("stderr: -1 1 True 1"), "{contained}");
    let open = detail(None, &["--isolation", "none"]);
    assert!(open.contains("stderr: -1 14 "), "{open}");
}
