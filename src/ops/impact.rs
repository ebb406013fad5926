//! The impact forecast's gathering: the EphemeralRunners of the sets a change concerns and the
//! controller's update strategy, read from the cluster or the files, handed to the core's rules
//! ([`crate::core::impact::forecast`]) for each item of a `diff` (and `bump`'s dry runs).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::cluster::RunnerRead;
use crate::cluster::api::ArcApi;
use crate::cluster::preflight::ControllerArgs;
use crate::core::arc;
use crate::core::impact::{
    Change, Impact, RunnerTally, SetFacts, Situation, StrategyRead, UpdateStrategy, forecast,
    parse_manager_args,
};
use crate::core::release::Mechanism;
use crate::input::Object;
use crate::report::diff::ScaleSetDiff;

/// The facts of the set a verdict was made against ([`SetFacts`]), from the object.
pub(crate) fn set_facts(set: &Object) -> SetFacts {
    let status: Option<Value> = set
        .status
        .as_ref()
        .and_then(|s| serde_json::from_str(s.get()).ok());
    SetFacts::of(set.name(), status.as_ref())
}

/// The EphemeralRunners read, by the set that controls them, and the namespaces whose runners
/// are all known.
#[derive(Default, Clone)]
pub(crate) struct Runners {
    by_set: HashMap<(String, String), Vec<(String, Value)>>,
    /// Namespaces whose runners were listed, or of which the files hold some.
    known: BTreeSet<String>,
    /// Runners no EphemeralRunnerSet controls (`ns/name`): no set's change reaches them.
    unowned: Vec<(String, String)>,
    /// Their listing, started beside the sets' ([`Runners::prefetch`]).
    prefetch: Prefetch,
}

type Listing = tokio::task::JoinHandle<Result<Vec<RunnerRead>, crate::cluster::ApiError>>;

/// The runners' listing started beside the sets' in cluster mode: the API server serves it while
/// it serves the sets and `diff` judges them (half of `diff -A`'s wall time on 50,000 runners was
/// this list), taken by [`Runners::list`] when a change concerns a namespace it covers, and
/// aborted when dropped unused: a cluster with nothing to forecast does not wait for it. A copy
/// of [`Runners`] does not share it (a clone starts without one).
#[derive(Default)]
struct Prefetch(Option<(Option<String>, Listing)>);

impl Clone for Prefetch {
    fn clone(&self) -> Prefetch {
        Prefetch(None)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        if let Some((_, listing)) = &self.0 {
            listing.abort();
        }
    }
}

impl Prefetch {
    /// The listing, when it covers `needed`: all namespaces, or the one it lists.
    fn take_covering(&mut self, needed: &BTreeSet<String>) -> Option<Listing> {
        let covers = match &self.0 {
            Some((None, _)) => true,
            Some((Some(ns), _)) => needed.iter().all(|n| n == ns),
            None => false,
        };
        if !covers {
            return None;
        }
        self.0.take().map(|(_, listing)| listing)
    }
}

impl Runners {
    /// Add one EphemeralRunner of a file; its namespace's runners count as known.
    pub(crate) fn add(&mut self, runner: &Object) {
        self.add_read(RunnerRead::from(runner));
    }

