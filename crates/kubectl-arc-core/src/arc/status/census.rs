//! The census: sets and their runners aggregated as they stream in (a list, or a watch's events).

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use super::SetStatus;
use super::classify::{DesiredSpec, RecycleLoop, Replacement, SetKey, classify, propagation};
use super::facts::{RunnerFacts, SetFacts};
use super::tally::Tally;
use crate::layout::Layout;
use crate::runners::{self, RunnerState};
use crate::value::decode;

fn text_hash(text: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// One set in the census.
#[derive(Debug)]
struct SetEntry {
    facts: SetFacts,
    /// Staleness per distinct runner spec (by hash of its text).
    stale_by_spec: HashMap<u64, Result<bool, String>>,
    /// The set's runner spec failed to decode (found lazily).
    spec_error: Option<String>,
    /// Streaming mode: runners added so far.
    tally: Tally,
    /// What its AutoscalingRunnerSet wants, when known.
    desired: Option<DesiredSpec>,
    /// How often the integrity-hash annotation changed (live mode).
    flips: usize,
    /// ARC up to 0.14: what its scale set says of the set.
    replacement: Option<Replacement>,
    /// What its surroundings say (its listener, its scale set's deletion).
    around: Vec<super::StatusReason>,
    /// The next release judges it: what it reads around the set.
    next: Option<super::classify::NextSide>,
}

/// Live mode: one small record per runner, so events can be taken back.
#[derive(Debug, Clone)]
struct RunnerRecord {
    state: RunnerState,
    runner_id: i64,
    spec_hash: u64,
    /// The revision it was made for ([`crate::next::runner_revision`]).
    revision: i64,
    extra: Option<Box<super::RunnerExtra>>,
    /// The Pods' read ([`Census::set_runner_pods`]) under which it was last seen changing: it is
    /// judged against Pods read after that only (0: seen in the first listing, after its Pods).
    seen: u64,
}

#[derive(Debug, Default)]
struct LiveRunners {
    /// Runners by their set, by runner name.
    by_set: HashMap<SetKey, BTreeMap<String, RunnerRecord>>,
    /// Runner (namespace, name) → its set.
    owner: HashMap<(String, String), SetKey>,
    /// Distinct runner spec texts per set, with how many runners use each.
    specs: HashMap<(SetKey, u64), (String, usize)>,
}

/// Per-set aggregation of runners, bounded by the number of sets (streaming) or by one small record
/// per runner (live).
#[derive(Debug)]
pub struct Census {
    layout: &'static Layout,
    sets: HashMap<SetKey, SetEntry>,
    live: Option<LiveRunners>,
    /// The runners' Pods, when read (list mode, set before the runners are added).
    runner_pods: Option<RunnerPods>,
    /// Live mode: how many times the Pods were handed in, and whether the first listing is over
    /// ([`Census::start_following`]).
    pods_read: u64,
    following: bool,
}

/// The Pods of EphemeralRunners (`newEphemeralRunnerPod` names a runner's Pod after the runner,
/// in its namespace, labelled `actions-ephemeral-runner=True`), as far as read.
#[derive(Debug, Clone, Default)]
pub struct RunnerPods {
    /// (namespace, name) of each Pod, with its `PodScheduled` condition's message when it is False
    /// with reason Unschedulable.
    pub pods: HashMap<(String, String), Option<String>>,
    /// The namespaces whose runner Pods were read (`None`: every namespace).
    pub namespaces: Option<std::collections::HashSet<String>>,
}

impl RunnerPods {
    fn knows(&self, namespace: &str) -> bool {
        self.namespaces
            .as_ref()
            .is_none_or(|n| n.contains(namespace))
    }
}

impl Census {
    /// `live`: keep a record per runner so that runner changes and deletions can be applied.
    pub fn new(layout: &'static Layout, live: bool) -> Census {
        Census {
            layout,
            sets: HashMap::new(),
            live: live.then(LiveRunners::default),
            runner_pods: None,
            pods_read: 0,
            following: false,
        }
    }

    /// The runners' Pods, to judge runners against: in list mode the runners added after this;
    /// in live mode every runner at its next verdict (the caller reads the Pods again now and
    /// then and hands them in here). A runner counted running (phase Running) whose Pod is not
    /// there, one in failure back-off, and one whose Pod cannot be scheduled are told on its set.
    pub fn set_runner_pods(&mut self, pods: RunnerPods) {
        self.runner_pods = Some(pods);
        self.pods_read += 1;
    }

    /// Live mode: the first listing is over. A runner seen changing from now on is judged
    /// against its Pod only once the Pods are read again: a runner that turned Running after the
    /// last read may have a Pod that read did not see (in the first listing, as in a one-shot
    /// one, the Pods are listed before the runners, and a runner is Running only after its Pod
    /// runs).
    pub fn start_following(&mut self) {
        self.following = true;
    }

    pub fn contains(&self, key: &SetKey) -> bool {
        self.sets.contains_key(key)
    }

    pub fn keys(&self) -> impl Iterator<Item = &SetKey> {
        self.sets.keys()
    }

    pub fn facts(&self, key: &SetKey) -> Option<&SetFacts> {
        self.sets.get(key).map(|e| &e.facts)
    }

    /// Add or replace a set. Returns its key.
    pub fn upsert_set(&mut self, facts: SetFacts) -> SetKey {
        let key = (facts.namespace.clone(), facts.name.clone());
        match self.sets.get_mut(&key) {
            Some(entry) => {
                if entry.facts.runner_spec != facts.runner_spec {
                    entry.stale_by_spec.clear();
                    entry.spec_error = None;
                }
                if entry.facts.integrity_hash.is_some()
                    && facts.integrity_hash.is_some()
                    && entry.facts.integrity_hash != facts.integrity_hash
                {
                    entry.flips += 1;
                }
                entry.facts = facts;
            }
            None => {
                self.sets.insert(
                    key.clone(),
                    SetEntry {
                        facts,
                        stale_by_spec: HashMap::new(),
                        spec_error: None,
                        tally: Tally::default(),
                        desired: None,
                        flips: 0,
                        replacement: None,
                        around: Vec::new(),
                        next: None,
                    },
                );
            }
        }
        key
    }

    /// What the pairing rule needs of every set in the census.
    pub fn pairing_inputs(&self) -> Vec<(SetKey, crate::pairing::RunnerSet<'_>)> {
        self.sets
            .iter()
            .map(|(key, e)| {
                let f = &e.facts;
                (
                    key.clone(),
                    crate::pairing::RunnerSet {
                        namespace: &f.namespace,
                        name: &f.name,
                        owner: f
                            .controller
                            .as_ref()
                            .map(|(a, k, n, u)| (a.as_str(), k.as_str(), n.as_str(), u.as_str())),
                        label_name: f
                            .labels
                            .get(crate::pairing::LABEL_SCALE_SET_NAME)
                            .map(String::as_str),
                        label_namespace: f
                            .labels
                            .get(crate::pairing::LABEL_SCALE_SET_NAMESPACE)
                            .map(String::as_str),
                        creation_timestamp: f.creation_timestamp.as_deref(),
                        deleting: f.deleting,
                    },
                )
            })
            .collect()
    }

    /// Record what the set's AutoscalingRunnerSet wants (`None`: unknown). Returns whether the
    /// set is in the census.
    pub fn set_desired(&mut self, key: &SetKey, desired: Option<DesiredSpec>) -> bool {
        match self.sets.get_mut(key) {
            Some(entry) => {
                entry.desired = desired;
                true
            }
            None => false,
        }
    }

    /// Record what the set's scale set says of a set of ARC up to 0.14 (`None`: unknown).
    pub fn set_replacement(&mut self, key: &SetKey, replacement: Option<Replacement>) {
        if let Some(entry) = self.sets.get_mut(key) {
            entry.replacement = replacement;
        }
    }

    /// Record that the next release judges the set, and what it reads around it (`None`: a
    /// released one), replacing what was said before.
    pub fn set_next(&mut self, key: &SetKey, next: Option<super::classify::NextSide>) {
        if let Some(entry) = self.sets.get_mut(key) {
            entry.next = next;
        }
    }

    /// Record what the set's surroundings say of it (its listener and the listener's Pod, its
    /// scale set's deletion), replacing what was said before.
    pub fn set_around(&mut self, key: &SetKey, reasons: Vec<super::StatusReason>) {
        if let Some(entry) = self.sets.get_mut(key) {
            entry.around = reasons;
        }
    }

    /// A set's runners in phase Running and Pending (ARC's `running` and `pending`), so far.
    pub fn running_and_pending(&self, key: &SetKey) -> (usize, usize) {
        let Some(entry) = self.sets.get(key) else {
            return (0, 0);
        };
        if let Some(live) = &self.live {
            let mut counts = crate::runners::RunnerCounts::default();
            for r in live.by_set.get(key).into_iter().flat_map(|m| m.values()) {
                counts.add(r.state, false);
            }
            return (counts.idle + counts.busy, counts.pending);
        }
        let c = &entry.tally.counts;
        (c.idle + c.busy, c.pending)
    }

    pub fn remove_set(&mut self, key: &SetKey) {
        self.sets.remove(key);
    }

    /// Add a runner (streaming), or add or replace it (live). Returns the key of its set when the
    /// set is in the census; runners of other sets are ignored in streaming mode.
    pub fn add_runner(&mut self, runner: &RunnerFacts<'_>) -> Option<SetKey> {
        let layout = self.layout;
        let set_key = runner
            .set
            .as_ref()
            .map(|s| (runner.namespace.to_string(), s.clone()));
        let spec = runner.spec.unwrap_or("{}");
        let hash = text_hash(spec);
        let seen = if self.following { self.pods_read } else { 0 };
        let revision = crate::next::runner_revision(runner.created_for_revision.as_deref());
        match &mut self.live {
            None => {
                let key = set_key?;
                let entry = self.sets.get_mut(&key)?;
                let stale = entry.staleness(layout, hash, spec);
                entry.tally.add(
                    &runner.name,
                    runner.state,
                    runner.runner_id,
                    stale,
                    runner.extra.as_ref(),
                );
                if runner.state == RunnerState::Outdated {
                    entry.tally.add_outdated_revision(&runner.name, revision);
                }
                if let Some(pods) = self.runner_pods.as_ref().filter(|p| p.knows(&key.0)) {
                    let pod = pods.pods.get(&(key.0.clone(), runner.name.to_string()));
                    entry
                        .tally
                        .add_pod(&runner.name, runner.state, pod, runner.extra.as_ref());
                }
                Some(key)
            }
            Some(live) => {
                let runner_key = (runner.namespace.to_string(), runner.name.to_string());
                let previous = live.remove(&runner_key);
                let Some(key) = set_key else {
                    return previous.filter(|k| self.sets.contains_key(k));
                };
                live.owner.insert(runner_key.clone(), key.clone());
                live.by_set.entry(key.clone()).or_default().insert(
                    runner_key.1,
                    RunnerRecord {
                        state: runner.state,
                        runner_id: runner.runner_id,
                        spec_hash: hash,
                        revision,
                        extra: runner.extra.clone().map(Box::new),
                        seen,
                    },
                );
                live.specs
                    .entry((key.clone(), hash))
                    .or_insert_with(|| (spec.to_string(), 0))
                    .1 += 1;
                Some(key)
            }
        }
    }

    /// Live mode: forget a runner. Returns the key of the set it belonged to.
    pub fn remove_runner(&mut self, namespace: &str, name: &str) -> Option<SetKey> {
        let live = self.live.as_mut()?;
        live.remove(&(namespace.to_string(), name.to_string()))
    }

    /// Live mode: forget every runner (before a relist).
    pub fn clear_runners(&mut self) {
        if let Some(live) = &mut self.live {
            *live = LiveRunners::default();
        }
        for e in self.sets.values_mut() {
            e.tally = Tally::default();
        }
    }

    /// The verdict on one set.
    pub fn status(&mut self, key: &SetKey, now: Option<i64>) -> Option<SetStatus> {
        let layout = self.layout;
        let entry = self.sets.get_mut(key)?;
        if let Some(live) = &self.live {
            let mut tally = Tally::default();
            if let Some(runners) = live.by_set.get(key) {
                for (name, r) in runners {
                    let spec = live
                        .specs
                        .get(&(key.clone(), r.spec_hash))
                        .map(|(t, _)| t.as_str())
                        .unwrap_or("{}");
                    let stale = entry.staleness(layout, r.spec_hash, spec);
                    tally.add(name, r.state, r.runner_id, stale, r.extra.as_deref());
                    if r.state == RunnerState::Outdated {
                        tally.add_outdated_revision(name, r.revision);
                    }
                    let pods = (self.runner_pods.as_ref())
                        .filter(|p| p.knows(&key.0) && r.seen < self.pods_read);
                    if let Some(pods) = pods {
                        let pod = pods.pods.get(&(key.0.clone(), name.clone()));
                        tally.add_pod(name, r.state, pod, r.extra.as_deref());
                    }
                }
            }
            entry.tally = tally;
        }
        let propagation = entry
            .desired
            .as_ref()
            .and_then(|d| propagation(layout, d, entry.facts.runner_spec.as_deref()));
        // The loop is a property of the template: checked only for sets the integrity hash decides.
        let recycle_loop = entry
            .desired
            .as_ref()
            .filter(|_| entry.facts.legacy_annotation)
            .and_then(|d| {
                let t = crate::recycle_loop::round_trip_of_autoscaling_runner_set(
                    layout,
                    &d.spec_json,
                    d.scale_set_id.as_deref(),
                )
                .ok()?;
                t.loops().then(|| RecycleLoop {
                    scale_set: d.scale_set.clone(),
                    paths: t.paths().map(str::to_string).collect(),
                    flips: entry.flips,
                })
            });
        Some(classify(
            &entry.facts,
            &entry.tally,
            entry.spec_error.as_deref(),
            super::classify::Context {
                propagation: propagation.as_ref(),
                recycle_loop: recycle_loop.as_ref(),
                replacement: entry.replacement.as_ref(),
                around: &entry.around,
                next: entry.next.as_ref(),
            },
            now,
        ))
    }

    /// Every verdict, sorted by namespace and name.
    pub fn statuses(&mut self, now: Option<i64>) -> Vec<SetStatus> {
        let mut keys: Vec<SetKey> = self.sets.keys().cloned().collect();
        keys.sort();
        keys.iter().filter_map(|k| self.status(k, now)).collect()
    }
}

impl LiveRunners {
    fn remove(&mut self, runner_key: &(String, String)) -> Option<SetKey> {
        let set = self.owner.remove(runner_key)?;
        if let Some(runners) = self.by_set.get_mut(&set) {
            if let Some(r) = runners.remove(&runner_key.1) {
                let spec_key = (set.clone(), r.spec_hash);
                if let Some(slot) = self.specs.get_mut(&spec_key) {
                    slot.1 -= 1;
                    if slot.1 == 0 {
                        self.specs.remove(&spec_key);
                    }
                }
            }
            if runners.is_empty() {
                self.by_set.remove(&set);
            }
        }
        Some(set)
    }
}

impl SetEntry {
    /// Whether a runner spec is stale against this set's, cached per distinct spec text.
    fn staleness(&mut self, layout: &Layout, hash: u64, runner_spec: &str) -> Result<bool, String> {
        let set_spec = self.facts.runner_spec.as_deref().unwrap_or("{}");
        if set_spec == runner_spec {
            // Identical bytes decode to identical values: Semantic equality is reflexive.
            return Ok(false);
        }
        if let Some(hit) = self.stale_by_spec.get(&hash) {
            return hit.clone();
        }
        let result = match decode(layout, layout.ephemeral_runner_spec, set_spec) {
            Err(e) => {
                self.spec_error = Some(e.to_string());
                // Not the runner's fault; the set is Invalid and the runner not counted stale.
                Ok(false)
            }
            Ok(set_value) => {
                runners::is_stale(layout, &set_value, runner_spec).map_err(|e| e.to_string())
            }
        };
        self.stale_by_spec.insert(hash, result.clone());
        result
    }
}
