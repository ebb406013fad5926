//! One listing into the census: the selected sets, then the runners, page by page on a worker
//! thread (the next page is fetched meanwhile); the runners' Pods and the scale sets beside them;
//! and which scale sets ARC finds a set of (paired as its `listEphemeralRunnerSets` pairs them).

use std::collections::HashSet;
use std::sync::mpsc as std_mpsc;

use anyhow::{Context as _, Result};

use crate::cluster::PAGE_SIZE;
use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::watch::Scope;
use crate::core::pairing;
use crate::core::status::{Census, PodFacts, RunnerFacts, RunnerPods, SetFacts, SetKey};
use crate::input;

use super::Plan;
use super::surroundings::unreadable;

/// The readable scale sets with their sets in the census, paired as ARC's
/// `listEphemeralRunnerSets` finds them, the census's sets indexed once: (the scale set, its newest
/// set, the sets it replaced, newest first).
pub(super) fn census_pairs<'a>(
    scale_sets: &'a [input::Object],
    census: &Census,
) -> Vec<(&'a input::Object, SetKey, Vec<SetKey>)> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    // Indexed once: each scale set looks at its own few candidates, not at every set.
    let index = pairing::Index::new(&sets);
    scale_sets
        .iter()
        .filter(|a| a.problem.is_none())
        .filter_map(|a| {
            let p = index.pair(pairing::ScaleSet {
                namespace: a.namespace(),
                name: a.name(),
                uid: a.meta.uid.as_deref(),
            })?;
            let replaced = p.replaced.iter().map(|&i| inputs[i].0.clone()).collect();
            Some((a, inputs[p.chosen].0.clone(), replaced))
        })
        .collect()
}

/// The label `newEphemeralRunnerPod` gives every runner's Pod.
const RUNNER_POD_SELECTOR: &str = "actions-ephemeral-runner=True";

/// The runners' Pods in the plan's namespace (every namespace with `-A`), by name, each with its
/// Unschedulable message; a read the role does not allow is the warning to give.
pub(super) async fn runner_pods(api: &impl ArcApi, plan: &Plan) -> Result<RunnerPods, String> {
    let ns = plan.namespace.as_deref();
    match api
        .list(Resource::PODS, ns, Some(RUNNER_POD_SELECTOR))
        .await
    {
        Ok(pods) => Ok(runner_pods_of(&pods, ns.map(|n| [n.to_string()].into()))),
        Err(e) => Err(unreadable(
            &e,
            "list",
            &match ns {
                Some(ns) => format!("pods in namespace {ns}"),
                None => "pods in all namespaces".to_string(),
            },
            "the runner Pod checks are skipped",
        )),
    }
}

/// The runner Pods among `pods` ([`RunnerPods`]), read in `namespaces` (`None`: all).
pub(super) fn runner_pods_of(
    pods: &[input::Object],
    namespaces: Option<HashSet<String>>,
) -> RunnerPods {
    RunnerPods {
        pods: pods
            .iter()
            .filter(|p| {
                p.meta
                    .labels
                    .get("actions-ephemeral-runner")
                    .map(String::as_str)
                    == Some("True")
            })
            .filter_map(|p| {
                let facts = PodFacts::from_object(p, "runner").ok()?;
                Some(((facts.namespace, facts.name), facts.unschedulable))
            })
            .collect(),
        namespaces,
    }
}

/// The scale sets in scope, for [`attach_desired`]. A caller who may not list them still gets the
/// sets' own states.
pub(super) async fn scale_sets(api: &impl ArcApi, plan: &Plan) -> Vec<input::Object> {
    api.list(
        Resource::AUTOSCALING_RUNNER_SETS,
        plan.namespace.as_deref(),
        None,
    )
    .await
    .unwrap_or_default()
}

/// Whether ARC's `listEphemeralRunnerSets` finds a set of `scale_set` in the census.
pub(super) fn has_set(scale_set: &input::Object, census: &Census) -> bool {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    has_set_among(scale_set, &pairing::Index::new(&sets))
}

/// Whether ARC's `listEphemeralRunnerSets` finds a set of `scale_set` among the indexed sets
/// (indexed once: each scale set looks at its own few candidates, not at every set).
pub(super) fn has_set_among(scale_set: &input::Object, sets: &pairing::Index<'_, '_>) -> bool {
    sets.pair(pairing::ScaleSet {
        namespace: scale_set.namespace(),
        name: scale_set.name(),
        uid: scale_set.meta.uid.as_deref(),
    })
    .is_some()
}

