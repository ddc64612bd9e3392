//! Arguments to settings: the second stage of parsing (ripgrep's
//! split), where flags are checked against each other and turned into
//! the library's validated settings (`Selection`, `RunOptions`),
//! [`Isolation`] and roles.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use harness::executor::Limits;
use harness::executor::{Isolation, RunAs, SandboxChoice};
use harness::job::Candidate;
use harness::report::Mode;
use harness::settings::{
    DEFAULT_TIME_LIMIT, MAX_DURATION, MAX_JOBS, Repeat, RunOptions, Selection, resolve_command,
};
use reference::family::{LoadOptions, Role};

use crate::cli::{
    Format, GradeArgs, IsolationArg, IsolationArgs, MetricArg, OnOff, RoleArg, RunAsArg, SandboxArg,
};

/// Where a run's results go.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The CSV scorecard's path.
    pub scorecard: PathBuf,
    /// What to do with an existing scorecard.
    pub mode: Mode,
    /// Exports: format name and path.
    pub exports: Vec<(String, PathBuf)>,
    /// What the terminal shows.
    pub format: Format,
}

impl Outputs {
    /// Validates the output options.
    pub fn from_args(args: &GradeArgs) -> anyhow::Result<Self> {
        let mode = if args.resume {
            Mode::Resume
        } else if args.rerun_failed {
            Mode::RerunFailed
        } else if args.force {
            Mode::Force
        } else {
            Mode::Create
        };
        let exports = args
            .exports
            .iter()
            .map(|e| harness::export::parse_target(e, &harness::export::format_names()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Self {
            scorecard: args.scorecard.clone(),
            mode,
            exports,
            format: args.format,
        })
    }
}

/// `grade`'s arguments, validated: what is graded, how, and (without
/// `--course`) the candidate and its name.
pub struct Grade {
    /// What is graded.
    pub selection: Selection,
    /// How each job runs.
    pub options: RunOptions,
    /// The candidate and its name in the scorecard; `None` for a class.
    pub candidate: Option<(Candidate, String)>,
}

/// Validates `grade`'s arguments.
pub fn grade(args: &GradeArgs) -> anyhow::Result<Grade> {
    let args = args.clone();
    let mut isolation = isolation(&args.sandbox, args.jobs)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let family = family(args.family.as_deref())?;
    let (time_limit, cpu_limit) = clocks(&args)?;
    if let Some(j) = args.jobs
        && usize::from(j) > MAX_JOBS
    {
        bail!("--jobs {j} is over the maximum of {MAX_JOBS}");
    }
    let suites = suites(&args, &cwd)?;
    isolation.partners = harness::discover::any_interactive(&suites);
    let candidate = candidate(&args, &cwd)?;
    let keep_output = out_of_sight(&args, &cwd, &suites, &mut isolation)?;
    let store = store(
        &args.cache,
        args.keep_output.is_some(),
        &cwd,
        &mut isolation,
    )?;
    let jobs = args
        .jobs
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let shard_costs = args.shard_costs.as_deref().map(shard_costs).transpose()?;
    let limits = Limits {
        time: time_limit,
        grace: args.grace.max(Duration::from_millis(10)),
        stdout: args.stdout_limit.as_u64(),
        stderr: args.stderr_limit.as_u64(),
        memory: args.sandbox.memory_limit.as_u64(),
        cpu: cpu_limit,
    };
    Ok(Grade {
        selection: Selection {
            suites,
            family,
            filter: args.filter,
            shard: args.shard,
            shard_costs,
        },
        options: RunOptions {
            jobs,
            limits,
            allow_outside_suite: args.allow_outside_suite,
            max_puzzle_size: args.max_puzzle_size.as_u64(),
            keep_output,
            isolation,
            load: LoadOptions {
                best_moves_states: args.best_moves_states,
            },
            repeat: Repeat::default(),
            crashes: Vec::new(),
            notes: Vec::new(),
            store,
        },
        candidate,
    })
}

/// Out of every case's sight: the suites (a case sees its own copies),
/// the class's submissions, and what the run writes: its files (the
/// scorecard, summary, exports, platforms' results) as `outputs`, and the
/// folder of kept outputs (`--keep-output`, returned), made here and
/// closed (0700), as a place to hide.
fn out_of_sight(
    args: &GradeArgs,
    cwd: &std::path::Path,
    suites: &[PathBuf],
    isolation: &mut Isolation,
) -> anyhow::Result<Option<PathBuf>> {
    isolation.hide = suites
        .iter()
        .chain(&args.submissions)
        .chain(&args.submission)
        .cloned()
        .collect();
    let mut files: Vec<PathBuf> = vec![args.scorecard.clone()];
    for export in &args.exports {
        let (format, path) =
            harness::export::parse_target(export, &harness::export::format_names())?;
        // Gradescope's folder of results (`DIR/<id>/results.json`): the
        // folder.
        let folder = format == "gradescope" && path.extension().is_none_or(|e| e != "json");
        files.push(if folder {
            path.join("results.json")
        } else {
            path
        });
    }
    files.extend(args.summary.iter().cloned());
    files.extend(args.autolab.iter().chain(&args.prairielearn).cloned());
    for results in &args.results {
        files.push(harness::class::outputs::Results::parse(results)?.path);
    }
    isolation.outputs = files.iter().map(|f| cwd.join(f)).collect();
    // An earlier run's (or a copy's) readable by others: closed now, not
    // only when this run rewrites it (best effort: a file of another
    // user's stays as it is).
    for file in &isolation.outputs {
        if std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file()) {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600));
        }
    }
    let Some(dir) = &args.keep_output else {
        return Ok(None);
    };
    let dir = cwd.join(dir);
    std::fs::DirBuilder::new()
        .recursive(true)
        .create(&dir)
        .with_context(|| format!("--keep-output: cannot make {}", dir.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("--keep-output: cannot close {} (0700)", dir.display()))?;
    isolation.hide.push(dir.clone());
    Ok(Some(dir))
}

