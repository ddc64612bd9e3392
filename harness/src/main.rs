//! `harness`: grades puzzle-solving programs on suites. This file parses the
//! command line, wires the reporter, catches SIGINT and SIGTERM, and maps
//! results to exit statuses: 0 all accepted, 1 some case not accepted, 2
//! usage or setup error (or a report that could not be written), 130 after
//! SIGINT, 143 after SIGTERM.

use std::io::Write;
use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use clap::error::ErrorKind;
use signal_hook::consts::{SIGINT, SIGTERM};

use harness::cancel::Cancel;
use harness::cli::{Cli, Command, ConformArgs, Format, GradeArgs};
use harness::config::{Candidate, Outputs, Settings};
use harness::course::Course;
use harness::event::StopReason;
use harness::executor::Limits;
use harness::executor::ProcessExecutor;
use harness::executor::isolate::Isolation;
use harness::export::Exports;
use harness::report::{JsonLines, Mode, Reporter, Scorecard, Sink, Terminal};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
                _ => ExitCode::from(2),
            };
        }
    };
    let result = match cli.command {
        Command::Grade(args) => grade_command(&args),
        Command::Conform(args) => conform_command(&args),
        Command::Compare(args) => compare_command(&args),
        Command::Merge(args) => merge_command(&args),
        Command::Slurm(args) => slurm_command(&args),
        Command::Report(args) => report_command(&args),
        Command::Contest(args) => contest_command(&args),
        Command::Solve { family, files } => solve_command(&family, &files),
        Command::Exec(args) => return harness::executor::trampoline::main(&args),
        Command::Guard {
            slots,
            cgroups,
            run_dir,
        } => {
            let cleanup = harness::executor::guard::Cleanup { cgroups, run_dir };
            harness::executor::guard::serve(std::io::stdin().lock(), &slots, &cleanup);
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("harness: {e:#}");
        ExitCode::from(2)
    })
}

/// `harness grade`: discover, run every case in parallel, report.
fn grade_command(args: &GradeArgs) -> anyhow::Result<ExitCode> {
    reference::slidingblock::set_best_moves_states(args.best_moves_states);
    if let Some(course) = &args.course {
        return class_command(args, course);
    }
    let settings = Settings::from_args(args)?;
    let outputs = Outputs::from_args(args)?;
    let mut jobs = harness::discover::discover(
        &settings.suites,
        settings.family,
        settings.filter.as_deref(),
    )?;
    if let Some(shard) = settings.shard {
        jobs = harness::shard::jobs(jobs, shard, settings.shard_costs.as_deref());
    }
    let (scorecard, kept) =
        Scorecard::open(&outputs.scorecard, outputs.mode, Some(&settings.label))?;
    let screen = screen(outputs.format, &settings.label);
    let mut sinks = vec![screen, Box::new(scorecard) as Box<dyn Sink>];
    if !outputs.exports.is_empty() {
        sinks.push(Box::new(Exports::new(
            &outputs.exports,
            &settings.label,
            &kept,
        )?));
    }
    let mut reporter = Reporter::new(sinks);

    let cancel = Arc::new(Cancel::new());
    watch_signals(Arc::clone(&cancel))?;
    let executor = executor(&settings.isolation, settings.max_puzzle_size)?;
    let summary = harness::run_jobs(&settings, jobs, &kept, &executor, &cancel, &mut |event| {
        if !reporter.event(&event) {
            cancel.request_now(StopReason::ReportFailed);
        }
    });
    Ok(exit_status(&summary, reporter))
}

