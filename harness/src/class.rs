//! Grading a class: every submission in a folder (subfolders, or `.zip` /
//! `.tar.gz` archives unpacked first) is copied to a scratch folder, built
//! there by the course's build command, and run on each part of the course
//! config; one scorecard holds every row (the candidate column is the
//! submission id), and the rubric turns each submission's rows into points.
//!
//! Builds and cases run on the same job slots, under the same isolation as
//! single runs. A submission that cannot be unpacked or built is one
//! `compile-error` row and none of its cases run; nothing a submission does
//! stops the class.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;

use crate::cancel::Cancel;
use crate::conform;
use crate::course::rubric::{Score, round, show};
use crate::course::{Course, FormatFile, PartKind, Paths, fill_command};
use crate::discover::discover;
use crate::event::{Event, Summary};
use crate::executor::{Ending, Executor, Limits, Spec};
use crate::job::Candidate;
use crate::job::{Job, Who};
use crate::outcome::{Row, Verdict};
use crate::settings::Settings;

/// The suite and case of a submission's build row.
pub const BUILD: &str = "build";

/// Largest unpacked archive, in bytes, and most entries: a zip bomb is a
/// compile error, not a full disk.
pub const MAX_UNPACKED: u64 = 512 << 20;
const MAX_ENTRIES: usize = 20_000;

/// One submission.
#[derive(Debug, Clone)]
pub struct Submission {
    /// Its id: the folder's name, or the archive's without `.zip` / `.tar.gz`.
    pub id: String,
    /// Its files (a folder), or why there are none.
    pub source: Result<PathBuf, String>,
}

/// The submissions in `dir`, sorted by id; archives are unpacked into
/// `unpack_dir`. Hidden entries and other files are skipped.
pub fn submissions(dir: &Path, unpack_dir: &Path) -> anyhow::Result<Vec<Submission>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read submissions {}", dir.display()))?;
    let mut out: BTreeMap<String, Submission> = BTreeMap::new();
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for e in entries {
        let e = e.with_context(|| format!("cannot read submissions {}", dir.display()))?;
        names.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    names.sort();
    for (name, path) in names {
        if name.starts_with('.') {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let (id, source) = if meta.is_dir() {
            (name.clone(), Ok(path.clone()))
        } else if let Some(stem) = archive_stem(&name) {
            let target = unpack_dir.join(format!("{}-{}", out.len(), sanitize(stem)));
            (stem.to_string(), unpack(&path, &target))
        } else {
            continue;
        };
        if out.contains_key(&id) {
            let other = format!("{id}+{name}");
            out.insert(
                other.clone(),
                Submission {
                    id: other,
                    source: Err(format!(
                        "{name}: a second submission with the id {id:?} (rename one)"
                    )),
                },
            );
            continue;
        }
        out.insert(id.clone(), Submission { id, source });
    }
    if out.is_empty() {
        bail!(
            "no submissions in {} (each is a folder, a .zip or a .tar.gz)",
            dir.display()
        );
    }
    Ok(out.into_values().collect())
}

fn archive_stem(name: &str) -> Option<&str> {
    [".zip", ".tar.gz", ".tgz", ".tar"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|s| !s.is_empty())
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Unpacks an archive into `target` (made here), refusing entries outside
/// it, links, more than [`MAX_UNPACKED`] bytes or [`MAX_ENTRIES`] entries.
/// Returns the folder holding the submission: `target`, or its one
/// top-level folder when that is all there is.
fn unpack(archive: &Path, target: &Path) -> Result<PathBuf, String> {
    let name = archive
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    std::fs::create_dir_all(target).map_err(|e| format!("{name}: cannot unpack: {e}"))?;
    let result = if name.ends_with(".zip") {
        unzip(archive, target)
    } else {
        untar(archive, target, !name.ends_with(".tar"))
    };
    result.map_err(|e| format!("{name}: cannot unpack: {e}"))?;
    let entries: Vec<PathBuf> = std::fs::read_dir(target)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("__MACOSX"))
        })
        .collect();
    match entries.as_slice() {
        [only] if only.is_dir() => Ok(only.clone()),
        _ => Ok(target.to_owned()),
    }
}

