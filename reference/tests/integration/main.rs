//! Integration tests of the `reference` crate: properties over many boards.

mod gogen;
mod lightsout;
mod slidingblock;
