//! What each set's scale set and surroundings say of it: the spec its AutoscalingRunnerSet wants
//! and the release that judges it ([`attach_desired`]), its listener, controller and CRDs
//! ([`attach_surroundings`]), the rows of scale sets without a set, and `status NAME`'s chains.

use std::collections::HashMap;

use serde::Deserialize;

use crate::cluster::api::Lent;
use crate::core::arc;
use crate::core::status::listener::{deletion_of_object, finalizers_left, listener_reasons};
use crate::core::status::{
    Census, DesiredSpec, ListenerView, Replacement, ScaleSetFacts, SetFacts, SetKey, SetStatus,
    Unobserved,
};
use crate::input;
use crate::report::status::{Chain, ScaleSetLine};

use super::gather::census_pairs;
use super::surroundings::Surroundings;
use super::{Plan, phase_of};

/// Tell each scale set's newest set what its surroundings say: its listener and the listener's
/// Pod ([`crate::core::status::listener::listener_reasons`]), and its scale set stuck in deletion;
/// and every set what the installation says (a controller newer than its CRDs).
pub(super) fn attach_surroundings(
    scale_sets: &[Lent<'_>],
    census: &mut Census,
    around: &Surroundings,
) {
    let said: Vec<(SetKey, Vec<crate::core::status::StatusReason>)> = {
        census_pairs(scale_sets, census)
            .into_iter()
            .filter_map(|(a, key, replaced)| {
                let key = &key;
                let latest = census.facts(key)?;
                let names: Vec<String> = std::iter::once(key)
                    .chain(&replaced)
                    .map(|k| k.1.clone())
                    .collect();
                let deletion = deletion_of_object(a);
                let scale_set = ScaleSetFacts::new(
                    a.key(),
                    a.meta
                        .annotations
                        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                        .map(String::as_str),
                    phase_of(a).as_deref(),
                    deletion.clone(),
                );
                let (running, pending) = census.running_and_pending(key);
                let view = around.view(a);
                let stated = around.stated(a.namespace());
                let stale = listener_stale_under(a, latest, &view, &stated);
                let mut reasons = listener_reasons(
                    &scale_set,
                    latest,
                    &names,
                    &view,
                    running,
                    pending,
                    stale.as_deref(),
                );
                reasons.extend(around.behind_controller(&a.key(), &view));
                reasons.extend(around.version_check(a));
                reasons.extend(around.orphans(a));
                reasons.extend(release_disagrees(a, latest, &stated));
                if let Some(d) = deletion.filter(|d| !d.finalizers.is_empty()) {
                    let name = format!("{}/{}", a.namespace(), a.name());
                    reasons.push(finalizers_left(arc::KIND_AUTOSCALING_RUNNER_SET, &name, &d));
                }
                Some((key.clone(), reasons))
            })
            .collect()
    };
    // What the installation says goes on every set's row, with a scale set or not.
    let installation = around.installation_reasons();
    let older = around.crds_look_older(scale_sets, census);
    let mut said: HashMap<SetKey, Vec<crate::core::status::StatusReason>> =
        said.into_iter().collect();
    let keys: Vec<SetKey> = census.keys().cloned().collect();
    for key in keys {
        let mut reasons = said.remove(&key).unwrap_or_default();
        reasons.extend(installation.iter().cloned());
        reasons.extend(older.get(&key.0).cloned());
        census.set_around(&key, reasons);
    }
}

/// `status NAME`: the chain of every set in view ([`Chain`]); none without names.
pub(super) fn chains(
    plan: &Plan,
    scale_sets: &[Lent<'_>],
    census: &Census,
    around: &Surroundings,
) -> Vec<Chain> {
    if plan.names.is_empty() {
        return Vec::new();
    }
    let mut by_set: HashMap<SetKey, (&input::Object, Vec<String>)> = HashMap::new();
    for (a, newest, replaced) in census_pairs(scale_sets, census) {
        let older = replaced.iter().map(|k| k.1.clone()).collect();
        for key in replaced {
            by_set.insert(key, (a, Vec::new()));
        }
        by_set.insert(newest, (a, older));
    }
    census
        .keys()
        .map(|key| {
            let (scale_set, older) = match by_set.get(key) {
                Some((a, older)) => (Some(*a), older.clone()),
                None => (None, Vec::new()),
            };
            Chain {
                set: key.clone(),
                scale_set: scale_set.map(|a| ScaleSetLine {
                    name: format!("{}/{}", a.namespace(), a.name()),
                    id: a
                        .meta
                        .annotations
                        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                        .cloned(),
                    phase: phase_of(a),
                    deleting: a.meta.deletion_timestamp.is_some(),
                }),
                older,
                listener: scale_set.map_or(ListenerView::Unknown, |a| around.view(a)),
                controllers: around.controllers.clone(),
                crds: around.crds.clone(),
            }
        })
        .collect()
}

/// ARC up to 0.14: the release under which the scale set's listener was made from another spec
/// than the scale set's (its `runner-spec-hash` or `values-hash` annotation differs from
/// `ListenerSpecHash()` and the scale set's values hash: `listener_restart`), the release as
/// [`judged`] takes it; `None` when it was not, or this cannot be told.
fn listener_stale_under(
    scale_set: &input::Object,
    latest: &SetFacts,
    view: &ListenerView,
    stated: &crate::ops::release::Stated,
) -> Option<String> {
    use crate::core::replacement::{ANNOTATION_VALUES_HASH, ListenerSide, listener_restart};
    let ListenerView::Found { listener, .. } = view else {
        return None;
    };
    if !latest.spec_hash_era || listener.deletion.is_some() || listener.spec_hash.is_none() {
        return None;
    }
    let release = judging_of(scale_set, latest, stated)?.release;
    let spec = scale_set.spec.as_ref()?.get();
    let values = scale_set
        .meta
        .annotations
        .get(ANNOTATION_VALUES_HASH)
        .map(String::as_str);
    let side = ListenerSide::Listener {
        hash: listener.spec_hash.as_deref(),
        values_hash: listener.values_hash.as_deref(),
    };
    listener_restart(release, spec, values, side)
        .ok()?
        .then(|| release.version.to_string())
}

/// Attach to each set in the census what its AutoscalingRunnerSet wants, found as ARC finds it
/// (owner reference, labels, name; the newest set when several), so that a change ARC has not
/// written yet shows as Propagating; a set of ARC up to 0.14 judged by the release `around`
/// states for its namespace ([`Surroundings::stated`]).
pub(super) fn attach_desired(scale_sets: &[Lent<'_>], census: &mut Census, around: &Surroundings) {
    let mut replacements: Vec<(SetKey, Replacement)> = Vec::new();
    let mut nexts: Vec<(SetKey, Option<crate::core::status::NextSide>)> = Vec::new();
    let chosen: Vec<(SetKey, DesiredSpec)> = {
        census_pairs(scale_sets, census)
            .into_iter()
            .filter_map(|(a, newest, replaced)| {
                let next = around.next(a.namespace()).is_some();
                // The next release uses the set named like its scale set (ARC #4516), whichever
                // is newest; every release before it the newest.
                let key = match next {
                    true => std::iter::once(&newest)
                        .chain(&replaced)
                        .find(|k| k.1 == a.name())
                        .unwrap_or(&newest),
                    false => &newest,
                };
                let facts = census.facts(key)?;
                let judged_next = (next && !facts.spec_hash_era).then(|| next_side(a, around));
                nexts.push((key.clone(), judged_next.flatten()));
                if next {
                    replacements.extend(left_behind(a, census, &newest, &replaced));
                } else if facts.spec_hash_era {
                    let stated = around.stated(a.namespace());
                    replacements.push((key.clone(), judged(a, facts, &stated)));
                    for old in &replaced {
                        replacements.push((
                            old.clone(),
                            Replacement::Old {
                                newest: facts.name.clone(),
                            },
                        ));
                    }
                }
                let id = a
                    .meta
                    .annotations
                    .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                    .cloned()
                    .or_else(|| runner_scale_set_id(facts.runner_spec.as_deref()?));
                Some((
                    key.clone(),
                    DesiredSpec {
                        scale_set: format!("{}/{}", a.namespace(), a.name()),
                        spec_json: a.spec.as_ref()?.get().to_string(),
                        scale_set_id: id,
                        unobserved: unobserved(a),
                    },
                ))
            })
            .collect()
    };
    for (key, desired) in chosen {
        census.set_desired(&key, Some(desired));
    }
    for (key, replacement) in replacements {
        census.set_replacement(&key, Some(replacement));
    }
    for (key, next) in nexts {
        census.set_next(&key, next);
    }
}

/// The sets of ARC up to 0.14 of `scale_set` (its newest `key` and those it replaced) that the
/// next release leaves behind: every one not named like the scale set
/// ([`Replacement::LeftBehind`]).
fn left_behind(
    scale_set: &input::Object,
    census: &Census,
    key: &SetKey,
    replaced: &[SetKey],
) -> Vec<(SetKey, Replacement)> {
    std::iter::once(key)
        .chain(replaced)
        .filter(|k| k.1 != scale_set.name())
        .filter(|k| census.facts(k).is_some_and(|f| f.spec_hash_era))
        .map(|k| {
            let scale_set = format!("{}/{}", scale_set.namespace(), scale_set.name());
            (k.clone(), Replacement::LeftBehind { scale_set })
        })
        .collect()
}

/// The newest set of ARC up to 0.14 as its scale set judges it: the release of the one rule
/// ([`crate::ops::release::judging_release`]: `--arc-version`, the controller's, the scale set's
/// chart label, else the set's own) hashes the scale set.
fn judged(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Replacement {
    let Some(judging) = judging_of(scale_set, facts, stated) else {
        return Replacement::Judged {
            scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
            release: "?".into(),
            desired: Err("no release of the runner-spec-hash era is known".into()),
        };
    };
    let release = judging.release;
    let spec = scale_set.spec.as_ref().map_or("{}", |s| s.get());
    Replacement::Judged {
        scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
        release: release.version.to_string(),
        desired: crate::core::spec_hash::runner_set_spec_hash(release, spec)
            .map_err(|e| e.to_string()),
    }
}

/// The release judging a scale set's newest set of ARC up to 0.14, by the one rule `diff` follows:
/// `--arc-version`, else the release of the controller Deployment that reconciles the namespace,
/// else the scale set's chart label (the set's own label as the alternative), else the set's own.
/// `None` under the next release, which leaves such a set behind ([`left_behind`]).
fn judging_of(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Option<crate::ops::release::Judging> {
    if stated.next().is_some() {
        return None;
    }
    let label = |labels: &std::collections::BTreeMap<String, String>, of: String| {
        let r = crate::core::release::release(labels.get("app.kubernetes.io/version")?)?;
        Some((r, format!("label app.kubernetes.io/version of {of}")))
    };
    crate::ops::release::judging_release(
        stated,
        label(&scale_set.meta.labels, scale_set.describe()),
        label(
            &facts.labels,
            format!("EphemeralRunnerSet {}/{}", facts.namespace, facts.name),
        ),
    )
}

/// [`StatusReason::ReleaseDisagrees`]: the scale set is judged by its chart's release, and the
/// release that made its newest set hashes it otherwise.
fn release_disagrees(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Option<crate::core::status::StatusReason> {
    if !facts.spec_hash_era {
        return None;
    }
    let judging = judging_of(scale_set, facts, stated)?;
    let (other, _) = judging.alternative?;
    let spec = scale_set.spec.as_ref()?.get();
    let hash = |r| crate::core::spec_hash::runner_set_spec_hash(r, spec).ok();
    let (ours, theirs) = (hash(judging.release)?, hash(other)?);
    (ours != theirs).then(|| crate::core::status::StatusReason::ReleaseDisagrees {
        scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
        release: judging.release.version.to_string(),
        other: other.version.to_string(),
        other_replaces: facts.runner_spec_hash.as_deref() != Some(theirs.as_str()),
        other_hash: theirs,
    })
}

/// `runnerScaleSetId` of a runner spec, when set.
pub(super) fn runner_scale_set_id(runner_spec: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Id {
        #[serde(rename = "runnerScaleSetId")]
        id: Option<serde_json::Number>,
    }
    let Id { id } = serde_json::from_str(runner_spec).ok()?;
    id.filter(|n| n.as_i64().is_some_and(|n| n != 0))
        .map(|n| n.to_string())
}

/// `metadata.generation` ahead of `status.observedGeneration`, where the object has both.
pub(super) fn unobserved(scale_set: &input::Object) -> Option<Unobserved> {
    let observed = observed_generation(scale_set)?;
    crate::core::next::observed_generation_behind(scale_set.meta.generation, Some(observed))
}

/// `status.observedGeneration` of an AutoscalingRunnerSet, when written (the next release writes
/// it, ARC #4636).
fn observed_generation(scale_set: &input::Object) -> Option<i64> {
    #[derive(Deserialize)]
    struct Status {
        #[serde(rename = "observedGeneration")]
        observed: Option<i64>,
    }
    serde_json::from_str::<Status>(scale_set.status.as_ref()?.get())
        .ok()?
        .observed
}

/// What the next release reads around the newest set of `scale_set` when it judges the
/// namespace ([`crate::core::status::NextSide`]): the scale set's generation against its
/// `status.observedGeneration` (absent reads 0, as Go decodes it), its phase, its listener's
/// `spec.phase`.
fn next_side(
    scale_set: &input::Object,
    around: &Surroundings,
) -> Option<crate::core::status::NextSide> {
    let from = around.next(scale_set.namespace())?;
    let listener_phase = match around.view(scale_set) {
        ListenerView::Found { listener, .. } => listener.phase.clone(),
        _ => None,
    };
    Some(crate::core::status::NextSide {
        from,
        unobserved: crate::core::next::observed_generation_behind(
            scale_set.meta.generation,
            observed_generation(scale_set),
        ),
        scale_set_phase: phase_of(scale_set),
        listener_phase,
    })
}

/// The row of a scale set without a set ([`crate::core::status::scale_set_without_set`]), its
/// version checked by the release `around` states for its namespace.
pub(super) fn scale_set_row(
    plan: &Plan,
    scale_set: &input::Object,
    around: &Surroundings,
) -> SetStatus {
    let key = scale_set.key();
    let phase = phase_of(scale_set);
    let deletion = deletion_of_object(scale_set);
    let version_check = around.version_check(scale_set);
    crate::core::status::scale_set_without_set(
        plan.layout,
        crate::core::status::WithoutSet {
            key: &key,
            spec_json: scale_set.spec.as_ref().map(|s| s.get()),
            scale_set_id: (scale_set.meta.annotations)
                .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                .map(String::as_str),
            phase: phase.as_deref(),
            creation_timestamp: scale_set.meta.creation_timestamp.as_deref(),
            deletion: deletion.as_ref(),
            version_check: version_check.as_ref(),
            next: around.next(scale_set.namespace()).is_some(),
        },
        plan.now(),
    )
}

/// Judge every set of the census again against its scale set ([`attach_desired`]) and its
/// surroundings ([`attach_surroundings`]), as one listing does.
pub(super) fn rejudge(scale_sets: &[Lent<'_>], census: &mut Census, around: &Surroundings) {
    attach_desired(scale_sets, census, around);
    attach_surroundings(scale_sets, census, around);
}
