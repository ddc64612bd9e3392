//! A run's isolation, case by case: the scratch folder and its copies, the
//! case's cgroup, its slot's user and cores, the view of the file system
//! its sandbox makes (see `sandbox`), and the case's process started by
//! `spawn` (doing what `launch` says); then what the kernel measured. See
//! `isolate` for what each protection is, and `README.md` beside this
//! file for one case's path.

use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rustix::process::Resource;

use super::isolate::{self, Isolation, Level};
use super::janitor::{Janitor, Leftover};
use super::scratch::{RunDir, Scratch, ScratchPlace};
use super::slot::{ViewKey, Views};
use crate::cancel::Cancel;
use crate::executor::cgroup::{CaseCgroup, Cgroups};
use crate::executor::run::child::{Ends, Measures, relative_to, run};
use crate::executor::run::guard::{self, Guard};
use crate::executor::run::held::Held;
use crate::executor::run::launch::Launch;
use crate::executor::run::spawn::Plan;
use crate::executor::sandbox::view::{self, View};
use crate::executor::sandbox::{self, Sandbox};
use crate::executor::{Ending, ExecError, LimitHit, Limits, RunResult, Spec};

/// Everything isolation needs for the whole run.
pub(in crate::executor) struct Isolated {
    /// The sandbox that makes each case's view, where one does.
    sandbox: Option<Box<dyn Sandbox>>,
    slots: Vec<Mutex<super::slot::Slot>>,
    /// Which of them, and which cores, each slot number uses.
    layout: super::slot::Layout,
    /// Each view planned so far (a candidate's cases share one per slot),
    /// and each distinct view once (commands that name the same paths
    /// share it: a class's parts).
    views: Mutex<Views>,
    isolation: Isolation,
    pub(in crate::executor) level: Level,
    /// The harness's programs a view would hide: kept in every view.
    own: Vec<PathBuf>,
    /// The folders each case's view replaces (when it gets one).
    roots: Vec<PathBuf>,
    run_dir: Arc<RunDir>,
    cgroups: Option<Cgroups>,
    /// Each job slot's cores, where the slots have cores of their own.
    cores: Option<Vec<Vec<usize>>>,
    /// RLIMIT_NPROC, where it means something.
    nproc: Option<u64>,
    /// The case's own budget, where its sandbox counts it apart.
    case_nproc: Option<u64>,
    max_file: u64,
    cases: AtomicUsize,
    /// Removes finished cases' cgroups and scratch folders off the cases'
    /// critical path.
    pub(in crate::executor) janitor: Janitor,
    /// The job slots' uid range, held while the run lasts.
    _uids: Option<super::uids::Claim>,
}