fn unzip(archive: &Path, target: &Path) -> anyhow::Result<()> {
    let file = std::fs::File::open(archive)?;
    let mut zip = zip::ZipArchive::new(file)?;
    if zip.len() > MAX_ENTRIES {
        bail!("more than {MAX_ENTRIES} entries");
    }
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i)?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let Some(rel) = entry.enclosed_name() else {
            bail!("entry {name:?} leaves the folder");
        };
        let path = target.join(rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&path)?;
            continue;
        }
        if entry.is_symlink() {
            bail!("entry {name:?} is a link");
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::File::create(&path)?;
        let copied = std::io::copy(&mut (&mut entry).take(MAX_UNPACKED - total + 1), &mut out)?;
        total += copied;
        if total > MAX_UNPACKED {
            bail!("more than {MAX_UNPACKED} bytes unpacked");
        }
        if let Some(mode) = entry.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & 0o755 | 0o600))?;
        }
    }
    Ok(())
}

fn untar(archive: &Path, target: &Path, gz: bool) -> anyhow::Result<()> {
    let file = std::fs::File::open(archive)?;
    let reader: Box<dyn Read> = if gz {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut tar = tar::Archive::new(reader.take(MAX_UNPACKED * 2));
    tar.set_preserve_permissions(false);
    tar.set_overwrite(true);
    let mut total = 0u64;
    for (n, entry) in tar.entries()?.enumerate() {
        let mut entry = entry?;
        if n >= MAX_ENTRIES {
            bail!("more than {MAX_ENTRIES} entries");
        }
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            if kind.is_symlink() || kind.is_hard_link() {
                bail!("entry {:?} is a link", entry.path()?);
            }
            continue;
        }
        total += entry.header().size()?;
        if total > MAX_UNPACKED {
            bail!("more than {MAX_UNPACKED} bytes unpacked");
        }
        // unpack_in refuses paths that leave `target`.
        if !entry.unpack_in(target)? {
            bail!("entry {:?} leaves the folder", entry.path()?);
        }
    }
    Ok(())
}

/// The case jobs of each part, discovered once for the whole class, and the
/// batteries of the conformance parts.
pub struct Plan {
    /// Per part (config order): its work.
    pub parts: Vec<PartPlan>,
    _battery_dir: tempfile::TempDir,
}

/// What one part runs for every submission.
pub enum PartPlan {
    /// Suite cases (suite names not yet prefixed by the part).
    Cases(Vec<Job>),
    /// A conformance battery.
    Battery {
        /// The cases.
        cases: Vec<conform::Case>,
        /// The role.
        role: conform::Role,
    },
}

impl Plan {
    /// Discovers each part's cases; sliding-block cases in the older format
    /// get converted copies under `work`.
    pub fn new(course: &Course, work: &Path, filter: Option<&str>) -> anyhow::Result<Self> {
        let battery_dir = tempfile::Builder::new()
            .prefix("battery-")
            .tempdir_in(work)
            .context("cannot make the batteries' folder")?;
        let mut parts = Vec::new();
        for (i, part) in course.parts.iter().enumerate() {
            let name = &part.file.name;
            let plan = match part.kind {
                PartKind::Suites(grader) => {
                    let mut jobs = discover(&part.suites, Some(course.family), None)
                        .with_context(|| format!("part {name:?}"))?;
                    if let Some(set) = &part.cases {
                        jobs.retain(|j| set.is_match(format!("{}/{}", j.suite, j.case)));
                        if jobs.is_empty() {
                            bail!(
                                "{}: part {name:?}: no case matches {:?}",
                                course.path.display(),
                                part.file.cases
                            );
                        }
                    }
                    if let Some(f) = filter {
                        jobs.retain(|j| format!("{name}/{}/{}", j.suite, j.case).contains(f));
                    }
                    for job in &mut jobs {
                        job.family = grader;
                        job.loaded = Default::default();
                    }
                    if part.file.format == FormatFile::SizeCorner {
                        convert_jobs(&mut jobs, &work.join(format!("converted-{i}")))?;
                    }
                    PartPlan::Cases(jobs)
                }
                PartKind::Conform(_) if filter.is_some_and(|f| !name.contains(f)) => {
                    PartPlan::Cases(Vec::new())
                }
                PartKind::Conform(role) => {
                    let dir = battery_dir.path().join(format!("{i}"));
                    std::fs::create_dir(&dir)?;
                    PartPlan::Battery {
                        cases: conform::battery(course.family.name(), role, &dir)
                            .with_context(|| format!("part {name:?}"))?,
                        role,
                    }
                }
            };
            parts.push(plan);
        }
        Ok(Self {
            parts,
            _battery_dir: battery_dir,
        })
    }