/// `harness grade --course --submissions`: build and grade every
/// submission, then score each by the rubric.
fn class_command(args: &GradeArgs, course_path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let mut course = Course::load(course_path)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    if !args.suites.is_empty() {
        let suites: Vec<_> = args.suites.iter().map(|s| cwd.join(s)).collect();
        for s in &suites {
            if !s.exists() {
                anyhow::bail!("suite {} does not exist", s.display());
            }
        }
        course.override_suites(&suites)?;
    }
    let mut args = args.clone();
    args.time_limit = args.time_limit.or(course.file.limits.time_limit);
    args.cpu_limit = args.cpu_limit.or(course.file.limits.cpu_limit);
    if args.sandbox.isolation == harness::cli::IsolationArg::None && args.cpu_limit.is_some() {
        // The course asks for a CPU limit, which needs isolation: say so
        // rather than drop it.
        anyhow::bail!(
            "{} sets a CPU-time limit, which needs isolation: drop --isolation none",
            course.path.display()
        );
    }
    let settings = Settings::from_args(&args)?;
    let outputs = Outputs::from_args(&args)?;
    let submissions = args.submissions.clone().unwrap_or_default();
    let (scorecard, kept) = Scorecard::open(&outputs.scorecard, outputs.mode, None)?;
    let label = course.file.name.clone();
    let screen = screen(outputs.format, &label);
    let mut sinks = vec![screen, Box::new(scorecard) as Box<dyn Sink>];
    let (gradescope, others): (Vec<_>, Vec<_>) = outputs
        .exports
        .iter()
        .cloned()
        .partition(|(format, _)| format == "gradescope");
    if !others.is_empty() {
        sinks.push(Box::new(Exports::new(&others, &label, &kept)?));
    }
    let mut reporter = Reporter::new(sinks);
    let cancel = Arc::new(Cancel::new());
    watch_signals(Arc::clone(&cancel))?;
    let executor = executor(&settings.isolation, settings.max_puzzle_size)?;
    let result = harness::class::run_class(
        &course,
        &settings,
        &submissions,
        &kept,
        &executor,
        &cancel,
        &mut |event| {
            if !reporter.event(&event) {
                cancel.request_now(StopReason::ReportFailed);
            }
        },
    )?;
    let points = harness::class::points(&course, &result.ids, &result.keys, &result.rows);
    if let Some(path) = &args.summary {
        harness::class::write_summary(path, &course, &points)?;
    }
    for (_, dir) in &gradescope {
        harness::class::write_gradescope(dir, &course, &points, &result.rows)?;
    }
    if outputs.format == Format::Human {
        let mut out = std::io::stdout().lock();
        let width = points.iter().map(|p| p.submission.len()).max().unwrap_or(0);
        for p in &points {
            let _ = writeln!(
                out,
                "{:width$}  {:>6} / {}  {}",
                p.submission,
                harness::course::rubric::show(p.total),
                harness::course::rubric::show(p.max),
                if p.built {
                    format!("{} of {} cases accepted", p.accepted, p.cases)
                } else {
                    "did not build".to_string()
                }
            );
        }
    }
    Ok(exit_status(&result.summary, reporter))
}

/// `harness conform`: the exit-status battery on a Checker or Solver.
fn conform_command(args: &ConformArgs) -> anyhow::Result<ExitCode> {
    let family = reference::family::family(&args.family)
        .with_context(|| format!("unknown family {:?}", args.family))?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let (argv, workdir) =
        harness::config::resolve_command(&args.candidate, args.workdir.as_deref(), &cwd)?;
    let candidate = Candidate::Command {
        argv,
        workdir,
        relative: false,
    };
    let label = args.name.clone().unwrap_or_else(|| args.candidate.clone());
    let dir = tempfile::tempdir().context("cannot make the battery's folder")?;
    let cases = harness::conform::battery(family.name(), args.role, dir.path())?;
    let (scorecard, _) = Scorecard::open(&args.scorecard, Mode::Force, Some(&label))?;
    let screen = screen(args.format, &label);
    let mut reporter = Reporter::new(vec![screen, Box::new(scorecard)]);
    let limits = Limits {
        time: args.time_limit,
        grace: std::time::Duration::from_secs(1),
        stdout: 64 << 20,
        stderr: 1 << 20,
        memory: 2 << 30,
        cpu: None,
    };
    let cancel = Arc::new(Cancel::new());
    watch_signals(Arc::clone(&cancel))?;
    let executor = executor(&Isolation::default(), 64 << 20)?;
    let summary = harness::conform::run(
        family,
        args.role,
        &cases,
        &candidate,
        &label,
        &limits,
        &executor,
        &cancel,
        &mut |event| {
            if !reporter.event(&event) {
                cancel.request_now(StopReason::ReportFailed);
            }
        },
    );
    Ok(exit_status(&summary, reporter))
}