impl Isolated {
    pub(in crate::executor) fn new(
        exe: &Path,
        isolation: &Isolation,
        max_file: u64,
    ) -> anyhow::Result<Self> {
        let probes = isolate::Probes {
            native: &sandbox::native_usable,
            bwrap: &sandbox::bwrap_usable,
            landlock: &sandbox::landlock_usable,
        };
        isolate::forced(isolation, &probes)?;
        let (mut cgroups, why) = if isolation.cgroups {
            match Cgroups::create(isolation.memory_limit, isolation.pids_limit) {
                Ok(c) => (Some(c), None),
                Err(why) => (None, Some(why)),
            }
        } else {
            (None, None)
        };
        let mut level = isolate::settle(isolation, &cgroups, why.map(|e| e.to_string()), &probes);
        // Every slot's, and its partner's where slots have partners.
        let all = isolation.slots.max(1) * if isolation.partners { 2 } else { 1 };
        // Uids of their own, held for the whole run: no other run on this
        // machine runs candidates as them meanwhile.
        let uids = match level.uid_base {
            Some(_) => {
                let claim = super::uids::claim(isolation.uid_base, all)?;
                level.uid_base = Some(claim.base);
                Some(claim)
            }
            None => None,
        };
        let own_count = level
            .sandbox
            .is_some_and(sandbox::Kind::counts_in_its_own_user);
        let nproc = match (level.uid_base, &cgroups) {
            // The pids controller does it exactly (and RLIMIT_NPROC would
            // count the zombies of a killed case against the next one).
            (_, Some(_)) => None,
            // Each slot's uid is its own: the count is the case's.
            (Some(_), None) => Some(isolation.pids_limit),
            // Counted per user: this user's processes now, plus the limit;
            // where the sandbox counts a case in a user namespace of its
            // own, room for every slot's, the case's own budget counted
            // there (see `Around::nproc`).
            (None, None) => Some(
                super::uids::own_processes()
                    + isolation.pids_limit * if own_count { all as u64 + 1 } else { 1 },
            ),
        };
        let case_nproc = nproc.filter(|_| own_count).map(|_| isolation.pids_limit);
        let one_at_a_time = isolate::one_at_a_time(isolation, &mut level, cgroups.is_some())?;
        let cores = super::slot::cores(isolation.slots, cgroups.as_mut(), &mut level);
        let run_dir = RunDir::new(&ScratchPlace::with(cgroups.is_some()).base())
            .or_else(|_| RunDir::new(&std::env::temp_dir()))?;
        // (Where nothing of a case outlives it: see `recycle`.)
        let ends = level.sandbox.is_some_and(sandbox::Kind::ends_every_process);
        let run_dir = Arc::new(run_dir.keeping_own(ends));
        // Makes scratch folders ahead, and empties finished ones for their
        // slot's next cases, off the cases' path.
        let janitor = {
            let (ahead, back) = (Arc::clone(&run_dir), Arc::clone(&run_dir));
            Janitor::recycling(move || ahead.make_ahead(), move |s| back.recycle(s))
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
        // (One slot for every worker: cases run one at a time.)
        let slots = match (one_at_a_time, isolation.partners) {
            (true, partners) => 1 + usize::from(partners),
            (false, _) => all,
        };
        Ok(Self {
            sandbox: level
                .sandbox
                .map(|kind| sandbox::make(kind, sandbox::Program::beside(exe), slots)),
            layout: super::slot::Layout {
                slots: isolation.slots.max(1),
                partners: isolation.partners,
                states: slots,
            },
            slots: (0..slots)
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
            case_nproc,
            max_file,
            cases: AtomicUsize::new(0),
            janitor,
            _uids: uids,
        })
    }

    /// The slot that runs beside `slot`'s cases (see `Layout`).
    pub(in crate::executor) fn partner(&self, slot: usize) -> Option<usize> {
        self.layout.partner(slot)
    }

    /// What the guard clears away if the harness dies.
    pub(in crate::executor) fn cleanup(&self) -> guard::Cleanup {
        guard::Cleanup {
            cgroups: self
                .cgroups
                .as_ref()
                .map(Cgroups::run_dirs)
                .unwrap_or_default(),
            run_dir: Some(self.run_dir.path().to_owned()),
        }
    }

    /// Runs `spec` isolated: its case readied ([`Isolated::prepare`]), run
    /// in its sandbox ([`Isolated::run_case`]), then measured and cleared
    /// away ([`Isolated::finish`]). Our failure on the way is
    /// [`Ending::Failed`].
    pub(in crate::executor) fn execute(
        &self,
        spec: &Spec,
        limits: &Limits,
        cancel: &Cancel,
        guard: Option<&Guard>,
    ) -> RunResult {
        let once = || self.execute_once(spec, limits, cancel, guard);
        super::slot::with_retries(cancel, self.cgroups.is_none(), once)
    }

    fn execute_once(
        &self,
        spec: &Spec,
        limits: &Limits,
        cancel: &Cancel,
        guard: Option<&Guard>,
    ) -> RunResult {
        let start = Instant::now();
        let failed =
            |e: ExecError| RunResult::ended(Ending::Failed(e.to_string()), start.elapsed());
        let case = match self.prepare(spec, guard) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        match self.run_case(spec, limits, cancel, guard, &case) {
            Ok(mut result) => {
                let dir = case.scratch.path();
                result.returned = crate::executor::run::returned::read(dir, &spec.returns);
                self.finish(case, limits, Some(&mut result));
                result
            }
            Err(e) => {
                self.finish(case, limits, None);
                failed(e)
            }
        }
    }

    /// A case's scratch folder with its copies, and its cgroup.
    fn prepare(&self, spec: &Spec, guard: Option<&Guard>) -> Result<Prepared, ExecError> {
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
            Err(e) => return Err(ExecError::system("make a scratch folder", e)),
        };
        let copies = self.run_dir.copy_in(
            &mut scratch,
            spec.slot,
            &spec.files,
            spec.contents.as_deref().map(Vec::as_slice),
            self.max_file,
        )?;
        let cgroup = match &self.cgroups {
            Some(c) => Some(c.case(&id.to_string(), spec.slot, &|| {
                if let Some(g) = guard {
                    g.reap_orphans();
                }
            })?),
            None => None,
        };
        Ok(Prepared {
            owner,
            scratch,
            copies,
            cgroup,
        })
    }

