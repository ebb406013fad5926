//! Renderers: reports in, text out, through the writer they are given.

pub(crate) mod bump;
pub mod diff;
pub(crate) mod emit;
pub(crate) mod fleet;
pub(crate) mod follow;
pub(crate) mod github;
pub(crate) mod impact;
pub(crate) mod migrate;
pub(crate) mod repair;
pub(crate) mod rollout;
pub(crate) mod status;
pub(crate) mod table;
pub(crate) mod upgrade;
