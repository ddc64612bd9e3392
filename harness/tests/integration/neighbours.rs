//! No channel between students: two cases of one run at once (`--jobs 2`)
//! try every way to meet (TCP and UDP on 127.0.0.1, an abstract Unix
//! socket, a path socket in /tmp) and to pass an open descriptor of the
//! folder they work in; they look for other processes in /proc and other
//! runs' cgroup folders, and try the calls the seccomp filter refuses. In
//! every tier that gives a case a network of its own, or closes it, they
//! make no contact; where the native sandbox (root) or bubblewrap makes
//! the view, neither sees another process nor a run's cgroup. With the
//! network open (`--network`), the same pair meets: the probes can fail.

use std::path::Path;

use super::support::{Place, harness_at, require, require_ordinary_bwrap, workspace};

/// The rogue: both cases run it at once. Whoever binds a place first
/// listens there; a neighbour that finds it taken connects.
const ROGUE: &str = r#"#!/usr/bin/env python3
import array, errno, os, socket, time

PORT = int(os.environ["PG_PORT"])
WAIT = 3.0
os.chdir(os.environ["TMPDIR"])
with open("SECRET.txt", "w") as f:
    f.write("mine")


def meet(kind, make, where):
    try:
        s = make()
    except OSError:
        return kind + ":closed"
    try:
        s.bind(where)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            return kind + ":closed"
        return kind + ":" + visit(s, make, where)
    return kind + ":" + host(s)


def host(s):
    s.settimeout(WAIT)
    try:
        if s.type == socket.SOCK_DGRAM:
            s.recvfrom(16)
            return "contact"
        s.listen(1)
        peer, _ = s.accept()
        if s.family == socket.AF_UNIX:
            here = os.open(".", os.O_RDONLY)
            socket.send_fds(peer, [b"x"], [here])
        return "contact"
    except OSError:
        return "alone"


def visit(s, make, where):
    c = make()
    try:
        if c.type == socket.SOCK_DGRAM:
            c.sendto(b"hello", where)
            return "contact"
        c.connect(where)
    except OSError:
        return "alone"
    met = "contact"
    if c.family == socket.AF_UNIX:
        try:
            _, fds, _, _ = socket.recv_fds(c, 16, 1)
            met += "+descriptor" if fds else ""
            os.read(os.open("SECRET.txt", os.O_RDONLY, dir_fd=fds[0]), 16)
            met += "+read"
        except (OSError, IndexError):
            pass
    return met


def inet(kind):
    def make():
        s = socket.socket(socket.AF_INET, kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        return s
    return make


unix = lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
print(meet("tcp", inet(socket.SOCK_STREAM), ("127.0.0.1", PORT)))
print(meet("udp", inet(socket.SOCK_DGRAM), ("127.0.0.1", PORT)))
print(meet("abstract", unix, "\0pg-neighbours-%d" % PORT))
print(meet("path", unix, "/tmp/pg-neighbours-%d.sock" % PORT))

me = os.getuid()
others = 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open("/proc/%s/status" % pid) as f:
            uid = next(int(l.split()[1]) for l in f if l.startswith("Uid:"))
        others += uid != me
    except (OSError, StopIteration):
        pass
print("processes:" + ("others" if others else "own"))
runs = [d for d, _, _ in os.walk("/sys/fs/cgroup") if "puzzlegrade" in d]
print("cgroups:" + ("runs" if runs else "own"))
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
refused = [n for n, call in (("ptrace", 101), ("unshare", 272), ("keyctl", 250))
           if libc.syscall(call, 0, 0, 0, 0) != 0]
print("refused:" + ",".join(refused))
"#;

/// A folder everyone may enter, holding the executable script `name`
/// with `text`.
fn with_script(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = dir.path().join(name);
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, script)
}

/// The lines each case printed, kept in `out` (`--keep-output`), in case
/// order.
fn printed(out: &Path) -> Vec<Vec<String>> {
    let mut outputs: Vec<_> = walkdir::WalkDir::new(out)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "stdout"))
        .map(|e| e.path().to_owned())
        .collect();
    outputs.sort();
    outputs
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.lines().map(str::to_string).collect()
        })
        .collect()
}

