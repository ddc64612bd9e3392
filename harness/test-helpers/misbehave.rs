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
//! milliseconds, then answers right), `ignore-term` (ignores SIGTERM and
//! sleeps). With MISBEHAVE_PIDS=FILE set, every process appends its pid there.

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
    for grader in reference::family::FAMILIES {
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
