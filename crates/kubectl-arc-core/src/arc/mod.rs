//! ARC's rules, built on the Go mirror ([`crate::go`]): its releases and their hashes, which
//! release replaces a set and how, revisions, pairing, the desired set, status, impact, repair,
//! upgrade, migrate and bump, and the English of their reasons.
//!
//! Here too ARC's names: API group, kinds, annotations and field paths of
//! `actions.github.com/v1alpha1`. They mirror the constants in ARC's
//! `controllers/actions.github.com/resourcebuilder.go` and `apis/actions.github.com/v1alpha1`.

pub mod bump;
pub mod desired;
pub mod drift;
pub mod fleet;
pub mod impact;
pub mod migrate;
pub mod next;
pub mod object;
pub mod owner;
pub mod pairing;
pub mod reason;
pub mod recycle_loop;
pub mod release;
pub mod repair;
pub mod replacement;
pub mod revision;
pub mod runners;
pub mod shipped;
pub mod spec_hash;
pub mod status;
pub mod target;
pub mod upgrade;

use crate::go::manifest::ManifestObject;

/// The API group of ARC's scale-set resources.
pub const GROUP: &str = "actions.github.com";
/// The only served version.
pub const VERSION: &str = "v1alpha1";
/// `group/version` as it appears in `apiVersion`.
pub const API_VERSION: &str = "actions.github.com/v1alpha1";

/// Kind of the scale set a user owns.
pub const KIND_AUTOSCALING_RUNNER_SET: &str = "AutoscalingRunnerSet";
/// Kind of the set ARC derives from it.
pub const KIND_EPHEMERAL_RUNNER_SET: &str = "EphemeralRunnerSet";
/// Kind of one runner.
pub const KIND_EPHEMERAL_RUNNER: &str = "EphemeralRunner";

/// Plural of AutoscalingRunnerSet (ARC's CRDs define no short names).
pub const AUTOSCALING_RUNNER_SETS: &str = "autoscalingrunnersets";
/// Plural of EphemeralRunnerSet.
pub const EPHEMERAL_RUNNER_SETS: &str = "ephemeralrunnersets";
/// Plural of EphemeralRunner.
pub const EPHEMERAL_RUNNERS: &str = "ephemeralrunners";

/// The legacy annotation (ARC PR #4516): `ephemeralRunnerSetIntegrityHash` of the spec.
pub const ANNOTATION_INTEGRITY_HASH: &str = "actions.github.com/integrity-hash";
/// ARC up to 0.14.x: the hash of the runner spec on the sets it made (annotation, and label in
/// some releases); a change of it replaces the set.
pub const ANNOTATION_RUNNER_SPEC_HASH: &str = "actions.github.com/runner-spec-hash";
/// The annotation on the ARS that carries the runner scale set ID (`runnerScaleSetIDAnnotationKey`).
pub const ANNOTATION_RUNNER_SCALE_SET_ID: &str = "runner-scale-set-id";
/// Per-runner record of the ERS's `spec.actionableRevision` at creation (revision era).
pub const ANNOTATION_ACTIONABLE_REVISION: &str = "actions.github.com/actionable-revision";

impl ManifestObject {
    /// Whether this is one of ARC's `actions.github.com/v1alpha1` objects of `kind`.
    pub fn is_arc(&self, kind: &str) -> bool {
        self.kind() == kind && self.api_version() == API_VERSION
    }
}