/// The result store, hidden from every case: `--store` (or
/// `PUZZLEGRADE_STORE`), else the user's cache folder
/// (`$XDG_CACHE_HOME/puzzlegrade`, `~/.cache/puzzlegrade`), unless
/// `--no-cache` or `--keep-output` (whose outputs every case must write).
/// One named that cannot be used stops the run (exit 2); the cache folder
/// a warning, and the run goes on without it.
pub fn store(
    args: &crate::cli::StoreArgs,
    keep_output: bool,
    cwd: &std::path::Path,
    isolation: &mut Isolation,
) -> anyhow::Result<Option<std::sync::Arc<harness::store::Store>>> {
    if args.no_cache {
        return Ok(None);
    }
    let (dir, named) = match &args.store {
        Some(dir) => (cwd.join(dir), true),
        None if keep_output => return Ok(None),
        None => match cache_folder() {
            Some(dir) => (dir, false),
            None => return Ok(None),
        },
    };
    let store = match harness::store::Store::open(&dir, args.store_size.as_u64()) {
        Ok(store) => store,
        Err(e) if named => return Err(e.into()),
        Err(e) => {
            eprintln!("harness: warning: {e}; grading without it (--no-cache says nothing)");
            return Ok(None);
        }
    };
    let mut skip = isolation.outputs.clone();
    skip.extend(isolation.hide.iter().cloned());
    skip.push(store.dir().to_owned());
    isolation.hide.push(store.dir().to_owned());
    Ok(Some(std::sync::Arc::new(store.leaving_out(skip))))
}

/// The user's cache folder for the store: `$XDG_CACHE_HOME/puzzlegrade`,
/// else `$HOME/.cache/puzzlegrade` (cargo's and pip's conventions).
fn cache_folder() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })
        .map(|c| c.join("puzzlegrade"))
}

/// The cases' costs a sharded run balances by (`--shard-costs`).
fn shard_costs(path: &std::path::Path) -> anyhow::Result<std::sync::Arc<harness::shard::Costs>> {
    let rows = harness::report::read_rows(path)
        .with_context(|| format!("--shard-costs {}", path.display()))?;
    Ok(std::sync::Arc::new(harness::shard::Costs::from_rows(&rows)))
}

/// The wall-clock limit and the CPU-time limit, checked. The verdict clock
/// is CPU time of the case's whole process tree (`--time-limit`, 80 s
/// unless told), the wall clock a generous safety net (`--wall-limit`);
/// without isolation nothing can measure the tree: the wall clock judges,
/// at `--time-limit`.
fn clocks(args: &GradeArgs) -> anyhow::Result<(Duration, Option<Duration>)> {
    let measured = args.sandbox.isolation == IsolationArg::Full;
    let cpu_limit = match args.cpu_limit {
        _ if !measured => None,
        Some(c) => Some(c),
        None => Some(DEFAULT_TIME_LIMIT),
    };
    let time_limit = match (args.wall_limit, cpu_limit, args.cpu_limit) {
        // Unmeasured: the time limit is the wall clock's (a net above
        // it changes nothing).
        (w, None, Some(t)) => w.map_or(t, |w| w.min(t)),
        (Some(w), _, _) => w,
        (None, Some(c), _) => harness::settings::safety_net(c),
        (None, None, None) => DEFAULT_TIME_LIMIT,
    };
    if let Some(cpu) = args.cpu_limit {
        duration("--time-limit", cpu)?;
    }
    duration("--wall-limit", time_limit)?;
    if args.grace > MAX_DURATION {
        duration("--grace", args.grace)?;
    }
    Ok((time_limit, cpu_limit))
}

