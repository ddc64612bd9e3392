//! A run's isolation, case by case: the scratch folder and its copies, the
//! case's cgroup, its slot's user and cores, its view of the file system,
//! and the request to the slot's spawner; then what the kernel measured.
//! See `isolate` for what each protection is, `spawner` and `launch` for
//! who does it.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::cgroup::{CaseCgroup, Cgroups};
use super::child::{Ends, relative_to, run};
use super::guard::{self, Guard};
use super::isolate::{self, Isolation, Level, Sandbox};
use super::janitor::{Janitor, Leftover};
use super::keeper::Program;
use super::launch::Launch;
use super::scratch::{self, RunDir};
use super::spawn::Plan;
use super::view::{self, View};
use super::{Ending, LimitHit, Limits, RunResult, Spec};
use crate::cancel::Cancel;

/// What a view is planned from: the command (before its files), the
/// working folder (`None`: the scratch folder), whether it is written to,
/// and the job slot.
type ViewKey = (Vec<OsString>, Option<PathBuf>, bool, usize);

/// What a view is planned from: each path a case needs, and whether it
/// writes there.
type Needs = Vec<(PathBuf, bool)>;

/// The views planned, by the command they were planned for, by what they
/// were planned from (a class's parts differ in a word of the command,
/// not in what they need), and each once.
type Views = (
    HashMap<ViewKey, Arc<View>>,
    HashMap<Needs, Arc<View>>,
    HashMap<Arc<View>, ()>,
);

/// Everything isolation needs for the whole run.
pub(super) struct Isolated {
    /// The keepers' program.
    program: Program,
    slots: Vec<Mutex<super::slot::Slot>>,
    /// Each view planned so far (a candidate's cases share one per slot),
    /// and each distinct view once: commands that name the same paths (a
    /// class's parts, one program with another argument) share it.
    views: Mutex<Views>,
    isolation: Isolation,
    pub(super) level: Level,
    /// The programs beside the harness, where a view would hide them:
    /// kept in every case's view.
    own: Vec<PathBuf>,
    /// The folders each case's view replaces (when it gets one).
    roots: Vec<PathBuf>,
    run_dir: Arc<RunDir>,
    cgroups: Option<Cgroups>,
    /// Each job slot's cores, where the slots have cores of their own.
    cores: Option<Vec<Vec<usize>>>,
    /// RLIMIT_NPROC, where it means something.
    nproc: Option<u64>,
    max_file: u64,
    cases: AtomicUsize,
    /// Removes finished cases' cgroups and scratch folders off the cases'
    /// critical path.
    pub(super) janitor: Janitor,
    /// The job slots' uid range, held while the run lasts.
    _uids: Option<super::uids::Claim>,
}

