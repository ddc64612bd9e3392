//! `harness-exec`: a job slot's spawner (see
//! `harness::executor::keeper`), as a small program of its own. The
//! harness starts one per job slot and asks it for each case's process;
//! `harness __spawner` is the same, where this program is not beside the
//! harness.
//!
//! It has no Rust `main`: the runtime's start-up (a guard for stack
//! overflows, found by reading `/proc/self/maps`; an alternate signal
//! stack; SIGPIPE ignored) is nothing a spawner needs, and every case's
//! process is a copy of it, so the C `main` is entered directly.

// (A test build keeps the test harness's own `main`.)
#![cfg_attr(not(test), no_main)]

/// The C entry point.
// SAFETY: `main` is the one C entry point of this program; nothing else
// in it or its libraries defines that symbol.
#[allow(unsafe_code)]
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> i32 {
    if harness::executor::serve_keeper() == std::process::ExitCode::SUCCESS {
        0
    } else {
        harness::executor::FAILED
    }
}
