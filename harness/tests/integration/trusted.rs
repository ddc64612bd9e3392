//! Trusted in the TA's own folder (issue 51): a class, its scorecard,
//! summary and kept outputs in an ordinary folder outside /tmp (which the
//! harness hides from cases anyway), graded in every tier with hostile
//! students beside honest ones. A thief looks for another student's kept
//! answer (walking the TA's folder and every path on the processes'
//! command lines) and reads what the run writes; a planter leaves links
//! named like the next puzzles and a Python `usercustomize.py` wherever it
//! can write beside its own folder, and writes at the TA's files; a bomb
//! forks for two seconds. The thief tries System V IPC, a POSIX message
//! queue and vsock. The result store is in the TA's folder too. Nothing
//! may work: no thief row accepted, nothing of the run read, every honest
//! row accepted, the TA's files and the scorecard whole, no IPC object
//! shared or left behind.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::support::{
    Place, harness_at, read_scorecard, replica, require, require_ordinary_bwrap, workspace,
};

/// The puzzles graded: two per student, the same for everyone.
const CASES: &str = "*/easy/2x2-0*";

/// A student that answers right, in Python (a planted `usercustomize.py`
/// would run in it, and print).
fn honest() -> String {
    format!(
        "import os, sys\nos.execv('{solver}', ['{solver}'] + sys.argv[1:])\n",
        solver = replica("lightsout")
    )
}

/// The thief: every file it can read in the TA's folder and on the
/// command lines it sees, another student's kept answer for its own
/// puzzle printed as its own; then System V IPC and vsock. Says on stderr
/// what it managed (`read:PATH`, `ipc:...`, `vsock:...`).
const THIEF: &str = r#"
import ctypes, errno, os, socket, sys, time
time.sleep(0.5)
ta = "@TA@"
case = os.path.basename(sys.argv[-1])
places = {ta}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        words = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
    except OSError:
        continue
    for w in words:
        w = w.decode(errors="ignore")
        for part in [w] + w.split("=")[1:]:
            if part.startswith(ta) and os.path.exists(part):
                places.add(part)
answer = None
for place in places:
    walked = [(place, [], [""])] if os.path.isfile(place) else os.walk(place)
    for folder, _, files in walked:
        for name in files:
            path = os.path.join(folder, name) if name else folder
            # (Its classmates' handins are out of sight, as tested
            # elsewhere; the TA's notes are world-readable, the TA's
            # choice.)
            if "class" in path.split(os.sep) or name == "notes.txt":
                continue
            try:
                data = open(path, "rb").read()
            except OSError:
                continue
            print("read:" + path, file=sys.stderr)
            if path.endswith("/" + case + ".stdout") and data.strip():
                answer = data
libc = ctypes.CDLL(None, use_errno=True)
made = libc.shmget(0x70670051, 4096, 0o1000 | 0o2000 | 0o600)
if made >= 0:
    print("ipc:made", file=sys.stderr)
elif ctypes.get_errno() == errno.EEXIST:
    print("ipc:contact", file=sys.stderr)
else:
    print("ipc:refused", file=sys.stderr)