    /// Add one EphemeralRunner (of a file or a listing); its namespace's runners count as known.
    fn add_read(&mut self, runner: RunnerRead) {
        let RunnerRead {
            namespace: ns,
            name,
            controller,
            deletion_timestamp,
            status,
        } = runner;
        self.known.insert(ns.clone());
        let Some(owner) = controller.filter(|c| c.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET)) else {
            // Not a set's: no set's change reaches it (named by `outside`).
            self.unowned.push((ns, name));
            return;
        };
        let status: Value = status
            .and_then(|s| serde_json::from_str(s.get()).ok())
            .unwrap_or(Value::Null);
        let mut v = serde_json::json!({ "status": status });
        if let Some(t) = deletion_timestamp {
            v["metadata"] = serde_json::json!({ "deletionTimestamp": t });
        }
        self.by_set
            .entry((ns, owner.name))
            .or_default()
            .push((name, v));
    }

    /// Namespaces listed from the cluster, with none found there.
    pub(crate) fn listed(&mut self, namespace: &str) {
        self.known.insert(namespace.to_string());
    }

    pub(crate) fn knows(&self, namespace: &str) -> bool {
        self.known.contains(namespace)
    }

    /// The runners of `namespaces` that no set among `sets` (`(namespace, name)`) controls, as
    /// `ns/name (why)`: ARC's cleanup of a set never reaches them, so no forecast counts them.
    pub(crate) fn outside(
        &self,
        namespaces: &BTreeSet<String>,
        sets: &BTreeSet<(String, String)>,
    ) -> Vec<String> {
        let mut out: Vec<String> = (self.unowned.iter())
            .filter(|(ns, _)| namespaces.contains(ns))
            .map(|(ns, name)| format!("{ns}/{name} (no EphemeralRunnerSet controls it)"))
            .collect();
        for ((ns, set), runners) in &self.by_set {
            if !namespaces.contains(ns) || sets.contains(&(ns.clone(), set.clone())) {
                continue;
            }
            for (name, _) in runners {
                out.push(format!(
                    "{ns}/{name} (its EphemeralRunnerSet {set} is not in view)"
                ));
            }
        }
        out.sort();
        out
    }

    /// The runners of one set sorted by release `version`'s rule; `None` when they are not known.
    fn tally(&self, namespace: &str, set: &SetFacts, version: Option<&str>) -> Option<RunnerTally> {
        let runners = self.by_set.get(&(namespace.to_string(), set.name.clone()));
        if !self.knows(namespace) && runners.is_none() && !set.empty {
            return None;
        }
        let mut tally = RunnerTally::default();
        for (name, v) in runners.into_iter().flatten() {
            tally.add(version, name, v);
        }
        Some(tally)
    }
}

/// The controller Deployments the strategy is read from, or why none was.
#[derive(Debug, Clone)]
pub(crate) enum Controllers {
    Read(Vec<ControllerArgs>),
    Unread(String),
}

impl Default for Controllers {
    fn default() -> Self {
        Controllers::Unread("the controller Deployment was not read".to_string())
    }
}

impl Controllers {
    /// The strategy of the controller that reconciles `namespace`'s scale sets: the one watching
    /// that namespace alone (`--watch-single-namespace`), else one watching all.
    pub(crate) fn strategy(&self, namespace: &str, version: Option<&str>) -> StrategyRead {
        let list = match self {
            Controllers::Unread(why) => return StrategyRead::release_default(why),
            Controllers::Read(list) if list.is_empty() => {
                return StrategyRead::release_default("no controller Deployment found");
            }
            Controllers::Read(list) => list,
        };
        let parsed: Vec<_> = list
            .iter()
            .map(|c| {
                let v = c.version.as_deref().or(version);
                (c, parse_manager_args(v, &c.args))
            })
            .collect();
        let watches = |want: Option<&str>| {
            parsed.iter().find(|(_, f)| match f {
                Ok(f) => {
                    f.watch_single_namespace
                        .as_deref()
                        .filter(|w| !w.is_empty())
                        == want
                }
                Err(_) => want.is_none(),
            })
        };
        let (c, flags) = watches(Some(namespace))
            .or_else(|| watches(None))
            .unwrap_or(&parsed[0]);
        match flags {
            Ok(f) => {
                let given = f
                    .update_strategy
                    .as_deref()
                    .map_or("no --update-strategy".to_string(), |s| {
                        format!("--update-strategy={s}")
                    });
                StrategyRead {
                    value: f.strategy(),
                    from: format!("{} ({given})", c.at),
                }
            }
            Err(e) => StrategyRead {
                value: UpdateStrategy::Immediate,
                from: format!(
                    "{}: its arguments do not parse ({e}), so the controller does not start",
                    c.at
                ),
            },
        }
    }
}

impl Controllers {
    /// The cluster's controller Deployments, or why they could not be read (the read role may
    /// not list Deployments).
    pub(crate) async fn read<A: ArcApi>(api: &A) -> Controllers {
        match api.controller_args().await {
            Ok(Some(found)) => Controllers::Read(found),
            Ok(None) => Controllers::Unread(
                "the controller Deployment cannot be listed (forbidden)".to_string(),
            ),
            Err(e) => Controllers::Unread(format!("the controller Deployment: {e:#}")),
        }
    }
}