    /// The case's process started in its sandbox, as its slot's user, and
    /// watched to its end (see `child`): what it did, in the candidate's
    /// terms.
    fn run_case(
        &self,
        spec: &Spec,
        limits: &Limits,
        cancel: &Cancel,
        guard: Option<&Guard>,
        case: &Prepared,
    ) -> Result<RunResult, ExecError> {
        let workdir = if spec.relative {
            case.scratch.path()
        } else {
            spec.workdir.as_path()
        };
        let mut slot = self.slots[self.layout.index(spec.slot)]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let sandbox = self
            .sandbox
            .as_deref()
            .map(|s| (s, self.slot_view(&mut slot, spec)));
        if slot.failure.is_none() {
            slot.failure = Some(
                super::slot::failure_pipe()
                    .map_err(|e| ExecError::system("make the slot's failure pipe", e))?,
            );
        }
        let (failure, failure_end) = slot.failure.as_ref().expect("made above");
        // (Nothing an earlier case's sandbox left there is this one's.)
        super::slot::failure_said(failure);
        let (slot_dir, trash) = (self.run_dir.slot_dir(spec.slot), self.run_dir.trash());
        let place = sandbox.as_ref().map(|(_, view)| sandbox::Case {
            slot: spec.slot,
            view,
            cwd: workdir,
            scratch: (case.scratch.path(), &slot_dir),
            trash: &trash,
            harness_user: case.owner.is_none(),
            cgroups: (self.cgroups.as_ref().zip(case.cgroup.as_ref()))
                .map_or_else(Vec::new, |(all, c)| all.view(c, spec.slot)),
            cgroups_shared: case.cgroup.as_ref().is_some_and(CaseCgroup::is_shared),
            network: self.isolation.network || spec.network,
            nproc: self.case_nproc,
            failure: failure_end.as_raw_fd(),
        });
        if let Some(cores) = self
            .cores
            .as_ref()
            .and_then(|c| c.get(self.layout.home(spec.slot)))
        {
            super::slot::keep_thread_to(self.layout.home(spec.slot), cores);
        }
        let mut entered = match (&sandbox, &place) {
            (Some((s, _)), Some(place)) => s.enter(place)?,
            _ => sandbox::Entered::default(),
        };
        let launch = self.launch(spec, limits, case, workdir, &entered);
        let plan = Plan::new(&launch)?;
        let mut start = |ends: Ends| {
            crate::executor::run::spawn::spawn(
                &plan,
                [ends.stdin.as_fd(), ends.stdout.as_fd(), ends.stderr.as_fd()],
                failure_end.as_fd(),
            )
        };
        let program = launch.argv.first().cloned().unwrap_or_default();
        // No memory cgroup charges its scratch folder (nor a build's
        // folder): what it holds there is sampled against the cap.
        let held = self.cgroups.is_none().then(|| {
            let mut places = vec![case.scratch.path().to_owned()];
            places.extend(spec.write_workdir.then(|| workdir.to_owned()));
            Held::new(
                places,
                self.isolation.memory_limit,
                std::time::Instant::now(),
            )
        });
        let swept = sandbox.as_ref().map(|(s, _)| *s).zip(place.as_ref());
        let sweep = || swept.map_or((), |(s, p)| s.sweep(p));
        let measures = Measures {
            cgroup: case.cgroup.as_ref(),
            held,
            sweep: Some(&sweep),
        };
        let mut result = run(&program, &mut start, spec, limits, cancel, guard, measures);
        // Only the case's process (or the shim in its sandbox) writes
        // there, before its exec: why it could not start the candidate, or
        // the shim's word that it reached the exec. By now it has exited
        // or exec'd.
        let said = super::slot::failure_said(failure);
        if let Some(why) = plan.failure(&said) {
            result.ending = Ending::Failed(why);
        }
        entered.reached = crate::executor::run::shim::reached(&said);
        // Nothing of the case left running: its view may be emptied for the
        // slot's next case.
        let quiet = case.cgroup.as_ref().is_some_and(CaseCgroup::is_empty);
        if let (Some((s, _)), Some(place)) = (&sandbox, &place) {
            s.leave(place, entered, &mut result, quiet);
        }
        Ok(result)
    }

