//! The verdict clock is CPU time of the case's whole process tree, and no
//! verdict depends on the machine's load: four busy loops beside the run
//! slow a candidate down but change no verdict; the wall clock is only a
//! safety net, and a case it stops beside others with its CPU time under
//! the limit is run again alone where it waited for a core (one asleep or
//! blocked is stopped once).

use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command};

use crate::support::{Fixture, misbehave};

/// Busy loops on the machine, stopped when dropped.
struct Load(Vec<Child>);

impl Load {
    /// `n` busy loops. The helper programs are built first: a build the
    /// tests start under such a load (theirs or another test's, in the
    /// same process) takes minutes, which no test's timing allows for.
    fn start(n: usize) -> Self {
        misbehave();
        Self(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// (verdict, detail) of every row, sorted by case.
fn verdicts(f: &Fixture) -> Vec<(String, String, String)> {
    let mut rows: Vec<_> = f
        .rows()
        .into_values()
        .map(|r| (r["case"].clone(), r["verdict"].clone(), r["detail"].clone()))
        .collect();
    rows.sort();
    rows
}

#[test]
fn cpu_time_is_the_clock_however_loaded_the_machine() {
    let _load = Load::start(4);
    let burn = |ms: u32, procs: u32| format!("{} burn {ms} {procs}", misbehave());
    // 1.5 s of CPU under a 2 s limit, on two cores shared with four busy
    // loops and the other case: seconds of wall time, accepted.
    let f = Fixture::new();
    f.grade(&burn(1500, 1))
        .args(["--cpu-limit", "2s", "--jobs", "2"])
        .assert()
        .code(0);
    for (case, r) in f.rows() {
        let cpu: f64 = r["cpu_ms"].parse().unwrap();
        // (The cgroup's count and the process's own clock differ a little.)
        assert!((1400.0..2000.0).contains(&cpu), "{case}: {cpu} ms of CPU");
    }
    // 3 s of CPU: over the limit, whatever the wall clock says.
    f.grade(&burn(3000, 1))
        .args(["--cpu-limit", "2s", "--jobs", "2", "--force"])
        .assert()
        .code(1);
    let over = |case: &str| {
        (
            case.to_string(),
            "time-limit".to_string(),
            "CPU time over 2s".to_string(),
        )
    };
    assert_eq!(verdicts(&f), [over("solvable.txt"), over("unsolvable.txt")]);
    // The whole tree's time: three processes of 0.8 s each (a cgroup
    // measures them: as root).
    if rustix::process::geteuid().is_root() {
        f.grade(&burn(800, 3))
            .args(["--cpu-limit", "2s", "--jobs", "2", "--force"])
            .assert()
            .code(1);
        assert_eq!(verdicts(&f), [over("solvable.txt"), over("unsolvable.txt")]);
    }
}

/// The bar's scale of a busy machine: sixteen busy loops beside the run on
/// a machine of two cores. A case that computes 1.6 s under a 2 s CPU
/// limit waits for a core most of its wall time, far past the wall
/// clock's safety net (11 s); that waiting is the machine's, not counted:
/// accepted the first time, without a run alone. A case that sleeps waits
/// for nothing and is stopped at the safety net as on a quiet machine.
#[test]
fn a_busy_machine_moves_no_time_verdict() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let _load = Load::start(10 * cores);
    let f = Fixture::new();
    let burn = format!("{} burn 1600 1", misbehave());
    let start = std::time::Instant::now();
    // The default safety net under a 2 s CPU limit (the fixture's is
    // longer).
    let net = ["--cpu-limit", "2s", "--wall-limit", "11s", "--jobs", "2"];
    f.grade(&burn).args(net).assert().code(0);
    for (case, verdict, detail) in verdicts(&f) {
        assert_eq!(verdict, "accepted", "{case}: {detail}");
        assert!(!detail.contains("run again"), "{case}: {detail}");
    }
    // Past the safety net on the wall clock: only the waiting's discount
    // kept them running.
    let walls: Vec<f64> = f
        .rows()
        .values()
        .map(|r| r["wall_ms"].parse().unwrap())
        .collect();
    assert!(walls.iter().any(|&w| w > 11_000.0), "{walls:?}");
    let took = start.elapsed();
    let sleeper = format!("{} sleep", misbehave());
    let start = std::time::Instant::now();
    f.grade(&sleeper)
        .args(net)
        .args(["--force", "--filter", "unsolvable"])
        .assert()
        .code(1);
    let slept = start.elapsed();
    for (case, verdict, detail) in verdicts(&f) {
        assert_eq!(verdict, "time-limit", "{case}");
        // (Its start may have waited a little for a core.)
        assert!(
            detail.starts_with("stopped by the wall-clock safety net at 11s")
                && detail.contains(" with 0.0")
                && detail.ends_with(
                    " s of CPU time (the limit is 2s): the rest of the time it was asleep or blocked, not waiting for a core"
                ),
            "{case}: {detail}"
        );
    }
    // Its safety net (11 s) on its own (no other case beside it to run
    // again alone from): within a minute.
    assert!(slept < std::time::Duration::from_secs(60), "{slept:?}");
    eprintln!("note: the busy case's run took {took:?}; the sleeper's {slept:?}");
}

/// A hostile case cannot buy itself time with waiting of its own making:
/// eight spinners it starts beside its sleeping main process keep each
/// other waiting for a core, but its tree had a core's worth of CPU time
/// or more all along, so none of that waiting is left out: stopped at its
/// 1 s wall limit, not at its 60 s CPU limit. As root its cgroup counts
/// the tree's CPU time; as an ordinary user (bubblewrap, no cgroup) its
/// tasks' own counts do, the same.
#[test]
fn waiting_of_its_own_making_buys_a_case_nothing() {
    let rogue = "sh -c 'for i in 1 2 3 4 5 6 7 8; do (while :; do :; done) & done; sleep 100'";
    let limits = ["--cpu-limit", "60s", "--wall-limit", "1s", "--jobs", "1"];
    let check = |f: &Fixture, how: &str| {
        for (case, verdict, detail) in verdicts(f) {
            assert_eq!(verdict, "time-limit", "{how} {case}: {detail}");
            assert!(
                detail.starts_with("still running after 1s"),
                "{how} {case}: {detail}"
            );
        }
        let walls: Vec<f64> = f
            .rows()
            .values()
            .map(|r| r["wall_ms"].parse().unwrap())
            .collect();
        assert!(walls.iter().all(|&w| w < 2_500.0), "{how}: {walls:?}");
    };
    let f = Fixture::new();
    f.grade(rogue)
        .args(limits)
        .args(["--filter", "unsolvable"])
        .assert()
        .code(1);
    check(&f, "as root");
    if !crate::support::require_ordinary_bwrap() {
        return;
    }
    let f = Fixture::new();
    let out = crate::support::harness_as_an_ordinary_user(f.dir.path())
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", rogue])
        .arg("--scorecard")
        .arg(f.scorecard())
        .args(limits)
        .args(["--filter", "unsolvable"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let rows = f.rows();
    assert!(
        rows.values().all(|r| !r["isolation"].contains("cgroup")),
        "{rows:?}"
    );
    check(&f, "as an ordinary user");
}

/// A case the wall clock's safety net stops having hardly waited for a
/// core was asleep or blocked: alone it would have had no more of a core,
/// so it is stopped once and not run again. A candidate that blocks on a
/// lock its neighbour holds is stopped so (the two cases of one run can
/// share nothing but what a test hands both, here `LOCK`); two sleepers
/// on two slots cost one net each, not one more each alone after.
#[test]
fn a_hung_case_costs_one_safety_net() {
    let f = Fixture::new();
    let lock = f.dir.path().join("lock");
    std::fs::create_dir(&lock).unwrap();
    std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o777)).unwrap();
    let shy = f.dir.path().join("shy");
    std::fs::write(
        &shy,
        format!(
            "#!/bin/sh\n\
             exec 9<\"$LOCK\"\n\
             flock -n 9 || {{ sleep 100; exit 1; }}\n\
             sleep 0.7\n\
             exec {} solve --family lightsout \"$@\"\n",
            env!("CARGO_BIN_EXE_harness")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&shy, std::fs::Permissions::from_mode(0o755)).unwrap();
    f.grade(shy.to_str().unwrap())
        .args(["--cpu-limit", "1s", "--wall-limit", "2s", "--jobs", "2"])
        .arg("--env")
        .arg(format!("LOCK={}", lock.display()))
        .assert()
        .code(1);
    let rows = verdicts(&f);
    assert!(rows.iter().all(|r| !r.2.contains("alone")), "{rows:?}");
    let blocked: Vec<_> = rows.iter().filter(|r| r.1 == "time-limit").collect();
    assert_eq!(
        blocked.len(),
        1,
        "one of the two waited for the other: {rows:?}"
    );
    assert!(
        blocked[0].2.ends_with(
            " s of CPU time (the limit is 1s): the rest of the time it was asleep or blocked, not waiting for a core"
        ),
        "{}",
        blocked[0].2
    );

    // Two sleepers on two slots under a 2 s limit: each stopped once at
    // its 11 s net, together; with a run alone each after, 33 s. (The
    // helper is named before the clock starts: its first use may build
    // it.)
    let sleeper = format!("{} sleep", misbehave());
    let start = std::time::Instant::now();
    f.grade(&sleeper)
        .args([
            "--cpu-limit",
            "2s",
            "--wall-limit",
            "11s",
            "--jobs",
            "2",
            "--force",
        ])
        .assert()
        .code(1);
    let took = start.elapsed();
    for (case, verdict, detail) in verdicts(&f) {
        assert_eq!(verdict, "time-limit", "{case}");
        assert!(!detail.contains("alone"), "{case}: {detail}");
        assert!(
            detail.starts_with("stopped by the wall-clock safety net at 11s with 0.0")
                && detail.ends_with(
                    " s of CPU time (the limit is 2s): the rest of the time it was asleep or blocked, not waiting for a core"
                ),
            "{case}: {detail}"
        );
    }
    // (Below the 33 s of a run alone after; above the 11 s of the nets
    // with room for the harness's own start on a loaded machine.)
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
}

/// The cores each case of a run was given, and had after asking for
/// every core, from its kept stderr (the `cores` helper says them).
fn cores_seen(kept: &std::path::Path) -> Vec<(Vec<usize>, Vec<usize>)> {
    let list = |l: &str| -> Vec<usize> { l.split(',').map(|c| c.parse().unwrap()).collect() };
    let mut out: Vec<(Vec<usize>, Vec<usize>)> = walkdir::WalkDir::new(kept)
        .into_iter()
        .flatten()
        .filter(|e| e.path().to_string_lossy().ends_with(".stderr"))
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix("cores: "))
                .unwrap();
            let (given, then) = line.split_once(" then ").unwrap();
            (list(given), list(then))
        })
        .collect();
    out.sort();
    out
}

