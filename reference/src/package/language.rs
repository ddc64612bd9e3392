//! The languages a package's programs (its output validator, its
//! submissions) are written in, as problemtools knows them
//! (`problemtools/config/languages.yaml`): a program's language from its
//! files' names, and its compile and run commands with problemtools'
//! flags. Pure: which compiler a machine has is the harness's to find
//! ([`Language::stand_ins`]).

use std::path::{Path, PathBuf};

use super::PackageError;

/// One language: the files it claims and how a program in it is built
/// and run. The commands are templates with problemtools' fields:
/// `{path}` (the build folder), `{files}` (the sources), `{binary}`
/// (`{path}/run`), `{mainfile}`, `{mainclass}`, `{Mainclass}` and
/// `{memlim}` (the memory limit, MiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// problemtools' id (`cpp`, `python3`).
    pub id: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Which language wins where two claim as many files.
    pub priority: u32,
    /// The file name endings it claims.
    pub endings: &'static [&'static str],
    /// The compile command, where it has one.
    pub compile: Option<&'static str>,
    /// The run command.
    pub run: &'static str,
    /// The program a command names and the one used where the machine
    /// lacks it (problemtools runs Python with PyPy; a machine without
    /// PyPy runs CPython).
    pub stand_ins: &'static [(&'static str, &'static str)],
    /// Files of these endings are its only where their first line holds
    /// this (Python 2's `#!...python2`); `None`: no such gate.
    pub shebang: Option<(&'static [&'static str], &'static str)>,
}

/// A language problemtools knows that this harness builds when the
/// machine has its compiler: no stand-in, no gate.
const fn known(
    id: &'static str,
    name: &'static str,
    priority: u32,
    endings: &'static [&'static str],
    compile: Option<&'static str>,
    run: &'static str,
) -> Language {
    Language {
        id,
        name,
        priority,
        endings,
        compile,
        run,
        stand_ins: &[],
        shebang: None,
    }
}

