//! Renderers: reports in, text out, through the writer they are given.

pub(crate) mod bump;
pub mod diff;
pub mod display;
pub(crate) mod emit;
pub(crate) mod follow;
pub(crate) mod github;
pub(crate) mod migrate;
pub(crate) mod status;

use crate::cluster::write::DryRun;

/// `dryRun` in the bump and migrate reports: the flag's own spelling.
impl serde::Serialize for DryRun {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            DryRun::None => "none",
            DryRun::Client => "client",
            DryRun::Server => "server",
        })
    }
}
