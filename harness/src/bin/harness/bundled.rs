//! What the binary carries: the project's course configs, adapters and
//! suites, built in, so an installed `harness` grades with `--course
//! cis521` from any folder. They are written out once per content into a
//! cache folder the cases' users can read (`PUZZLEGRADE_CACHE`; else, as
//! root, /var/cache/puzzlegrade; else `$XDG_CACHE_HOME` or ~/.cache), and
//! used from there like a checkout's.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use include_dir::{Dir, include_dir};

static COURSES: Dir = include_dir!("$CARGO_MANIFEST_DIR/../courses");
static ADAPTERS: Dir = include_dir!("$CARGO_MANIFEST_DIR/../adapters");
static SUITES: Dir = include_dir!("$CARGO_MANIFEST_DIR/../suites");

/// The three trees, by the folder each is written to.
fn trees() -> [(&'static str, &'static Dir<'static>); 3] {
    [
        ("courses", &COURSES),
        ("adapters", &ADAPTERS),
        ("suites", &SUITES),
    ]
}

/// Every bundled course: its short name (`cis521`) and config file name.
pub fn courses() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = COURSES
        .files()
        .filter_map(|f| {
            let name = f.path().file_name()?.to_str()?;
            let stem = name.strip_suffix(".toml")?;
            let short = stem.rsplit_once('-').map_or(stem, |(course, _)| course);
            Some((short.to_string(), name.to_string()))
        })
        .collect();
    out.sort();
    out
}

/// The short name of the bundled course whose config is exactly `bytes`.
pub fn name_of(bytes: &[u8]) -> Option<String> {
    courses()
        .into_iter()
        .find_map(|(short, file)| (COURSES.get_file(&file)?.contents() == bytes).then_some(short))
}

/// `course` as given when it is a file; else the bundled course of that
/// name (its short name, or its file's stem), written out first.
pub fn course(course: &Path) -> anyhow::Result<PathBuf> {
    if course.exists() || course.components().count() != 1 {
        return Ok(course.to_owned());
    }
    let name = course.to_string_lossy();
    let name = name.strip_suffix(".toml").unwrap_or(&name);
    let Some((_, file)) = courses()
        .into_iter()
        .find(|(short, file)| short == name || file.strip_suffix(".toml") == Some(name))
    else {
        let known: Vec<String> = courses().into_iter().map(|(s, _)| s).collect();
        bail!(
            "no course config {} here, and no bundled course of that name ({})",
            course.display(),
            known.join(", ")
        );
    };
    Ok(root()?.join("courses").join(file))
}

/// The bundled suites, written out (where `./suites` is absent).
pub fn suites() -> anyhow::Result<PathBuf> {
    Ok(root()?.join("suites"))
}

/// The folder holding the written-out trees, written first if needed.
fn root() -> anyhow::Result<PathBuf> {
    let base = match std::env::var_os("PUZZLEGRADE_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None if rustix::process::geteuid().is_root() => PathBuf::from("/var/cache/puzzlegrade"),
        None => match (std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME")) {
            (Some(x), _) => PathBuf::from(x).join("puzzlegrade"),
            (None, Some(h)) => PathBuf::from(h).join(".cache/puzzlegrade"),
            (None, None) => bail!("no cache folder for the bundled courses: set PUZZLEGRADE_CACHE"),
        },
    };
    let dir = base.join(format!(
        "{}-{:016x}",
        env!("CARGO_PKG_VERSION"),
        fingerprint()
    ));
    if dir.is_dir() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&base).with_context(|| format!("cannot create {}", base.display()))?;
    // Written beside, then renamed into place: a run that stops half way
    // leaves no half tree, and two runs at once both end with a whole one.
    let tmp = tempfile::Builder::new()
        .prefix(".partial-")
        .tempdir_in(&base)
        .with_context(|| format!("cannot write in {}", base.display()))?;
    for (name, tree) in trees() {
        write(tree, &tmp.path().join(name))?;
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))?;
    let tmp = tmp.keep();
    if let Err(e) = std::fs::rename(&tmp, &dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        if !dir.is_dir() {
            return Err(e).with_context(|| format!("cannot write {}", dir.display()));
        }
    }
    Ok(dir)
}

/// Writes `tree` into `to`, readable by every user (the cases' users read
/// the adapters and suites).
fn write(tree: &Dir, to: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to)?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755))?;
    for f in tree.files() {
        let path = to.join(f.path().file_name().unwrap_or_default());
        std::fs::write(&path, f.contents())?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
    }
    for d in tree.dirs() {
        write(d, &to.join(d.path().file_name().unwrap_or_default()))?;
    }
    Ok(())
}

/// A hash of every bundled file's path and bytes: a new build with other
/// contents gets a folder of its own.
fn fingerprint() -> u64 {
    fn walk(d: &Dir, h: &mut std::collections::hash_map::DefaultHasher) {
        for f in d.files() {
            f.path().hash(h);
            f.contents().hash(h);
        }
        for sub in d.dirs() {
            walk(sub, h);
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (name, tree) in trees() {
        name.hash(&mut h);
        walk(tree, &mut h);
    }
    h.finish()
}
