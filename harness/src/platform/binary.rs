//! How a harness binary a kit ships is linked: static (it runs on any
//! platform image), or against the C library of the machine that built it
//! (it needs that glibc or a later one on the image). Read from the ELF
//! file's program headers (an interpreter means dynamic linking) and its
//! version needs (`GLIBC_2.34`), with the `object` crate.

use std::path::{Path, PathBuf};

use object::read::elf::{ElfFile64, FileHeader, ProgramHeader};

/// How a binary is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linking {
    /// Statically: no loader, no shared C library.
    Static,
    /// Dynamically: the newest glibc version it asks for, where it names
    /// one (`(2, 34)`).
    Dynamic(Option<(u32, u32)>),
}

impl std::fmt::Display for Linking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Linking::Static => write!(f, "static"),
            Linking::Dynamic(Some((major, minor))) => write!(
                f,
                "dynamically linked: the image needs glibc {major}.{minor} or later"
            ),
            Linking::Dynamic(None) => write!(f, "dynamically linked"),
        }
    }
}

/// How the ELF file `bytes` is linked; `None` for what is not a 64-bit
/// ELF file (a test's stand-in, another format).
pub fn linking(bytes: &[u8]) -> Option<Linking> {
    let file = ElfFile64::<object::Endianness>::parse(bytes).ok()?;
    let endian = file.endian();
    let dynamic = file
        .elf_program_headers()
        .iter()
        .any(|p| p.p_type(endian) == object::elf::PT_INTERP);
    if !dynamic {
        return Some(Linking::Static);
    }
    Some(Linking::Dynamic(glibc_needed(
        file.elf_header(),
        endian,
        bytes,
    )))
}

/// The newest `GLIBC_x.y` among the file's version needs.
fn glibc_needed(
    header: &object::elf::FileHeader64<object::Endianness>,
    endian: object::Endianness,
    bytes: &[u8],
) -> Option<(u32, u32)> {
    let sections = header.sections(endian, bytes).ok()?;
    let (mut needs, link) = sections.gnu_verneed(endian, bytes).ok()??;
    let strings = sections.strings(endian, bytes, link).ok()?;
    let mut newest = None;
    while let Ok(Some((_, mut aux))) = needs.next() {
        while let Ok(Some(a)) = aux.next() {
            let Ok(name) = a.name(endian, strings) else {
                continue;
            };
            let version = std::str::from_utf8(name)
                .ok()
                .and_then(|n| n.strip_prefix("GLIBC_"))
                .and_then(|v| {
                    let mut parts = v.split('.').map(str::parse::<u32>);
                    Some((parts.next()?.ok()?, parts.next().unwrap_or(Ok(0)).ok()?))
                });
            newest = newest.max(version);
        }
    }
    newest
}

/// The static build beside a dynamically linked harness `exe` that a kit
/// ships instead: `target/dist/harness` of the checkout whose
/// `target/release/harness` `exe` is (what `cargo run --release` runs), as
/// `scripts/release` writes it, where it is static and no older than
/// `exe`. `None` where `exe` is static already or there is no such build.
pub fn static_build_beside(exe: &Path) -> Option<PathBuf> {
    let read = |p: &Path| std::fs::read(p).ok().and_then(|b| linking(&b));
    if read(exe)? == Linking::Static {
        return None;
    }
    let release = exe.parent()?;
    if release.file_name()? != "release" {
        return None;
    }
    let dist = release.parent()?.join("dist").join("harness");
    let age = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (read(&dist)? == Linking::Static && age(&dist)? >= age(exe)?).then_some(dist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_and_dynamic_binaries_are_told_apart() {
        // This test binary: linked against the build machine's glibc.
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        match linking(&me) {
            Some(Linking::Dynamic(Some((2, minor)))) => assert!(minor >= 17, "{minor}"),
            other => panic!("the test binary: {other:?}"),
        }
        assert_eq!(linking(b"#!/bin/sh\n"), None, "not ELF");
        // ldconfig is static wherever glibc is (it must run without it).
        for ldconfig in ["/sbin/ldconfig", "/usr/sbin/ldconfig"] {
            if let Ok(bytes) = std::fs::read(ldconfig) {
                assert_eq!(linking(&bytes), Some(Linking::Static), "{ldconfig}");
                return;
            }
        }
        eprintln!("note: no ldconfig here: the static case is not checked");
    }

    #[test]
    fn a_static_build_beside_a_dynamic_one_is_found_when_no_older() {
        let d = tempfile::tempdir().unwrap();
        let release = d.path().join("target/release/harness");
        let dist = d.path().join("target/dist/harness");
        std::fs::create_dir_all(release.parent().unwrap()).unwrap();
        std::fs::create_dir_all(dist.parent().unwrap()).unwrap();
        std::fs::copy(std::env::current_exe().unwrap(), &release).unwrap();
        assert_eq!(static_build_beside(&release), None, "no build beside");
        let Ok(ldconfig) = std::fs::read("/sbin/ldconfig") else {
            eprintln!("note: no /sbin/ldconfig to stand for a static build");
            return;
        };
        std::fs::write(&dist, ldconfig).unwrap();
        assert_eq!(static_build_beside(&release), Some(dist.clone()));
        assert_eq!(static_build_beside(&dist), None, "static itself");
        // Older than the harness running: stale, not shipped.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&dist)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(static_build_beside(&release), None);
    }
}
