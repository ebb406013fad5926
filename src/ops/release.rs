//! Which ARC release judges a scale set, and its verdict: the rule of that release's mechanism
//! (`crate::core::replacement`) applied to the objects `diff` paired.
//!
//! The release is picked by the core's one release rule, [`replacement::judging`] (also
//! `status`'s, through [`judging_release`]): `--arc-version`, else the controller Deployment's,
//! else the AutoscalingRunnerSet's chart label (with the sets' own release named as the
//! alternative when it differs), else the sets' own release (their label, or the release whose
//! `RunnerSetSpecHash()` of the live AutoscalingRunnerSet equals the newest set's
//! `runner-spec-hash`), else the newest release. Whether that release replaces the set is the
//! core's one replacement rule, [`replacement::replaces`]; this file gathers the evidence of both
//! from the objects and says the verdict in the report.

use crate::core::arc;
use crate::core::release::{self, ArcRelease, Mechanism};
use crate::core::replacement::{self, ANNOTATION_VALUES_HASH, Evidence, ListenerSide, Verdict};
use crate::core::upgrade::Target;
use crate::input::Object;
use crate::report::diff::{Alternative, HashPair, ScaleSetDiff, ScaleSetDifference, Specs};

/// The release the run was told, or read from the cluster.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stated {
    /// `--arc-version`: the release whose rule judges every scale set (an upgrade to it), or
    /// `next`.
    pub(crate) flag: Option<Target>,
    /// The controller Deployment's release (its `app.kubernetes.io/version` when a known release,
    /// or `next` when recognised as a build of ARC's master: [`crate::core::next::recognised_as_next`])
    /// and where, with why.
    pub(crate) controller: Option<(Target, String)>,
}

impl Stated {
    /// Where the next release was stated (`--arc-version next`, or the controller recognised as
    /// running it, and why), when it judges; `None` when a released one does or nothing says.
    pub(crate) fn next(&self) -> Option<String> {
        match (self.flag, &self.controller) {
            (Some(Target::Next), _) => Some("--arc-version next".to_string()),
            (None, Some((Target::Next, from))) => Some(from.clone()),
            _ => None,
        }
    }

    /// The released ARC `--arc-version` names.
    fn flag_release(&self) -> Option<&'static ArcRelease> {
        self.flag.and_then(|t| t.release())
    }

    /// The released ARC the controller runs.
    fn controller_release(&self) -> Option<(&'static ArcRelease, String)> {
        let (t, from) = self.controller.as_ref()?;
        Some((t.release()?, from.clone()))
    }
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
    /// The integrity hash of the desired runner spec as ARC builds it in memory (with the
    /// scale-set id diff resolved), or why it cannot be reproduced; `None` when not computed.
    pub(crate) integrity_hash_in_memory: Option<&'a Result<String, String>>,
    /// The layout the integrity hash of the set as stored is computed with, when it differs from
    /// every shipped layout's.
    pub(crate) layout: &'static crate::core::layout::Layout,
}

/// Whether an EphemeralRunnerSet carries a revision field (`spec.actionableRevision` or
/// `status.appliedActionableRevision`).
pub(crate) fn has_revision_fields(set: &Object) -> bool {
    let in_spec = set
        .spec_field("actionableRevision")
        .is_ok_and(|f| f.is_some());
    in_spec || set.status_field("appliedActionableRevision").is_some()
}

/// The mechanism of a set from its own fields (see [`replacement::set_mechanism`]).
pub(crate) fn mechanism_of(set: &Object) -> Option<Mechanism> {
    replacement::set_mechanism(
        &set.meta.annotations,
        &set.meta.labels,
        has_revision_fields(set),
    )
}

