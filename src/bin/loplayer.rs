//! `loplayer BOARD`: replays `r:c` moves from stdin on a Lights Out board,
//! as the CMU 15-122 staff tool does; the grader's checker.

use std::io::{BufRead, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use puzzlegrade::{MAX_LINE, fail, parse_args};
use reference::lightsout::{Game, move_error, parse_move, read_board};

/// Play Lights Out: print the board, then for every `r:c` line on stdin print
/// `Flipping r:c` and the board. Exits 0 once all lights are out, 1 on an
/// invalid move or when the input ends with lights still on.
#[derive(Parser)]
#[command(
    name = "loplayer",
    version,
    override_usage = "loplayer [--quiet] <board>"
)]
struct Args {
    /// Print only the final line, no boards (for checking long move lists).
    #[arg(short, long)]
    quiet: bool,
    /// The board file (15-122 format: `WxH`, then `#` on / `O` off cells).
    board: PathBuf,
}

const WON: &str = "You got all the lights out!";

fn main() -> ExitCode {
    let args = match parse_args::<Args>(1) {
        Ok(a) => a,
        Err(code) => return code,
    };
    match run(&args) {
        Ok(code) => code,
        Err(e) => fail("loplayer", e, 1),
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let board = match read_board(&args.board) {
        Ok(b) => b,
        Err(e) => return Ok(fail("loplayer", e, 1)),
    };
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut game = Game::new(board);
    if !args.quiet {
        write!(out, "{}", game.board())?;
    }
    let (mut moves, mut line_no) = (0usize, 0usize);
    let mut input = std::io::stdin().lock();
    let mut line = Vec::new();
    while game.lights_on() > 0 {
        line.clear();
        // A move is a few bytes: a line past the bound is refused before
        // it can fill memory.
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if line.len() > MAX_LINE {
            out.flush()?;
            return Ok(fail(
                "loplayer",
                format!("line {} is longer than {MAX_LINE} bytes", line_no + 1),
                1,
            ));
        }
        if read == 0 {
            out.flush()?;
            let lit = game.lights_on();
            return Ok(fail(
                "loplayer",
                format!("end of input after {moves} moves with {lit} lights still on"),
                1,
            ));
        }
        line_no += 1;
        match parse_move(&line, game.board()) {
            Ok(None) => {}
            Ok(Some(cell)) => {
                moves += 1;
                game.press(cell);
                if !args.quiet {
                    write!(out, "Flipping {cell}\n{}", game.board())?;
                }
            }
            Err(kind) => {
                out.flush()?;
                return Ok(fail(
                    "loplayer",
                    move_error(moves + 1, line_no, &line, kind),
                    1,
                ));
            }
        }
    }
    writeln!(out, "{WON}")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