/// With `--jobs` at or under the cores, each job slot's cases keep to a
/// share of the cores of their own, so neighbours do not take each
/// other's time; as root a cpuset per slot holds them there even when a
/// candidate asks for every core. One job at a time keeps every core.
#[test]
fn each_job_slot_keeps_to_cores_of_its_own() {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    if all < 2 {
        eprintln!("note: skipping: one core here, nothing to share out");
        return;
    }
    let f = Fixture::new();
    let kept = f.dir.path().join("kept");
    let out = f
        .grade(&format!("{} cores 400", misbehave()))
        .args(["--jobs", "2", "--keep-output"])
        .arg(&kept)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let root = rustix::process::geteuid().is_root();
    let label = if root { "+cpuset" } else { "+cpus" };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.ends_with(label), "{stderr}");
    for r in f.rows().values() {
        assert!(r["isolation"].ends_with(label), "{r:?}");
    }
    let seen = cores_seen(&kept);
    assert_eq!(seen.len(), 2, "{seen:?}");
    let share = all / 2;
    assert!(
        seen.iter().all(|(given, _)| given.len() == share) && seen[0].0 != seen[1].0,
        "two slots, {share} core(s) each, not the same: {seen:?}"
    );
    if root {
        // Asking for every core changed nothing: the slot's cpuset holds.
        assert!(seen.iter().all(|(given, then)| given == then), "{seen:?}");
    }

    // One job at a time: every core, nothing said about cores.
    std::fs::remove_dir_all(&kept).unwrap();
    let out = f
        .grade(&format!("{} cores 0", misbehave()))
        .args(["--jobs", "1", "--force", "--keep-output"])
        .arg(&kept)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("cpus") && !stderr.contains("cores"),
        "{stderr}"
    );
    let fewest = cores_seen(&kept).iter().map(|(given, _)| given.len()).min();
    assert_eq!(fewest, Some(all));
}