/// The scale sets in scope (namespace, names, selector) for which ARC finds no set in the census:
/// each is a row of its own (a scale set just installed, waiting for registration or for the
/// controller, or one ARC cannot build).
pub(super) fn scale_sets_without_sets<'a>(
    plan: &Plan,
    scale_sets: &'a [input::Object],
    has_set: impl Fn(&input::Object) -> bool,
) -> Vec<&'a input::Object> {
    scale_sets
        .iter()
        .filter(|a| a.problem.is_none() && a.meta.name.is_some())
        .filter(|a| {
            plan.namespace
                .as_deref()
                .is_none_or(|ns| ns == a.namespace())
        })
        .filter(|a| plan.names.is_empty() || plan.names.iter().any(|n| n == a.name()))
        .filter(|a| (plan.parsed_selector.as_ref()).is_none_or(|s| s.matches(&a.meta.labels)))
        .filter(|a| !has_set(a))
        .collect()
}

/// [`scale_sets_without_sets`] against the census, its sets indexed once.
pub(super) fn without_sets<'a>(
    plan: &Plan,
    scale_sets: &'a [input::Object],
    census: &Census,
) -> Vec<&'a input::Object> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    let index = pairing::Index::new(&sets);
    scale_sets_without_sets(plan, scale_sets, |a| has_set_among(a, &index))
}

/// What a listing produced.
pub(super) struct Gathered {
    pub(super) census: Census,
    /// The sets seen by this listing.
    pub(super) seen: HashSet<SetKey>,
    /// Where watches can start.
    pub(super) sets_version: String,
    pub(super) runners_version: String,
}

/// The worker thread: sets first (they arrive on `sets`), then runners, into the census, each
/// read from the one [`input::Object`] every source gives (as `-f` reads them).
fn consume(
    mut census: Census,
    sets: std_mpsc::Receiver<input::Object>,
    runners: std_mpsc::Receiver<input::Object>,
) -> Result<(Census, HashSet<SetKey>)> {
    let mut seen = HashSet::new();
    for set in sets {
        let facts = SetFacts::from_object(&set)
            .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet in the list: {e}"))?;
        seen.insert(census.upsert_set(facts));
    }
    for runner in runners {
        // A runner whose facts cannot be read cannot belong to any set: skip it.
        if let Ok(runner) = RunnerFacts::from_object(&runner) {
            census.add_runner(&runner);
        }
    }
    Ok((census, seen))
}

/// The census worker stopped (it failed, and says why): the list it was fed stops.
#[derive(Debug, thiserror::Error)]
#[error("the census worker stopped")]
struct WorkerStopped;

/// Hand a listed object to the worker, waiting while it is a page behind.
fn to_worker(
    worker: &std_mpsc::SyncSender<input::Object>,
) -> impl FnMut(input::Object) -> Result<()> {
    |object| (worker.send(object)).map_err(|_| anyhow::Error::new(WorkerStopped))
}

/// List the selected sets and then the runners in scope into `census`, page by page.
pub(super) async fn gather<A: ArcApi>(api: &A, plan: &Plan, census: Census) -> Result<Gathered> {
    gather_parts(api, plan, census, true, true).await
}

/// List the sets (`list_sets`) and the runners (`list_runners`) into `census`, on a worker thread
/// that works on each object while the next page is fetched.
pub(super) async fn gather_parts<A: ArcApi>(
    api: &A,
    plan: &Plan,
    census: Census,
    list_sets: bool,
    list_runners: bool,
) -> Result<Gathered> {
    let (sets_tx, sets_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let (runners_tx, runners_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let worker = std::thread::Builder::new()
        .name("status-census".into())
        .spawn(move || consume(census, sets_rx, runners_rx))
        .context("cannot start a worker thread")?;
    let fetched: Result<(String, String)> = async {
        let mut sets_version = String::new();
        if list_sets {
            let ns = plan.namespace.clone();
            let sets = Resource::EPHEMERAL_RUNNER_SETS;
            if plan.names.is_empty() {
                let query = plan.set_scope();
                sets_version = api.list_each(sets, &query, to_worker(&sets_tx)).await?;
            } else {
                for name in &plan.names {
                    let query = Scope {
                        namespace: ns.clone(),
                        label_selector: plan.selector.clone(),
                        field_selector: Some(format!("metadata.name={name}")),
                    };
                    sets_version = api.list_each(sets, &query, to_worker(&sets_tx)).await?;
                }
            }
        }
        drop(sets_tx);
        let mut runners_version = String::new();
        if list_runners {
            let (runners, query) = (Resource::EPHEMERAL_RUNNERS, plan.runner_scope());
            runners_version = api
                .list_each(runners, &query, to_worker(&runners_tx))
                .await?;
        }
        drop(runners_tx);
        Ok((sets_version, runners_version))
    }
    .await;
    let worked = worker
        .join()
        .map_err(|_| anyhow::anyhow!("the census worker thread panicked"))?;
    let (sets_version, runners_version) = match fetched {
        // The worker's error says why.
        Err(e) if e.is::<WorkerStopped>() => Default::default(),
        fetched => fetched?,
    };
    let (census, seen) = worked?;
    Ok(Gathered {
        census,
        seen,
        sets_version,
        runners_version,
    })
}
