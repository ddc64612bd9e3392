//! What every kit is made of: the course it grades, the harness that
//! grades it (and `harness-exec` beside it, and a course's own folder),
//! the scripts' common lines, and the writer that puts a kit's files in a
//! zip or a folder.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::course::Course;

/// What a kit is made for.
pub struct Kit<'a> {
    /// The course.
    pub course: &'a Course,
    /// The `--course` argument the kit's scripts pass: a bundled course's
    /// name, or `course/<file>` in the kit's copy of the config's folder.
    pub course_arg: String,
    /// A course that is not bundled: its folder and what it names, copied
    /// into the kit.
    pub tree: Option<Tree>,
    /// The harness to ship (this one).
    pub exe: PathBuf,
    /// Autolab's handin file name.
    pub handin: String,
    /// Where the kit goes (for what is said to the staff).
    pub out: PathBuf,
    /// The bytes of the binaries [`Kit::payload`] shipped (set by it; 0 for
    /// a kit that ships none).
    pub shipped: std::cell::Cell<u64>,
    /// How the harness it shipped is linked (set by [`Kit::payload`]).
    pub linked: std::cell::Cell<Option<super::binary::Linking>>,
    /// One submission's worst case (`None`: not worked out).
    pub worst: Option<super::limits::Worst>,
}

/// A course config that is not bundled, as a kit carries it under
/// `course/`: the config's folder and every path the config names
/// (`named_paths`: suites, overlay, adapters), each at its place
/// relative to the others (`root`, the deepest folder holding them all, is
/// the kit's `course/`), so `../suites/...` in the config still resolves.
///
/// Links are resolved one way, as the grader resolves the config's
/// paths: from the folder the config is found in (a config that is a link
/// keeps the link's place), each named path where the config's words put
/// it; a link on the way (`suites -> ../shared/suites`) is copied as what
/// it leads to, at the link's place.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The folder that becomes the kit's `course/`.
    pub root: PathBuf,
    /// What is copied: the config's folder, then each named path outside it.
    pub paths: Vec<PathBuf>,
    /// The named paths outside the config's folder (said to the staff).
    pub outside: Vec<PathBuf>,
    /// The config, relative to `root`.
    pub config: PathBuf,
}

impl Tree {
    /// The tree of `course`, loaded from its config file.
    pub fn of(course: &Course) -> anyhow::Result<Self> {
        let dir = folder_of(&course.path)?;
        let config = dir.join(
            course
                .path
                .file_name()
                .context("a config file has a name")?,
        );
        let outside: Vec<PathBuf> = named_paths(course)?
            .into_iter()
            .filter(|p| !p.starts_with(&dir))
            .collect();
        let mut root = dir.clone();
        for p in &outside {
            while !p.starts_with(&root) {
                root = root.parent().unwrap_or(Path::new("/")).to_owned();
            }
        }
        let mut paths = vec![dir];
        paths.extend(outside.iter().cloned());
        Ok(Self {
            config: config.strip_prefix(&root)?.to_owned(),
            root,
            paths,
            outside,
        })
    }

    /// What the staff are told of the paths outside the config's folder.
    pub fn said(&self) -> Vec<String> {
        self.outside
            .iter()
            .map(|p| {
                format!(
                    "note: {} is outside the course config's folder: packaged as course/{}",
                    p.display(),
                    p.strip_prefix(&self.root).unwrap_or(p).display()
                )
            })
            .collect()
    }
}

/// The folder holding the config at `config`, as the grader takes it:
/// the folder found by its path (resolved), not its link's target's.
fn folder_of(config: &Path) -> anyhow::Result<PathBuf> {
    let parent = config
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent
        .canonicalize()
        .with_context(|| format!("cannot find {}", parent.display()))
}

