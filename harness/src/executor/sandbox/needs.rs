//! What a case needs to see, from its command line: the paths its
//! arguments and `--env` values name (a script, its modules, a class path,
//! the folders a `..` passes through), its scratch folder and its working
//! folder; [`super::view::View::plan`] keeps them in its view.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The paths `args` name that exist, relative ones from `workdir`: an
/// argument may be a colon list (a class path), `--option=VALUE`, or a
/// shell command (`sh -c '...'`, split as the shell would).
pub fn named_paths(args: &[OsString], workdir: &Path) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut words: Vec<Vec<u8>> = Vec::new();
    for arg in args {
        words.push(arg.as_bytes().to_vec());
        if let Some(text) = arg.to_str()
            && text.contains(char::is_whitespace)
            && let Ok(split) = shell_words::split(text)
        {
            words.extend(split.into_iter().map(String::into_bytes));
        }
    }
    let mut out = Vec::new();
    for word in &words {
        let value = match word.iter().position(|&b| b == b'=') {
            Some(at) if word.starts_with(b"-") => &word[at + 1..],
            _ => word,
        };
        for part in value.split(|&b| b == b':') {
            if part.is_empty() || part.len() > 4096 {
                continue;
            }
            let path = workdir.join(std::ffi::OsStr::from_bytes(part));
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            // `a/courses/../adapters/x.py` goes through `a/courses`: it
            // must be there too for the path to resolve in the view.
            let mut lexical = PathBuf::new();
            for c in path.components() {
                if c == std::path::Component::ParentDir
                    && lexical.is_dir()
                    && !out.contains(&lexical)
                {
                    out.push(lexical.clone());
                }
                lexical.push(c);
            }
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// What one case needs to see: its scratch folder (writable), its working
/// folder (writable for a build), and what its command line (`argv`) and
/// the `env` values name.
pub fn needs(
    scratch: &Path,
    workdir: &Path,
    write_workdir: bool,
    argv: &[OsString],
    env: &[(OsString, OsString)],
) -> Vec<(PathBuf, bool)> {
    let values: Vec<OsString> = env.iter().map(|(_, v)| v.clone()).collect();
    let mut out = vec![
        (scratch.to_owned(), true),
        (workdir.to_owned(), write_workdir),
    ];
    out.extend(
        named_paths(argv, workdir)
            .into_iter()
            .chain(named_paths(&values, workdir))
            .map(|p| (p, false)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_a_command_line_names() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for d in ["lib", "cp1", "cp2"] {
            std::fs::create_dir(r.join(d)).unwrap();
        }
        for f in ["solver.py", "course.mk"] {
            std::fs::write(r.join(f), "x").unwrap();
        }
        let args: Vec<OsString> = [
            "python3",
            "solver.py",
            "cp1/../lib",
            "--data=lib",
            "-cp",
            "cp1:cp2:nope",
            "make -f 'course.mk' all",
            "plain-word",
        ]
        .map(OsString::from)
        .to_vec();
        assert_eq!(
            named_paths(&args, &r),
            [
                r.join("solver.py"),
                // Through cp1, which must be there for it to resolve.
                r.join("cp1"),
                r.join("cp1/../lib"),
                r.join("lib"),
                r.join("cp2"),
                r.join("course.mk"),
            ]
        );
        let needs = needs(
            Path::new("/scratch"),
            &r,
            false,
            &args[..2],
            &[("CLASSPATH".into(), "cp1".into())],
        );
        assert_eq!(
            needs,
            [
                (PathBuf::from("/scratch"), true),
                (r.clone(), false),
                (r.join("solver.py"), false),
                (r.join("cp1"), false),
            ]
        );
    }
}
