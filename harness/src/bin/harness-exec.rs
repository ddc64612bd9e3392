//! `harness-exec`: the trampoline between the harness and each candidate
//! (see `harness::executor::trampoline`), as a small program of its own:
//! one runs before every case, and the whole harness binary takes several
//! times longer to start. Same arguments as `harness __exec`.
//!
//! It has no Rust `main`: the runtime's start-up (a guard for stack
//! overflows, found by reading `/proc/self/maps`; an alternate signal
//! stack; SIGPIPE ignored) is work for a process that lives a fraction of
//! a millisecond and then becomes the candidate, so the C `main` is
//! entered directly. The arguments are still there (glibc hands them to
//! the standard library before `main`).

// (A test build keeps the test harness's own `main`.)
#![cfg_attr(not(test), no_main)]

/// The C entry point.
// SAFETY: `main` is the one C entry point of this program; nothing else
// in it or its libraries defines that symbol.
#[allow(unsafe_code)]
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> i32 {
    use std::process::ExitCode;
    let code = match harness::executor::trampoline::ExecArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) => harness::executor::trampoline::main(&args),
        Err(e) => {
            eprintln!("harness-exec: {e}");
            ExitCode::from(harness::executor::trampoline::FAILED as u8)
        }
    };
    // Only failures return (a started candidate replaced this process).
    if code == ExitCode::SUCCESS {
        0
    } else {
        harness::executor::trampoline::FAILED
    }
}
