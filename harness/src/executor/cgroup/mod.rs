//! A cgroup per case: the whole process tree is killed with its case
//! (setsid and double-fork escapees included), its memory and process
//! count are limited, and its CPU time and peak memory are read from the
//! kernel, not from `wait4` (which inherits the harness's own peak).
//!
//! Two layouts. Pure v2 (`cgroup2` at `/sys/fs/cgroup`): one folder per
//! case with `memory.max`, `pids.max`, `cgroup.kill`, `memory.peak`,
//! `cpu.stat`, `memory.events`; the controllers are delegated to the run's
//! folder first (moving the harness into a leaf of its own when its cgroup
//! must have no processes). Hybrid (v1 controllers, as on the machines this
//! project is built on): a folder per case in each of the v1 `memory`,
//! `pids`, `cpuacct` and `freezer` hierarchies (the freezer stops the tree
//! while every process in it gets SIGKILL), all joined without waiting
//! for an RCU grace period; the controller-less v2 `unified` hierarchy
//! (`cgroup.kill`, `cpu.stat`) only where the freezer or cpuacct is
//! missing. On pure v1 a job slot's cases run one after another in the
//! slot's own folders, made once, emptied and reset between cases (see
//! [`Cgroups::case`]); a slot's cores are a v1 cpuset folder of its own
//! (see [`Cgroups::pin`]). No crate handled
//! both layouts with `cgroup.kill` (cgroups-rs does v1 or v2, not a v2
//! kill beside v1 controllers), so this is plain file I/O.

pub(super) mod cgfiles;
pub(super) mod cpus;
mod hierarchy;
mod settle;
mod view;

use std::path::{Path, PathBuf};

use crate::executor::ExecError;
pub use cgfiles::Join;
pub use cgfiles::Usage;
use cgfiles::{OpenFiles, oom_kills};
use hierarchy::{delegate, join, make, own_cgroup, parse_mounts, remove_when_empty};
pub use view::Place;

use std::time::Duration;

/// One hierarchy's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Pure v2: everything in one folder.
    V2,
    /// v1 memory controller.
    Memory,
    /// v1 pids controller.
    Pids,
    /// v1 cpuacct controller.
    Cpuacct,
    /// v1 freezer controller.
    Freezer,
    /// The controller-less v2 hierarchy beside v1 (for `cgroup.kill`).
    Unified,
}

/// Folders, one per hierarchy, with their roles.
type Dirs = Vec<(Role, PathBuf)>;

/// The join files of `dirs`, opened.
fn open_joins(dirs: &Dirs) -> Result<Vec<Join>, ExecError> {
    dirs.iter()
        .map(|(role, dir)| {
            let path = dir.join(join_file(*role));
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| ExecError::io("open", &path, e))?;
            Ok(Join {
                file,
                itself: path.ends_with("tasks"),
            })
        })
        .collect()
}

/// The run's cgroup folders, one per hierarchy used.
#[derive(Debug)]
pub struct Cgroups {
    runs: Vec<(Role, PathBuf)>,
    memory_limit: u64,
    pids_limit: u64,
    /// Where the run's v1 cpuset folder would go (the cpuset mount and
    /// this process's place in it), on the hybrid layout.
    cpuset_base: Option<PathBuf>,
    /// The run's v1 cpuset folder and a folder per job slot in it, once
    /// [`Cgroups::pin`] made them.
    cpusets: Option<(PathBuf, Vec<PathBuf>, Vec<Join>)>,
    /// Pure v1: each job slot's folders (and their join files), made on
    /// its first case and used by every case it runs (see
    /// [`Cgroups::case`]).
    slots: std::sync::Mutex<Vec<Option<SlotFolders>>>,
}

/// A job slot's folders, their join files and the files kept open.
type SlotFolders = (Dirs, std::sync::Arc<Vec<Join>>, std::sync::Arc<OpenFiles>);

