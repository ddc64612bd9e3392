//! A case's view of the cgroups: its own alone. The case's process makes
//! a cgroup namespace rooted at its cgroups (after joining them) and, in a
//! mount namespace of its own, mounts each hierarchy it is in again at
//! that hierarchy's usual place ([`Place`]): what it then sees under
//! `/sys/fs/cgroup` is its own cgroup's files, as in a container (a JVM
//! still finds its memory limit), and nothing of another case or run.
//! bubblewrap binds the same folders at the same places instead.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{CaseCgroup, Cgroups};

/// Where the hierarchies usually are.
const TOP: &str = "/sys/fs/cgroup";

/// One hierarchy of a case's cgroups, as the case sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Where the hierarchy is mounted (`/sys/fs/cgroup/memory`).
    pub point: PathBuf,
    /// The case's folder in it.
    pub dir: PathBuf,
    /// `cgroup` (v1) or `cgroup2`.
    pub fstype: &'static str,
    /// The mount's options naming the hierarchy (v1: its controllers or
    /// `name=`); empty for v2.
    pub options: String,
}

impl Cgroups {
    /// The places of `case`'s cgroups, its job slot's cpuset (`slot`)
    /// among them, and of every other hierarchy of the machine whole
    /// (none of them holds a run's folder; a JVM looks for each).
    pub fn view(&self, case: &CaseCgroup, slot: usize) -> Vec<Place> {
        let cpuset = self
            .cpusets
            .as_ref()
            .and_then(|(_, slots, _)| slots.get(slot));
        let dirs: Vec<&PathBuf> = case.dirs.iter().map(|(_, d)| d).chain(cpuset).collect();
        let mounts = mounts();
        let usual = mounts.iter().all(|(point, ..)| point.starts_with(TOP));
        if !usual {
            // (Hierarchies elsewhere than under /sys/fs/cgroup: no view.)
            return Vec::new();
        }
        mounts
            .iter()
            .map(|(point, ..)| {
                let dir = dirs.iter().find(|d| d.starts_with(point));
                place(mounts, dir.map_or(point.as_path(), |d| d.as_path()))
            })
            .collect::<Option<_>>()
            .unwrap_or_default()
    }
}

/// The cgroup mounts of this machine (mount point, type, options), read
/// once: they do not change while the harness runs.
fn mounts() -> &'static [(PathBuf, &'static str, String)] {
    static MOUNTS: OnceLock<Vec<(PathBuf, &'static str, String)>> = OnceLock::new();
    MOUNTS.get_or_init(|| {
        std::fs::read_to_string("/proc/self/mountinfo")
            .map(|m| parse(&m))
            .unwrap_or_default()
    })
}

/// The cgroup mounts in `mountinfo` (mount point, type), with the options
/// that name each hierarchy (its controllers, or `name=`).
pub(super) fn parse(mountinfo: &str) -> Vec<(PathBuf, &'static str, String)> {
    const FLAGS: [&str; 8] = [
        "rw",
        "ro",
        "xattr",
        "noprefix",
        "clone_children",
        "cpuset_v2_mode",
        "favordynmods",
        "none",
    ];
    mountinfo
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let point = PathBuf::from(left.split_whitespace().nth(4)?);
            let mut fields = right.split_whitespace();
            let (fstype, _, options) = (fields.next()?, fields.next(), fields.next());
            match fstype {
                "cgroup2" => Some((point, "cgroup2", String::new())),
                "cgroup" => {
                    let names: Vec<&str> = options
                        .unwrap_or("")
                        .split(',')
                        .filter(|o| {
                            o.starts_with("name=") || !(o.contains('=') || FLAGS.contains(o))
                        })
                        .collect();
                    Some((point, "cgroup", names.join(",")))
                }
                _ => None,
            }
        })
        .collect()
}

/// The place of `dir`: the mount it is under (the deepest).
fn place(mounts: &[(PathBuf, &'static str, String)], dir: &Path) -> Option<Place> {
    mounts
        .iter()
        .filter(|(point, _, _)| dir.starts_with(point))
        .max_by_key(|(point, _, _)| point.components().count())
        .map(|(point, fstype, options)| Place {
            point: point.clone(),
            dir: dir.to_owned(),
            fstype,
            options: options.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_folder_is_placed_at_its_hierarchy_with_its_names() {
        let mounts = parse(
            "\
35 25 0:30 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
36 35 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
40 35 0:35 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 35 0:36 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd
42 35 0:37 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct,release_agent=/x
",
        );
        let at = |dir: &str| place(&mounts, Path::new(dir)).unwrap();
        assert_eq!(
            at("/sys/fs/cgroup/memory/pg-1/case-3"),
            Place {
                point: "/sys/fs/cgroup/memory".into(),
                dir: "/sys/fs/cgroup/memory/pg-1/case-3".into(),
                fstype: "cgroup",
                options: "memory".into(),
            }
        );
        assert_eq!(at("/sys/fs/cgroup/cpu,cpuacct/pg-1").options, "cpu,cpuacct");
        assert_eq!(at("/sys/fs/cgroup/systemd/x").options, "name=systemd");
        let unified = at("/sys/fs/cgroup/unified/pg-1/case-3");
        assert_eq!((unified.fstype, unified.options.as_str()), ("cgroup2", ""));
        assert_eq!(unified.point, Path::new("/sys/fs/cgroup/unified"));
        assert!(place(&mounts, Path::new("/tmp/x")).is_none());
    }
}