/// The limits of a run whose time limit is `time` (`conform`, `contest`):
/// CPU time where isolation measures it and `cpu` asks for it (the wall
/// clock then a net, 3 x + 5 s), else the wall clock's.
pub fn timed(time: Duration, sandbox: &crate::cli::IsolationArgs, cpu: bool) -> Limits {
    let mut limits = Limits::new(time, sandbox.memory_limit.as_u64());
    if cpu && sandbox.isolation == IsolationArg::Full {
        limits.cpu = Some(time);
        limits.time = harness::settings::safety_net(time);
    }
    limits
}

/// The one rule for a limit's length: more than zero, at most 24 h.
pub fn duration(flag: &str, d: Duration) -> anyhow::Result<()> {
    if d.is_zero() {
        bail!("{flag} must be more than zero");
    }
    if d > MAX_DURATION {
        bail!(
            "{flag} {} is over the 24 h maximum",
            humantime::format_duration(d)
        );
    }
    Ok(())
}

/// The suites graded: those given, else `suites/` here, else the ones
/// built into the binary; each must exist.
fn suites(args: &GradeArgs, cwd: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    let suites = if args.suites.is_empty() && args.course.is_none() {
        let default = cwd.join("suites");
        if default.is_dir() {
            vec![default]
        } else {
            // Not in a checkout: the suites built into the binary.
            vec![crate::bundled::suites()?]
        }
    } else {
        args.suites.clone()
    };
    for s in &suites {
        if !s.exists() {
            bail!("suite {} does not exist", s.display());
        }
    }
    Ok(suites)
}

/// The candidate and its name: the command given, or the reference (none
/// for a class).
fn candidate(
    args: &GradeArgs,
    cwd: &std::path::Path,
) -> anyhow::Result<Option<(Candidate, String)>> {
    let candidate = match &args.candidate {
        None if args.course.is_some() => None,
        None => {
            let exe = std::env::current_exe().context("cannot locate the harness executable")?;
            let workdir = args.workdir.clone().unwrap_or_else(|| cwd.to_owned());
            Some((
                Candidate::Reference { exe, workdir },
                "reference".to_string(),
            ))
        }
        Some(cmd) => {
            let (argv, workdir) = resolve_command(cmd, args.workdir.as_deref(), cwd)?;
            let relative = false;
            Some((
                Candidate::Command {
                    argv,
                    workdir,
                    relative,
                    copy: false,
                    network: false,
                    ipc: false,
                },
                cmd.clone(),
            ))
        }
    };
    Ok(candidate.map(|(c, label)| (c, args.name.clone().unwrap_or(label))))
}

/// The isolation options, checked (`jobs` slots need a uid each).
pub fn isolation(args: &IsolationArgs, jobs: Option<NonZeroUsize>) -> anyhow::Result<Isolation> {
    if args.pids_limit == 0 {
        bail!("--pids-limit must be at least 1");
    }
    if args.memory_limit.as_u64() < (1 << 20) {
        bail!("--memory-limit must be at least 1MiB");
    }
    let slots = jobs.map_or(MAX_JOBS, usize::from) as u64;
    if let Some(base) = args.uid_base
        && (base == 0 || u64::from(base) + slots > u64::from(u32::MAX))
    {
        bail!("--uid-base must leave room for a uid per job slot above 0");
    }
    let mut env = Vec::new();
    for pair in &args.env {
        let Some((name, value)) = pair.split_once('=') else {
            bail!("--env takes NAME=VALUE, got {pair:?}");
        };
        if name.is_empty() {
            bail!("--env takes NAME=VALUE, got {pair:?}");
        }
        env.push((name.into(), value.into()));
    }
    Ok(Isolation {
        enabled: args.isolation == IsolationArg::Full,
        run_as: match args.run_as {
            RunAsArg::Auto => RunAs::Auto,
            RunAsArg::Harness => RunAs::Harness,
        },
        uid_base: args.uid_base,
        slots: jobs
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        slots_asked: jobs.is_some(),
        partners: false,
        cgroups: args.cgroups == OnOff::On,
        memory_limit: args.memory_limit.as_u64(),
        pids_limit: args.pids_limit,
        file_size_limit: args.file_size_limit.as_u64(),
        sandbox: match args.sandbox {
            SandboxArg::Auto => SandboxChoice::Auto,
            SandboxArg::None => SandboxChoice::None,
            SandboxArg::Bwrap => SandboxChoice::Bwrap,
            SandboxArg::Landlock => SandboxChoice::Landlock,
        },
        env,
        network: args.network,
        hide: Vec::new(),
        outputs: Vec::new(),
    })
}

