//! The isolation around a case's process: what is asked and what is in
//! force (`isolate`: `Isolation`, `Level`), and the executor that applies
//! it (`isolated`: `Isolated::execute`): a scratch folder and private
//! copies (`scratch`, `shelf`, `janitor`), a uid per job slot (`uids`), a
//! cgroup per case and cores per slot (`super::cgroup`), the slot's state
//! (`slot`), rlimits and the environment. The sandbox that makes the case's
//! view is `super::sandbox`.

pub(super) mod isolate;
pub(super) mod isolated;
mod janitor;
pub(super) mod scratch;
mod shelf;
mod slot;
mod uids;
