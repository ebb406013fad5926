//! Which ARC release judges a scale set, and its verdict: the rule of that release's mechanism
//! (`crate::core::replacement`) applied to the objects `diff` paired.
//!
//! The release is `--arc-version`, else the controller Deployment's, else the objects' own: the
//! release whose `RunnerSetSpecHash()` of the live AutoscalingRunnerSet equals the newest set's
//! `runner-spec-hash` (said when it contradicts the `app.kubernetes.io/version` label), else that
//! label, else the newest release.

use std::collections::BTreeMap;

use crate::core::arc;
use crate::core::release::{self, ArcRelease, Mechanism};
use crate::core::replacement::{self, ANNOTATION_VALUES_HASH, ListenerSide};
use crate::input::Object;
use crate::report::diff::{HashPair, ScaleSetDiff};

/// The release the run was told, or read from the cluster.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stated {
    /// `--arc-version`: the release whose rule judges every scale set (an upgrade to it).
    pub(crate) flag: Option<&'static ArcRelease>,
    /// The controller Deployment's `app.kubernetes.io/version` (when a known release) and where.
    pub(crate) controller: Option<(&'static ArcRelease, String)>,
}

/// The sides of one scale set that its verdict reads.
pub(crate) struct Sides<'a> {
    /// The desired AutoscalingRunnerSet (a render, or the live one).
    pub(crate) desired: &'a Object,
    /// The newest EphemeralRunnerSet (`None`: a new scale set).
    pub(crate) set: Option<&'a Object>,
    /// The live AutoscalingRunnerSet, when known (the desired one itself without `-f`).
    pub(crate) live: Option<&'a Object>,
    /// The scale set's AutoscalingListener, when among the inputs.
    pub(crate) listener: Option<&'a Object>,
    /// The integrity hash of the desired runner spec as ARC builds it in memory, when computed.
    pub(crate) integrity_hash_in_memory: Option<&'a str>,
}

/// Whether an EphemeralRunnerSet carries a revision field (`spec.actionableRevision` or
/// `status.appliedActionableRevision`).
fn has_revision_fields(set: &Object) -> bool {
    let in_spec = set
        .spec_field("actionableRevision")
        .is_ok_and(|f| f.is_some());
    let in_status = set.status.as_ref().is_some_and(|s| {
        serde_json::from_str::<BTreeMap<String, serde_json::Value>>(s.get()).is_ok_and(|m| {
            m.get("appliedActionableRevision")
                .is_some_and(|v| !v.is_null())
        })
    });
    in_spec || in_status
}

/// The mechanism of a set from its own fields (see [`replacement::set_mechanism`]).
pub(crate) fn mechanism_of(set: &Object) -> Option<Mechanism> {
    replacement::set_mechanism(
        &set.meta.annotations,
        &set.meta.labels,
        has_revision_fields(set),
    )
}

/// The `app.kubernetes.io/version` label of the objects, the set's first.
fn label<'a>(sides: &'a Sides<'_>) -> Option<(&'a str, String)> {
    [sides.set, sides.live, Some(sides.desired)]
        .into_iter()
        .flatten()
        .find_map(|o| {
            let v = o.meta.labels.get("app.kubernetes.io/version")?;
            Some((
                v.as_str(),
                format!("label app.kubernetes.io/version of {}", o.describe()),
            ))
        })
}

/// Fill in the release's verdict on one compared (or new) scale set: `mechanism`, `recycle`, the
/// hashes, `listenerRestart`; and drop the integrity-hash recycle loop warning where that
/// mechanism does not run and is not about to.
pub(crate) fn judge(item: &mut ScaleSetDiff, stated: &Stated, sides: &Sides<'_>) {
    let own = sides.set.and_then(mechanism_of);
    let mechanism = match (stated.flag, own, &stated.controller) {
        (Some(r), _, _) => Some(r.mechanism),
        (None, Some(m), _) => Some(m),
        (None, None, Some((r, _))) => Some(r.mechanism),
        (None, None, None) => None,
    };
    // The loop is the integrity-hash era's: warned of where it runs or is about to, and where
    // nothing says which era it is.
    if mechanism.is_some_and(|m| m != Mechanism::IntegrityHash) {
        item.legacy_recycle_loop = None;
        item.legacy_recycle_loop_paths = None;
        item.legacy_recycle_loop_fixes.clear();
    }
    if item.error.is_some() {
        item.mechanism = mechanism;
        return;
    }
    let mechanism = mechanism.unwrap_or(Mechanism::ActionableRevision);
    item.mechanism = Some(mechanism);
    if item.new {
        item.recycle = Some(false);
        return;
    }
    match mechanism {
        Mechanism::ActionableRevision => item.recycle = item.semantic_drift,
        Mechanism::IntegrityHash => integrity(item, sides),
        Mechanism::RunnerSpecHash => runner_spec_hash(item, stated, sides),
    }
}

/// The integrity-hash era: the AutoscalingRunnerSet controller patches the set when the hash of
/// the runner spec it builds in memory differs from the annotation, and the set's controller then
/// cleans up idle and pending runners.
fn integrity(item: &mut ScaleSetDiff, sides: &Sides<'_>) {
    let current = sides
        .set
        .and_then(|s| s.meta.annotations.get(arc::ANNOTATION_INTEGRITY_HASH))
        .cloned();
    match sides.integrity_hash_in_memory {
        Some(desired) => {
            item.recycle =
                Some(current.as_deref() != Some(desired) || item.legacy_recycle_loop == Some(true));
            item.integrity_hash = Some(HashPair {
                current,
                desired: desired.to_string(),
            });
        }
        None => {
            item.error = Some(format!(
                "{}: the integrity hash of its runner spec cannot be reproduced exactly, so whether ARC cleans up {} cannot be told",
                item.desired_from, item.current_from
            ));
        }
    }
}

