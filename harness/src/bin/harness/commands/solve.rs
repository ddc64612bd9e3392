//! `harness solve`: the reference answer in the family's contract.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Solves one puzzle, printing and exiting as a perfect candidate would.
pub fn run(family: &str, files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let grader = crate::options::family(Some(family))?.expect("named");
    let case = match grader.load(files) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("harness solve: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let answer = case.answer();
    eprint!("{}", answer.stderr);
    let mut out = std::io::stdout().lock();
    out.write_all(answer.stdout.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::from(answer.exit_code))
}
