//! A submission's build: its files copied into a scratch folder (regular
//! files and folders only), given to the slot's user, built there by the
//! course's command under the build's own time limit, then given back and
//! made read-only for every case that runs it. A build that fails is a
//! `compile-error` row naming the compiler's last lines.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::millis;
use crate::executor::{Ending, Limits, Spec, signal_name};
use crate::job::Build;
use crate::outcome::{Row, Verdict};
use crate::settings::Context;

/// The time every build is told its sources date from
/// (`SOURCE_DATE_EPOCH`: 1980-01-01, zip's epoch).
pub const SOURCE_DATE_EPOCH: u64 = 315_532_800;

/// Largest submission, in bytes (copied or unpacked), and most entries of
/// an archive: a zip bomb is a compile error, not a full disk.
pub const MAX_UNPACKED: u64 = 512 << 20;

/// Which of `required` (paths inside `dir`) are not files there, said
/// for the student: `missing Checker.java`; where one file of the same
/// kind (extension) stands in the same folder and is not itself required,
/// it is named too (`missing homework1_part2.py (found homework2.py;
/// expected homework1_part2.py)`): grading stays strict, the TA decides.
pub fn missing(dir: &Path, required: &[String]) -> Option<String> {
    let said: Vec<String> = required
        .iter()
        .filter(|f| !dir.join(f).is_file())
        .map(|f| {
            let want = Path::new(f);
            let folder = dir.join(want.parent().unwrap_or(Path::new("")));
            let kind = want.extension();
            let others: Vec<String> = std::fs::read_dir(&folder)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| kind.is_some() && Path::new(n).extension() == kind)
                .filter(|n| {
                    !required
                        .iter()
                        .any(|r| Path::new(r).file_name() == Some(n.as_ref()))
                })
                .collect();
            match others.as_slice() {
                [one] => format!("{f} (found {one}; expected {f})"),
                _ => f.clone(),
            }
        })
        .collect();
    (!said.is_empty()).then(|| format!("missing {}", said.join(", ")))
}

/// Copies `build`'s submission into its folder and builds it there on
/// job slot `slot`, into `row` (accepted: it built).
pub fn grade(ctx: &Context, row: &mut Row, build: &Build, slot: usize) {
    let failed = |row: &mut Row, why: String| {
        row.verdict = Verdict::CompileError;
        row.detail = why;
    };
    let source = match &build.source {
        Ok(s) => s,
        Err(why) => return failed(row, why.clone()),
    };
    let dir = &build.dir;
    if let Err(e) = copy_tree(source, dir) {
        return failed(row, format!("cannot copy the submission: {e:#}"));
    }
    let Some(b) = &build.recipe else {
        allow_everyone(dir);
        row.verdict = Verdict::Accepted;
        row.detail = "nothing to build".into();
        return;
    };
    if let Some(why) = missing(dir, &b.require) {
        return failed(row, why);
    }
    if let Err(e) = lay_over(&b.overlay, &b.handin, dir) {
        row.verdict = Verdict::HarnessError;
        row.detail = format!("cannot lay the course's files over the copy: {e:#}");
        return;
    }
    let owner = ctx.executor.owner(slot);
    if let Some(o) = owner
        && let Err(e) = give(dir, o)
    {
        row.verdict = Verdict::HarnessError;
        row.detail = format!("cannot give the copy to uid {}: {e}", o.0);
        return;
    }
    let quote = |p: &Path| shell_words::quote(&p.to_string_lossy()).into_owned();
    let command = b
        .command
        .replace("{course}", &quote(&b.course_dir))
        .replace("{submission}", &quote(dir));
    // Reproducible builds' convention: the same files build the same
    // bytes (Python's .pyc by hash, not by the copy's mtime; gcc's
    // __DATE__), so a build again leaves its cases' rows in the result
    // store good.
    let command = format!("export SOURCE_DATE_EPOCH={SOURCE_DATE_EPOCH}; {command}");
    let spec = Spec {
        argv: vec!["sh".into(), "-c".into(), OsString::from(command)],
        files: Vec::new(),
        contents: None,
        workdir: dir.clone(),
        slot,
        stdin: None,
        relative: false,
        write_workdir: true,
        network: false,
        ipc: false,
        tail: Vec::new(),
        returns: Vec::new(),
        wired: None,
    };
    let limits = Limits {
        time: b.time_limit,
        cpu: None,
        stdout: 1 << 20,
        stderr: 1 << 20,
        ..ctx.options.limits
    };
    let run = ctx.executor.execute(&spec, &limits, ctx.cancel);
    // Back to the harness's user, read-only for everyone else: a case can
    // no longer change its program for the next one.
    if owner.is_some() {
        let me = (
            rustix::process::geteuid().as_raw(),
            rustix::process::getegid().as_raw(),
        );
        let _ = give(dir, me);
    }
    allow_everyone(dir);
    row.wall_ms = Some(millis(run.wall));
    row.cpu_ms = run.cpu.map(millis);
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
                format!("{}{}", exited(*code), tail()),
            )
        }
        (Ending::Signaled(sig), None) => (
            Verdict::CompileError,
            format!("build killed by {}: {}", signal_name(*sig), tail()),
        ),
    };
    row.verdict = verdict;
    row.detail = detail;
}

