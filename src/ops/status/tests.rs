//! The status operation's unit tests: `status -f` of small dumps, and the rules beside it.

use std::time::Duration;

use serde_json::{Value, json};

use super::judge::{runner_scale_set_id, unobserved};
use super::surroundings::Surroundings;
use super::*;
use crate::core::status::{SetFacts, SetStatus, State, Unobserved};
use crate::report::Outcome;
use crate::shell::Shell;

/// The shipped example's scale set and set, as JSON values.
fn example() -> (Value, Value) {
    let text = include_str!("../../../examples/actionable-revision/scale-set-dump.yaml");
    let docs = crate::manifest::parse(text, "example.yaml").unwrap();
    let items: Vec<Value> = match docs[0].value.get("items") {
        Some(Value::Array(items)) => items.clone(),
        _ => docs.iter().map(|d| d.value.clone()).collect(),
    };
    assert_eq!(items[0]["kind"], "AutoscalingRunnerSet");
    assert_eq!(items[1]["kind"], "EphemeralRunnerSet");
    (items[0].clone(), items[1].clone())
}

fn plan(names: &[&str], selector: Option<&str>) -> Plan {
    Plan {
        layout: Layout::arc(),
        namespace: None,
        names: names.iter().map(|n| n.to_string()).collect(),
        selector: selector.map(str::to_string),
        parsed_selector: selector.map(|s| Selector::parse(s).unwrap()),
        clock: || std::time::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        arc_release: None,
    }
}

/// `status -f -` of these objects.
fn status(plan: &Plan, items: &[Value]) -> Snapshot {
    let dump = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let files = Files {
        paths: vec!["-".into()],
        namespace: "default".into(),
        namespace_given: false,
    };
    from_files(plan, &files, &mut dump.as_bytes())
}

fn states(s: &Snapshot) -> Vec<(String, State)> {
    s.rows.iter().map(|r| (r.name.clone(), r.state)).collect()
}

