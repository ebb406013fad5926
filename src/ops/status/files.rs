//! `status -f`: the census from a dump read through the one input layer, judged as the cluster's
//! (the dump's listeners, Pods, controllers and CRDs are its surroundings).

use std::collections::HashSet;

use crate::core::arc;
use crate::core::pairing;
use crate::core::status::{Census, RunnerFacts, RunnerPods, SetFacts, SetStatus};
use crate::input;

use super::gather::{has_set_among, runner_pods_of, scale_sets_without_sets};
use super::judge::{chains, rejudge, scale_set_row};
use super::names::offline_names;
use super::surroundings::Surroundings;
use super::{Files, FleetFacts, Plan, Snapshot, with_rows};

/// The runner Pods a dump holds (label `actions-ephemeral-runner: True`), as read for the
/// namespaces it holds any of; `None` when it holds none.
fn dumped_runner_pods(objects: &[input::Object]) -> Option<RunnerPods> {
    let dumped_pods: Vec<input::Object> = objects
        .iter()
        .filter(|o| o.kind == "Pod" && o.api_version == "v1" && o.problem.is_none())
        .filter(|o| {
            o.meta
                .labels
                .get("actions-ephemeral-runner")
                .map(String::as_str)
                == Some("True")
        })
        .cloned()
        .collect();
    if dumped_pods.is_empty() {
        return None;
    }
    let namespaces = dumped_pods
        .iter()
        .map(|p| p.namespace().to_string())
        .collect();
    Some(runner_pods_of(&dumped_pods, Some(namespaces)))
}

/// A dump's objects sorted out by [`sort_dump`].
struct DumpSorted {
    /// The runners.
    runners: Vec<input::Object>,
    scale_sets: Vec<input::Object>,
    /// Every set of the dump, selected or not.
    set_objects: Vec<input::Object>,
}

/// Sort a dump's objects out: the selected sets go into the census, the runners and scale sets
/// are kept for it; an object kubectl refuses, or a set that cannot be read, is an error.
fn sort_dump(
    objects: Vec<input::Object>,
    plan: &Plan,
    names: &[String],
    census: &mut Census,
    errors: &mut Vec<String>,
) -> DumpSorted {
    let runner_namespaces: HashSet<String> = objects
        .iter()
        .filter(|o| o.is_arc(arc::KIND_EPHEMERAL_RUNNER))
        .map(|o| o.namespace().to_string())
        .collect();
    let mut runners = Vec::new();
    let mut scale_sets = Vec::new();
    let mut set_objects = Vec::new();
    for obj in objects {
        let set = obj.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET);
        let runner = obj.is_arc(arc::KIND_EPHEMERAL_RUNNER);
        if let Some(problem) = (obj.problem.as_ref()).filter(|_| !set && !runner) {
            // An object kubectl refuses, whatever its kind: said, never dropped (its Pods,
            // listeners and scale sets are left out of the census below by their problem).
            errors.push(if problem.starts_with(&obj.kind) {
                format!("{}: {problem}", obj.origin)
            } else {
                format!("{}: {problem}", obj.describe())
            });
        }
        if obj.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET) {
            scale_sets.push(obj);
            continue;
        }
        if !set && !runner {
            continue;
        }
        if let Some(problem) = &obj.problem {
            errors.push(format!("{}: {problem}", obj.describe()));
            continue;
        }
        if set {
            match SetFacts::from_object(&obj) {
                Ok(mut facts) => {
                    // A dump without the namespace's runners says nothing of them: the counts
                    // in the set's status are not judged against runners it does not hold.
                    if !runner_namespaces.contains(facts.namespace.as_str()) {
                        facts.counters = None;
                    }
                    let selected = (names.is_empty() || names.contains(&facts.name))
                        && plan
                            .parsed_selector
                            .as_ref()
                            .is_none_or(|s| s.matches(&facts.labels));
                    if selected {
                        census.upsert_set(facts);
                    }
                }
                Err(e) => errors.push(format!("{}: {e}", obj.describe())),
            }
            set_objects.push(obj);
        } else {
            runners.push(obj);
        }
    }
    DumpSorted {
        runners,
        scale_sets,
        set_objects,
    }
}

/// `-f`: the census from a dump, read through the one input layer. Returns the rows and the
/// problems found (files that cannot be read, objects kubectl would refuse).
pub(crate) fn from_files(plan: &Plan, files: &Files, stdin: &mut dyn std::io::Read) -> Snapshot {
    let inputs = input::read(&files.paths, stdin);
    let mut errors = inputs.errors;
    let mut objects = inputs.objects;
    input::resolve_namespaces(&mut objects, &files.namespace, files.namespace_given);
    // A scale set's name stands for its sets, offline as against the cluster: the same rule
    // ([`resolve_names`]) over the dump's sets and scale sets.
    let names = offline_names(plan, files, &objects);
    let around = Surroundings {
        arc_release: plan.arc_release,
        ..Surroundings::from_objects(&objects)
    };
    let mut census = Census::new(plan.layout, false);
    if let Some(pods) = dumped_runner_pods(&objects) {
        census.set_runner_pods(pods);
    }
    let DumpSorted {
        runners,
        scale_sets,
        set_objects,
    } = sort_dump(objects, plan, &names, &mut census, &mut errors);
    for runner in &runners {
        if let Ok(r) = RunnerFacts::from_object(runner) {
            census.add_runner(&r);
        }
    }
    rejudge(&scale_sets, &mut census, &around);
    // Against every set of the files, named or not: a scale set's set may have another name.
    let all_sets: Vec<_> = set_objects.iter().map(input::Object::pairing_set).collect();
    let all_sets = pairing::Index::new(&all_sets);
    let waiting: Vec<SetStatus> =
        scale_sets_without_sets(plan, &scale_sets, |a| has_set_among(a, &all_sets))
            .into_iter()
            .map(|a| scale_set_row(plan, a, &around))
            .collect();
    for name in &names {
        if !census.keys().any(|k| &k.1 == name) && !waiting.iter().any(|r| &r.name == name) {
            errors.push(format!("EphemeralRunnerSet {name} not found in the files"));
        }
    }
    let chains = chains(plan, &scale_sets, &census, &around);
    Snapshot {
        rows: with_rows(census.statuses(plan.now()), waiting),
        errors,
        warnings: Vec::new(),
        fleet: FleetFacts::default(),
        chains,
    }
}
