//! What a row's key digests: the candidate, the case or probe, a
//! build's inputs (see the module's introduction).

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Key, MAX_BYTES, MAX_FILES, Store};
use crate::job::{Candidate, Case, Job, Task};

impl Store {
    /// The digest of everything `job`'s verdict depends on, where that can
    /// be had: a puzzle job whose case is loaded, or a probe, whose
    /// candidate's files can be read.
    pub(super) fn key(&self, job: &Job, run: &str) -> Option<Key> {
        let mut h = begun(run);
        let mut put = |bytes: &[u8]| put_into(&mut h, bytes);
        put(job.family.name().as_bytes());
        // (A course's part names its suites: each part's judge apart.)
        put(job.suite.as_bytes());
        match &job.task {
            Task::Puzzle { candidate, case } => {
                self.candidate(candidate, job.family.name(), &mut put)?;
                case_bytes(case, &mut put)?;
            }
            Task::Probe { candidate, probe } => {
                put(b"probe");
                self.candidate(candidate, job.family.name(), &mut put)?;
                self.probe(probe, &mut put)?;
            }
            Task::Build(_) => return None,
        }
        Some(h.finalize().into())
    }

    /// The digest of everything a build's row and copy depend on, where it
    /// can be had: the submission's files, the course's recipe as written,
    /// the files it lays over them and those its command names in the
    /// course's folder, and the command's program (`make`, `javac`) as
    /// found on PATH. (What that program runs in turn is not in it.)
    pub(super) fn build_key(&self, job: &Job, run: &str) -> Option<Key> {
        let Task::Build(build) = &job.task else {
            return None;
        };
        let mut h = begun(run);
        let mut put = |bytes: &[u8]| put_into(&mut h, bytes);
        put(b"build");
        put(job.family.name().as_bytes());
        put(&tree_digest(build.source.as_ref().ok()?, &[])?);
        let Some(recipe) = build.recipe.as_deref() else {
            put(b"no build");
            return Some(h.finalize().into());
        };
        put(recipe.written.as_bytes());
        for layer in &recipe.overlay {
            put(&self.digest(layer)?);
        }
        let words = shell_words::split(&recipe.command).ok()?;
        let course = recipe.course_dir.to_string_lossy();
        for word in words.iter().filter(|w| w.contains("{course}")) {
            let path = std::path::PathBuf::from(word.replace("{course}", &course));
            if path.exists() {
                put(&self.digest(&path)?);
            }
        }
        if let Some(program) = words.first().filter(|w| !w.contains('/')) {
            let path = std::env::var_os("PATH");
            let found = crate::executor::find_program(program.as_ref(), path.as_deref());
            if let Some(p) = found.first() {
                put(&self.digest(p)?);
            }
        }
        Some(h.finalize().into())
    }

    /// Puts what of `probe` its verdict depends on: its arguments (those in
    /// its folder by their place there), the bytes of its folder (its
    /// puzzle files and stdin), the statuses and output it expects.
    fn probe(&self, probe: &crate::job::Probe, put: &mut dyn FnMut(&[u8])) -> Option<()> {
        let folder = probe.stdin.parent()?;
        for arg in &probe.args {
            match Path::new(arg).strip_prefix(folder) {
                Ok(rest) => put(format!("<probe>/{}", rest.display()).as_bytes()),
                Err(_) => put(arg.as_encoded_bytes()),
            }
        }
        put(&tree_digest(folder, &[])?);
        put(format!("{:?} {:?}", probe.expect, probe.output).as_bytes());
        Some(())
    }

    /// Puts what of `candidate` its verdicts depend on.
    fn candidate(
        &self,
        candidate: &Candidate,
        family: &str,
        put: &mut dyn FnMut(&[u8]),
    ) -> Option<()> {
        let workdir = candidate.workdir();
        put(&[
            u8::from(candidate.relative()),
            u8::from(candidate.network()),
        ]);
        // (Only where asked: every key made before it stays as it was.)
        if candidate.ipc() {
            put(b"ipc");
        }
        // Its working folder whole: a class's built copy, or the folder a
        // command runs in (less the run's own outputs there), whose files a
        // program may read unnamed (a script's modules).
        let copy = matches!(candidate, Candidate::Command { copy: true, .. });
        if let Candidate::Command { .. } = candidate {
            put(&self.digest(workdir)?);
        }
        for (i, word) in candidate.argv(family).iter().enumerate() {
            let path = workdir.join(word);
            let inside = word.strip_prefix(&*workdir.to_string_lossy());
            match inside {
                Some(rest) => put(format!("<workdir>{rest}").as_bytes()),
                None => put(word.as_bytes()),
            }
            // (A copy's own files are in its digest: the key is the same
            // whether the copy is there or only its kept digest.)
            let relative = !word.starts_with('/') && (i > 0 || word.contains('/'));
            if copy && (inside.is_some() || relative) {
                continue;
            }
            if path.is_file() || (i > 0 && path.is_dir() && path != workdir) {
                put(&self.digest(&path)?);
            } else if i == 0 && !word.contains('/') {
                // A program found on PATH (as the case's process finds
                // it): its bytes.
                let path = std::env::var_os("PATH");
                let found = crate::executor::find_program(word.as_ref(), path.as_deref());
                if let Some(p) = found.first() {
                    put(&self.digest(p)?);
                }
            }
        }
        Some(())
    }