/// A job slot's cases run one after another in the slot's own cgroup, and
/// each is timed from its own start: four cases of 0.6 s of CPU each, one
/// at a time on one slot under a 1 s limit, are each accepted with about
/// 0.6 s (the slot's count is not reset between them, it is noted).
#[test]
fn each_case_on_a_job_slot_is_timed_from_its_own_start() {
    let board = "3x2\n#OO\n##O\n";
    let names: Vec<String> = (0..4).map(|i| format!("b{i}.txt")).collect();
    let rows: Vec<(&str, Option<&str>)> = names.iter().map(|n| (n.as_str(), Some(board))).collect();
    let f = Fixture::with_rows(&rows);
    f.grade(&format!("{} burn 600 1", misbehave()))
        .args(["--cpu-limit", "1s", "--jobs", "1"])
        .assert()
        .code(0);
    let mut seen = Vec::new();
    for (case, r) in f.rows() {
        let cpu: f64 = r["cpu_ms"].parse().unwrap();
        assert_eq!(r["verdict"], "accepted", "{case}: {}", r["detail"]);
        assert!((550.0..900.0).contains(&cpu), "{case}: {cpu} ms of CPU");
        seen.push(case);
    }
    assert_eq!(seen.len(), 4);
}

/// A 15 s CPU case under a 30 s CPU limit and the default safety net
/// (95 s) beside `loops` busy loops, graded as `harness` does it; the
/// row.
fn fifteen_seconds_beside(loops: usize, harness: Command, f: &Fixture) -> (String, String, f64) {
    let _load = Load::start(loops);
    let mut harness = harness;
    let out = harness
        .arg("grade")
        .arg("--suite")
        .arg(f.suite())
        .args(["--candidate", &format!("{} burn 15000 1", misbehave())])
        .arg("--scorecard")
        .arg(f.scorecard())
        .args([
            "--cpu-limit",
            "30s",
            "--jobs",
            "1",
            "--filter",
            "solvable.txt",
        ])
        .output()
        .unwrap();
    let rows = f.rows();
    let row = &rows["solvable.txt"];
    eprintln!(
        "note: beside {loops} busy loops: {} ({}), {} ms of wall, {} ms of CPU; exit {:?}",
        row["verdict"],
        row["detail"],
        row["wall_ms"],
        row["cpu_ms"],
        out.status.code()
    );
    (
        row["verdict"].clone(),
        row["detail"].clone(),
        row["wall_ms"].parse().unwrap(),
    )
}