/// Fill in the release's verdict on one compared (or new) scale set: `mechanism`, `recycle`, the
/// hashes, `listenerRestart`; and drop the integrity-hash recycle loop warning where that
/// mechanism does not run and is not about to.
pub(crate) fn judge(item: &mut ScaleSetDiff, stated: &Stated, sides: &Sides<'_>) {
    let own = sides.set.and_then(mechanism_of);
    let mechanism = match (stated.flag, own, &stated.controller) {
        (Some(t), _, _) => Some(t.mechanism()),
        (None, Some(m), _) => Some(m),
        (None, None, Some((t, _))) => Some(t.mechanism()),
        (None, None, None) => None,
    };
    // A new scale set: the release that will create its first set, as its chart label says.
    let mechanism = mechanism.or_else(|| {
        item.new
            .then(|| scale_set_label(sides).map(|(r, _)| r.mechanism))
            .flatten()
    });
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
        match mechanism {
            Mechanism::RunnerSpecHash => new_scale_set(item, stated, sides),
            _ => item.recycle = Some(false),
        }
        if let Some(from) = stated.next() {
            judged_as_next(item, stated, sides, from);
        }
        return;
    }
    match mechanism {
        Mechanism::ActionableRevision => {
            item.recycle = replacement::replaces(Verdict::ActionableRevision {
                semantic_drift: item.semantic_drift,
            })
        }
        Mechanism::IntegrityHash => integrity(item, sides),
        Mechanism::RunnerSpecHash => runner_spec_hash(item, stated, sides),
    }
    if let Some(from) = stated.next() {
        judged_as_next(item, stated, sides, from);
    }
}

/// The next release's verdict beyond the revision rule ([`crate::core::next`]): a set of ARC up
/// to 0.14 (`<scale set>-xxxxx`) is not the one it uses, and a scale set switched off by the
/// Outdated lifecycle leaves it only when its runner spec or that spec's metadata changes.
///
/// The version check comes first, as at the top of `AutoscalingRunnerSetReconciler.Reconcile`
/// (2ee6b3b8): the next release as `--arc-version next` names it checks the label against its
/// `build.Version` ([`Target::version_check`]); a controller recognised as a build of master
/// runs a `canary-<sha>` or `dev` build, which `v1alpha1.IsVersionAllowed` lets keep every label.
fn judged_as_next(item: &mut ScaleSetDiff, stated: &Stated, sides: &Sides<'_>, from: String) {
    item.release = Some("next".to_string());
    item.release_from = Some(from);
    if matches!(stated.flag, Some(Target::Next)) {
        let label = (sides.desired.meta.labels)
            .get(crate::core::release::LABEL_VERSION)
            .map(String::as_str);
        let check = Target::Next.version_check(label);
        if !check.allowed {
            item.recycle = Some(true);
            item.error = None;
            item.deleted_by_version_check = Some(check);
            return;
        }
    }
    if !item.replaced.is_empty() {
        // Not replaced: the next release never deletes them (seen with 2ee6b3b8's controllers).
        item.note = Some(format!(
            "the next release leaves {} running beside the set named like its scale set, with runners no listener scales down (ARC #4516; see `kubectl arc upgrade-plan --to next`)",
            std::mem::take(&mut item.replaced).join(", ")
        ));
    }
    let Some(set) = sides.set else { return };
    if set.name() != item.name {
        item.recycle = None;
        item.error = Some(format!(
            "{}: the next release gets the EphemeralRunnerSet named {} and creates it when absent (AutoscalingRunnerSetReconciler.Reconcile at 2ee6b3b8, ARC #4516), so it does not judge this set of ARC up to 0.14; it leaves it running beside the new one (see `kubectl arc upgrade-plan --to next`)",
            set.describe(),
            item.name
        ));
        return;
    }
    let (scale_set, own, listener) = (
        sides.live.and_then(|o| phase_in(o.status.as_deref())),
        phase_in(set.status.as_deref()),
        sides.listener.and_then(|o| phase_in(o.spec.as_deref())),
    );
    if !crate::core::next::switched_off(scale_set.as_deref(), own.as_deref(), listener.as_deref()) {
        return;
    }
    let desired = sides.desired.spec.as_ref().map_or("{}", |s| s.get());
    let metadata = set.spec_field("ephemeralRunnerMetadata").ok().flatten();
    let leaves = crate::core::next::corrected_with(
        item.semantic_drift == Some(true),
        desired,
        metadata.map(|m| m.get()),
    );
    item.outdated = Some(crate::report::diff::OutdatedVerdict { leaves });
    if !leaves {
        // Switched off and staying so: ARC makes no runner and recycles none.
        item.recycle = Some(false);
    }
}

/// The `phase` of an object's `status` or `spec` (JSON text), when a string.
pub(crate) fn phase_in(raw: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Phase {
        phase: Option<String>,
    }
    serde_json::from_str::<Phase>(raw?.get()).ok()?.phase
}

