//! The rules of a set's surroundings (issue 22): its listener and the listener's Pod, failed
//! runners, finalizers left, and the states they put a set in.

use serde_json::{Value, json};

use super::listener::*;
use super::*;
use crate::layout::Layout;

fn set(name: &str, extra: Value) -> SetFacts {
    let mut obj = json!({
        "metadata": {"name": name, "namespace": "arc", "creationTimestamp": "2026-09-01T00:00:00Z"},
        "spec": {"replicas": 3, "actionableRevision": 1, "ephemeralRunnerSpec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": "a"}]}}},
        "status": {"appliedActionableRevision": 1},
    });
    if let (Value::Object(o), Value::Object(e)) = (&mut obj, extra) {
        for (k, v) in e {
            o.insert(k, v);
        }
    }
    SetFacts::from_json(&obj.to_string()).unwrap()
}

fn scale_set() -> ScaleSetFacts {
    ScaleSetFacts::new(("arc".into(), "runners".into()), Some("7"), None, None)
}

/// A listener as ARC's `newAutoScalingListener` writes it.
fn listener(points_at: &str) -> ListenerFacts {
    ListenerFacts::from_json(
        &json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
            "metadata": {"name": "runners-754b578d-listener", "namespace": "arc-systems",
                "labels": {"app.kubernetes.io/component": "runner-scale-set-listener",
                           "actions.github.com/scale-set-name": "runners",
                           "actions.github.com/scale-set-namespace": "arc"}},
            "spec": {"autoscalingRunnerSetNamespace": "arc", "autoscalingRunnerSetName": "runners",
                     "ephemeralRunnerSetName": points_at, "runnerScaleSetId": 7,
                     "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2"}
        })
        .to_string(),
    )
    .unwrap()
}

/// A listener Pod with the status a kubelet writes.
fn pod(status: Value) -> PodFacts {
    PodFacts::from_json(
        &json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "runners-754b578d-listener", "namespace": "arc-systems"},
                "status": status})
        .to_string(),
        LISTENER_CONTAINER,
    )
    .unwrap()
}

fn waiting(reason: &str, restarts: i64) -> Value {
    json!({"phase": "Running", "containerStatuses": [{"name": "listener", "restartCount": restarts,
        "state": {"waiting": {"reason": reason, "message": "back-off 5m0s"}},
        "lastState": {"terminated": {"reason": "Error", "exitCode": 1}}}]})
}

fn running() -> Value {
    json!({"phase": "Running", "containerStatuses": [{"name": "listener", "restartCount": 0,
        "state": {"running": {"startedAt": "2026-09-01T00:00:00Z"}}}]})
}

fn found(l: ListenerFacts, p: PodView) -> ListenerView {
    ListenerView::Found {
        listener: Box::new(l),
        pod: p,
    }
}

fn codes(reasons: &[StatusReason]) -> Vec<&'static str> {
    reasons.iter().map(StatusReason::code).collect()
}

#[test]
fn a_running_listener_for_the_newest_set_says_nothing() {
    let latest = set("runners", json!({}));
    let view = found(
        listener("runners"),
        PodView::Found(Box::new(pod(running()))),
    );
    let names = ["runners".to_string()];
    assert_eq!(
        listener_reasons(&scale_set(), &latest, &names, &view, 0, 0, None),
        []
    );
    // Unknown says nothing either: a read the role does not allow, or no listener anywhere.
    assert_eq!(
        listener_reasons(
            &scale_set(),
            &latest,
            &names,
            &ListenerView::Unknown,
            0,
            0,
            None
        ),
        []
    );
}