/// The scale set's wanted spec reaches the set it owns, found as ARC finds it: its change not
/// yet written shows the set as Propagating; a set it does not own is judged on its own.
#[test]
fn a_scale_sets_unwritten_change_shows_on_the_set_it_owns() {
    let (ars, ers) = example();
    let s = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
    assert_eq!(
        states(&s),
        vec![("arc-runner-set".to_string(), State::Propagating)]
    );
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(s.outcome(), Outcome::Clean);
    // Alone, the set is judged on its own revisions.
    let alone = status(&plan(&[], None), std::slice::from_ref(&ers));
    assert_ne!(alone.rows[0].state, State::Propagating);
    // Owned by another scale set: not this one's, even with its name.
    let mut foreign = ers.clone();
    foreign["metadata"]["ownerReferences"][0]["name"] = json!("other");
    foreign["metadata"]["ownerReferences"][0]["uid"] = json!("u-other");
    let s = status(&plan(&[], None), &[ars.clone(), foreign]);
    assert_eq!(s.rows[0].state, alone.rows[0].state);
    // Of two sets of the scale set, the newest is ARC's: only it is compared.
    let mut old = ers.clone();
    old["metadata"]["name"] = json!("arc-runner-set-old");
    old["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
    let mut new = ers;
    new["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:00Z");
    let s = status(&plan(&[], None), &[old, ars, new]);
    assert_eq!(s.rows[0].name, "arc-runner-set");
    assert_eq!(s.rows[0].state, State::Propagating);
    assert_ne!(s.rows[1].state, State::Propagating, "{:?}", s.rows[1]);
}

#[test]
fn names_and_selectors_choose_the_sets_and_a_missing_name_fails() {
    let (ars, ers) = example();
    let mut gpu = ers.clone();
    gpu["metadata"]["name"] = json!("gpu");
    gpu["metadata"]["labels"] = json!({"team": "gpu"});
    let items = [ars, ers, gpu];
    let s = status(&plan(&["gpu"], None), &items);
    assert_eq!(s.rows.len(), 1);
    assert_eq!(s.rows[0].name, "gpu");
    assert_eq!(s.outcome(), Outcome::Clean);
    let s = status(&plan(&[], Some("team=gpu")), &items);
    assert_eq!(
        s.rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["gpu"]
    );
    let s = status(&plan(&["gpu", "nope"], None), &items);
    assert_eq!(s.rows.len(), 1);
    assert_eq!(s.errors, ["EphemeralRunnerSet nope not found in the files"]);
    assert_eq!(s.outcome(), Outcome::Failed);
}

#[test]
fn runners_count_on_their_set_and_a_bad_object_is_an_error_beside_the_others() {
    let (_, ers) = example();
    let runner = |name: &str, phase: &str, job: &str| {
        json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
               "metadata": {"name": name, "namespace": "arc-runners", "ownerReferences": [
                   {"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                    "name": "arc-runner-set", "uid": "u", "controller": true}]},
               "spec": ers["spec"]["ephemeralRunnerSpec"],
               "status": {"phase": phase, "jobId": job}})
    };
    let mut bad = ers.clone();
    bad["metadata"]["name"] = json!("bad");
    bad["metadata"]["labels"] = json!("not a map");
    let items = [
        ers.clone(),
        runner("idle", "Running", ""),
        runner("busy", "Running", "42"),
        runner("pending", "Pending", ""),
        bad,
    ];
    let s = status(&plan(&[], None), &items);
    assert_eq!(s.rows.len(), 1, "{:?}", states(&s));
    let r = &s.rows[0].runners;
    assert_eq!((r.idle, r.busy, r.pending), (1, 1, 1));
    assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
    assert!(s.errors[0].contains("bad"), "{:?}", s.errors);
    assert_eq!(s.outcome(), Outcome::Failed);
}

#[test]
fn the_scale_set_id_and_an_unobserved_generation_are_read_as_written() {
    assert_eq!(
        runner_scale_set_id(r#"{"runnerScaleSetId": 7}"#),
        Some("7".into())
    );
    assert_eq!(
        runner_scale_set_id(r#"{"runnerScaleSetId": 0}"#),
        None,
        "unset"
    );
    assert_eq!(runner_scale_set_id(r#"{}"#), None);
    let (ars, _) = example();
    let object = |generation: i64, observed: i64| {
        let mut a = ars.clone();
        a["metadata"]["generation"] = json!(generation);
        a["status"] = json!({"observedGeneration": observed});
        let text = json!({"apiVersion": "v1", "kind": "List", "items": [a]}).to_string();
        let mut inputs = input::read(&["-".into()], &mut text.as_bytes());
        inputs.objects.remove(0)
    };
    assert_eq!(
        unobserved(&object(3, 2)),
        Some(Unobserved {
            generation: 3,
            observed: 2
        })
    );
    assert_eq!(unobserved(&object(2, 2)), None);
}

/// A dump of the example's scale set and set, with what the listener tests add to it: another
/// scale set of the namespace, listeners and a crashing listener Pod.
struct ListenerDump {
    ars: Value,
    ers: Value,
    other_ars: Value,
    ns: String,
    pod: Value,
}

impl ListenerDump {
    fn new() -> ListenerDump {
        let (mut ars, ers) = example();
        let ns = ers["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        ars["metadata"]["annotations"]["runner-scale-set-id"] = json!("3");
        let mut other_ars = ars.clone();
        other_ars["metadata"]["name"] = json!("other");
        other_ars["metadata"]["uid"] = json!("u-other");
        let mut dump = ListenerDump {
            ars,
            ers,
            other_ars,
            ns,
            pod: Value::Null,
        };
        dump.pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": dump.arc_name("other"), "namespace": "arc-systems",
                "labels": {"app.kubernetes.io/component": "runner-scale-set-listener"}},
            "status": {"phase": "Running", "containerStatuses": [{"name": "listener", "restartCount": 4,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        dump
    }

    /// ARC's own name of each scale set's listener (`scaleSetListenerName`, 0.13.1 on).
    fn arc_name(&self, scale_set: &str) -> String {
        crate::core::status::listener::scale_set_listener_name(
            scale_set,
            &self.ns,
            "",
            "https://github.com/my-org",
            true,
        )
    }

    /// A listener of `scale_set` pointing at the set `points_at`.
    fn listener(&self, scale_set: &str, points_at: &str) -> Value {
        json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
               "metadata": {"name": self.arc_name(scale_set), "namespace": "arc-systems"},
               "spec": {"autoscalingRunnerSetNamespace": self.ns, "autoscalingRunnerSetName": scale_set,
                        "ephemeralRunnerSetName": points_at}})
    }

    /// The example set's row in `status -f` of the scale set, the set and `more`.
    fn row(&self, more: &[Value]) -> SetStatus {
        let mut objects = vec![self.ars.clone(), self.ers.clone()];
        objects.extend_from_slice(more);
        let s = status(&plan(&[], None), &objects);
        s.rows
            .into_iter()
            .find(|r| r.name == "arc-runner-set")
            .unwrap()
    }
}

/// `-f` with listeners and Pods: a dump's listener for another set of the namespace makes a
/// scale set without one ListenerDown, a crashing listener Pod ListenerFailing; a dump without
/// listeners, or without Pods of the listener's namespace, says nothing of them.
#[test]
fn a_dumps_listeners_and_pods_are_judged_as_the_clusters() {
    let d = ListenerDump::new();
    let base_state = d.row(&[]).state;
    // Another scale set's listener in the namespace: this one has none.
    let row = d.row(&[d.other_ars.clone(), d.listener("other", "other")]);
    assert!(
        row.reasons.iter().any(|r| r.code() == "NoListener"),
        "{:?}",
        row.reasons
    );
    // Its own listener, no Pod in the dump: nothing said of the Pod.
    let own = d.listener("arc-runner-set", "arc-runner-set");
    let row = d.row(std::slice::from_ref(&own));
    assert_eq!(row.state, base_state, "{:?}", row.reasons);
    assert!(!row.reasons.iter().any(|r| r.code().starts_with("Listener")));
    // Pods of that namespace in the dump, only another's (crashing): its own is missing.
    let row = d.row(&[own.clone(), d.pod.clone()]);
    let codes: Vec<&str> = row.reasons.iter().map(|r| r.code()).collect();
    assert!(codes.contains(&"ListenerPodMissing"), "{codes:?}");
    assert!(!codes.contains(&"ListenerPodNotRunning"), "{codes:?}");
    // Only Pods without the listener's label in that namespace (a runner's): the dump holds
    // none of its listener Pods, so nothing is said of them, as of a namespace without Pods.
    let mut runner_pod = d.pod.clone();
    runner_pod["metadata"]["labels"] = json!({"actions-ephemeral-runner": "True"});
    let row = d.row(&[own.clone(), runner_pod]);
    assert_eq!(row.state, base_state, "{:?}", row.reasons);
    assert!(!row.reasons.iter().any(|r| r.code().starts_with("Listener")));
    // Its own listener's Pod crashes.
    let mut own_pod = d.pod.clone();
    own_pod["metadata"]["name"] = json!(d.arc_name("arc-runner-set"));
    let row = d.row(&[own, own_pod]);
    assert!(
        row.reasons
            .iter()
            .any(|r| r.code() == "ListenerPodNotRunning"),
        "{:?}",
        row.reasons
    );
    // No listener in the dump: unknown, nothing said.
    let row = d.row(std::slice::from_ref(&d.other_ars));
    assert!(!row.reasons.iter().any(|r| r.code() == "NoListener"));
}

/// Listeners left behind in a dump (a runner group or githubConfigUrl changed): each is said,
/// however its name sorts against ARC's own, which stays the one judged.
#[test]
fn a_dumps_listeners_left_behind_are_each_said() {
    let d = ListenerDump::new();
    for left in ["aaa-left-listener", "zzz-left-listener"] {
        let mut orphan = d.listener("arc-runner-set", "arc-runner-set-old");
        orphan["metadata"]["name"] = json!(left);
        let row = d.row(&[orphan, d.listener("arc-runner-set", "arc-runner-set")]);
        let said: Vec<String> = (row.reasons.iter())
            .filter(|r| r.code() == "ListenerOrphaned")
            .map(|r| r.to_string())
            .collect();
        assert_eq!(said.len(), 1, "{:?}", row.reasons);
        assert!(
            said[0].starts_with(&format!(
                "AutoscalingListener arc-systems/{left} serves this scale set, but ARC finds the scale set's listener only as {}",
                d.arc_name("arc-runner-set")
            )),
            "{}",
            said[0]
        );
        assert!(
            !row.reasons
                .iter()
                .any(|r| r.code() == "ListenerForOtherSet"),
            "{:?}",
            row.reasons
        );
    }
}

/// Issue 33: a dump's controller on a canary image (its chart label says 0.14.2) over an
/// EphemeralRunnerSet CRD with the revision fields runs the next release: its set is judged
/// so, with why; a stopped listener (`spec.phase: Stopped`, which the dump can hold where the
/// test bed's CRD prunes it) switches the scale set off; the same controller on a 0.14.2 image
/// is 0.14.2.
#[test]
fn a_dumps_canary_controller_over_the_revision_crd_judges_as_next() {
    let (ars, ers) = example();
    let ns = ars["metadata"]["namespace"].as_str().unwrap().to_string();
    let controller = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                            "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                       "app.kubernetes.io/version": "0.14.2"}},
               "spec": {"replicas": 1, "template": {"spec": {"containers": [
                   {"name": "manager", "image": format!("ghcr.io/actions/gha-runner-scale-set-controller:{image}")}]}}}})
    };
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
        "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {"properties": {
            "spec": {"properties": {"actionableRevision": {"type": "integer"}}}}}}}]}});
    let listener = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
        "metadata": {"name": crate::core::status::listener::scale_set_listener_name(
            "arc-runner-set", &ns, "", "https://github.com/my-org", true),
            "namespace": "arc-systems"},
        "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "arc-runner-set",
                 "ephemeralRunnerSetName": "arc-runner-set", "phase": "Stopped"}});
    let items = [ars, ers, controller("canary-2ee6b3b"), crd, listener];
    let s = status(&plan(&[], None), &items);
    let row = &s.rows[0];
    assert_eq!(row.ids.release.as_deref(), Some("next"), "{row:?}");
    let from = row.ids.release_from.as_deref().unwrap();
    assert!(
        from.starts_with("controller Deployment arc-systems/arc-gha-rs-controller runs the next release: its image tag canary-2ee6b3b is a build of ARC's master"),
        "{from}"
    );
    // The example's scale set has a new image its set has not got yet: the change that
    // leaves Outdated, on its way (Propagating), the set said switched off meanwhile.
    assert_eq!(row.state, State::Propagating, "{:?}", row.reasons);
    let off = (row.reasons.iter())
        .find(|r| r.code() == "SwitchedOff")
        .unwrap_or_else(|| panic!("{:?}", row.reasons));
    assert!(
        off.to_string()
            .contains("its listener has spec.phase Stopped and the set is kept at 0 replicas"),
        "{off}"
    );
    // No version check of a canary build (`canary-` allows every label).
    assert!(
        !row.reasons
            .iter()
            .any(|r| r.code() == "DeletedByVersionCheck")
    );
    // A released image: judged as 0.14.2 (its version check refuses the unlabelled scale set).
    let mut items = items;
    items[2] = controller("0.14.2");
    let s = status(&plan(&[], None), &items);
    assert_eq!(s.rows[0].ids.release, None, "{:?}", s.rows[0]);
    assert_eq!(
        s.rows[0].state,
        State::VersionRejected,
        "{:?}",
        s.rows[0].reasons
    );
}

