//! Shared plumbing for the staff-tool replicas in `src/bin/`: argument
//! parsing with the course's exit statuses, and error reporting.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

/// Parses the command line; `--help` and `--version` print and exit 0, any
/// other argument error prints the usage on stderr and exits `usage_status`
/// (the 15-122 tools return 1 for every error; the CS61BL tools have their own).
pub fn parse_args<P: Parser>(usage_status: u8) -> Result<P, ExitCode> {
    P::try_parse().map_err(|e| {
        let _ = e.print();
        match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
            _ => ExitCode::from(usage_status),
        }
    })
}

/// Prints `tool: message` on stderr and returns `status`.
pub fn fail(tool: &str, message: impl std::fmt::Display, status: u8) -> ExitCode {
    eprintln!("{tool}: {message}");
    ExitCode::from(status)
}

/// All of stdin (a checker reads it whole first: a writer must never die of
/// a closed pipe, and a verdict may need every line); on a read error,
/// `tool: cannot read stdin: ...` and `status`.
pub fn read_stdin(tool: &str, status: u8) -> Result<Vec<u8>, ExitCode> {
    use std::io::Read;
    let mut stdin = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut stdin)
        .map_err(|e| fail(tool, format!("cannot read stdin: {e}"), status))?;
    Ok(stdin)
}

/// Prints a reference [`Answer`](reference::family::Answer) as the student
/// contract wants it: stdout exactly, stderr lines prefixed with `tool: `
/// when a tool is given (the 15-122 `lightsout` prints them bare), and the
/// answer's exit status. A failed write of stdout is exit 1.
pub fn emit(answer: &reference::family::Answer, tool: Option<&str>) -> ExitCode {
    use std::io::Write;
    for line in answer.stderr.lines() {
        match tool {
            Some(t) => eprintln!("{t}: {line}"),
            None => eprintln!("{line}"),
        }
    }
    let mut out = std::io::stdout().lock();
    match out
        .write_all(answer.stdout.as_bytes())
        .and_then(|()| out.flush())
    {
        Ok(()) => ExitCode::from(answer.exit_code),
        Err(e) => fail(
            tool.unwrap_or("lightsout"),
            format!("cannot write the answer: {e}"),
            1,
        ),
    }
}
