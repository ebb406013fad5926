//! The names a user gives: an EphemeralRunnerSet's, or its AutoscalingRunnerSet's, which stands
//! for the sets ARC made for it (in the cluster and in a dump alike), and the names found nowhere.

use anyhow::Result;

use crate::cluster::api::{ArcApi, Resource};
use crate::core::arc;
use crate::core::pairing;
use crate::core::status::{Census, SetStatus};
use crate::input;

use super::{Files, Plan};

/// Names as a user gives them: an EphemeralRunnerSet's, or its AutoscalingRunnerSet's (ARC up to
/// 0.14 names its sets `<scale set>-xxxxx`), which stands for the sets ARC made for it, found as
/// ARC finds them. A name that is neither stays, and is reported as not found.
pub(super) async fn resolve_names<A: ArcApi>(
    api: &A,
    namespace: &str,
    names: &[String],
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut sets: Option<Vec<input::Object>> = None;
    for name in names {
        if (api
            .get(Resource::EPHEMERAL_RUNNER_SETS, namespace, name)
            .await?)
            .is_some()
        {
            out.push(name.clone());
            continue;
        }
        let Some(scale_set) = (api.get(Resource::AUTOSCALING_RUNNER_SETS, namespace, name)).await?
        else {
            out.push(name.clone());
            continue;
        };
        if sets.is_none() {
            let listed = api.list(Resource::EPHEMERAL_RUNNER_SETS, Some(namespace), None);
            sets = Some(listed.await?);
        }
        let sets = sets.as_deref().unwrap_or_default();
        let inputs: Vec<_> = sets.iter().map(input::Object::pairing_set).collect();
        let scale_set = pairing::ScaleSet {
            namespace,
            name,
            uid: scale_set.meta.uid.as_deref(),
        };
        match pairing::pair(scale_set, &inputs) {
            Some(p) => out.extend(
                std::iter::once(p.chosen)
                    .chain(p.replaced)
                    .map(|i| sets[i].name().to_string()),
            ),
            None => out.push(name.clone()),
        }
    }
    Ok(out)
}

/// The names of `plan` as the sets of the files they stand for ([`resolve_names`] over a dump of
/// the files' sets and scale sets): a scale set's name is its sets'.
pub(super) fn offline_names(plan: &Plan, files: &Files, objects: &[input::Object]) -> Vec<String> {
    if plan.names.is_empty() {
        return Vec::new();
    }
    let namespace = plan.namespace.as_deref().unwrap_or(&files.namespace);
    let kept = objects.iter().filter(|o| {
        o.problem.is_none()
            && (o.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET)
                || o.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET))
    });
    let dump = crate::cluster::dump::Dump::of(kept.cloned().collect());
    let resolved = crate::ops::runtime()
        .and_then(|rt| rt.block_on(resolve_names(&dump, namespace, &plan.names)));
    resolved.unwrap_or_else(|_| plan.names.clone())
}

/// Names given that are neither a set in the census nor a scale set shown without one.
pub(crate) fn missing_names(plan: &Plan, census: &Census, shown: &[SetStatus]) -> Vec<String> {
    let ns = plan.namespace.clone().unwrap_or_default();
    plan.names
        .iter()
        .filter(|n| !census.contains(&(ns.clone(), (*n).clone())))
        .filter(|n| !shown.iter().any(|r| r.namespace == ns && &r.name == *n))
        .map(|n| format!("EphemeralRunnerSet {ns}/{n} not found"))
        .collect()
}