impl Isolated {
    pub(super) fn new(exe: &Path, isolation: &Isolation, max_file: u64) -> anyhow::Result<Self> {
        if isolation.sandbox == Sandbox::Bwrap
            && let Err(why) = isolate::bwrap_here()
        {
            anyhow::bail!("--sandbox bwrap: {why}");
        }
        let (mut cgroups, why) = if isolation.cgroups {
            match Cgroups::create(isolation.memory_limit, isolation.pids_limit) {
                Ok(c) => (Some(c), None),
                Err(why) => (None, Some(why)),
            }
        } else {
            (None, None)
        };
        let mut level = isolate::settle(
            isolation,
            &cgroups,
            why.map(|e| e.to_string()),
            &isolate::bwrap_here,
        );
        // Uids of their own, held for the whole run: no other run on this
        // machine runs candidates as them meanwhile.
        let uids = match level.uid_base {
            Some(_) => {
                let claim = super::uids::claim(isolation.uid_base, isolation.slots)?;
                level.uid_base = Some(claim.base);
                Some(claim)
            }
            None => None,
        };
        let nproc = match (level.uid_base, &cgroups) {
            // The pids controller does it exactly (and RLIMIT_NPROC would
            // count the zombies of a killed case against the next one).
            (_, Some(_)) => None,
            // Each slot's uid is its own: the count is the case's.
            (Some(_), None) => Some(isolation.pids_limit),
            // Counted per user: this user's processes now, plus the limit.
            (None, None) => Some(own_processes() + isolation.pids_limit),
        };
        let cores = match super::cpus::share(&super::cpus::allowed(), isolation.slots) {
            Ok(shares) => {
                level.cores = Some("cpus");
                if let Some(c) = &mut cgroups {
                    match c.pin(&shares) {
                        Ok(()) => level.cores = Some("cpuset"),
                        Err(why) => level.missing.push(format!(
                            "a cpuset per job slot ({why}): each case keeps to its slot's cores by CPU affinity, which a candidate can widen"
                        )),
                    }
                }
                Some(shares)
            }
            Err(why) => {
                if isolation.slots > 1 {
                    level
                        .missing
                        .push(format!("cores of their own per job slot ({why})"));
                }
                None
            }
        };
        let run_dir = Arc::new(
            RunDir::new(&scratch::scratch_base(cgroups.is_some()))
                .or_else(|_| RunDir::new(&std::env::temp_dir()))?,
        );
        // Makes scratch folders ahead, off the cases' path.
        let janitor = {
            let run_dir = Arc::clone(&run_dir);
            Janitor::new(move || run_dir.make_ahead())
        };
        // What a case's view replaces: the shared places, where the runs'
        // (and a class's) scratch folders are, and what the run hides.
        let mut roots = view::roots(
            view::SHARED
                .iter()
                .map(PathBuf::from)
                .chain(run_dir.path().parent().map(Path::to_owned))
                .chain(isolation.hide.iter().cloned()),
        );
        // A harness built or installed where a view hides (a checkout in
        // /tmp): its programs (its own `solve`, the staff-tool replicas
        // beside it) stay in every case's sight, one by one, never the
        // rest of its folder (a build's caches).
        let own = view::programs_beside(exe, &mut roots);
        Ok(Self {
            program: Program::beside(exe),
            slots: (0..isolation.slots.max(1))
                .map(|_| Mutex::new(super::slot::Slot::default()))
                .collect(),
            views: Mutex::new(Default::default()),
            own,
            isolation: isolation.clone(),
            level,
            roots,
            run_dir,
            cgroups,
            cores,
            nproc,
            max_file,
            cases: AtomicUsize::new(0),
            janitor,
            _uids: uids,
        })
    }

    /// What the guard clears away if the harness dies.
    pub(super) fn cleanup(&self) -> guard::Cleanup {
        guard::Cleanup {
            cgroups: self
                .cgroups
                .as_ref()
                .map(Cgroups::run_dirs)
                .unwrap_or_default(),
            run_dir: Some(self.run_dir.path().to_owned()),
        }
    }

