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

/// The AutoscalingRunnerSet label ARC's version check reads (`LabelKeyKubernetesVersion`).
pub const LABEL_VERSION: &str = "app.kubernetes.io/version";

/// What a release's version check says of a scale set's `app.kubernetes.io/version` label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionCheck {
    /// The release whose controller checks (its `build.Version`).
    pub release: &'static str,
    /// The label, as the AutoscalingRunnerSet carries it (`null`: none).
    pub label: Option<String>,
    pub allowed: bool,
    /// The rule, with the Go that applies it.
    pub rule: &'static str,
}

impl ArcRelease {
    /// ARC's version check at the top of `AutoscalingRunnerSetReconciler.Reconcile`: a scale set
    /// whose `app.kubernetes.io/version` the controller does not allow is deleted (with its sets,
    /// its runners, its listener and its scale-set registration). 0.9.0 to 0.11.0 compare the label
    /// with `build.Version` exactly (`!=`, so a missing label is refused); 0.12.0 on call
    /// `v1alpha1.IsVersionAllowed` ([`is_version_allowed`]). A released controller's
    /// `build.Version` is its tag (the Dockerfile's `VERSION`, the publish workflow's
    /// `release_tag_name`).
    pub fn version_check(&'static self, label: Option<&str>) -> VersionCheck {
        let exact = !version_at_least(self.version, "0.12.0");
        let (allowed, rule) = if exact {
            (
                label.unwrap_or("") == self.version,
                "ARC 0.9.0 to 0.11.0 keep only a scale set labelled with their own version exactly (autoscalingrunnerset_controller.go: Labels[LabelKeyKubernetesVersion] != build.Version)",
            )
        } else {
            (
                is_version_allowed(label.unwrap_or(""), self.version),
                "ARC 0.12.0 on keep a scale set labelled with their own major.minor (v1alpha1.IsVersionAllowed)",
            )
        };
        VersionCheck {
            release: self.version,
            label: label.map(str::to_string),
            allowed,
            rule,
        }
    }
}

/// Whether release `have` (`0.14.2`) is `want` or newer.
pub fn version_at_least(have: &str, want: &str) -> bool {
    let parse = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parse(have) >= parse(want)
}

/// `v1alpha1.IsVersionAllowed` (apis/actions.github.com/v1alpha1/version.go, ARC 0.12.0 to
/// 0.14.2 and master): the build `dev`, equal versions and a `canary-` build allow anything;
/// otherwise both must parse as `MAJOR[.MINOR[.PATCH]]` (no sign, no leading zero, nothing after)
/// and agree on major and minor (a missing minor is `0`).
pub fn is_version_allowed(resource: &str, build: &str) -> bool {
    if build == "dev" || resource == build || build.starts_with("canary-") {
        return true;
    }
    match (parse_semver(resource), parse_semver(build)) {
        (Some(r), Some(b)) => r == b,
        _ => false,
    }
}

/// `parseSemver`: (major, minor) as their digits.
fn parse_semver(v: &str) -> Option<(&str, &str)> {
    let (major, rest) = parse_int(v)?;
    if rest.is_empty() {
        return Some((major, "0"));
    }
    let rest = rest.strip_prefix('.')?;
    let (minor, rest) = parse_int(rest)?;
    if rest.is_empty() {
        return Some((major, minor));
    }
    // The patch must parse; whatever follows it is not looked at (`0.14.2-rc.1` is 0.14).
    parse_int(rest.strip_prefix('.')?)?;
    Some((major, minor))
}

/// `parseInt`: leading digits, no leading zero (but `0` itself).
fn parse_int(v: &str) -> Option<(&str, &str)> {
    let b = v.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    let i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if b[0] == b'0' && i != 1 {
        return None;
    }
    Some((&v[..i], &v[i..]))
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

    /// ARC's own table (apis/actions.github.com/v1alpha1/version_test.go, 0.12.0) and the edges
    /// of `parseSemver`.
    #[test]
    fn is_version_allowed_as_arc() {
        for (resource, build, want) in [
            ("0.11.0", "dev", true),
            ("dev", "0.11.0", false),
            ("0.11.0", "NA", false),
            ("0.11.0", "1.11.0", false),
            ("0.11.0", "0.10.0", false),
            ("0.11.1", "0.11.0", true),
            ("abc", "abc", true),
            ("0.14.2", "canary-abc", true),
            ("", "0.14.2", false),
            ("0.14", "0.14.2", true),
            ("0", "0.0.1", true),
            ("0.14.2-rc.1", "0.14.0", true),
            ("0.14.x", "0.14.0", false),
            ("0.014.0", "0.14.0", false),
            ("v0.14.2", "0.14.2", false),
            ("0.14.", "0.14.2", false),
        ] {
            assert_eq!(
                is_version_allowed(resource, build),
                want,
                "{resource} {build}"
            );
        }
    }

    #[test]
    fn the_version_check_of_each_release() {
        let r = |v| release(v).unwrap();
        // 0.9.0 to 0.11.0: exactly their own version.
        assert!(!r("0.11.0").version_check(Some("0.11.1")).allowed);
        assert!(r("0.11.0").version_check(Some("0.11.0")).allowed);
        assert!(!r("0.10.1").version_check(None).allowed);
        // 0.12.0 on: the same major.minor.
        assert!(r("0.13.1").version_check(Some("0.13.0")).allowed);
        assert!(!r("0.13.1").version_check(Some("0.14.2")).allowed);
        assert!(!r("0.14.2").version_check(None).allowed);
        assert!(r("0.12.0").version_check(Some("0.12.1")).allowed);
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
