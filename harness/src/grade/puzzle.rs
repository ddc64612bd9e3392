//! A candidate on a suite case: load the puzzle (once per case), run the
//! candidate with the puzzle files, judge the output by the family's
//! contract, and fill in the row. The whole verdict table is [`fill`].

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use reference::family::Case as Puzzle;

use super::{append, millis, panic_text};
use crate::executor::{Ending, LimitHit, Limits, RunResult, Spec, signal_name};
use crate::job::{Candidate, Case, Prepared};
use crate::outcome::{Clock, Row, Verdict};
use crate::settings::{Context, RunOptions};

/// Grades `candidate` on `case` into `row`.
pub fn grade(ctx: &Context, row: &mut Row, candidate: &Candidate, case: &Case, slot: usize) {
    let limits = &own_limits(&ctx.options.limits, &case.own);
    let files = match &case.files {
        Ok(f) => f,
        Err(problem) => {
            row.detail = problem.clone();
            return;
        }
    };
    // Loaded once per case, shared by every candidate graded on it.
    let loaded = case.loaded.get_or_init(|| load(case, files, ctx.options));
    let prepared = match loaded {
        Ok(prepared) => prepared.clone(),
        Err(problem) => {
            row.detail = problem.clone();
            return;
        }
    };
    let argv: Vec<OsString> = candidate
        .argv(case.family.name())
        .into_iter()
        .map(Into::into)
        .collect();
    let spec = Spec {
        argv,
        files: case.given.clone().unwrap_or_else(|| files.clone()),
        contents: Some(prepared.given),
        workdir: candidate.workdir().to_owned(),
        slot,
        // (A problem package's `.in`: opened by the harness, never a path
        // the candidate is given.)
        stdin: case.family.input_file().and_then(|i| files.get(i)).cloned(),
        relative: candidate.relative(),
        write_workdir: false,
        network: candidate.network(),
        ipc: candidate.ipc(),
        tail: Vec::new(),
        returns: Vec::new(),
        wired: None,
    };
    // (An interactive problem's candidate talks with its validator.)
    let (run, talked) = match super::interactive::run_either(ctx, spec, case, limits, slot) {
        Ok(ran) => ran,
        Err(said) => return (row.verdict, row.detail) = said,
    };
    fill(row, prepared.puzzle.as_ref(), &run, limits);
    // A peak over the case's own memory limit (the run's cgroup holds the
    // run's): memory-limit, before its output is judged.
    if let (Some(most), Some(kb)) = (case.own.memory, run.max_rss_kb)
        && kb.saturating_mul(1024) > most
        && matches!(
            row.verdict,
            Verdict::Accepted | Verdict::WrongAnswer | Verdict::RuntimeError
        )
    {
        row.verdict = Verdict::MemoryLimit;
        row.detail = format!(
            "its peak memory, {} MiB, is over the problem's limit of {} MiB",
            kb / 1024,
            most >> 20
        );
    }
    super::interactive::judge_either(ctx, row, (case, &run), talked.as_ref(), slot);
    super::stderr::crashed(row, &run, &ctx.options.crashes);
    super::stderr::noted(row, &run, &ctx.options.notes);
    if let Some(dir) = &ctx.options.keep_output
        && let Err(e) = super::kept::keep(dir, row, &run)
    {
        append(&mut row.detail, &format!("output not kept: {e}"));
    }
}

/// The run's `limits` with a case's `own` in their place: its time judged
/// as the run's is (CPU time where the run measures it, with the wall
/// clock's net beside it), its output cap.
fn own_limits(limits: &Limits, own: &crate::job::OwnLimits) -> Limits {
    let mut l = *limits;
    if let Some(t) = own.time {
        if l.cpu.is_some() {
            (l.cpu, l.time) = (Some(t), crate::settings::safety_net(t));
        } else {
            l.time = t;
        }
    }
    if let Some(o) = own.output {
        l.stdout = o;
    }
    l
}

