//! Shared helpers: a small suite in a temporary folder, the scorecard as
//! rows, and checks that no helper process outlived a run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// The harness binary.
pub fn harness() -> Command {
    Command::cargo_bin("harness").expect("harness binary")
}

/// A staff-tool replica of the root package (`sbp-checker`, ...): beside
/// the harness binary, built there first if this test run did not build it.
pub fn replica(name: &str) -> String {
    workspace_bin("puzzlegrade", name)
}

/// The misbehaving helper binary (package test-helpers, so that installing
/// the harness does not install it).
pub fn misbehave() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| workspace_bin("test-helpers", "misbehave"))
}

/// The replica of a container engine's default privileges (test-helpers'
/// `container`: no CAP_SYS_ADMIN, the engines' seccomp profile, cgroups
/// read-only) around a command; it needs root.
pub fn container() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| workspace_bin("test-helpers", "container"))
}

/// Whether Podman can run a container here (`.ci/run` installs it with
/// runc); else says why the test skips (a failure where CI requires it).
pub fn podman_usable() -> bool {
    let ok = std::process::Command::new("podman")
        .args(podman_args())
        .args(["true"])
        .output()
        .is_ok_and(|o| o.status.success());
    require(
        ok,
        "Podman cannot run a container here (apt-get install podman runc)",
    )
}

/// `podman run` with the engine's defaults and this machine's needs,
/// without the image: the caller adds its own options, then `--rootfs
/// /:O` and the command.
pub fn podman_run_args() -> Vec<&'static str> {
    let all = podman_args();
    all[..all.len() - 2].to_vec()
}

/// `podman run` with the engine's defaults, the host's system as the
/// image (read-only under an overlay) and what this machine needs: runc
/// (crun refuses hybrid cgroups) and limits no higher than the host's
/// (no CAP_SYS_RESOURCE here).
fn podman_args() -> Vec<&'static str> {
    vec![
        "run",
        "--rm",
        "--runtime",
        "runc",
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1000:1000",
        "--network",
        "none",
        "--rootfs",
        "/:O",
    ]
}

/// Runs shell `commands` in a Podman container, with `tree` at `mount`.
pub fn in_podman(tree: &Path, mount: &str, commands: &str) {
    let run = std::process::Command::new("podman")
        .args(podman_run_args())
        .arg("-v")
        .arg(format!("{}:{mount}", tree.display()))
        .args(["--rootfs", "/:O", "sh", "-c", commands])
        .output()
        .expect("podman");
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Binary `name` of workspace package `package`, beside the harness
/// binary; built there first if this test run did not build it.
fn workspace_bin(package: &str, name: &str) -> String {
    let dir = Path::new(env!("CARGO_BIN_EXE_harness"))
        .parent()
        .expect("the harness binary's folder")
        .to_owned();
    let path = dir.join(name);
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let built = std::process::Command::new(cargo)
            .args(["build", "-q", "-p", package, "--bin", name])
            .current_dir(workspace())
            .status()
            .expect("run cargo build");
        assert!(built.success(), "cannot build {name}");
    }
    path.display().to_string()
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `harness grade --suite SUITE ARGS...` with its scorecard in a temporary
/// folder: the finished run, to assert on, and the scorecard's rows.
pub fn grade_suite(
    suite: &Path,
    args: &[&str],
) -> (assert_cmd::assert::Assert, Vec<HashMap<String, String>>) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let scorecard = dir.path().join("scorecard.csv");
    let run = harness()
        .arg("grade")
        .arg("--suite")
        .arg(suite)
        .args(args)
        .arg("--scorecard")
        .arg(&scorecard)
        .assert();
    let rows = read_scorecard(&scorecard);
    (run, rows)
}