    pub(super) fn execute(
        &self,
        spec: &Spec,
        limits: &Limits,
        cancel: &Cancel,
        guard: Option<&Guard>,
    ) -> RunResult {
        let start = Instant::now();
        let failed = |msg: String| RunResult::ended(Ending::Failed(msg), start.elapsed());
        let id = self.cases.fetch_add(1, Ordering::SeqCst);
        let owner = self.level.uid_base.map(|base| {
            let uid = base + u32::try_from(spec.slot).unwrap_or(0);
            (uid, uid)
        });
        let mut scratch = match self.run_dir.scratch(spec.slot, owner) {
            Ok((s, low)) => {
                if low {
                    self.janitor.wake();
                }
                s
            }
            Err(e) => return failed(format!("cannot make a scratch folder: {e}")),
        };
        let copies = match self.run_dir.copy_in(
            &mut scratch,
            spec.slot,
            &spec.files,
            spec.contents.as_deref().map(Vec::as_slice),
            self.max_file,
        ) {
            Ok(c) => c,
            Err(e) => return failed(e.to_string()),
        };
        let cgroup = match &self.cgroups {
            Some(c) => match c.case(&id.to_string(), spec.slot, &|| {
                if let Some(g) = guard {
                    g.reap_orphans();
                }
            }) {
                Ok(cg) => Some(cg),
                Err(e) => return failed(e.to_string()),
            },
            None => None,
        };
        let mut rlimits = vec![
            ("core".to_string(), 0),
            ("fsize".to_string(), self.isolation.file_size_limit),
        ];
        if let Some(n) = self.nproc {
            rlimits.push(("nproc".into(), n));
        }
        if let Some(cpu) = limits.cpu {
            // Whole seconds, rounded up, as `ulimit -t`.
            rlimits.push((
                "cpu".into(),
                cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0),
            ));
        }
        let bwrap = self.level.bwrap;
        let workdir = if spec.relative {
            scratch.path()
        } else {
            spec.workdir.as_path()
        };
        let mut slot = self.slots[spec.slot % self.slots.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let view = self.level.private.then(|| {
            // The slot's last case's, where this one is run alike (most
            // are): looked up without a key made.
            match &slot.last {
                Some((argv, workdir, write, v))
                    if *argv == spec.argv
                        && *write == spec.write_workdir
                        && workdir.as_deref()
                            == (!spec.relative).then_some(spec.workdir.as_path()) =>
                {
                    Arc::clone(v)
                }
                _ => {
                    let v = self.view(spec);
                    let workdir = (!spec.relative).then(|| spec.workdir.clone());
                    slot.last = Some((
                        spec.argv.clone(),
                        workdir,
                        spec.write_workdir,
                        Arc::clone(&v),
                    ));
                    v
                }
            }
        });
        let report = match bwrap.then(|| self.run_dir.report_file(id)) {
            Some(path) => match std::fs::File::create(&path) {
                Ok(f) => Some((path, f)),
                Err(e) => return failed(format!("cannot make the sandbox's report: {e}")),
            },
            None => None,
        };
        let slot_cpuset = self.cgroups.as_ref().and_then(|c| c.slot_join(spec.slot));
        let join: Vec<(RawFd, bool)> = cgroup
            .as_ref()
            .map(|c| c.joins().iter().collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .chain(slot_cpuset)
            .map(|j| (j.file.as_raw_fd(), j.itself))
            .collect();
        let mut argv = spec.argv.clone();
        if spec.relative {
            argv.extend(copies.iter().map(|c| relative_to(c, scratch.path())));
        } else {
            argv.extend(copies.iter().map(|c| c.clone().into_os_string()));
        }
        if let Some(cores) = self.cores.as_ref().and_then(|c| c.get(spec.slot)) {
            super::slot::keep_thread_to(spec.slot, cores);
        }
        let namespace = match view.as_ref().filter(|_| !bwrap) {
            Some(v) => match slot.enter(&self.program, v) {
                Ok(fd) => Some(fd),
                Err(e) => return failed(format!("cannot make the job slot's view: {e}")),
            },
            None => None,
        };
        let launch = Launch {
            argv,
            cwd: workdir.to_owned(),
            env: isolate::environment(scratch.path(), &self.isolation.env),
            join,
            rlimits,
            user: owner,
            cpus: self
                .cores
                .as_ref()
                .and_then(|c| c.get(spec.slot))
                .cloned()
                .unwrap_or_default(),
            namespace,
            bwrap: view.filter(|_| bwrap).map(|v| (*v).clone()),
            report: report.as_ref().map(|(_, f)| f.as_raw_fd()),
        };
        let plan = match Plan::new(&launch) {
            Ok(p) => p,
            Err(e) => return failed(e),
        };
        if slot.failure.is_none() {
            match super::slot::failure_pipe() {
                Ok(p) => slot.failure = Some(p),
                Err(e) => return failed(format!("cannot make the slot's failure pipe: {e}")),
            }
        }
        let (failure, failure_end) = slot.failure.as_ref().expect("made above");
        let mut start = |ends: Ends| {
            super::spawn::spawn(
                &plan,
                [ends.stdin.as_fd(), ends.stdout.as_fd(), ends.stderr.as_fd()],
                failure_end.as_fd(),
            )
        };
        let program = launch.argv.first().cloned().unwrap_or_default();
        let mut result = run(
            &program,
            &mut start,
            spec,
            limits,
            cancel,
            guard,
            cgroup.as_ref(),
        );
        // Only the case's process writes there, before its exec, and only
        // why it could not start the candidate, then exits with
        // `FAILED`: by now it has exited or exec'd. Read where it may have
        // written (a signal may have come between its write and its exit).
        let may_have_said = matches!(
            result.ending,
            Ending::Exited(super::launch::FAILED) | Ending::Signaled(_) | Ending::Failed(_)
        );
        if may_have_said && let Some(why) = plan.failure(&super::slot::failure_said(failure)) {
            result.ending = Ending::Failed(why);
        }
        if let Some((path, file)) = report {
            drop(file);
            if let Some(why) = super::launch::sandbox_failure(&path, &result) {
                result.ending = Ending::Failed(why);
            }
        }
        // Nothing of the case left running: its view may be emptied for the
        // slot's next case.
        let quiet = cgroup.as_ref().is_some_and(CaseCgroup::is_empty);
        if namespace.is_some() {
            slot.after_case(quiet);
        }
        drop(slot);
        const SIGXCPU: i32 = 24;
        if let Some(cpu) = limits.cpu
            && result.limit.is_none()
            && !result.cancelled
            && (result.ending == Ending::Signaled(SIGXCPU)
                || (result.ending == Ending::Signaled(9) && result.cpu.is_some_and(|c| c >= cpu)))
        {
            result.limit = Some(LimitHit::Cpu);
        }
        if bwrap && let Ending::Exited(code @ 129..=192) = result.ending {
            // bubblewrap reports a child killed by signal N as 128 + N.
            result.ending = Ending::Signaled(code - 128);
        }
        self.janitor
            .clear(Leftover::Scratch(self.run_dir.retire(scratch)));
        if let Some(cg) = cgroup {
            let usage = cg.usage();
            // (A slot's folders stay: nothing to clear.)
            if !cg.is_shared() {
                self.janitor.clear(Leftover::Cgroup(cg));
            }
            result.cpu = usage.cpu.or(result.cpu);
            result.max_rss_kb = usage.peak_bytes.map(|b| b / 1024).or(result.max_rss_kb);
            if usage.oom_killed
                && result.limit.is_none()
                && !result.cancelled
                && result.ending == Ending::Signaled(9)
            {
                result.limit = Some(LimitHit::Memory);
            }
        }
        result
    }

    /// The view of `spec`'s cases on its slot, planned once per command,
    /// working folder and slot: what the command line and `--env` values
    /// name, the working folder, and the slot's scratch folders (every
    /// case's scratch folder is in it).
    fn view(&self, spec: &Spec) -> Arc<View> {
        let workdir = (!spec.relative).then(|| spec.workdir.clone());
        let key: ViewKey = (
            spec.argv.clone(),
            workdir.clone(),
            spec.write_workdir,
            spec.slot,
        );
        let mut views = self.views.lock().unwrap_or_else(|p| p.into_inner());
        let (by_key, by_needs, distinct) = &mut *views;
        if let Some(v) = by_key.get(&key) {
            return Arc::clone(v);
        }
        let slot_dir = self.run_dir.slot_dir(spec.slot);
        let mut needs = super::needs::needs(
            &slot_dir,
            workdir.as_deref().unwrap_or(&slot_dir),
            spec.write_workdir,
            &spec.argv,
            &self.isolation.env,
        );
        needs.extend(self.own.iter().map(|p| (p.clone(), false)));
        if let Some(v) = by_needs.get(&needs) {
            let v = Arc::clone(v);
            by_key.insert(key, Arc::clone(&v));
            return v;
        }
        let planned = View::plan(&self.roots, &needs, self.isolation.memory_limit);
        let v = match distinct.get_key_value(&planned) {
            Some((same, ())) => Arc::clone(same),
            None => {
                let v = Arc::new(planned);
                distinct.insert(Arc::clone(&v), ());
                v
            }
        };
        by_needs.insert(needs, Arc::clone(&v));
        by_key.insert(key, Arc::clone(&v));
        v
    }

    /// Stops every slot's keeper.
    pub(super) fn stop_keepers(&self) {
        for slot in &self.slots {
            slot.lock().unwrap_or_else(|p| p.into_inner()).stop();
        }
    }
}

/// How many processes this process's user has now (for RLIMIT_NPROC,
/// which counts per user).
fn own_processes() -> u64 {
    let me = rustix::process::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read_to_string(e.path().join("status")).is_ok_and(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Uid:"))
                    .and_then(|l| l.split_whitespace().next())
                    == Some(me.as_str())
            })
        })
        .count() as u64
}