#[test]
fn a_dumps_controller_and_crds_tell_a_controller_newer_than_its_crds() {
    let (mut ars, ers) = example();
    // Labelled by the chart of the controller's minor release: its version check keeps it.
    ars["metadata"]["labels"]["app.kubernetes.io/version"] = json!("0.14.2");
    let controller = |version: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                            "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                       "app.kubernetes.io/version": version}},
               "spec": {"replicas": 1}})
    };
    // ARC 0.13's EphemeralRunnerSet CRD: 0.12's vaultConfig, none of 0.14's fields.
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
        "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {"properties": {
            "spec": {"properties": {"ephemeralRunnerSpec": {"properties": {"vaultConfig": {"type": "object"}}}}},
            "status": {"properties": {"currentReplicas": {"type": "integer"}}}}}}}]}});
    let codes = |s: &Snapshot| -> Vec<String> {
        s.rows[0]
            .reasons
            .iter()
            .map(|r| r.code().to_string())
            .collect()
    };
    let base = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
    let s = status(
        &plan(&[], None),
        &[ars.clone(), ers.clone(), controller("0.14.2"), crd.clone()],
    );
    assert_eq!(s.rows[0].state, base.rows[0].state, "changes no state");
    let reason = s.rows[0]
        .reasons
        .iter()
        .find(|r| r.code() == "CrdsBehindController")
        .unwrap_or_else(|| panic!("{:?}", codes(&s)));
    assert!(
        reason.to_string().starts_with(
            "controller Deployment arc-systems/arc-gha-rs-controller runs ARC 0.14.2, but the installed CRDs lack what it writes: ephemeralrunnersets.actions.github.com lacks spec.ephemeralRunnerMetadata (0.14.0), status.phase (0.14.0)"
        ),
        "{reason}"
    );
    // The CRDs' own release, no CRD in the dump, or no controller: nothing said.
    for items in [
        vec![ars.clone(), ers.clone(), controller("0.13.1"), crd.clone()],
        vec![ars.clone(), ers.clone(), controller("0.14.2")],
        vec![ars.clone(), ers.clone(), crd],
    ] {
        let s = status(&plan(&[], None), &items);
        assert!(
            !codes(&s).contains(&"CrdsBehindController".to_string()),
            "{:?}",
            codes(&s)
        );
    }
}

