//! What a course needs of this machine: the programs its build and parts
//! run, and the packages it declares.

use super::Course;

/// A shell's own words a build line may start with (none a program on
/// PATH to look for).
const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "if", "for", "while", "case", "exec", "eval", "source", ".", "test",
    "true", "false", "echo", "printf", "umask", "ulimit", "unset", "command", "time", "[",
];

/// The program a Debian package of a course's `packages` must give: a
/// package named from `.0` to `.1` gives program `.2`. The compilers and
/// interpreters; a package a build calls no program of (a library, a
/// jar) is not here.
const PACKAGE_PROGRAMS: &[(&str, &str, &str)] = &[
    ("gcc", "gcc", "gcc"),
    ("g++", "g++", "g++"),
    ("clang", "clang", "clang"),
    ("make", "make", "make"),
    ("python3", "python3", "python3"),
    ("pypy3", "pypy3", "pypy3"),
    ("ruby", "ruby", "ruby"),
    ("valgrind", "valgrind", "valgrind"),
    ("openjdk-", "-jdk", "javac"),
    ("openjdk-", "-jdk-headless", "javac"),
    ("openjdk-", "-jre", "java"),
    ("openjdk-", "-jre-headless", "java"),
    ("default-jdk", "", "javac"),
];

impl Course {
    /// What the course's build and parts run that this machine lacks (a
    /// program not on `path`, a course file not there), said with what to
    /// install: grading without it would make every student's rows our
    /// failure. A submission's own programs (`{submission}/...`) are the
    /// student's, not checked.
    pub fn lacks(&self, path: Option<&std::ffi::OsStr>) -> Option<String> {
        let course = self.dir().to_string_lossy();
        // Each program once, with every part that runs it.
        let mut lacked: Vec<(String, Vec<&str>)> = Vec::new();
        for (who, program) in self.runs() {
            // A build's shell line may start with a builtin, which PATH
            // does not hold; a submission's own programs are the student's.
            if program.contains("{submission}")
                || !program
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._/+-{}".contains(c))
                || SHELL_WORDS.contains(&program.as_str())
            {
                continue;
            }
            let program = program.replace("{course}", &course);
            if which(&program, path).is_some() {
                continue;
            }
            match lacked.iter_mut().find(|(p, _)| *p == program) {
                Some((_, whom)) => {
                    if !whom.contains(&who) {
                        whom.push(who)
                    }
                }
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

    /// Every program the course runs, with who runs it: each simple
    /// command of its build and parts, the recipes of the Makefile its
    /// overlay gives a build that runs `make`, and the compilers and
    /// interpreters of its `packages` ([`PACKAGE_PROGRAMS`]).
    fn runs(&self) -> Vec<(&str, String)> {
        let mut out = Vec::new();
        if let Some(build) = &self.file.build {
            let programs = super::make::programs(&build.command);
            if programs.iter().any(|p| p == "make") {
                let overlays: Vec<_> = build.overlay.iter().map(|o| self.dir().join(o)).collect();
                out.extend(
                    super::make::recipe_programs(&overlays)
                        .into_iter()
                        .map(|p| ("the build's Makefile", p)),
                );
            }
            out.splice(0..0, programs.into_iter().map(|p| ("the build", p)));
        }
        for part in &self.file.parts {
            out.extend(
                super::make::programs(&part.command)
                    .into_iter()
                    .map(|p| (part.name.as_str(), p)),
            );
        }
        for package in &self.file.packages {
            for (from, to, program) in PACKAGE_PROGRAMS {
                if package.starts_with(from) && package.ends_with(to) {
                    out.push(("the course's packages", program.to_string()));
                }
            }
        }
        out
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