    /// Every (suite, case) a submission gets, suites prefixed by the part.
    pub fn keys(&self, course: &Course) -> Vec<(String, String)> {
        let mut keys = Vec::new();
        for (part, plan) in course.parts.iter().zip(&self.parts) {
            let name = &part.file.name;
            match plan {
                PartPlan::Cases(jobs) => {
                    keys.extend(
                        jobs.iter()
                            .map(|j| (format!("{name}/{}", j.suite), j.case.clone())),
                    );
                }
                PartPlan::Battery { cases, role } => {
                    let suite = format!("{name}/{}", conform::suite_name(course.family, *role));
                    keys.extend(cases.iter().map(|c| (suite.clone(), c.name.clone())));
                }
            }
        }
        keys
    }
}

/// Gives each sliding-block job copies of its files in the older
/// `height width row col` format (the tray first, then the goal).
fn convert_jobs(jobs: &mut [Job], dir: &Path) -> anyhow::Result<()> {
    use reference::slidingblock::{Format, convert};
    for (n, job) in jobs.iter_mut().enumerate() {
        let Ok(files) = &job.files else { continue };
        let case_dir = dir.join(n.to_string());
        std::fs::create_dir_all(&case_dir)
            .with_context(|| format!("cannot create {}", case_dir.display()))?;
        let mut given = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let Ok(text) = std::fs::read(f) else {
                // Missing or unreadable: the job's row says so when judged.
                given.clear();
                break;
            };
            let Ok(out) = convert(&text, i > 0, Format::Corners, Format::SizeCorner) else {
                given.clear();
                break;
            };
            let target = case_dir.join(f.file_name().unwrap_or_default());
            std::fs::write(&target, out)?;
            given.push(target);
        }
        if given.len() == files.len() {
            job.given = Some(given);
        }
    }
    allow_everyone(dir);
    Ok(())
}

/// Makes `dir` and everything below readable (and folders enterable) by
/// every user, writable by none but the owner: the candidates' uids must
/// read what the harness prepared.
fn allow_everyone(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = if meta.is_dir() || meta.permissions().mode() & 0o111 != 0 {
            0o755
        } else {
            0o644
        };
        let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode));
    }
}

/// Gives `dir` and everything below to `owner` (links themselves, not what
/// they point to).
fn give(dir: &Path, owner: (u32, u32)) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(dir).into_iter() {
        let entry = entry.map_err(std::io::Error::other)?;
        std::os::unix::fs::lchown(entry.path(), Some(owner.0), Some(owner.1))?;
    }
    Ok(())
}

