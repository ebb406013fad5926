//! Renderers: reports in, text out, through the writer they are given.

pub mod bump;
pub mod diff;
pub mod display;
pub mod emit;
pub mod follow;
pub mod github;
pub mod migrate;
pub mod reason;
pub mod status;

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
