//! `harness slurm`: the job array and merge scripts; submitted with
//! `--submit`.

use std::num::NonZeroUsize;
use std::process::ExitCode;

use anyhow::Context;
use harness::course::Course;

/// Writes the scripts, and submits them with `--submit`.
pub fn run(args: &crate::cli::SlurmArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let abs = |p: &std::path::Path| -> anyhow::Result<String> {
        let p = cwd.join(p);
        Ok(p.canonicalize()
            .with_context(|| format!("{} does not exist", p.display()))?
            .display()
            .to_string())
    };
    if args.shards.get() > harness::shard::MAX_SHARDS {
        anyhow::bail!("--shards is at most {}", harness::shard::MAX_SHARDS);
    }
    let mut work = Vec::new();
    if let (Some(course), Some(subs)) = (&args.course, &args.submissions) {
        Course::load(course)?;
        work.extend([
            "--course".to_string(),
            abs(course)?,
            "--submissions".into(),
            abs(subs)?,
        ]);
    } else if args.suites.is_empty() {
        anyhow::bail!("give --course and --submissions, or --suite");
    }
    for s in &args.suites {
        work.extend(["--suite".to_string(), abs(s)?]);
    }
    let out = cwd.join(&args.out);
    let mut merge_args = work.clone();
    if args.course.is_some() {
        merge_args.extend([
            "--summary".to_string(),
            out.join("summary.csv").display().to_string(),
        ]);
    }
    let mut grade_args = work;
    grade_args.extend(args.grade_options.iter().cloned());
    let spec = harness::slurm::Spec {
        harness: std::env::current_exe()
            .context("cannot locate the harness executable")?
            .canonicalize()?,
        out: out.clone(),
        shards: args.shards.get(),
        max_running: args.max_running.map(NonZeroUsize::get),
        jobs: args.jobs.get(),
        partition: args.partition.clone(),
        time: args.time.clone(),
        grade_args,
        merge_args,
    };
    spec.write()
        .with_context(|| format!("cannot write the scripts in {}", out.display()))?;
    println!(
        "wrote {0}/grade.sbatch ({1} array tasks), {0}/merge.sbatch and {0}/submit.sh",
        out.display(),
        spec.shards
    );
    submit(args.submit, &out)
}

/// Submits the scripts in `out` (`submit`), or says how.
fn submit(submit: bool, out: &std::path::Path) -> anyhow::Result<ExitCode> {
    if !submit {
        println!("submit with: {}/submit.sh", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    let status = std::process::Command::new("bash")
        .arg(out.join("submit.sh"))
        .status()
        .context("cannot run submit.sh (is sbatch on PATH?)")?;
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
