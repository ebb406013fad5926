//! Drift between an AutoscalingRunnerSet's desired runner spec and its EphemeralRunnerSet.
//!
//! Pure core: JSON texts in, the two Go values and their comparison out. ARC's revision-era
//! controller acts (bumps `spec.actionableRevision`) exactly when the comparison is not
//! Semantic-equal; the strict-only differences are what a `reflect.DeepEqual` or `cmp.Equal`
//! comparison would also have acted on.

use crate::desired::{DesiredError, desired_runner_spec};
use crate::equality::{Comparison, compare};
use crate::layout::Layout;
use crate::value::{DecodeError, Value, decode};

/// The drift of one scale set.
#[derive(Debug, Clone)]
pub struct Drift {
    /// What ARC builds from the AutoscalingRunnerSet.
    pub desired: Value,
    /// `spec.ephemeralRunnerSpec` of the EphemeralRunnerSet.
    pub current: Value,
    pub comparison: Comparison,
}

impl Drift {
    /// ARC will bump the revision and recycle idle and pending runners.
    pub fn semantic_drift(&self) -> bool {
        !self.comparison.semantic_equal()
    }
}

/// Why the drift of a scale set cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriftError {
    /// The AutoscalingRunnerSet side.
    #[error("AutoscalingRunnerSet: {0}")]
    Desired(#[from] DesiredError),
    /// The EphemeralRunnerSet's runner spec does not decode.
    #[error("EphemeralRunnerSet spec.ephemeralRunnerSpec does not decode into ARC's Go types: {0}")]
    Current(DecodeError),
}

/// Compute the drift from the ARS's `spec` JSON, its `runner-scale-set-id` annotation and the ERS's
/// `spec.ephemeralRunnerSpec` JSON (absent or null is Go's zero value).
pub fn drift(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id: Option<&str>,
    ers_runner_spec_json: Option<&str>,
) -> Result<Drift, DriftError> {
    drift_of(
        layout,
        desired_runner_spec(layout, ars_spec_json, scale_set_id),
        ers_runner_spec_json,
    )
}

/// [`drift`] from the desired runner spec already built (or why it cannot be:
/// [`crate::desired::Built::for_drift`]), so that a scale set's spec is decoded once for all of
/// its checks.
pub fn drift_of(
    layout: &Layout,
    desired: Result<Value, DesiredError>,
    ers_runner_spec_json: Option<&str>,
) -> Result<Drift, DriftError> {
    let desired = desired?;
    let current = match ers_runner_spec_json {
        Some(text) => {
            decode(layout, layout.ephemeral_runner_spec, text).map_err(DriftError::Current)?
        }
        None => Value::zero(layout, layout.ephemeral_runner_spec),
    };
    let comparison = compare(layout, layout.ephemeral_runner_spec, &current, &desired);
    Ok(Drift {
        desired,
        current,
        comparison,
    })
}
