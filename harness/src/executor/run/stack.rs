//! The `vfork` child's own stack (see `spawn`), and the one number it
//! writes (its pid, in decimal, with no allocation).

use std::ffi::c_void;

/// The size of the child's stack.
pub(super) const SIZE: usize = Stack::SIZE;

/// The child's stack: mapped once per harness thread that starts cases,
/// with a guard page below it.
struct Stack {
    base: *mut c_void,
    len: usize,
}

impl Stack {
    const SIZE: usize = 256 << 10;
    const GUARD: usize = 4096;

    fn new() -> std::io::Result<Self> {
        use rustix::mm::{MapFlags, MprotectFlags, ProtFlags};
        let len = Self::SIZE + Self::GUARD;
        // SAFETY: a fresh private anonymous mapping, no address asked for;
        // only this Stack uses it, and it is unmapped on drop.
        #[allow(unsafe_code)]
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::STACK,
            )?
        };
        // SAFETY: the lowest page of the mapping made above.
        #[allow(unsafe_code)]
        unsafe {
            rustix::mm::mprotect(base, Self::GUARD, MprotectFlags::empty())?;
        }
        Ok(Self { base, len })
    }

    /// The top (stacks grow down), 16-byte aligned.
    fn top(&self) -> *mut c_void {
        self.base.wrapping_byte_add(self.len)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, used by no child any more (a
        // child runs on it only while this thread waits in `spawn`).
        #[allow(unsafe_code)]
        unsafe {
            let _ = rustix::mm::munmap(self.base, self.len);
        }
    }
}

thread_local! {
    static STACK: std::cell::RefCell<Option<Stack>> = const { std::cell::RefCell::new(None) };
}

/// `f` given the top of this thread's stack for a `vfork`'d child (mapped
/// on the thread's first use; the thread waits in `f` while the child
/// runs on it, so one stack serves every child the thread starts: a
/// case's process, `kill_all`'s killer).
pub(in crate::executor) fn with_top<R>(f: impl FnOnce(*mut c_void) -> R) -> std::io::Result<R> {
    STACK.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(Stack::new()?);
        }
        Ok(f(slot.as_ref().map_or(std::ptr::null_mut(), Stack::top)))
    })
}

/// Waits for `pid`, a child this thread started on its stack (whose exit
/// signal may be none: `__WALL`), and returns its wait status.
pub(in crate::executor) fn wait_for(pid: libc::c_int) -> std::io::Result<libc::c_int> {
    let mut status = 0;
    loop {
        // SAFETY: waits for exactly that child.
        #[allow(unsafe_code)]
        let r = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
        if r == pid {
            return Ok(status);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `n` in decimal, in `buf`.
pub(super) fn decimal(mut n: u32, buf: &mut [u8; 12]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    &buf[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_are_written_in_decimal() {
        let mut buf = [0u8; 12];
        assert_eq!(decimal(0, &mut buf), b"0");
        assert_eq!(decimal(4_194_304, &mut buf), b"4194304");
        assert_eq!(decimal(u32::MAX, &mut buf), b"4294967295");
    }
}