    /// The digest of a file's bytes, or of a folder's files (names, modes
    /// and bytes), once a run; `None` where it cannot be read or is too
    /// large.
    pub(super) fn digest(&self, path: &Path) -> Option<[u8; 32]> {
        let mut memo = self.digests.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = memo.get(path) {
            return *d;
        }
        let d = tree_digest(path, &self.skip);
        memo.insert(path.to_owned(), d);
        d
    }
}

/// A key's digest begun with what every key holds: the store's format,
/// the harness's version, the run's options and isolation (`run`).
fn begun(run: &str) -> Sha256 {
    let mut h = Sha256::new();
    let format = format!("puzzlegrade-store {}", super::db::VERSION);
    for part in [&format, env!("CARGO_PKG_VERSION"), run] {
        put_into(&mut h, part.as_bytes());
    }
    h
}

/// `bytes` into `h`, after their length (no two sequences run together).
fn put_into(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// Puts the bytes of `case`'s given and judged files; `None` where it is
/// not loaded (or cannot be).
fn case_bytes(case: &Case, put: &mut dyn FnMut(&[u8])) -> Option<()> {
    let prepared = case.loaded.get()?.as_ref().ok()?;
    for bytes in prepared.given.iter() {
        put(bytes);
    }
    if case.given.is_some() {
        for file in case.files.as_ref().ok()? {
            put(&std::fs::read(file).ok()?);
        }
    }
    // (A package's own limits: a verdict depends on them.)
    if let Some(t) = case.own.time {
        put(format!("time limit {t:?}").as_bytes());
    }
    if let (Some(m), Some(o)) = (case.own.memory, case.own.output) {
        put(format!("memory {m}, output {o}").as_bytes());
    }
    // (A package's own validator judges: its files and flags.)
    if let Some(v) = &case.validator {
        put(&tree_digest(&v.program.path, &[])?);
        put(v.flags.join(" ").as_bytes());
        put(case.validator_flags.join(" ").as_bytes());
    }
    Some(())
}

/// A file's bytes, or a folder's entries (relative names and link
/// targets as bytes, kinds, executable bits, bytes), digested, less the
/// paths in `skip` and what is below them; `None` where it cannot be read
/// or is larger than [`MAX_FILES`] or [`MAX_BYTES`] (counted before a
/// byte is read).
pub(super) fn tree_digest(path: &Path, skip: &[std::path::PathBuf]) -> Option<[u8; 32]> {
    use std::os::unix::fs::PermissionsExt;
    let walk = || {
        walkdir::WalkDir::new(path)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| !skip.iter().any(|s| s == e.path()))
    };
    let (mut files, mut bytes) = (0usize, 0u64);
    for entry in walk() {
        files += 1;
        bytes += entry.ok()?.metadata().ok()?.len();
        if files > MAX_FILES || bytes > MAX_BYTES {
            return None;
        }
    }
    let mut h = Sha256::new();
    let mut put = |bytes: &[u8]| put_into(&mut h, bytes);
    for entry in walk() {
        let entry = entry.ok()?;
        let meta = entry.metadata().ok()?;
        let name = entry.path().strip_prefix(path).ok()?;
        put(name.as_os_str().as_encoded_bytes());
        if entry.file_type().is_symlink() {
            put(b"l");
            put(std::fs::read_link(entry.path())
                .ok()?
                .as_os_str()
                .as_encoded_bytes());
        } else if entry.file_type().is_file() {
            let program = meta.permissions().mode() & 0o111 != 0;
            put(if program { b"x" } else { b"f" });
            put(&std::fs::read(entry.path()).ok()?);
        } else {
            put(b"d");
        }
    }
    Some(h.finalize().into())
}