/// The library's role.
pub fn role(role: RoleArg) -> Role {
    match role {
        RoleArg::Checker => Role::Checker,
        RoleArg::Solver => Role::Solver,
    }
}

/// The library's metric.
pub fn metric(metric: MetricArg) -> harness::outcome::Metric {
    match metric {
        MetricArg::Wall => harness::outcome::Metric::Wall,
        MetricArg::Cpu => harness::outcome::Metric::Cpu,
    }
}

/// The one rule: a CPU-time limit is set as the candidate starts, so it
/// needs isolation (`whose`: the flag or config that set it).
pub fn cpu_needs_isolation(
    sandbox: &IsolationArgs,
    cpu: Option<std::time::Duration>,
    whose: &str,
) -> anyhow::Result<()> {
    if cpu.is_some() && sandbox.isolation == IsolationArg::None {
        bail!("{whose} needs isolation (it is set as the candidate starts): drop --isolation none");
    }
    Ok(())
}

/// The submissions a class run grades: a folder of them, or one (its id
/// given, or its folder's name).
pub fn submissions(args: &GradeArgs) -> anyhow::Result<harness::class::Source> {
    Ok(match (&args.submissions, &args.submission) {
        (Some(dir), _) => harness::class::Source::Folder(dir.clone()),
        (None, Some(dir)) => harness::class::Source::One {
            dir: dir.clone(),
            id: match &args.id {
                Some(id) => id.clone(),
                None => dir
                    .canonicalize()
                    .unwrap_or_else(|_| dir.clone())
                    .file_name()
                    .map_or_else(|| "submission".into(), |n| n.to_string_lossy().into_owned()),
            },
        },
        (None, None) => bail!("--course needs --submissions or --submission"),
    })
}

/// The family called `name`, if one is named (the one lookup: an unknown
/// name lists the known ones).
pub fn family(
    name: Option<&str>,
) -> anyhow::Result<Option<&'static dyn reference::family::Grader>> {
    let Some(name) = name else {
        return Ok(None);
    };
    let found = reference::families::family(name).with_context(|| {
        let known: Vec<&str> = reference::families::FAMILIES
            .iter()
            .map(|f| f.name())
            .collect();
        format!("unknown family {name:?} (known: {})", known.join(", "))
    })?;
    Ok(Some(found))
}

/// What a class run writes after its rows, from the flags: checked before
/// the run (a bad credit file or results target is a setup error, not a
/// class graded for nothing).
pub fn class_outputs(
    args: &crate::cli::GradeArgs,
    outputs: &Outputs,
) -> anyhow::Result<harness::class::outputs::Outputs> {
    let class = args.submissions.is_some();
    let mut results = Vec::new();
    for (format, path) in &outputs.exports {
        if format == "gradescope" {
            results.push(harness::class::outputs::Results::export(path, class)?);
        }
    }
    let flags = [
        ("autolab", &args.autolab),
        ("prairielearn", &args.prairielearn),
    ];
    for (name, path) in flags {
        if let Some(path) = path {
            let platform = harness::platform::find(name).expect("in the table");
            results.push(harness::class::outputs::Results::file(platform, path)?);
        }
    }
    for arg in &args.results {
        results.push(harness::class::outputs::Results::parse(arg)?);
    }
    Ok(harness::class::outputs::Outputs {
        summary: args.summary.clone(),
        json: outputs
            .exports
            .iter()
            .filter(|(format, _)| format == "json")
            .map(|(_, path)| path.clone())
            .collect(),
        results,
        credits: args
            .contest_credit
            .as_deref()
            .map(harness::course::contest::read_credits)
            .transpose()?,
        entry_of: args.submission.clone(),
        student_view: args.student_view,
    })
}