#[test]
fn no_listener_is_said_only_where_arc_makes_one_and_says_whether_it_waits_for_jobs() {
    let latest = set("runners", json!({}));
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &[],
        &ListenerView::Absent,
        0,
        0,
        None,
    );
    assert_eq!(codes(&r), ["NoListener"]);
    assert!(
        r[0].to_string()
            .contains("creates it on its next reconcile"),
        "{}",
        r[0]
    );
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &[],
        &ListenerView::Absent,
        2,
        1,
        None,
    );
    assert!(
        r[0].to_string()
            .contains("waits for its 2 running and 1 pending runners"),
        "{}",
        r[0]
    );
    assert_eq!(r[0].escalation(), Some(State::ListenerDown));
    // Not registered, Outdated, or being deleted: ARC makes no listener (or removes it).
    let unregistered = ScaleSetFacts::new(("arc".into(), "runners".into()), Some("x"), None, None);
    let outdated = ScaleSetFacts::new(
        ("arc".into(), "runners".into()),
        Some("7"),
        Some("Outdated"),
        None,
    );
    let deleting = ScaleSetFacts::new(
        ("arc".into(), "runners".into()),
        Some("7"),
        None,
        Some(Deletion::default()),
    );
    for s in [unregistered, outdated, deleting] {
        assert_eq!(
            listener_reasons(&s, &latest, &[], &ListenerView::Absent, 0, 0, None),
            [],
            "{s:?}"
        );
    }
    let outdated_set = set(
        "runners",
        json!({"status": {"appliedActionableRevision": 1, "phase": "Outdated"}}),
    );
    assert_eq!(
        listener_reasons(
            &scale_set(),
            &outdated_set,
            &[],
            &ListenerView::Absent,
            0,
            0,
            None
        ),
        []
    );
    // Go's strconv.Atoi: "+7" is 7, "0" and "-1" are not registered.
    let id = |s: &str| ScaleSetFacts::new(("a".into(), "b".into()), Some(s), None, None).registered;
    assert!(id("+7") && id("7") && !id("0") && !id("-1") && !id("") && !id("7x"));
}

#[test]
fn a_listener_for_another_set_says_whether_it_exists_and_who_fixes_it() {
    let latest = set("runners-new", json!({}));
    let names = ["runners-new".to_string(), "runners-old".to_string()];
    let view = |to: &str| found(listener(to), PodView::Found(Box::new(pod(running()))));
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &names,
        &view("runners-old"),
        0,
        0,
        None,
    );
    assert_eq!(
        r,
        [StatusReason::ListenerForOtherSet {
            listener: "arc-systems/runners-754b578d-listener".into(),
            points_at: "runners-old".into(),
            exists: true,
            newest: "runners-new".into(),
            arc_recreates: true,
        }]
    );
    assert_eq!(r[0].escalation(), Some(State::ListenerDown));
    // ARC up to 0.14 (a set with the runner-spec-hash annotation) does not recreate it.
    let old_era = set(
        "runners-new",
        json!({"metadata": {"name": "runners-new", "namespace": "arc",
                "annotations": {"actions.github.com/runner-spec-hash": "abc"}}}),
    );
    let r = listener_reasons(&scale_set(), &old_era, &names, &view("gone"), 0, 0, None);
    let StatusReason::ListenerForOtherSet {
        exists,
        arc_recreates,
        ..
    } = &r[0]
    else {
        panic!("{r:?}")
    };
    assert!(!exists && !arc_recreates);
    assert_eq!(r[0].escalation(), Some(State::ListenerFailing));
    assert!(
        r[0].to_string().contains("which does not exist"),
        "{}",
        r[0]
    );
    assert!(
        r[0].to_string()
            .contains("spec.ephemeralRunnerSetName is gone"),
        "{}",
        r[0]
    );
}

#[test]
fn a_listener_pod_as_the_kubelet_reports_it() {
    let p = |status: Value| pod_problem(&pod(status));
    assert_eq!(p(running()), None);
    assert_eq!(
        p(waiting("CrashLoopBackOff", 12)),
        Some(PodProblem::CrashLoop {
            restarts: 12,
            last: Some("Error".into())
        })
    );
    for pull in ["ImagePullBackOff", "ErrImagePull"] {
        let got = p(waiting(pull, 0)).unwrap();
        assert!(
            matches!(&got, PodProblem::ImagePull { reason, .. } if reason == pull),
            "{got:?}"
        );
        assert!(got.needs_person());
    }
    let unschedulable = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled",
        "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"}]});
    assert_eq!(
        p(unschedulable),
        Some(PodProblem::Unschedulable {
            why: "Unschedulable: 0/3 nodes are available".into()
        })
    );
    let creating = json!({"phase": "Pending", "containerStatuses": [{"name": "listener",
        "state": {"waiting": {"reason": "ContainerCreating"}}}]});
    let got = p(creating).unwrap();
    assert_eq!(
        got,
        PodProblem::Pending {
            reason: Some("ContainerCreating".into())
        }
    );
    assert!(!got.needs_person());
    let evicted = json!({"phase": "Failed", "reason": "Evicted"});
    assert!(!p(evicted).unwrap().needs_person());
    // The reasons: a crash loop needs a person, with the restarts said.
    let latest = set("runners", json!({}));
    let view = found(
        listener("runners"),
        PodView::Found(Box::new(pod(waiting("CrashLoopBackOff", 12)))),
    );
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &["runners".into()],
        &view,
        0,
        0,
        None,
    );
    assert_eq!(codes(&r), ["ListenerPodNotRunning"]);
    assert_eq!(r[0].escalation(), Some(State::ListenerFailing));
    let text = r[0].to_string();
    assert!(
        text.starts_with("listener Pod arc-systems/runners-754b578d-listener is not running: CrashLoopBackOff after 12 restarts (last terminated: Error)"),
        "{text}"
    );
    assert!(
        text.contains("kubectl logs -n arc-systems runners-754b578d-listener --previous"),
        "{text}"
    );
    let view = found(listener("runners"), PodView::Absent);
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &["runners".into()],
        &view,
        0,
        0,
        None,
    );
    assert_eq!(codes(&r), ["ListenerPodMissing"]);
    assert_eq!(r[0].escalation(), Some(State::ListenerDown));
}

