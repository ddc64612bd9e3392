//! Integration tests of `harness`, run as a real process against helper
//! candidates that misbehave on purpose.

mod candidates;
mod class;
mod clock;
mod compare;
mod conform;
mod container;
mod contest;
mod gallery;
mod gogen;
mod grading;
mod interactive;
mod jvm;
mod kits;
mod landlock;
mod lifecycle;
mod misbehaving;
mod neighbours;
mod packages;
mod parts;
mod platforms;
mod privacy;
mod report;
mod shard;
mod slidingblock;
mod store;
mod stubs;
mod support;
mod tamper;
mod terminal;
mod toy;
mod trusted;
mod verify;