/// Issue 30.13: a dump without CRDs, a 0.14.2 controller that reconciles the namespace, and
/// no status ARC wrote there with a phase: the CRDs look older than the controller.
#[test]
fn a_dump_without_crds_whose_statuses_lack_the_phase_tells_crds_that_look_older() {
    let (ars, mut ers) = example();
    ers["status"] = json!({"currentReplicas": 0, "pendingEphemeralRunners": 0,
                           "runningEphemeralRunners": 0, "failedEphemeralRunners": 0});
    let controller = |version: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                            "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                       "app.kubernetes.io/version": version}},
               "spec": {"replicas": 1}})
    };
    let said = |items: &[Value]| -> Vec<String> {
        status(&plan(&[], None), items).rows[0]
            .reasons
            .iter()
            .filter(|r| r.code() == "CrdsLookOlder")
            .map(|r| r.to_string())
            .collect()
    };
    let base = [ars.clone(), ers.clone(), controller("0.14.2")];
    let older = said(&base);
    assert_eq!(older.len(), 1, "{older:?}");
    assert!(
        older[0].starts_with("no ARC CustomResourceDefinition was read, controller Deployment arc-systems/arc-gha-rs-controller runs ARC 0.14.2"),
        "{}",
        older[0]
    );
    // A phase written, a 0.13 controller, or no controller: nothing said.
    let mut phased = ers.clone();
    phased["status"]["phase"] = json!("Running");
    for items in [
        vec![ars.clone(), phased, controller("0.14.2")],
        vec![ars.clone(), ers.clone(), controller("0.13.1")],
        vec![ars.clone(), ers.clone()],
    ] {
        assert!(said(&items).is_empty(), "{items:?}");
    }
}