/// The listener's image is the controller's; its version label the scale set chart's: a
/// difference is said (no state changes), a digest, a registry port or a non-version tag is not
/// compared.
#[test]
fn a_listener_image_of_another_version_than_its_chart_is_said() {
    let latest = set("runners", json!({}));
    let names = ["runners".to_string()];
    let with = |image: &str, chart: Option<&str>| {
        let mut l = listener("runners");
        l.image = Some(image.into());
        l.chart_version = chart.map(str::to_string);
        listener_reasons(
            &scale_set(),
            &latest,
            &names,
            &found(l, PodView::Found(Box::new(pod(running())))),
            0,
            0,
            None,
        )
    };
    let r = with(
        "ghcr.io/actions/gha-runner-scale-set-controller:0.13.0",
        Some("0.14.2"),
    );
    assert_eq!(codes(&r), ["ListenerVersionMismatch"]);
    assert_eq!(r[0].escalation(), None);
    assert!(r[0].to_string().contains("runs spec.image ghcr.io/actions/gha-runner-scale-set-controller:0.13.0, the controller's, while its scale set was made by chart version 0.14.2"), "{}", r[0]);
    for (image, chart) in [
        (
            "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2",
            Some("0.14.2"),
        ),
        (
            "ghcr.io/actions/gha-runner-scale-set-controller:v0.14.2",
            Some("0.14.2"),
        ),
        ("registry:5000/controller", Some("0.14.2")),
        ("ghcr.io/actions/controller@sha256:abc", Some("0.14.2")),
        ("ghcr.io/actions/controller:canary", Some("0.14.2")),
        ("ghcr.io/actions/controller:0.13.0", None),
    ] {
        assert_eq!(with(image, chart), [], "{image} {chart:?}");
    }
    // As read from the object: the label of newAutoScalingListener.
    assert_eq!(listener("runners").chart_version.as_deref(), None);
}

#[test]
fn finalizers_name_the_controller_that_removes_them() {
    assert_eq!(
        finalizer_controller(
            "ephemeralrunner.actions.github.com/finalizer",
            "EphemeralRunnerSet"
        ),
        Some("the EphemeralRunnerSet controller")
    );
    assert_eq!(
        finalizer_controller(
            "ephemeralrunner.actions.github.com/finalizer",
            "EphemeralRunner"
        ),
        Some("the EphemeralRunner controller")
    );
    assert_eq!(
        finalizer_controller("actions.github.com/cleanup-protection", "RoleBinding"),
        Some("the AutoscalingRunnerSet controller")
    );
    assert_eq!(
        finalizer_controller("example.com/hold", "EphemeralRunner"),
        None
    );
    let d = Deletion {
        since: Some("2026-09-02T00:00:00Z".into()),
        finalizers: vec![
            "autoscalingrunnerset.actions.github.com/finalizer".into(),
            "example.com/hold".into(),
        ],
    };
    let text = finalizers_left("AutoscalingRunnerSet", "arc/runners", &d).to_string();
    assert_eq!(
        text,
        "AutoscalingRunnerSet arc/runners is being deleted (metadata.deletionTimestamp 2026-09-02T00:00:00Z) \
         and held by metadata.finalizers autoscalingrunnerset.actions.github.com/finalizer (removed by the \
         AutoscalingRunnerSet controller of ARC), example.com/hold (not ARC's): if that controller is not \
         running, or the object's scale set is gone, nothing removes it (ARC #4484); once the controller is \
         back it finishes, else `kubectl arc repair` removes ARC's finalizers where no running controller \
         would or what they guard is gone, never from a runner with a job"
    );
    // A listener being deleted on a finalizer is said; ARC makes no new one meanwhile.
    let mut l = listener("runners");
    l.deletion = Some(Deletion {
        since: None,
        finalizers: vec!["autoscalinglistener.actions.github.com/finalizer".into()],
    });
    let latest = set("runners", json!({}));
    let r = listener_reasons(
        &scale_set(),
        &latest,
        &[],
        &found(l, PodView::Absent),
        0,
        0,
        None,
    );
    assert_eq!(codes(&r), ["FinalizersLeft"]);
    assert_eq!(r[0].escalation(), None);
}

