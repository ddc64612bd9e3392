//! What every run of the binary wires the same way: the stop token that
//! SIGINT and SIGTERM set, the process executor with its guard, the
//! reporter's sinks on the terminal, and the exit status a run ends with.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use harness::cancel::{Cancel, StopReason};
use harness::course::Course;
use harness::event::Summary;
use harness::executor::Isolation;
use harness::executor::{Executor, ProcessExecutor};
use harness::job::Candidate;
use harness::report::{JsonLines, Reporter, Sink, Terminal};
use harness::settings::{Context, RunOptions};
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::cli::Format;

/// What the terminal shows: progress and summaries, or JSON lines.
pub fn screen(format: Format, label: &str) -> Box<dyn Sink> {
    match format {
        Format::Human => Box::new(Terminal::new(label)),
        Format::Json => Box::new(JsonLines),
        Format::Quiet => Box::new(Quiet),
    }
}

/// The screen's sink; for students (`student`: the course, with
/// `--student-view`), each failing case said in the course's words.
pub fn screen_of(format: Format, label: &str, student: Option<&Course>) -> Box<dyn Sink> {
    // (The course again, owned: the sink outlives the borrow.)
    match (format, student.map(|c| Course::load(&c.path))) {
        (Format::Human, Some(Ok(course))) => {
            Box::new(Terminal::new(label).in_words(Box::new(StudentWords(course))))
        }
        _ => screen(format, label),
    }
}

/// A course's words for its students.
struct StudentWords(Course);

impl harness::report::Words for StudentWords {
    fn row(&self, row: &harness::outcome::Row) -> String {
        harness::platform::said_to_students(&self.0, row)
    }

    fn verdict(&self, verdict: harness::outcome::Verdict) -> String {
        harness::platform::verdict_to_students(&self.0, verdict)
    }
}

/// A terminal that shows nothing of the run.
pub struct Quiet;

impl Sink for Quiet {
    fn event(&mut self, _: &harness::event::Event) -> anyhow::Result<()> {
        Ok(())
    }
}

/// What a run needs from the binary: a stop token that SIGINT and SIGTERM
/// set, and the process executor (with its guard) for the run's options.
pub struct Runner {
    /// The stop token.
    pub cancel: Arc<Cancel>,
    /// The executor.
    pub executor: ProcessExecutor,
    /// A result store this run's candidates could reach: renewed when the
    /// executor is gone (after it, so after every candidate).
    _exposed: Option<Renew>,
}

impl Runner {
    /// Watches the signals and sets up the executor for `options`. Where
    /// its candidates are not kept from the harness's files (no sandbox,
    /// no user of their own: `--isolation none`, or `--sandbox none` as an
    /// ordinary user), the result store is not used, and is renewed when
    /// the run ends: nothing they may write there (with its key, which
    /// they can read) is ever served, to any tier.
    pub fn new(options: &mut RunOptions) -> anyhow::Result<Self> {
        let cancel = watch_signals()?;
        let executor = executor(&options.isolation, options.max_puzzle_size)?;
        if options.isolation.partners && executor.partner(0).is_none() {
            anyhow::bail!(
                "an interactive problem's validator runs beside its candidate, and this run's \
                 isolation runs one case at a time (Landlock as an ordinary user): run with \
                 --jobs 1 (each case with its validator beside it), as root, or where \
                 bubblewrap works"
            );
        }
        let mut exposed = None;
        if !executor.confines()
            && let Some(store) = options.store.take()
        {
            eprintln!(
                "harness: the result store {} is not used: this run's candidates run as you \
                 with nothing between them and your files; it is emptied when the run ends",
                store.dir().display()
            );
            exposed = Some(Renew(store.dir().to_owned()));
        }
        Ok(Self {
            cancel,
            executor,
            _exposed: exposed,
        })
    }

