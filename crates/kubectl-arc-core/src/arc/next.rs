//! The next release's lifecycle rules: what ARC's master after 0.14.2 (no tag yet) decides beyond
//! the revision handshake, as `status` and `diff` judge it under `--arc-version next` or a
//! controller recognised as running it.
//!
//! Pure core. The release is master 2ee6b3b8 (PR #4516, in ARC's mirror) with the pull requests
//! merged on top of it, read from their descriptions and review threads (they are not in the
//! mirror; `../shared/arc/README.md`, "The next release"):
//! - #4636: `AutoscalingRunnerSetReconciler.Reconcile` compares `metadata.generation` with
//!   `status.observedGeneration` and keeps the scale set Pending until a reconcile of the latest
//!   generation succeeds ([`observed_generation_behind`]);
//! - #4644: `newEphemeralRunner` stamps each runner with `actions.github.com/actionable-revision`,
//!   and `newEphemeralRunnersByStates` splits the Outdated runners: `staleOutdated` (made for a
//!   revision older than the applied one) are deleted and do not hold the set Outdated
//!   ([`stale_outdated`]);
//! - #4649/#4652/#4660: an Outdated set switches the scale set off (`reconcileOutdated`: the
//!   listener's `spec.phase: Stopped`, the set kept at 0 replicas; `propagateToStoppedListener`
//!   forces `Stopped` on every listener update, `listenerSpecChanged` compares the listener spec
//!   with `Phase` blanked, so a `minRunners` edit reaches the listener and does not start it), and
//!   only `outdatedRunnerSpecCorrected` (`ephemeralRunnerSetDesiredSpecChanged`: the
//!   `EphemeralRunnerSpec` and `EphemeralRunnerMetadata` under `Semantic.DeepEqual`; a missing
//!   set counts as corrected) leaves it ([`outdated_runner_spec_corrected`]).
//!
//! Which builds run it ([`next_build`]): ARC's canary workflow (global-publish-canary.yaml at
//! 2ee6b3b8) builds master with `VERSION=canary-<short sha>` and tags the image `canary` and
//! `canary-<short sha>`; the Dockerfile's and Makefile's default is `dev`. The controller chart
//! of master still has `appVersion: "0.14.2"`, so its `app.kubernetes.io/version` label does not
//! tell a master build from 0.14.2: the image tag does.

use serde_json::Value;

use crate::drift::DriftError;
use crate::layout::Layout;

/// `AutoscalingRunnerSetPhaseOutdated` and `EphemeralRunnerSetPhaseOutdated`.
pub const PHASE_OUTDATED: &str = "Outdated";

/// `AutoscalingListenerPhaseStopped`, at the listener's `spec.phase` (#4652).
pub const LISTENER_PHASE_STOPPED: &str = "Stopped";

/// `metadata.generation` of an AutoscalingRunnerSet ahead of its `status.observedGeneration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unobserved {
    pub generation: i64,
    pub observed: i64,
}

/// #4636, `AutoscalingRunnerSetReconciler.Reconcile`: `Generation > Status.ObservedGeneration`
/// moves the scale set to Pending, and the observed generation catches up only at the end of a
/// successful reconcile. Go decodes an absent `status.observedGeneration` as 0, so a scale set
/// whose status never recorded one (written by an older release, or pruned by a CRD that lacks
/// the field) is behind. `None` without a generation (a render, not a stored object).
pub fn observed_generation_behind(
    generation: Option<i64>,
    observed: Option<i64>,
) -> Option<Unobserved> {
    let generation = generation?;
    let observed = observed.unwrap_or(0);
    (generation > observed).then_some(Unobserved {
        generation,
        observed,
    })
}

/// The revision a runner was made for: its `actions.github.com/actionable-revision` annotation
/// (#4644, `newEphemeralRunner`). A runner made before #4644 has none and counts as revision 0, as
/// the review thread of #4644 says ("a legacy runner without this annotation can be classified
/// stale"); a value that is not an integer is taken the same way.
pub fn runner_revision(annotation: Option<&str>) -> i64 {
    annotation.and_then(|a| a.trim().parse().ok()).unwrap_or(0)
}

/// #4644, `newEphemeralRunnersByStates`: an Outdated runner made for a revision older than the
/// set's `status.appliedActionableRevision` is `staleOutdated`: its report is about a spec that no
/// longer exists, so the EphemeralRunnerSet controller deletes it and it does not hold the set in
/// the Outdated phase.
pub fn stale_outdated(runner_revision: i64, applied: i64) -> bool {
    runner_revision < applied
}