/// The pair graded once (`args` after the suite's), run `place`: what each
/// case printed, in case order.
fn pair(args: &[&str], place: Place, port: u16) -> Vec<Vec<String>> {
    let (dir, rogue) = with_script("rogue.py", ROGUE);
    let out = harness_at(place, dir.path())
        .args(["grade", "--jobs", "2", "--filter", "2x2-0", "--suite"])
        .arg(workspace().join("suites/lightsout/easy"))
        .arg("--candidate")
        .arg(&rogue)
        .args(["--scorecard", "rows.csv", "--keep-output", "out", "--env"])
        .arg(format!("PG_PORT={port}"))
        .args(args)
        .output()
        .unwrap();
    let printed = printed(&dir.path().join("out"));
    assert_eq!(
        printed.len(),
        2,
        "two cases ran: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    printed
}

/// What each case of a pair that cannot meet prints, where the network is
/// a loopback of its own (`path`: /tmp is private too) and the view its
/// own.
fn apart(path: &str) -> Vec<String> {
    [
        "tcp:alone",
        "udp:alone",
        "abstract:alone",
        path,
        "processes:own",
        "cgroups:own",
        "refused:ptrace,unshare,keyctl",
    ]
    .map(String::from)
    .to_vec()
}

/// A port for this test's run (no other test binds it).
fn port(offset: u16) -> u16 {
    40000 + (std::process::id() % 10000) as u16 + offset
}

fn root() -> bool {
    require(
        rustix::process::geteuid().is_root() && Path::new("/usr/bin/python3").exists(),
        "neighbours: needs root (a user per job slot) and python3",
    )
}

#[test]
fn two_cases_at_once_make_no_contact_as_root() {
    if !root() {
        return;
    }
    // The native sandbox: a network, a process table and cgroups of the
    // slot's own.
    for (i, out) in pair(&[], Place::Root, port(0)).iter().enumerate() {
        assert_eq!(out, &apart("path:alone"), "case {i}, native sandbox");
    }
    // The same pair with the network open meets (the probes can fail).
    let open = pair(&["--network"], Place::Root, port(1)).concat();
    for kind in ["tcp", "udp", "abstract"] {
        assert!(
            open.iter()
                .any(|l| l.starts_with(kind) && l.contains("contact")),
            "{kind}: {open:?}"
        );
    }
    // (Another slot's user may not read through it: its scratch folder
    // is its own.)
    assert!(
        open.contains(&"abstract:contact+descriptor".to_string()),
        "{open:?}"
    );
}

#[test]
fn two_cases_at_once_make_no_contact_under_bubblewrap_and_landlock() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    for (user, place, at) in [
        ("root", Place::Root, 2),
        ("an ordinary user", Place::Ordinary, 3),
    ] {
        let sandbox = pair(&["--sandbox", "bwrap"], place, port(at));
        for (i, out) in sandbox.iter().enumerate() {
            assert_eq!(out, &apart("path:alone"), "case {i}, bubblewrap as {user}");
        }
    }
    // Landlock alone (a container's tier): no socket but a Unix one, no
    // path outside the scratch folder, no abstract socket beyond the
    // case. (It can neither hide processes nor cgroups: the docs say so.)
    for (i, out) in pair(&["--sandbox", "landlock"], Place::Root, port(4))
        .iter()
        .enumerate()
    {
        assert_eq!(
            out[..4],
            ["tcp:closed", "udp:closed", "abstract:alone", "path:closed"],
            "case {i}, Landlock: {out:?}"
        );
        assert_eq!(out[6], "refused:ptrace,unshare,keyctl", "case {i}: {out:?}");
    }
}

#[test]
fn a_fork_bomb_as_an_ordinary_user_costs_only_its_own_row() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    // One case forks without end; the others wait a second (a process of
    // their own: `sleep`), meanwhile, then solve. Each case's process
    // budget is counted in its own user namespace (bubblewrap's), so the
    // neighbours still start, and still fork.
    let bomb = "case \"$*\" in\n*2x2-00*) exec python3 -c '\nimport os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n' ;;\nesac\nsleep 1\n";
    let (dir, candidate) = with_script("bomb.sh", "");
    super::support::solver_script(&candidate, bomb);
    let out = harness_at(Place::Ordinary, dir.path())
        .args([
            "grade",
            "--jobs",
            "2",
            "--cpu-limit",
            "2s",
            "--wall-limit",
            "3s",
        ])
        .args(["--filter", "2x", "--suite"])
        .arg(workspace().join("suites/lightsout/easy"))
        .arg("--candidate")
        .arg(&candidate)
        .args(["--scorecard", "rows.csv"])
        .output()
        .unwrap();
    let rows = super::support::read_scorecard(&dir.path().join("rows.csv"));
    let verdicts: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r["case"].clone(), r["verdict"].clone()))
        .collect();
    assert_eq!(
        verdicts.len(),
        4,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (case, verdict) in &verdicts {
        let want = if case == "2x2-00.txt" {
            "time-limit"
        } else {
            "accepted"
        };
        assert_eq!(verdict, want, "{case}: {verdicts:?}");
    }
}