    /// Stops (exit 2) when the user a job slot runs as cannot run
    /// `candidate` (`name` for people), saying what to do.
    pub fn check(&self, candidate: &Candidate, name: &str) -> anyhow::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        // A program file nobody may run: its own mode, not its folders.
        if let Candidate::Command { argv, workdir, .. } = candidate
            && let Some(program) = argv.first().filter(|p| p.contains('/'))
            && let Ok(meta) = std::fs::metadata(workdir.join(program))
            && meta.is_file()
            && meta.permissions().mode() & 0o111 == 0
        {
            anyhow::bail!(
                "the candidate {name} is not executable (mode {:o}): chmod +x {program}, \
                 or put its interpreter before it in the command",
                meta.permissions().mode() & 0o7777
            );
        }
        let Some(owner) = self.executor.owner(0) else {
            return Ok(());
        };
        candidate.reachable_by(owner).map_err(|why| {
            anyhow::anyhow!(
                "the candidate {name} cannot be run by uid {} (the user its job slot runs as): {why}; \
                 let every user reach it (chmod o+x on its folders, o+rx on a script), \
                 or run candidates as the harness's user (--run-as harness)",
                owner.0
            )
        })
    }

    /// The run context over `options`.
    pub fn context<'a>(&'a self, options: &'a RunOptions) -> Context<'a> {
        Context {
            options,
            executor: &self.executor,
            cancel: &self.cancel,
        }
    }
}

/// A store to renew when dropped.
struct Renew(std::path::PathBuf);

impl Drop for Renew {
    fn drop(&mut self) {
        if let Err(e) = harness::store::Store::renew(&self.0) {
            eprintln!("harness: {e}");
        }
    }
}

/// The process executor with the guard and `isolation`.
fn executor(isolation: &Isolation, max_file: u64) -> anyhow::Result<ProcessExecutor> {
    let exe = std::env::current_exe().context("cannot locate the harness executable")?;
    ProcessExecutor::supervised(&exe, isolation, max_file)
        .context("cannot set up the candidates' isolation")
}

/// What the result store gave this run, on stderr: "N cases reused, M
/// run" (where there is one), and how many of each were builds.
pub fn say_store(options: &harness::settings::RunOptions) {
    if let Some(store) = &options.store {
        let c = store.counts();
        let restored = match c.restored {
            0 => String::new(),
            n => format!(" ({n} of them builds whose copies it made again)"),
        };
        let builds = match c.builds {
            0 => String::new(),
            n => format!(" ({n} of them builds)"),
        };
        eprintln!(
            "result store {}: {} cases reused{restored}, {} run{builds}",
            store.dir().display(),
            c.reused,
            c.ran
        );
    }
}

/// 0 all accepted, 1 not, 2 a report failed, 130 / 143 after a signal.
pub fn exit_status(summary: &Summary, reporter: Reporter) -> ExitCode {
    if let Some(e) = reporter.into_error() {
        eprintln!("harness: {e:#}");
        return ExitCode::from(2);
    }
    match summary.stopped {
        Some(reason) => stopped(reason),
        None if summary.all_accepted() => ExitCode::SUCCESS,
        None => ExitCode::from(1),
    }
}

/// Exit 3 when a submission could not be graded (a case the grader
/// failed on): said on stderr, and no platform was given a score for it.
pub fn ungraded(points: &[harness::course::points::Points]) -> Option<ExitCode> {
    let bad: Vec<_> = points.iter().filter(|p| p.ungraded.is_some()).collect();
    let first = bad.first()?;
    eprintln!(
        "harness: {} submission(s) could not be graded, so no score was given for them: {}: {}",
        bad.len(),
        first.submission,
        first.ungraded.as_deref().unwrap_or_default()
    );
    Some(ExitCode::from(3))
}

/// The exit status of a run stopped for `reason`.
pub fn stopped(reason: StopReason) -> ExitCode {
    ExitCode::from(match reason {
        StopReason::Interrupted => 130,
        StopReason::Terminated => 143,
        StopReason::ReportFailed => 2,
    })
}

/// A stop token that SIGINT and SIGTERM set (a second signal: at once).
fn watch_signals() -> anyhow::Result<Arc<Cancel>> {
    let cancel = Arc::new(Cancel::new());
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .context("cannot watch SIGINT and SIGTERM")?;
    let token = Arc::clone(&cancel);
    std::thread::spawn(move || {
        for signal in signals.forever() {
            token.request(if signal == SIGTERM {
                StopReason::Terminated
            } else {
                StopReason::Interrupted
            });
        }
    });
    Ok(cancel)
}

/// Hands each event to `reporter`; a sink that fails stops the run at once.
pub fn report_to<'a>(
    reporter: &'a mut Reporter,
    cancel: &'a Cancel,
) -> impl FnMut(harness::event::Event) + 'a {
    move |event| {
        if !reporter.event(&event) {
            cancel.request_now(StopReason::ReportFailed);
        }
    }
}