/// `scaleTotal()` counts failed runners, so ARC creates `replicas - total`: failed runners hold
/// the places of runners it would create, and none once the set is full without them.
#[test]
fn failed_runners_hold_places_as_scale_total_counts_them() {
    assert_eq!(classify::failed_runners_hold(3, 0, 0, 2), 2);
    assert_eq!(classify::failed_runners_hold(3, 1, 0, 5), 2);
    assert_eq!(classify::failed_runners_hold(3, 3, 0, 2), 0);
    assert_eq!(classify::failed_runners_hold(0, 0, 0, 4), 0);
    assert_eq!(classify::failed_runners_hold(5, 1, 1, 1), 1);
}

fn runner(name: &str, created: &str, status: Value, meta: Value) -> String {
    let mut m = json!({"name": name, "namespace": "arc", "creationTimestamp": created,
        "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                             "name": "runners", "uid": "u", "controller": true}]});
    if let (Value::Object(o), Value::Object(e)) = (&mut m, meta) {
        for (k, v) in e {
            o.insert(k, v);
        }
    }
    json!({"metadata": m,
           "spec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": "a"}]}},
           "status": status})
    .to_string()
}

/// Failed runners on a Synced set make it RunnersFailed (first reason: how many, the oldest with
/// its status.reason, the places held); a deleting runner's finalizers are named; in streaming
/// and live mode alike.
#[test]
fn failed_runners_make_a_synced_set_runners_failed_with_the_oldest_named() {
    let failed = |name: &str, created: &str, reason: &str| {
        runner(
            name,
            created,
            json!({"phase": "Failed", "reason": reason, "message": "pod failed 6 times",
                   "failures": {"a": "2026-09-01T00:00:00Z", "b": "2026-09-01T00:01:00Z"}}),
            json!({}),
        )
    };
    let texts = [
        failed("r-a", "2026-09-03T00:00:00Z", "TooManyPodFailures"),
        failed("r-b", "2026-09-02T00:00:00Z", "TooManyPodFailures"),
        runner(
            "r-idle",
            "2026-09-01T00:00:00Z",
            json!({"phase": "Running"}),
            json!({}),
        ),
        runner(
            "r-gone",
            "2026-09-01T00:00:00Z",
            json!({"phase": "Running"}),
            json!({"deletionTimestamp": "2026-09-04T00:00:00Z",
                   "finalizers": ["ephemeralrunner.actions.github.com/runner-registration-finalizer"]}),
        ),
    ];
    for live in [false, true] {
        let mut census = Census::new(Layout::arc(), live);
        let key = census.upsert_set(set("runners", json!({})));
        for t in &texts {
            census.add_runner(&RunnerFacts::from_json(t).unwrap());
        }
        assert_eq!(census.running_and_pending(&key), (1, 0));
        let row = census.status(&key, None).unwrap();
        assert_eq!(row.state, State::RunnersFailed, "{:?}", row.reasons);
        assert_eq!(codes(&row.reasons), ["RunnersFailed", "FinalizersLeft"]);
        let StatusReason::RunnersFailed {
            runners,
            oldest,
            held,
            replicas,
        } = &row.reasons[0]
        else {
            unreachable!()
        };
        assert_eq!((runners.count, *held, *replicas), (2, 2, 3));
        let oldest = oldest.as_ref().unwrap();
        assert_eq!(oldest.name, "r-b", "the oldest, not the first seen");
        assert_eq!(oldest.failures, 2);
        let text = row.reasons[0].to_string();
        assert!(
            text.starts_with("2 runners in phase Failed (r-a, r-b); the oldest, r-b (created 2026-09-02T00:00:00Z), status.reason TooManyPodFailures: pod failed 6 times, 2 pod failures in status.failures; ARC counts failed runners toward spec.replicas 3 (scaleTotal), so it creates 2 fewer runners"),
            "{text}"
        );
        assert!(
            row.reasons[1]
                .to_string()
                .starts_with("EphemeralRunner arc/r-gone is being deleted (metadata.deletionTimestamp 2026-09-04T00:00:00Z) and held by metadata.finalizers ephemeralrunner.actions.github.com/runner-registration-finalizer (removed by the EphemeralRunner controller of ARC)"),
            "{}",
            row.reasons[1]
        );
    }
}