/// `-o json` items say what each row is and what judged it: the 0.14.2 example's set with
/// its scale set, release and both hashes; a scale set without a set as itself.
#[test]
fn json_items_carry_the_kind_the_scale_set_the_release_and_the_hashes() {
    let text = include_str!("../../../examples/scale-set-dump.yaml");
    let docs = crate::manifest::parse(text, "example.yaml").unwrap();
    let items: Vec<Value> = match docs[0].value.get("items") {
        Some(Value::Array(items)) => items.clone(),
        _ => docs.iter().map(|d| d.value.clone()).collect(),
    };
    let mut lonely = items[0].clone();
    lonely["metadata"]["name"] = json!("lonely");
    lonely["metadata"]["uid"] = json!("u-lonely");
    lonely["metadata"]["annotations"]
        .as_object_mut()
        .unwrap()
        .remove("runner-scale-set-id");
    let mut all = items.clone();
    all.push(lonely);
    let s = status(&plan(&[], None), &all);
    let json = serde_json::to_value(&s.rows).unwrap();
    let set = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "arc-runner-set-x7k2p")
        .unwrap();
    assert_eq!(set["kind"], "EphemeralRunnerSet", "{set:#}");
    assert_eq!(set["scaleSet"], "arc-runner-set", "{set:#}");
    assert_eq!(set["release"], "0.14.2", "{set:#}");
    assert_eq!(set["runnerSpecHash"], "84cffb96c6", "{set:#}");
    assert!(set["desiredRunnerSpecHash"].is_string(), "{set:#}");
    let row = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "lonely")
        .unwrap();
    assert_eq!(row["state"], "Registering", "{row:#}");
    assert_eq!(row["kind"], "AutoscalingRunnerSet", "{row:#}");
    assert_eq!(row["scaleSet"], "lonely", "{row:#}");
}

/// With `-n`, the fleet's listener images are those of the namespace's scale sets only.
#[test]
fn the_listener_images_of_a_fleet_listing_are_its_namespaces() {
    let listener = |ns: &str, image: &str| {
        json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
               "metadata": {"name": format!("{ns}-l"), "namespace": "arc-systems"},
               "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "s",
                        "ephemeralRunnerSetName": "s", "image": image}})
    };
    let text = json!({"apiVersion": "v1", "kind": "List", "items": [
        listener("team-a", "c:0.14.2"), listener("team-b", "c:0.13.1")]})
    .to_string();
    let listeners = [crate::cluster::api::Resource::AUTOSCALING_LISTENERS];
    let (dump, _) = crate::cluster::dump::Dump::read(
        &["-".into()],
        &mut text.as_bytes(),
        "default",
        false,
        &listeners,
    );
    let around =
        (crate::ops::runtime().unwrap()).block_on(Surroundings::read(&dump, &plan(&[], None)));
    let census = Census::new(Layout::arc(), false);
    let of = |ns: Option<&str>| FleetFacts::read(&[], &census, &around, ns).listener_images;
    assert_eq!(
        of(Some("team-a")),
        std::collections::BTreeSet::from(["c:0.14.2".to_string()])
    );
    assert_eq!(of(None).len(), 2);
}

#[test]
fn a_dump_without_runners_does_not_judge_the_sets_counters() {
    let (ars, mut ers) = example();
    ers["status"]["currentReplicas"] = json!(1);
    ers["status"]["pendingEphemeralRunners"] = json!(0);
    ers["status"]["runningEphemeralRunners"] = json!(1);
    ers["status"]["failedEphemeralRunners"] = json!(0);
    let codes = |s: &Snapshot| -> Vec<String> {
        s.rows[0]
            .reasons
            .iter()
            .map(|r| r.code().to_string())
            .collect()
    };
    let s = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
    assert!(
        !codes(&s).contains(&"CountersDisagree".to_string()),
        "{:?}",
        codes(&s)
    );
    // A runner of the namespace (of another set) in the dump: the set's runners are known,
    // and it has none.
    let ns = ers["metadata"]["namespace"].clone();
    let other = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": "elsewhere", "namespace": ns}, "status": {"phase": "Running"}});
    let s = status(&plan(&[], None), &[ars, ers, other]);
    assert!(
        codes(&s).contains(&"CountersDisagree".to_string()),
        "{:?}",
        codes(&s)
    );
}

