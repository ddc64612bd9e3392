//! Pipes between two cases that run at once (an interactive problem's
//! validator and candidate, each one's stdout the other's stdin), in place
//! of a file on stdin and the harness's capture of stdout.
//!
//! Each end is handed to its process when it starts, and the harness's
//! copy of it closed then, so a pipe ends when the processes on it are
//! done. A write end may also be held until its process is reaped
//! ([`Wire::held`]), as problemtools' `interactive` holds them: the
//! process on the other side then reads its end of file only after the
//! harness has seen the writer go, and which of the two ended first is
//! never a race between their exits.

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// One end of a pipe, for one process.
#[derive(Debug, Clone)]
pub struct Wire(Arc<Mutex<Option<Ends>>>);

/// The end given, and a copy of it the harness holds until the process is
/// reaped (if it does).
type Ends = (OwnedFd, Option<OwnedFd>);

impl Wire {
    /// `end`, given to the process; ours is closed once it has it.
    pub fn new(end: OwnedFd) -> Self {
        Self(Arc::new(Mutex::new(Some((end, None)))))
    }

    /// `end`, given to the process, with a copy the harness holds until
    /// the process is reaped.
    pub fn held(end: OwnedFd) -> std::io::Result<Self> {
        let copy = end.try_clone()?;
        Ok(Self(Arc::new(Mutex::new(Some((end, Some(copy)))))))
    }

    /// The end and the copy held, once: a run takes them when it starts.
    pub(in crate::executor) fn take(&self) -> Option<Ends> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl PartialEq for Wire {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Wire {}

/// A case's stdin and stdout, each an end of a pipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wired {
    /// Its stdin: a pipe's read end.
    pub stdin: Wire,
    /// Its stdout: a pipe's write end (nothing of it is captured, nor
    /// capped: the process on the other side reads it).
    pub stdout: Wire,
}

/// Two pipes for two processes, each one's stdout the other's stdin:
/// `(first, second)`. The write ends are held until their writer is
/// reaped ([`Wire::held`]); the read ends are handed back too, copies the
/// caller may hold as long as it wants a writer never to meet a closed
/// pipe (problemtools keeps the one towards a candidate open, so a
/// validator writing to a candidate that has exited is not killed by
/// SIGPIPE).
pub fn pair() -> std::io::Result<((Wired, Wired), [OwnedFd; 2])> {
    let (a_read, a_write) = std::io::pipe()?;
    let (b_read, b_write) = std::io::pipe()?;
    let (a_read, b_read) = (OwnedFd::from(a_read), OwnedFd::from(b_read));
    let kept = [a_read.try_clone()?, b_read.try_clone()?];
    let first = Wired {
        stdin: Wire::new(b_read),
        stdout: Wire::held(OwnedFd::from(a_write))?,
    };
    let second = Wired {
        stdin: Wire::new(a_read),
        stdout: Wire::held(OwnedFd::from(b_write))?,
    };
    Ok(((first, second), kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn each_ones_stdout_is_the_others_stdin() {
        let ((first, second), _kept) = pair().unwrap();
        let (out, held) = first.stdout.take().unwrap();
        assert!(held.is_some(), "a write end is held until reaped");
        assert!(first.stdout.take().is_none(), "taken once");
        let (into, none) = second.stdin.take().unwrap();
        assert!(none.is_none(), "a read end is given, not held");
        std::io::PipeWriter::from(out).write_all(b"42\n").unwrap();
        drop(held);
        let mut got = String::new();
        std::io::PipeReader::from(into)
            .read_to_string(&mut got)
            .unwrap();
        assert_eq!(got, "42\n");
        assert_eq!(first.clone(), first);
        assert_ne!(first, second);
    }
}
