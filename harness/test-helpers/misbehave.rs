//! A candidate that misbehaves on purpose, for the harness's tests and
//! benchmarks: `misbehave MODE [ARGS...] PUZZLE...`.
//!
//! Modes: `right` (the reference answer of the first family that loads the
//! puzzle files), `wrong` (a move that does not
//! solve), `sleep` (forever), `grandchild` (leaves a sleeping grandchild
//! holding stdout, then exits), `setsid` (leaves a daemon in a session
//! of its own, then exits), `grandchild-wait` (the same, but waits for
//! it), `flood` (stdout without end), `flood-stderr`, `flood-stderr-then-abort` (4 MiB on stderr,
//! then SIGABRT), `signal` (dies of
//! SIGABRT), `exit N` (exits with N, no output), `spin MS` (burns CPU for MS
//! milliseconds, then answers right), `burn MS [N]` (MS milliseconds of CPU
//! time in each of N processes, then answers right), `ignore-term` (ignores SIGTERM and
//! sleeps), `cores MS` (says on stderr the cores it was given and those it
//! has after asking for every core, waits MS milliseconds, answers right), `pad N` (N pairs of cancelling presses, then `right`), `gallery` (the behaviour named by the puzzle file's name: see
//! `gallery`). With MISBEHAVE_PIDS=FILE set, every process appends its pid there.

#![allow(missing_docs)]
// Leaving a child running un-waited is the point of the `grandchild` mode.
#![allow(clippy::zombie_processes)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    record_pid();
    let Some(mode) = args.first() else {
        eprintln!("usage: misbehave MODE [ARGS...] PUZZLE...");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    match mode.as_str() {
        "right" => right(rest),
        "wrong" => {
            println!("0:0");
            println!("0:0");
            println!("0:0");
            ExitCode::SUCCESS
        }
        "sleep" => sleep_forever(),
        "grandchild" | "grandchild-wait" => {
            let me = std::env::current_exe().expect("own path");
            let mut child = Command::new(me)
                .arg("sleep")
                .spawn()
                .expect("spawn grandchild");
            if mode == "grandchild-wait" {
                let _ = child.wait();
            }
            ExitCode::SUCCESS
        }
        "setsid" => {
            // A daemon in a session of its own (out of the candidate's
            // process group, so the group kill misses it), then exit.
            let me = std::env::current_exe().expect("own path");
            let _ = Command::new("setsid")
                .arg(me)
                .arg("sleep")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("spawn setsid");
            // Give it time to record its pid before the group dies.
            std::thread::sleep(Duration::from_millis(200));
            ExitCode::SUCCESS
        }
        "flood" => flood(std::io::stdout().lock()),
        "flood-stderr" => flood(std::io::stderr().lock()),
        "flood-stderr-then-abort" => {
            let block = vec![b'7'; 1 << 16];
            let mut err = std::io::stderr().lock();
            for _ in 0..64 {
                let _ = err.write_all(&block);
            }
            std::process::abort()
        }
        "signal" => std::process::abort(),
        "exit" => ExitCode::from(rest.first().and_then(|s| s.parse().ok()).unwrap_or(3)),
        "spin" => {
            let ms: u64 = rest.first().and_then(|s| s.parse().ok()).unwrap_or(100);
            let until = Instant::now() + Duration::from_millis(ms);
            let mut x = 0u64;
            while Instant::now() < until {
                for i in 0..10_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
                }
            }
            right(&rest[1..])
        }
        "burn" => {
            // MS milliseconds of CPU time (not wall: a loaded machine only
            // makes it slower), in each of N processes at once.
            let ms: u64 = rest.first().and_then(|s| s.parse().ok()).unwrap_or(100);
            let n: usize = rest.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
            let helpers: Vec<_> = (1..n)
                .filter_map(|_| {
                    Command::new(std::env::current_exe().ok()?)
                        .args(["burn-one", &ms.to_string()])
                        .spawn()
                        .ok()
                })
                .collect();
            burn(ms);
            for mut h in helpers {
                let _ = h.wait();
            }
            right(&rest[2..])
        }
        "burn-one" => {
            burn(rest.first().and_then(|s| s.parse().ok()).unwrap_or(100));
            ExitCode::SUCCESS
        }
        "gallery" => gallery(rest),
        "pad" => {
            // N pairs of presses that cancel out, then the right answer.
            let n: usize = rest.first().and_then(|s| s.parse().ok()).unwrap_or(1);
            let mut out = std::io::stdout().lock();
            for _ in 0..n {
                let _ = out.write_all(b"0:0\n0:0\n");
            }
            let _ = out.flush();
            drop(out);
            right(&rest[1..])
        }
        "fork" => {
            // A child that sleeps, for the fork bomb.
            sleep_forever()
        }
        "daemon-child" => {
            let me = std::env::current_exe().expect("own path");
            let _ = quiet(Command::new(me).arg("sleep")).spawn();
            ExitCode::SUCCESS
        }
        "cores" => {
            // Says on stderr the cores it was given, then those it has
            // after asking for every core (as a greedy solver might);
            // waits MS milliseconds (so that cases run side by side) and
            // answers right.
            let ms: u64 = rest.first().and_then(|s| s.parse().ok()).unwrap_or(0);
            let cores = || {
                let now = rustix::thread::sched_getaffinity(None).expect("own affinity");
                (0..rustix::thread::CpuSet::MAX_CPU)
                    .filter(|&c| now.is_set(c))
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let given = cores();
            let mut all = rustix::thread::CpuSet::new();
            for c in 0..64 {
                all.set(c);
            }
            let _ = rustix::thread::sched_setaffinity(None, &all);
            eprintln!("cores: {given} then {}", cores());
            std::thread::sleep(Duration::from_millis(ms));
            right(&rest[1..])
        }
        "ignore-term" => {
            // Shell out so that no unsafe signal code lives here: `trap '' TERM`
            // in a shell that then execs a sleep keeps SIGTERM ignored.
            let err = std::os::unix::process::CommandExt::exec(
                Command::new("sh").args(["-c", "trap '' TERM; exec sleep 1000"]),
            );
            eprintln!("cannot exec sh: {err}");
            ExitCode::from(2)
        }
        other => {
            eprintln!("misbehave: unknown mode {other}");
            ExitCode::from(2)
        }
    }
}

