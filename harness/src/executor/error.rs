//! The executor's own failures, never a candidate's: a case that meets one
//! is a `harness-error` row saying so; at set-up, one says why a
//! protection is not in force (no cgroups, and so on).

use std::path::PathBuf;

/// What went wrong on our side.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// A file or folder we need could not be read, made or written.
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        /// What we tried: `read`, `create`, `write`, `enable controllers in`...
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A puzzle file could not be copied into a case's scratch folder.
    #[error("cannot copy {} into the scratch folder: {error}", path.display())]
    CopyIn {
        /// The puzzle file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A copy could not be given to the slot's user.
    #[error("cannot give {} to uid {uid}: {error}", path.display())]
    Give {
        /// The copy.
        path: PathBuf,
        /// The slot's user.
        uid: u32,
        /// What the system said.
        error: std::io::Error,
    },
    /// A puzzle file could not be read (not a regular file, too large...).
    #[error("{0}")]
    Puzzle(String),
    /// No cgroup hierarchy has the controllers a case needs.
    #[error("no cgroup hierarchy with memory and pids controllers")]
    NoControllers,
    /// A job slot's cgroup still holds what an earlier case left.
    #[error("the job slot's cgroup still holds {left} process(es) of an earlier case ({})", path.display())]
    SlotBusy {
        /// How many.
        left: u64,
        /// Its `pids.current`.
        path: PathBuf,
    },
    /// No v1 cpuset hierarchy to keep job slots to their cores.
    #[error(
        "no cpuset hierarchy beside the v1 controllers (pure cgroup v2 is not pinned by cgroup)"
    )]
    NoCpuset,
    /// An explicit uid range (`--uid-base`) that another run on this
    /// machine holds.
    #[error(
        "uids {first} to {last} (--uid-base) are in use by another run of the harness on this machine (leave --uid-base out to get a free range)"
    )]
    UidsInUse {
        /// The range's first uid.
        first: u32,
        /// Its last.
        last: u32,
    },
    /// Every range the harness hands out is held by another run.
    #[error("every uid range from {first} to {last} is in use by another run of the harness")]
    NoFreeUids {
        /// The first uid tried.
        first: u32,
        /// The last.
        last: u32,
    },
    /// A cgroup controller is not handed down to the harness's cgroup.
    #[error("the {controller} controller is not delegated to {}", path.display())]
    NotDelegated {
        /// The controller.
        controller: &'static str,
        /// The harness's own cgroup.
        path: PathBuf,
    },
    /// A system call the executor needs failed (not on a path of its own).
    #[error("cannot {what}: {error}")]
    System {
        /// What we tried, in words.
        what: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// A sandbox cannot be used here.
    #[error("{sandbox} {why}")]
    Unusable {
        /// Which (`bwrap`).
        sandbox: &'static str,
        /// Why, in words: what its own check said.
        why: String,
    },
    /// A folder on the way to a path is closed to a job slot's user.
    #[error("the folder {} is closed to it", folder.display())]
    Closed {
        /// The folder.
        folder: PathBuf,
    },
    /// A job slot's user may not read, run or enter a path.
    #[error("it cannot {what} {}", path.display())]
    Forbidden {
        /// `read`, `run`, `read and run`, `enter`.
        what: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// One job slot: it has every core.
    #[error("one job at a time: the job has every core")]
    OneJob,
    /// Fewer cores than job slots.
    #[error("{slots} jobs on {cores} cores: cases share the cores")]
    FewCores {
        /// Job slots.
        slots: usize,
        /// Cores.
        cores: usize,
    },
    /// A launch that cannot be made ready for the child: a word with a
    /// NUL byte.
    #[error("a NUL in {0}")]
    Nul(String),
    /// A view's words (from the harness to a slot's keeper) that make no
    /// view.
    #[error("{0}")]
    BadView(&'static str),
}

impl ExecError {
    /// An [`ExecError::Io`].
    pub fn io(action: &'static str, path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            error,
        }
    }

    /// An [`ExecError::System`].
    pub fn system(what: impl Into<String>, error: impl Into<std::io::Error>) -> Self {
        Self::System {
            what: what.into(),
            error: error.into(),
        }
    }
}
