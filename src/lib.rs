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

/// The longest stdin line a replica accepts: a move or a board row is a
/// few bytes, so a longer line is garbage, refused before it fills memory.
pub const MAX_LINE: usize = 1 << 20;

/// The most stdin a checker reads (some 10^8 moves).
pub const MAX_STDIN: u64 = 1 << 30;

/// All of stdin (a checker reads it whole first: a writer must never die of
/// a closed pipe, and a verdict may need every line), bounded: a line over
/// [`MAX_LINE`] bytes, more than [`MAX_STDIN`] in all, or a read error is
/// `tool: ...` on stderr and `status`.
pub fn read_stdin(tool: &str, status: u8) -> Result<Vec<u8>, ExitCode> {
    read_bounded(std::io::stdin().lock(), MAX_LINE, MAX_STDIN)
        .map_err(|message| fail(tool, message, status))
}

/// Reads `input` whole, refusing a line longer than `max_line` or more
/// than `max_total` bytes.
pub fn read_bounded(
    mut input: impl std::io::Read,
    max_line: usize,
    max_total: u64,
) -> Result<Vec<u8>, String> {
    let mut all = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let (mut line_len, mut line_no) = (0usize, 1usize);
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => return Ok(all),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read stdin: {e}")),
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                line_len = 0;
                line_no += 1;
            } else {
                line_len += 1;
                if line_len > max_line {
                    return Err(format!(
                        "stdin line {line_no} is longer than {max_line} bytes"
                    ));
                }
            }
        }
        if all.len() as u64 + n as u64 > max_total {
            return Err(format!("stdin is larger than {max_total} bytes"));
        }
        all.extend_from_slice(&chunk[..n]);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_is_read_with_bounds() {
        assert_eq!(read_bounded(&b"ab\ncd"[..], 2, 100).unwrap(), b"ab\ncd");
        assert_eq!(
            read_bounded(&b"ab\ncde\n"[..], 2, 100).unwrap_err(),
            "stdin line 2 is longer than 2 bytes"
        );
        assert_eq!(
            read_bounded(&b"ab\ncd\n"[..], 2, 4).unwrap_err(),
            "stdin is larger than 4 bytes"
        );
    }
}