/// `dir` joined with `path`, `.` and `..` taken by their words.
fn lexical(dir: &Path, path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in dir.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Every file or folder `course`'s config names, absolute, by its words
/// from the config's folder (links on the way kept as names): its parts'
/// suites, its build's overlay, and each path a command reaches through
/// `{course}` (an adapter, a helper beside the config). What a copy of
/// the course must carry (`harness package`). A named path that does not
/// exist, or whose `..` would lead elsewhere through a link than its
/// words say, is an error naming it.
pub fn named_paths(course: &Course) -> anyhow::Result<Vec<PathBuf>> {
    let dir = folder_of(&course.path)?;
    // A suite that is a listing names files in the folder named like it
    // or beside it: the folder it is in goes whole.
    let mut named: Vec<PathBuf> = course
        .file
        .parts
        .iter()
        .flat_map(|p| p.suites.clone())
        .map(|s| match dir.join(&s).is_file() {
            true => s.parent().map(Path::to_owned).unwrap_or_default(),
            false => s,
        })
        .collect();
    if let Some(build) = &course.file.build {
        named.extend(build.overlay.iter().cloned());
    }
    let commands = course
        .file
        .build
        .iter()
        .map(|b| b.command.as_str())
        .chain(course.file.parts.iter().map(|p| p.command.as_str()));
    let mut reached = Vec::new();
    for command in commands {
        for word in shell_words::split(command).unwrap_or_default() {
            // `{course}/x`, or `--option={course}/x`.
            if let Some(at) = word.find("{course}") {
                let rest = &word[at + "{course}".len()..];
                reached.push(PathBuf::from(rest.trim_start_matches('/')));
            }
        }
    }
    let mut out = Vec::new();
    for (p, must) in named
        .iter()
        .map(|p| (p, true))
        .chain(reached.iter().map(|p| (p, false)))
    {
        let at = lexical(&dir, p);
        match (at.canonicalize(), dir.join(p).canonicalize()) {
            (Ok(a), Ok(b)) if a == b => out.push(at),
            (Ok(_), Ok(_)) => bail!(
                "{}: {} leads elsewhere through a link than its words say (name it without `..` after a link)",
                course.path.display(),
                p.display()
            ),
            // A command's word that names nothing is not a path.
            _ if !must => {}
            _ => bail!(
                "{} names {}, which does not exist",
                course.path.display(),
                at.display()
            ),
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One file of a kit: its path in the kit, bytes and Unix mode.
#[derive(Debug, Clone)]
pub struct File {
    /// Its path in the kit.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its mode.
    pub mode: u32,
}

impl File {
    /// A file `name` of `bytes` with `mode`.
    pub fn new(name: impl Into<String>, bytes: impl Into<Vec<u8>>, mode: u32) -> Self {
        Self {
            name: name.into(),
            bytes: bytes.into(),
            mode,
        }
    }
}

/// How a kit is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// One zip at the output path.
    Zip,
    /// Files in the output folder.
    Folder,
}

/// A kit: its files, how they are written, and what to tell the staff.
pub struct Package {
    /// The files.
    pub files: Vec<File>,
    /// How.
    pub form: Form,
    /// Lines for the staff (what was written, what the image must hold).
    pub said: Vec<String>,
}

impl Kit<'_> {
    /// This harness, `harness-exec` beside it, and a non-bundled course's
    /// folder under `course/`.
    pub fn payload(&self) -> anyhow::Result<Vec<File>> {
        let exe = &self.exe;
        let bytes = std::fs::read(exe).with_context(|| format!("cannot read {}", exe.display()))?;
        self.linked.set(super::binary::linking(&bytes));
        let mut files = vec![File::new("harness", bytes, 0o755)];
        let small = exe.with_file_name("harness-exec");
        if small.is_file() {
            files.push(File::new("harness-exec", std::fs::read(&small)?, 0o755));
        }
        self.shipped
            .set(files.iter().map(|f| f.bytes.len() as u64).sum());
        if let Some(tree) = &self.tree {
            let mut seen = std::collections::HashSet::new();
            for path in &tree.paths {
                for e in walkdir::WalkDir::new(path)
                    .follow_links(true)
                    .sort_by_file_name()
                {
                    let e = e.with_context(|| format!("cannot read {}", path.display()))?;
                    let rel = e
                        .path()
                        .strip_prefix(&tree.root)?
                        .to_string_lossy()
                        .into_owned();
                    if e.file_type().is_file() && seen.insert(rel.clone()) {
                        use std::os::unix::fs::PermissionsExt;
                        // An adapter or helper keeps its execute bits.
                        let mode = e.metadata()?.permissions().mode() & 0o111 | 0o644;
                        files.push(File::new(
                            format!("course/{rel}"),
                            std::fs::read(e.path())?,
                            mode,
                        ));
                    }
                }
            }
        }
        Ok(files)
    }

    /// The `--course` argument for a kit's script whose folder is `here`
    /// (a shell expression): a bundled course's name, or the config in the
    /// kit's copy of its folder.
    pub fn course_in(&self, here: &str) -> String {
        let arg = shell_words::quote(&self.course_arg).into_owned();
        if self.tree.is_some() {
            format!("\"{here}\"/{arg}")
        } else {
            arg
        }
    }

    /// The course's Debian packages, for people.
    pub fn packages(&self) -> String {
        if self.course.file.packages.is_empty() {
            "none".into()
        } else {
            self.course.file.packages.join(" ")
        }
    }
}

/// The lines of a kit's script that install Debian `packages` with
/// apt-get, only where one is missing (nothing from the network
/// otherwise; nothing at all in `harness package`'s trial of the kit,
/// `PUZZLEGRADE_TRIAL`); POSIX sh, for bash too.
pub fn apt_install<'a>(packages: impl Iterator<Item = &'a str>) -> String {
    let list: Vec<&str> = packages.collect();
    format!(
        "packages={}\n\
         if [ -z \"${{PUZZLEGRADE_TRIAL:-}}\" ] && [ -n \"$packages\" ] && ! dpkg -s $packages >/dev/null 2>&1; then\n\
         \x20 apt-get update -qq\n\
         \x20 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages\n\
         fi\n",
        shell_words::quote(&list.join(" "))
    )
}

/// A Dockerfile for the image a kit needs: `FROM base`, the course's
/// Debian packages (and `more`) installed, then `steps` (each a line).
pub fn dockerfile(kit: &Kit, base: &str, more: &[&str], steps: &[String]) -> String {
    let mut packages: Vec<&str> = kit
        .course
        .file
        .packages
        .iter()
        .map(String::as_str)
        .collect();
    packages.extend(more);
    let mut out = format!(
        "# The image the kit needs (puzzlegrade, course {}): the course's packages.\n\
         FROM {base}\n",
        kit.course_arg
    );
    if !packages.is_empty() {
        out.push_str(&format!(
            "RUN apt-get update \\\n && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {} \\\n && rm -rf /var/lib/apt/lists/*\n",
            packages.join(" ")
        ));
    }
    for step in steps {
        out.push_str(step);
        out.push('\n');
    }
    out
}

/// A tar of `files`, each under `prefix/`.
pub fn tar(prefix: &str, files: &[File]) -> anyhow::Result<Vec<u8>> {
    let mut tar = tar::Builder::new(Vec::new());
    for f in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(f.bytes.len() as u64);
        header.set_mode(f.mode);
        header.set_cksum();
        tar.append_data(
            &mut header,
            format!("{prefix}/{}", f.name),
            f.bytes.as_slice(),
        )?;
    }
    Ok(tar.into_inner()?)
}