fn right(files: &[String]) -> ExitCode {
    let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    // The first family that can load the files answers: the families'
    // formats do not overlap (a Lights Out board is no Gogen board, a tray
    // is no Gogen board file).
    let mut errors = Vec::new();
    for grader in reference::families::FAMILIES {
        match grader.load(&files) {
            Ok(case) => {
                let a = case.answer();
                print!("{}", a.stdout);
                eprint!("{}", a.stderr);
                return ExitCode::from(a.exit_code);
            }
            Err(e) => errors.push(format!("{}: {e}", grader.name())),
        }
    }
    eprintln!(
        "misbehave: no family loads these files ({})",
        errors.join("; ")
    );
    ExitCode::from(1)
}

/// The rogues' gallery: the behaviour is named by the puzzle file's name
/// (`NAME.txt`, or `NAME-anything.txt`), so one grading run holds them all.
fn gallery(files: &[String]) -> ExitCode {
    let Some(first) = files.first() else {
        return ExitCode::from(2);
    };
    let name = std::path::Path::new(first)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mode = name.split('-').next().unwrap_or("").to_string();
    let me = std::env::current_exe().expect("own path");
    match mode.as_str() {
        "right" | "stdin" => {
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
            right(files)
        }
        "sleeper" => sleep_forever(),
        "busy" => loop {
            std::hint::black_box(0u64);
        },
        "sigstop" => {
            let _ = Command::new("kill")
                .args(["-STOP", &std::process::id().to_string()])
                .status();
            sleep_forever()
        }
        "grandchild" => {
            let _ = Command::new(&me).arg("sleep").spawn();
            ExitCode::SUCCESS
        }
        "setsid" => {
            let _ = quiet(Command::new("setsid").arg(&me).arg("sleep")).spawn();
            std::thread::sleep(Duration::from_millis(200));
            right(files)
        }
        "daemon" => {
            // A double fork in a new session, every fd closed.
            let _ = quiet(Command::new("setsid").arg(&me).arg("daemon-child")).status();
            std::thread::sleep(Duration::from_millis(200));
            right(files)
        }
        "flood" => flood(std::io::stdout().lock()),
        "stderrflood" => {
            let block = vec![b'7'; 1 << 16];
            let mut err = std::io::stderr().lock();
            for _ in 0..64 {
                let _ = err.write_all(&block);
            }
            right(files)
        }
        "hog" => {
            // 3 GB, every page touched.
            let mut blocks = Vec::new();
            for _ in 0..3072 {
                blocks.push(vec![1u8; 1 << 20]);
            }
            std::hint::black_box(&blocks);
            ExitCode::SUCCESS
        }
        "forkbomb" => {
            let mut children = Vec::new();
            for _ in 0..100_000 {
                match Command::new(&me).arg("fork").spawn() {
                    Ok(c) => children.push(c),
                    Err(_) => std::thread::sleep(Duration::from_millis(1)),
                }
            }
            sleep_forever()
        }
        "garbage" => {
            let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
            let _ = std::io::stdout().write_all(&bytes);
            ExitCode::SUCCESS
        }
        "segv" => {
            let err = std::os::unix::process::CommandExt::exec(
                Command::new("sh").args(["-c", "kill -SEGV $$"]),
            );
            eprintln!("cannot exec sh: {err}");
            ExitCode::from(2)
        }
        "exit137" => ExitCode::from(137),
        "overwrite" => {
            // Answer first (from the files as given), then wreck every file
            // it can find: its own, their folder, and the suite named on
            // the harness's command line.
            let answer = answer_of(files);
            for dir in files
                .iter()
                .filter_map(|f| std::path::Path::new(f).parent().map(PathBuf::from))
                .chain(parent_arg("--suite"))
            {
                for entry in walk(&dir) {
                    let _ = std::fs::write(&entry, "3x2\n######\n");
                }
            }
            finish(answer)
        }
        "fifo" => {
            let answer = answer_of(files);
            if let Some(dir) = parent_arg("--suite") {
                for entry in walk(&dir) {
                    if std::fs::remove_file(&entry).is_ok() {
                        let _ = Command::new("mkfifo").arg(&entry).status();
                    }
                }
            }
            finish(answer)
        }
        "snoop" => {
            // Every other case's scratch folder, and the harness's files.
            let mut leaks = Vec::new();
            if let Some(run) = std::path::Path::new(first)
                .parent()
                .and_then(|p| p.parent())
            {
                for n in 0..64 {
                    let other = run.join(format!("case-{n}"));
                    if std::path::Path::new(first).starts_with(&other) {
                        continue;
                    }
                    if std::fs::read_dir(&other).is_ok() {
                        leaks.push(other.display().to_string());
                    }
                }
            }
            if leaks.is_empty() {
                right(files)
            } else {
                println!("LEAK {}", leaks.join(" "));
                ExitCode::SUCCESS
            }
        }
        "killparent" => {
            let parent = std::os::unix::process::parent_id().to_string();
            let _ = Command::new("kill").args(["-9", &parent]).status();
            right(files)
        }
        "forger" => {
            let answer = answer_of(files);
            if let Some(path) = parent_arg("--scorecard") {
                let forged = "candidate,family,suite,case,verdict\nx,lightsout,x,x,accepted\n";
                let _ = std::fs::write(&path, forged);
                let tmp = path.with_extension("forged");
                if std::fs::write(&tmp, forged).is_ok() {
                    let _ = std::fs::rename(&tmp, &path);
                }
            }
            finish(answer)
        }
        "procfd" => {
            // A row forged through the harness's own open scorecard.
            let answer = answer_of(files);
            if let Some((pid, _)) = find_harness() {
                let fds = std::fs::read_dir(format!("/proc/{pid}/fd"));
                for fd in fds.into_iter().flatten().flatten() {
                    let target = std::fs::read_link(fd.path()).unwrap_or_default();
                    if target.extension().is_some_and(|e| e == "csv")
                        && let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(fd.path())
                    {
                        let _ = f.write_all(b"x,lightsout,x,forged,accepted\n");
                    }
                }
            }
            finish(answer)
        }
        "truncate" => {
            // The scorecard and every suite file, emptied.
            let answer = answer_of(files);
            if let Some((_, args)) = find_harness() {
                let after = |flag: &str| {
                    args.iter()
                        .position(|a| a == flag)
                        .and_then(|i| args.get(i + 1))
                        .map(PathBuf::from)
                };
                if let Some(card) = after("--scorecard") {
                    let _ = std::fs::File::create(card);
                }
                for file in after("--suite").map(|d| walk(&d)).unwrap_or_default() {
                    let _ = std::fs::File::create(file);
                }
            }
            finish(answer)
        }
        "ptrace" => {
            let answer = answer_of(files);
            if let Some((pid, _)) = find_harness() {
                // SAFETY: PTRACE_ATTACH and PTRACE_KILL take a pid and no
                // memory of ours.
                #[allow(unsafe_code)]
                unsafe {
                    if libc::ptrace(libc::PTRACE_ATTACH, pid, 0, 0) == 0 {
                        std::thread::sleep(Duration::from_millis(50));
                        libc::ptrace(libc::PTRACE_KILL, pid, 0, 0);
                    }
                }
            }
            finish(answer)
        }
        "killall" => {
            let answer = answer_of(files);
            // SAFETY: kill takes no memory; -1 is every process this user
            // may signal but this one.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(-1, libc::SIGKILL);
            }
            finish(answer)
        }
        "longline" => {
            let line = vec![b'y'; 60 << 20];
            let _ = std::io::stdout().write_all(&line);
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("misbehave gallery: unknown case {other}");
            ExitCode::from(2)
        }
    }
}