/// Copies a submission's folder (regular files and folders only; links
/// are skipped) to `to`.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    let mut total = 0u64;
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from)?;
        let target = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_file() {
            total += entry.metadata()?.len();
            if total > MAX_UNPACKED {
                bail!("more than {MAX_UNPACKED} bytes");
            }
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// A submission ready to run, or its build row.
pub struct Built {
    /// The submission.
    pub sub: Submission,
    /// The built copy, when the build succeeded.
    pub dir: Option<PathBuf>,
    /// Its build row.
    pub row: Row,
}

/// Copies and builds one submission on job slot `slot` (the `n`th).
#[allow(clippy::too_many_arguments)]
fn build(
    sub: &Submission,
    course: &Course,
    work: &Path,
    limits: &Limits,
    executor: &dyn Executor,
    cancel: &Cancel,
    slot: usize,
    n: usize,
) -> Built {
    let mut row = Row::new(&sub.id, course.family.name(), BUILD, BUILD);
    row.isolation = executor.label();
    let failed = |mut row: Row, why: String| {
        row.verdict = Verdict::CompileError;
        row.detail = why;
        Built {
            sub: sub.clone(),
            dir: None,
            row,
        }
    };
    let source = match &sub.source {
        Ok(s) => s,
        Err(why) => return failed(row, why.clone()),
    };
    let dir = work.join(format!("sub-{n}"));
    if let Err(e) = copy_tree(source, &dir) {
        return failed(row, format!("cannot copy the submission: {e:#}"));
    }
    let Some(b) = &course.file.build else {
        allow_everyone(&dir);
        row.verdict = Verdict::Accepted;
        row.detail = "nothing to build".into();
        return Built {
            sub: sub.clone(),
            dir: Some(dir),
            row,
        };
    };
    let missing: Vec<&str> = b
        .require
        .iter()
        .filter(|f| !dir.join(f).is_file())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return failed(row, format!("missing {}", missing.join(", ")));
    }
    let owner = executor.owner(slot);
    if let Some(o) = owner
        && let Err(e) = give(&dir, o)
    {
        row.verdict = Verdict::HarnessError;
        row.detail = format!("cannot give the copy to uid {}: {e}", o.0);
        return Built {
            sub: sub.clone(),
            dir: None,
            row,
        };
    }
    let quote = |p: &Path| shell_words::quote(&p.to_string_lossy()).into_owned();
    let command = b
        .command
        .replace("{course}", &quote(course.dir()))
        .replace("{submission}", &quote(&dir));
    let spec = Spec {
        argv: vec!["sh".into(), "-c".into(), OsString::from(command)],
        files: Vec::new(),
        workdir: dir.clone(),
        slot,
        stdin: None,
        relative: false,
    };
    let limits = Limits {
        time: b.time_limit,
        cpu: None,
        stdout: 1 << 20,
        stderr: 1 << 20,
        ..*limits
    };
    let run = executor.execute(&spec, &limits, cancel);
    // Back to the harness's user, read-only for everyone else: a case can
    // no longer change its program for the next one.
    if owner.is_some() {
        let me = (
            rustix::process::geteuid().as_raw(),
            rustix::process::getegid().as_raw(),
        );
        let _ = give(&dir, me);
    }
    allow_everyone(&dir);
    row.wall_ms = Some(run.wall.as_micros() as f64 / 1000.0);
    row.cpu_ms = run.cpu.map(|c| c.as_micros() as f64 / 1000.0);
    row.max_rss_kb = run.max_rss_kb;
    let tail = || last_lines(&run.stderr.bytes, &run.stdout.bytes);
    let (verdict, detail) = match (&run.ending, run.limit) {
        (Ending::Failed(why), _) => (Verdict::HarnessError, why.clone()),
        _ if run.cancelled => (
            Verdict::Cancelled,
            "stopped: the grading run was cancelled".into(),
        ),
        (_, Some(_)) => (
            Verdict::CompileError,
            format!(
                "the build ran out of its limits ({}); {}",
                humantime::format_duration(limits.time),
                tail()
            ),
        ),
        (Ending::Exited(0), None) => (Verdict::Accepted, String::new()),
        (Ending::Exited(code), None) => {
            row.exit_code = Some(*code);
            (
                Verdict::CompileError,
                format!("build exit {code}: {}", tail()),
            )
        }
        (Ending::Signaled(sig), None) => (
            Verdict::CompileError,
            format!(
                "build killed by {}: {}",
                crate::executor::signal_name(*sig),
                tail()
            ),
        ),
    };
    row.verdict = verdict;
    row.detail = detail;
    Built {
        sub: sub.clone(),
        dir: (verdict == Verdict::Accepted).then_some(dir),
        row,
    }
}