libc.mq_open.restype = ctypes.c_int
queue = libc.mq_open(b"/pg-issue-51", os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
if queue >= 0:
    print("mq:made", file=sys.stderr)
elif ctypes.get_errno() == errno.EEXIST:
    print("mq:contact", file=sys.stderr)
else:
    print("mq:refused", file=sys.stderr)
try:
    socket.socket(40, socket.SOCK_STREAM)
    print("vsock:open", file=sys.stderr)
except OSError:
    print("vsock:refused", file=sys.stderr)
if answer:
    sys.stdout.buffer.write(answer)
"#;

/// The planter: links named like every puzzle (to a TA's file and to the
/// scorecard) and a `usercustomize.py` in every folder it can write
/// beside its own and in each one's HOME-to-be; then writes at the TA's
/// files. Answers nothing.
const PLANTER: &str = r#"
import glob, os, sys
ta = "@TA@"
here = os.getcwd()
places = [os.path.dirname(here)] + glob.glob(os.path.dirname(here) + "/*")
names = ["2x2-00.txt", "2x2-01.txt", "2x2-02.txt", "0-2x2-00.txt"]
for d in places:
    if d == here:
        continue
    for n in names:
        for target, name in ((ta + "/notes.txt", n), (ta + "/out/rows.csv", "x" + n)):
            try:
                os.symlink(target, os.path.join(d, name))
                print("planted:" + os.path.join(d, name), file=sys.stderr)
            except OSError:
                pass
    site = os.path.join(d, ".local/lib/python3.%d/site-packages" % sys.version_info[1])
    try:
        os.makedirs(site, exist_ok=True)
        with open(os.path.join(site, "usercustomize.py"), "w") as f:
            f.write("print('planted')\n")
        print("planted:" + site, file=sys.stderr)
    except OSError:
        pass
for path in (ta + "/notes.txt", ta + "/out/rows.csv", ta + "/out/summary.csv"):
    try:
        with open(path, "a") as f:
            f.write("pwned\n")
        print("wrote:" + path, file=sys.stderr)
    except OSError:
        pass
"#;

/// The bomb: forks for two seconds (each child sleeping), then answers
/// nothing.
const BOMB: &str = r#"
import os, time
end = time.time() + 2
while time.time() < end:
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
    except OSError:
        time.sleep(0.01)
"#;

/// The TA's folder: outside /tmp (in /home, as a TA's would be), a
/// course folder, a class of five (honest ones around two hostile ones),
/// the TA's notes. Everyone may enter it (the slots' users run there).
fn ta_folder() -> tempfile::TempDir {
    let ta = tempfile::Builder::new()
        .prefix("puzzlegrade-ta-")
        .tempdir_in("/home")
        .unwrap();
    let root = ta.path();
    let at = root.display().to_string();
    let students = [
        ("a-honest", honest()),
        ("b-thief", THIEF.replace("@TA@", &at)),
        ("c-planter", PLANTER.replace("@TA@", &at)),
        ("d-honest", honest()),
        ("e-honest", honest()),
        ("f-bomb", BOMB.to_string()),
        ("g-honest", honest()),
    ];
    for (name, text) in &students {
        let dir = root.join("class").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("solve.py"), text).unwrap();
    }
    std::fs::create_dir_all(root.join("course")).unwrap();
    std::fs::write(
        root.join("course/course.toml"),
        format!(
            "name = \"ta\"\nfamily = \"lightsout\"\n\
             [[part]]\nname = \"solve\"\ncommand = \"python3 {{submission}}/solve.py\"\n\
             suites = [\"{}\"]\ncases = [\"{CASES}\"]\n\
             [[rubric]]\nname = \"Solve\"\nrule = \"share\"\npoints = 2\npart = \"solve\"\n",
            workspace().join("suites/lightsout/easy").display()
        ),
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "the TA's own\n").unwrap();
    for e in walkdir::WalkDir::new(root).into_iter().flatten() {
        let mode = if e.file_type().is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    ta
}

/// System V shared memory segments on the machine.
fn segments() -> usize {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0)
}

/// Whether the thief's POSIX message queue is there in this IPC
/// namespace (the machine's): removed if so.
fn queue_left() -> bool {
    std::process::Command::new("python3")
        .args([
            "-c",
            "import ctypes, sys\nsys.exit(0 if ctypes.CDLL(None).mq_unlink(b'/pg-issue-51') == 0 else 1)",
        ])
        .status()
        .is_ok_and(|s| s.success())
}

/// The class graded in `ta`, run `place`, with `args`; every path
/// absolute (the thief reads them off the command line).
fn grade(ta: &Path, place: Place, args: &[&str]) -> std::process::Output {
    let p = |s: &str| ta.join(s);
    harness_at(place, ta)
        .args(["grade", "--course"])
        .arg(p("course/course.toml"))
        .arg("--submissions")
        .arg(p("class"))
        .arg("--scorecard")
        .arg(p("out/rows.csv"))
        .arg("--summary")
        .arg(p("out/summary.csv"))
        .arg("--keep-output")
        .arg(p("out/kept"))
        .arg("--store")
        .arg(p("store"))
        .args(["--force", "--time-limit", "20s"])
        .args(args)
        .output()
        .unwrap()
}