impl Runners {
    /// Start listing the EphemeralRunners of `namespace` (all when `None`) while the caller reads
    /// and judges the sets ([`Prefetch`]).
    pub(crate) fn prefetch(&mut self, client: &kube::Client, namespace: Option<&str>) {
        let (client, ns) = (client.clone(), namespace.map(str::to_string));
        let scope = ns.clone();
        let listing =
            tokio::spawn(async move { ArcApi::list_runners(&client, ns.as_deref()).await });
        self.prefetch = Prefetch(Some((scope, listing)));
    }

    /// List the EphemeralRunners of `needed` (namespaces whose runners are not known yet): one
    /// paged list across namespaces when `across` (`-A`) and several are needed, else one per
    /// namespace. A caller who may not list them leaves them unknown
    /// (`runnersKnown: false`).
    pub(crate) async fn list<A: ArcApi>(
        &mut self,
        api: &A,
        needed: &BTreeSet<String>,
        across: bool,
    ) {
        if needed.is_empty() {
            return;
        }
        // A listing that failed is made again as below (by namespace where fewer are needed).
        if let Some(listing) = self.prefetch.take_covering(needed)
            && let Ok(Ok(runners)) = listing.await
        {
            needed.iter().for_each(|ns| self.listed(ns));
            for r in runners
                .into_iter()
                .filter(|r| needed.contains(&r.namespace))
            {
                self.add_read(r);
            }
            return;
        }
        let listings: Vec<Option<&str>> = if across && needed.len() > 1 {
            vec![None]
        } else {
            needed.iter().map(|ns| Some(ns.as_str())).collect()
        };
        for ns in listings {
            let Ok(runners) = api.list_runners(ns).await else {
                continue;
            };
            match ns {
                Some(ns) => self.listed(ns),
                None => needed.iter().for_each(|ns| self.listed(ns)),
            }
            // Only the namespaces asked for: those the files gave keep the files' runners.
            for r in runners
                .into_iter()
                .filter(|r| needed.contains(&r.namespace))
            {
                self.add_read(r);
            }
        }
    }
}

/// A controller Deployment given in a file (a render of ARC's controller chart).
pub(crate) fn controller_of_file(o: &Object) -> Option<ControllerArgs> {
    if o.kind != "Deployment"
        || !crate::core::status::install::is_controller(
            o.meta.labels.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )
    {
        return None;
    }
    let spec: Value = serde_json::from_str(o.spec.as_ref()?.get()).ok()?;
    let containers = spec.pointer("/template/spec/containers")?.as_array()?;
    let manager = (containers.iter())
        .find(|c| c.get("name").and_then(Value::as_str) == Some("manager"))
        .or_else(|| containers.first())?;
    let args = (manager.get("args").and_then(Value::as_array))
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Some(ControllerArgs {
        at: format!("controller Deployment {} in {}", o.key().1, o.origin),
        version: o.meta.labels.get("app.kubernetes.io/version").cloned(),
        image_tag: (manager.get("image").and_then(Value::as_str))
            .and_then(crate::core::status::install::image_tag)
            .map(str::to_string),
        args,
        namespace: o.namespace().to_string(),
        name: o.name().to_string(),
        helm_release: crate::cluster::preflight::helm_release(
            Some(&o.meta.annotations),
            Some(&o.meta.labels),
        ),
    })
}

/// The change an item's verdict makes, by its mechanism; `None` when it makes none that touches
/// running work (no recycle, no listener made again), or when it is new or failed.
pub(crate) fn change_of(item: &ScaleSetDiff) -> Option<Change> {
    if item.error.is_some() || item.new {
        return None;
    }
    if item.deleted_by_version_check.is_some() {
        return Some(Change::ScaleSetDeleted);
    }
    let recycle = item.recycle == Some(true);
    let listener = item.listener_restart == Some(true);
    match (item.mechanism?, recycle) {
        (Mechanism::RunnerSpecHash, true) => Some(Change::NewSet),
        (Mechanism::IntegrityHash, true) => {
            let through_scale_set = item
                .integrity_hash
                .as_ref()
                .is_none_or(|h| h.current.as_deref() != Some(h.desired.as_str()));
            Some(if through_scale_set {
                Change::SpecPatched
            } else {
                Change::Cleanup
            })
        }
        (Mechanism::ActionableRevision, true) => Some(Change::SpecPatched),
        (_, false) if listener => Some(Change::ListenerOnly),
        (_, false) => None,
    }
}

