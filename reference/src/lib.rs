//! Pure, exact solvers, checkers, parsers and generators for the puzzle
//! families puzzlegrade grades. No processes, no printing: the staff-tool
//! replicas and the harness turn these results into text and exit statuses.

pub mod battery;
pub mod families;
pub mod family;
pub mod file;
pub mod gf2;
pub mod gogen;
pub mod lightsout;
pub mod package;
pub mod questions;
pub mod replay;
pub mod slidingblock;
#[cfg(feature = "toy")]
pub mod toy;
