//! `harness-exec`: a job slot's view keeper (see the executor's
//! `sandbox/keeper.rs`), as a small program of its own. The harness starts
//! one per job slot, which holds the slot's view for its cases to enter;
//! `harness __keeper` is the same, where this program is not beside the
//! harness.
//!
//! It has no Rust `main`: the runtime's start-up (a guard for stack
//! overflows, found by reading `/proc/self/maps`; an alternate signal
//! stack; SIGPIPE ignored) is nothing a keeper needs, so the C `main` is
//! entered directly.

// (A test build keeps the test harness's own `main`.)
#![cfg_attr(not(test), no_main)]

/// The C entry point.
// SAFETY: `main` is the one C entry point of this program; nothing else
// in it or its libraries defines that symbol.
#[allow(unsafe_code)]
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> i32 {
    // `harness-exec exec FD NPROC PROGRAM ARGS...`: a candidate started
    // inside bubblewrap.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "exec") {
        return harness::executor::exec_in_sandbox(&args[1..]);
    }
    // `harness-exec hold`: a job slot's bubblewrap holder.
    if args.first().is_some_and(|a| a == "hold") {
        return if harness::executor::serve_holder() == std::process::ExitCode::SUCCESS {
            0
        } else {
            harness::executor::FAILED
        };
    }
    if harness::executor::serve_keeper() == std::process::ExitCode::SUCCESS {
        0
    } else {
        harness::executor::FAILED
    }
}
