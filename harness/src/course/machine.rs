//! What a course needs of this machine: the programs its build and parts
//! run, and the packages it declares.

use super::Course;

/// A shell's own words a build line may start with (none a program on
/// PATH to look for).
const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "if", "for", "while", "case", "exec", "eval", "source", ".", "test",
    "true", "false", "echo", "printf", "umask", "ulimit", "unset", "command", "time",
];

impl Course {
    /// What the course's build and parts run that this machine lacks (a
    /// program not on `path`, a course file not there), said with what to
    /// install: grading without it would make every student's rows our
    /// failure. A submission's own programs (`{submission}/...`) are the
    /// student's, not checked.
    pub fn lacks(&self, path: Option<&std::ffi::OsStr>) -> Option<String> {
        let build = self.file.build.iter().map(|b| ("the build", &b.command));
        let parts = self
            .file
            .parts
            .iter()
            .map(|p| (p.name.as_str(), &p.command));
        let course = self.dir().to_string_lossy();
        // Each program once, with every part that runs it.
        let mut lacked: Vec<(String, Vec<&str>)> = Vec::new();
        for (who, command) in build.chain(parts) {
            // The program first on the line; a build's shell line may start
            // with a builtin or an assignment, which PATH does not hold.
            let Some(first) = shell_words::split(command)
                .ok()
                .and_then(|w| w.into_iter().next())
                .filter(|w| !w.contains("{submission}"))
                .filter(|w| {
                    w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._/+-{}".contains(c))
                })
                .filter(|w| !SHELL_WORDS.contains(&w.as_str()))
            else {
                continue;
            };
            let program = first.replace("{course}", &course);
            if which(&program, path).is_some() {
                continue;
            }
            match lacked.iter_mut().find(|(p, _)| *p == program) {
                Some((_, whom)) => whom.push(who),
                None => lacked.push((program, vec![who])),
            }
        }
        let missing: Vec<String> = lacked
            .iter()
            .map(|(program, whom)| format!("{program} (run by {})", whom.join(", ")))
            .collect();
        if missing.is_empty() {
            return None;
        }
        let install = match self.file.packages.as_slice() {
            [] => String::new(),
            packages => format!(
                "; the course needs the packages {} (apt-get install {0})",
                packages.join(" ")
            ),
        };
        Some(format!(
            "course {}: this machine has no {}{install}",
            self.file.name,
            missing.join(", ")
        ))
    }

    /// The course's declared `packages` this machine does not have, said
    /// as a warning: those dpkg (found on `path`) does not have installed
    /// and that are no program on `path` either. Not a stop: a package is
    /// a proxy (PrairieLearn's Java image has openjdk-18 and JUnit jars of
    /// its own where the CS61BL course declares openjdk-17 and junit4,
    /// whose build falls back to compiling without JUnit); what the course
    /// runs is checked by [`Course::lacks`].
    pub fn uninstalled(&self, path: Option<&std::ffi::OsStr>) -> Option<String> {
        let missing = uninstalled(&self.file.packages, path);
        (!missing.is_empty()).then(|| {
            let (name, list) = (&self.file.name, missing.join(" "));
            format!(
                "course {name} declares packages this machine does not have installed: {list} \
                 (apt-get install {list}); grading goes on, as the programs it runs are here"
            )
        })
    }
}

/// The `packages` that dpkg (found on `path`) does not have installed and
/// that are no program on `path` either (a python3 built from source
/// serves as well as Debian's). Empty where there is no dpkg to ask: a
/// machine that is not Debian's says nothing of its packages.
fn uninstalled(packages: &[String], path: Option<&std::ffi::OsStr>) -> Vec<String> {
    let Some(dpkg) = which("dpkg-query", path).filter(|_| !packages.is_empty()) else {
        return Vec::new();
    };
    let Ok(out) = std::process::Command::new(dpkg)
        .args(["-W", "-f", "${Package} ${db:Status-Status}\\n", "--"])
        .args(packages)
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    let listed = String::from_utf8_lossy(&out.stdout);
    let installed: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(" installed"))
        .collect();
    packages
        .iter()
        .filter(|p| !installed.contains(&p.as_str()) && which(p, path).is_none())
        .cloned()
        .collect()
}

/// Where `program` is on `path` (or itself, a path to a file).
fn which(program: &str, path: Option<&std::ffi::OsStr>) -> Option<std::path::PathBuf> {
    crate::executor::find_program(program.as_ref(), path)
        .into_iter()
        .next()
        .filter(|p| p.is_file())
}
