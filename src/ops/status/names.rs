//! The names a user gives: an EphemeralRunnerSet's, or its AutoscalingRunnerSet's, which stands
//! for the sets ARC made for it (in the cluster and in a dump alike), and the names found nowhere.

use anyhow::Result;

use crate::cluster::api::{ArcApi, Resource};
use crate::core::pairing;
use crate::core::status::{Census, SetStatus};
use crate::input;

use super::Plan;

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

/// Names given that are neither a set in the census nor a scale set shown without one, as the
/// source says it (`not_found_in`: [`crate::cluster::api::ArcApi::not_found_in`]). Without a
/// namespace (a dump's every namespace) a name is found in any.
pub(crate) fn missing_names(
    plan: &Plan,
    census: &Census,
    shown: &[SetStatus],
    not_found_in: &str,
) -> Vec<String> {
    let ns = plan.namespace.as_deref();
    let in_census = |n: &String| match ns {
        Some(ns) => census.contains(&(ns.to_string(), n.clone())),
        None => census.keys().any(|k| &k.1 == n),
    };
    plan.names
        .iter()
        .filter(|n| !in_census(n))
        .filter(|n| !(shown.iter()).any(|r| ns.is_none_or(|ns| r.namespace == ns) && &r.name == *n))
        .map(|n| match ns {
            Some(ns) => format!("EphemeralRunnerSet {ns}/{n} not found{not_found_in}"),
            None => format!("EphemeralRunnerSet {n} not found{not_found_in}"),
        })
        .collect()
}
