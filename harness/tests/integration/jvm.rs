//! The JVM a course ran: a Java candidate's heap is three quarters of the
//! case's memory limit by default (a JVM left to itself takes a quarter
//! of the cgroup it sees), and a course's `[java]` sets the heap and the
//! processors its machines gave, whatever the job slot's cores.

use std::path::Path;

use crate::support::{Fixture, harness};

/// A Java program that says, on stderr, the heap and processors its JVM
/// gives it, then "no solution" (exit 1); built in `dir`.
fn probe(dir: &Path) {
    std::fs::write(
        dir.join("Probe.java"),
        "public class Probe {\n\
         public static void main(String[] args) {\n\
         Runtime r = Runtime.getRuntime();\n\
         System.err.println(\"jvm: heap \" + (r.maxMemory() >> 20) + \" cpus \" + r.availableProcessors());\n\
         System.exit(1);\n\
         }\n\
         }\n",
    )
    .unwrap();
    let built = std::process::Command::new("javac")
        .arg("Probe.java")
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(built.success());
}

/// The (heap MiB, cpus) every kept stderr under `kept` says.
fn seen(kept: &Path) -> Vec<(u64, u32)> {
    let mut out: Vec<(u64, u32)> = walkdir::WalkDir::new(kept)
        .into_iter()
        .flatten()
        .filter(|e| e.path().to_string_lossy().ends_with(".stderr"))
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            let line = text.lines().find_map(|l| l.strip_prefix("jvm: heap "))?;
            let (heap, cpus) = line.split_once(" cpus ")?;
            Some((heap.parse().unwrap(), cpus.parse().unwrap()))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_java_candidate_gets_the_heap_its_course_gave() {
    if !crate::class::have("javac") {
        return;
    }
    // By default: three quarters of the 2 GiB a case may use (the JVM
    // reports the heap less a survivor space where it picks the serial
    // collector), not its own quarter, 512 MiB.
    let f = Fixture::new();
    let dir = f.dir.path().join("probe");
    std::fs::create_dir(&dir).unwrap();
    probe(&dir);
    let kept = f.dir.path().join("kept");
    f.grade(&format!("java -cp {} Probe", dir.display()))
        .args(["--memory-limit", "2GiB", "--keep-output"])
        .arg(&kept)
        .assert()
        .code(1);
    let by_default = seen(&kept);
    assert!(
        !by_default.is_empty()
            && by_default
                .iter()
                .all(|&(heap, _)| (1300..=1536).contains(&heap)),
        "{by_default:?}"
    );

    // A course's [java]: 300 MiB and three processors, on a job slot of
    // one core (two jobs on two cores).
    let course = f.dir.path().join("course.toml");
    std::fs::write(
        &course,
        format!(
            "name = \"jvm\"\nfamily = \"lightsout\"\n\n\
             [java]\nheap = \"300m\"\ncpus = 3\n\n\
             [[part]]\nname = \"solver\"\ncommand = \"java -cp {{submission}} Probe\"\n\
             suites = [\"{}\"]\n\n\
             [[rubric]]\nname = \"solves\"\nrule = \"share\"\npoints = 1\npart = \"solver\"\n",
            f.suite().display()
        ),
    )
    .unwrap();
    let class = f.dir.path().join("class");
    std::fs::create_dir_all(class.join("alice")).unwrap();
    std::fs::copy(dir.join("Probe.class"), class.join("alice/Probe.class")).unwrap();
    let kept = f.dir.path().join("kept-course");
    harness()
        .current_dir(f.dir.path())
        .arg("grade")
        .arg("--course")
        .arg(&course)
        .arg("--submissions")
        .arg(&class)
        .arg("--summary")
        .arg(f.dir.path().join("summary.csv"))
        .arg("--scorecard")
        .arg(f.dir.path().join("course-rows.csv"))
        .args(["--jobs", "2", "--keep-output"])
        .arg(&kept)
        .assert()
        .code(1);
    let configured = seen(&kept);
    assert!(
        !configured.is_empty()
            && configured
                .iter()
                .all(|&(heap, cpus)| (270..=300).contains(&heap) && cpus == 3),
        "{configured:?}"
    );
}