/// The measure, long (minutes each; `scripts/test-load`): a case
/// that computes 15 s under a 30 s limit beside sixteen busy loops a core
/// takes several times the 95 s safety net of wall time and is accepted,
/// as root (its cgroup counts its CPU time) and as an ordinary user (no
/// cgroup: its tasks' own counts).
#[test]
#[ignore = "minutes of wall time: scripts/test-load"]
fn fifteen_seconds_of_cpu_beside_sixteen_loops_a_core_is_accepted() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let f = Fixture::new();
    let (verdict, detail, wall) =
        fifteen_seconds_beside(16 * cores, Command::new(env!("CARGO_BIN_EXE_harness")), &f);
    assert_eq!((verdict.as_str(), detail.as_str()), ("accepted", ""));
    assert!(wall > 95_000.0, "{wall} ms: not past the net, no test");
    if !crate::support::require_ordinary_bwrap() {
        return;
    }
    let f = Fixture::new();
    let as_user = crate::support::harness_as_an_ordinary_user(f.dir.path());
    let (verdict, detail, wall) = fifteen_seconds_beside(16 * cores, as_user, &f);
    assert_eq!((verdict.as_str(), detail.as_str()), ("accepted", ""));
    assert!(wall > 95_000.0, "{wall} ms: not past the net, no test");
}

/// The same at a load of 50 (fifty busy loops beside it, whatever the
/// cores).
#[test]
#[ignore = "minutes of wall time: scripts/test-load"]
fn fifteen_seconds_of_cpu_at_load_fifty_is_accepted() {
    let f = Fixture::new();
    let (verdict, detail, wall) =
        fifteen_seconds_beside(50, Command::new(env!("CARGO_BIN_EXE_harness")), &f);
    assert_eq!((verdict.as_str(), detail.as_str()), ("accepted", ""));
    assert!(wall > 95_000.0, "{wall} ms: not past the net, no test");
}

/// What a row says was left out is what was: a case that computes 1.5 s
/// beside sixteen busy loops a core, then sleeps, is stopped at its 5 s
/// net, and its wall time is the net plus the waiting the row names, to a
/// few tenths of a second (the harness's look every 50 ms, and the
/// grace).
#[test]
#[ignore = "a minute of wall time: scripts/test-load"]
fn the_waiting_a_row_names_is_the_waiting_left_out() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let _load = Load::start(16 * cores);
    let f = Fixture::new();
    let candidate = format!("sh -c '{} burn-one 1500; sleep 100'", misbehave());
    f.grade(&candidate)
        .args(["--cpu-limit", "2s", "--wall-limit", "5s", "--jobs", "1"])
        .args(["--filter", "unsolvable"])
        .assert()
        .code(1);
    let rows = f.rows();
    let row = &rows["unsolvable.txt"];
    let detail = &row["detail"];
    let waited: f64 = detail
        .split_once("(and ")
        .and_then(|(_, rest)| rest.split_once(" s waiting for a core, not counted)"))
        .map(|(n, _)| n.parse().unwrap())
        .unwrap_or_else(|| panic!("{detail}"));
    let wall: f64 = row["wall_ms"].parse().unwrap();
    eprintln!("note: {wall} ms of wall, {waited} s left out: {detail}");
    assert!(waited > 5.0, "{detail}: the load made it wait");
    let off = wall / 1000.0 - 5.0 - waited;
    assert!(
        (-0.3..0.5).contains(&off),
        "{off} s off: {detail}, {wall} ms"
    );
}
