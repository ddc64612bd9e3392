//! What a case sees of the file system. The places every user may write
//! (`/tmp`, `/var/tmp`, `/dev/shm`, `/run/lock`), the folder that holds
//! the runs' scratch folders and a class's builds, and the folders the run
//! hides (its suites, a class's submissions, a contest's entries) are each
//! replaced by a fresh, size-capped tmpfs of the case's own; what the case
//! needs is bound back in at its own place: its scratch folder, its working
//! folder, and every existing path its command line or `--env` values
//! name. What a case writes there dies with it, no other case sees it, and
//! it sees no other case's or student's files.
//!
//! Everything else is read-only, so nothing a case writes outside those
//! places and what its command line names (a world-writable folder
//! elsewhere) outlives it either.
//!
//! What the run itself writes (its scorecard, summary, exports, results)
//! is out of sight too: the folder each is in is replaced as a root is,
//! unless the case needs that folder in sight (its working folder, or the
//! folder of a file its command line names: a student's own solver beside
//! its scorecard); then the file alone is masked where the sandbox can
//! (bubblewrap takes the folder as it is when the case starts, less the
//! outputs; Landlock leaves them out of its rules), and where the case
//! runs as another user, its mode (0600) keeps it closed.
//!
//! Two ways to build it: as root, the job slot's keeper makes a mount
//! namespace with the view ([`View::enter_kept`]) and the slot's cases
//! enter it one after another, each with an IPC namespace of its own, the
//! private folders emptied between them ([`View::clear`]); under
//! bubblewrap, its arguments say the same (`bwrap`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::executor::ExecError;

/// The places every user may write, on any Linux machine.
pub const SHARED: [&str; 4] = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"];

/// One case's view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct View {
    /// In order (a folder before anything inside it): a fresh tmpfs, or a
    /// path bound back at its place.
    pub steps: Vec<Step>,
    /// The bytes each fresh tmpfs may hold.
    pub size: u64,
    /// Files of the run's (its outputs) in folders the case needs in
    /// sight: masked where the sandbox can.
    pub masks: Vec<PathBuf>,
}

/// One step of building a view.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// A fresh tmpfs here (mode 1777).
    Private(PathBuf),
    /// This path as it is outside, here; writable (under bubblewrap, where
    /// the rest is read-only) or not.
    Keep(PathBuf, bool),
}

impl Step {
    /// Where the step is.
    pub(super) fn path(&self) -> &Path {
        match self {
            Step::Private(p) | Step::Keep(p, _) => p,
        }
    }
}

