//! The class folder: one submission per subfolder, `.zip`, `.tar.gz` or
//! `.tar` (unpacked here, refusing links, paths that leave the folder and
//! more than [`MAX_UNPACKED`] bytes or [`MAX_ENTRIES`] entries).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::course::policy::{Handin, read_metadata};
use crate::export::safe_name;
use crate::grade::build::MAX_UNPACKED;

/// Most entries of an archive.
const MAX_ENTRIES: usize = 20_000;

/// One submission.
#[derive(Debug, Clone)]
pub struct Submission {
    /// Its id: the folder's name, or the archive's without `.zip` / `.tar.gz`.
    pub id: String,
    /// Its files (a folder), or why there are none.
    pub source: Result<PathBuf, String>,
    /// Its handins: how many, and when the graded one came.
    pub handin: Handin,
}

/// A folder of handins (`1/`, `2/`, ..., and maybe the platform's
/// `submission_metadata.json` beside them, where a student cannot write):
/// the highest-numbered folder, graded, and what is known of the handins.
/// `None` for a plain submission folder.
fn history(dir: &Path) -> Option<(PathBuf, Handin)> {
    let mut last: Option<(u32, PathBuf)> = None;
    let mut metadata = false;
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let name = e.file_name().to_str()?.to_string();
        let is_dir = e.file_type().ok()?.is_dir();
        match name.parse::<u32>() {
            Ok(n) if is_dir && n > 0 && !name.starts_with('0') => {
                if last.as_ref().is_none_or(|(m, _)| n > *m) {
                    last = Some((n, e.path()));
                }
            }
            _ if name == "submission_metadata.json" && !is_dir => metadata = true,
            _ => return None,
        }
    }
    let (n, graded) = last?;
    let mut handin = Handin {
        count: Some(n),
        ..Handin::default()
    };
    if metadata && let Ok(Some(h)) = read_metadata(dir) {
        handin = h;
    }
    Some((graded, handin))
}

/// Where a class's submissions are.
#[derive(Debug, Clone)]
pub enum Source {
    /// A folder of submissions, one per entry (`--submissions`).
    Folder(PathBuf),
    /// One submission's folder (`--submission`: where a platform puts it,
    /// as Gradescope's `/autograder/submission`; a link is followed),
    /// graded under `id`. The platform's `submission_metadata.json` beside
    /// it, where there is one, gives its handins.
    One {
        /// The folder.
        dir: PathBuf,
        /// The submission id.
        id: String,
    },
}

impl Source {
    /// The folder holding the submissions (or the one submission).
    pub fn path(&self) -> &Path {
        match self {
            Source::Folder(p) | Source::One { dir: p, .. } => p,
        }
    }
}

/// The submissions of `source`, sorted by id; archives are unpacked into
/// `unpack_dir`.
pub fn gather(source: &Source, unpack_dir: &Path) -> anyhow::Result<Vec<Submission>> {
    match source {
        Source::Folder(dir) => submissions(dir, unpack_dir),
        Source::One { dir, id } => {
            let folder = dir
                .canonicalize()
                .with_context(|| format!("cannot read submission {}", dir.display()))?;
            if !folder.is_dir() {
                bail!("submission {} is not a folder", dir.display());
            }
            let handin = match dir.parent().map(read_metadata) {
                Some(Ok(Some(h))) => h,
                Some(Err(why)) => bail!("{why}"),
                _ => Handin::default(),
            };
            Ok(vec![Submission {
                id: id.clone(),
                source: Ok(folder),
                handin,
            }])
        }
    }
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
        names.push((display_name(&e.file_name()), e.path()));
    }
    names.sort();
    for (name, path) in names {
        if name.starts_with('.') {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut handin = Handin::default();
        let (id, source) = if meta.is_dir() {
            match history(&path) {
                Some((graded, h)) => {
                    handin = h;
                    (name.clone(), Ok(graded))
                }
                None => (name.clone(), Ok(path.clone())),
            }
        } else if let Some(stem) = archive_stem(&name) {
            let target = unpack_dir.join(format!("{}-{}", out.len(), safe_name(stem)));
            (stem.to_string(), unpack(&path, &target))
        } else {
            continue;
        };
        if out.contains_key(&id) {
            // A second id of its own, even if that one is taken too: no
            // submission is ever dropped from the summary.
            let mut other = format!("{id}+{name}");
            let mut n = 2;
            while out.contains_key(&other) {
                other = format!("{id}+{name}+{n}");
                n += 1;
            }
            out.insert(
                other.clone(),
                Submission {
                    id: other,
                    source: Err(format!(
                        "{name}: a second submission with the id {id:?} (rename one)"
                    )),
                    handin: Handin::default(),
                },
            );
            continue;
        }
        out.insert(id.clone(), Submission { id, source, handin });
    }
    if out.is_empty() {
        bail!(
            "no submissions in {} (each is a folder, a .zip or a .tar.gz)",
            dir.display()
        );
    }
    Ok(out.into_values().collect())
}

