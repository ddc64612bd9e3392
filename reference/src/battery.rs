//! Conformance batteries as data: probes of a Checker's or Solver's exit
//! statuses, each with the files it needs (a folder's worth), its stdin,
//! its arguments, the statuses accepted (more than one where a spec calls
//! a row ambiguous) and what stdout must be. A family makes them (its
//! `conform.rs`); the harness writes the folders and runs the probes.

/// What a probe's stdout must be, once its exit status is right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Anything.
    Any,
    /// Nothing but white space (a Solver saying "no solution").
    Empty,
    /// On exit 0, an answer that solves the probe's puzzle files.
    Solves,
}

/// One folder of a battery: files by name, and the stdin of its probes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folder {
    /// The files: name and contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// What goes on stdin.
    pub stdin: Vec<u8>,
}

/// A folder of a battery, as [`Battery::folder`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FolderId(pub usize);

/// One argument of a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A file of the probe's folder, by name.
    File(String),
    /// A file that does not exist.
    Missing,
    /// The folder itself, given where a file is wanted.
    Folder,
}

/// One probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Its name (a scorecard row's case).
    pub name: String,
    /// Its folder.
    pub folder: FolderId,
    /// The program's arguments.
    pub args: Vec<Arg>,
    /// The files of its folder that make the puzzle an answer must solve
    /// ([`Output::Solves`]).
    pub puzzle: Vec<String>,
    /// The exit statuses accepted.
    pub expect: Vec<i32>,
    /// What stdout must be.
    pub output: Output,
}

/// A battery: folders and the probes that use them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Battery {
    /// The folders.
    pub folders: Vec<Folder>,
    /// The probes, in the order they run.
    pub probes: Vec<Probe>,
}

impl Battery {
    /// A folder for the next probes, holding `files` (name, contents) and
    /// the stdin `input`.
    pub fn folder(&mut self, files: &[(&str, &[u8])], input: &[u8]) -> FolderId {
        self.folders.push(Folder {
            files: files
                .iter()
                .map(|(n, b)| (n.to_string(), b.to_vec()))
                .collect(),
            stdin: input.to_vec(),
        });
        FolderId(self.folders.len() - 1)
    }

    /// Adds a probe: `args` name files of `folder`, or `-` for a missing
    /// file, or `/` for the folder itself; `puzzle` names the files an
    /// answer is judged on.
    pub fn case(
        &mut self,
        name: &str,
        folder: &FolderId,
        args: &[&str],
        puzzle: &[&str],
        expect: &[i32],
        output: Output,
    ) {
        let arg = |a: &&str| match *a {
            "-" => Arg::Missing,
            "/" => Arg::Folder,
            file => Arg::File(file.to_string()),
        };
        self.probes.push(Probe {
            name: name.to_string(),
            folder: *folder,
            args: args.iter().map(arg).collect(),
            puzzle: puzzle.iter().map(|p| p.to_string()).collect(),
            expect: expect.to_vec(),
            output,
        });
    }

    /// What is wrong with the battery, if anything: a probe with no status,
    /// two probes of one name, a file named that its folder lacks.
    pub fn check(&self) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for p in &self.probes {
            if p.expect.is_empty() {
                return Err(format!("{}: no status accepted", p.name));
            }
            if !names.insert(&p.name) {
                return Err(format!("{}: two probes of that name", p.name));
            }
            let folder = self
                .folders
                .get(p.folder.0)
                .ok_or_else(|| format!("{}: no folder {}", p.name, p.folder.0))?;
            let has = |f: &str| folder.files.iter().any(|(n, _)| n == f);
            for a in &p.args {
                if let Arg::File(f) = a
                    && !has(f)
                {
                    return Err(format!("{}: its folder has no {f}", p.name));
                }
            }
            if let Some(f) = p.puzzle.iter().find(|f| !has(f)) {
                return Err(format!("{}: its folder has no {f}", p.name));
            }
        }
        Ok(())
    }
}
