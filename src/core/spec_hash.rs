//! PLACEHOLDER until branch `spechash` is merged: the announced API of each release's
//! `RunnerSetSpecHash()` and `ListenerSpecHash()`. Replaced whole by spechash's file on merge.

use crate::core::release::ArcRelease;

/// Why a hash could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecHashError {
    /// The spec does not decode into the release's Go types.
    #[error("{0}")]
    Decode(String),
    /// The hash cannot be reproduced exactly.
    #[error("the hash cannot be reproduced exactly: {0}")]
    Unverifiable(String),
}

/// `AutoscalingRunnerSet.RunnerSetSpecHash()` of `release`.
pub fn runner_set_spec_hash(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    let _ = ars_spec_json;
    Err(SpecHashError::Unverifiable(format!(
        "the engine for ARC {} is not merged yet",
        release.version
    )))
}

/// `AutoscalingRunnerSet.ListenerSpecHash()` of `release`.
pub fn listener_spec_hash(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    runner_set_spec_hash(release, ars_spec_json)
}