/// One case's cgroup folders.
#[derive(Debug)]
pub struct CaseCgroup {
    dirs: Vec<(Role, PathBuf)>,
    /// The files its process joins it by.
    joins: std::sync::Arc<Vec<Join>>,
    /// The files read and written so far, kept open (a slot's for all its
    /// cases): the kernel makes a cgroup file's text anew at each read
    /// from its start, and a path is looked up once, not at every read.
    open: std::sync::Arc<OpenFiles>,
    /// The folders are its job slot's, used again by the slot's next case.
    shared: bool,
    /// Memory the slot's folder was charged when the case began (page
    /// cache an earlier case left), taken off its peak.
    base_bytes: u64,
    /// The slot's OOM kills before the case.
    oom_before: u64,
    /// The slot's v1 CPU count when the case began.
    cpu_base_ns: u64,
}

impl Cgroups {
    /// Makes the run's folders under this process's own cgroups, or says
    /// why none can be made.
    pub fn create(memory_limit: u64, pids_limit: u64) -> Result<Self, ExecError> {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| ExecError::io("read", "/proc/self/mountinfo", e))?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| ExecError::io("read", "/proc/self/cgroup", e))?;
        let name = format!("puzzlegrade-{}", std::process::id());
        let (v1, v2) = parse_mounts(&mounts);
        let own_path = |controller: Option<&str>| own_cgroup(&own, controller);
        let mut runs = Vec::new();
        let has_v1 = |c: &str| v1.iter().any(|(ctl, _)| ctl == c);
        let mut cpuset_base = None;
        if has_v1("memory") && has_v1("pids") {
            cpuset_base = v1.iter().find(|(c, _)| c == "cpuset").map(|(_, mount)| {
                join(mount, &own_path(Some("cpuset")).unwrap_or_default()).join(&name)
            });
            for (role, ctl) in [
                (Role::Memory, "memory"),
                (Role::Pids, "pids"),
                (Role::Cpuacct, "cpuacct"),
                (Role::Freezer, "freezer"),
            ] {
                let Some((_, mount)) = v1.iter().find(|(c, _)| c == ctl) else {
                    continue;
                };
                let base = join(mount, &own_path(Some(ctl)).unwrap_or_default());
                runs.push((role, make(&base.join(&name))?));
            }
            // Every v1 hierarchy is joined by a thread moving itself (see
            // Join), which costs no grace period; a
            // process joining the v2 hierarchy beside waits for one (a
            // millisecond or more per case). So v2 only stands in for what
            // v1 lacks here: the freezer (for cgroup.kill), cpuacct (its
            // cpu.stat).
            let has = |runs: &[(Role, PathBuf)], role| runs.iter().any(|(r, _)| *r == role);
            if (!has(&runs, Role::Freezer) || !has(&runs, Role::Cpuacct))
                && let Some(unified) = &v2
            {
                let base = join(unified, &own_path(None).unwrap_or_default());
                if let Ok(dir) = make(&base.join(&name)) {
                    // The root has no cgroup.kill; a child has one where
                    // the kernel offers it (5.14 and later).
                    if dir.join("cgroup.kill").exists() {
                        runs.push((Role::Unified, dir));
                    } else {
                        let _ = std::fs::remove_dir(&dir);
                    }
                }
            }
        } else if let Some(root) = &v2 {
            let own = join(root, &own_path(None).unwrap_or_default());
            runs.push((Role::V2, delegate(&own, &name)?));
        } else {
            return Err(ExecError::NoControllers);
        }
        let c = Self {
            runs,
            memory_limit,
            pids_limit,
            cpuset_base,
            cpusets: None,
            slots: std::sync::Mutex::new(Vec::new()),
        };
        // Prove it works before the first case needs it.
        let probe = c.fresh("probe")?;
        probe.remove();
        Ok(c)
    }

    /// The run's folders, one per hierarchy.
    pub fn run_dirs(&self) -> Vec<PathBuf> {
        self.runs
            .iter()
            .map(|(_, d)| d.clone())
            .chain(self.cpusets.as_ref().map(|(run, _, _)| run.clone()))
            .collect()
    }

    /// Keeps job slot k's cases to `shares[k]` with a v1 cpuset folder per
    /// slot (made once; a case joins its slot's, no folder a case), so a
    /// candidate cannot widen its CPU affinity onto a neighbour's cores.
    /// `Err` says why not (pure v2 here, or no cpuset hierarchy): then the
    /// candidates' affinity alone keeps them apart.
    pub fn pin(&mut self, shares: &[Vec<usize>]) -> Result<(), ExecError> {
        let Some(run) = self.cpuset_base.clone() else {
            return Err(ExecError::NoCpuset);
        };
        let parent = run.parent().unwrap_or(Path::new("/"));
        let mems = std::fs::read_to_string(parent.join("cpuset.effective_mems"))
            .or_else(|_| std::fs::read_to_string(parent.join("cpuset.mems")))
            .map_err(|e| ExecError::io("read", parent.join("cpuset.mems"), e))?;
        let all: Vec<usize> = shares.iter().flatten().copied().collect();
        let set = |dir: &Path, cores: &[usize]| -> Result<(), ExecError> {
            // A v1 cpuset takes no process until it has cores and memory
            // nodes of its own.
            for (file, value) in [
                ("cpuset.cpus", cpus::list(cores)),
                ("cpuset.mems", mems.trim().to_string()),
            ] {
                std::fs::write(dir.join(file), value)
                    .map_err(|e| ExecError::io("write", dir.join(file), e))?;
            }
            Ok(())
        };
        let run = make(&run)?;
        let mut slots = Vec::new();
        let made = set(&run, &all).and_then(|()| {
            for (slot, cores) in shares.iter().enumerate() {
                let dir = make(&run.join(format!("slot-{slot}")))?;
                slots.push(dir.clone());
                set(&dir, cores)?;
            }
            Ok(())
        });
        if let Err(e) = made {
            // Nothing half made is used: no case joins a cpuset without
            // cores.
            for dir in slots.iter().rev().chain([&run]) {
                let _ = std::fs::remove_dir(dir);
            }
            return Err(e);
        }
        let joins = slots
            .iter()
            .map(|d| -> Result<Join, ExecError> {
                let path = d.join("tasks");
                Ok(Join {
                    file: std::fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .map_err(|e| ExecError::io("open", &path, e))?,
                    itself: true,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.cpusets = Some((run, slots, joins));
        Ok(())
    }

    /// The file that joins job slot `slot`'s cpuset (v1: `tasks`), once
    /// pinned.
    pub fn slot_join(&self, slot: usize) -> Option<&Join> {
        let (_, _, joins) = self.cpusets.as_ref()?;
        joins.get(slot)
    }

    /// Whether each job slot's cases run in the slot's own folders, one
    /// after another (pure v1; see [`Cgroups::case`]): a case then starts
    /// only once nothing of the slot's last case is left.
    pub fn slots_reused(&self) -> bool {
        self.runs
            .iter()
            .all(|(r, _)| matches!(r, Role::Memory | Role::Pids | Role::Cpuacct | Role::Freezer))
    }

    /// `v2`, or `v1` with `+unified` when the v2 kill is there too.
    pub fn layout_name(&self) -> &'static str {
        if self.runs.iter().any(|(r, _)| *r == Role::V2) {
            "v2"
        } else if self.runs.iter().any(|(r, _)| *r == Role::Unified) {
            "v1+unified"
        } else {
            "v1"
        }
    }

    /// The cgroup case `id` runs in on job slot `slot`. Pure v1 (every
    /// folder joined without a grace period): the slot's own folders,
    /// made on its first case, emptied (`reap` reaps what died) and their
    /// counters reset: no folder is made or removed per case, the most a
    /// case costs the kernel here. Otherwise a new folder per case.
    pub fn case(&self, id: &str, slot: usize, reap: &dyn Fn()) -> Result<CaseCgroup, ExecError> {
        if !self.slots_reused() {
            return self.fresh(id);
        }
        let dirs = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            if slots.len() <= slot {
                slots.resize(slot + 1, None);
            }
            if slots[slot].is_none() {
                let made = self.fresh(&format!("slot-{slot}"))?;
                slots[slot] = Some((
                    made.dirs.clone(),
                    std::sync::Arc::clone(&made.joins),
                    std::sync::Arc::clone(&made.open),
                ));
            }
            slots[slot].clone().expect("made above")
        };
        let mut case = CaseCgroup::new(dirs.0, true);
        case.joins = dirs.1;
        case.open = dirs.2;
        case.settle(reap)?;
        Ok(case)
    }

    /// A new cgroup of its own (folders `case-{id}`), limits set.
    fn fresh(&self, id: &str) -> Result<CaseCgroup, ExecError> {
        let mut dirs = Vec::new();
        for (role, run) in &self.runs {
            let dir = run.join(format!("case-{id}"));
            std::fs::create_dir(&dir).map_err(|e| ExecError::io("create", &dir, e))?;
            dirs.push((*role, dir));
        }
        let mut case = CaseCgroup::new(dirs, false);
        let (mem, pids) = (self.memory_limit.to_string(), self.pids_limit.to_string());
        let mut failure = None;
        'dirs: for (role, dir) in &case.dirs {
            let limits: &[(&str, &str, bool)] = match role {
                Role::V2 => &[
                    ("memory.max", &mem, true),
                    ("memory.swap.max", "0", false),
                    ("pids.max", &pids, true),
                ],
                Role::Memory => &[
                    ("memory.limit_in_bytes", &mem, true),
                    ("memory.memsw.limit_in_bytes", &mem, false),
                ],
                Role::Pids => &[("pids.max", &pids, true)],
                _ => &[],
            };
            for (file, value, required) in limits {
                if let Err(e) = std::fs::write(dir.join(file), value)
                    && *required
                {
                    failure = Some(ExecError::io("write", dir.join(file), e));
                    break 'dirs;
                }
            }
        }
        if failure.is_none() {
            match open_joins(&case.dirs) {
                Ok(joins) => case.joins = std::sync::Arc::new(joins),
                Err(why) => failure = Some(why),
            }
        }
        match failure {
            Some(why) => {
                case.remove();
                Err(why)
            }
            None => Ok(case),
        }
    }
}