/// How a failed build's detail starts when its command exited `code`:
/// one function writes it, and what reads it (a platform's words for
/// students) takes it apart by the same.
pub fn exited(code: i32) -> String {
    format!("build exit {code}: ")
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
    let mut tail: Vec<&str> = lines[lines.len().saturating_sub(5)..].to_vec();
    // The last error the compiler named leads, where the tail has lost it
    // among gcc's source excerpts or make's own lines.
    if let Some(i) = lines.iter().rposition(|l| l.contains("error:"))
        && i + 5 < lines.len()
    {
        tail = std::iter::once(lines[i])
            .chain(lines[i + 1..].iter().copied().take(3))
            .chain(lines.last().copied())
            .collect();
    }
    if tail.is_empty() {
        "no output".into()
    } else {
        tail.join(" | ")
    }
}

/// Makes `dir` and everything below readable (and folders enterable) by
/// every user, writable by none but the owner: the candidates' uids must
/// read what the harness prepared.
pub fn allow_everyone(dir: &Path) {
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
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let mut total = 0u64;
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from)?;
        let target = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_file() {
            let meta = entry.metadata()?;
            total += meta.len();
            if total > MAX_UNPACKED {
                bail!("more than {MAX_UNPACKED} bytes");
            }
            let mode = meta.permissions().mode();
            std::fs::copy(entry.path(), &target).map_err(|e| {
                anyhow::anyhow!(
                    "{} cannot be read (mode {:03o}: {e}): hand it in readable (chmod 644)",
                    rel.display(),
                    mode & 0o777
                )
            })?;
            // A mode as handed in is incidental (an archive's, a 000):
            // readable, and executable where any x bit was.
            let mode = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))?;
        } else if !kind.is_symlink() {
            let what = if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "a device"
            };
            bail!(
                "{} is {what}, not a file: hand in the file itself",
                rel.display()
            );
        }
    }
    Ok(())
}

/// Copies the course's files (`overlays`, in order) into a submission's
/// copy `dir`: each replaces what the student has at its path (a file, or
/// a folder in its way) or an earlier overlay put there, unless the path
/// matches `handin` and the student handed that file in.
fn lay_over(overlays: &[PathBuf], handin: &globset::GlobSet, dir: &Path) -> anyhow::Result<()> {
    let walk = |overlay: &Path| {
        walkdir::WalkDir::new(overlay)
            .follow_links(false)
            .min_depth(1)
    };
    // What the student handed in, looked at before any overlay is laid.
    let mut kept = std::collections::HashSet::new();
    for overlay in overlays {
        for entry in walk(overlay) {
            let rel = entry?.path().strip_prefix(overlay)?.to_owned();
            let theirs = std::fs::symlink_metadata(dir.join(&rel));
            if handin.is_match(&rel) && theirs.is_ok_and(|m| m.is_file()) {
                kept.insert(rel);
            }
        }
    }
    for overlay in overlays {
        lay_one(overlay, &kept, dir)?;
    }
    Ok(())
}

