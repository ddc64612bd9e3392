//! `harness contest`: time the entries, rank them, write the leaderboard.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use harness::course::Course;
use harness::event::Event;
use harness::executor::Limits;
use harness::report::{Mode, Scorecard};
use harness::settings::{Context, Repeat, RunOptions};

use super::Runner;

/// Times every entry on every case, ranks them, writes the leaderboard.
pub fn run(args: &crate::cli::ContestArgs) -> anyhow::Result<ExitCode> {
    use harness::contest;
    if args.time_limit.is_zero() || args.time_limit > harness::settings::MAX_DURATION {
        anyhow::bail!("--time-limit must be more than zero and at most 24 h");
    }
    let family = match &args.family {
        None => None,
        Some(name) => Some(
            reference::families::family(name)
                .with_context(|| format!("unknown family {name:?}"))?,
        ),
    };
    let found = harness::discover::discover(&args.suites, family, args.filter.as_deref())?;
    let moves = tempfile::tempdir().context("cannot make a folder for the move lists")?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(moves.path(), std::fs::Permissions::from_mode(0o755))?;
    }
    let course = args.course.as_deref().map(Course::load).transpose()?;
    let mut cases = contest::cases(found.clone(), crate::options::role(args.role), moves.path())?;
    // A course's Checker is timed beside its Solver, on the reference's
    // move lists for the same puzzles (`checker/...` cases).
    if let Some(c) = course.as_ref().and_then(|c| c.file.contest.as_ref())
        && c.checker.is_some()
    {
        cases.extend(contest::cases(
            found,
            reference::family::Role::Checker,
            moves.path(),
        )?);
    }
    let limits = Limits::new(args.time_limit, args.sandbox.memory_limit.as_u64());
    let mut isolation = crate::options::isolation(&args.sandbox, Some(args.jobs))?;
    // Out of every run's sight: the suites and the other entries.
    isolation.hide = args.suites.iter().chain([&args.entries]).cloned().collect();
    let options = RunOptions {
        repeat: Repeat {
            warmup: args.warmup as usize,
            runs: args.runs as usize,
        },
        ..RunOptions::new(args.jobs.get(), limits, isolation)
    };
    let plan = contest::Plan {
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        metric: crate::options::metric(args.metric),
        time_limit: args.time_limit,
    };
    let mut env = contest::Environment::read(options.jobs);
    let runner = Runner::new(&options)?;
    let (ctx, cancel) = (runner.context(&options), &runner.cancel);
    // Entries with a `run`, or submissions built as the course does (the
    // builds' folder lives until the contest is over).
    let (entries, _work) = match &args.course {
        None => {
            let entries = contest::entries(&args.entries)?;
            for e in &entries {
                if let Ok(candidate) = &e.candidate {
                    runner.check(candidate, &e.name)?;
                }
            }
            (entries, None)
        }
        Some(_) => {
            let course = course.as_ref().expect("loaded above");
            let work = harness::class::work_dir(&runner.executor)?;
            let built = harness::class::built_candidates(
                &Context {
                    options: &RunOptions {
                        repeat: Repeat::default(),
                        ..options.clone()
                    },
                    ..ctx
                },
                course,
                &harness::class::Source::Folder(args.entries.clone()),
                work.path(),
            )?;
            let mut entries = Vec::new();
            for b in &built {
                match &b.team {
                    Some(Err(why)) => eprintln!("harness: {} does not enter: {why}", b.id),
                    _ if b.candidates.is_empty() => {}
                    _ => {
                        let mut c = b.candidates.iter().cloned();
                        let mut e = contest::Entry::new(b.id.clone(), c.next().expect("a solver"));
                        if let Some(checker) = c.next() {
                            e = e.with_checker(checker);
                        }
                        entries.push(e);
                    }
                }
            }
            if entries.is_empty() {
                anyhow::bail!(
                    "no submission in {} enters the contest",
                    args.entries.display()
                );
            }
            (entries, Some((work, built)))
        }
    };
    let bar = indicatif::ProgressBar::new((entries.len() * cases.len()) as u64);
    let rows = contest::time(&ctx, &entries, &cases, &mut |event| {
        if matches!(event, Event::CaseStarted { .. }) {
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    env.load.1 = contest::load_average();
    if let Some(reason) = cancel.reason().filter(|_| cancel.is_requested()) {
        eprintln!("harness: the contest was stopped; no leaderboard written");
        return Ok(super::stopped(reason));
    }
    let standings = contest::standings(&entries, &rows, &cases, &plan);
    if let (Some(path), Some(course), Some((_, built))) = (&args.credit, &course, &_work) {
        let credits = credits(course, built, &standings);
        harness::course::contest::write_credits(path, &credits)?;
    }
    let shown = contest::shown_names(&standings, args.anonymize, args.me.as_deref());
    let board = contest::leaderboard(&standings, &shown)?;
    harness::export::write_atomically(&args.leaderboard, &board)?;
    let details = contest::details(&standings, &shown, &env, &plan, options.jobs)?;
    harness::export::write_atomically(&contest::details_path(&args.leaderboard), &details)?;
    if let Some(path) = &args.scorecard {
        let family = cases.first().map_or("", |c| c.case.family.name());
        let (mut card, _) = Scorecard::open(path, Mode::Force, None)?;
        for row in contest::median_rows(&standings, family) {
            card.append(&row)?;
        }
    }
    for w in env.warnings(options.jobs) {
        eprintln!("warning: {w}");
    }
    let _ = std::io::stdout().write_all(contest::table(&standings, &shown).as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// Each submission's place and extra credit: an entry's from its rank
/// (ties share a place and its credit), the others none, saying why.
fn credits(
    course: &Course,
    built: &[harness::class::Built],
    standings: &[harness::contest::Standing],
) -> Vec<harness::course::contest::Credit> {
    use harness::course::contest::Credit;
    let contest = course.file.contest.as_ref();
    let ordinal = |n: usize| match (n % 10, n % 100) {
        (1, x) if x != 11 => format!("{n}st"),
        (2, x) if x != 12 => format!("{n}nd"),
        (3, x) if x != 13 => format!("{n}rd"),
        _ => format!("{n}th"),
    };
    built
        .iter()
        .map(|b| {
            let team = match &b.team {
                Some(Ok(t)) => t.clone(),
                _ => String::new(),
            };
            let standing = standings.iter().find(|s| s.entry == b.id);
            let (place, credit, detail) = match (&b.team, standing) {
                (Some(Err(why)), _) => (None, 0.0, format!("not an entry: {why}")),
                (None, None) => (
                    None,
                    0.0,
                    format!(
                        "not an entry: no {}",
                        contest.map_or("contest.txt", |c| c.entry_file.as_str())
                    ),
                ),
                (_, Some(s)) => {
                    let credit = contest.map_or(0.0, |c| c.credit_for(s.rank));
                    (
                        Some(s.rank),
                        credit,
                        format!(
                            "{} place of {} entries: {} of {} cases, PAR-2 {:.3} s",
                            ordinal(s.rank),
                            standings.len(),
                            s.solved,
                            s.cases.len(),
                            s.par2
                        ),
                    )
                }
                (_, None) => (None, 0.0, "not timed".into()),
            };
            Credit {
                submission: b.id.clone(),
                team,
                place,
                credit,
                detail,
            }
        })
        .collect()
}