/// The compiler's last lines, on one line (` | ` between them).
fn last_lines(stderr: &[u8], stdout: &[u8]) -> String {
    let text = if stderr.trim_ascii().is_empty() {
        stdout
    } else {
        stderr
    };
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let tail = &lines[lines.len().saturating_sub(5)..];
    if tail.is_empty() {
        "no output".into()
    } else {
        tail.join(" | ")
    }
}

/// A scratch folder for a class's copies and builds, readable by every
/// slot's user: beside the cases' scratch folders (tmpfs where cases are
/// charged to a memory cgroup), as many small files come and go.
pub fn work_dir(executor: &dyn Executor) -> anyhow::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    let base = crate::executor::isolate::scratch_base(executor.label().contains("cgroup"));
    let work = tempfile::Builder::new()
        .prefix("puzzlegrade-class-")
        .tempdir_in(&base)
        .or_else(|_| {
            tempfile::Builder::new()
                .prefix("puzzlegrade-class-")
                .tempdir()
        })
        .context("cannot make the class's scratch folder")?;
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))?;
    Ok(work)
}

/// Builds `subs` (each with its number, for its scratch folder's name) in
/// parallel on the job slots; `None` for one a stop request left unbuilt.
pub fn build_all(
    course: &Course,
    subs: &[(usize, &Submission)],
    work: &Path,
    settings: &Settings,
    executor: &dyn Executor,
    cancel: &Cancel,
) -> Vec<Option<Built>> {
    let mut builds: Vec<Option<Built>> = Vec::new();
    builds.resize_with(subs.len(), || None);
    let next = AtomicUsize::new(0);
    let results = std::sync::Mutex::new(&mut builds);
    let workers = settings.jobs.clamp(1, subs.len().max(1));
    std::thread::scope(|scope| {
        for slot in 0..workers {
            let (next, results) = (&next, &results);
            scope.spawn(move || {
                loop {
                    if cancel.is_requested() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&(n, sub)) = subs.get(i) else { break };
                    let b = build(
                        sub,
                        course,
                        work,
                        &settings.limits,
                        executor,
                        cancel,
                        slot,
                        n,
                    );
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(b);
                    }
                }
            });
        }
    });
    builds
}

/// One unit of work of the case phase.
enum Work<'a> {
    Case(Job),
    Battery {
        who: Arc<Who>,
        suite: String,
        case: &'a conform::Case,
    },
}

/// How a class run ended.
pub struct ClassResult {
    /// Tallies over every row.
    pub summary: Summary,
    /// Every row, kept ones included, in scorecard order.
    pub rows: Vec<Row>,
    /// Every submission's id, sorted.
    pub ids: Vec<String>,
    /// Every (suite, case) a built submission gets.
    pub keys: Vec<(String, String)>,
}