/// Whether a kit can be written at `out`: as cp and zip do, a mistyped
/// folder is an error, not made.
pub(super) fn writable(out: &Path) -> anyhow::Result<()> {
    if out.as_os_str().is_empty() {
        bail!("no --out");
    }
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty())
        && !parent.is_dir()
    {
        bail!(
            "cannot write {}: no folder {} (make it first)",
            out.display(),
            parent.display()
        );
    }
    Ok(())
}

/// Writes `package` at `out`: a zip there, or its files in that folder.
pub(super) fn write(package: &Package, out: &Path) -> anyhow::Result<()> {
    writable(out)?;
    match package.form {
        Form::Zip => crate::export::write_atomically(out, &zip(&package.files)?),
        Form::Folder => folder(out, &package.files),
    }
}

/// Writes `files` under `dir`, each with its mode.
fn folder(dir: &Path, files: &[File]) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for f in files {
        let path = dir.join(&f.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        crate::export::write_atomically(&path, &f.bytes)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(f.mode))?;
    }
    Ok(())
}

/// A zip of `files`.
fn zip(files: &[File]) -> anyhow::Result<Vec<u8>> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buf);
        for f in files {
            let opts = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .compression_level(Some(1))
                .unix_permissions(f.mode);
            zip.start_file(f.name.as_str(), opts)?;
            zip.write_all(&f.bytes)?;
        }
        zip.finish()?;
    }
    Ok(buf.into_inner())
}
