//! What a search returns: how it ended and the work it did. A leaf that
//! every search (`solve`, `layered`) uses, so neither needs the other's.

use super::tray::Move;

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// These moves reach the goal.
    Solved(Vec<Move>),
    /// Every reachable state was seen: no solution.
    NoSolution,
    /// `max_states` reached before an answer.
    GaveUp,
}

/// The outcome and the work done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveReport {
    /// How it ended.
    pub outcome: Outcome,
    /// Distinct states stored.
    pub states: usize,
}
