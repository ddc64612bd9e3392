//! Lights Out benchmark (`cargo bench -p reference --bench lightsout`, or
//! `scripts/bench-lightsout`): prints a Markdown table of solve times for
//! all-on N x N boards and the per-board minimum-press time on random 5x5s.

use std::hint::black_box;
use std::time::{Duration, Instant};

use reference::lightsout::{Board, Solver, format_board, parse_board, rng, uniform};

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let sizes: &[usize] = if quick {
        &[1000, 4000]
    } else {
        &[1000, 4000, 8000, 10000]
    };
    println!("| board | nullity | prepare | solve | verify | total | verified |");
    println!("|---|---|---|---|---|---|---|");
    for &n in sizes {
        let board = Board::all_on(n, n);
        let t0 = Instant::now();
        let solver = Solver::new(n, n);
        let t1 = Instant::now();
        let presses = solver.solve(&board).expect("all-on boards are solvable");
        let t2 = Instant::now();
        let mut after = board.clone();
        after.apply_presses(&presses);
        let verified = after.is_solved();
        let t3 = Instant::now();
        println!(
            "| all-on {n}x{n} | {} | {} | {} | {} | {} | {} |",
            solver.nullity(),
            ms(t1 - t0),
            ms(t2 - t1),
            ms(t3 - t2),
            ms(t2 - t0),
            if verified { "yes" } else { "NO" }
        );
    }

    let count = if quick { 20_000 } else { 200_000 };
    let mut r = rng(2026);
    let boards: Vec<Board> = (0..count).map(|_| uniform(5, 5, &mut r)).collect();
    let solver = Solver::new(5, 5);
    let rounds = 5;
    let start = Instant::now();
    let mut solvable = 0usize;
    for _ in 0..rounds {
        for b in &boards {
            if let Some(s) = solver.solve_minimum(black_box(b)) {
                black_box(s.press_count());
                solvable += 1;
            }
        }
    }
    let per = start.elapsed() / (rounds * count) as u32;
    println!();
    println!("| workload | boards | per board |");
    println!("|---|---|---|");
    println!(
        "| 5x5 minimum-press (random boards, {} solvable) | {} | {} |",
        solvable / rounds,
        rounds * count,
        ns(per)
    );
    let mut r = rng(7);
    let text = format_board(&uniform(1000, 1000, &mut r));
    let start = Instant::now();
    let parsed = parse_board(black_box(text.as_bytes())).expect("valid board");
    println!(
        "| parse a 1000x1000 board file ({} lit) | 1 | {} |",
        parsed.count_on(),
        ms(start.elapsed())
    );
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn ns(d: Duration) -> String {
    format!("{} ns", d.as_nanos())
}
