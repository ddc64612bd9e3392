//! Integration tests of the `reference` crate: properties over many boards.

mod lightsout;
mod slidingblock;