/// What every kept stream of `student` said, line by line.
fn said(ta: &Path, student: &str, stream: &str) -> Vec<String> {
    walkdir::WalkDir::new(ta.join("out/kept").join(student))
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == stream))
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One tier's run, and everything the issue asks of it.
fn nothing_reaches_anyone(tier: &str, place: Place, args: &[&str]) {
    let ta = ta_folder();
    let root = ta.path();
    std::fs::create_dir(root.join("out")).unwrap();
    // An earlier run's outputs, there from the start.
    std::fs::write(root.join("out/rows.csv"), "").unwrap();
    std::fs::write(root.join("out/summary.csv"), "last year's\n").unwrap();
    let shm = segments();
    let out = grade(root, place, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows = read_scorecard(&root.join("out/rows.csv"));
    let verdicts: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["suite"] != "build")
        .map(|r| (r["candidate"].clone(), r["verdict"].clone()))
        .collect();
    let cases = |who: &str| verdicts.iter().filter(|(c, _)| c == who).count();
    let everyone = [
        "a-honest",
        "b-thief",
        "c-planter",
        "d-honest",
        "e-honest",
        "f-bomb",
        "g-honest",
    ];
    for who in everyone {
        assert_eq!(cases(who), 2, "{tier}: {who}: {verdicts:?}\n{stderr}");
    }
    for (who, verdict) in &verdicts {
        let honest = who.ends_with("honest");
        assert_eq!(
            verdict == "accepted",
            honest,
            "{tier}: {who} {verdict}: {verdicts:?}\n{stderr}"
        );
    }
    let thief = said(root, "b-thief", "stderr");
    let read: Vec<&String> = thief.iter().filter(|l| l.starts_with("read:")).collect();
    assert_eq!(read, Vec::<&String>::new(), "{tier}: the thief read these");
    assert!(
        !thief
            .iter()
            .any(|l| l == "ipc:contact" || l == "mq:contact" || l == "vsock:open"),
        "{tier}: {thief:?}"
    );
    assert_eq!(segments(), shm, "{tier}: an IPC object outlived its case");
    assert!(!queue_left(), "{tier}: a message queue outlived its case");
    // Nothing planted reached anyone; the TA's files are whole.
    for who in ["a-honest", "d-honest", "e-honest", "g-honest"] {
        let printed = said(root, who, "stdout");
        assert!(!printed.iter().any(|l| l == "planted"), "{tier}: {who}");
    }
    // (What it wrote where it could, its view's private places, died
    // with it: the files themselves are whole.)
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "the TA's own\n",
        "{tier}"
    );
    let text = std::fs::read_to_string(root.join("out/rows.csv")).unwrap();
    assert!(text.starts_with("candidate,"), "{tier}: {text}");
    assert!(!text.contains("pwned"), "{tier}");
    let summary = std::fs::read_to_string(root.join("out/summary.csv")).unwrap();
    assert!(summary.starts_with("submission,"), "{tier}: {summary}");
    assert!(!summary.contains("pwned"), "{tier}");
    // What the run wrote is its user's alone.
    for made in ["out/rows.csv", "out/summary.csv", "out/kept"] {
        let mode = std::fs::metadata(root.join(made))
            .unwrap()
            .permissions()
            .mode();
        let want = if made == "out/kept" { 0o700 } else { 0o600 };
        assert_eq!(mode & 0o777, want, "{tier}: {made}");
    }
}

fn root() -> bool {
    require(
        rustix::process::geteuid().is_root() && Path::new("/usr/bin/python3").exists(),
        "trusted: needs root (a user per job slot, and setpriv to become an ordinary user) and python3",
    )
}

#[test]
fn nothing_reaches_anyone_as_root() {
    if !root() {
        return;
    }
    nothing_reaches_anyone("root", Place::Root, &["--jobs", "2"]);
    // The container tier's own sandbox (a user per slot, Landlock, no
    // view): as root with the view turned to Landlock.
    nothing_reaches_anyone(
        "root, landlock",
        Place::Root,
        &["--jobs", "2", "--sandbox", "landlock"],
    );
}

/// The container tier for real: root in a Podman container with the
/// engine's defaults (no CAP_SYS_ADMIN, no new namespaces, cgroups
/// read-only), the TA's folder mounted at its own place.
#[test]
fn nothing_reaches_anyone_in_a_podman_container() {
    if !root() || !super::support::podman_usable() {
        return;
    }
    nothing_reaches_anyone("root in Podman", Place::Podman, &["--jobs", "2"]);
}

#[test]
fn nothing_reaches_anyone_under_bubblewrap() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    nothing_reaches_anyone(
        "root, bubblewrap",
        Place::Root,
        &["--jobs", "2", "--sandbox", "bwrap"],
    );
    nothing_reaches_anyone(
        "an ordinary user (bubblewrap)",
        Place::Ordinary,
        &["--jobs", "2"],
    );
}