/// Grades every submission in `dir` with `course`; `kept` are rows of a
/// resumed scorecard. `settings` gives the limits, slots and safety
/// options (its candidate is not used).
#[allow(clippy::too_many_arguments)]
pub fn run_class(
    course: &Course,
    settings: &Settings,
    dir: &Path,
    kept: &[Row],
    executor: &dyn Executor,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(Event),
) -> anyhow::Result<ClassResult> {
    let start = Instant::now();
    let work = work_dir(executor)?;
    let mut subs = submissions(dir, &work.path().join("unpacked"))?;
    if let Some(shard) = settings.shard {
        subs = crate::shard::submissions(subs, shard, settings.shard_costs.as_deref());
    }
    allow_everyone(&work.path().join("unpacked"));
    let plan = Plan::new(course, work.path(), settings.filter.as_deref())?;
    let keys = plan.keys(course);

    let done: HashSet<(String, String, String)> = kept.iter().map(Row::key).collect();
    let kept_build = |id: &str| kept.iter().find(|r| r.candidate == id && r.suite == BUILD);
    // A submission needs a build unless its build failed before, or every
    // row it gets is already kept.
    let to_build: Vec<(usize, &Submission)> = subs
        .iter()
        .enumerate()
        .filter(|(_, s)| match kept_build(&s.id) {
            Some(r) if r.verdict != Verdict::Accepted => false,
            Some(_) => keys
                .iter()
                .any(|(suite, case)| !done.contains(&(s.id.clone(), suite.clone(), case.clone()))),
            None => true,
        })
        .collect();

    let mut summary = Summary::default();
    for row in kept {
        summary.add(row);
    }
    let new_builds = to_build
        .iter()
        .filter(|(_, s)| kept_build(&s.id).is_none())
        .count();
    let todo_cases: usize = to_build
        .iter()
        .map(|(_, s)| {
            keys.iter()
                .filter(|(suite, case)| {
                    !done.contains(&(s.id.clone(), suite.clone(), case.clone()))
                })
                .count()
        })
        .sum();
    on_event(Event::RunStarted {
        candidate: course.file.name.clone(),
        cases: new_builds + todo_cases,
        kept: kept.len(),
        isolation: executor.describe(),
    });

    // Builds, in parallel on the job slots.
    let builds = build_all(course, &to_build, work.path(), settings, executor, cancel);
    let mut rows: Vec<Row> = kept.to_vec();
    let mut ready: Vec<(Submission, PathBuf)> = Vec::new();
    for (i, built) in builds.into_iter().enumerate() {
        let sub = to_build[i].1;
        let row = match built {
            Some(b) => {
                if let Some(dir) = b.dir {
                    ready.push((b.sub, dir));
                }
                b.row
            }
            None => {
                let mut row = Row::new(&sub.id, course.family.name(), BUILD, BUILD);
                row.verdict = Verdict::Cancelled;
                row.detail = "not built: the grading run was cancelled".into();
                row
            }
        };
        if kept_build(&sub.id).is_none() || row.verdict != Verdict::Accepted {
            if kept_build(&sub.id).is_some() {
                // Built before, fails now: the old row stays the record.
                continue;
            }
            summary.add(&row);
            rows.push(row.clone());
            on_event(crate::schedule::finished(row));
        }
    }

    // Every case of every built submission.
    let mut items: Vec<Work> = Vec::new();
    for (sub, built) in &ready {
        for (part, part_plan) in course.parts.iter().zip(&plan.parts) {
            let who = Arc::new(Who {
                label: sub.id.clone(),
                candidate: Candidate::Command {
                    argv: fill_command(&part.file.command, built, course.dir()),
                    workdir: built.clone(),
                    relative: part.file.paths == Paths::Relative,
                },
            });
            let name = &part.file.name;
            let todo = |suite: &str, case: &str| {
                !done.contains(&(sub.id.clone(), suite.to_string(), case.to_string()))
            };
            match part_plan {
                PartPlan::Cases(jobs) => {
                    for j in jobs {
                        let suite = format!("{name}/{}", j.suite);
                        if todo(&suite, &j.case) {
                            items.push(Work::Case(Job {
                                family: j.family,
                                suite,
                                case: j.case.clone(),
                                files: j.files.clone(),
                                root: j.root.clone(),
                                given: j.given.clone(),
                                who: Some(Arc::clone(&who)),
                                loaded: Arc::clone(&j.loaded),
                            }));
                        }
                    }
                }
                PartPlan::Battery { cases, role } => {
                    let suite = format!("{name}/{}", conform::suite_name(course.family, *role));
                    for c in cases {
                        if todo(&suite, &c.name) {
                            items.push(Work::Battery {
                                who: Arc::clone(&who),
                                suite: suite.clone(),
                                case: c,
                            });
                        }
                    }
                }
            }
        }
    }
    let mut record = |event: Event| {
        if let Event::CaseFinished { row } | Event::CaseCancelled { row } = &event {
            rows.push((**row).clone());
        }
        on_event(event);
    };
    crate::grade::prepare(
        items.iter().filter_map(|w| match w {
            Work::Case(j) => Some(j),
            Work::Battery { .. } => None,
        }),
        settings,
        cancel,
    );
    crate::schedule::pool(
        &items,
        settings.jobs,
        cancel,
        &mut summary,
        &mut record,
        |w| match w {
            Work::Case(j) => (j.suite.clone(), j.case.clone()),
            Work::Battery { suite, case, .. } => (suite.clone(), case.name.clone()),
        },
        |w, slot| match w {
            Work::Case(j) => crate::grade::grade(j, settings, slot, executor, cancel),
            Work::Battery { who, suite, case } => conform::run_case(
                course.family,
                case,
                (&who.candidate, &who.label, suite),
                &settings.limits,
                executor,
                cancel,
                slot,
            ),
        },
        |w| {
            let (label, family, suite, case) = match w {
                Work::Case(j) => (
                    j.who.as_ref().map_or("", |w| w.label.as_str()),
                    j.family.name(),
                    j.suite.as_str(),
                    j.case.as_str(),
                ),
                Work::Battery { who, suite, case } => (
                    who.label.as_str(),
                    course.family.name(),
                    suite.as_str(),
                    case.name.as_str(),
                ),
            };
            let mut row = Row::new(label, family, suite, case);
            row.isolation = executor.label();
            row
        },
    );
    let summary = crate::schedule::end_run(summary, start, executor, cancel, on_event);
    Ok(ClassResult {
        summary,
        rows,
        ids: subs.iter().map(|s| s.id.clone()).collect(),
        keys,
    })
}