/// A rogue that fills each private place in 16 MB steps (at most 128 MB):
/// how far it got in each.
const FILL: &str = r#"#!/bin/sh
for d in /tmp /var/tmp /dev/shm; do
  n=0
  while [ $n -lt 8 ] && dd if=/dev/zero of="$d/fill-$n" bs=1M count=16 2>/dev/null; do n=$((n+1)); done
  echo "$d:$((n*16))"
  rm -f "$d"/fill-*
done
"#;

#[test]
fn every_private_place_is_capped_at_the_memory_limit() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    let run = |sandbox: &str, place: Place| -> Vec<(String, u32)> {
        let (dir, rogue) = with_script("fill.sh", FILL);
        harness_at(place, dir.path())
            .args(["grade", "--sandbox", sandbox, "--memory-limit", "64MiB"])
            .args(["--filter", "2x2-00", "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(&rogue)
            .args(["--scorecard", "rows.csv", "--keep-output", "out"])
            .output()
            .unwrap();
        let printed = printed(&dir.path().join("out"));
        let lines = printed.first().expect("the rogue's output");
        lines
            .iter()
            .filter_map(|l| l.split_once(':'))
            .map(|(place, mb)| (place.to_string(), mb.parse().unwrap()))
            .collect()
    };
    for (tier, sandbox, place) in [
        ("root", "auto", Place::Root),
        ("root, bubblewrap", "bwrap", Place::Root),
        ("an ordinary user, bubblewrap", "bwrap", Place::Ordinary),
    ] {
        let filled = run(sandbox, place);
        assert_eq!(filled.len(), 3, "{tier}: {filled:?}");
        for (place, mb) in &filled {
            // 16 MB at least (it is writable), 64 at most (the cap: 128
            // uncapped).
            assert!((16..=64).contains(mb), "{tier}: {place} took {mb} MB");
        }
    }
    // Landlock alone: closed, nothing written.
    let closed = run("landlock", Place::Root);
    assert!(closed.iter().all(|(_, mb)| *mb == 0), "{closed:?}");
}

#[test]
fn two_cases_at_once_make_no_contact_in_a_podman_container() {
    if !root() || !super::support::podman_usable() {
        return;
    }
    // The container tier (Landlock, a user per job slot, the filters), in
    // the engine's own container: the pair shares the container's
    // loopback, and meets nowhere.
    for (i, out) in pair(&[], Place::Podman, port(5)).iter().enumerate() {
        assert_eq!(
            out[..4],
            ["tcp:closed", "udp:closed", "abstract:alone", "path:closed"],
            "case {i}, in Podman: {out:?}"
        );
        assert_eq!(out[6], "refused:ptrace,unshare,keyctl", "case {i}: {out:?}");
    }
}

/// A class of one (alice, handing in `probe.py` with `text`, a Python
/// script that exits 3 where it cannot do what it tries, else solves)
/// under a course whose two parts run it on one board: "closed", and
/// "open" with `key = true`.
fn two_parts(text: &str, key: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let (dir, _) = with_script("unused", "");
    let alice = dir.path().join("class/alice");
    std::fs::create_dir_all(&alice).unwrap();
    let probe = alice.join("probe.py");
    let solver = super::support::replica("lightsout");
    std::fs::write(
        &probe,
        format!("{text}os.execv('{solver}', ['{solver}'] + sys.argv[1:])\n"),
    )
    .unwrap();
    for d in [dir.path().join("class"), alice] {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o644)).unwrap();
    let suite = workspace().join("suites/lightsout/easy");
    let part = |name: &str, open: bool| {
        format!(
            "[[part]]\nname = \"{name}\"\ncommand = \"python3 {{submission}}/probe.py\"\n\
             suites = [\"{}\"]\ncases = [\"*/2x2-00.txt\"]\n{key} = {open}\n",
            suite.display()
        )
    };
    let config = dir.path().join("course.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"two\"\nfamily = \"lightsout\"\n{}{}\
             [[rubric]]\nname = \"Closed\"\nrule = \"share\"\npoints = 1\npart = \"closed\"\n\
             [[rubric]]\nname = \"Open\"\nrule = \"share\"\npoints = 1\npart = \"open\"\n",
            part("closed", false),
            part("open", true)
        ),
    )
    .unwrap();
    (dir, config)
}

/// [`two_parts`]'s class graded as root with `args`: the closed part's
/// verdict and the open part's.
fn closed_and_open(dir: &std::path::Path, config: &std::path::Path, args: &[&str]) -> [String; 2] {
    let card = dir.join(format!("rows-{}.csv", args.join("-")));
    let out = harness_at(Place::Root, dir)
        .args(["grade", "--course"])
        .arg(config)
        .args(["--submissions", "class", "--scorecard"])
        .arg(&card)
        .args(args)
        .args(["--force"])
        .output()
        .unwrap();
    let mut rows: Vec<_> = super::support::read_scorecard(&card)
        .into_iter()
        .filter(|r| r["suite"] != "build")
        .map(|r| (r["suite"].clone(), r["verdict"].clone()))
        .collect();
    rows.sort();
    let parts: Vec<&str> = rows.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        parts,
        ["closed/lightsout/easy", "open/lightsout/easy"],
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    [rows[0].1.clone(), rows[1].1.clone()]
}