/// The namespaces whose runners the forecast needs: those of items whose change touches
/// running work, read from a set.
pub(crate) fn namespaces_needed(items: &[ScaleSetDiff]) -> BTreeSet<String> {
    items
        .iter()
        .filter(|i| i.set_facts.is_some() && change_of(i).is_some())
        .map(|i| i.namespace.clone())
        .collect()
}

/// Give every item whose change touches running work its impact.
pub(crate) fn attach(items: &mut [ScaleSetDiff], runners: &Runners, controllers: &Controllers) {
    for item in items {
        item.impact = impact_of(item, runners, controllers);
    }
}

fn impact_of(item: &ScaleSetDiff, runners: &Runners, controllers: &Controllers) -> Option<Impact> {
    let change = change_of(item)?;
    let set = item.set_facts.as_ref()?;
    let of = Concerned {
        namespace: &item.namespace,
        set,
        mechanism: item.mechanism?,
        version: item.release.as_deref(),
        listener_restart: item.listener_restart == Some(true),
    };
    Some(of.forecast(change, runners, controllers))
}

/// The set a change concerns, and by which rule.
pub(crate) struct Concerned<'a> {
    pub(crate) namespace: &'a str,
    pub(crate) set: &'a SetFacts,
    pub(crate) mechanism: Mechanism,
    /// The deciding release (ARC up to 0.14.2).
    pub(crate) version: Option<&'a str>,
    pub(crate) listener_restart: bool,
}

impl Concerned<'_> {
    /// The impact of `change` on this set, its runners sorted by the deciding release's rule and
    /// (ARC up to 0.14.2) the strategy of the controller that reconciles its namespace.
    pub(crate) fn forecast(
        &self,
        change: Change,
        runners: &Runners,
        controllers: &Controllers,
    ) -> Impact {
        let tally = runners.tally(self.namespace, self.set, self.version);
        let strategy = (self.mechanism == Mechanism::RunnerSpecHash)
            .then(|| controllers.strategy(self.namespace, self.version));
        forecast(&Situation {
            change,
            mechanism: self.mechanism,
            version: self.version,
            runners: tally.as_ref(),
            counters: self.set.counters,
            listener_restart: self.listener_restart,
            strategy: strategy.as_ref(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::tests::{read_both, runner_page};

    /// The runners listed whole (as before the light decode) and as [`RunnerRead`]s sort alike
    /// for every rule, and as ARC's rules sort them.
    #[test]
    fn listed_runners_tally_alike_read_whole_or_light() {
        let (whole, light) = read_both(&runner_page());
        let mut from_objects = Runners::default();
        whole.iter().for_each(|o| from_objects.add(o));
        let mut from_reads = Runners::default();
        light.into_iter().for_each(|r| from_reads.add_read(r));
        let set = SetFacts::of("set-a", None);
        for version in [None, Some("0.12.1"), Some("0.13.0"), Some("0.14.2")] {
            let a = from_objects.tally("ns-a", &set, version);
            assert_eq!(a, from_reads.tally("ns-a", &set, version), "{version:?}");
            let a = a.unwrap();
            let outdated = usize::from(version != Some("0.12.1") && version != Some("0.13.0"));
            assert_eq!(
                (a.idle, a.pending, a.unregistered, a.finished, a.failed),
                (2, 3 - outdated, 3, 1, 1),
                "{version:?}"
            );
            assert_eq!((a.outdated, a.deleting), (outdated, 1));
            let busy: Vec<_> = a.busy.iter().map(|b| b.name.as_str()).collect();
            assert_eq!(busy, ["busy-job-id", "busy-request-only"]);
            assert_eq!(a.busy[0].workflow_run_id, Some(812));
            assert_eq!(a.busy[1].job_display_name.as_deref(), Some("test"));
        }
        let b = SetFacts::of("set-b", None);
        assert_eq!(
            from_objects.tally("ns-b", &b, None),
            from_reads.tally("ns-b", &b, None)
        );
        let namespaces: BTreeSet<String> = ["ns-a".to_string()].into();
        let sets: BTreeSet<(String, String)> = [("ns-a".to_string(), "set-a".to_string())].into();
        let outside = from_reads.outside(&namespaces, &sets);
        assert_eq!(outside, from_objects.outside(&namespaces, &sets));
        assert_eq!(outside.len(), 3, "{outside:?}");
        assert_eq!(from_reads.known, from_objects.known);
    }
}