#[test]
fn a_dumps_runner_pods_count_for_their_namespace_only() {
    let (ars, ers) = example();
    let ns = ers["metadata"]["namespace"].clone();
    let owner = json!([{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "name": ers["metadata"]["name"], "uid": ers["metadata"]["uid"], "controller": true}]);
    let runner = |name: &str| {
        json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": name, "namespace": ns, "ownerReferences": owner},
            "spec": ers["spec"]["ephemeralRunnerSpec"], "status": {"phase": "Running"}})
    };
    let pod = |name: &str, labelled: bool| {
        let labels = if labelled {
            json!({"actions-ephemeral-runner": "True"})
        } else {
            json!({})
        };
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "status": {"phase": "Running"}})
    };
    let missing = |items: &[Value]| -> bool {
        status(&plan(&[], None), items).rows[0]
            .reasons
            .iter()
            .any(|r| r.code() == "RunnerPodsMissing")
    };
    let base = [ars.clone(), ers.clone(), runner("a"), runner("b")];
    // No runner Pod in the dump: not judged.
    assert!(!missing(&base));
    // One runner's Pod: the other's is missing.
    let mut with_one = base.to_vec();
    with_one.push(pod("a", true));
    assert!(missing(&with_one));
    // Both: nothing missing; an unlabelled Pod is not a runner's.
    let mut with_both = with_one.clone();
    with_both.push(pod("b", true));
    assert!(!missing(&with_both));
    let mut unlabelled = base.to_vec();
    unlabelled.push(pod("a", false));
    assert!(!missing(&unlabelled));
}

/// ARC up to 0.14: a listener whose hash annotations are not its scale set's is
/// ListenerHashStale (ARC makes it again: ListenerDown); one made from the scale set as it is
/// says nothing.
#[test]
fn a_listener_made_from_another_spec_of_its_scale_set_is_said_under_its_release() {
    let text = include_str!("../../../examples/scale-set-dump.yaml");
    let docs = crate::manifest::parse(text, "example.yaml").unwrap();
    let items: Vec<Value> = match docs[0].value.get("items") {
        Some(Value::Array(items)) => items.clone(),
        _ => docs.iter().map(|d| d.value.clone()).collect(),
    };
    let (mut ars, ers) = (items[0].clone(), items[1].clone());
    assert_eq!(ars["kind"], "AutoscalingRunnerSet");
    ars["metadata"]["annotations"]["runner-scale-set-id"] = json!("3");
    let ns = ers["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default")
        .to_string();
    let release = crate::core::release::release("0.14.2").unwrap();
    let hash =
        crate::core::spec_hash::listener_spec_hash(release, &ars["spec"].to_string()).unwrap();
    let values = ars["metadata"]["annotations"]["actions.github.com/values-hash"].clone();
    // ARC's own name of the listener (`scaleSetListenerName`, 0.13.1 on).
    let own = crate::core::status::listener::scale_set_listener_name(
        "arc-runner-set",
        &ns,
        ars["spec"]["runnerGroup"].as_str().unwrap_or(""),
        ars["spec"]["githubConfigUrl"].as_str().unwrap(),
        true,
    );
    let listener = |hash: &str| {
        json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
            "metadata": {"name": own, "namespace": "arc-systems",
                "annotations": {"actions.github.com/runner-spec-hash": hash,
                                "actions.github.com/values-hash": values}},
            "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "arc-runner-set",
                     "ephemeralRunnerSetName": ers["metadata"]["name"]}})
    };
    let codes = |l: Value| -> Vec<String> {
        let s = status(&plan(&[], None), &[ars.clone(), ers.clone(), l]);
        s.rows[0]
            .reasons
            .iter()
            .map(|r| r.code().to_string())
            .collect()
    };
    assert!(!codes(listener(&hash)).contains(&"ListenerHashStale".to_string()));
    let stale = codes(listener("5d8f9c7b6"));
    assert!(
        stale.contains(&"ListenerHashStale".to_string()),
        "{stale:?}"
    );
}

#[test]
fn a_name_not_in_the_census_is_reported_in_its_namespace() {
    let mut p = plan(&["a", "b"], None);
    p.namespace = Some("ci".into());
    let mut census = Census::new(p.layout, false);
    let (_, mut ers) = example();
    ers["metadata"]["namespace"] = json!("ci");
    ers["metadata"]["name"] = json!("a");
    census.upsert_set(SetFacts::from_json(&ers.to_string()).unwrap());
    assert_eq!(
        missing_names(&p, &census, &[], ""),
        ["EphemeralRunnerSet ci/b not found"]
    );
}