    /// What the case's process does before it becomes the candidate.
    fn launch(
        &self,
        spec: &Spec,
        limits: &Limits,
        case: &Prepared,
        workdir: &Path,
        entered: &sandbox::Entered,
    ) -> Launch {
        let mut rlimits = vec![
            (Resource::Core, 0),
            (Resource::Fsize, self.isolation.file_size_limit),
        ];
        if let Some(n) = entered.hop.and(self.case_nproc).or(self.nproc) {
            rlimits.push((Resource::Nproc, n));
        }
        if let Some(cpu) = limits.cpu {
            // Whole seconds, rounded up, as `ulimit -t`.
            rlimits.push((
                Resource::Cpu,
                cpu.as_secs() + u64::from(cpu.subsec_nanos() > 0),
            ));
        }
        let slot_cpuset = self
            .cgroups
            .as_ref()
            .and_then(|c| c.slot_join(self.layout.home(spec.slot)));
        let join: Vec<(RawFd, bool)> = case
            .cgroup
            .as_ref()
            .map(|c| c.joins().iter().collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .chain(slot_cpuset)
            .map(|j| (j.file.as_raw_fd(), j.itself))
            .collect();
        let mut argv = spec.argv.clone();
        if spec.relative {
            argv.extend(
                case.copies
                    .iter()
                    .map(|c| relative_to(c, case.scratch.path())),
            );
        } else {
            argv.extend(case.copies.iter().map(|c| c.clone().into_os_string()));
        }
        argv.extend(spec.tail.iter().cloned());
        Launch {
            argv,
            cwd: workdir.to_owned(),
            env: isolate::environment(case.scratch.path(), &self.isolation),
            join,
            rlimits,
            user: case.owner,
            cpus: self
                .cores
                .as_ref()
                .and_then(|c| c.get(self.layout.home(spec.slot)))
                .cloned()
                .unwrap_or_default(),
            namespace: entered.namespace,
            hop: entered.hop,
            network: entered.network,
            cgroup_view: entered.cgroup_view.clone(),
            cgroup_ns: entered.cgroup_ns,
            offline: entered.offline,
            wrap: entered.wrap.clone(),
            hand: entered.handed(),
            landlock: entered
                .landlock
                .iter()
                .copied()
                .chain(entered.landlock_own.as_ref().map(AsRawFd::as_raw_fd))
                .collect(),
            no_new_privs: entered.wrap.is_empty(),
            ipc: spec.ipc,
        }
    }

    /// After the case: the limit it went over where the kernel said so
    /// (SIGXCPU, the OOM killer), what its cgroup measured (`result`:
    /// `None` when it never ran), and its scratch folder and cgroup handed
    /// to the janitor.
    fn finish(&self, case: Prepared, limits: &Limits, mut result: Option<&mut RunResult>) {
        const SIGXCPU: i32 = 24;
        if let Some(result) = result.as_deref_mut()
            && let Some(cpu) = limits.cpu
            && result.limit.is_none()
            && !result.cancelled
            && (result.ending == Ending::Signaled(SIGXCPU)
                || (result.ending == Ending::Signaled(9) && result.cpu.is_some_and(|c| c >= cpu)))
        {
            result.limit = Some(LimitHit::Cpu);
        }
        // Without a cgroup, what the case left running (a daemon in a
        // session of its own) dies now, by its user: the slot's uid runs
        // nothing else meanwhile.
        if case.cgroup.is_none()
            && let Some(owner) = case.owner
            && let Err(e) = super::uids::kill_all(owner)
        {
            eprintln!("harness: {e}");
        }
        self.janitor
            .clear(Leftover::Scratch(self.run_dir.retire(case.scratch)));
        let Some(cg) = case.cgroup else {
            return;
        };
        let usage = result.is_some().then(|| cg.usage());
        // (A slot's folders stay: nothing to clear.)
        if !cg.is_shared() {
            self.janitor.clear(Leftover::Cgroup(cg));
        }
        if let (Some(result), Some(usage)) = (result, usage) {
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
    }

    /// The view of `spec`'s cases on its slot: the slot's last case's,
    /// where this one is run alike (most are), looked up without a key
    /// made; else planned ([`Isolated::view`]).
    fn slot_view(&self, slot: &mut super::slot::Slot, spec: &Spec) -> Arc<View> {
        match &slot.last {
            Some((argv, workdir, write, v))
                if *argv == spec.argv
                    && *write == spec.write_workdir
                    && workdir.as_deref() == (!spec.relative).then_some(spec.workdir.as_path()) =>
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
        let mut needs = sandbox::needs::needs(
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
        let (outputs, size) = (&self.isolation.outputs, self.isolation.memory_limit);
        let planned = View::plan(&self.roots, outputs, &needs, size);
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

    /// Where its scratch folders live.
    pub(in crate::executor) fn scratch_place(&self) -> ScratchPlace {
        ScratchPlace::with(self.cgroups.is_some())
    }

    /// Stops what the sandbox keeps running (each slot's keeper).
    pub(in crate::executor) fn stop_sandbox(&self) {
        if let Some(s) = &self.sandbox {
            s.stop();
        }
    }
}

/// A case readied to run: its slot's user, its scratch folder and the
/// copies there, its cgroup.
struct Prepared {
    owner: Option<(u32, u32)>,
    scratch: Scratch,
    copies: Vec<PathBuf>,
    cgroup: Option<CaseCgroup>,
}
