//! A share of the cores for each job slot, so that cases running side by
//! side never take each other's time: with `--jobs N` at or under the
//! cores the harness may use, slot k gets the k-th of N equal shares (a
//! core each when N equals the cores, as BenchExec divides a machine among
//! parallel runs). Enforced by a cpuset cgroup per slot where there is
//! one (as root), and by the candidate's CPU affinity everywhere (which a
//! candidate could widen where no cpuset holds it).

use crate::executor::ExecError;

use std::fmt::Write as _;

/// The cores this process may run on, in order.
pub fn allowed() -> Vec<usize> {
    match rustix::thread::sched_getaffinity(None) {
        Ok(set) => (0..rustix::thread::CpuSet::MAX_CPU)
            .filter(|&c| set.is_set(c))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Each of `slots` job slots' cores, from `allowed`: equal shares in
/// order, the rest of the division left to the harness. `Err` says why
/// the slots share every core instead: one slot (it has them all), or
/// more slots than cores.
pub fn share(allowed: &[usize], slots: usize) -> Result<Vec<Vec<usize>>, ExecError> {
    if slots < 2 {
        return Err(ExecError::OneJob);
    }
    let each = allowed.len() / slots;
    if each == 0 {
        return Err(ExecError::FewCores {
            slots,
            cores: allowed.len(),
        });
    }
    Ok(allowed
        .chunks(each)
        .take(slots)
        .map(<[usize]>::to_vec)
        .collect())
}

/// `cores` in the kernel's list form (`0-3,6`), as `cpuset.cpus` takes it.
pub fn list(cores: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cores.len() {
        let start = cores[i];
        let mut end = start;
        while i + 1 < cores.len() && cores[i + 1] == end + 1 {
            i += 1;
            end = cores[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        i += 1;
    }
    out
}

/// Reads the kernel's list form back; `None` when it is not one.
#[cfg(test)]
pub fn parse_list(text: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b >= rustix::thread::CpuSet::MAX_CPU {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Keeps this process (and what it starts) on `cores`.
pub fn pin(cores: &[usize]) -> Result<(), ExecError> {
    let mut set = rustix::thread::CpuSet::new();
    for &c in cores {
        set.set(c);
    }
    rustix::thread::sched_setaffinity(None, &set)
        .map_err(|e| ExecError::system(format!("keep to cores {}", list(cores)), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_equal_and_in_order() {
        assert_eq!(share(&[0, 1], 2).unwrap(), [vec![0], vec![1]]);
        assert_eq!(
            share(&[0, 1, 2, 3, 4, 5, 6, 7], 3).unwrap(),
            [vec![0, 1], vec![2, 3], vec![4, 5]],
            "two cores left to the harness"
        );
        assert_eq!(share(&[2, 5, 7], 3).unwrap(), [vec![2], vec![5], vec![7]]);
        assert_eq!(
            share(&[0, 1], 1).unwrap_err().to_string(),
            "one job at a time: the job has every core"
        );
        assert_eq!(
            share(&[0, 1], 3).unwrap_err().to_string(),
            "3 jobs on 2 cores: cases share the cores"
        );
    }

    #[test]
    fn lists_are_written_and_read_as_the_kernel_does() {
        assert_eq!(list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(list(&[5]), "5");
        assert_eq!(list(&[]), "");
        assert_eq!(parse_list("0-3,6,8-9\n"), Some(vec![0, 1, 2, 3, 6, 8, 9]));
        assert_eq!(parse_list("1"), Some(vec![1]));
        for bad in ["", "3-1", "x", "1-", "0-99999"] {
            assert_eq!(parse_list(bad), None, "{bad}");
        }
    }

    #[test]
    fn this_process_runs_somewhere() {
        assert!(!allowed().is_empty());
    }
}