/// The languages this harness builds and runs, problemtools' as they are
/// (2026-11: its `languages.yaml`: names, priorities, files, flags), but
/// Java's `-source 21`, which a JDK 17 refuses (the release a JDK compiles
/// for is its own), Rust's `-C target-cpu=native` (a build for one
/// machine) and Objective-C's GNUstep line. A language whose compiler a
/// machine lacks is still told apart (its programs are said not built
/// there).
pub const LANGUAGES: &[Language] = &[
    known(
        "csharp",
        "C#",
        700,
        &[".cs"],
        Some("mcs -out:{binary}.exe -optimize+ -r:System.Numerics {files}"),
        "mono {binary}.exe",
    ),
    known(
        "cobol",
        "Cobol",
        50,
        &[".cob"],
        Some("cobc -o {binary} -g -O2 -std=default -free -x -static {files}"),
        "{binary}",
    ),
    known(
        "fsharp",
        "F#",
        675,
        &[".fs"],
        Some("fsharpc --out:{binary}.exe --optimize+ -r:System.Numerics {files}"),
        "mono {binary}.exe",
    ),
    known(
        "go",
        "Go",
        400,
        &[".go"],
        Some("gccgo -g -o {binary} -static-libgcc {files}"),
        "{binary}",
    ),
    known(
        "haskell",
        "Haskell",
        600,
        &[".hs", ".c"],
        Some("ghc -O2 -ferror-spans -threaded -rtsopts -tmpdir {path} -o {binary} {files}"),
        "{binary} +RTS -M{memlim}m -K8m -RTS",
    ),
    known(
        "javascript",
        "JavaScript",
        500,
        &[".js"],
        Some("nodejs -c {files}"),
        "nodejs {mainfile}",
    ),
    known(
        "kotlin",
        "Kotlin",
        250,
        &[".kt"],
        Some("kotlinc -language-version 1.3 -d {path}/ -- {files}"),
        "kotlin -Dfile.encoding=UTF-8 -J-XX:+UseSerialGC -J-Xss64m -J-Xms{memlim}m -J-Xmx{memlim}m -cp {path}/ {Mainclass}Kt",
    ),
    known(
        "lisp",
        "Common Lisp",
        200,
        &[".lisp", ".cl"],
        None,
        "sbcl --noinform --non-interactive --load {mainfile}",
    ),
    known(
        "ocaml",
        "OCaml",
        375,
        &[".ml"],
        Some("ocamlopt -o {binary} unix.cmxa str.cmxa bigarray.cmxa {files}"),
        "{binary}",
    ),
    known(
        "objectivec",
        "Objective C",
        300,
        &[".m", ".c"],
        Some("gcc -O2 -std=gnu99 {files} -lm -lobjc -o {binary}"),
        "{binary}",
    ),
    known(
        "pascal",
        "Pascal",
        350,
        &[".pas"],
        Some("fpc -o{mainfile}.out -O2 -XS -Xt {mainfile}"),
        "{mainfile}.out",
    ),
    known(
        "php",
        "PHP",
        450,
        &[".php"],
        Some("php -n -d display_errors=stderr -d html_errors=0 -l {files}"),
        "php -n -d display_errors=stderr -d html_errors=0 -d memory_limit={memlim}m -f {mainfile}",
    ),
    known(
        "prolog",
        "Prolog",
        100,
        &[".pl"],
        Some("swipl -O -q -g main -t halt -o {binary} -c {files}"),
        "{binary}",
    ),
    Language {
        id: "python2",
        name: "Python 2",
        priority: 860,
        endings: &[".py", ".py2"],
        compile: Some("pypy -m py_compile {files}"),
        run: "pypy {mainfile}",
        stand_ins: &[("pypy", "python2")],
        shebang: Some((&[".py"], "python2")),
    },
    known(
        "scala",
        "Scala",
        550,
        &[".sc", ".scala"],
        Some("scalac -encoding UTF-8 -sourcepath {path} -d {path} {files}"),
        "scala -J-Xmx{memlim}m -classpath {path} {mainclass}",
    ),
    Language {
        id: "c",
        name: "C",
        priority: 950,
        endings: &[".c"],
        compile: Some("gcc -g -O2 -std=gnu17 -static -o {binary} {files} -lm"),
        run: "{binary}",
        stand_ins: &[],
        shebang: None,
    },
    Language {
        id: "cpp",
        name: "C++",
        priority: 1000,
        endings: &[".cc", ".C", ".cpp", ".cxx", ".c++"],
        compile: Some(
            "g++ -g -O2 -std=gnu++23 -static -o {binary} {files} -lrt -Wl,--whole-archive -lpthread -Wl,--no-whole-archive",
        ),
        run: "{binary}",
        stand_ins: &[],
        shebang: None,
    },
    Language {
        id: "java",
        name: "Java",
        priority: 800,
        endings: &[".java"],
        compile: Some("javac -encoding UTF-8 -sourcepath {path} -d {path} {files}"),
        run: "java -Dfile.encoding=UTF-8 -XX:+UseSerialGC -Xss64m -Xms{memlim}m -Xmx{memlim}m -cp {path} {mainclass}",
        stand_ins: &[],
        shebang: None,
    },
    Language {
        id: "python3",
        name: "Python 3",
        priority: 850,
        endings: &[".py", ".py3"],
        compile: Some("pypy3 -m py_compile {files}"),
        run: "pypy3 {mainfile}",
        stand_ins: &[("pypy3", "python3")],
        shebang: None,
    },
    Language {
        id: "ruby",
        name: "Ruby",
        priority: 650,
        endings: &[".rb"],
        compile: Some("ruby -c {mainfile}"),
        run: "ruby {mainfile}",
        stand_ins: &[],
        shebang: None,
    },
    Language {
        id: "rust",
        name: "Rust",
        priority: 575,
        endings: &[".rs"],
        compile: Some(
            "rustc -C opt-level=3 --crate-type bin --edition 2021 {mainfile} -o {mainfile}.out",
        ),
        run: "{mainfile}.out",
        stand_ins: &[],
        shebang: None,
    },
];

