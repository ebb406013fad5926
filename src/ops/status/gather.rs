//! One listing into the census: the selected sets, then the runners, page by page on a worker
//! thread (the next page is fetched meanwhile); the runners' Pods and the scale sets beside them;
//! and which scale sets ARC finds a set of (paired as its `listEphemeralRunnerSets` pairs them).

use std::collections::HashSet;
use std::sync::mpsc as std_mpsc;

use anyhow::{Context as _, Result};

use crate::cluster::PAGE_SIZE;
use crate::cluster::api::{ArcApi, Lent, Resource};
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
    scale_sets: &'a [Lent<'_>],
    census: &Census,
) -> Vec<(&'a input::Object, SetKey, Vec<SetKey>)> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    // Indexed once: each scale set looks at its own few candidates, not at every set.
    let index = pairing::Index::new(&sets);
    scale_sets
        .iter()
        .map(|a| &**a)
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
    // Read where the source answers for them: the namespace asked (every one: `None`), or the
    // namespaces of it where a dump holds runner Pods.
    let known = match api.answers_for(Resource::PODS, Some(RUNNER_POD_SELECTOR)) {
        Some(held) => Some(
            held.into_iter()
                .filter(|h| ns.is_none_or(|n| n == h))
                .collect(),
        ),
        None => ns.map(|n| [n.to_string()].into()),
    };
    match api
        .list(Resource::PODS, ns, Some(RUNNER_POD_SELECTOR))
        .await
    {
        Ok(pods) => Ok(runner_pods_of(&pods, known)),
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

/// The scale sets in scope, for [`attach_desired`], lent where the source holds them. A caller
/// who may not list them still gets the sets' own states.
pub(super) async fn scale_sets<'s>(api: &'s impl ArcApi, plan: &Plan) -> Vec<Lent<'s>> {
    api.list_lent(
        Resource::AUTOSCALING_RUNNER_SETS,
        plan.namespace.as_deref(),
        None,
    )
    .await
    .unwrap_or_default()
}

/// [`scale_sets`] to keep while the rows are followed (owned: read again every few seconds).
pub(super) async fn scale_sets_kept(api: &impl ArcApi, plan: &Plan) -> Vec<Lent<'static>> {
    (scale_sets(api, plan).await.into_iter())
        .map(|a| Lent::Owned(a.into_owned()))
        .collect()
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
    scale_sets: &'a [Lent<'_>],
    has_set: impl Fn(&input::Object) -> bool,
) -> Vec<&'a input::Object> {
    scale_sets
        .iter()
        .map(|a| &**a)
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
    scale_sets: &'a [Lent<'_>],
    census: &Census,
) -> Vec<&'a input::Object> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    let index = pairing::Index::new(&sets);
    scale_sets_without_sets(plan, scale_sets, |a| has_set_among(a, &index))
}

/// The scale sets among `without` that have a set outside the census: when names or a label
/// selector chose the sets listed, a scale set's set may be one they left out (another name,
/// other labels), and ARC pairs it all the same. Read only when there is such a scale set.
pub(super) async fn paired_outside<'a>(
    api: &impl ArcApi,
    plan: &Plan,
    without: Vec<&'a input::Object>,
) -> Vec<&'a input::Object> {
    if without.is_empty() || (plan.names.is_empty() && plan.selector.is_none()) {
        return without;
    }
    let sets = Resource::EPHEMERAL_RUNNER_SETS;
    // Lent: a dump's sets are not copied.
    let Ok(all) = api.list_lent(sets, plan.namespace.as_deref(), None).await else {
        return without;
    };
    let inputs: Vec<_> = (all.iter().filter(|s| s.problem.is_none()))
        .map(|s| s.pairing_set())
        .collect();
    let index = pairing::Index::new(&inputs);
    without
        .into_iter()
        .filter(|a| !has_set_among(a, &index))
        .collect()
}

/// What a listing produced.
pub(super) struct Gathered {
    pub(super) census: Census,
    /// The sets seen by this listing.
    pub(super) seen: HashSet<SetKey>,
    /// Where watches can start.
    pub(super) sets_version: String,
    pub(super) runners_version: String,
    /// The listed sets whose facts cannot be read, each named; the others are in the census.
    pub(super) errors: Vec<String>,
}

impl Gathered {
    /// The listing, or the first object it could not read: `--watch` and `--wait` follow a
    /// census that holds every set listed, or none.
    pub(super) fn whole(self) -> Result<Gathered> {
        match self.errors.first() {
            Some(e) => Err(anyhow::anyhow!("{e}")),
            None => Ok(self),
        }
    }
}

/// The census being filled from one listing: the sets seen, the sets that cannot be read.
struct Consumer {
    census: Census,
    seen: HashSet<SetKey>,
    errors: Vec<String>,
    /// Where the source answers for the runners (`None`: every namespace).
    runners_known: Option<HashSet<String>>,
}

impl Consumer {
    /// A listed set into the census. A set's counts are judged only where the source answers for
    /// the runners; a set that cannot be read is an error of its own, the others still counted;
    /// an object kubectl refuses (only a dump holds one) is reported where it was read.
    fn set(&mut self, set: &input::Object) {
        if set.problem.is_some() {
            return;
        }
        match SetFacts::from_object(set) {
            Ok(mut facts) => {
                // A source without the namespace's runners says nothing of them: the counts in
                // the set's status are not judged against runners it does not hold.
                let known = self.runners_known.as_ref();
                if known.is_some_and(|k| !k.contains(facts.namespace.as_str())) {
                    facts.counters = None;
                }
                self.seen.insert(self.census.upsert_set(facts));
            }
            Err(e) => self.errors.push(format!("{}: {e}", set.describe())),
        }
    }