/// The runner-spec-hash era (every release up to 0.14.2).
fn runner_spec_hash(item: &mut ScaleSetDiff, stated: &Stated, sides: &Sides<'_>) {
    let Some(set) = sides.set else { return };
    let annotation = set
        .meta
        .annotations
        .get(arc::ANNOTATION_RUNNER_SPEC_HASH)
        .map(String::as_str);
    let detection = match (sides.live, annotation) {
        (Some(live), Some(a)) => live
            .spec
            .as_ref()
            .map(|spec| replacement::detect(spec.get(), a)),
        _ => None,
    };
    let matches = detection.as_ref().map(|d| d.matches.clone());
    let Some((judge_by, from)) = judging_release(stated, sides, set, detection.as_ref()) else {
        return;
    };
    item.release = Some(judge_by.version.to_string());
    item.release_from = Some(from);
    item.hash_matches = matches.clone();
    let desired_spec = sides.desired.spec.as_ref().map_or("{}", |s| s.get());
    match replacement::runner_set_verdict(judge_by, desired_spec, annotation) {
        Ok(v) => {
            item.recycle = Some(v.recycle);
            item.runner_spec_hash = Some(HashPair {
                current: v.current,
                desired: v.desired,
            });
        }
        Err(e) => {
            item.error = Some(format!(
                "{}: spec: ARC {}'s RunnerSetSpecHash() cannot be computed: {e}",
                item.desired_from, judge_by.version
            ));
            return;
        }
    }
    // An upgrade: the release that made the set hashes the unchanged scale set to the annotation,
    // the one named does not.
    if stated.flag.is_some()
        && let (Some(live), Some(m)) = (sides.live, &matches)
        && !m.is_empty()
    {
        let live_spec = live.spec.as_ref().map_or("{}", |s| s.get());
        if let Ok(v) = replacement::runner_set_verdict(judge_by, live_spec, annotation) {
            item.upgrade_replaces = Some(v.recycle);
        }
    }
    if let Some(side) = listener_side(sides) {
        let desired_values = sides
            .desired
            .meta
            .annotations
            .get(ANNOTATION_VALUES_HASH)
            .map(String::as_str);
        item.listener_restart =
            replacement::listener_restart(judge_by, desired_spec, desired_values, side).ok();
    }
}

/// The release whose rule judges a set of ARC up to 0.14, and where that was read: `--arc-version`,
/// the controller, the releases whose hash of the live scale set equals the set's annotation (the
/// labelled one among them first), the label, else the newest. `None` when no release of the
/// runner-spec-hash era is known.
fn judging_release(
    stated: &Stated,
    sides: &Sides<'_>,
    set: &Object,
    detection: Option<&replacement::Detection>,
) -> Option<(&'static ArcRelease, String)> {
    let label = label(sides);
    let matches = detection.map(|d| &d.matches);
    Some(if let Some(r) = stated.flag {
        (r, "--arc-version".to_string())
    } else if let Some((r, from)) = &stated.controller {
        (r, from.clone())
    } else if let Some(m) = matches.as_ref().filter(|m| !m.is_empty()) {
        let live = sides.live.map(Object::describe).unwrap_or_default();
        let labelled = label.as_ref().and_then(|(v, _)| release::release(v));
        match labelled {
            Some(r) if m.contains(&r.version) => (
                r,
                format!(
                    "{}, and its hash of {live} equals the set's runner-spec-hash",
                    label.as_ref().map(|(_, f)| f.as_str()).unwrap_or_default()
                ),
            ),
            _ => {
                let newest = release::release(m.last().expect("non-empty")).expect("a release");
                let mut from = format!(
                    "runner-spec-hash of {}: the hash of {live} by {} equals it",
                    set.describe(),
                    replacement::versions_text(m)
                );
                if let Some((v, f)) = &label {
                    from.push_str(&format!(" (the {f} says {v}, whose hash does not)"));
                }
                (newest, from)
            }
        }
    } else {
        let tried = detection
            .map(|d| format!(" (tried {})", replacement::versions_text(&d.tried)))
            .unwrap_or_default();
        let no_match = if detection.is_some() {
            format!(
                "; no release's hash of the live AutoscalingRunnerSet equals the set's runner-spec-hash{tried}: it changed since the set was made"
            )
        } else {
            String::new()
        };
        match label
            .as_ref()
            .and_then(|(v, f)| Some((release::release(v)?, f)))
        {
            Some((r, f)) => (r, format!("{f}{no_match}")),
            None => match replacement::newest_hash_release() {
                Some(r) => (
                    r,
                    format!("the newest release, as nothing says which{no_match}"),
                ),
                None => return None,
            },
        }
    })
}

/// What the listener's hash of a set of ARC up to 0.14 is compared with: the AutoscalingListener
/// when it is among the inputs, else the live scale set.
fn listener_side<'a>(sides: &Sides<'a>) -> Option<ListenerSide<'a>> {
    match (sides.listener, sides.live) {
        (Some(l), _) => Some(ListenerSide::Listener {
            hash: l
                .meta
                .annotations
                .get(arc::ANNOTATION_RUNNER_SPEC_HASH)
                .map(String::as_str),
            values_hash: l
                .meta
                .annotations
                .get(ANNOTATION_VALUES_HASH)
                .map(String::as_str),
        }),
        (None, Some(live)) => live.spec.as_ref().map(|spec| ListenerSide::LiveScaleSet {
            spec_json: spec.get(),
            values_hash: live
                .meta
                .annotations
                .get(ANNOTATION_VALUES_HASH)
                .map(String::as_str),
        }),
        (None, None) => None,
    }
}