impl Drop for Cgroups {
    fn drop(&mut self) {
        let slots = std::mem::take(&mut *self.slots.lock().unwrap_or_else(|p| p.into_inner()));
        for (dirs, _, _) in slots.into_iter().flatten() {
            CaseCgroup::new(dirs, false).remove();
        }
        for (_, dir) in &self.runs {
            let _ = std::fs::remove_dir(dir);
        }
        if let Some((run, slots, _)) = &self.cpusets {
            // A slot's folder empties as its last case's processes die
            // (they are killed through the slot's other folders).
            remove_when_empty(slots.iter(), || {});
            let _ = std::fs::remove_dir(run);
        }
    }
}

impl CaseCgroup {
    /// `dirs`, a slot's (`shared`) or the case's own, counters untouched.
    fn new(dirs: Dirs, shared: bool) -> Self {
        Self {
            dirs,
            joins: Default::default(),
            open: Default::default(),
            shared,
            base_bytes: 0,
            oom_before: 0,
            cpu_base_ns: 0,
        }
    }

    /// The files a case's process joins the case's cgroups by (see
    /// [`Join`]).
    pub fn joins(&self) -> &[Join] {
        &self.joins
    }

    fn read_file(&self, path: &Path) -> Option<String> {
        self.open.read(path)
    }