/// Lays one overlay folder over `dir`, but for the student's `kept` files.
fn lay_one(
    overlay: &Path,
    kept: &std::collections::HashSet<PathBuf>,
    dir: &Path,
) -> anyhow::Result<()> {
    for entry in walkdir::WalkDir::new(overlay)
        .follow_links(false)
        .min_depth(1)
    {
        let entry = entry?;
        let rel = entry.path().strip_prefix(overlay)?;
        let target = dir.join(rel);
        let theirs = std::fs::symlink_metadata(&target).ok();
        if entry.file_type().is_dir() {
            if theirs.as_ref().is_some_and(|m| !m.is_dir()) {
                std::fs::remove_file(&target)?;
            }
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            match theirs {
                Some(m) if m.is_file() && kept.contains(rel) => continue,
                Some(m) if m.is_dir() => std::fs::remove_dir_all(&target)?,
                Some(_) => std::fs::remove_file(&target)?,
                None => {}
            }
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_course_overlay_wins_but_for_the_handin() {
        let course = tempfile::tempdir().unwrap();
        let copy = tempfile::tempdir().unwrap();
        let c = course.path();
        std::fs::create_dir_all(c.join("lib")).unwrap();
        for (f, text) in [
            ("Makefile", "course make"),
            ("board-ht.h", "course header"),
            ("lib/bitvector.h", "course lib"),
            ("lib/queue.h", "course queue"),
        ] {
            std::fs::write(c.join(f), text).unwrap();
        }
        let s = copy.path();
        std::fs::create_dir_all(s.join("lib/queue.h")).unwrap();
        for (f, text) in [
            ("Makefile", "student make"),
            ("board-ht.h", "student header"),
            ("lib/bitvector.h", "student lib"),
            ("solver.c", "student code"),
        ] {
            std::fs::write(s.join(f), text).unwrap();
        }
        let handin = crate::course::handin_globs(&["*.c".into(), "board-ht.h".into()]).unwrap();
        lay_over(&[c.to_owned()], &handin, s).unwrap();
        let read = |f: &str| std::fs::read_to_string(s.join(f)).unwrap();
        assert_eq!(
            read("Makefile"),
            "course make",
            "not handed in: the course's"
        );
        assert_eq!(
            read("board-ht.h"),
            "student header",
            "handed in: the student's"
        );
        assert_eq!(
            read("lib/bitvector.h"),
            "course lib",
            "* stays in its folder"
        );
        assert_eq!(
            read("lib/queue.h"),
            "course queue",
            "a folder in the way goes"
        );
        assert_eq!(read("solver.c"), "student code");
        // Where the student has no file of a handin path, the course's
        // default stands.
        std::fs::remove_file(s.join("board-ht.h")).unwrap();
        lay_over(&[c.to_owned()], &handin, s).unwrap();
        assert_eq!(read("board-ht.h"), "course header");
        // A second overlay (a handout year over the course's common
        // files) replaces the first's files, the handin's default too,
        // but never a file the student handed in.
        let year = tempfile::tempdir().unwrap();
        std::fs::write(year.path().join("board-ht.h"), "year header").unwrap();
        std::fs::write(year.path().join("Makefile"), "year make").unwrap();
        std::fs::remove_file(s.join("board-ht.h")).unwrap();
        let both = [c.to_owned(), year.path().to_owned()];
        lay_over(&both, &handin, s).unwrap();
        assert_eq!(read("board-ht.h"), "year header");
        assert_eq!(read("Makefile"), "year make");
        assert_eq!(read("lib/bitvector.h"), "course lib");
        std::fs::write(s.join("board-ht.h"), "student header").unwrap();
        lay_over(&both, &handin, s).unwrap();
        assert_eq!(read("board-ht.h"), "student header");
    }

    #[test]
    fn missing_files_are_named_with_a_look_alike() {
        let d = tempfile::tempdir().unwrap();
        for f in ["homework2.py", "notes.txt", "Solver.java", "Board.java"] {
            std::fs::write(d.path().join(f), "").unwrap();
        }
        let req = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(missing(d.path(), &req(&["homework2.py"])), None);
        assert_eq!(
            missing(d.path(), &req(&["homework1_part2.py"])).as_deref(),
            Some("missing homework1_part2.py (found homework2.py; expected homework1_part2.py)")
        );
        // Two Java files of the same kind: nothing to point at.
        assert_eq!(
            missing(d.path(), &req(&["Checker.java"])).as_deref(),
            Some("missing Checker.java")
        );
        // A required file is no look-alike of another required one.
        assert_eq!(
            missing(
                d.path(),
                &req(&["Solver.java", "Checker.java", "Board.java"])
            )
            .as_deref(),
            Some("missing Checker.java")
        );
        assert_eq!(
            missing(d.path(), &req(&["lib/x.c", "Makefile"])).as_deref(),
            Some("missing lib/x.c, Makefile")
        );
    }

    #[test]
    fn compiler_tails() {
        let err = b"a.c:1: warning\n\nx\ny\nz\nw\na.c:9: error: oops\n";
        assert_eq!(
            last_lines(err, b"out"),
            "x | y | z | w | a.c:9: error: oops"
        );
        assert_eq!(last_lines(b"  \n", b"only stdout\n"), "only stdout");
        let gcc = "a.c:70:17: error: expected ';' before '}' token\n   70 |  return 0\n      |  ^\n      |  ;\n   71 | }\n      | ~\nmake: *** [Makefile:26: solver] Error 1\n";
        assert_eq!(
            last_lines(gcc.as_bytes(), b""),
            "a.c:70:17: error: expected ';' before '}' token |    70 |  return 0 |       |  ^ |       |  ; | make: *** [Makefile:26: solver] Error 1"
        );
        assert_eq!(last_lines(b"", b""), "no output");
    }
}
