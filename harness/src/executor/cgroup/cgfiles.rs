//! Cgroup files as the harness uses them: the join files a case's process
//! is handed (it may no longer open them: its view makes `/sys`
//! read-only), and the files a job slot reads and writes case after case,
//! kept open (a path is looked up once, not at every read).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A file a case's process writes to, to join one of its cgroups: opened
/// by the harness (once per job slot where the slot's folders are reused)
/// and handed to the process, which may no longer open it (its view makes
/// `/sys` read-only).
#[derive(Debug)]
pub struct Join {
    /// v1's `tasks` or `cgroup.procs`, open for writing.
    pub file: std::fs::File,
    /// Whether the process writes `0` (v1's `tasks`: the writing thread,
    /// the only one, moves itself, which costs no grace period) or its pid.
    pub itself: bool,
}

/// What the kernel measured for a case's whole tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Peak memory in bytes.
    pub peak_bytes: Option<u64>,
    /// CPU time.
    pub cpu: Option<Duration>,
    /// The kernel's OOM killer killed a process of the case.
    pub oom_killed: bool,
}

/// Cgroup files kept open, each by path and whether it is open for
/// writing; and, for a job slot's folders, what they are known to hold
/// between its cases.
#[derive(Debug, Default)]
pub(in crate::executor) struct OpenFiles(
    std::sync::Mutex<Vec<(PathBuf, bool, std::fs::File)>>,
    pub(in crate::executor) Between,
);

/// What a job slot's folders are known to hold between two of its cases,
/// so the next case's settling need not read it again: a look after the
/// last case found no process in them, and nothing has joined them since
/// (only a case's process joins them); their OOM kills and CPU time, as
/// read after that case, cannot change with no process in them.
#[derive(Debug)]
pub(in crate::executor) struct Between {
    empty: std::sync::atomic::AtomicBool,
    /// `u64::MAX`: not known.
    oom: std::sync::atomic::AtomicU64,
    cpu_ns: std::sync::atomic::AtomicU64,
}

impl Default for Between {
    fn default() -> Self {
        Self {
            empty: false.into(),
            oom: u64::MAX.into(),
            cpu_ns: u64::MAX.into(),
        }
    }
}

impl Between {
    /// A look found no process in the folders.
    pub(in crate::executor) fn seen_empty(&self) {
        self.empty.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether they are known to hold no process.
    pub(in crate::executor) fn is_empty(&self) -> bool {
        self.empty.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The OOM kills and CPU time (ns) read after a case.
    pub(in crate::executor) fn note(&self, oom: u64, cpu_ns: Option<u64>) {
        use std::sync::atomic::Ordering::SeqCst;
        self.oom.store(oom, SeqCst);
        self.cpu_ns.store(cpu_ns.unwrap_or(u64::MAX), SeqCst);
    }

    /// For the next case, which is about to join: `None` unless the
    /// folders are known to be empty; then the OOM kills and CPU time
    /// noted, where they were. Known no more after this.
    pub(in crate::executor) fn take(&self) -> Option<(Option<u64>, Option<u64>)> {
        use std::sync::atomic::Ordering::SeqCst;
        let known = |v: u64| (v != u64::MAX).then_some(v);
        let (oom, cpu) = (
            known(self.oom.swap(u64::MAX, SeqCst)),
            known(self.cpu_ns.swap(u64::MAX, SeqCst)),
        );
        self.empty.swap(false, SeqCst).then_some((oom, cpu))
    }
}

impl OpenFiles {
    /// Reads a cgroup file through its kept descriptor (opened on first
    /// use): the kernel makes a cgroup file's text anew at each read from
    /// its start. Not a list of processes: v1 keeps the list an open file
    /// read first for a while, so a second read from the start could show
    /// processes gone and miss new ones; those are opened anew each time.
    pub(in crate::executor) fn read(&self, path: &Path) -> Option<String> {
        use std::os::unix::fs::FileExt;
        if path.ends_with("cgroup.procs") || path.ends_with("tasks") {
            return std::fs::read_to_string(path).ok();
        }
        let mut open = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let at = match open.iter().position(|(p, w, _)| !*w && p == path) {
            Some(at) => at,
            None => {
                open.push((path.to_owned(), false, std::fs::File::open(path).ok()?));
                open.len() - 1
            }
        };
        let mut buf = vec![0u8; 256];
        let mut len = 0;
        loop {
            let n = open[at].2.read_at(&mut buf[len..], len as u64).ok()?;
            len += n;
            if n == 0 || len < buf.len() {
                break;
            }
            buf.resize(buf.len() * 2, 0);
        }
        buf.truncate(len);
        String::from_utf8(buf).ok()
    }

    /// Writes `value` to a cgroup file through its kept descriptor.
    pub(in crate::executor) fn write(&self, path: &Path, value: &str) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut open = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let at = match open.iter().position(|(p, w, _)| *w && p == path) {
            Some(at) => at,
            None => {
                let f = std::fs::OpenOptions::new().write(true).open(path)?;
                open.push((path.to_owned(), true, f));
                open.len() - 1
            }
        };
        open[at].2.write_at(value.as_bytes(), 0).map(drop)
    }
}

/// The OOM kills a v1 `memory.oom_control` counts.
pub(in crate::executor) fn oom_kills(text: Option<&str>) -> u64 {
    text.and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
    })
    .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read through a kept descriptor is read anew each time (a
    /// plain file stands in for a cgroup file here).
    #[test]
    fn kept_files_are_read_and_written_from_their_start() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("cpuacct.usage");
        std::fs::write(&f, "12345\n").unwrap();
        let open = OpenFiles::default();
        assert_eq!(open.read(&f).as_deref(), Some("12345\n"));
        open.write(&f, "0").unwrap();
        assert_eq!(
            open.read(&f).as_deref(),
            Some("02345\n"),
            "written at its start"
        );
        let long = "x".repeat(1000);
        std::fs::write(&f, &long).unwrap();
        assert_eq!(open.read(&f), Some(long), "longer than one read");
        assert_eq!(open.0.lock().unwrap().len(), 2, "one descriptor each way");
        assert_eq!(open.read(&dir.path().join("missing")), None);
    }
}