/// The folders to replace, from `candidates`: those that exist, as real
/// paths, once each.
pub fn roots<P: AsRef<Path>>(candidates: impl IntoIterator<Item = P>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for c in candidates {
        if let Ok(p) = c.as_ref().canonicalize()
            && p.is_dir()
            && p != Path::new("/")
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
    out
}

/// The programs in the folder of `exe` (the harness), when a root would
/// hide that folder: the folder becomes a root of its own (so that each
/// program is kept alone, not the folder), and the programs are returned
/// for every view to keep. Else nothing.
pub fn programs_beside(exe: &Path, roots: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let Some(dir) = exe.parent().and_then(|d| d.canonicalize().ok()) else {
        return Vec::new();
    };
    if !roots.iter().any(|r| dir.starts_with(r)) {
        return Vec::new();
    }
    if !roots.contains(&dir) {
        roots.push(dir.clone());
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

impl View {
    /// The view that replaces `roots` and keeps `needs` (path, writable).
    /// A needed folder is kept whole; a needed file, its folder (its
    /// neighbours: a script's modules, a class path), unless that folder is
    /// a root. Only what a root would hide is kept, and what must be
    /// writable. A root needed whole and read-only (a working folder that
    /// is `/tmp`) is replaced all the same: what the command line names
    /// in it comes back, nothing else.
    ///
    /// Each of `outputs` (files the run writes, there or not yet) hides
    /// its folder as a root would, unless a case needs that folder in
    /// sight (then the file is one of the view's `masks`).
    pub fn plan(
        roots: &[PathBuf],
        outputs: &[PathBuf],
        needs: &[(PathBuf, bool)],
        size: u64,
    ) -> View {
        let Outputs {
            roots,
            masks,
            path_dirs,
        } = Outputs::hidden(roots, outputs, needs);
        let roots = &roots[..];
        let needs: Vec<(PathBuf, bool)> = needs.iter().cloned().chain(path_dirs).collect();
        let needs = &needs[..];
        // Roots a case needs to be there (a folder its command line goes
        // through with `..`): made, empty, even inside another root.
        let needed: Vec<&PathBuf> = roots
            .iter()
            .filter(|r| {
                needs
                    .iter()
                    .any(|(p, _)| p.canonicalize().is_ok_and(|p| &p == *r))
            })
            .collect();
        let mut keep: Vec<(PathBuf, bool)> = Vec::new();
        for (path, writable) in needs {
            let Ok(real) = path.canonicalize() else {
                continue;
            };
            let real = if real.is_dir() {
                real
            } else {
                match real.parent() {
                    Some(dir) if !roots.iter().any(|r| r == dir) => dir.to_owned(),
                    _ => real,
                }
            };
            // In sight anyway; or a root itself (a candidate in /tmp runs
            // in /tmp): replaced all the same, with only what the command
            // line names in it brought back, never the machine's /tmp.
            if !writable && (roots.contains(&real) || !roots.iter().any(|r| real.starts_with(r))) {
                continue;
            }
            match keep.iter_mut().find(|(k, _)| *k == real) {
                Some(k) => k.1 |= writable,
                None => keep.push((real, *writable)),
            }
        }
        // A kept path inside another kept one is there already, unless it
        // must be writable where its holder is not, or a root between
        // them replaces what holds it.
        let inner = |(p, w): &(PathBuf, bool)| {
            keep.iter().any(|(q, qw)| {
                q != p
                    && p.starts_with(q)
                    && (*qw || !*w)
                    && !roots
                        .iter()
                        .any(|r| r != q && r != p && r.starts_with(q) && p.starts_with(r))
            })
        };
        let keep: Vec<(PathBuf, bool)> = keep.iter().filter(|k| !inner(k)).cloned().collect();
        let private = roots
            .iter()
            .filter(|r| {
                // Kept as it is; or hidden by an outer root already, with
                // nothing kept between them.
                let kept = keep.iter().any(|(k, _)| k == *r);
                let hidden = roots.iter().any(|o| {
                    o != *r
                        && r.starts_with(o)
                        && !keep
                            .iter()
                            .any(|(k, _)| k != o && k.starts_with(o) && r.starts_with(k))
                });
                !kept && (!hidden || needed.contains(r))
            })
            .cloned()
            .collect::<Vec<_>>();
        let mut steps: Vec<Step> = private
            .into_iter()
            .map(Step::Private)
            .chain(keep.into_iter().map(|(p, w)| Step::Keep(p, w)))
            .collect();
        // Outer before inner (a stable sort: a root before what it holds).
        steps.sort_by_key(|s| s.path().components().count());
        View { steps, size, masks }
    }

    /// The view as words (for the slot's keeper): its size, then each
    /// step as a word of its kind and its path.
    pub fn words(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![self.size.to_string().into()];
        for step in &self.steps {
            let (kind, path) = match step {
                Step::Private(p) => ("private", p),
                Step::Keep(p, false) => ("keep", p),
                Step::Keep(p, true) => ("keep-rw", p),
            };
            out.push(kind.into());
            out.push(path.clone().into_os_string());
        }
        out
    }

    /// The view [`View::words`] wrote.
    pub fn from_words(words: impl IntoIterator<Item = OsString>) -> Result<View, ExecError> {
        let mut words = words.into_iter();
        let size = words
            .next()
            .and_then(|w| w.to_str()?.parse().ok())
            .ok_or(ExecError::BadView("a view without its size"))?;
        let mut steps = Vec::new();
        while let Some(kind) = words.next() {
            let path = PathBuf::from(
                words
                    .next()
                    .ok_or(ExecError::BadView("a view step without its path"))?,
            );
            steps.push(match kind.to_str() {
                Some("private") => Step::Private(path),
                Some("keep") => Step::Keep(path, false),
                Some("keep-rw") => Step::Keep(path, true),
                _ => return Err(ExecError::BadView("an unknown view step")),
            });
        }
        Ok(View {
            steps,
            size,
            masks: Vec::new(),
        })
    }
}

/// How a view keeps the run's outputs out of sight.
struct Outputs {
    /// The roots, with the folder of each output no case needs in sight.
    roots: Vec<PathBuf>,
    /// The outputs in folders it does: masked.
    masks: Vec<PathBuf>,
    /// The folders of the harness's `PATH` inside a folder so hidden: kept
    /// (a candidate found there is still found).
    path_dirs: Vec<(PathBuf, bool)>,
}

impl Outputs {
    /// How `outputs` are kept from a case that `needs` these paths, beside
    /// `roots`.
    fn hidden(roots: &[PathBuf], outputs: &[PathBuf], needs: &[(PathBuf, bool)]) -> Self {
        // The folders the case needs as they are: each it needs, and each
        // needed file's own.
        let near: Vec<PathBuf> = needs
            .iter()
            .filter_map(|(p, _)| {
                let real = p.canonicalize().ok()?;
                match real.is_dir() {
                    true => Some(real),
                    false => real.parent().map(Path::to_owned),
                }
            })
            .collect();
        let mut roots = roots.to_vec();
        let roots_before = roots.len();
        let mut masks = Vec::new();
        for out in outputs {
            let (Some(dir), Some(name)) = (out.parent(), out.file_name()) else {
                continue;
            };
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            // (No folder yet: no file in it either.)
            let Ok(dir) = dir.canonicalize() else {
                continue;
            };
            if near.contains(&dir) || dir == Path::new("/") {
                if !masks.contains(&dir.join(name)) {
                    masks.push(dir.join(name));
                }
            } else if !roots.contains(&dir) {
                roots.push(dir);
            }
        }
        let hidden = &roots[roots_before..];
        let path_dirs = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|d| d.canonicalize().ok())
            .filter(|d| hidden.iter().any(|h| d.starts_with(h)))
            .map(|d| (d, false))
            .collect();
        Outputs {
            roots,
            masks,
            path_dirs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plans over a real tree (paths are resolved): `dirs` made under a
    /// temporary folder, named from it.
    fn tree(dirs: &[&str], files: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in dirs {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in files {
            std::fs::write(root.join(f), "x").unwrap();
        }
        (t, root)
    }

    #[test]
    fn roots_are_replaced_and_needs_kept_outer_first() {
        let (_t, r) = tree(
            &[
                "tmp/fixture/suite",
                "tmp/other",
                "shm/run/case-1",
                "home/me",
            ],
            &["tmp/fixture/pids", "tmp/solver"],
        );
        let roots = roots([
            r.join("tmp"),
            r.join("shm"),
            r.join("tmp/fixture/suite"),
            r.join("missing"),
            r.join("tmp"),
        ]);
        assert_eq!(
            roots,
            [r.join("tmp"), r.join("shm"), r.join("tmp/fixture/suite")],
            "existing folders, once each"
        );
        let view = View::plan(
            &roots,
            &[],
            &[
                (r.join("shm/run/case-1"), true),
                (r.join("home/me"), false),
                (r.join("tmp/fixture/pids"), false),
                (r.join("tmp/solver"), false),
                (r.join("tmp/nothing-here"), false),
            ],
            1 << 20,
        );
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("tmp")),
                Step::Private(r.join("shm")),
                // A file's folder, unless that is a root: then the file.
                Step::Keep(r.join("tmp/fixture"), false),
                Step::Keep(r.join("tmp/solver"), false),
                // A root inside a kept folder is replaced after it.
                Step::Private(r.join("tmp/fixture/suite")),
                Step::Keep(r.join("shm/run/case-1"), true),
            ],
            "home/me is in sight anyway; what does not exist is skipped"
        );
        assert_eq!(
            View::from_words(view.words()).unwrap(),
            view,
            "as the keeper reads it"
        );
        assert!(View::from_words(["1".into(), "odd".into(), "/x".into()]).is_err());
    }

    #[test]
    fn a_kept_root_stays_and_nested_roots_go() {
        let (_t, r) = tree(&["tmp/a/b", "tmp/c", "work"], &[]);
        let roots = roots([r.join("tmp"), r.join("tmp/a/b"), r.join("tmp/c")]);
        // The working folder is a root itself: replaced all the same (a
        // root inside another, with nothing kept between, is made empty
        // where the case needs it to be there); a writable folder is kept
        // even in sight (the system is read-only).
        let view = View::plan(
            &roots,
            &[],
            &[(r.join("tmp/c"), false), (r.join("work"), true)],
            1,
        );
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("tmp")),
                Step::Keep(r.join("work"), true),
                Step::Private(r.join("tmp/c")),
            ],
        );
        // The same folder needed twice: writable wins; a kept folder
        // inside another kept one is not kept again.
        let view = View::plan(
            &roots,
            &[],
            &[
                (r.join("tmp/a"), false),
                (r.join("tmp/a"), true),
                (r.join("tmp/a/b"), true),
            ],
            1,
        );
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("tmp")),
                Step::Keep(r.join("tmp/a"), true),
                Step::Private(r.join("tmp/a/b")),
            ]
        );
    }

    /// The run's outputs: a folder no case needs is replaced whole (with
    /// what a case needs in it brought back); in a folder a case needs in
    /// sight (its working folder, a named file's), the output alone is
    /// masked; in a hidden place already, nothing more.
    #[test]
    fn the_runs_outputs_are_out_of_sight() {
        let (_t, r) = tree(
            &["course/adapters", "course/out", "student", "tmp"],
            &[
                "course/adapters/a.py",
                "student/solver.py",
                "student/lo.csv",
            ],
        );
        let roots = roots([r.join("tmp")]);
        let outputs = [
            r.join("course/out/rows.csv"),
            r.join("course/summary.csv"),
            r.join("course/out/../out/rows.csv"),
            r.join("student/lo.csv"),
            r.join("tmp/x.csv"),
            r.join("missing/x.csv"),
        ];
        let needs = [
            (r.join("course/adapters/a.py"), false),
            (r.join("student/solver.py"), false),
            (r.join("tmp"), true),
        ];
        let view = View::plan(&roots, &outputs, &needs, 1);
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("course")),
                Step::Keep(r.join("tmp"), true),
                Step::Keep(r.join("course/adapters"), false),
            ],
            "course/out is inside course, hidden whole; the adapters come back"
        );
        assert_eq!(
            view.masks,
            [r.join("student/lo.csv"), r.join("tmp/x.csv")],
            "beside the student's own solver, or in a folder kept for the case: masked alone"
        );
    }

    #[test]
    fn programs_beside_a_hidden_harness_are_kept_one_by_one() {
        use std::os::unix::fs::PermissionsExt;
        let (_t, r) = tree(&["tmp/repo/target/debug/deps"], &[]);
        let bin = r.join("tmp/repo/target/debug");
        for (f, mode) in [
            ("harness", 0o755),
            ("sbp-solver", 0o755),
            ("cache.bin", 0o644),
        ] {
            std::fs::write(bin.join(f), "x").unwrap();
            std::fs::set_permissions(bin.join(f), std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let mut roots = vec![r.join("tmp")];
        let own = programs_beside(&bin.join("harness"), &mut roots);
        assert_eq!(own, [bin.join("harness"), bin.join("sbp-solver")]);
        assert_eq!(roots, [r.join("tmp"), bin.clone()]);
        let needs: Vec<(PathBuf, bool)> = own.iter().map(|p| (p.clone(), false)).collect();
        let view = View::plan(&roots, &[], &needs, 1);
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("tmp")),
                Step::Keep(bin.join("harness"), false),
                Step::Keep(bin.join("sbp-solver"), false),
            ],
            "each program alone, not the folder with the build's caches"
        );
        // The working folder holds the harness's folder (a checkout in
        // /tmp, run from its root): that folder is replaced all the same
        // and each program kept in it.
        let repo = r.join("tmp/repo");
        let mut needs = needs;
        needs.insert(0, (repo.clone(), false));
        let view = View::plan(&roots, &[], &needs, 1);
        assert_eq!(
            view.steps,
            [
                Step::Private(r.join("tmp")),
                Step::Keep(repo, false),
                Step::Private(bin.clone()),
                Step::Keep(bin.join("harness"), false),
                Step::Keep(bin.join("sbp-solver"), false),
            ]
        );
        // Not hidden: nothing to do.
        let mut roots = vec![r.join("elsewhere")];
        assert!(programs_beside(&bin.join("harness"), &mut roots).is_empty());
        assert_eq!(roots, [r.join("elsewhere")]);
    }
}