/// `../shared/corpus/<sub>` when present; otherwise prints a note and
/// returns `None` so the caller can skip (a fresh clone has no `../shared`).
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = workspace().join("../shared/corpus").join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        // CI sets this: there, a missing corpus must fail, not skip.
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_CORPUS").is_none(),
            "{} is absent and PUZZLEGRADE_REQUIRE_CORPUS is set",
            dir.display()
        );
        eprintln!(
            "note: {} is absent; skipping the corpus test",
            dir.display()
        );
        None
    }
}

/// A temporary folder with a Lights Out suite `lightsout/tiny/tiny.csv`
/// (suite name `lightsout/tiny`): `solvable.txt`
/// (the handout's 3x2-34, one press) and `unsolvable.txt` (3x2-32).
pub struct Fixture {
    /// The temporary folder (suite, scorecard, pid file).
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// The two-board suite.
    pub fn new() -> Self {
        Self::with_rows(&[
            ("solvable.txt", Some("3x2\n#OO\n##O\n")),
            ("unsolvable.txt", Some("3x2\n#O#\n#OO\n")),
        ])
    }

    /// A suite of the given boards; `None` lists a file without writing it.
    pub fn with_rows(rows: &[(&str, Option<&str>)]) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temporary folder");
        // Candidates may run as other users (the harness as root): they
        // must reach the folder and append to the pid file.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let pids = dir.path().join("pids");
        std::fs::write(&pids, "").unwrap();
        std::fs::set_permissions(&pids, std::fs::Permissions::from_mode(0o666)).unwrap();
        let suite = dir.path().join("lightsout/tiny");
        std::fs::create_dir_all(&suite).unwrap();
        let mut listing = String::from("board,expect,min_presses\n");
        for (name, text) in rows {
            listing.push_str(&format!("{name},,\n"));
            if let Some(t) = text {
                std::fs::write(suite.join(name), t).unwrap();
            }
        }
        std::fs::write(suite.join("tiny.csv"), listing).unwrap();
        Self { dir }
    }

    /// The suite folder.
    pub fn suite(&self) -> PathBuf {
        self.dir.path().join("lightsout/tiny")
    }

    /// Where the scorecard goes.
    pub fn scorecard(&self) -> PathBuf {
        self.dir.path().join("scorecard.csv")
    }

    /// Where helpers record their pids.
    pub fn pids(&self) -> PathBuf {
        self.dir.path().join("pids")
    }

    /// `harness grade` on this suite with `candidate`, recording pids.
    pub fn grade(&self, candidate: &str) -> Command {
        let mut cmd = self.grade_without_candidate();
        cmd.arg("--candidate").arg(candidate);
        cmd
    }

    /// `harness grade` on this suite (a 30 s wall-clock net unless given
    /// again).
    pub fn grade_without_candidate(&self) -> Command {
        let mut cmd = harness();
        cmd.arg("grade")
            .arg("--suite")
            .arg(self.suite())
            .args(["--wall-limit", "30s"])
            .arg("--scorecard")
            .arg(self.scorecard())
            .arg("--env")
            .arg(format!("MISBEHAVE_PIDS={}", self.pids().display()));
        cmd
    }

    /// The scorecard rows, keyed by case.
    pub fn rows(&self) -> HashMap<String, HashMap<String, String>> {
        read_scorecard(&self.scorecard())
            .into_iter()
            .map(|r| (r["case"].clone(), r))
            .collect()
    }

    /// Asserts that every process a helper recorded is gone (or a zombie).
    pub fn assert_no_survivors(&self) {
        let pids = std::fs::read_to_string(self.pids()).unwrap_or_default();
        assert!(!pids.is_empty(), "the helpers recorded no pids");
        for pid in pids.lines() {
            let stat = format!("/proc/{pid}/stat");
            let deadline = Instant::now() + Duration::from_secs(3);
            loop {
                let alive = std::fs::read_to_string(&stat)
                    .map(|s| {
                        !s.rsplit(')')
                            .next()
                            .unwrap_or("")
                            .trim_start()
                            .starts_with('Z')
                    })
                    .unwrap_or(false);
                if !alive {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "helper process {pid} survived the run"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Reads a scorecard into rows of column -> value.
pub fn read_scorecard(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("scorecard exists");
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// Copies the tree at `from` to `to` (folders and files).
pub fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let target = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Skips (with a note) unless `ok`, or fails where CI requires it
/// (`PUZZLEGRADE_REQUIRE_ISOLATION`).
pub fn require(ok: bool, why: &str) -> bool {
    if !ok {
        assert!(
            std::env::var_os("PUZZLEGRADE_REQUIRE_ISOLATION").is_none(),
            "must run here: {why}"
        );
        eprintln!("note: skipping: {why}");
    }
    ok
}

/// The user (and group) tests become, by `setpriv` from root, to run the
/// harness as an ordinary user.
const ORDINARY: &str = "61000";

/// `setpriv`'s arguments that make that user (before the command).
const BECOME: [&str; 5] = ["--reuid", ORDINARY, "--regid", ORDINARY, "--clear-groups"];

/// Whether tests can become an ordinary user here (root, and `setpriv`):
/// skips with a note, or fails where CI requires isolation.
pub fn require_ordinary() -> bool {
    let root = rustix::process::geteuid().is_root() && Path::new("/usr/bin/setpriv").exists();
    require(root, "needs root and setpriv to become an ordinary user")
}

/// Whether the harness can run here as an ordinary user with bubblewrap's
/// tier ([`require_ordinary`], and a sandbox bubblewrap can make for that
/// user): skips with a note, or fails where CI requires isolation.
pub fn require_ordinary_bwrap() -> bool {
    if !require_ordinary() {
        return false;
    }
    let bwrap = std::process::Command::new("setpriv")
        .args(BECOME)
        .args(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"])
        .status()
        .is_ok_and(|s| s.success());
    require(
        bwrap,
        "bwrap cannot make a sandbox for an ordinary user here",
    )
}

/// The harness, run as an ordinary user (by `setpriv`), `dir` (a test's
/// folder: its suite, its scripts, its scorecard) given to that user
/// first.
pub fn harness_as_an_ordinary_user(dir: &Path) -> std::process::Command {
    let status = std::process::Command::new("chown")
        .args(["-R", &format!("{ORDINARY}:{ORDINARY}")])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
    let mut cmd = std::process::Command::new("setpriv");
    cmd.args(BECOME)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_harness"));
    cmd
}

/// Where the harness runs.
#[derive(Clone, Copy)]
pub enum Place {
    Root,
    Ordinary,
    /// As root in a Podman container with the engine's defaults.
    Podman,
}

/// The harness, run `place`, in `dir`.
pub fn harness_at(place: Place, dir: &Path) -> std::process::Command {
    let mut cmd = match place {
        Place::Root => std::process::Command::new(env!("CARGO_BIN_EXE_harness")),
        Place::Ordinary => harness_as_an_ordinary_user(dir),
        Place::Podman => {
            let mut c = std::process::Command::new("podman");
            let d = dir.display();
            c.args(podman_run_args())
                .arg("-v")
                .arg(format!("{d}:{d}"))
                .args(["-w", &d.to_string(), "--rootfs", "/:O"])
                .arg(env!("CARGO_BIN_EXE_harness"));
            c
        }
    };
    cmd.current_dir(dir);
    cmd
}

/// A shell script at `path` (mode 755) that runs `prelude` (shell lines,
/// each ended by a newline), then the reference Lights Out solver on its
/// arguments: a candidate that does something first.
pub fn solver_script(path: &Path, prelude: &str) {
    use std::os::unix::fs::PermissionsExt;
    let text = format!(
        "#!/bin/sh\n{prelude}exec {} solve --family lightsout \"$@\"\n",
        env!("CARGO_BIN_EXE_harness")
    );
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Makes `dir` and everything below readable by every user (folders
/// 0755, files 0644), as a package or a class a TA hands to the job
/// slots' users.
pub fn open_to_all(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for d in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let mode = if d.file_type().is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
}