/// A program of a package: its language and its source files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Where it is: one file, or a folder of them.
    pub path: PathBuf,
    /// Its language.
    pub language: &'static Language,
    /// Its source files, relative to its folder (its own name where it is
    /// one file), in order of their names.
    pub sources: Vec<PathBuf>,
    /// The file that runs: a source named `main.*` where there is one,
    /// else the first.
    pub main: PathBuf,
}

impl Program {
    /// The program at `path` (a file or a folder): its language is the one
    /// claiming most of its files, the higher priority where two claim as
    /// many, as problemtools detects it. A program no language claims is an
    /// error naming it.
    pub fn detect(path: &Path) -> Result<Self, PackageError> {
        let files = if path.is_dir() {
            let mut files = Vec::new();
            for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
                let entry = entry.map_err(|e| PackageError::Unreadable {
                    path: path.to_owned(),
                    source: e.into(),
                })?;
                if entry.file_type().is_file() {
                    let rel = entry.path().strip_prefix(path).unwrap_or(entry.path());
                    files.push(rel.to_owned());
                }
            }
            files
        } else {
            vec![PathBuf::from(path.file_name().unwrap_or_default())]
        };
        let base = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(Path::new(""))
        };
        let ends = |name: &str, endings: &[&str]| {
            endings
                .iter()
                .any(|e| name.ends_with(e) && name.len() > e.len())
        };
        let claims = |l: &Language| -> Vec<PathBuf> {
            files
                .iter()
                .filter(|f| {
                    let name = f
                        .file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default();
                    ends(&name, l.endings)
                        && l.shebang.is_none_or(|(gated, needle)| {
                            !ends(&name, gated) || first_line(&base.join(f)).contains(needle)
                        })
                })
                .cloned()
                .collect()
        };
        let language = LANGUAGES
            .iter()
            .max_by_key(|l| (claims(l).len(), l.priority))
            .filter(|l| !claims(l).is_empty())
            .ok_or_else(|| PackageError::Invalid {
                path: path.to_owned(),
                why: "in no language problemtools knows (by the names of its files)".into(),
            })?;
        let sources = claims(language);
        let main = sources
            .iter()
            .find(|f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().to_lowercase().starts_with("main."))
            })
            .unwrap_or(&sources[0])
            .clone();
        Ok(Self {
            path: path.to_owned(),
            language,
            sources,
            main,
        })
    }

    /// The programs its commands name that must be on the machine (the
    /// compiler, the interpreter), before any stand-in: not those the
    /// build makes.
    pub fn needs(&self) -> Vec<&'static str> {
        let first = |t: &'static str| t.split_whitespace().next().filter(|w| !w.contains('{'));
        self.language
            .compile
            .and_then(first)
            .into_iter()
            .chain(first(self.language.run))
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            })
    }

    /// Its compile command (where its language has one) and its run
    /// command, as argument lists, for a copy of its files in folder
    /// `dir` and a memory limit of `memory_mib`.
    pub fn commands(&self, dir: &Path, memory_mib: u64) -> (Option<Vec<String>>, Vec<String>) {
        let main = dir.join(&self.main);
        let class = self
            .main
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut upper = class.clone();
        if let Some(first) = upper.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        let fill = |template: &str| -> Vec<String> {
            template
                .split_whitespace()
                .flat_map(|word| -> Vec<String> {
                    if word == "{files}" {
                        return self
                            .sources
                            .iter()
                            .map(|s| dir.join(s).to_string_lossy().into_owned())
                            .collect();
                    }
                    vec![
                        word.replace("{binary}", &dir.join("run").to_string_lossy())
                            .replace("{path}", &dir.to_string_lossy())
                            .replace("{mainfile}", &main.to_string_lossy())
                            .replace("{mainclass}", &class)
                            .replace("{Mainclass}", &upper)
                            .replace("{memlim}", &memory_mib.to_string()),
                    ]
                })
                .collect()
        };
        (self.language.compile.map(fill), fill(self.language.run))
    }
}

