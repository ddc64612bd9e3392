//! Where a run's cgroups go: the hierarchies this machine mounts (from
//! `/proc/self/mountinfo`), this process's place in each (from
//! `/proc/self/cgroup`), and on pure v2 the delegation of the controllers
//! to the run's folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::executor::ExecError;

/// The v1 mounts (controller, mount point) and the v2 mount, from
/// `/proc/self/mountinfo`.
pub(in crate::executor) fn parse_mounts(
    mountinfo: &str,
) -> (Vec<(String, PathBuf)>, Option<PathBuf>) {
    let mut v1 = Vec::new();
    let mut v2 = None;
    for (m, fstype, names) in super::view::parse(mountinfo) {
        match fstype {
            // Prefer the pure-v2 mount at /sys/fs/cgroup.
            "cgroup2" if v2.is_none() || m == Path::new("/sys/fs/cgroup") => v2 = Some(m),
            "cgroup" => {
                for name in names.split(',') {
                    if ["memory", "pids", "cpuacct", "freezer", "cpuset"].contains(&name) {
                        v1.push((name.to_string(), m.clone()));
                    }
                }
            }
            _ => {}
        }
    }
    (v1, v2)
}

/// This process's cgroup path for a v1 controller, or in v2 (`None`).
pub(in crate::executor) fn own_cgroup(
    proc_cgroup: &str,
    controller: Option<&str>,
) -> Option<String> {
    proc_cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, ctls, path) = (parts.next()?, parts.next()?, parts.next()?);
        let hit = match controller {
            None => ctls.is_empty(),
            Some(c) => ctls.split(',').any(|x| x == c),
        };
        hit.then(|| path.to_string())
    })
}

pub(in crate::executor) fn join(mount: &Path, own: &str) -> PathBuf {
    mount.join(own.trim_start_matches('/'))
}

pub(in crate::executor) fn make(dir: &Path) -> Result<PathBuf, ExecError> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(dir.to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(dir.to_owned()),
        Err(e) => Err(ExecError::io("create", dir, e)),
    }
}

/// Pure v2: a run folder under `own` with the memory and pids controllers
/// enabled for its cases. v2 lets a cgroup hand controllers to children
/// only while it has no processes itself, so when `own` holds this
/// process, the process first moves into a leaf of the run folder.
pub(in crate::executor) fn delegate(own: &Path, name: &str) -> Result<PathBuf, ExecError> {
    let want = "+memory +pids";
    let controllers = std::fs::read_to_string(own.join("cgroup.controllers")).unwrap_or_default();
    for c in ["memory", "pids"] {
        if !controllers.split_whitespace().any(|x| x == c) {
            return Err(ExecError::NotDelegated {
                controller: c,
                path: own.to_owned(),
            });
        }
    }
    let run = make(&own.join(name))?;
    let enable = |dir: &Path| std::fs::write(dir.join("cgroup.subtree_control"), want);
    if enable(own).is_err() {
        let leaf = make(&run.join("harness"))?;
        std::fs::write(leaf.join("cgroup.procs"), std::process::id().to_string())
            .map_err(|e| ExecError::io("move the harness into", &leaf, e))?;
        enable(own).map_err(|e| ExecError::io("enable controllers in", own, e))?;
    }
    enable(&run).map_err(|e| ExecError::io("enable controllers in", &run, e))?;
    Ok(run)
}

/// Removes cgroup folders, which the kernel allows once they hold no
/// process: tried again every 5 ms for 2 s at most, `between` tries.
pub(in crate::executor) fn remove_when_empty<'a>(
    dirs: impl Iterator<Item = &'a PathBuf> + Clone,
    between: impl Fn(),
) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut left = false;
        for dir in dirs.clone() {
            if dir.exists() && std::fs::remove_dir(dir).is_err() {
                left = true;
            }
        }
        if !left || Instant::now() >= deadline {
            break;
        }
        between();
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID: &str = "\
35 25 0:30 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
36 35 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
40 35 0:35 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 35 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
42 35 0:37 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
";

    #[test]
    fn mounts_and_own_paths_are_read() {
        let (v1, v2) = parse_mounts(HYBRID);
        assert_eq!(v2, Some(PathBuf::from("/sys/fs/cgroup/unified")));
        let ctls: Vec<&str> = v1.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(ctls, ["memory", "pids", "cpuacct"]);
        assert_eq!(v1[2].1, PathBuf::from("/sys/fs/cgroup/cpu,cpuacct"));
        let pure = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(
            parse_mounts(pure),
            (vec![], Some(PathBuf::from("/sys/fs/cgroup")))
        );

        let own = "9:name=systemd:/\n4:memory:/api/x\n2:cpu,cpuacct:/\n0::/user.slice/s\n";
        assert_eq!(own_cgroup(own, Some("memory")).as_deref(), Some("/api/x"));
        assert_eq!(own_cgroup(own, Some("cpuacct")).as_deref(), Some("/"));
        assert_eq!(own_cgroup(own, None).as_deref(), Some("/user.slice/s"));
        assert_eq!(own_cgroup(own, Some("pids")), None);
    }

    /// Pure v2 delegation on a folder that stands in for a cgroup: the
    /// controllers must be offered, and are then enabled for the run's
    /// cases. (The kernel's own refusals cannot be faked in a plain
    /// folder; pure v2 is untested on this project's hybrid machines.)
    #[test]
    fn v2_delegation_enables_the_controllers() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path();
        std::fs::write(own.join("cgroup.controllers"), "cpu io memory pids\n").unwrap();
        let run = delegate(own, "puzzlegrade-1").unwrap();
        assert_eq!(run, own.join("puzzlegrade-1"));
        assert_eq!(
            std::fs::read_to_string(run.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids"
        );
        std::fs::write(own.join("cgroup.controllers"), "cpu io\n").unwrap();
        let err = delegate(own, "puzzlegrade-2").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the memory controller is not delegated"),
            "{err}"
        );
    }
}
