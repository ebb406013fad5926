//! ARC's releases and what each decides with.
//!
//! Pure core. Every released ARC (gha-runner-scale-set 0.9.0 to 0.14.2, read tag by tag in ARC's
//! repository) replaces an EphemeralRunnerSet when `AutoscalingRunnerSet.RunnerSetSpecHash()`
//! differs from the newest set's `actions.github.com/runner-spec-hash`, and recreates the listener
//! when `ListenerSpecHash()` changes (`autoscalingrunnerset_controller.go`). Both hashes print Go
//! types with go-spew, so they depend on the release's own ARC declarations and on the
//! k8s.io/api version its go.mod pins: each release names its layout (the oracle's reflection walk,
//! `crates/kubectl-arc-core/src/layouts/arc-*.json`), parsed on first use. The go-spew pin is said but changes
//! nothing: v1.1.1 and d8f796af33cc have the same `spew/` sources, byte for byte.

use serde::Serialize;

use crate::layout::Layout;

/// How a release of ARC turns a runner-spec change into new runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Mechanism {
    /// ARC up to 0.14.x: a new EphemeralRunnerSet when `RunnerSetSpecHash()` differs from the
    /// newest set's `actions.github.com/runner-spec-hash` (the old set is deleted).
    RunnerSpecHash,
    /// The integrity-hash era (ARC PR #4516, unreleased): the set is patched and its controller
    /// cleans up idle and pending runners when `actions.github.com/integrity-hash` differs.
    IntegrityHash,
    /// The revision era (ARC PR #4638, unreleased): `spec.actionableRevision` is bumped on
    /// Semantic drift and acknowledged in `status.appliedActionableRevision`.
    ActionableRevision,
}

/// One released ARC: a `gha-runner-scale-set-X.Y.Z` tag.
#[derive(Debug)]
pub struct ArcRelease {
    /// `0.14.2`
    pub version: &'static str,
    /// The k8s.io/api (and k8s.io/apimachinery) version of the tag's go.mod: `v0.35.2`.
    pub k8s_api: &'static str,
    /// The go-spew version of the tag's go.mod.
    pub go_spew: &'static str,
    pub mechanism: Mechanism,
    /// Index into the release layouts (`layout::RELEASE_SHIPPED`).
    layout: usize,
}

impl ArcRelease {
    /// The release's type layout: its `v1alpha1.AutoscalingRunnerSetSpec`, its
    /// `v1alpha1.EphemeralRunnerSpec` and the `v1alpha1.runnerSetSpec` of its `RunnerSetSpecHash`,
    /// over its k8s.io/api. Parsed on first use; releases with the same Go types share one.
    pub fn layout(&self) -> &'static Layout {
        Layout::release_shipped(self.layout)
    }
}

const SPEW_1_1_1: &str = "v1.1.1";
const SPEW_D8F: &str = "v1.1.2-0.20180830191138-d8f796af33cc";

const fn hashed(
    version: &'static str,
    k8s_api: &'static str,
    go_spew: &'static str,
    layout: usize,
) -> ArcRelease {
    ArcRelease {
        version,
        k8s_api,
        go_spew,
        mechanism: Mechanism::RunnerSpecHash,
        layout,
    }
}

/// Every tag, oldest first. The layouts: 0 for 0.9.0-0.10.1 (ARC types of 0.9, k8s.io/api
/// v0.28.4), 1 for 0.11.0 (adds `listenerMetrics`; v0.32.2), 2 for 0.12.x (`TLSConfig`,
/// `vaultConfig`; v0.32.3), 3 for 0.13.x (0.12's types on v0.34.1 and on v0.34.3, whose
/// reflection dumps are the same type for type), 4 for 0.14.x (`runnerScaleSetLabels` and the
/// metadata fields; v0.35.2).
static RELEASES: [ArcRelease; 14] = [
    hashed("0.9.0", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.9.1", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.9.2", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.9.3", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.10.0", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.10.1", "v0.28.4", SPEW_1_1_1, 0),
    hashed("0.11.0", "v0.32.2", SPEW_D8F, 1),
    hashed("0.12.0", "v0.32.3", SPEW_D8F, 2),
    hashed("0.12.1", "v0.32.3", SPEW_D8F, 2),
    hashed("0.13.0", "v0.34.1", SPEW_D8F, 3),
    hashed("0.13.1", "v0.34.3", SPEW_D8F, 3),
    hashed("0.14.0", "v0.35.2", SPEW_D8F, 4),
    hashed("0.14.1", "v0.35.2", SPEW_D8F, 4),
    hashed("0.14.2", "v0.35.2", SPEW_D8F, 4),
];

/// Every released ARC from 0.9.0 to 0.14.2, newest last.
pub fn releases() -> &'static [ArcRelease] {
    &RELEASES
}

