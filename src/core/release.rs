//! PLACEHOLDER until branch `spechash` is merged: the release table's announced API, so that the
//! commands can be written against it. Replaced whole by spechash's file on merge.

use serde::Serialize;

/// What decides that an ARC release recycles runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Mechanism {
    /// 0.9.0 to 0.14.2: `actions.github.com/runner-spec-hash`; the set is replaced.
    RunnerSpecHash,
    /// Master 2ee6b3b8 (PR #4516): `actions.github.com/integrity-hash`.
    IntegrityHash,
    /// PR #4638: `spec.actionableRevision`.
    ActionableRevision,
}

/// One ARC release.
#[derive(Debug)]
pub struct ArcRelease {
    pub version: &'static str,
    pub k8s_api: &'static str,
    pub go_spew: &'static str,
    pub mechanism: Mechanism,
}

const fn r(version: &'static str, k8s_api: &'static str, go_spew: &'static str) -> ArcRelease {
    ArcRelease {
        version,
        k8s_api,
        go_spew,
        mechanism: Mechanism::RunnerSpecHash,
    }
}

static RELEASES: &[ArcRelease] = &[
    r("0.9.0", "v0.28.4", "v1.1.1"),
    r("0.9.1", "v0.28.4", "v1.1.1"),
    r("0.9.2", "v0.28.4", "v1.1.1"),
    r("0.9.3", "v0.28.4", "v1.1.1"),
    r("0.10.0", "v0.28.4", "v1.1.1"),
    r("0.10.1", "v0.28.4", "v1.1.1"),
    r("0.11.0", "v0.32.2", "d8f796af33cc"),
    r("0.12.0", "v0.32.3", "d8f796af33cc"),
    r("0.12.1", "v0.32.3", "d8f796af33cc"),
    r("0.13.0", "v0.34.1", "d8f796af33cc"),
    r("0.13.1", "v0.34.3", "d8f796af33cc"),
    r("0.14.0", "v0.35.2", "d8f796af33cc"),
    r("0.14.1", "v0.35.2", "d8f796af33cc"),
    r("0.14.2", "v0.35.2", "d8f796af33cc"),
];

/// Every release, oldest first.
pub fn releases() -> &'static [ArcRelease] {
    RELEASES
}

/// A release by its version (`0.14.2`, `v0.14.2`, `gha-runner-scale-set-0.14.2`).
pub fn release(version: &str) -> Option<&'static ArcRelease> {
    let v = version
        .strip_prefix("gha-runner-scale-set-")
        .unwrap_or(version);
    let v = v.strip_prefix('v').unwrap_or(v);
    RELEASES.iter().find(|r| r.version == v)
}
