//! One output pipe of a case, drained into a capped capture: the first
//! bytes in memory, the rest up to the cap in an unnamed temporary file,
//! anything past the cap counted and dropped.

use std::io::Read;
use std::os::fd::AsFd;

use crate::executor::Capture;

/// How much of a stream is kept in memory; the rest, up to the cap, goes
/// to an unnamed temporary file, read back only if the answer is judged.
/// Ten parallel floods then cost the harness megabytes, not gigabytes.
const IN_MEMORY: u64 = 1 << 20;

/// One output pipe: read into a capture of at most `cap` bytes, the rest
/// counted and dropped.
pub(in crate::executor) struct Stream<R> {
    pub(in crate::executor) source: Option<R>,
    cap: u64,
    capture: Capture,
    spill: Option<std::fs::File>,
    spilled: u64,
}

impl<R: Read + AsFd> Stream<R> {
    pub(in crate::executor) fn new(source: Option<R>, cap: u64) -> Self {
        Self {
            source,
            cap,
            capture: Capture::default(),
            spill: None,
            spilled: 0,
        }
    }

    pub(in crate::executor) fn open(&self) -> bool {
        self.source.is_some()
    }

    pub(in crate::executor) fn over(&self) -> bool {
        self.capture.total > self.cap
    }

    /// One read (the pipe said it is ready); end of file closes it.
    pub(in crate::executor) fn read(&mut self, buf: &mut [u8]) {
        use std::io::Write;
        let Some(source) = self.source.as_mut() else {
            return;
        };
        let n = match source.read(buf) {
            Ok(0) | Err(_) => {
                self.source = None;
                return;
            }
            Ok(n) => n,
        };
        let kept = self.capture.bytes.len() as u64 + self.spilled;
        let room = usize::try_from(self.cap.saturating_sub(kept)).unwrap_or(usize::MAX);
        let chunk = &buf[..n.min(room)];
        let memory_room = IN_MEMORY
            .min(self.cap)
            .saturating_sub(self.capture.bytes.len() as u64);
        let to_memory = chunk
            .len()
            .min(usize::try_from(memory_room).unwrap_or(usize::MAX));
        self.capture.bytes.extend_from_slice(&chunk[..to_memory]);
        let rest = &chunk[to_memory..];
        if !rest.is_empty() {
            if self.spill.is_none() {
                self.spill = tempfile::tempfile().ok();
            }
            if let Some(f) = self.spill.as_mut()
                && f.write_all(rest).is_ok()
            {
                self.spilled += rest.len() as u64;
            }
        }
        self.capture.total += n as u64;
    }

    /// The capture (read back from the spill file unless over the cap); a
    /// pipe still open (held by a process that left the group) is
    /// abandoned: closed on our side, noted.
    pub(in crate::executor) fn finish(self) -> Capture {
        use std::io::Seek;
        let mut c = self.capture;
        c.abandoned = self.source.is_some();
        if c.total <= self.cap
            && let Some(mut f) = self.spill
            && f.seek(std::io::SeekFrom::Start(0)).is_ok()
        {
            let _ = f.take(self.spilled).read_to_end(&mut c.bytes);
        }
        c
    }
}