#[test]
fn nothing_reaches_anyone_under_landlock_as_an_ordinary_user() {
    if !root() || !super::support::require_ordinary() {
        return;
    }
    nothing_reaches_anyone(
        "an ordinary user, landlock",
        Place::Ordinary,
        &["--jobs", "1", "--sandbox", "landlock"],
    );
    // More than one at a time would share the user's process budget: a
    // fork bomb's neighbours would fail. Refused, saying why.
    let ta = ta_folder();
    let out = grade(
        ta.path(),
        Place::Ordinary,
        &["--jobs", "2", "--sandbox", "landlock"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--jobs 2: under Landlock as an ordinary user"),
        "{stderr}"
    );
}

/// A bubblewrap start that fails on something of its own (a container
/// engine's network namespace mount appearing while bubblewrap binds the
/// system) is tried once more before the row is `harness-error`: a
/// `bwrap` on PATH that fails its first case so, then is the real one.
/// One that keeps failing is our failure, never the student's verdict.
#[test]
fn a_sandbox_start_that_races_a_mount_is_tried_again() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("puzzlegrade-race-")
        .tempdir_in("/home")
        .unwrap();
    // (The sandbox starts as the slot's user: it may enter, and count.)
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v bwrap"])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_string();
    let fake = bin.join("bwrap");
    let run = |fails: usize| {
        let tries = dir.path().join(format!("tries-{fails}"));
        std::fs::write(&tries, "").unwrap();
        std::fs::set_permissions(&tries, std::fs::Permissions::from_mode(0o666)).unwrap();
        std::fs::write(
            &fake,
            format!(
                "#!/bin/sh\ncase \"$*\" in *--add-seccomp-fd*)\n\
                 echo x >> {tries}\n\
                 if [ \"$(wc -l < {tries})\" -le {fails} ]; then\n\
                 echo \"bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount \\\"/newroot/run/netns/cni-1\\\": No such file or directory\" >&2; exit 1; fi;;\n\
                 esac\nexec {real} \"$@\"\n",
                tries = tries.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let card = dir.path().join(format!("rows-{fails}.csv"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
            .env("PATH", path)
            .args(["grade", "--sandbox", "bwrap", "--jobs", "1"])
            .args(["--filter", "2x2-00", "--suite"])
            .arg(workspace().join("suites/lightsout/easy"))
            .arg("--candidate")
            .arg(replica("lightsout"))
            .arg("--scorecard")
            .arg(&card)
            .output()
            .unwrap();
        let rows = read_scorecard(&card);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(rows.len(), 1, "{stderr}");
        let tried = std::fs::read_to_string(&tries).unwrap().lines().count();
        (rows[0]["verdict"].clone(), rows[0]["detail"].clone(), tried)
    };
    let (verdict, _, tried) = run(1);
    assert_eq!(
        (verdict.as_str(), tried),
        ("accepted", 2),
        "once more, then it started"
    );
    let (verdict, detail, tried) = run(5);
    assert_eq!((verdict.as_str(), tried), ("harness-error", 2), "{detail}");
    assert!(
        detail.contains("the sandbox (bwrap) did not start the candidate: bwrap: Can't bind mount"),
        "{detail}"
    );
}

/// A student's own run in its own folder, as an ordinary user (the
/// solver beside its scorecard and a JSON export rewritten as rows come):
/// a case that keeps reading the export, and every file beside it, for
/// as long as it runs never reads what the run writes, though the export
/// is replaced (a temporary file, then a rename) while it runs.
#[test]
fn an_export_rewritten_beside_the_solver_stays_out_of_sight() {
    if !root() || !require_ordinary_bwrap() {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("puzzlegrade-own-")
        .tempdir_in("/home")
        .unwrap();
    let solver = dir.path().join("solver.py");
    std::fs::write(
        &solver,
        format!(
            "import os, sys, time\n\
             here = os.path.dirname(os.path.abspath(__file__))\n\
             end = time.time() + (2.0 if sys.argv[-1].endswith('00.txt') else 0.3)\n\
             read = set()\n\
             while time.time() < end:\n\
             \x20   for name in os.listdir(here):\n\
             \x20       path = os.path.join(here, name)\n\
             \x20       if name.endswith('.py') or name in read or not os.path.isfile(path):\n\
             \x20           continue\n\
             \x20       try:\n\
             \x20           if open(path).read():\n\
             \x20               read.add(name)\n\
             \x20               print('read:' + name, file=sys.stderr)\n\
             \x20       except OSError:\n\
             \x20           pass\n\
             os.execv('{lo}', ['{lo}'] + sys.argv[1:])\n",
            lo = replica("lightsout")
        ),
    )
    .unwrap();
    let run = harness_at(Place::Ordinary, dir.path())
        .args(["grade", "--jobs", "2", "--filter", "2x", "--suite"])
        .arg(workspace().join("suites/lightsout/easy"))
        .args(["--candidate", "python3 solver.py"])
        .args(["--scorecard", "rows.csv", "--export", "json:rows.json"])
        .args(["--keep-output", "kept"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let rows = read_scorecard(&dir.path().join("rows.csv"));
    assert!(rows.len() >= 4, "{stderr}");
    assert!(
        rows.iter().all(|r| r["verdict"] == "accepted"),
        "{rows:?}\n{stderr}"
    );
    let read: Vec<String> = walkdir::WalkDir::new(dir.path().join("kept"))
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "stderr"))
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("read:"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(read, Vec::<String>::new(), "read beside the solver");
}
