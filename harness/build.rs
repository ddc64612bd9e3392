//! The binary carries the project's course configs, adapters and suites
//! (`src/bin/harness/bundled.rs`, include_dir): rebuild when any changes.
fn main() {
    for tree in ["../courses", "../adapters", "../suites"] {
        println!("cargo:rerun-if-changed={tree}");
    }
}