/// A set whose handshake is not settled-or-on-its-way keeps its state; the reasons are added.
/// Of several, the one that needs a person decides (ListenerFailing over RunnersFailed over
/// ListenerDown) and goes first.
#[test]
fn surroundings_escalate_only_a_handshake_state_and_the_gravest_wins() {
    let mut census = Census::new(Layout::arc(), false);
    let key = census.upsert_set(set("runners", json!({})));
    let down = StatusReason::NoListener {
        scale_set: "arc/runners".into(),
        running: 0,
        pending: 0,
    };
    let failing = StatusReason::ListenerPodNotRunning {
        pod: "arc-systems/l".into(),
        problem: PodProblem::CrashLoop {
            restarts: 3,
            last: None,
        },
    };
    census.set_around(&key, vec![down.clone()]);
    assert_eq!(
        census.status(&key, None).unwrap().state,
        State::ListenerDown
    );
    census.set_around(&key, vec![down.clone(), failing.clone()]);
    let row = census.status(&key, None).unwrap();
    assert_eq!(row.state, State::ListenerFailing);
    assert_eq!(codes(&row.reasons), ["ListenerPodNotRunning", "NoListener"]);
    census.set_around(&key, vec![]);
    assert_eq!(census.status(&key, None).unwrap().state, State::Synced);
    // Pending stays visible as a reason under the escalated state.
    let mut census = Census::new(Layout::arc(), false);
    let key = census.upsert_set(set(
        "runners",
        json!({"spec": {"replicas": 3, "actionableRevision": 2}}),
    ));
    census.set_around(&key, vec![failing.clone()]);
    let row = census.status(&key, None).unwrap();
    assert_eq!(row.state, State::ListenerFailing);
    assert!(
        codes(&row.reasons).contains(&"RevisionNotAcknowledged"),
        "{:?}",
        row.reasons
    );
    // Invalid (applied ahead) stays Invalid.
    let mut census = Census::new(Layout::arc(), false);
    let key = census.upsert_set(set(
        "runners",
        json!({"status": {"appliedActionableRevision": 5}}),
    ));
    census.set_around(&key, vec![failing]);
    let row = census.status(&key, None).unwrap();
    assert_eq!(row.state, State::Invalid);
    assert_eq!(
        codes(&row.reasons),
        ["AppliedAhead", "ListenerPodNotRunning"]
    );
}

/// Issue 33: the version check of the release that judges the scale set decides the state of its
/// newest set whatever the handshake, the hash or the listener say (ARC's `Reconcile` checks it
/// before anything but the deletion), and goes first; a set being deleted stays Deleting. A
/// scale set without a set is VersionRejected too, unless it is being deleted.
#[test]
fn the_version_check_of_the_judging_release_gives_the_set_a_state_of_its_own() {
    let rejected = |controller: Option<&str>| StatusReason::DeletedByVersionCheck {
        controller: controller.map(str::to_string),
        release: "0.13.1".into(),
        label: Some("0.14.2".into()),
        rule: crate::release::release("0.13.1")
            .unwrap()
            .version_check(Some("0.14.2"))
            .rule
            .to_string(),
    };
    let failing = StatusReason::ListenerPodNotRunning {
        pod: "arc-systems/l".into(),
        problem: PodProblem::CrashLoop {
            restarts: 3,
            last: None,
        },
    };
    for extra in [
        json!({}),
        json!({"spec": {"replicas": 3, "actionableRevision": 2}}),
        json!({"status": {"appliedActionableRevision": 5}}),
        json!({"status": {"appliedActionableRevision": 1, "phase": "Outdated"}}),
    ] {
        let mut census = Census::new(Layout::arc(), false);
        let key = census.upsert_set(set("runners", extra.clone()));
        census.set_around(
            &key,
            vec![
                failing.clone(),
                rejected(Some("arc-systems/arc-gha-rs-controller")),
            ],
        );
        let row = census.status(&key, None).unwrap();
        assert_eq!(
            row.state,
            State::VersionRejected,
            "{extra}: {:?}",
            row.reasons
        );
        assert_eq!(codes(&row.reasons)[0], "DeletedByVersionCheck");
        assert!(codes(&row.reasons).contains(&"ListenerPodNotRunning"));
        assert!(!row.settled());
    }
    let mut census = Census::new(Layout::arc(), false);
    let key = census.upsert_set(set(
        "runners",
        json!({"metadata": {"name": "runners", "namespace": "arc",
                            "deletionTimestamp": "2026-09-02T00:00:00Z"}}),
    ));
    census.set_around(&key, vec![rejected(None)]);
    let row = census.status(&key, None).unwrap();
    assert_eq!(row.state, State::Deleting, "{:?}", row.reasons);
    // Named by the flag, the release's controller is not said to run.
    let said = rejected(None).to_string();
    assert!(
        said.starts_with("ARC 0.13.1 (--arc-version), whose version check deletes this scale set once its controller runs: its app.kubernetes.io/version label 0.14.2 is not allowed (ARC 0.12.0 on keep"),
        "{said}"
    );
    let said = rejected(Some("arc-systems/c")).to_string();
    assert!(
        said.starts_with("controller Deployment arc-systems/c runs ARC 0.13.1, whose version check deletes this scale set: its app.kubernetes.io/version label 0.14.2 is not allowed"),
        "{said}"
    );
    // A scale set without a set: rejected before its registration, unless being deleted.
    let key = ("arc".to_string(), "runners".to_string());
    let check = rejected(None);
    let scale_set = WithoutSet {
        key: &key,
        spec_json: Some("{}"),
        scale_set_id: None,
        phase: Some("Outdated"),
        creation_timestamp: None,
        deletion: None,
        version_check: Some(&check),
        next: false,
    };
    let row = scale_set_without_set(Layout::arc(), scale_set, None);
    assert_eq!(row.state, State::VersionRejected);
    assert_eq!(codes(&row.reasons), ["DeletedByVersionCheck"]);
    let d = Deletion {
        since: None,
        finalizers: vec![],
    };
    let deleting = WithoutSet {
        deletion: Some(&d),
        ..scale_set
    };
    let row = scale_set_without_set(Layout::arc(), deleting, None);
    assert_eq!(row.state, State::Deleting);
}