    fn write_file(&self, path: &Path, value: &str) -> std::io::Result<()> {
        self.open.write(path, value)
    }

    fn dir(&self, role: Role) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|(r, _)| *r == role)
            .map(|(_, d)| d.as_path())
    }

    /// The pids in the case's cgroup.
    pub fn pids(&self) -> Vec<i32> {
        let Some((_, dir)) = self.dirs.first() else {
            return Vec::new();
        };
        self.read_file(&dir.join("cgroup.procs"))
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }

    /// Whether the folders are a job slot's, for its next case too.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Whether no process of the case is left (zombies aside: they run
    /// nothing).
    pub fn is_empty(&self) -> bool {
        if self.open.1.is_empty() {
            return true;
        }
        match self.tasks() {
            Some(n) => n == 0,
            None => self.pids().is_empty(),
        }
    }

    /// The case's tasks now, zombies included (the pids controller's
    /// count: one small read of a file kept open).
    fn tasks(&self) -> Option<u64> {
        let dir = self.dir(Role::Pids).or_else(|| self.dir(Role::V2))?;
        self.read_file(&dir.join("pids.current"))?
            .trim()
            .parse()
            .ok()
    }

    /// Kills every process in the case, escapees included. `true` when a
    /// look found none left (then none of the case's process group is
    /// left either: they were all in it).
    pub fn kill(&self) -> bool {
        let kill_file = self
            .dir(Role::V2)
            .or_else(|| self.dir(Role::Unified))
            .map(|d| d.join("cgroup.kill"));
        if let Some(f) = kill_file
            && self.write_file(&f, "1").is_ok()
        {
            return false;
        }
        // v1: an empty cgroup stays empty (only a case's process joins
        // one), so the freezer's work is needed only where something is
        // left.
        if self.tasks() == Some(0) {
            self.open.1.seen_empty();
            return true;
        }
        if self.pids().is_empty() {
            return false;
        }
        // Freeze so nothing forks while it dies, kill each, thaw.
        let freezer = self.dir(Role::Freezer).map(|d| d.join("freezer.state"));
        if let Some(f) = &freezer {
            let _ = self.write_file(f, "FROZEN");
        }
        for _ in 0..3 {
            for pid in self.pids() {
                if let Some(p) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
                }
            }
        }
        if let Some(f) = &freezer {
            let _ = self.write_file(f, "THAWED");
        }
        false
    }

    /// The v2 folder beside v1 whose `cpu.stat` counts the case's CPU
    /// time, when the v1 cpuacct hierarchy is not used.
    fn cpu_stat_dir(&self) -> Option<&Path> {
        match self.dir(Role::Cpuacct) {
            Some(_) => None,
            None => self.dir(Role::Unified),
        }
    }

    /// The CPU time of the case's whole tree so far (one small read).
    pub fn cpu(&self) -> Option<Duration> {
        let read = |dir: Option<&Path>, file: &str| dir.and_then(|d| self.read_file(&d.join(file)));
        if let Some(v2) = self.dir(Role::V2).or_else(|| self.cpu_stat_dir()) {
            let stat = read(Some(v2), "cpu.stat")?;
            return stat
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec ")?.trim().parse().ok())
                .map(Duration::from_micros);
        }
        self.cpuacct_ns()
            .map(|ns| Duration::from_nanos(ns.saturating_sub(self.cpu_base_ns)))
    }

    /// The v1 cpuacct count (ns), not reset between a slot's cases.
    fn cpuacct_ns(&self) -> Option<u64> {
        self.read_file(&self.dir(Role::Cpuacct)?.join("cpuacct.usage"))?
            .trim()
            .parse()
            .ok()
    }

    /// What the kernel measured.
    pub fn usage(&self) -> Usage {
        let read = |dir: Option<&Path>, file: &str| dir.and_then(|d| self.read_file(&d.join(file)));
        let number = |text: Option<String>| text.and_then(|t| t.trim().parse::<u64>().ok());
        let field = |text: &Option<String>, key: &str| {
            text.as_ref().and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix(key)?.trim().parse::<u64>().ok())
            })
        };
        if let Some(v2) = self.dir(Role::V2) {
            let stat = read(Some(v2), "cpu.stat");
            let events = read(Some(v2), "memory.events");
            return Usage {
                peak_bytes: number(read(Some(v2), "memory.peak")),
                cpu: field(&stat, "usage_usec ").map(Duration::from_micros),
                oom_killed: field(&events, "oom_kill ").is_some_and(|n| n > 0),
            };
        }
        let oom = oom_kills(read(self.dir(Role::Memory), "memory.oom_control").as_deref());
        let cpu = self.cpu();
        if self.shared {
            self.open.1.note(
                oom,
                cpu.and_then(|c| u64::try_from(c.as_nanos()).ok())
                    .map(|ns| ns + self.cpu_base_ns),
            );
        }
        Usage {
            peak_bytes: number(read(self.dir(Role::Memory), "memory.max_usage_in_bytes"))
                .map(|b| b.saturating_sub(self.base_bytes)),
            cpu,
            oom_killed: oom > self.oom_before,
        }
    }

    /// Kills what is left, waits (a little) for the cgroup to empty, and
    /// removes its folders. A slot's stay as they are: the case's end
    /// killed what it left, and by now (this runs off the case's path)
    /// they may hold the slot's next case.
    pub fn remove(self) {
        if self.shared {
            return;
        }
        remove_when_empty(self.dirs.iter().map(|(_, d)| d), || {
            self.kill();
        });
    }
}

/// The file a process joins a cgroup of `role` by (see
/// [`Join`]).
fn join_file(role: Role) -> &'static str {
    match role {
        Role::V2 | Role::Unified => "cgroup.procs",
        Role::Memory | Role::Pids | Role::Cpuacct | Role::Freezer => "tasks",
    }
}
