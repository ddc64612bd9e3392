//! The case's view of its own cgroups, made by its process (see `spawn`)
//! in the mount and cgroup namespaces it has just made of its own: what
//! was at `/sys/fs/cgroup` (every hierarchy of the machine) is let go, and
//! each hierarchy the case is in is mounted again from inside the cgroup
//! namespace (so rooted at the case's cgroup), at its usual place: on a
//! small read-only tmpfs there for v1's many, or itself for v2's one.

use std::ffi::CString;

use rustix::mount::{MountFlags, UnmountFlags};

/// Where the cgroup hierarchies are (every place is here or below).
pub(super) const TOP: &std::ffi::CStr = c"/sys/fs/cgroup";

/// Mounts each of `places` (place, type, options) again; bare system calls
/// on the plan's strings, safe in the `vfork` child.
pub(in crate::executor) fn remount(places: &[[CString; 3]]) -> rustix::io::Result<()> {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    rustix::mount::unmount(TOP, UnmountFlags::DETACH)?;
    let below = places.iter().all(|[point, ..]| point.as_c_str() != TOP);
    if below {
        rustix::mount::mount(c"tmpfs", TOP, c"tmpfs", flags, Some(c"size=16k,mode=755"))?;
        for [point, ..] in places {
            rustix::fs::mkdir(point.as_c_str(), rustix::fs::Mode::from_raw_mode(0o755))?;
        }
    }
    for [point, fstype, options] in places {
        let options = (!options.is_empty()).then_some(options.as_c_str());
        let (point, fstype) = (point.as_c_str(), fstype.as_c_str());
        rustix::mount::mount(fstype, point, fstype, flags | MountFlags::RDONLY, options)?;
    }
    if below {
        rustix::mount::mount_remount(TOP, flags | MountFlags::RDONLY, c"")?;
    }
    Ok(())
}
