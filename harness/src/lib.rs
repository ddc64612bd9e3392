//! The grading engine behind `harness`: discover suites, run a candidate on
//! every case in parallel, judge each answer with the `reference` checkers,
//! and report through one stream of events. Silent: it never prints or
//! exits; the binary (`src/bin/harness/`) parses arguments and maps
//! results to exit statuses. The modules stand in floors, each using only
//! those below it: see `README.md` beside this file.

// Ground floor: the nouns, the events and where they go, the executors.
pub mod cancel;
pub mod event;
pub mod executor;
pub mod export;
pub mod job;
pub mod outcome;
pub mod report;

// Engine: settings, discovery, grading one job, the work loop, shards.
pub mod battery;
pub mod discover;
pub mod grade;
pub mod schedule;
pub mod settings;
pub mod shard;
pub mod store;

// Top floor: modes and tools.
pub mod class;
pub mod compare;
pub mod conform;
pub mod contest;
pub mod course;
pub mod html;
pub mod merge;
pub mod platform;
pub mod slurm;
pub mod verify;