/// The integrity-hash era (ARC 2ee6b3b8): the AutoscalingRunnerSet controller patches the set,
/// with the hash of the runner spec it builds in memory as its annotation, when that hash differs
/// from the annotation; the EphemeralRunnerSet controller cleans up idle and pending runners when
/// the annotation is not the hash of the spec as stored (`ephemeralRunnerSetIntegrityHash` of
/// what it read), then writes that hash. So runners are recycled when the desired hash differs
/// from the annotation, and also when it does not but the set's own controller has not caught up
/// yet (a pending cleanup, by `migrate`'s rule: [`crate::core::migrate::hash_verdict`]).
fn integrity(item: &mut ScaleSetDiff, sides: &Sides<'_>) {
    let set = sides.set;
    let current = set
        .and_then(|s| s.meta.annotations.get(arc::ANNOTATION_INTEGRITY_HASH))
        .cloned();
    let desired = match sides.integrity_hash_in_memory {
        Some(Ok(desired)) => desired,
        Some(Err(why)) => {
            item.error = Some(format!(
                "{}: {why}; so whether ARC cleans up {} cannot be told",
                item.desired_from, item.current_from
            ));
            return;
        }
        None => {
            item.error = Some(format!(
                "{}: the integrity hash of its runner spec cannot be computed, so whether ARC cleans up {} cannot be told",
                item.desired_from, item.current_from
            ));
            return;
        }
    };
    let mut pair = HashPair {
        current: current.clone(),
        desired: desired.clone(),
        stored: None,
    };
    let verdict = |stored| Verdict::IntegrityHash {
        desired,
        annotation: current.as_deref(),
        stored,
    };
    let mut recycle = replacement::replaces(verdict(None)) == Some(true);
    // The ARS controller is satisfied: whether the set's own controller is too.
    if let (false, Some(annotation), Some(set)) = (recycle, current.as_deref(), set) {
        match stored_integrity(sides.layout, set, annotation) {
            Ok(stored) => {
                recycle = replacement::replaces(verdict(Some(&stored))) == Some(true);
                pair.stored = Some(stored);
            }
            Err(why) => {
                item.error = Some(format!(
                    "{}: {why}; so whether ARC's EphemeralRunnerSet controller still cleans it up cannot be told",
                    set.describe()
                ));
                return;
            }
        }
    }
    item.recycle = Some(recycle || item.legacy_recycle_loop == Some(true));
    item.integrity_hash = Some(pair);
}

/// The integrity hash of a set's runner spec as stored: the annotation when some shipped layout
/// hashes the spec to it (a controller of that k8s.io/api wrote it), else this layout's hash;
/// or why it cannot be reproduced (its set times named).
fn stored_integrity(
    layout: &'static crate::core::layout::Layout,
    set: &Object,
    annotation: &str,
) -> Result<String, String> {
    use crate::core::migrate::{HashVerdict, hash_verdict};
    let spec = set
        .spec_field("ephemeralRunnerSpec")
        .map_err(|e| e.to_string())?
        .map_or("{}", |r| r.get());
    match hash_verdict(annotation, spec) {
        HashVerdict::Matches(_) => Ok(annotation.to_string()),
        HashVerdict::Mismatch => {
            let v = crate::core::value::decode(layout, layout.ephemeral_runner_spec, spec)
                .map_err(|e| e.to_string())?;
            crate::core::legacy_hash::integrity_hash(layout, &v).map_err(|e| e.to_string())
        }
        HashVerdict::Unverifiable(problems) => {
            let times = crate::core::value::decode(layout, layout.ephemeral_runner_spec, spec)
                .map(|v| {
                    crate::core::legacy_hash::set_times(layout, layout.ephemeral_runner_spec, &v)
                })
                .unwrap_or_default();
            if times.is_empty() {
                return Err(problems
                    .iter()
                    .map(|p| format!("k8s.io/api {}: {}", p.k8s_api, p.error))
                    .collect::<Vec<_>>()
                    .join("; "));
            }
            let fields: Vec<String> = times
                .iter()
                .map(|p| format!("spec.ephemeralRunnerSpec.{p}"))
                .collect();
            Err(crate::core::reason::SetTimes {
                fields: &fields,
                hash: "ARC's integrity hash of its runner spec as stored",
            }
            .to_string())
        }
    }
}

