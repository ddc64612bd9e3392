//! A job slot's folders made ready for its next case.

use std::path::Path;
use std::time::{Duration, Instant};

use super::cgfiles::oom_kills;
use super::{CaseCgroup, ExecError, Role};

impl CaseCgroup {
    /// A slot's folders made ready for its next case: nothing of an
    /// earlier case left (killed, its zombies reaped by `reap`, for two
    /// seconds at most), the CPU count noted (or reset), the memory peak
    /// reset and what is charged already noted. What the last case's end
    /// found (no process left, its OOM kills and CPU count) is not read
    /// again.
    pub(super) fn settle(&mut self, reap: &dyn Fn()) -> Result<(), ExecError> {
        let known = self.open.1.take();
        if known.is_none() {
            self.wait_empty(reap)?;
        }
        // A case joins next: whatever the looks above noted is known no
        // more.
        let _ = self.open.1.take();
        let (oom, cpu) = known.unwrap_or((None, None));
        let write = |role, file: &str, value: &str| match self.dir(role) {
            Some(d) => self
                .write_file(&d.join(file), value)
                .map_err(|e| ExecError::io("write", d.join(file), e)),
            None => Ok(()),
        };
        let cpu_base = match cpu {
            Some(ns) => ns,
            None => {
                write(Role::Cpuacct, "cpuacct.usage", "0")?;
                0
            }
        };
        write(Role::Memory, "memory.max_usage_in_bytes", "0")?;
        let memory = self.dir(Role::Memory).map(Path::to_owned);
        let read = |file: &str| memory.as_ref().and_then(|d| self.read_file(&d.join(file)));
        let base = read("memory.usage_in_bytes")
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let oom = oom.unwrap_or_else(|| oom_kills(read("memory.oom_control").as_deref()));
        (self.base_bytes, self.oom_before, self.cpu_base_ns) = (base, oom, cpu_base);
        Ok(())
    }

    /// Waits until no process is left in the folders (killing them, and
    /// reaping with `reap`), two seconds at most.
    fn wait_empty(&self, reap: &dyn Fn()) -> Result<(), ExecError> {
        let deadline = Instant::now() + Duration::from_secs(2);
        let pids = self.dir(Role::Pids).map(|d| d.join("pids.current"));
        // pids.current counts zombies too: a pid is free once reaped.
        let left = || {
            pids.as_ref()
                .and_then(|f| self.read_file(f))
                .and_then(|t| t.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        while left() > 0 {
            if Instant::now() >= deadline {
                return Err(ExecError::SlotBusy {
                    left: left(),
                    path: pids.clone().unwrap_or_default(),
                });
            }
            self.kill();
            reap();
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }
}
