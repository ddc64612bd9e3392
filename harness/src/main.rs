//! `harness`: grades candidate puzzle solvers on suites (in progress: see README).

fn main() -> std::process::ExitCode {
    eprintln!("usage: harness grade --suite DIR --candidate 'CMD ARGS' (not built yet)");
    std::process::ExitCode::from(2)
}