fn quiet(cmd: &mut Command) -> &mut Command {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
}

/// The value after `flag` on the harness's command line (from /proc, as a
/// hostile candidate would find it), as a path.
fn parent_arg(flag: &str) -> Option<PathBuf> {
    let parent = std::os::unix::process::parent_id();
    let cmdline = std::fs::read(format!("/proc/{parent}/cmdline")).ok()?;
    let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let at = args.iter().position(|a| *a == flag.as_bytes())?;
    args.get(at + 1)
        .map(|a| PathBuf::from(String::from_utf8_lossy(a).into_owned()))
}

/// The harness grading this candidate, found as a hostile candidate would
/// (its command line in /proc): its pid and arguments.
fn find_harness() -> Option<(i32, Vec<String>)> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let is_harness = args
            .first()
            .is_some_and(|a| a.ends_with("/harness") || a == "harness");
        if is_harness && args.iter().any(|a| a == "--scorecard") {
            return Some((pid, args));
        }
    }
    None
}

/// Every file below `dir`.
fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn answer_of(files: &[String]) -> Option<reference::family::Answer> {
    let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
    reference::families::FAMILIES
        .iter()
        .find_map(|g| g.load(&files).ok())
        .map(|case| case.answer())
}

fn finish(answer: Option<reference::family::Answer>) -> ExitCode {
    match answer {
        Some(a) => {
            print!("{}", a.stdout);
            ExitCode::from(a.exit_code)
        }
        None => ExitCode::from(3),
    }
}

/// Spins until this process has used `ms` milliseconds of CPU time.
fn burn(ms: u64) {
    let used = || {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    };
    let mut x = 0u64;
    while used() < Duration::from_millis(ms) {
        for i in 0..10_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
    }
}

fn sleep_forever() -> ExitCode {
    loop {
        std::thread::sleep(Duration::from_secs(1000));
    }
}

fn flood(mut out: impl Write) -> ExitCode {
    let block = vec![b'7'; 1 << 16];
    while out.write_all(&block).is_ok() {}
    ExitCode::SUCCESS
}

fn record_pid() {
    if let Some(path) = std::env::var_os("MISBEHAVE_PIDS") {
        // One write per line: concurrent appends then never interleave.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(format!("{}\n", std::process::id()).as_bytes());
        }
    }
}