/// Whether a scale set is switched off by the Outdated lifecycle (#4649/#4652): its
/// AutoscalingRunnerSet or its EphemeralRunnerSet in phase Outdated, or its listener's
/// `spec.phase` Stopped (`reconcileOutdated` stops it).
pub fn switched_off(
    scale_set_phase: Option<&str>,
    set_phase: Option<&str>,
    listener_phase: Option<&str>,
) -> bool {
    scale_set_phase == Some(PHASE_OUTDATED)
        || set_phase == Some(PHASE_OUTDATED)
        || listener_phase == Some(LISTENER_PHASE_STOPPED)
}

/// The set as `outdatedRunnerSpecCorrected` compares it: its `spec.ephemeralRunnerSpec` and its
/// `spec.ephemeralRunnerMetadata`, as JSON text.
#[derive(Debug, Clone, Copy)]
pub struct SetSide<'a> {
    pub runner_spec: Option<&'a str>,
    pub runner_metadata: Option<&'a str>,
}

/// #4660, `outdatedRunnerSpecCorrected` (`ephemeralRunnerSetDesiredSpecChanged`): an Outdated
/// scale set leaves Outdated when the set ARC would build from the AutoscalingRunnerSet differs
/// from the stored one in its `EphemeralRunnerSpec` or its `EphemeralRunnerMetadata` under
/// `apiequality.Semantic.DeepEqual`; a missing set (`None`) counts as corrected. `minRunners`,
/// `maxRunners`, `runnerGroup` and `runnerScaleSetName` are in neither, so they never leave it.
pub fn outdated_runner_spec_corrected(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id: Option<&str>,
    set: Option<SetSide<'_>>,
) -> Result<bool, DriftError> {
    let Some(set) = set else { return Ok(true) };
    let drift = crate::drift::drift(layout, ars_spec_json, scale_set_id, set.runner_spec)?;
    Ok(corrected_with(
        drift.semantic_drift(),
        ars_spec_json,
        set.runner_metadata,
    ))
}

/// [`outdated_runner_spec_corrected`] of an existing set whose runner spec's Semantic drift is
/// already known (`diff`'s verdict): that drift, or `spec.ephemeralRunnerMetadata` of the
/// AutoscalingRunnerSet not Semantic-equal to the set's.
pub fn corrected_with(
    runner_spec_drift: bool,
    ars_spec_json: &str,
    runner_metadata: Option<&str>,
) -> bool {
    if runner_spec_drift {
        return true;
    }
    let desired = serde_json::from_str::<Value>(ars_spec_json)
        .ok()
        .and_then(|s| s.get("ephemeralRunnerMetadata").cloned());
    let current = runner_metadata.and_then(|t| serde_json::from_str::<Value>(t).ok());
    !resource_meta_equal(desired.as_ref(), current.as_ref())
}

/// `Semantic.DeepEqual` of two `*ResourceMeta` (labels and annotations, string maps): nil only
/// equals nil (a pointer to an empty struct is not nil), and within it a nil map equals an empty
/// one. The AutoscalingRunnerSet's `spec.ephemeralRunnerMetadata` is copied to the set as is
/// (`autoscalingrunnerset_controller.go` at 2ee6b3b8).
fn resource_meta_equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    let norm = |v: Option<&Value>| -> Option<[serde_json::Map<String, Value>; 2]> {
        let v = v.filter(|v| !v.is_null())?;
        let map = |k: &str| {
            v.get(k)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        Some([map("labels"), map("annotations")])
    };
    norm(a) == norm(b)
}

