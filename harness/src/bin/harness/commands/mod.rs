//! One file per subcommand: each wires the library's pieces (settings,
//! executor, reporter, signals) and returns the exit status; the work
//! itself is the library's.

pub mod class;
pub mod compare;
pub mod conform;
pub mod contest;
pub mod courses;
pub mod entries;
pub mod grade;
mod held;
pub mod merge;
pub mod package;
pub mod regrade;
pub mod report;
pub mod slurm;
pub mod solve;
pub mod verify;

use std::process::ExitCode;

use anyhow::Context as _;

pub use crate::runner::{Runner, exit_status, report_to, screen, screen_of, stopped, ungraded};

/// `harness courses`: each bundled course's name, config, title, family
/// and most points.
pub fn courses() -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let mut out = String::new();
    for (short, file) in crate::bundled::courses() {
        let path = crate::bundled::course(std::path::Path::new(&short))?;
        let c = harness::course::Course::load(&path)?;
        out.push_str(&format!(
            "{short:<13} {file:<29} {:<12} {:>5} points  {}\n",
            c.family.name(),
            harness::course::rubric::show(c.max_points()),
            c.file.name
        ));
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// `harness completions SHELL`: the shell's completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "harness", &mut script);
    // A reader that stops early (`| head`) is no error.
    match std::io::Write::write_all(&mut std::io::stdout(), &script) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// `harness man DIR`: the manual pages from the command line's own
/// definitions, `harness.1` and `harness-<subcommand>.1`.
pub fn man(dir: &std::path::Path) -> anyhow::Result<ExitCode> {
    let cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut pages = vec![("harness".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("harness-{}", sub.get_name());
        let page = sub.clone().name(name.clone());
        pages.push((name, page));
    }
    for (name, page) in pages {
        let mut roff = Vec::new();
        clap_mangen::Man::new(page).render(&mut roff)?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, roff).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// For a command that cannot resume (`merge`, `conform`): an existing
/// output is an error, naming the one flag that replaces it.
pub fn refuse_existing(path: &std::path::Path, force: bool) -> anyhow::Result<()> {
    if !force && path.exists() {
        anyhow::bail!("{} exists; --force replaces it", path.display());
    }
    Ok(())
}
