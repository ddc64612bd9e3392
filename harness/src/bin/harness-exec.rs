//! `harness-exec`: the trampoline between the harness and each candidate
//! (see `harness::executor::trampoline`), as a small program of its own:
//! one runs before every case, and the whole harness binary takes several
//! times longer to start. Same arguments as `harness __exec`.

fn main() -> std::process::ExitCode {
    match harness::executor::trampoline::ExecArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) => harness::executor::trampoline::main(&args),
        Err(e) => {
            eprintln!("harness-exec: {e}");
            std::process::ExitCode::from(harness::executor::trampoline::FAILED as u8)
        }
    }
}
