//! What a shell line and a course's Makefile run: the programs a build
//! needs of the machine beyond the one its command names (`make`, whose
//! recipes call `$(CC)`: gcc in an image that may lack it). Read as text,
//! never run: variables as make sets them (`=`, `:=`, `?=` over make's
//! own defaults, `+=`), `include`d files, each recipe line's commands.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The programs each simple command of shell `line` starts with, in
/// order: split at `;`, `&&`, `||`, `|`, `&` and new lines outside quotes,
/// past assignments (`cp=.:lib; javac ...`: `javac`) and `!`, `(`, `{`. A
/// word holding an expansion (`$x`, `$(...)`, `` ` ``) names no program
/// that can be known.
pub fn programs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for command in simple_commands(line) {
        let Ok(words) = shell_words::split(&command) else {
            continue;
        };
        let first = words.into_iter().find(|w| {
            !matches!(w.as_str(), "!" | "(" | "{" | "then" | "do" | "else") && !is_assignment(w)
        });
        if let Some(w) = first.filter(|w| !w.contains(['$', '`', '(', ')'])) {
            out.push(w);
        }
    }
    out
}

/// `w` is `NAME=value`.
fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `line` cut into simple commands (outside quotes and `$(...)`).
fn simple_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut single, mut double, mut depth) = (false, false, 0usize);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '(' if !single && cur.ends_with('$') => depth += 1,
            ')' if !single && depth > 0 => depth -= 1,
            ';' | '|' | '&' | '\n' if !single && !double && depth == 0 => {
                // `&&`, `||`, and `2>&1`'s `&` (a redirection, not a cut).
                if c == '&' && cur.ends_with('>') {
                    cur.push(c);
                    continue;
                }
                if matches!(c, '|' | '&') && chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.retain(|c| !c.trim().is_empty());
    out
}

/// The programs the recipes of the Makefile `make` reads in the build's
/// folder call, where that folder is the course's `overlays` laid in
/// order (a later one's file over an earlier one's): each recipe line's
/// commands, variables expanded as make would. Empty where no overlay
/// holds a Makefile (the student's own: not the course's to check).
pub fn recipe_programs(overlays: &[PathBuf]) -> Vec<String> {
    let find = |name: &str| -> Option<PathBuf> {
        overlays
            .iter()
            .rev()
            .map(|o| o.join(name))
            .find(|p| p.is_file())
    };
    let Some(makefile) = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .find_map(|n| find(n))
    else {
        return Vec::new();
    };
    let mut vars: HashMap<String, String> = [
        ("CC", "cc"),
        ("CXX", "g++"),
        ("CPP", "$(CC) -E"),
        ("LD", "ld"),
        ("AR", "ar"),
        ("AS", "as"),
        ("RM", "rm -f"),
        ("MAKE", "make"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut recipes = Vec::new();
    read(&makefile, &find, &mut vars, &mut recipes, 0);
    let mut out: Vec<String> = Vec::new();
    for line in recipes {
        let line = expand(line.trim_start_matches(['@', '-', '+', ' ']), &vars, 0);
        for p in programs(&line) {
            // A program the build makes itself, beside the Makefile.
            if p.contains('/') && !p.starts_with('/') {
                continue;
            }
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Reads the Makefile at `path` (and what it `include`s): its variables
/// into `vars`, its recipe lines into `recipes`.
fn read(
    path: &Path,
    find: &dyn Fn(&str) -> Option<PathBuf>,
    vars: &mut HashMap<String, String>,
    recipes: &mut Vec<String>,
    depth: usize,
) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let text = text.replace("\\\n", " ");
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            recipes.push(recipe.to_string());
            continue;
        }
        let line = line.split('#').next().unwrap_or_default().trim();
        if let Some(files) = line
            .strip_prefix("include ")
            .or_else(|| line.strip_prefix("-include "))
        {
            for f in expand(files, vars, 0).split_whitespace() {
                if let Some(p) = find(f).filter(|_| depth < 8) {
                    read(&p, find, vars, recipes, depth + 1);
                }
            }
            continue;
        }
        for op in ["::=", ":=", "?=", "+=", "="] {
            let Some((name, value)) = line.split_once(op) else {
                continue;
            };
            let name = name.trim();
            if name.is_empty() || name.contains([' ', ':', '$']) {
                break;
            }
            let value = value.trim().to_string();
            match op {
                "?=" => {
                    vars.entry(name.to_string()).or_insert(value);
                }
                "+=" => {
                    let v = vars.entry(name.to_string()).or_default();
                    v.push(' ');
                    v.push_str(&value);
                }
                _ => {
                    vars.insert(name.to_string(), value);
                }
            }
            break;
        }
    }
}

/// `s` with `$(NAME)` and `${NAME}` replaced by their values (a few
/// levels deep; make's automatic variables and functions left out).
fn expand(s: &str, vars: &HashMap<String, String>, depth: usize) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let close = match after.chars().next() {
            Some('(') => ')',
            Some('{') => '}',
            Some('$') => {
                out.push('$');
                rest = &after[1..];
                continue;
            }
            // `$@`, `$<`, `$^`: a file's name.
            Some(c) => {
                out.push_str("file");
                rest = &after[c.len_utf8()..];
                continue;
            }
            None => {
                rest = after;
                break;
            }
        };
        let Some(end) = after.find(close) else {
            out.push_str(&rest[at..]);
            rest = "";
            break;
        };
        let name = &after[1..end];
        match vars.get(name) {
            Some(v) if depth < 8 => out.push_str(&expand(v, vars, depth + 1)),
            Some(_) => {}
            // A function or an unknown variable: kept, so the word it is
            // in names no program.
            None => out.push_str(&format!("$({name})")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_simple_command_s_program() {
        assert_eq!(programs("make -k grading; make solver"), ["make", "make"]);
        assert_eq!(
            programs(
                "cp=.:/usr/share/java/junit4.jar; javac -cp $cp *.java 2>/dev/null || javac -sourcepath . Solver.java $(ls Checker.java 2>/dev/null)"
            ),
            ["javac", "javac"]
        );
        assert_eq!(
            programs("[ \"$(A)\" -ef . ] || cp a b && CC=x gcc -o 'a;b' x.c | tee log &"),
            ["[", "cp", "gcc", "tee"]
        );
        assert_eq!(programs("$CC x.c; `which cc` y.c"), Vec::<String>::new());
    }

    #[test]
    fn recipes_called_as_make_would_expand_them() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(
            a.join("Makefile"),
            "CC ?= gcc\nCFLAGS = -O2\ninclude handout.mk\nall: x\n\t@$(CC) $(CFLAGS) \\\n\t  x.c -o $@\n\t-$(TOOL) run\n\t./x --check\n\t$(RM) x.o\n",
        )
        .unwrap();
        std::fs::write(a.join("handout.mk"), "TOOL = wrong\n").unwrap();
        std::fs::write(b.join("handout.mk"), "TOOL := valgrind\n").unwrap();
        // `CC ?=` keeps make's own `cc`; the later overlay's handout.mk.
        assert_eq!(recipe_programs(&[a.clone(), b]), ["cc", "valgrind", "rm"]);
        std::fs::write(a.join("Makefile"), "CC = clang\nx:\n\t${CC} x.c\n").unwrap();
        assert_eq!(recipe_programs(std::slice::from_ref(&a)), ["clang"]);
        assert!(recipe_programs(&[dir.path().join("none")]).is_empty());
    }
}