/// Whether a controller's image tag (or, without one, its `build.Version`) is a build of ARC's
/// master rather than a release: `canary` or `canary-<sha>` (the canary workflow), `dev` (the
/// Dockerfile's default `VERSION`), or a bare commit (7 to 40 hexadecimal digits).
pub fn next_build(tag: &str) -> bool {
    let hex = |s: &str| (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
    tag == "canary"
        || tag == "dev"
        || tag.strip_prefix("canary-").is_some_and(|s| !s.is_empty())
        || hex(tag)
}

/// Why a controller is taken to run the next release, or `None`: its image tag is a master build
/// ([`next_build`]) and the installed EphemeralRunnerSet CRD declares the revision fields (#4638),
/// which only the next release writes. Without the revision CRD a master build may be the
/// integrity-hash era (2ee6b3b8) or older: it is not recognised.
pub fn recognised_as_next(image_tag: Option<&str>, revision_crd: bool) -> Option<String> {
    let tag = image_tag.filter(|t| next_build(t))?;
    revision_crd.then(|| {
        format!(
            "its image tag {tag} is a build of ARC's master, not a release (ARC's canary workflow builds master as canary-<sha>, local builds are dev), and the installed EphemeralRunnerSet CRD has spec.actionableRevision (PR #4638)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_observed_generation_is_behind_as_go_decodes_it() {
        assert_eq!(
            observed_generation_behind(Some(3), Some(2)),
            Some(Unobserved {
                generation: 3,
                observed: 2
            })
        );
        assert_eq!(observed_generation_behind(Some(3), Some(3)), None);
        // Absent reads 0: never observed.
        assert_eq!(
            observed_generation_behind(Some(1), None),
            Some(Unobserved {
                generation: 1,
                observed: 0
            })
        );
        assert_eq!(observed_generation_behind(None, Some(1)), None);
    }

    #[test]
    fn outdated_runners_older_than_the_applied_revision_are_stale() {
        assert!(stale_outdated(runner_revision(Some("2")), 3));
        assert!(!stale_outdated(runner_revision(Some("3")), 3));
        // A runner made before #4644 has no annotation: revision 0.
        assert!(stale_outdated(runner_revision(None), 1));
        assert!(!stale_outdated(runner_revision(None), 0));
        assert_eq!(runner_revision(Some("x")), 0);
    }

    #[test]
    fn switched_off_by_either_phase_or_a_stopped_listener() {
        assert!(switched_off(Some("Outdated"), None, None));
        assert!(switched_off(None, Some("Outdated"), None));
        assert!(switched_off(None, None, Some("Stopped")));
        assert!(!switched_off(
            Some("Running"),
            Some("Running"),
            Some("Running")
        ));
    }

    #[test]
    fn builds_of_master() {
        for t in [
            "canary",
            "canary-2ee6b3b",
            "dev",
            "2ee6b3b8",
            "2ee6b3b8aa11bb22cc33dd44ee55ff6677889900",
        ] {
            assert!(next_build(t), "{t}");
        }
        for t in ["0.14.2", "v0.14.2", "latest", "canary-", "abc", "2ee6b3g8"] {
            assert!(!next_build(t), "{t}");
        }
        assert!(recognised_as_next(Some("canary-2ee6b3b"), true).is_some());
        assert!(recognised_as_next(Some("canary-2ee6b3b"), false).is_none());
        assert!(recognised_as_next(Some("0.14.2"), true).is_none());
        assert!(recognised_as_next(None, true).is_none());
    }

    /// #4660: only a change of the runner spec or its metadata leaves Outdated; minRunners and
    /// maxRunners do not; a missing set counts as corrected.
    #[test]
    fn only_the_runner_spec_or_its_metadata_leaves_outdated() {
        let layout = Layout::arc();
        let ars = |image: &str, extra: &str| {
            format!(
                r#"{{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s","minRunners":0,"maxRunners":5{extra},"template":{{"spec":{{"containers":[{{"name":"runner","image":"{image}"}}]}}}}}}"#
            )
        };
        let stored = r#"{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s","runnerScaleSetId":1,"spec":{"containers":[{"name":"runner","image":"a"}]}}"#;
        let meta = r#"{"labels":{"team":"x"}}"#;
        let set = Some(SetSide {
            runner_spec: Some(stored),
            runner_metadata: Some(meta),
        });
        let corrected =
            |spec: &str| outdated_runner_spec_corrected(layout, spec, Some("1"), set).unwrap();
        let meta_x = r#","ephemeralRunnerMetadata":{"labels":{"team":"x"}}"#;
        assert!(!corrected(&ars("a", meta_x)));
        // minRunners/maxRunners only: still Outdated.
        let bigger = ars("a", meta_x).replace(r#""maxRunners":5"#, r#""maxRunners":50"#);
        assert!(!corrected(&bigger));
        assert!(corrected(&ars("b", meta_x)));
        assert!(corrected(&ars(
            "a",
            r#","ephemeralRunnerMetadata":{"labels":{"team":"y"}}"#
        )));
        assert!(corrected(&ars("a", "")));
        assert!(outdated_runner_spec_corrected(layout, &ars("a", ""), Some("1"), None).unwrap());
    }

    #[test]
    fn resource_meta_is_compared_as_semantic_deep_equal() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert!(resource_meta_equal(None, None));
        assert!(resource_meta_equal(None, Some(&Value::Null)));
        assert!(!resource_meta_equal(None, Some(&v("{}"))));
        assert!(resource_meta_equal(
            Some(&v("{}")),
            Some(&v(r#"{"labels": {}}"#))
        ));
        assert!(!resource_meta_equal(
            Some(&v(r#"{"labels": {"a": "1"}}"#)),
            Some(&v(r#"{"labels": {"a": "2"}}"#))
        ));
    }
}