/// The case's puzzle, checked and loaded, and the bytes of the files its
/// candidates are given, read right after (once, before any candidate
/// runs); or why it cannot be used.
pub(super) fn load(
    case: &Case,
    files: &[PathBuf],
    options: &RunOptions,
) -> Result<Prepared, String> {
    check_files(files, &case.root, options)?;
    let puzzle: Arc<dyn Puzzle> = match catch_unwind(AssertUnwindSafe(|| {
        case.family.load_with(files, &options.load)
    })) {
        Ok(Ok(case)) => Arc::from(case),
        Ok(Err(e)) => return Err(format!("cannot load puzzle: {e}")),
        Err(panic) => return Err(format!("puzzle loader panicked: {}", panic_text(&panic))),
    };
    let given = case
        .given
        .as_deref()
        .unwrap_or(files)
        .iter()
        .map(|f| {
            reference::file::read_file_bounded::<std::convert::Infallible>(
                f,
                options.max_puzzle_size,
            )
            .map_err(|e| format!("cannot read the puzzle to give: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Prepared {
        puzzle,
        given: Arc::new(given),
    })
}

/// Puzzle files must be regular files (a FIFO, a device or a symlink to
/// one is refused by the loader), at most `--max-puzzle-size`, and inside
/// the suite's folder (symlinks resolved) unless `--allow-outside-suite`: a
/// listing cannot make the harness read `/etc/shadow` as root.
fn check_files(files: &[PathBuf], root: &Path, options: &RunOptions) -> Result<(), String> {
    for file in files {
        let Ok(real) = file.canonicalize() else {
            continue; // missing: the loader says so, naming the file
        };
        if !options.allow_outside_suite && !real.starts_with(root) {
            return Err(format!(
                "{} is outside the suite folder {} (--allow-outside-suite allows it)",
                file.display(),
                root.display()
            ));
        }
        if let Ok(meta) = std::fs::metadata(&real)
            && meta.is_file()
            && meta.len() > options.max_puzzle_size
        {
            return Err(format!(
                "{}: larger than --max-puzzle-size ({} bytes)",
                file.display(),
                options.max_puzzle_size
            ));
        }
    }
    Ok(())
}

/// Whether `row` is a case the wall-clock safety net stopped while its CPU
/// time was under the limit: beside other cases, that may be the machine's
/// doing, not the candidate's, so it is run again alone.
pub fn stopped_by_the_wall_clock(row: &Row) -> bool {
    row.verdict == Verdict::TimeLimit && row.clock == Some(Clock::SafetyNet)
}

/// Turns a run into the row's measurements and verdict: the whole verdict
/// table. Order matters: our failure first, then a stopped run, then the
/// limits we enforced, then a death by signal, then the contract.
pub fn fill(row: &mut Row, case: &dyn Puzzle, run: &RunResult, limits: &Limits) {
    row.wall_ms = Some(millis(run.wall));
    row.cpu_ms = run.cpu.map(millis);
    row.max_rss_kb = run.max_rss_kb;
    match &run.ending {
        Ending::Exited(code) => row.exit_code = Some(*code),
        Ending::Signaled(sig) => row.signal = Some(signal_name(*sig)),
        Ending::Failed(_) => {}
    }
    let (verdict, detail) = match (&run.limit, &run.ending) {
        (_, Ending::Failed(why)) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (
            Verdict::Cancelled,
            "stopped: the grading run was cancelled".to_string(),
        ),
        (Some(hit @ LimitHit::Cpu), _) => (Verdict::TimeLimit, time_detail(*hit, run, limits)),
        (Some(LimitHit::Memory), _) => (
            Verdict::MemoryLimit,
            format!(
                "killed by the kernel at the memory limit ({} bytes)",
                limits.memory
            ),
        ),
        (Some(LimitHit::Scratch), _) => (
            Verdict::MemoryLimit,
            format!(
                "its folder held more than the memory limit ({} bytes), the cap of every place a case writes",
                limits.memory
            ),
        ),
        (Some(LimitHit::Stdout), _) => (
            Verdict::OutputLimit,
            format!(
                "stdout over {} bytes ({} written before the kill)",
                limits.stdout, run.stdout.total
            ),
        ),
        (Some(hit @ LimitHit::Time), _) => (Verdict::TimeLimit, time_detail(*hit, run, limits)),
        (None, Ending::Signaled(sig)) => (
            Verdict::RuntimeError,
            format!("killed by {}", signal_name(*sig)),
        ),
        (None, Ending::Exited(code)) => {
            match catch_unwind(AssertUnwindSafe(|| case.judge(&run.stdout.bytes, *code))) {
                Ok(j) => {
                    row.moves = j.moves;
                    row.best_moves = j.best_moves;
                    (Verdict::from(j.check), j.detail)
                }
                Err(panic) => (
                    Verdict::HarnessError,
                    format!("checker panicked: {}", panic_text(&panic)),
                ),
            }
        }
    };
    row.verdict = verdict;
    row.detail = detail;
    row.clock = clock(verdict, run.limit, limits, run.waited);
    // A crash or an odd exit explains itself on stderr (a traceback's last
    // line, valgrind's summary): its last line, bounded and escaped.
    if verdict == Verdict::RuntimeError
        && let Some(last) = super::stderr::last_line(&run.stderr.bytes)
    {
        append(&mut row.detail, &format!("stderr: {last}"));
    }
    if run.stderr.total > limits.stderr {
        append(
            &mut row.detail,
            &format!(
                "stderr cut at {} bytes of {}",
                limits.stderr, run.stderr.total
            ),
        );
    }
    if run.stdout.abandoned || run.stderr.abandoned {
        append(
            &mut row.detail,
            "output pipe held open by a process that left the group",
        );
    }
}

/// What the wall clock of a case stopped at a time limit did not count:
/// the time it waited for a core with none of it running (a busy
/// machine's), to the hundredth of a second, where there was any to speak
/// of.
fn not_counted(waited: std::time::Duration) -> String {
    if waited < std::time::Duration::from_millis(50) {
        String::new()
    } else {
        format!(
            " of its own (and {:.2} s waiting for a core, not counted)",
            waited.as_secs_f64()
        )
    }
}

/// Why a case was stopped at a time limit, naming the clock that stopped
/// it (a suite's case or a battery's probe).
pub(super) fn time_detail(hit: LimitHit, run: &RunResult, limits: &Limits) -> String {
    match (hit, limits.cpu.filter(|c| *c < limits.time)) {
        (LimitHit::Cpu, _) => format!(
            "CPU time over {}",
            humantime::format_duration(limits.cpu.unwrap_or_default())
        ),
        (_, Some(cpu)) => format!(
            "stopped by the wall-clock safety net at {}{} with {:.2} s of CPU time (the limit is {}){}",
            humantime::format_duration(limits.time),
            not_counted(run.waited),
            run.cpu.unwrap_or_default().as_secs_f64(),
            humantime::format_duration(cpu),
            match run.cpu {
                _ if run.waited >= blocked_under(limits) => "",
                Some(used) if used >= limits.time / 2 =>
                    ": its own processes kept its cores busy, not a busy machine",
                _ => ": the rest of the time it was asleep or blocked, not waiting for a core",
            }
        ),
        (_, None) => format!(
            "still running after {}{}",
            humantime::format_duration(limits.time),
            not_counted(run.waited)
        ),
    }
}

/// Which clock stopped a `time-limit` case (`waited`: the time its tasks
/// waited for a core). The safety net fired on a case that hardly waited
/// ([`BLOCKED_UNDER`]) is [`Clock::Blocked`]: alone it would have had no
/// more of a core than it had.
pub(super) fn clock(
    verdict: Verdict,
    limit: Option<LimitHit>,
    limits: &Limits,
    waited: std::time::Duration,
) -> Option<Clock> {
    match (verdict, limit) {
        (Verdict::TimeLimit, Some(LimitHit::Cpu)) => Some(Clock::Cpu),
        (Verdict::TimeLimit, Some(LimitHit::Time)) => Some(match limits.cpu {
            Some(cpu) if cpu < limits.time && waited < blocked_under(limits) => Clock::Blocked,
            Some(cpu) if cpu < limits.time => Clock::SafetyNet,
            _ => Clock::Wall,
        }),
        _ => None,
    }
}

/// Less waiting for a core than this (half a second, or a twentieth of
/// the safety net, whichever is more: the waiting measured misses what
/// short-lived children waited) and a case the net stopped was blocked.
pub const BLOCKED_UNDER: std::time::Duration = std::time::Duration::from_millis(500);

/// [`BLOCKED_UNDER`], or a twentieth of the net where that is more.
fn blocked_under(limits: &Limits) -> std::time::Duration {
    BLOCKED_UNDER.max(limits.time / 20)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    use crate::cancel::Cancel;
    use crate::executor::Capture;
    use crate::executor::fake::{FakeExecutor, Script};
    use crate::job::Job;
    use crate::schedule::tests::options;

    const LIMITS: Limits = Limits {
        time: Duration::from_secs(80),
        grace: Duration::from_secs(1),
        stdout: 100,
        stderr: 10,
        memory: 1 << 30,
        cpu: None,
    };

    /// A case of the test family: a row solved by one press (`1`), or an
    /// unsolvable row.
    fn case(solvable: bool) -> Box<dyn Puzzle> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        let text = if solvable { "0110\n" } else { "100\n" };
        std::fs::write(&path, text).unwrap();
        reference::families::family("toy")
            .unwrap()
            .load(&[path])
            .unwrap()
    }

    fn exited(code: i32, out: &str) -> RunResult {
        let mut r = RunResult::ended(Ending::Exited(code), Duration::from_millis(3));
        r.stdout = Capture::of(out.as_bytes());
        r
    }

    fn verdict(solvable: bool, run: &RunResult) -> (Verdict, String) {
        let mut row = Row::new("c", "toy", "s", "b.txt");
        fill(&mut row, case(solvable).as_ref(), run, &LIMITS);
        (row.verdict, row.detail)
    }

    #[test]
    fn the_verdict_table() {
        use Verdict::*;
        let v = |solvable, run: RunResult| verdict(solvable, &run);
        assert_eq!(v(true, exited(0, "1\n")), (Accepted, String::new()));
        assert_eq!(
            v(true, exited(0, "0\n")).0,
            WrongAnswer,
            "moves that leave lights on"
        );
        assert_eq!(
            v(false, exited(0, "")),
            (
                WrongExitStatus,
                "exit 0 on an unsolvable puzzle (no solution exists: exit 1 expected)".into()
            )
        );
        assert_eq!(v(false, exited(1, "")).0, Accepted);
        assert_eq!(v(true, exited(1, "")).0, WrongExitStatus);
        assert_eq!(
            v(true, exited(7, "")),
            (
                RuntimeError,
                "exit status 7 (the contract has 0 and 1)".into()
            )
        );
        assert_eq!(
            v(true, RunResult::ended(Ending::Signaled(11), Duration::ZERO)),
            (RuntimeError, "killed by SIGSEGV".into())
        );
        let mut timed_out = RunResult::ended(Ending::Signaled(15), Duration::from_secs(80));
        timed_out.limit = Some(LimitHit::Time);
        assert_eq!(
            v(true, timed_out),
            (TimeLimit, "still running after 1m 20s".into())
        );
        let mut flood = RunResult::ended(Ending::Signaled(9), Duration::ZERO);
        flood.limit = Some(LimitHit::Stdout);
        flood.stdout.total = 5000;
        assert_eq!(
            v(true, flood),
            (
                OutputLimit,
                "stdout over 100 bytes (5000 written before the kill)".into()
            )
        );
        assert_eq!(
            v(
                true,
                RunResult::ended(Ending::Failed("cannot start x".into()), Duration::ZERO)
            ),
            (HarnessError, "cannot start x".into())
        );
        let mut oom = RunResult::ended(Ending::Signaled(9), Duration::ZERO);
        oom.limit = Some(LimitHit::Memory);
        assert_eq!(
            v(true, oom),
            (
                MemoryLimit,
                "killed by the kernel at the memory limit (1073741824 bytes)".into()
            )
        );
        let mut stopped = RunResult::ended(Ending::Signaled(15), Duration::ZERO);
        stopped.cancelled = true;
        assert_eq!(v(true, stopped).0, Cancelled);
    }

    /// stderr past its cap is cut and noted, never a verdict: a segfault
    /// that wrote a flood of stderr is still reported as the segfault.
    #[test]
    fn stderr_over_its_cap_is_never_the_verdict() {
        let mut r = exited(0, "1\n");
        r.stderr.total = 1 << 20;
        assert_eq!(
            verdict(true, &r),
            (
                Verdict::Accepted,
                format!("stderr cut at 10 bytes of {}", 1 << 20)
            )
        );
        let mut r = RunResult::ended(Ending::Signaled(11), Duration::ZERO);
        r.stderr.total = 1 << 20;
        assert_eq!(verdict(true, &r).0, Verdict::RuntimeError);
    }

    #[test]
    fn grade_runs_the_candidate_with_the_puzzle_files_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        std::fs::write(&path, "0110\n").unwrap();
        let case = Case::new(
            reference::families::family("toy").unwrap(),
            ("s".into(), "b.txt".into()),
            Ok(vec![path.clone()]),
            dir.path().canonicalize().unwrap(),
        );
        let solver = Arc::new(Candidate::Command {
            argv: vec!["solver".into(), "-v".into()],
            workdir: PathBuf::from("/w"),
            relative: false,
            copy: false,
            network: false,
            ipc: false,
        });
        let mut options = options(1);
        options.limits = LIMITS;
        let fake = FakeExecutor::new(|_| Script::exit(0, "1\n"));
        let cancel = Cancel::new();
        let grade = |case: &Case, options: &RunOptions, slot| {
            let ctx = Context {
                options,
                executor: &fake,
                cancel: &cancel,
            };
            let job = Job::puzzle("c", &solver, &Arc::new(case.clone()));
            crate::grade::grade(&ctx, &job, slot)
        };
        let row = grade(&case, &options, 3);
        assert_eq!(
            (row.verdict, row.moves, row.best_moves, row.exit_code),
            (Verdict::Accepted, Some(1), Some(1), Some(0))
        );
        assert_eq!(row.isolation, "fake");
        let ran = fake.ran.lock().unwrap();
        assert_eq!(ran.len(), 1);
        assert_eq!(ran[0].argv, ["solver", "-v"]);
        assert_eq!(ran[0].files, std::slice::from_ref(&path));
        assert_eq!(
            (ran[0].workdir.as_path(), ran[0].slot),
            (Path::new("/w"), 3)
        );
        drop(ran);

        // The puzzle was loaded once, for every later grade of the case.
        assert!(matches!(case.loaded.get(), Some(Ok(_))));
        // A file outside the suite's folder is never read (nor run). (A
        // fresh case each time: a run's options never change, so a case's
        // puzzle is checked and loaded once.)
        let fresh = |case: &Case| Case {
            root: dir.path().join("elsewhere"),
            loaded: Default::default(),
            ..case.clone()
        };
        let row = grade(&fresh(&case), &options, 0);
        assert_eq!(row.verdict, Verdict::HarnessError);
        assert!(
            row.detail.contains("is outside the suite folder"),
            "{}",
            row.detail
        );
        options.allow_outside_suite = true;
        let row = grade(&fresh(&case), &options, 0);
        assert_eq!(row.verdict, Verdict::Accepted);
        options.max_puzzle_size = 3;
        let row = grade(&fresh(&case), &options, 0);
        assert!(
            row.detail
                .ends_with("larger than --max-puzzle-size (3 bytes)"),
            "{}",
            row.detail
        );
        assert_eq!(fake.ran.lock().unwrap().len(), 2);
    }

    /// The safety net on a case that waited for a core (a busy
    /// machine's) may be the machine's doing: run again alone. On one
    /// that hardly waited (asleep, blocked): its own, stopped once.
    #[test]
    fn a_net_on_a_case_that_hardly_waited_is_its_own() {
        let limits = Limits {
            time: Duration::from_secs(11),
            cpu: Some(Duration::from_secs(2)),
            ..LIMITS
        };
        let at = |waited_ms: u64| {
            clock(
                Verdict::TimeLimit,
                Some(LimitHit::Time),
                &limits,
                Duration::from_millis(waited_ms),
            )
        };
        assert_eq!(at(0), Some(Clock::Blocked));
        assert_eq!(at(549), Some(Clock::Blocked), "under a twentieth of 11 s");
        assert_eq!(at(551), Some(Clock::SafetyNet));
        assert_eq!(at(30_000), Some(Clock::SafetyNet));
        let wall = Limits {
            cpu: None,
            ..limits
        };
        assert_eq!(
            clock(
                Verdict::TimeLimit,
                Some(LimitHit::Time),
                &wall,
                Duration::ZERO
            ),
            Some(Clock::Wall)
        );
        let row = |clock| Row {
            verdict: Verdict::TimeLimit,
            clock,
            ..Row::new("c", "toy", "s", "k")
        };
        assert!(stopped_by_the_wall_clock(&row(Some(Clock::SafetyNet))));
        assert!(!stopped_by_the_wall_clock(&row(Some(Clock::Blocked))));
    }
}