/// The example's scale set (chart label 0.14.2) and its set.
fn scale_set_and_set() -> Vec<Value> {
    let text = include_str!("../../../examples/scale-set-dump.yaml");
    let docs = crate::manifest::parse(text, "example.yaml").unwrap();
    let items: Vec<Value> = match docs[0].value.get("items") {
        Some(Value::Array(items)) => items[..2].to_vec(),
        _ => docs[..2].iter().map(|d| d.value.clone()).collect(),
    };
    assert_eq!(
        items[0]["metadata"]["labels"]["app.kubernetes.io/version"],
        "0.14.2"
    );
    items
}

/// A controller Deployment of ARC `version` whose manager takes `args`.
fn controller(version: &str, args: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": format!("arc-{version}"), "namespace": "arc-systems",
                        "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                   "app.kubernetes.io/version": version}},
           "spec": {"replicas": 1, "template": {"spec": {"containers": [
               {"name": "manager", "image": "c", "args": args}]}}}})
}

/// The first row's state, judging release and reasons, for `items` and `extra` under
/// `--arc-version` `flag`.
fn judged(
    items: &[Value],
    flag: Option<&str>,
    extra: &[Value],
) -> (State, String, Vec<crate::core::status::StatusReason>) {
    let mut p = plan(&[], None);
    p.arc_release = flag.map(|v| Target::parse(v).unwrap());
    let s = status(&p, &[items.to_vec(), extra.to_vec()].concat());
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    let row = s.rows[0].clone();
    (
        row.state,
        row.ids.release.clone().unwrap_or_default(),
        row.reasons,
    )
}

/// Issue 33 and 31: status judges each set by diff's rule, `--arc-version`, else the release
/// of the controller Deployment that reconciles its namespace (in a dump as in the cluster),
/// else its chart label; where that release's version check refuses the scale set's
/// `app.kubernetes.io/version`, the set is VersionRejected.
#[test]
fn a_set_is_judged_by_its_controller_else_its_label_and_the_version_check_rejects_it() {
    let items = scale_set_and_set();
    // The chart label alone: 0.14.2 replaces the set.
    let (state, release, _) = judged(&items, None, &[]);
    assert_eq!((state, release.as_str()), (State::Replacing, "0.14.2"));
    // A 0.14.0 controller judges it, not the label (the same hash here).
    let (state, release, _) = judged(&items, None, &[controller("0.14.0", json!([]))]);
    assert_eq!((state, release.as_str()), (State::Replacing, "0.14.0"));
    // A 0.13.1 controller deletes the scale set; the replacement is never reached.
    let (state, release, reasons) = judged(&items, None, &[controller("0.13.1", json!([]))]);
    assert_eq!(
        (state, release.as_str()),
        (State::VersionRejected, "0.13.1")
    );
    let codes: Vec<&str> = reasons.iter().map(|r| r.code()).collect();
    assert_eq!(codes[0], "DeletedByVersionCheck", "{codes:?}");
    assert!(!codes.contains(&"ReplacementPending"), "{codes:?}");
    assert!(
        reasons[0].to_string().starts_with(
            "controller Deployment arc-systems/arc-0.13.1 runs ARC 0.13.1, whose version check deletes this scale set"
        ),
        "{}",
        reasons[0]
    );
    // One watching the namespace alone wins over one watching all; one watching another
    // namespace does not judge it.
    let single = controller("0.14.1", json!(["--watch-single-namespace=arc-runners"]));
    let (state, release, _) = judged(&items, None, &[controller("0.13.1", json!([])), single]);
    assert_eq!((state, release.as_str()), (State::Replacing, "0.14.1"));
    let elsewhere = controller("0.13.1", json!(["--watch-single-namespace=other"]));
    let (state, release, _) = judged(&items, None, &[elsewhere]);
    assert_eq!((state, release.as_str()), (State::Replacing, "0.14.2"));
}

/// `--arc-version` wins over the controller, both ways; a scale set being deleted is not
/// checked (ARC handles the deletion first); a scale set without a set is rejected too.
#[test]
fn the_flag_judges_before_the_controller_and_the_version_check_skips_a_deletion() {
    let items = scale_set_and_set();
    let (state, release, reasons) = judged(&items, Some("0.13.1"), &[]);
    assert_eq!(
        (state, release.as_str()),
        (State::VersionRejected, "0.13.1")
    );
    assert!(
        reasons[0]
            .to_string()
            .starts_with("ARC 0.13.1 (--arc-version)")
    );
    let (state, release, _) = judged(&items, Some("0.14.0"), &[controller("0.13.1", json!([]))]);
    assert_eq!((state, release.as_str()), (State::Replacing, "0.14.0"));
    let mut deleting = items.clone();
    deleting[0]["metadata"]["deletionTimestamp"] = json!("2026-09-02T00:00:00Z");
    let s = status(
        &Plan {
            arc_release: Target::parse("0.13.1"),
            ..plan(&[], None)
        },
        &deleting,
    );
    assert_ne!(
        s.rows[0].state,
        State::VersionRejected,
        "{:?}",
        s.rows[0].reasons
    );
    let s = status(
        &Plan {
            arc_release: Target::parse("0.11.0"),
            ..plan(&[], None)
        },
        &items[..1],
    );
    assert_eq!(
        s.rows[0].state,
        State::VersionRejected,
        "{:?}",
        s.rows[0].reasons
    );
    assert_eq!(s.rows[0].ids.kind, "AutoscalingRunnerSet");
}

