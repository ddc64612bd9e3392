//! Lights Out (CMU 15-122, CMU 15-110, UPenn CIS 521): m x n boards where a
//! press toggles a cell and its four orthogonal neighbours.

mod board;
mod check;
mod generate;
mod parse;
mod solve;

pub use board::{Board, Cell};
pub use check::{Game, MoveError, MoveErrorKind, Replay, move_error, parse_move, replay};
pub use generate::{rng, scrambled, uniform};
pub use parse::{
    BoardFileError, Found, MAX_CELLS, ParseError, ParseErrorKind, format_board, parse_board,
    read_board,
};
pub use solve::{MAX_EXHAUSTIVE_NULLITY, Minimality, Solution, Solver, solve, solve_minimum};