/// A scale set being deleted without a set left is Deleting, its finalizer named.
#[test]
fn a_scale_set_stuck_in_deletion_without_sets_is_deleting_with_its_finalizer() {
    let d = Deletion {
        since: Some("2026-09-02T00:00:00Z".into()),
        finalizers: vec!["autoscalingrunnerset.actions.github.com/finalizer".into()],
    };
    let key = ("arc".to_string(), "runners".to_string());
    let scale_set = WithoutSet {
        key: &key,
        spec_json: Some("{}"),
        scale_set_id: Some("7"),
        phase: None,
        creation_timestamp: None,
        deletion: Some(&d),
        version_check: None,
        next: false,
    };
    let row = scale_set_without_set(Layout::arc(), scale_set, None);
    assert_eq!(row.state, State::Deleting);
    assert_eq!(codes(&row.reasons), ["ScaleSetDeleting", "FinalizersLeft"]);
    // ARC 0.14 gave up on it: phase Outdated, its sets deleted; still a row, Outdated.
    let outdated = WithoutSet {
        phase: Some("Outdated"),
        deletion: None,
        ..scale_set
    };
    let row = scale_set_without_set(Layout::arc(), outdated, None);
    assert_eq!(row.state, State::Outdated);
    assert_eq!(codes(&row.reasons), ["ScaleSetOutdated"]);
    assert!(
        row.reasons[0].to_string().contains("change-hash"),
        "{}",
        row.reasons[0]
    );
    // The next release counts a missing set as corrected (outdatedRunnerSpecCorrected, ARC
    // #4660): it makes the set again, so the row goes on as for any registered scale set.
    let row = scale_set_without_set(
        Layout::arc(),
        WithoutSet {
            next: true,
            ..outdated
        },
        None,
    );
    assert_ne!(row.state, State::Outdated, "{:?}", row.reasons);
    assert!(!codes(&row.reasons).contains(&"ScaleSetOutdated"));
}