/// `-l`: a scale set the selector keeps whose set it leaves out (other labels) has a set all the
/// same (ARC pairs by owner, not by label): it is not shown waiting for one.
#[test]
fn a_scale_set_whose_set_the_selector_leaves_out_is_not_waiting() {
    let (mut ars, mut ers) = example();
    ars["metadata"]["labels"] = json!({"team": "a"});
    ers["metadata"]["labels"] = json!({"team": "b"});
    let s = status(&plan(&[], Some("team=a")), &[ars.clone(), ers.clone()]);
    assert!(s.rows.is_empty(), "{:?}", states(&s));
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    // Without its set in the dump it is waiting.
    let s = status(&plan(&[], Some("team=a")), std::slice::from_ref(&ars));
    assert_eq!(s.rows.len(), 1, "{:?}", states(&s));
}

/// What `--watch` and `--wait` pushed, for the tests of following a dump.
#[derive(Default)]
struct Pushed {
    listed: usize,
    changed: usize,
    progress: usize,
    ending: Option<follow::Ending>,
}

impl follow::FollowSink for Pushed {
    fn listed(&mut self, rows: &[SetStatus], _: &mut Shell<'_>) -> anyhow::Result<()> {
        self.listed += rows.len();
        Ok(())
    }
    fn changed(&mut self, rows: &[SetStatus], _: &mut Shell<'_>) -> anyhow::Result<()> {
        self.changed += rows.len();
        Ok(())
    }
    fn differs(&self, before: &SetStatus, after: &SetStatus) -> bool {
        (before.state, &before.reasons) != (after.state, &after.reasons)
    }
    fn progress(&mut self, _: &SetStatus, _: &mut Shell<'_>) -> anyhow::Result<()> {
        self.progress += 1;
        Ok(())
    }
    fn waiting(&mut self, _: &[SetStatus], _: &mut Shell<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    fn end(
        &mut self,
        _: Vec<SetStatus>,
        why: &follow::Ending,
        _: &mut Shell<'_>,
    ) -> anyhow::Result<()> {
        self.ending = Some(why.clone());
        Ok(())
    }
}

/// `--watch` or `--wait` (`wait`) over a dump of these objects: the outcome, what was pushed.
fn follow_dump(wait: bool, items: &[Value]) -> (anyhow::Result<Outcome>, Pushed) {
    let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let (dump, errors) = crate::cluster::dump::Dump::read(
        &["-".into()],
        &mut text.as_bytes(),
        "default",
        false,
        &files::READS,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let mut pushed = Pushed::default();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut shell = Shell::new(&mut out, &mut err, Default::default());
    let outcome = {
        let mut shown = follow::Follow::new(wait, &mut pushed);
        let plan = plan(&[], None);
        let run = follow(&dump, &plan, &mut shown, None, &mut shell);
        crate::ops::runtime().unwrap().block_on(run)
    };
    (outcome, pushed)
}

/// Following reads its source through the one door: over a dump, whose watches give the listing
/// again and then end, `--watch` shows the rows and is over (exit 0, no row changed), and
/// `--wait` ends at once: a set still waited for will not change (exit 1, saying so), a settled
/// one ends it settled.
#[test]
fn following_a_dump_ends_when_its_watch_ends() {
    let (ars, ers) = example();
    let (outcome, pushed) = follow_dump(false, &[ars.clone(), ers.clone()]);
    assert_eq!(outcome.unwrap(), Outcome::Clean);
    assert_eq!((pushed.listed, pushed.changed), (1, 0));
    // Propagating (see above): waited for, and nothing more will come.
    let (outcome, pushed) = follow_dump(true, &[ars.clone(), ers.clone()]);
    assert_eq!(outcome.unwrap(), Outcome::Drift);
    let Some(follow::Ending::Stuck(why)) = pushed.ending else {
        panic!("{:?}", pushed.ending)
    };
    assert!(why.starts_with("nothing more will come"), "{why}");
    assert!(why.contains("arc-runner-set is Propagating"), "{why}");
}
