//! Integration tests of the staff-tool replicas, run as real processes.

mod lightsout;
mod slidingblock;
mod support;