/// A course part may open the network for its own cases (`network =
/// true`): its cases reach a port the test listens on, while the other
/// part's cases, in the same run, stay on a loopback of their own.
#[test]
fn a_course_part_may_open_the_network_for_its_own_cases() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accept whoever comes, for as long as the test runs.
    std::thread::spawn(move || for _ in listener.incoming() {});
    // Solves where the port answers; exits 3 (a runtime error) where it
    // does not.
    let (dir, config) = two_parts(
        &format!(
            "import os, socket, sys\n\
             try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n\
             except OSError:\n    sys.exit(3)\n"
        ),
        "network",
    );
    for sandbox in ["auto", "bwrap"] {
        assert_eq!(
            closed_and_open(dir.path(), &config, &["--sandbox", sandbox, "--jobs", "2"]),
            ["runtime-error", "accepted"],
            "{sandbox}"
        );
    }
}

/// Fills its own scratch folder (`$TMPDIR`) in 16 MB steps, to 256 MB,
/// then lingers: no memory cgroup charges that folder in these tiers.
const FILL_SCRATCH: &str = "n=0\nwhile [ $n -lt 16 ] && dd if=/dev/zero of=\"$TMPDIR/fill-$n\" bs=1M count=16 2>/dev/null; do n=$((n+1)); done\nsleep 2\n";

/// Where no memory cgroup charges a case's scratch folder (the container
/// tier, an ordinary user's), filling it is that case's own
/// `memory-limit`; its neighbour, at once, is accepted.
#[test]
fn filling_ones_own_folder_is_ones_own_verdict_where_nothing_charges_it() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    let run = |tier: &str, place: Place, args: &[&str]| {
        let (dir, candidate) = with_script("fill.sh", "");
        let prelude = format!("case \"$*\" in\n*2x2-00*) {FILL_SCRATCH};;\nesac\n");
        super::support::solver_script(&candidate, &prelude);
        let out = harness_at(place, dir.path())
            .args(["grade", "--memory-limit", "64MiB", "--jobs", "2"])
            .args(args)
            .args(["--filter", "2x2-0", "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(&candidate)
            .args(["--scorecard", "rows.csv"])
            .output()
            .unwrap();
        let mut rows: Vec<(String, String, String)> =
            super::support::read_scorecard(&dir.path().join("rows.csv"))
                .into_iter()
                .map(|r| (r["case"].clone(), r["verdict"].clone(), r["detail"].clone()))
                .collect();
        rows.sort();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(rows.len(), 2, "{tier}: {stderr}");
        assert_eq!(rows[0].1, "memory-limit", "{tier}: {rows:?}\n{stderr}");
        assert!(
            rows[0]
                .2
                .contains("its folder held more than the memory limit (67108864 bytes)"),
            "{tier}: {rows:?}"
        );
        assert_eq!(rows[1].1, "accepted", "{tier}: {rows:?}");
    };
    // The container tier's sandbox (a user per slot, Landlock, no
    // cgroups), then an ordinary user's default.
    let container = ["--sandbox", "landlock", "--cgroups", "off"];
    run("root, landlock, no cgroups", Place::Root, &container);
    run("an ordinary user, bubblewrap", Place::Ordinary, &[]);
    if super::support::podman_usable() {
        run("root in Podman", Place::Podman, &[]);
    }
}

/// A course part may ask for System V IPC (`ipc = true`) where cases have
/// no IPC namespace of their own (the container tier's Landlock): its
/// cases get a segment; the other part's, in the same run, are refused.
/// Where each case has a namespace of its own (root's view), both get one.
#[test]
fn a_course_part_may_ask_for_ipc_where_there_is_no_namespace() {
    if !root() {
        return;
    }
    // Solves where a private segment can be made (and removed); exits 3
    // where it cannot.
    let (dir, config) = two_parts(
        "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n\
         made = libc.shmget(0, 4096, 0o1000 | 0o600)\n\
         if made < 0:\n    sys.exit(3)\nlibc.shmctl(made, 0, None)\n",
        "ipc",
    );
    for (sandbox, closed) in [("landlock", "runtime-error"), ("auto", "accepted")] {
        assert_eq!(
            closed_and_open(dir.path(), &config, &["--sandbox", sandbox]),
            [closed, "accepted"],
            "{sandbox}"
        );
    }
}
