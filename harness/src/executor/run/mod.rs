//! The process runner: a candidate's process started (`spawn`, by the plan
//! `launch` makes: every step of the child a bare system call), its pipes
//! drained into capped buffers (`stream`), its clocks watched (the wall
//! clock less the time it waited for a core: `waits`) and its group
//! killed at a limit, then waited for (`child`); nothing it starts
//! outlives the run (`guard`). The isolation around it (`super::isolation`)
//! and the sandbox that makes its view (`super::sandbox`) are parts of
//! their own.

pub(super) mod cgroups;
pub(super) mod child;
pub(super) mod filter;
pub(super) mod guard;
pub(super) mod held;
pub(super) mod hop;
pub(super) mod launch;
pub(super) mod returned;
pub(super) mod shim;
pub(super) mod spawn;
pub(super) mod stack;
mod stream;
mod waits;