/// `harness contest`: time the entries, rank them, write the leaderboard.
fn contest_command(args: &harness::cli::ContestArgs) -> anyhow::Result<ExitCode> {
    use harness::contest;
    if args.time_limit.is_zero() || args.time_limit > harness::config::MAX_DURATION {
        anyhow::bail!("--time-limit must be more than zero and at most 24 h");
    }
    let family = match &args.family {
        None => None,
        Some(name) => Some(
            reference::family::family(name).with_context(|| format!("unknown family {name:?}"))?,
        ),
    };
    let jobs = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let cases = contest::cases(jobs, args.role, moves.path())?;
    let names: Vec<String> = cases
        .iter()
        .map(|c| format!("{}/{}", c.job.suite, c.job.case))
        .collect();
    let isolation = harness::config::isolation(&args.sandbox, Some(args.jobs))?;
    let settings = Settings {
        suites: args.suites.clone(),
        candidate: Candidate::Command {
            argv: Vec::new(),
            workdir: std::path::PathBuf::from("/"),
            relative: false,
        },
        label: "contest".into(),
        family,
        filter: args.filter.clone(),
        jobs: args.jobs.get(),
        limits: Limits {
            time: args.time_limit,
            grace: std::time::Duration::from_secs(1),
            stdout: 64 << 20,
            stderr: 1 << 20,
            memory: args.sandbox.memory_limit.as_u64(),
            cpu: None,
        },
        allow_outside_suite: false,
        max_puzzle_size: 64 << 20,
        keep_output: None,
        shard: None,
        shard_costs: None,
        isolation,
    };
    let plan = contest::Plan {
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        metric: args.metric,
        time_limit: args.time_limit,
    };
    let mut env = contest::Environment::read(settings.jobs);
    let cancel = Arc::new(Cancel::new());
    watch_signals(Arc::clone(&cancel))?;
    let executor = executor(&settings.isolation, settings.max_puzzle_size)?;
    // Entries with a `run`, or submissions built as the course does (the
    // builds' folder lives until the contest is over).
    let (entries, _work) = match &args.course {
        None => (contest::entries(&args.entries)?, None),
        Some(path) => {
            let course = Course::load(path)?;
            let work = harness::class::work_dir(&executor)?;
            let subs = harness::class::submissions(&args.entries, &work.path().join("unpacked"))?;
            let numbered: Vec<(usize, &harness::class::Submission)> =
                subs.iter().enumerate().collect();
            let built = harness::class::build_all(
                &course,
                &numbered,
                work.path(),
                &settings,
                &executor,
                &cancel,
            );
            (contest::built_entries(&course, &subs, built)?, Some(work))
        }
    };
    let bar = indicatif::ProgressBar::new((entries.len() * cases.len()) as u64);
    let rows = contest::time_entries(
        &entries,
        &cases,
        &plan,
        &settings,
        &executor,
        &cancel,
        &|_, _| bar.inc(1),
    );
    bar.finish_and_clear();
    use harness::executor::Executor;
    executor.finish();
    env.load.1 = contest::load_average();
    if let Some(reason) = cancel.reason().filter(|_| cancel.is_requested()) {
        eprintln!("harness: the contest was stopped; no leaderboard written");
        return Ok(ExitCode::from(match reason {
            StopReason::Terminated => 143,
            StopReason::Interrupted => 130,
            StopReason::ReportFailed => 2,
        }));
    }
    let mut standings: Vec<contest::Standing> = entries
        .iter()
        .zip(&rows)
        .map(|(e, r)| contest::standing(&e.name, r, &names, &plan))
        .collect();
    contest::rank(&mut standings);
    let shown = contest::shown_names(&standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(&standings, &shown, &env, &plan, settings.jobs)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    if let Some(path) = &args.scorecard {
        let family = cases.first().map_or("", |c| c.job.family.name());
        let (mut card, _) = Scorecard::open(path, Mode::Force, None)?;
        for row in contest::median_rows(&standings, family) {
            card.append(&row)?;
        }
    }
    for w in env.warnings(settings.jobs) {
        eprintln!("warning: {w}");
    }
    let _ = std::io::stdout().write_all(contest::table(&standings, &shown).as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// `harness report`: the HTML page.
fn report_command(args: &harness::cli::ReportArgs) -> anyhow::Result<ExitCode> {
    let mut input = harness::html::Input {
        title: args.title.clone(),
        outputs: args.outputs.clone(),
        ..Default::default()
    };
    for path in &args.scorecards {
        input.rows.extend(harness::compare::read(path)?);
        input.sources.push(path.display().to_string());
    }
    if !args.suites.is_empty() {
        for job in harness::discover::discover(&args.suites, None, None)? {
            if let Ok(files) = job.files {
                input
                    .files
                    .insert((job.suite.clone(), job.case.clone()), files.clone());
                // A class run's suites carry their part's name in front.
                for r in &input.rows {
                    if r.suite.ends_with(&format!("/{}", job.suite)) {
                        input
                            .files
                            .insert((r.suite.clone(), job.case.clone()), files.clone());
                    }
                }
            }
        }
    }
    if let Some(course) = &args.course {
        let course = Course::load(course)?;
        let mut ids: Vec<String> = input.rows.iter().map(|r| r.candidate.clone()).collect();
        ids.sort();
        ids.dedup();
        let mut keys: Vec<(String, String)> = input
            .rows
            .iter()
            .filter(|r| r.suite != harness::class::BUILD)
            .map(|r| (r.suite.clone(), r.case.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        let points = harness::class::points(&course, &ids, &keys, &input.rows);
        let items = course.file.rubric.iter().map(|i| i.name.clone()).collect();
        input.points = Some((items, points));
    }
    harness::export::write_atomically(&args.html, harness::html::render(&input).as_bytes())?;
    println!("wrote {}", args.html.display());
    Ok(ExitCode::SUCCESS)
}

/// `harness slurm`: the job array and merge scripts; submitted with
/// `--submit`.
fn slurm_command(args: &harness::cli::SlurmArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let abs = |p: &std::path::Path| -> anyhow::Result<String> {
        let p = cwd.join(p);
        Ok(p.canonicalize()
            .with_context(|| format!("{} does not exist", p.display()))?
            .display()
            .to_string())
    };
    if args.shards.get() > harness::shard::MAX_SHARDS {
        anyhow::bail!("--shards is at most {}", harness::shard::MAX_SHARDS);
    }
    let mut work = Vec::new();
    if let (Some(course), Some(subs)) = (&args.course, &args.submissions) {
        Course::load(course)?;
        work.extend([
            "--course".to_string(),
            abs(course)?,
            "--submissions".into(),
            abs(subs)?,
        ]);
    } else if args.suites.is_empty() {
        anyhow::bail!("give --course and --submissions, or --suite");
    }
    for s in &args.suites {
        work.extend(["--suite".to_string(), abs(s)?]);
    }
    let out = cwd.join(&args.out);
    let mut merge_args = work.clone();
    if args.course.is_some() {
        merge_args.extend([
            "--summary".to_string(),
            out.join("summary.csv").display().to_string(),
        ]);
    }
    let mut grade_args = work;
    grade_args.extend(args.grade_options.iter().cloned());
    let spec = harness::slurm::Spec {
        harness: std::env::current_exe()
            .context("cannot locate the harness executable")?
            .canonicalize()?,
        out: out.clone(),
        shards: args.shards.get(),
        max_running: args.max_running.map(NonZeroUsize::get),
        jobs: args.jobs.get(),
        partition: args.partition.clone(),
        time: args.time.clone(),
        grade_args,
        merge_args,
    };
    spec.write()
        .with_context(|| format!("cannot write the scripts in {}", out.display()))?;
    println!(
        "wrote {0}/grade.sbatch ({1} array tasks), {0}/merge.sbatch and {0}/submit.sh",
        out.display(),
        spec.shards
    );
    if !args.submit {
        println!("submit with: {}/submit.sh", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    let status = std::process::Command::new("bash")
        .arg(out.join("submit.sh"))
        .status()
        .context("cannot run submit.sh (is sbatch on PATH?)")?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// `harness merge`: one scorecard from a sharded run's; 1 when rows are
/// duplicated or missing.
fn merge_command(args: &harness::cli::MergeArgs) -> anyhow::Result<ExitCode> {
    use std::collections::BTreeSet;
    let mut shards = Vec::new();
    for path in &args.shards {
        shards.push((
            path.display().to_string(),
            harness::report::read_scorecard(path)?,
        ));
    }
    let all: Vec<harness::outcome::Row> = shards.iter().flat_map(|(_, r)| r.clone()).collect();
    let mut class = None;
    let expected: Option<BTreeSet<harness::merge::Key>> = if let Some(course_path) = &args.course {
        let mut course = Course::load(course_path)?;
        if !args.suites.is_empty() {
            course.override_suites(&args.suites)?;
        }
        let tmp = tempfile::tempdir().context("cannot make a scratch folder")?;
        let dir = args.submissions.clone().unwrap_or_default();
        let subs = harness::class::submissions(&dir, &tmp.path().join("unpacked"))?;
        let plan = harness::class::Plan::new(&course, tmp.path(), args.filter.as_deref())?;
        let keys = plan.keys(&course);
        let mut expected = BTreeSet::new();
        for s in &subs {
            let build = (
                s.id.clone(),
                harness::class::BUILD.to_string(),
                harness::class::BUILD.to_string(),
            );
            let failed = all
                .iter()
                .any(|r| r.key() == build && r.verdict == harness::outcome::Verdict::CompileError);
            expected.insert(build);
            if !failed {
                expected.extend(
                    keys.iter()
                        .map(|(suite, case)| (s.id.clone(), suite.clone(), case.clone())),
                );
            }
        }
        let ids = subs.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        class = Some((course, ids, keys));
        Some(expected)
    } else if !args.suites.is_empty() {
        let family = match &args.family {
            None => None,
            Some(n) => Some(
                reference::family::family(n).with_context(|| format!("unknown family {n:?}"))?,
            ),
        };
        let jobs = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
        let candidates: BTreeSet<String> = all.iter().map(|r| r.candidate.clone()).collect();
        Some(
            candidates
                .iter()
                .flat_map(|c| {
                    jobs.iter()
                        .map(move |j| (c.clone(), j.suite.clone(), j.case.clone()))
                })
                .collect(),
        )
    } else {
        None
    };
    let merged = harness::merge::merge(&shards, expected.as_ref());
    let mode = if args.force {
        Mode::Force
    } else {
        Mode::Create
    };
    let (mut card, _) = Scorecard::open(&args.out, mode, None)?;
    let mut summary = harness::event::Summary::default();
    for row in &merged.rows {
        card.append(row)?;
        summary.add(row);
    }
    if let Some((course, ids, keys)) = &class {
        let points = harness::class::points(course, ids, keys, &merged.rows);
        if let Some(path) = &args.summary {
            harness::class::write_summary(path, course, &points)?;
        }
        for e in &args.exports {
            match e.split_once(':') {
                Some(("gradescope", dir)) if !dir.is_empty() => harness::class::write_gradescope(
                    std::path::Path::new(dir),
                    course,
                    &points,
                    &merged.rows,
                )?,
                _ => anyhow::bail!("--export takes gradescope:DIR, got {e:?}"),
            }
        }
    }
    let mut out = std::io::stdout().lock();
    for (suite, t) in &summary.suites {
        let _ = writeln!(out, "{suite}: {}/{} accepted", t.accepted(), t.total());
    }
    let _ = writeln!(
        out,
        "merged {} rows from {} shard(s) into {}",
        merged.rows.len(),
        args.shards.len(),
        args.out.display()
    );
    for (what, list) in [
        ("duplicated", &merged.duplicated),
        ("missing", &merged.missing),
    ] {
        if !list.is_empty() {
            eprintln!("harness merge: {} row(s) {what}:", list.len());
            for l in list.iter().take(50) {
                eprintln!("  {l}");
            }
            if list.len() > 50 {
                eprintln!("  ... and {} more", list.len() - 50);
            }
        }
    }
    Ok(if merged.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `harness compare`: the changes between two scorecards; 1 if any
/// regressed.
fn compare_command(args: &harness::cli::CompareArgs) -> anyhow::Result<ExitCode> {
    let mut exports = Vec::new();
    for e in &args.exports {
        match e.split_once(':') {
            Some(("json", path)) if !path.is_empty() => {
                exports.push(std::path::PathBuf::from(path))
            }
            _ => anyhow::bail!("--export takes json:PATH, got {e:?}"),
        }
    }
    let base = harness::compare::read(&args.baseline)?;
    let new = harness::compare::read(&args.new)?;
    let thresholds = harness::compare::Thresholds {
        relative: args.threshold,
        min_delta: args.min_delta,
        metric: args.metric,
    };
    let c = harness::compare::compare(&base, &new, &thresholds);
    for path in &exports {
        harness::export::write_atomically(path, &serde_json::to_vec_pretty(&c)?)?;
    }
    let _ = std::io::stdout().write_all(harness::compare::table(&c).as_bytes());
    Ok(if c.regressed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What the terminal shows: progress and summaries, or JSON lines.
fn screen(format: Format, label: &str) -> Box<dyn Sink> {
    match format {
        Format::Human => Box::new(Terminal::new(label)),
        Format::Json => Box::new(JsonLines),
    }
}

/// The process executor with the guard and `isolation`.
fn executor(isolation: &Isolation, max_file: u64) -> anyhow::Result<ProcessExecutor> {
    let exe = std::env::current_exe().context("cannot locate the harness executable")?;
    ProcessExecutor::supervised(&exe, isolation, max_file)
        .context("cannot set up the candidates' isolation")
}

/// 0 all accepted, 1 not, 2 a report failed, 130 / 143 after a signal.
fn exit_status(summary: &harness::event::Summary, reporter: Reporter) -> ExitCode {
    if let Some(e) = reporter.into_error() {
        eprintln!("harness: {e:#}");
        return ExitCode::from(2);
    }
    match summary.stopped {
        Some(StopReason::Interrupted) => ExitCode::from(130),
        Some(StopReason::Terminated) => ExitCode::from(143),
        Some(StopReason::ReportFailed) => ExitCode::from(2),
        None if summary.all_accepted() => ExitCode::SUCCESS,
        None => ExitCode::from(1),
    }
}

/// SIGINT and SIGTERM ask the run to stop (a second one: at once).
fn watch_signals(cancel: Arc<Cancel>) -> anyhow::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .context("cannot watch SIGINT and SIGTERM")?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            cancel.request(if signal == SIGTERM {
                StopReason::Terminated
            } else {
                StopReason::Interrupted
            });
        }
    });
    Ok(())
}

/// `harness solve`: the reference answer in the family's contract.
fn solve_command(family: &str, files: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let grader =
        reference::family::family(family).with_context(|| format!("unknown family {family:?}"))?;
    let case = match grader.load(files) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("harness solve: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let answer = case.answer();
    eprint!("{}", answer.stderr);
    let mut out = std::io::stdout().lock();
    out.write_all(answer.stdout.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::from(answer.exit_code))
}
