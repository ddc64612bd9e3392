//! The seccomp filter every isolated case runs under (outside bubblewrap,
//! with `no_new_privs`): the calls no puzzle solver needs that reach
//! state shared beyond the case or the kernel's riskiest surface answer
//! EPERM: the kernel keyrings (a key one case stores, a later case of the
//! same user would find), io_uring, bpf, perf events and userfaultfd.
//! Everything else is allowed: interpreters and the JVM run as ever.

use std::sync::OnceLock;

/// The filter's program, compiled once (`None`: it could not be, on
/// this architecture; the case then runs without it).
pub(in crate::executor) fn program() -> Option<&'static [libc::sock_filter]> {
    static PROGRAM: OnceLock<Option<Vec<libc::sock_filter>>> = OnceLock::new();
    PROGRAM.get_or_init(compile).as_deref()
}

/// The calls refused.
const REFUSED: [i64; 9] = [
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
];

fn compile() -> Option<Vec<libc::sock_filter>> {
    use seccompiler::{SeccompAction, SeccompFilter};
    let arch = std::env::consts::ARCH.try_into().ok()?;
    let filter = SeccompFilter::new(
        REFUSED.iter().map(|&call| (call, vec![])).collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .ok()?;
    let program: seccompiler::BpfProgram = filter.try_into().ok()?;
    Some(
        program
            .into_iter()
            .map(|f| libc::sock_filter {
                code: f.code,
                jt: f.jt,
                jf: f.jf,
                k: f.k,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_here() {
        let program = super::program().expect("a filter for this architecture");
        assert!(program.len() > super::REFUSED.len());
    }
}