/// Why ARC's integrity hash of the runner spec built from an AutoscalingRunnerSet cannot be
/// reproduced: its set times, named in the AutoscalingRunnerSet (`metadata.creationTimestamp` of
/// the runner spec is `spec.template.metadata.creationTimestamp`), else the hasher's words.
pub(crate) fn integrity_unverifiable(
    layout: &crate::core::layout::Layout,
    runner_spec: Option<&crate::core::value::Value>,
    fallback: &str,
) -> String {
    let times = runner_spec
        .map(|v| crate::core::legacy_hash::set_times(layout, layout.ephemeral_runner_spec, v))
        .unwrap_or_default();
    if times.is_empty() {
        return format!(
            "the integrity hash of its runner spec cannot be reproduced exactly ({fallback})"
        );
    }
    let fields: Vec<String> = times.iter().map(|p| template_path(p)).collect();
    crate::core::reason::SetTimes {
        fields: &fields,
        hash: "ARC's integrity hash of the runner spec",
    }
    .to_string()
}

/// A runner spec's path as the AutoscalingRunnerSet spells it: the pod template's `metadata` and
/// `spec` sit inline in the runner spec and under `spec.template` in the AutoscalingRunnerSet.
fn template_path(p: &str) -> String {
    if p.starts_with("metadata") || p.starts_with("spec") {
        format!("spec.template.{p}")
    } else {
        format!("spec.{p}")
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
    let evidence = Evidence {
        set_label: set_label(set),
        set_hash: set_hash(set, sides, detection.as_ref()),
        ..evidence(stated, scale_set_label(sides))
    };
    let Some(judging) = replacement::judging(evidence) else {
        return;
    };
    let judge_by = judging.release;
    item.release = Some(judge_by.version.to_string());
    item.release_from = Some(judging.from.clone());
    item.hash_matches = matches.clone();
    let desired_spec = sides.desired.spec.as_ref().map_or("{}", |s| s.get());
    let verdict = match replacement::runner_set_verdict(judge_by, desired_spec, annotation) {
        Ok(v) => v,
        Err(e) => {
            item.error = Some(runner_spec_hash_error(
                judge_by,
                &item.desired_from,
                desired_spec,
                &e,
            ));
            return;
        }
    };
    item.recycle = Some(verdict.recycle);
    item.runner_spec_hash = Some(HashPair {
        current: verdict.current.clone(),
        desired: verdict.desired.clone(),
        stored: None,
    });
    if let Some(live) = sides.live {
        scale_set_changes(item, judge_by, live, sides.desired, annotation);
        if !verdict.recycle {
            let live_spec = live.spec.as_ref().map_or("{}", |s| s.get());
            item.unhashed_changes =
                crate::core::spec_hash::unhashed_changes(judge_by, live_spec, desired_spec);
        }
    }
    if let Some((other, from)) = judging.alternative
        && let Ok(v) = replacement::runner_set_verdict(other, desired_spec, annotation)
        && v.desired != verdict.desired
    {
        item.alternative = Some(Alternative {
            release: other.version.to_string(),
            release_from: from,
            recycle: v.recycle,
            runner_spec_hash: HashPair {
                current: v.current,
                desired: v.desired,
                stored: None,
            },
        });
    }
    // An upgrade: the release that made the set hashes the unchanged scale set to the annotation,
    // the one named does not.
    if stated.flag_release().is_some()
        && let (Some(live), Some(m)) = (sides.live, &matches)
        && !m.is_empty()
    {
        let live_spec = live.spec.as_ref().map_or("{}", |s| s.get());
        if let Ok(v) = replacement::runner_set_verdict(judge_by, live_spec, annotation) {
            item.upgrade_replaces = Some(v.recycle);
        }
    }
    item.listener_restart = listener_made_again(judge_by, verdict.recycle, sides);
    version_check(item, judge_by, sides);
}

/// ARC's version check ([`ArcRelease::version_check`]): a scale set whose
/// `app.kubernetes.io/version` the judging release does not allow is deleted by its controller,
/// whatever its hash says; `recycle` is then true (exit 1).
fn version_check(item: &mut ScaleSetDiff, release: &'static ArcRelease, sides: &Sides<'_>) {
    let label = (sides.desired.meta.labels)
        .get(crate::core::release::LABEL_VERSION)
        .map(String::as_str);
    let check = release.version_check(label);
    if !check.allowed {
        item.recycle = Some(true);
        item.deleted_by_version_check = Some(check);
    }
}

/// Whether ARC up to 0.14 makes the scale set's listener again (every tag from 0.9.0 to 0.14.2:
/// `Reconcile` deletes the listener when its `actions.github.com/runner-spec-hash` annotation is
/// not `ListenerSpecHash()`, the whole spec, or its `actions.github.com/values-hash` is not the
/// scale set's, and creates it when absent). A replaced set always gets its listener again: the
/// listener hash covers every field the set's hash does (and from 0.13.0 on the listener's name
/// holds the runner group and the config URL, so a change of either makes a listener of a new
/// name). `None` where it cannot be known (no listener, no live scale set).
fn listener_made_again(release: &ArcRelease, replaced: bool, sides: &Sides<'_>) -> Option<bool> {
    if replaced {
        return Some(true);
    }
    let side = listener_side(sides)?;
    let desired_spec = sides.desired.spec.as_ref().map_or("{}", |s| s.get());
    let desired_values = sides
        .desired
        .meta
        .annotations
        .get(ANNOTATION_VALUES_HASH)
        .map(String::as_str);
    replacement::listener_restart(release, desired_spec, desired_values, side).ok()
}

/// What changed in the scale set, as the release hashes it: the live and the desired
/// AutoscalingRunnerSet compared over the fields `RunnerSetSpecHash()` hashes
/// ([`crate::core::spec_hash::scale_set_differences`]), each value as its input wrote it; and
/// the live one's hash when the set was not made from it.
fn scale_set_changes(
    item: &mut ScaleSetDiff,
    release: &'static ArcRelease,
    live: &Object,
    desired: &Object,
    annotation: Option<&str>,
) {
    use crate::core::spec_hash;
    let live_spec = live.spec.as_ref().map_or("{}", |s| s.get());
    let desired_spec = desired.spec.as_ref().map_or("{}", |s| s.get());
    if let Ok(h) = spec_hash::runner_set_spec_hash(release, live_spec)
        && annotation != Some(h.as_str())
    {
        item.live_runner_spec_hash = Some(h);
    }
    let (Ok(differences), Ok((layout, live_v)), Ok((_, desired_v))) = (
        spec_hash::scale_set_differences(release, live_spec, desired_spec),
        spec_hash::hashed_spec(release, live_spec),
        spec_hash::hashed_spec(release, desired_spec),
    ) else {
        return;
    };
    if differences.is_empty() {
        return;
    }
    let ty = layout.autoscaling_runner_set_spec;
    let (live_w, desired_w) = (live.written_spec(None), desired.written_spec(None));
    let shown = |v: &crate::core::value::Value,
                 w: &crate::core::written::Written,
                 path: &str,
                 quoted: bool| {
        let at = path.strip_prefix("spec.").unwrap_or(path);
        crate::report::display::report_text(layout, ty, v, w, at, quoted)
    };
    item.scale_set_differences = differences
        .iter()
        .map(|d| {
            let (mut from, mut to) = (
                shown(&live_v, &live_w, &d.path, false),
                shown(&desired_v, &desired_w, &d.path, false),
            );
            if from.is_some() && from == to {
                (from, to) = (
                    shown(&live_v, &live_w, &d.path, true),
                    shown(&desired_v, &desired_w, &d.path, true),
                );
            }
            ScaleSetDifference {
                path: d.path.clone(),
                reason: d.reason,
                from,
                to,
            }
        })
        .collect();
    item.scale_set_specs = Some(Box::new(Specs {
        layout,
        ty,
        desired: desired_v,
        current: live_v,
        desired_written: desired_w,
        current_written: live_w,
    }));
}

/// A new scale set (no set yet) under a release of ARC up to 0.14: the release that will create
/// its first set ([`judging_release`]: `--arc-version`, the controller, the chart label) and that
/// release's `RunnerSetSpecHash()` of it, the hash its first set will carry. Nothing is recycled.
fn new_scale_set(item: &mut ScaleSetDiff, stated: &Stated, sides: &Sides<'_>) {
    item.recycle = Some(false);
    let Some(judging) = replacement::judging(evidence(stated, scale_set_label(sides))) else {
        return;
    };
    item.release = Some(judging.release.version.to_string());
    item.release_from = Some(judging.from);
    version_check(item, judging.release, sides);
    let desired_spec = sides.desired.spec.as_ref().map_or("{}", |s| s.get());
    if let Ok(v) = replacement::runner_set_verdict(judging.release, desired_spec, None) {
        item.runner_spec_hash = Some(HashPair {
            current: None,
            desired: v.desired,
            stored: None,
        });
    }
}

/// The release the scale set's chart names: the `app.kubernetes.io/version` label of the desired
/// AutoscalingRunnerSet (what the scale set will carry when ARC reconciles it), else of the live
/// one; `None` when neither names a release of the table.
fn scale_set_label(sides: &Sides<'_>) -> Option<(&'static ArcRelease, String)> {
    [Some(sides.desired), sides.live]
        .into_iter()
        .flatten()
        .find_map(|o| {
            let r = release::release(o.meta.labels.get(LABEL_VERSION)?)?;
            Some((r, format!("label {LABEL_VERSION} of {}", o.describe())))
        })
}

/// The release that made the newest set by its own `app.kubernetes.io/version` label.
fn set_label(set: &Object) -> Option<(&'static ArcRelease, String)> {
    let r = release::release(set.meta.labels.get(LABEL_VERSION)?)?;
    Some((r, format!("label {LABEL_VERSION} of {}", set.describe())))
}

/// The release that made the newest set by its hash: the newest release whose hash of the live
/// AutoscalingRunnerSet equals its `runner-spec-hash`.
fn set_hash(
    set: &Object,
    sides: &Sides<'_>,
    detection: Option<&replacement::Detection>,
) -> Option<(&'static ArcRelease, String)> {
    let m = detection.map(|d| &d.matches).filter(|m| !m.is_empty())?;
    let live = sides.live.map(Object::describe).unwrap_or_default();
    Some((
        release::release(m.last()?)?,
        format!(
            "runner-spec-hash of {}: the hash of {live} by {} equals it",
            set.describe(),
            replacement::versions_text(m)
        ),
    ))
}

/// Why a release's `RunnerSetSpecHash()` of the desired AutoscalingRunnerSet cannot be given:
/// a set time named with its reason and fix, else the decoder's error.
fn runner_spec_hash_error(
    release: &ArcRelease,
    desired_from: &str,
    spec: &str,
    e: &crate::core::spec_hash::SpecHashError,
) -> String {
    let times = match e {
        crate::core::spec_hash::SpecHashError::Unverifiable(_) => {
            crate::core::spec_hash::set_times(release, spec)
        }
        _ => Vec::new(),
    };
    if times.is_empty() {
        return format!(
            "{desired_from}: spec: ARC {}'s RunnerSetSpecHash() cannot be computed: {e}",
            release.version
        );
    }
    let hash = format!("ARC {}'s RunnerSetSpecHash()", release.version);
    let why = crate::core::reason::SetTimes {
        fields: &times,
        hash: &hash,
    };
    format!("{desired_from}: {why}; so whether ARC replaces the set cannot be told")
}

/// The chart's (and ARC's) label naming a release.
const LABEL_VERSION: &str = "app.kubernetes.io/version";

pub(crate) use crate::core::replacement::Judging;

/// The evidence of the release rule ([`replacement::judging`]) that the run states and the scale
/// set's chart label gives: `--arc-version`, the controller's release, the label.
fn evidence(stated: &Stated, scale_set_label: Option<(&'static ArcRelease, String)>) -> Evidence {
    Evidence {
        flag: stated.flag_release(),
        controller: stated.controller_release(),
        scale_set_label,
        set_label: None,
        set_hash: None,
    }
}

/// The one release rule ([`replacement::judging`]) over what `status` reads: the run's
/// statement, the scale set's chart label and the set's own label (`own`).
pub(crate) fn judging_release(
    stated: &Stated,
    scale_set_label: Option<(&'static ArcRelease, String)>,
    own: Option<(&'static ArcRelease, String)>,
) -> Option<Judging> {
    replacement::judging(Evidence {
        set_label: own,
        ..evidence(stated, scale_set_label)
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
