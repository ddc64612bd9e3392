//! What each part of a course runs for every submission, worked out once
//! for the whole class: its suite cases (shared by every submission, so
//! each puzzle loads once) or its battery of probes.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use reference::family::Role;

use crate::course::{Course, PartKind};
use crate::discover::discover;
use crate::job::{Case, Probe};

/// The case jobs of each part, discovered once for the whole class, and the
/// batteries of the conformance parts.
pub struct Plan {
    /// Per part (config order): its work.
    pub parts: Vec<PartPlan>,
    _battery_dir: tempfile::TempDir,
}

/// What one part runs for every submission.
pub enum PartPlan {
    /// Suite cases (suite names not yet prefixed by the part).
    Cases(Vec<Arc<Case>>),
    /// A conformance battery: named probes.
    Battery {
        /// The probes, by case name.
        probes: Vec<(String, Arc<Probe>)>,
        /// The role.
        role: Role,
    },
}

impl Plan {
    /// Discovers each part's cases; cases a part gives in another format
    /// get converted copies under `work`.
    pub fn new(course: &Course, work: &Path, filter: Option<&str>) -> anyhow::Result<Self> {
        // In the system's temporary folder, not the class's (often on
        // /dev/shm, which a sandbox's own /dev hides): probes name their
        // files by path.
        let battery_dir = tempfile::Builder::new()
            .prefix("puzzlegrade-battery-")
            .tempdir()
            .context("cannot make the batteries' folder")?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(battery_dir.path(), std::fs::Permissions::from_mode(0o755))
                .context("cannot open the batteries' folder to candidates")?;
        }
        let mut parts = Vec::new();
        for (i, part) in course.parts.iter().enumerate() {
            let name = &part.file.name;
            let plan = match part.kind {
                PartKind::Suites(grader) => {
                    let mut cases = discover(&part.suites, Some(course.family), None)
                        .with_context(|| format!("part {name:?}"))?;
                    if let Some(set) = &part.cases {
                        cases.retain(|c| set.is_match(format!("{}/{}", c.suite, c.name)));
                        if cases.is_empty() {
                            bail!(
                                "{}: part {name:?}: no case matches {:?}",
                                course.path.display(),
                                part.file.cases
                            );
                        }
                    }
                    if let Some(f) = filter {
                        cases.retain(|c| format!("{name}/{}/{}", c.suite, c.name).contains(f));
                    }
                    for case in &mut cases {
                        // (A question judges the family's cases; a problem
                        // package's cases keep their package's own grader.)
                        if case.family.name() != grader.name() {
                            case.family = grader;
                        }
                        case.loaded = Default::default();
                    }
                    if let Some(format) = &part.format {
                        crate::course::convert::convert_cases(
                            course.family,
                            format,
                            &mut cases,
                            &work.join(format!("converted-{i}")),
                        )?;
                    }
                    PartPlan::Cases(cases.into_iter().map(Arc::new).collect())
                }
                PartKind::Conform(_) if filter.is_some_and(|f| !name.contains(f)) => {
                    PartPlan::Cases(Vec::new())
                }
                PartKind::Conform(role) => {
                    let dir = battery_dir.path().join(format!("{i}"));
                    std::fs::create_dir(&dir)?;
                    let probes = part
                        .probes(course.family, role, &dir)
                        .with_context(|| format!("part {name:?}"))?;
                    PartPlan::Battery {
                        probes: probes.into_iter().map(|(n, p)| (n, Arc::new(p))).collect(),
                        role,
                    }
                }
            };
            parts.push(plan);
        }
        Ok(Self {
            parts,
            _battery_dir: battery_dir,
        })
    }

    /// Every (suite, case) a submission gets, suites prefixed by the part.
    pub fn keys(&self, course: &Course) -> Vec<(String, String)> {
        let mut keys = Vec::new();
        for (part, plan) in course.parts.iter().zip(&self.parts) {
            let name = &part.file.name;
            match plan {
                PartPlan::Cases(cases) => {
                    keys.extend(
                        cases
                            .iter()
                            .map(|c| (format!("{name}/{}", c.suite), c.name.clone())),
                    );
                }
                PartPlan::Battery { probes, role } => {
                    let suite = format!(
                        "{name}/{}",
                        crate::battery::suite_name(course.family.name(), *role)
                    );
                    keys.extend(probes.iter().map(|(n, _)| (suite.clone(), n.clone())));
                }
            }
        }
        keys
    }

    /// The expected cost of each of [`Plan::keys`], in order (a case's
    /// puzzle files' [`crate::job::size_cost`], a probe's one start).
    pub fn costs(&self) -> Vec<f64> {
        let mut costs = Vec::new();
        for plan in &self.parts {
            match plan {
                PartPlan::Cases(cases) => costs.extend(cases.iter().map(|c| c.expected_cost())),
                PartPlan::Battery { probes, .. } => costs.extend(probes.iter().map(|_| 1.0)),
            }
        }
        costs
    }
}
