//! Integration tests of the staff-tool replicas, run as real processes.

mod gogen;
mod lightsout;
mod slidingblock;
mod support;