/// One submission's line of `summary.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    /// The submission id.
    pub submission: String,
    /// Per rubric item, in config order.
    pub items: Vec<(String, Score)>,
    /// The sum.
    pub total: f64,
    /// The most a submission can get.
    pub max: f64,
    /// Whether it built.
    pub built: bool,
    /// Cases accepted, and in all (build rows aside).
    pub accepted: usize,
    /// Cases run.
    pub cases: usize,
}

/// Every submission's points from the scorecard's rows.
pub fn points(
    course: &Course,
    ids: &[String],
    keys: &[(String, String)],
    rows: &[Row],
) -> Vec<Points> {
    let max = round(
        course
            .file
            .rubric
            .iter()
            .map(|i| i.max_over(keys.iter().map(|(s, c)| (s.as_str(), c.as_str()))))
            .sum(),
    );
    ids.iter()
        .map(|id| {
            let mine: Vec<&Row> = rows.iter().filter(|r| &r.candidate == id).collect();
            let built = !mine
                .iter()
                .any(|r| r.suite == BUILD && r.verdict == Verdict::CompileError);
            let cases: Vec<&Row> = mine.iter().copied().filter(|r| r.suite != BUILD).collect();
            let items: Vec<(String, Score)> = course
                .file
                .rubric
                .iter()
                .map(|i| (i.name.clone(), i.score(&cases, built)))
                .collect();
            Points {
                submission: id.clone(),
                total: round(items.iter().map(|(_, s)| s.points).sum()),
                items,
                max,
                built,
                accepted: cases
                    .iter()
                    .filter(|r| r.verdict == Verdict::Accepted)
                    .count(),
                cases: cases.len(),
            }
        })
        .collect()
}