/// A folder or archive name as an id: itself when it is UTF-8, else with
/// every byte that is not UTF-8 written `\xNN`, so that two names that
/// differ only there stay two ids (a lossy conversion would give both
/// U+FFFD and one student would have no row).
fn display_name(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

fn archive_stem(name: &str) -> Option<&str> {
    [".zip", ".tar.gz", ".tgz", ".tar"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|s| !s.is_empty())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handin_histories() {
        let d = tempfile::tempdir().unwrap();
        let class = d.path().join("class");
        for f in [
            "alice/1/a.c",
            "alice/2/a.c",
            "alice/10/a.c",
            "bob/a.c",
            "carol/1/a.c",
        ] {
            let p = class.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        // The platform's record beside the handins: its count and time win.
        std::fs::write(
            class.join("alice/submission_metadata.json"),
            r#"{"created_at": "2015-11-25T01:00:00-05:00", "previous_submissions": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}"#,
        )
        .unwrap();
        // A file of the student's among numbered folders: a plain folder.
        std::fs::write(class.join("carol/notes.txt"), "x").unwrap();
        let subs = submissions(&class, &d.path().join("unpacked")).unwrap();
        let by = |id: &str| subs.iter().find(|s| s.id == id).unwrap().clone();
        let alice = by("alice");
        assert_eq!(
            alice.source.unwrap(),
            class.join("alice/10"),
            "the highest number, not the last by name"
        );
        assert_eq!(alice.handin.count, Some(12));
        assert_eq!(
            alice.handin.at.unwrap().to_rfc3339(),
            "2015-11-25T01:00:00-05:00"
        );
        assert_eq!(by("bob").handin, Handin::default());
        assert_eq!(by("carol").source.unwrap(), class.join("carol"));
        std::fs::remove_file(class.join("alice/submission_metadata.json")).unwrap();
        let subs = submissions(&class, &d.path().join("unpacked2")).unwrap();
        assert_eq!(
            subs[0].handin.count,
            Some(10),
            "without a record: the highest number"
        );
    }

    /// Names that are not UTF-8 stay distinct, and a name that collides
    /// with another's fallback id still gets a row of its own.
    #[test]
    fn names_that_are_not_utf8_stay_distinct() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        for name in [&b"a\xff"[..], b"a\xfe", "a\u{FFFD}".as_bytes()] {
            std::fs::create_dir_all(class.join(std::ffi::OsStr::from_bytes(name))).unwrap();
        }
        let subs = submissions(&class, &dir.path().join("unpacked")).unwrap();
        let ids: Vec<&str> = subs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a\\xfe", "a\\xff", "a\u{FFFD}"]);
        assert!(subs.iter().all(|s| s.source.is_ok()));
        // Two archives and a folder of one id: the first keeps it, each
        // other gets an id of its own and a row naming why.
        let class = dir.path().join("twice");
        std::fs::create_dir_all(class.join("bob")).unwrap();
        std::fs::write(class.join("bob.zip"), "not a zip").unwrap();
        std::fs::write(class.join("bob.tar"), "not a tar").unwrap();
        let subs = submissions(&class, &dir.path().join("unpacked2")).unwrap();
        let ids: Vec<&str> = subs.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["bob", "bob+bob.tar", "bob+bob.zip"]);
        assert_eq!(
            subs[2].source.as_ref().unwrap_err(),
            "bob.zip: a second submission with the id \"bob\" (rename one)"
        );
    }

    #[test]
    fn archive_names() {
        assert_eq!(archive_stem("alice.zip"), Some("alice"));
        assert_eq!(archive_stem("bob.tar.gz"), Some("bob"));
        assert_eq!(archive_stem("c.tgz"), Some("c"));
        assert_eq!(archive_stem(".zip"), None);
        assert_eq!(archive_stem("notes.txt"), None);
        assert_eq!(safe_name("a b/../c"), "a_b____c");
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