    /// A listed runner into the census; one that cannot be read cannot belong to any set.
    fn runner(&mut self, runner: &input::Object) {
        if runner.problem.is_some() {
            return;
        }
        if let Ok(runner) = RunnerFacts::from_object(runner) {
            self.census.add_runner(&runner);
        }
    }

    fn part(&mut self, part: Part, object: &input::Object) {
        match part {
            Part::Set => self.set(object),
            Part::Runner => self.runner(object),
        }
    }
}

/// Which list an object comes from.
#[derive(Clone, Copy)]
enum Part {
    Set,
    Runner,
}

/// The worker thread: sets first (they arrive on `sets`), then runners, into the census.
fn consume(
    mut consumer: Consumer,
    sets: std_mpsc::Receiver<input::Object>,
    runners: std_mpsc::Receiver<input::Object>,
) -> Consumer {
    for set in sets {
        consumer.set(&set);
    }
    for runner in runners {
        consumer.runner(&runner);
    }
    consumer
}

/// The census worker stopped (it panicked, which its join says): the list it was fed stops.
#[derive(Debug, thiserror::Error)]
#[error("the census worker stopped")]
struct WorkerStopped;

/// List the selected sets (`list_sets`) and then the runners in scope (`list_runners`), each
/// object to `each` with the list it comes from; returns the lists' resourceVersions.
async fn fetch<'s, A: ArcApi>(
    api: &'s A,
    plan: &Plan,
    list_sets: bool,
    list_runners: bool,
    mut each: impl FnMut(Part, Lent<'s>) -> Result<()>,
) -> Result<(String, String)> {
    let mut sets_version = String::new();
    if list_sets {
        let sets = Resource::EPHEMERAL_RUNNER_SETS;
        let queries = match plan.names.is_empty() {
            true => vec![plan.set_scope()],
            false => (plan.names.iter())
                .map(|name| Scope {
                    namespace: plan.namespace.clone(),
                    label_selector: plan.selector.clone(),
                    field_selector: Some(format!("metadata.name={name}")),
                })
                .collect(),
        };
        for query in queries {
            let each = |o| each(Part::Set, o);
            sets_version = api.list_each_lent(sets, &query, each).await?;
        }
    }
    let mut runners_version = String::new();
    if list_runners {
        let (runners, query) = (Resource::EPHEMERAL_RUNNERS, plan.runner_scope());
        let each = |o| each(Part::Runner, o);
        runners_version = api.list_each_lent(runners, &query, each).await?;
    }
    Ok((sets_version, runners_version))
}

/// List the selected sets and then the runners in scope into `census`, page by page.
pub(super) async fn gather<A: ArcApi>(api: &A, plan: &Plan, census: Census) -> Result<Gathered> {
    gather_parts(api, plan, census, true, true).await
}

/// List the sets (`list_sets`) and the runners (`list_runners`) into `census`: from a source
/// that lends what it holds (a dump), on this thread, nothing copied; else on a worker thread
/// that works on each object while the next page is fetched.
pub(super) async fn gather_parts<A: ArcApi>(
    api: &A,
    plan: &Plan,
    census: Census,
    list_sets: bool,
    list_runners: bool,
) -> Result<Gathered> {
    let mut consumer = Consumer {
        census,
        seen: HashSet::new(),
        errors: Vec::new(),
        runners_known: api.answers_for(Resource::EPHEMERAL_RUNNERS, None),
    };
    let (sets_version, runners_version) = if api.lends() {
        let each = |part, o: Lent<'_>| {
            consumer.part(part, &o);
            Ok(())
        };
        fetch(api, plan, list_sets, list_runners, each).await?
    } else {
        let (fetched, worked) = on_worker(api, plan, consumer, list_sets, list_runners).await?;
        consumer = worked;
        fetched?
    };
    Ok(Gathered {
        census: consumer.census,
        seen: consumer.seen,
        sets_version,
        runners_version,
        errors: consumer.errors,
    })
}

/// [`fetch`] into a worker thread's census, page by page; the worker's census once it is done.
async fn on_worker<A: ArcApi>(
    api: &A,
    plan: &Plan,
    consumer: Consumer,
    list_sets: bool,
    list_runners: bool,
) -> Result<(Result<(String, String)>, Consumer)> {
    let (sets_tx, sets_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let (runners_tx, runners_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let worker = std::thread::Builder::new()
        .name("status-census".into())
        .spawn(move || consume(consumer, sets_rx, runners_rx))
        .context("cannot start a worker thread")?;
    let mut sets_tx = Some(sets_tx);
    let each = |part, o: Lent<'_>| {
        let to = match part {
            Part::Set => sets_tx.as_ref(),
            Part::Runner => {
                // The sets are all listed: the worker goes on to the runners.
                sets_tx = None;
                Some(&runners_tx)
            }
        };
        // Waits while the worker is a page behind.
        match to.map(|to| to.send(o.into_owned()).is_ok()) {
            Some(false) => Err(anyhow::Error::new(WorkerStopped)),
            _ => Ok(()),
        }
    };
    let fetched = fetch(api, plan, list_sets, list_runners, each).await;
    // Both lists end: the worker finishes what it holds.
    drop((sets_tx, runners_tx));
    let worked = worker
        .join()
        .map_err(|_| anyhow::anyhow!("the census worker thread panicked"))?;
    Ok((fetched, worked))
}