/// `summary.csv`: one row per submission (points per rubric item, total,
/// the most possible, whether it built, cases accepted of cases run, and
/// the counts behind each item), written atomically.
pub fn write_summary(path: &Path, course: &Course, points: &[Points]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["submission".to_string()];
    header.extend(course.file.rubric.iter().map(|i| i.name.clone()));
    header.extend(["total", "max", "built", "accepted", "cases", "counts"].map(String::from));
    w.write_record(&header)?;
    for p in points {
        let mut record = vec![p.submission.clone()];
        record.extend(p.items.iter().map(|(_, s)| show(s.points)));
        let counts: Vec<String> = p
            .items
            .iter()
            .zip(&course.file.rubric)
            .filter(|(_, i)| i.rule != crate::course::Rule::CompilePenalty)
            .map(|((name, s), _)| format!("{name} {}/{}", s.passed, s.cases))
            .collect();
        record.extend([
            show(p.total),
            show(p.max),
            if p.built { "yes" } else { "no" }.to_string(),
            p.accepted.to_string(),
            p.cases.to_string(),
            counts.join("; "),
        ]);
        w.write_record(&record)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::export::write_atomically(path, &bytes)
}

/// Gradescope's `results.json` per submission: `DIR/<id>/results.json`,
/// one test per rubric item (its points, its maximum, the cases behind it
/// and the first failures).
pub fn write_gradescope(
    dir: &Path,
    course: &Course,
    points: &[Points],
    rows: &[Row],
) -> anyhow::Result<()> {
    #[derive(Serialize)]
    struct Results {
        score: f64,
        max_score: f64,
        output: String,
        visibility: &'static str,
        tests: Vec<Test>,
    }
    #[derive(Serialize)]
    struct Test {
        name: String,
        score: f64,
        max_score: f64,
        output: String,
        visibility: &'static str,
    }
    for p in points {
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| r.candidate == p.submission)
            .collect();
        let mut tests = Vec::new();
        for ((name, score), item) in p.items.iter().zip(&course.file.rubric) {
            let failures: Vec<String> = mine
                .iter()
                .filter(|r| item.selects(&r.suite, &r.case) && !item.passes(r))
                .take(10)
                .map(|r| format!("{}/{}: {} {}", r.suite, r.case, r.verdict, r.detail))
                .collect();
            let output = if item.rule == crate::course::Rule::CompilePenalty {
                if p.built {
                    "it builds".into()
                } else {
                    "it does not build".into()
                }
            } else {
                let mut o = format!("{} of {} cases passed", score.passed, score.cases);
                for f in failures {
                    o.push('\n');
                    o.push_str(&f);
                }
                o
            };
            tests.push(Test {
                name: name.clone(),
                score: score.points,
                max_score: item.max(),
                output,
                visibility: "visible",
            });
        }
        let build = mine.iter().find(|r| r.suite == BUILD);
        let results = Results {
            score: p.total,
            max_score: p.max,
            output: match build {
                Some(r) if r.verdict != Verdict::Accepted => format!("{}: {}", r.verdict, r.detail),
                _ => format!(
                    "{}: {} of {} cases accepted",
                    course.file.name, p.accepted, p.cases
                ),
            },
            visibility: "visible",
            tests,
        };
        let folder = dir.join(sanitize(&p.submission));
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
        crate::export::write_atomically(
            &folder.join("results.json"),
            &serde_json::to_vec_pretty(&results)?,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_names_and_compiler_tails() {
        assert_eq!(archive_stem("alice.zip"), Some("alice"));
        assert_eq!(archive_stem("bob.tar.gz"), Some("bob"));
        assert_eq!(archive_stem("c.tgz"), Some("c"));
        assert_eq!(archive_stem(".zip"), None);
        assert_eq!(archive_stem("notes.txt"), None);
        assert_eq!(sanitize("a b/../c"), "a_b____c");
        let err = b"a.c:1: warning\n\nx\ny\nz\nw\na.c:9: error: oops\n";
        assert_eq!(
            last_lines(err, b"out"),
            "x | y | z | w | a.c:9: error: oops"
        );
        assert_eq!(last_lines(b"  \n", b"only stdout\n"), "only stdout");
        assert_eq!(last_lines(b"", b""), "no output");
    }

    #[test]
    fn submissions_are_folders_and_archives_sorted_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        std::fs::create_dir_all(class.join("zed")).unwrap();
        std::fs::create_dir_all(class.join(".git")).unwrap();
        std::fs::create_dir_all(class.join("amy")).unwrap();
        std::fs::write(class.join("README"), "x").unwrap();
        std::fs::write(class.join("bad.zip"), "not a zip").unwrap();
        let subs = submissions(&class, &dir.path().join("unpacked")).unwrap();
        let ids: Vec<&str> = subs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["amy", "bad", "zed"]);
        assert!(
            subs[1]
                .source
                .as_ref()
                .unwrap_err()
                .starts_with("bad.zip: cannot unpack: ")
        );
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(
            submissions(&empty, dir.path())
                .unwrap_err()
                .to_string()
                .starts_with("no submissions in")
        );
    }
}
