//! `harness package` tries the kit it wrote before a student sees it: the
//! kit laid out in a scratch folder as its platform lays it out, the
//! course's sample submission (`sample` in its config) in the place of a
//! student's, and the platform's own steps run there through the kit's own
//! entry point (its setup, then one submission), with the privileges a
//! platform's container gives where this process has more (root loses
//! CAP_SYS_ADMIN and the rest an engine drops, by util-linux's
//! `setpriv`). A kit whose sample falls short of the rubric's points, or
//! whose steps fail, is refused: the kit is never written.
//!
//! The platforms' fixed folders (`/autograder`, `/grade`) are the kit's
//! scripts' defaults; `PUZZLEGRADE_KIT_ROOT` moves them into the scratch
//! folder, and `PUZZLEGRADE_TRIAL=1` makes a setup install no package (the
//! kit's preflight names any program the image would lack instead).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

use super::Platform;
use super::kit::{Kit, Package, write};
use crate::course::rubric::show;

/// How a platform's steps are tried: what its [`Platform::trial`] gives.
pub struct Trial {
    /// The platform's steps as shell commands, run by `sh -c` in the
    /// scratch folder with `PUZZLEGRADE_KIT_ROOT` and `PUZZLEGRADE_TRIAL`
    /// set (and [`Trial::env`]).
    pub script: String,
    /// More environment for them.
    pub env: Vec<(&'static str, PathBuf)>,
    /// The points the sample got, from what the steps printed on stdout
    /// and left in the scratch folder (the course's most points given).
    pub score: Score,
}

/// Reads the points a trial's sample got: from the steps' stdout and what
/// they left, the course's most points given.
pub type Score = Box<dyn Fn(&str, f64) -> anyhow::Result<f64>>;

/// Shell commands that make the folder they run in a repository of one
/// commit holding all it holds (a push, as a platform's job sees it).
pub const COMMIT_ALL: &str = "git init -q && git add -A \
     && git -c user.name=puzzlegrade -c user.email=trial@puzzlegrade commit -qm sample";

/// What a trial found: the sample's points of the most, and how it ran.
pub struct Tried {
    /// The sample's points.
    pub points: f64,
    /// The rubric's most.
    pub max: f64,
    /// How the steps ran (for the staff).
    pub how: &'static str,
    /// How long they took, setup and all.
    pub took: std::time::Duration,
}

/// Tries `package` (`platform`'s kit for `kit`) with `sample` as the
/// one submission, in a scratch folder of its own: the sample's points,
/// or why the kit is refused.
pub fn run(
    platform: &dyn Platform,
    kit: &Kit,
    package: &Package,
    sample: &Path,
) -> anyhow::Result<Tried> {
    let course = kit.course;
    if !sample.is_dir() {
        bail!(
            "the course's sample {} is not a folder (sample in {})",
            sample.display(),
            course.path.display()
        );
    }
    let scratch = tempfile::Builder::new()
        .prefix("puzzlegrade-trial-")
        .tempdir()
        .context("cannot make a scratch folder for the kit's trial")?;
    // The kit's cases run as other users, who must read it.
    open_to_all(scratch.path())?;
    let written = scratch.path().join(match package.form {
        super::Form::Zip => "kit.zip",
        super::Form::Folder => "kit",
    });
    write(package, &written)?;
    let root = scratch.path().join("platform");
    std::fs::create_dir(&root)?;
    open_to_all(&root)?;
    let Some(trial) = platform.trial(kit, &written, sample, &root)? else {
        bail!("{} kits cannot be tried", platform.name());
    };
    let (mut command, how) = dropped();
    command
        .args(["sh", "-c", &trial.script])
        .current_dir(&root)
        .env("PUZZLEGRADE_TRIAL", "1")
        .env("PUZZLEGRADE_KIT_ROOT", &root)
        .env_remove("PUZZLEGRADE_STORE");
    for (k, v) in &trial.env {
        command.env(k, v);
    }
    let start = std::time::Instant::now();
    let out = command
        .output()
        .with_context(|| format!("cannot run {}'s steps", platform.name()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log = || tail(&format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)));
    let max = course.max_points();
    let points = match (out.status.success(), (trial.score)(&stdout, max)) {
        (true, Ok(points)) => points,
        (_, Err(e)) => bail!(
            "refused: the kit failed on the course's sample {} ({}: {e:#}); its last lines:\n{}",
            sample.display(),
            out.status,
            log()
        ),
        (false, Ok(_)) => bail!(
            "refused: the kit's steps failed on the course's sample {} ({}); their last lines:\n{}",
            sample.display(),
            out.status,
            log()
        ),
    };
    if points + 1e-9 < max {
        bail!(
            "refused: the course's sample {} got {} / {} points through the kit (every point expected); its last lines:\n{}",
            sample.display(),
            show(points),
            show(max),
            log()
        );
    }
    Ok(Tried {
        points,
        max,
        how,
        took: start.elapsed(),
    })
}

/// `sh`, with a container's privileges where this process has more: as
/// root, the engines' default capabilities only (no CAP_SYS_ADMIN, so no
/// namespace of the harness's own), as Docker and Podman give.
fn dropped() -> (Command, &'static str) {
    const CAPS: &str = "--bounding-set=-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,\
                        +setuid,+setpcap,+net_bind_service,+net_raw,+sys_chroot,+mknod,\
                        +audit_write,+setfcap";
    let root = rustix::process::geteuid().is_root();
    let setpriv = root
        && Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if setpriv {
        let mut c = Command::new("setpriv");
        c.args([CAPS, "--inh-caps=-all", "--"]);
        (
            c,
            "as root with a container's capabilities (no CAP_SYS_ADMIN)",
        )
    } else if root {
        (
            Command::new("env"),
            "as root (no setpriv here to drop privileges)",
        )
    } else {
        (Command::new("env"), "as this user")
    }
}

/// The last lines of a log, for a refusal.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let from = lines.len().saturating_sub(15);
    lines[from..]
        .iter()
        .map(|l| format!("  | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Mode 0755 on `dir`.
fn open_to_all(dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot open {} to the cases' users", dir.display()))
}

/// Copies `from` (a folder, links followed) to `to`, readable by all.
pub fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for e in walkdir::WalkDir::new(from).follow_links(true) {
        let e = e.with_context(|| format!("cannot read {}", from.display()))?;
        let target = to.join(e.path().strip_prefix(from)?);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target)
                .with_context(|| format!("cannot create {}", target.display()))?;
            open_to_all(&target)?;
        } else {
            std::fs::copy(e.path(), &target)
                .with_context(|| format!("cannot copy {}", e.path().display()))?;
            let mode = e.metadata()?.permissions().mode() & 0o111 | 0o644;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))?;
        }
    }
    Ok(())
}

