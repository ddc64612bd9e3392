//! `harness slurm`: the Slurm job array of a sharded grading run, and the
//! merge job that waits for it. Plain files a course's admin can read,
//! change and submit (`sbatch`), written here from the command's options;
//! `--submit` submits them.

use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What the scripts run.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The harness binary (absolute).
    pub harness: PathBuf,
    /// Where the scripts, logs, shard scorecards and results go (absolute).
    pub out: PathBuf,
    /// Shards (array tasks).
    pub shards: usize,
    /// Array tasks running at once (`%M`), if limited.
    pub max_running: Option<usize>,
    /// Cases at once per task (`--cpus-per-task`, `--jobs`).
    pub jobs: usize,
    /// `--partition`, if any.
    pub partition: Option<String>,
    /// `--time` per task (Slurm's format), if any.
    pub time: Option<String>,
    /// The grading options every task passes (the work: `--course` and
    /// `--submissions`, or `--suite`; limits), already absolute.
    pub grade_args: Vec<String>,
    /// The options `merge` needs to check and recompute.
    pub merge_args: Vec<String>,
}

/// A shell word, quoted.
fn q(s: &str) -> String {
    shell_words::quote(s).into_owned()
}

fn q_path(p: &Path) -> String {
    q(&p.to_string_lossy())
}

impl Spec {
    /// The job array script: one task per shard; a task restarted after a
    /// preemption resumes its own scorecard.
    pub fn grade_script(&self) -> String {
        let mut s = String::new();
        let array = match self.max_running {
            Some(m) => format!("0-{}%{m}", self.shards - 1),
            None => format!("0-{}", self.shards - 1),
        };
        let _ = writeln!(s, "#!/bin/bash");
        let _ = writeln!(
            s,
            "# puzzlegrade: one shard of the grading run per array task."
        );
        let _ = writeln!(s, "#SBATCH --job-name=puzzlegrade");
        let _ = writeln!(s, "#SBATCH --array={array}");
        let _ = writeln!(s, "#SBATCH --cpus-per-task={}", self.jobs);
        let _ = writeln!(s, "#SBATCH --requeue");
        if let Some(p) = &self.partition {
            let _ = writeln!(s, "#SBATCH --partition={p}");
        }
        if let Some(t) = &self.time {
            let _ = writeln!(s, "#SBATCH --time={t}");
        }
        let _ = writeln!(
            s,
            "#SBATCH --output={}/logs/shard-%a.out",
            self.out.display()
        );
        let _ = writeln!(s, "set -euo pipefail");
        let _ = writeln!(s, "k=$((SLURM_ARRAY_TASK_ID + 1))");
        let _ = writeln!(s, "card={}/shards/shard-$k.csv", q_path(&self.out));
        let _ = writeln!(
            s,
            "# A restarted task (preempted, requeued) keeps its finished rows."
        );
        let _ = writeln!(s, "mode=--force");
        let _ = writeln!(s, "if [ -s \"$card\" ]; then mode=--resume; fi");
        let _ = writeln!(
            s,
            "# Tasks on one node never share candidate users: each claims a free uid range."
        );
        let _ = writeln!(s, "status=0");
        let _ = write!(s, "{} grade", q_path(&self.harness));
        for a in &self.grade_args {
            let _ = write!(s, " {}", q(a));
        }
        let _ = writeln!(
            s,
            " --shard \"$k/{}\" --jobs {} --scorecard \"$card\" \"$mode\" --format json >/dev/null || status=$?",
            self.shards, self.jobs
        );
        let _ = writeln!(
            s,
            "# 1 means some case was not accepted: the shard is done all the same."
        );
        let _ = writeln!(s, "if [ \"$status\" -gt 1 ]; then exit \"$status\"; fi");
        s
    }

    /// The merge job: after every task succeeded.
    pub fn merge_script(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "#!/bin/bash");
        let _ = writeln!(
            s,
            "# puzzlegrade: merge the shards' scorecards (after the array)."
        );
        let _ = writeln!(s, "#SBATCH --job-name=puzzlegrade-merge");
        if let Some(p) = &self.partition {
            let _ = writeln!(s, "#SBATCH --partition={p}");
        }
        let _ = writeln!(s, "#SBATCH --output={}/logs/merge.out", self.out.display());
        let _ = writeln!(s, "set -euo pipefail");
        let _ = write!(
            s,
            "exec {} merge --force {}",
            q_path(&self.harness),
            q_path(&self.out.join("scorecard.csv"))
        );
        for k in 1..=self.shards {
            let _ = write!(
                s,
                " {}",
                q_path(&self.out.join(format!("shards/shard-{k}.csv")))
            );
        }
        for a in &self.merge_args {
            let _ = write!(s, " {}", q(a));
        }
        let _ = writeln!(s);
        s
    }

    /// Submits the array, then the merge with `--dependency=afterok`.
    pub fn submit_script(&self) -> String {
        format!(
            "#!/bin/bash\n# Submit the grading array, then the merge that waits for it.\nset -euo pipefail\ncd {}\narray=$(sbatch --parsable grade.sbatch)\narray=${{array%%;*}}\nmerge=$(sbatch --parsable --dependency=afterok:\"$array\" merge.sbatch)\necho \"array $array merge ${{merge%%;*}}\"\n",
            q_path(&self.out)
        )
    }

    /// Writes the three scripts and the folders they use.
    pub fn write(&self) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        for sub in ["logs", "shards"] {
            std::fs::create_dir_all(self.out.join(sub))?;
        }
        for (name, text) in [
            ("grade.sbatch", self.grade_script()),
            ("merge.sbatch", self.merge_script()),
            ("submit.sh", self.submit_script()),
        ] {
            let path = self.out.join(name);
            std::fs::write(&path, text)?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_say_what_the_admin_would() {
        let spec = Spec {
            harness: "/opt/pg/harness".into(),
            out: "/scratch/run 1".into(),
            shards: 4,
            max_running: Some(2),
            jobs: 8,
            partition: Some("batch".into()),
            time: Some("02:00:00".into()),
            grade_args: vec!["--course".into(), "/c/x.toml".into()],
            merge_args: vec!["--course".into(), "/c/x.toml".into()],
        };
        let g = spec.grade_script();
        for line in [
            "#SBATCH --array=0-3%2",
            "#SBATCH --cpus-per-task=8",
            "#SBATCH --partition=batch",
            "#SBATCH --time=02:00:00",
            "#SBATCH --output=/scratch/run 1/logs/shard-%a.out",
            "card='/scratch/run 1'/shards/shard-$k.csv",
        ] {
            assert!(g.lines().any(|l| l == line), "{line}\n{g}");
        }
        assert!(g.contains("/opt/pg/harness grade --course /c/x.toml --shard \"$k/4\" --jobs 8"));
        assert!(!g.contains("--uid-base"), "ranges are claimed, not given");
        let m = spec.merge_script();
        assert!(m.contains(
            "merge --force '/scratch/run 1/scorecard.csv' '/scratch/run 1/shards/shard-1.csv'"
        ));
        assert!(m.trim_end().ends_with("shard-4.csv' --course /c/x.toml"));
        assert!(
            spec.submit_script()
                .contains("--dependency=afterok:\"$array\" merge.sbatch")
        );
    }
}