/// The release named `0.14.2`, `v0.14.2` or `gha-runner-scale-set-0.14.2` (the chart's tag).
pub fn release(version: &str) -> Option<&'static ArcRelease> {
    let v = version
        .strip_prefix("gha-runner-scale-set-")
        .unwrap_or(version);
    let v = v.strip_prefix('v').unwrap_or(v);
    RELEASES.iter().find(|r| r.version == v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::RELEASE_SHIPPED;

    #[test]
    fn every_tag_from_0_9_0_to_0_14_2_is_known_in_order() {
        let versions: Vec<&str> = releases().iter().map(|r| r.version).collect();
        assert_eq!(
            versions,
            [
                "0.9.0", "0.9.1", "0.9.2", "0.9.3", "0.10.0", "0.10.1", "0.11.0", "0.12.0",
                "0.12.1", "0.13.0", "0.13.1", "0.14.0", "0.14.1", "0.14.2"
            ]
        );
        for r in releases() {
            assert_eq!(r.mechanism, Mechanism::RunnerSpecHash, "{}", r.version);
            let spew = if r.k8s_api == "v0.28.4" {
                SPEW_1_1_1
            } else {
                SPEW_D8F
            };
            assert_eq!(r.go_spew, spew, "{}", r.version);
        }
        assert_eq!(releases().last().unwrap().version, "0.14.2");
    }

    #[test]
    fn release_names_parse() {
        for name in ["0.14.2", "v0.14.2", "gha-runner-scale-set-0.14.2"] {
            assert_eq!(release(name).map(|r| r.version), Some("0.14.2"), "{name}");
        }
        assert_eq!(release("0.10.1").unwrap().k8s_api, "v0.28.4");
        for name in [
            "0.14.3",
            "0.8.0",
            "",
            "0.14",
            "vv0.14.2",
            "gha-runner-scale-set-v0.14.2x",
        ] {
            assert!(release(name).is_none(), "{name}");
        }
    }

    #[test]
    fn each_release_layout_is_of_its_k8s_api_and_has_the_three_roots() {
        for r in releases() {
            let l = r.layout();
            // 0.13.1 (v0.34.3) shares the layout of 0.13.0 (v0.34.1).
            let first = releases().iter().find(|o| o.layout == r.layout).unwrap();
            assert_eq!(l.k8s_api, first.k8s_api, "{}", r.version);
            let root = l.runner_set_spec.expect("runnerSetSpec root");
            assert_eq!(l.ty(root).name, "v1alpha1.runnerSetSpec");
            assert_eq!(
                l.ty(l.autoscaling_runner_set_spec).name,
                "v1alpha1.AutoscalingRunnerSetSpec"
            );
        }
        // Every shipped release layout is some release's.
        for i in 0..RELEASE_SHIPPED.len() {
            assert!(releases().iter().any(|r| r.layout == i), "layout {i}");
        }
    }

    #[test]
    fn mechanism_serializes_in_upper_camel_case() {
        for (m, s) in [
            (Mechanism::RunnerSpecHash, "\"RunnerSpecHash\""),
            (Mechanism::IntegrityHash, "\"IntegrityHash\""),
            (Mechanism::ActionableRevision, "\"ActionableRevision\""),
        ] {
            assert_eq!(serde_json::to_string(&m).unwrap(), s);
        }
    }
}