/// Issue 30.10: a listener on an older image than the controller Deployment that makes it (both
/// charts upgraded, nothing made the listener again) is said, with the versions read from the
/// listener and the Deployment themselves; an equal or newer one, a controller that does not
/// reconcile the namespace and a version that is not one are not.
#[test]
fn a_listener_on_an_older_image_than_its_controller_is_behind_it() {
    use super::install::ControllerFacts;
    let deployment = |ns: &str, image: &str, label: &str, watch: Option<&str>| {
        let mut args = vec![json!("--auto-scaling-runner-set-only")];
        if let Some(w) = watch {
            args.push(json!(format!("--watch-single-namespace={w}")));
        }
        ControllerFacts::from_deployment(
            &json!({"metadata": {"namespace": ns, "name": "arc-gha-rs-controller",
                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller", "app.kubernetes.io/version": label}},
                "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "manager",
                    "image": image, "args": args,
                    "env": [{"name": "CONTROLLER_MANAGER_CONTAINER_IMAGE", "value": image}]}]}}}})
            .to_string(),
        )
        .unwrap()
    };
    let mut old = listener("runners-abc");
    old.image = Some("ghcr.io/actions/gha-runner-scale-set-controller:0.14.1".into());
    old.chart_version = Some("0.14.1".into());
    let new = deployment(
        "arc-systems",
        "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2",
        "0.14.2",
        None,
    );
    let controllers = vec![new.clone()];
    let c = controller_of(&controllers, "arc", Some("arc-systems")).unwrap();
    let said = behind_controller(&old, c).expect("said");
    assert_eq!(said.code(), "ListenerBehindController");
    assert_eq!(
        said.to_string(),
        "AutoscalingListener arc-systems/runners-754b578d-listener runs ARC 0.14.1 while controller Deployment arc-systems/arc-gha-rs-controller, which makes the listeners of this namespace, runs 0.14.2: an older controller made the listener, and ARC up to 0.14 makes a listener again only when its scale set's ListenerSpecHash() or values hash changes, not for a new image, so the old listener stays: delete it (kubectl delete autoscalinglistener -n arc-systems runners-754b578d-listener) and ARC makes it again with the controller's image (ARC #4572, #4513)"
    );
    // The controller's image, not its label (nor any release that judges the set), is what the
    // listener would run.
    let relabelled = deployment(
        "arc-systems",
        "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2",
        "0.14.1",
        None,
    );
    assert!(behind_controller(&old, &relabelled).is_some());
    // The same version, a newer listener, a digest-only listener with no label: nothing.
    assert!(behind_controller(&listener("runners-abc"), &new).is_none());
    let older_controller = deployment("arc-systems", "c:0.13.1", "0.13.1", None);
    assert!(behind_controller(&old, &older_controller).is_none());
    let mut digest = listener("runners-abc");
    digest.image = Some("ghcr.io/actions/gha-runner-scale-set-controller@sha256:ab".into());
    digest.chart_version = None;
    assert!(behind_controller(&digest, &new).is_none());
    // Its version label when its image names none.
    digest.chart_version = Some("0.13.1".into());
    assert!(behind_controller(&digest, &new).is_some());
    // A controller that watches another namespace makes no listener here.
    let elsewhere = vec![deployment(
        "arc-systems",
        "c:0.14.2",
        "0.14.2",
        Some("team-b"),
    )];
    assert!(controller_of(&elsewhere, "arc", Some("arc-systems")).is_none());
    // Of two, the one in the listener's namespace.
    let two = vec![deployment("other", "c:0.13.1", "0.13.1", None), new.clone()];
    assert_eq!(
        controller_of(&two, "arc", Some("arc-systems"))
            .unwrap()
            .name,
        "arc-systems/arc-gha-rs-controller"
    );
}

