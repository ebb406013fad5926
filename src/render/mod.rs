//! Renderers: reports in, text out, through the writer they are given.

pub mod diff;
pub mod display;
pub mod emit;
pub mod follow;
pub mod github;
pub mod reason;
pub mod status;