/// Unpacks the zip at `zip` into `to`, each entry with its mode.
pub fn unzip(zip: &Path, to: &Path) -> anyhow::Result<()> {
    let file =
        std::fs::File::open(zip).with_context(|| format!("cannot open {}", zip.display()))?;
    let mut archive = zip::ZipArchive::new(file)?;
    archive
        .extract(to)
        .with_context(|| format!("cannot unpack {}", zip.display()))?;
    // Folders as unzip makes them under a platform's umask (this
    // process's keeps them to itself).
    for e in walkdir::WalkDir::new(to) {
        let e = e?;
        if e.file_type().is_dir() {
            open_to_all(e.path())?;
        }
    }
    Ok(())
}

/// A JSON file's number at `pointer`.
pub fn json_number(path: &Path, pointer: &str) -> anyhow::Result<f64> {
    json_value(path, pointer)?
        .as_f64()
        .with_context(|| format!("{} has no number at {pointer}", path.display()))
}

/// A JSON file's value at `pointer`.
pub fn json_value(path: &Path, pointer: &str) -> anyhow::Result<serde_json::Value> {
    let bytes = std::fs::read(path).with_context(|| format!("no {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not JSON", path.display()))?;
    v.pointer(pointer)
        .cloned()
        .with_context(|| format!("{} has no {pointer}", path.display()))
}