/// ARC's `scaleSetListenerName` as each tag names a listener (0.9.0 to 0.13.0: a hash of the
/// namespace; 0.13.1 on: of namespace, runner group and config URL), the rule chosen by the
/// controller's release, else the scale set's label, else both; every other listener of the scale
/// set is left behind, not being deleted ones.
#[test]
fn arcs_own_listener_is_found_by_its_name_and_the_others_are_orphaned() {
    use super::install::ControllerFacts;
    let url = "https://github.com/my-org";
    assert_eq!(
        scale_set_listener_name("arc-runner-set", "arc-runners", "", url, false),
        "arc-runner-set-754b578d-listener"
    );
    assert_eq!(
        scale_set_listener_name("arc-runner-set", "arc-runners", "", url, true),
        "arc-runner-set-56b4bcfc-listener"
    );
    assert_eq!(
        scale_set_listener_name("arc-runner-set", "arc-runners", "gpu", url, true),
        "arc-runner-set-6794bb98-listener"
    );
    let controller = |version: &str| ControllerFacts {
        name: "arc-systems/arc-gha-rs-controller".into(),
        version: Some(version.into()),
        watch_namespace: None,
        listener_image: None,
        image_tag: None,
    };
    let key = ("arc-runners", "arc-runner-set");
    let new = OwnListener::of(key, "", url, Some(&controller("0.14.2")), Some("0.9.3"));
    assert_eq!(new.names, ["arc-runner-set-56b4bcfc-listener"]);
    assert_eq!(new.namespace.as_deref(), Some("arc-systems"));
    let old = OwnListener::of(key, "", url, Some(&controller("0.13.0")), None);
    assert_eq!(old.names, ["arc-runner-set-754b578d-listener"]);
    let by_label = OwnListener::of(key, "", url, None, Some("0.12.1"));
    assert_eq!(by_label.names, ["arc-runner-set-754b578d-listener"]);
    assert_eq!(by_label.namespace, None);
    assert_eq!(OwnListener::of(key, "", url, None, None).names.len(), 2);
    let named = |ns: &str, name: &str, deleting: bool| {
        let mut l = listener("arc-runner-set-x");
        l.namespace = ns.into();
        l.name = name.into();
        l.deletion = deleting.then(Deletion::default);
        l
    };
    let listeners = [
        named("arc-systems", "arc-runner-set-56b4bcfc-listener", false),
        named("arc-systems", "arc-runner-set-754b578d-listener", false),
        named("arc-systems", "aaa-listener", true),
        named("old-systems", "arc-runner-set-56b4bcfc-listener", false),
    ];
    let orphans = orphaned_listeners(listeners.iter(), &new);
    assert_eq!(
        orphans
            .iter()
            .map(|r| match r {
                StatusReason::ListenerOrphaned { listener, expected } =>
                    (listener.as_str(), expected.as_str()),
                _ => unreachable!(),
            })
            .collect::<Vec<_>>(),
        [
            (
                "arc-systems/arc-runner-set-754b578d-listener",
                "arc-systems/arc-runner-set-56b4bcfc-listener"
            ),
            (
                "old-systems/arc-runner-set-56b4bcfc-listener",
                "arc-systems/arc-runner-set-56b4bcfc-listener"
            ),
        ]
    );
}

/// Every view read from an Object's parts gives what its whole text gives: listeners, Pods,
/// deletions and controllers, as ARC and the kubelet write them and malformed.
#[test]
fn views_from_an_objects_parts_are_the_views_of_its_text() {
    use crate::object::{Object, Origin};
    use crate::repair::listener::ControllerSeen;
    use crate::status::install::ControllerFacts;
    let cases = [
        json!({"metadata": {"name": "l", "namespace": "arc-systems",
            "labels": {"app.kubernetes.io/version": "0.14.1"},
            "annotations": {"actions.github.com/runner-spec-hash": "h"},
            "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["f"]},
            "spec": {"autoscalingRunnerSetNamespace": "ns", "autoscalingRunnerSetName": "a",
            "ephemeralRunnerSetName": "a-x", "image": "i", "phase": "Stopped"},
            "status": {"phase": "Running", "containerStatuses": [{"name": "listener",
            "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}],
            "conditions": [{"type": "PodScheduled", "status": "False", "message": "m"}]}}),
        json!({"metadata": {"name": "c", "namespace": "arc-systems",
            "labels": {"app.kubernetes.io/name": "gha-rs-controller",
            "app.kubernetes.io/version": "0.14.1"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "manager",
            "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.1",
            "args": ["--update-strategy=eventual"]}]}}},
            "status": {"readyReplicas": 1}}),
        json!({"metadata": {"name": 3}, "spec": [], "status": "x"}),
        json!({"metadata": "x"}),
        json!({"spec": {"image": 1}}),
        json!({}),
    ];
    let (mut controllers, mut deletions) = (0, 0);
    for case in cases {
        let o = Object::from_manifest(&case, Origin::Cluster, None);
        let text = o.json();
        controllers += usize::from(ControllerSeen::from_object(&o).is_some());
        deletions += usize::from(super::listener::deletion_of_object(&o).is_some());
        assert_eq!(
            ListenerFacts::from_object(&o),
            ListenerFacts::from_json(&text),
            "{case}"
        );
        assert_eq!(
            PodFacts::from_object(&o, "listener"),
            PodFacts::from_json(&text, "listener"),
            "{case}"
        );
        assert_eq!(
            super::listener::deletion_of_object(&o),
            super::listener::deletion_of(&text),
            "{case}"
        );
        assert_eq!(
            ControllerFacts::from_object(&o),
            ControllerFacts::from_deployment(&text),
            "{case}"
        );
        assert_eq!(
            ControllerSeen::from_object(&o),
            ControllerSeen::from_deployment(&text),
            "{case}"
        );
    }
    assert_eq!(
        (controllers, deletions),
        (1, 1),
        "the cases read a controller and a deletion"
    );
}
