//! A view's mounts, made in the mount namespace of a job slot's keeper
//! (see `keeper`): the rest of the system read-only, a fresh tmpfs for
//! the private places (a folder of it at each: one file system, so one
//! look after a case shows whether it left anything in any of them), what
//! the case needs bound back at its place; and between cases, the private
//! places emptied of what a case left.

use std::path::Path;

use super::view::{Step, View};
use crate::executor::ExecError;

impl View {
    /// Builds the view in a new mount namespace of this process's own (a
    /// job slot's keeper's), for the slot's cases to enter one after
    /// another (each makes an IPC namespace of its own); the harness
    /// empties the private folders between them ([`View::clear`]).
    pub fn enter_kept(&self) -> Result<(), ExecError> {
        use rustix::thread::UnshareFlags;
        // SAFETY: no FILES flag: the descriptor table stays shared.
        #[allow(unsafe_code)]
        unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) }
            .map_err(|e| ExecError::system("make the slot's mount namespace", e))?;
        self.build()
    }

    /// The mounts of the view, in this process's mount namespace (a new
    /// one, which they change).
    fn build(&self) -> Result<(), ExecError> {
        use rustix::fs::CWD;
        use rustix::mount::{
            MountAttrFlags, MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags,
        };
        rustix::mount::mount_change(
            "/",
            MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
        )
        .map_err(|e| ExecError::system("make the case's mounts private", e))?;
        // What is kept, taken before any root is replaced, as it is (the
        // slot's user may write there what its permissions allow: what
        // the command line names is the grader's choice).
        let mut kept = Vec::new();
        for step in &self.steps {
            if let Step::Keep(p, _) = step {
                let tree = rustix::mount::open_tree(
                    CWD,
                    p,
                    OpenTreeFlags::OPEN_TREE_CLONE
                        | OpenTreeFlags::OPEN_TREE_CLOEXEC
                        | OpenTreeFlags::AT_RECURSIVE,
                )
                .map_err(|e| ExecError::system(format!("take {}", p.display()), e))?;
                // Reads leave no access time a later case could see (the
                // first to read a shared file, a puzzle copy, could say
                // something by when it read it).
                set_attr(&tree, MountAttrFlags::MOUNT_ATTR_NOATIME).map_err(|e| {
                    ExecError::system(format!("keep {} without access times", p.display()), e)
                })?;
                kept.push((tree, p.is_dir()));
            }
        }
        // The rest of the system read-only: a world-writable folder the
        // view neither replaces nor keeps (a /var/crash, a 1777 folder a
        // course left) takes nothing that could outlive the case. Device
        // files stay usable (a read-only mount stops no write to
        // /dev/null).
        let root = rustix::fs::open(
            "/",
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| ExecError::system("open /", e))?;
        set_attr(&root, MountAttrFlags::MOUNT_ATTR_RDONLY)
            .map_err(|e| ExecError::system("make the system read-only", e))?;
        let options = std::ffi::CString::new(format!(
            "size={},nr_inodes=65536,mode=1777",
            self.size.max(1 << 20)
        ))
        .map_err(|_| ExecError::BadView("a size with a NUL"))?;
        let mut trees = kept.into_iter();
        let privates = self
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Private(_)))
            .count();
        // The tmpfs, mounted at the first private place and covered there
        // by its own first folder; each place gets a folder of it.
        let mut tmpfs: Option<std::os::fd::OwnedFd> = None;
        let mut place = 0;
        for step in &self.steps {
            match step {
                Step::Private(p) => {
                    let failed = |e: rustix::io::Errno| {
                        ExecError::system(format!("make a private {}", p.display()), e)
                    };
                    if tmpfs.is_none() {
                        rustix::mount::mount(
                            "tmpfs",
                            p,
                            "tmpfs",
                            MountFlags::NOSUID | MountFlags::NODEV,
                            Some(options.as_c_str()),
                        )
                        .map_err(failed)?;
                        let fd = rustix::fs::open(
                            p,
                            rustix::fs::OFlags::PATH
                                | rustix::fs::OFlags::DIRECTORY
                                | rustix::fs::OFlags::CLOEXEC,
                            rustix::fs::Mode::empty(),
                        )
                        .map_err(failed)?;
                        let open = rustix::fs::Mode::from_raw_mode(0o1777);
                        for n in 0..privates {
                            // (chmod: the umask takes bits away.)
                            rustix::fs::mkdirat(&fd, n.to_string(), open)
                                .and_then(|()| {
                                    rustix::fs::chmodat(
                                        &fd,
                                        n.to_string(),
                                        open,
                                        rustix::fs::AtFlags::empty(),
                                    )
                                })
                                .map_err(failed)?;
                        }
                        tmpfs = Some(fd);
                    }
                    let fd = tmpfs.as_ref().expect("mounted above");
                    let folder = rustix::mount::open_tree(
                        fd,
                        place.to_string(),
                        OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC,
                    )
                    .map_err(failed)?;
                    // (Inside another private place: made there first.)
                    mount_point(p, true)?;
                    rustix::mount::move_mount(
                        &folder,
                        "",
                        CWD,
                        p,
                        MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
                    )
                    .map_err(failed)?;
                    place += 1;
                }
                Step::Keep(p, _) => {
                    let (tree, dir) = trees
                        .next()
                        .ok_or(ExecError::BadView("a kept path went missing"))?;
                    mount_point(p, dir)?;
                    rustix::mount::move_mount(
                        &tree,
                        "",
                        CWD,
                        p,
                        MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
                    )
                    .map_err(|e| ExecError::system(format!("keep {}", p.display()), e))?;
                }
            }
        }
        // A process table of the case's own: the slot's user sees its own
        // processes in /proc, none of another slot's, run's or the
        // harness's (their command lines name other students' work).
        rustix::mount::mount(
            "proc",
            "/proc",
            "proc",
            MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            Some(c"hidepid=2"),
        )
        .map_err(|e| ExecError::system("hide other processes in /proc", e))?;
        Ok(())
    }

    /// The view's private places, seen through `root` (the view's root
    /// from outside it: `/proc/PID/root` of a process in it), opened for
    /// [`inodes`] (a path into another mount namespace costs a lookup
    /// through `/proc` each time; a descriptor, none): the first only, as
    /// they are all folders of one tmpfs.
    pub fn places(&self, root: &Path) -> Result<Vec<std::os::fd::OwnedFd>, ExecError> {
        self.open_places(root, 1)
    }

    /// Every private place, seen through `root`, opened for [`inodes`]:
    /// under bubblewrap, each is a tmpfs of its own.
    pub fn private_places(&self, root: &Path) -> Result<Vec<std::os::fd::OwnedFd>, ExecError> {
        self.open_places(root, usize::MAX)
    }

    fn open_places(
        &self,
        root: &Path,
        most: usize,
    ) -> Result<Vec<std::os::fd::OwnedFd>, ExecError> {
        use rustix::fs::{Mode, OFlags};
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Private(p) => Some(p),
                Step::Keep(..) => None,
            })
            .take(most)
            .map(|p| {
                let at = inside(root, p);
                rustix::fs::open(
                    &at,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| ExecError::system(format!("open {}", at.display()), e))
            })
            .collect()
    }

    /// Empties the private folders of a kept view, seen through `root` (as
    /// for [`View::places`]), of whatever a case left there: every entry
    /// but those the view itself made (the folders on the way to what it
    /// keeps, root's and closed to the case). Nothing is followed out of a
    /// folder (a symlink is removed, not its target). Only once no process
    /// of the case is left: nothing then changes them meanwhile.
    pub fn clear(&self, root: &Path) -> Result<(), ExecError> {
        for step in &self.steps {
            let Step::Private(place) = step else {
                continue;
            };
            let own = self.made_in(place);
            let dir = inside(root, place);
            let entries = std::fs::read_dir(&dir)
                .map_err(|e| ExecError::system(format!("list {}", dir.display()), e))?;
            for entry in entries {
                let entry =
                    entry.map_err(|e| ExecError::system(format!("list {}", dir.display()), e))?;
                if own.iter().any(|n| *n == entry.file_name()) {
                    continue;
                }
                let path = entry.path();
                let gone = match entry.file_type() {
                    Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
                    _ => std::fs::remove_file(&path),
                };
                gone.map_err(|e| ExecError::system(format!("remove {}", path.display()), e))?;
            }
        }
        Ok(())
    }

    /// The names in private folder `root` that the view made itself: the
    /// first step below it of everything the view puts inside it.
    fn made_in(&self, root: &Path) -> Vec<std::ffi::OsString> {
        let mut out: Vec<std::ffi::OsString> = Vec::new();
        for step in &self.steps {
            if let Ok(rest) = step.path().strip_prefix(root)
                && let Some(first) = rest.components().next()
            {
                let name = first.as_os_str().to_owned();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }
}

/// Whether a kept view's private places (`places`, opened through its
/// `root`) hold nothing of the last case: their inodes as they `were`,
/// or the places emptied ([`View::clear`]) and their inodes so again.
pub fn emptied(view: &View, root: &Path, places: &[std::os::fd::OwnedFd], were: &[u64]) -> bool {
    match inodes(places) {
        Ok(now) if now == were => true,
        Ok(_) => view.clear(root).is_ok() && inodes(places).is_ok_and(|now| now == were),
        Err(_) => false,
    }
}

/// The inodes each of `places` (see [`View::places`]) holds now: its
/// whole file system's. A case that left nothing there leaves these as
/// they were when the view was made.
pub fn inodes(places: &[std::os::fd::OwnedFd]) -> Result<Vec<u64>, ExecError> {
    places
        .iter()
        .map(|fd| {
            let st =
                rustix::fs::fstatfs(fd).map_err(|e| ExecError::system("look at a place", e))?;
            Ok(st.f_files.saturating_sub(st.f_ffree))
        })
        .collect()
}

/// `path` (absolute) below `root`.
fn inside(root: &Path, path: &Path) -> std::path::PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

/// Sets `attr` on the mount tree at `dir` and every mount below it
/// (`mount_setattr`, which rustix does not wrap): read-only, or no access
/// times (which replaces the access-time mode the mounts had).
fn set_attr(
    dir: &impl std::os::fd::AsFd,
    attr: rustix::mount::MountAttrFlags,
) -> std::io::Result<()> {
    use rustix::mount::MountAttrFlags;
    use std::os::fd::AsRawFd;
    /// `struct mount_attr` (linux/mount.h).
    #[repr(C)]
    struct MountAttr {
        attr_set: u64,
        attr_clr: u64,
        propagation: u64,
        userns_fd: u64,
    }
    let clear = if attr.intersects(MountAttrFlags::MOUNT_ATTR__ATIME) {
        MountAttrFlags::MOUNT_ATTR__ATIME
    } else {
        MountAttrFlags::empty()
    };
    let attr = MountAttr {
        attr_set: u64::from(attr.bits()),
        attr_clr: u64::from(clear.bits()),
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: every pointer is to a live value of the kernel's layout for
    // the call's duration, with its size; the descriptor is open.
    #[allow(unsafe_code)]
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dir.as_fd().as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH | libc::AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Makes `path` exist in a fresh tmpfs (a folder, or an empty file where
/// a file is kept) for a mount on top: the folders on the way are root's,
/// 0755. On a real file system it exists already.
fn mount_point(path: &Path, dir: bool) -> Result<(), ExecError> {
    use std::os::unix::fs::DirBuilderExt;
    if std::fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    let parent = path.parent().unwrap_or(Path::new("/"));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(parent)
        .map_err(|e| ExecError::system(format!("make {}", parent.display()), e))?;
    let made = if dir {
        std::fs::DirBuilder::new().mode(0o755).create(path)
    } else {
        std::fs::File::create(path).map(drop)
    };
    made.map_err(|e| ExecError::system(format!("make {}", path.display()), e))
}
