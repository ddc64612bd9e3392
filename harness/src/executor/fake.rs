//! A fake executor: scripted results instead of processes, so that the
//! verdict table and the scheduler (cancellation, ordering, resume) are
//! tested without spawning anything.

use std::sync::Mutex;
use std::time::Duration;

use super::{Capture, Ending, Executor, Limits, RunResult, Spec};
use crate::cancel::Cancel;

/// A scripted outcome: what the "process" printed and how it ended.
#[derive(Debug, Clone)]
pub struct Script {
    /// How it ended.
    pub ending: Ending,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its wall time.
    pub wall: Duration,
}

impl Script {
    /// Exits with `code` after printing `stdout`.
    pub fn exit(code: i32, stdout: &str) -> Self {
        Self {
            ending: Ending::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            wall: Duration::from_millis(1),
        }
    }

    /// Dies of `signal`.
    pub fn signal(signal: i32) -> Self {
        Self {
            ending: Ending::Signaled(signal),
            stdout: Vec::new(),
            wall: Duration::from_millis(1),
        }
    }
}

type Responder = dyn Fn(&Spec) -> Script + Send + Sync;
type Hook = dyn Fn(&Cancel) + Send + Sync;

/// Answers every run with what `respond` says, and records each command.
pub struct FakeExecutor {
    respond: Box<Responder>,
    /// Every spec run, in order.
    pub ran: Mutex<Vec<Spec>>,
    /// Called with the cancel token before answering (lets a test stop the
    /// run from inside a case).
    pub on_run: Option<Box<Hook>>,
}

impl FakeExecutor {
    /// An executor answering with `respond`.
    pub fn new(respond: impl Fn(&Spec) -> Script + Send + Sync + 'static) -> Self {
        Self {
            respond: Box::new(respond),
            ran: Mutex::new(Vec::new()),
            on_run: None,
        }
    }
}

impl Executor for FakeExecutor {
    fn execute(&self, spec: &Spec, limits: &Limits, cancel: &Cancel) -> RunResult {
        self.ran
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(spec.clone());
        if let Some(hook) = &self.on_run {
            hook(cancel);
        }
        let script = (self.respond)(spec);
        let mut r = RunResult::ended(script.ending, script.wall);
        let mut stdout = Capture::of(&script.stdout);
        if stdout.total > limits.stdout {
            stdout
                .bytes
                .truncate(usize::try_from(limits.stdout).unwrap_or(usize::MAX));
            r.limit = Some(super::LimitHit::Stdout);
            r.ending = Ending::Signaled(9);
        }
        r.stdout = stdout;
        r.cancelled = cancel.is_requested();
        r
    }

    fn label(&self) -> String {
        "fake".into()
    }
}