/// The first line of `file` when it is a `#!` line (else empty).
fn first_line(file: &Path) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    if let Ok(f) = std::fs::File::open(file) {
        let _ = std::io::BufReader::new(f).read_line(&mut line);
    }
    if line.starts_with("#!") {
        line
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path, names: &[&str]) {
        for n in names {
            let p = dir.join(n);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
    }

    #[test]
    fn a_programs_language_is_the_one_claiming_most_of_its_files() {
        let t = tempfile::tempdir().unwrap();
        files(t.path(), &["v/validate.cc", "v/validate.h", "v/notes.txt"]);
        let p = Program::detect(&t.path().join("v")).unwrap();
        assert_eq!(
            (p.language.id, p.sources.clone()),
            ("cpp", vec!["validate.cc".into()])
        );
        let (compile, run) = p.commands(Path::new("/b"), 1024);
        assert_eq!(
            compile.unwrap()[..7],
            [
                "g++",
                "-g",
                "-O2",
                "-std=gnu++23",
                "-static",
                "-o",
                "/b/run"
            ]
        );
        assert_eq!(run, ["/b/run"]);
        assert_eq!(p.needs(), ["g++"]);
        // One C file among two C++: C++; as many of each: C++'s priority.
        files(t.path(), &["m/a.c", "m/b.cc", "m/c.cpp", "e/a.c", "e/b.cc"]);
        assert_eq!(
            Program::detect(&t.path().join("m")).unwrap().language.id,
            "cpp"
        );
        assert_eq!(
            Program::detect(&t.path().join("e")).unwrap().language.id,
            "cpp"
        );
    }

    #[test]
    fn a_single_file_and_its_main_class_and_file() {
        let t = tempfile::tempdir().unwrap();
        files(
            t.path(),
            &["Different.java", "hello.py", "j/Helper.java", "j/Main.java"],
        );
        let java = Program::detect(&t.path().join("Different.java")).unwrap();
        let (compile, run) = java.commands(Path::new("/b"), 1024);
        assert_eq!(compile.unwrap().last().unwrap(), "/b/Different.java");
        assert_eq!(run[run.len() - 3..], ["-cp", "/b", "Different"]);
        assert!(run.contains(&"-Xmx1024m".to_string()));
        let py = Program::detect(&t.path().join("hello.py")).unwrap();
        assert_eq!(py.commands(Path::new("/b"), 64).1, ["pypy3", "/b/hello.py"]);
        assert_eq!(py.language.stand_ins, [("pypy3", "python3")]);
        assert_eq!(
            (py.needs(), java.needs()),
            (vec!["pypy3"], vec!["javac", "java"])
        );
        // Python 2 by its `#!` line, else Python 3.
        std::fs::write(t.path().join("old.py"), "#!/usr/bin/env python2\nprint 1\n").unwrap();
        assert_eq!(
            Program::detect(&t.path().join("old.py"))
                .unwrap()
                .language
                .id,
            "python2"
        );
        // A folder's main is the source named main.*.
        let j = Program::detect(&t.path().join("j")).unwrap();
        assert_eq!(j.main, PathBuf::from("Main.java"));
    }

    #[test]
    fn a_program_in_no_known_language_is_named() {
        let t = tempfile::tempdir().unwrap();
        files(t.path(), &["p/different.xyz"]);
        let e = Program::detect(&t.path().join("p"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{}: in no language problemtools knows",
                t.path().join("p").display()
            )),
            "{e}"
        );
    }
}
