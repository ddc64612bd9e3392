//! The files a run hands back ([`crate::executor::Spec::returns`]): read
//! from the process's working folder after it ended, as the harness (who
//! may be root), so never through a link, never from a FIFO or a device,
//! and at most [`RETURNED_BYTES`] of each.

use std::io::Read;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use crate::executor::RETURNED_BYTES;

/// The regular files of `names` in folder `dir`, each with its first
/// [`RETURNED_BYTES`] bytes; a name that is not there (or is a link,
/// a folder, a FIFO) is left out.
pub(in crate::executor) fn read(dir: &Path, names: &[String]) -> Vec<(String, Vec<u8>)> {
    names
        .iter()
        .filter(|n| !n.contains('/'))
        .filter_map(|name| {
            let fd = rustix::fs::open(
                dir.join(name),
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok()?;
            let stat = rustix::fs::fstat(&fd).ok()?;
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                != rustix::fs::FileType::RegularFile
            {
                return None;
            }
            let mut bytes = Vec::new();
            std::fs::File::from(fd)
                .take(RETURNED_BYTES)
                .read_to_end(&mut bytes)
                .ok()?;
            Some((name.clone(), bytes))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_handed_back_and_no_more_than_the_cap() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::write(d.join("judgemessage.txt"), "line 3 is wrong\n").unwrap();
        std::fs::write(d.join("big"), vec![b'x'; RETURNED_BYTES as usize + 10]).unwrap();
        std::fs::write(d.join("secret"), "not yours").unwrap();
        std::os::unix::fs::symlink(d.join("secret"), d.join("score.txt")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            d.join("fifo"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let names = [
            "judgemessage.txt",
            "score.txt",
            "fifo",
            "big",
            "gone",
            "../x",
        ]
        .map(String::from);
        let got = read(d, &names);
        assert_eq!(
            got[0],
            ("judgemessage.txt".into(), b"line 3 is wrong\n".to_vec())
        );
        assert_eq!(
            (got[1].0.as_str(), got[1].1.len() as u64),
            ("big", RETURNED_BYTES)
        );
        assert_eq!(got.len(), 2, "no link, FIFO, missing name or path");
    }
}
