use super::*;
use crate::bump::*;
use serde_json::{Value, json};

use crate::layout::Layout;
use crate::revision::Revisions;

fn set(spec_rev: Value, applied: Value, extra: Value) -> SetFacts {
    let mut obj = json!({
        "metadata": {"name": "runners", "namespace": "arc", "creationTimestamp": "2026-09-01T00:00:00Z"},
        "spec": {"actionableRevision": spec_rev, "ephemeralRunnerSpec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": "a"}]}}},
        "status": {"appliedActionableRevision": applied},
    });
    merge(&mut obj, extra);
    SetFacts::from_json(&obj.to_string()).unwrap()
}

fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (a, b) => *a = b,
    }
}

fn runner(name: &str, image: &str, status: Value) -> String {
    json!({
        "metadata": {"name": name, "namespace": "arc", "ownerReferences": [
            {"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet", "name": "runners", "uid": "u", "controller": true}
        ]},
        "spec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": image}]}},
        "status": status,
    })
    .to_string()
}

/// A set still decided by the integrity hash whose scale set's template loops is RecycleLoop,
/// with the fields named, and the annotation's flips counted while it is watched; the same
/// template written as Go writes it is not (issue 13).
#[test]
fn a_looping_template_on_a_legacy_set_is_a_recycle_loop_and_flips_are_counted() {
    let layout = Layout::arc();
    let legacy = |hash: &str| {
        set(
            json!(0),
            json!(0),
            // As ARC stored it: the template after Go's round trip (no env, cpu 1).
            json!({
                "metadata": {"annotations": {"actions.github.com/integrity-hash": hash}},
                "spec": {"ephemeralRunnerSpec": {"runnerScaleSetId": 1, "spec": {"containers": [
                    {"name": "runner", "image": "a", "resources": {"limits": {"cpu": "1"}}}
                ]}}}
            }),
        )
    };
    let desired = |template: &str| DesiredSpec {
        scale_set: "arc/runners".into(),
        spec_json: format!(
            r#"{{"githubConfigUrl":"https://github.com/o","template":{{"spec":{{"containers":[{{"name":"runner","image":"a"{template}}}]}}}}}}"#
        ),
        scale_set_id: Some("1".into()),
        unobserved: None,
    };
    let key = ("arc".to_string(), "runners".to_string());
    let mut census = Census::new(layout, true);
    census.upsert_set(legacy("aaaa"));
    census.set_desired(
        &key,
        Some(desired(
            r#","env":[],"resources":{"limits":{"cpu":"1000m"}}"#,
        )),
    );
    for hash in ["bbbb", "aaaa", "bbbb"] {
        census.upsert_set(legacy(hash));
    }
    let row = census.status(&key, None).unwrap();
    assert_eq!(row.state, State::RecycleLoop, "{:?}", row.reasons);
    assert_eq!(
        row.reasons[0],
        StatusReason::RecycleLoop {
            scale_set: "arc/runners".into(),
            paths: vec![
                "spec.containers[0].env".into(),
                "spec.containers[0].resources.limits.cpu".into()
            ],
            flips: 3,
        }
    );
    // Written as Go writes it: no loop; the set is only Legacy (migrate has not run).
    census.set_desired(
        &key,
        Some(desired(r#","resources":{"limits":{"cpu":"1"}}"#)),
    );
    assert_eq!(census.status(&key, None).unwrap().state, State::Legacy);
}

fn census_with(facts: SetFacts, runners: &[String], live: bool) -> SetStatus {
    let mut c = Census::new(Layout::arc(), live);
    let key = c.upsert_set(facts);
    for r in runners {
        c.add_runner(&RunnerFacts::from_json(r).unwrap());
    }
    c.status(&key, unix_seconds("2026-09-01T01:00:00Z"))
        .unwrap()
}

#[test]
fn every_state() {
    let synced = census_with(
        set(json!(2), json!(2), json!({})),
        &[
            runner("r1", "a", json!({"phase": "Running", "runnerId": 5})),
            runner(
                "r2",
                "old",
                json!({"phase": "Running", "jobId": "9", "runnerId": 6}),
            ),
        ],
        false,
    );
    assert_eq!(synced.state, State::Synced);
    assert_eq!(synced.runners.idle, 1);
    assert_eq!(synced.runners.busy, 1);
    assert_eq!(synced.runners.stale, 1, "a busy runner is counted");
    assert_eq!(synced.age_seconds, Some(3600));
    assert_eq!(
        synced.reasons,
        vec![StatusReason::RunnersBusy {
            runners: Examples {
                count: 1,
                names: vec!["r2".into()]
            }
        }]
    );

    let pending = census_with(set(json!(3), json!(2), json!({})), &[], false);
    assert_eq!(pending.state, State::Pending);
    assert_eq!(
        pending.reasons[0],
        StatusReason::RevisionNotAcknowledged {
            spec: 3,
            applied: 2
        }
    );

    let stale = census_with(
        set(json!(2), json!(2), json!({})),
        &[runner("r1", "old", json!({"phase": "Pending"}))],
        true,
    );
    assert_eq!(stale.state, State::Stale);
    assert_eq!(stale.runners.stale, 1);
    let codes: Vec<&str> = stale.reasons.iter().map(StatusReason::code).collect();
    assert_eq!(codes, ["StaleRunners", "RunnersUnregistered"]);

    let legacy = census_with(
        set(
            json!(0),
            json!(0),
            json!({"metadata": {"annotations": {"actions.github.com/integrity-hash": "x"}}}),
        ),
        &[],
        false,
    );
    assert_eq!(legacy.state, State::Legacy);

    let ahead = census_with(set(json!(2), json!(5), json!({})), &[], false);
    assert_eq!(ahead.state, State::Invalid);
    assert_eq!(
        ahead.reasons[0],
        StatusReason::AppliedAhead {
            spec: 2,
            applied: 5,
            next: 6
        }
    );

    let wrong_type = census_with(set(json!("five"), json!(1), json!({})), &[], false);
    assert_eq!(wrong_type.state, State::Invalid);
    assert_eq!(wrong_type.spec_revision, None);
    assert!(
        matches!(&wrong_type.reasons[0], StatusReason::SetUndecodable { error } if error.contains("not an integer")),
        "{wrong_type:?}"
    );
}

#[test]
fn live_runners_can_be_taken_back() {
    let mut c = Census::new(Layout::arc(), true);
    let key = c.upsert_set(set(json!(2), json!(2), json!({})));
    c.add_runner(
        &RunnerFacts::from_json(&runner("r1", "old", json!({"phase": "Running"}))).unwrap(),
    );
    assert_eq!(c.status(&key, None).unwrap().state, State::Stale);
    c.add_runner(
        &RunnerFacts::from_json(&runner(
            "r1",
            "old",
            json!({"phase": "Running", "jobId": "1"}),
        ))
        .unwrap(),
    );
    let s = c.status(&key, None).unwrap();
    assert_eq!(
        (s.state, s.runners.busy, s.runners.idle),
        (State::Synced, 1, 0)
    );
    c.remove_runner("arc", "r1");
    assert_eq!(
        c.status(&key, None).unwrap().runners,
        RunnerCounts::default()
    );
}

#[test]
fn revision_writer_comes_from_managed_fields() {
    let f = set(
        json!(4),
        json!(3),
        json!({"metadata": {"managedFields": [
            {"manager": "arc", "operation": "Update", "time": "2026-09-01T00:10:00Z", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
            {"manager": "kubectl-arc", "operation": "Update", "time": "2026-09-01T00:50:00Z", "fieldsV1": {"f:spec": {"f:actionableRevision": {}}}},
            {"manager": "ctl", "operation": "Update", "subresource": "status", "time": "2026-09-01T00:55:00Z", "fieldsV1": {"f:status": {}}}
        ]}}),
    );
    assert_eq!(f.revision_writer.as_ref().unwrap().manager, "kubectl-arc");
    let s = census_with(f, &[], false);
    assert!(
        s.reasons.iter().any(|r| *r
            == StatusReason::RevisionWrittenBy {
                manager: "kubectl-arc".into(),
                ago_seconds: Some(600)
            }),
        "{s:?}"
    );
}

#[test]
fn ages_like_kubectl() {
    let cases = [
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (125, "2m5s"),
        (600, "10m"),
        (3 * 3600, "3h"),
        (3 * 3600 + 60, "3h1m"),
        (47 * 3600, "47h"),
        (49 * 3600, "2d1h"),
        (10 * 86400, "10d"),
        (3 * 365 * 86400, "3y"),
    ];
    for (s, want) in cases {
        assert_eq!(human_duration(s), want, "{s}");
    }
}

#[test]
fn bump_is_max_plus_one_once_per_request() {
    let ers = json!({"metadata": {"annotations": {"kubectl-arc/recent-bumps": "old=3"}}, "spec": {"actionableRevision": 3}, "status": {"appliedActionableRevision": 5}});
    let req = BumpRequest {
        id: "abc",
        reason: Some("new image"),
        owner: None,
    };
    let BumpDecision::Write { new, patch, .. } = decide_bump(&ers, &req) else {
        panic!()
    };
    assert_eq!(new, 6);
    assert_eq!(
        patch["metadata"]["annotations"]["kubectl-arc/recent-bumps"],
        "old=3,abc=6"
    );
    assert_eq!(
        patch["metadata"]["annotations"]["kubectl-arc/bump-reason"],
        "new image"
    );
    let mut written = ers.clone();
    merge(&mut written, patch);
    assert_eq!(check_bump(&written, "abc", 6), Ok(()));
    assert!(check_bump(&ers, "abc", 6).is_err());
    assert_eq!(
        decide_bump(&written, &req),
        BumpDecision::AlreadyDone {
            before: Revisions {
                spec: 6,
                applied: 5
            },
            revision: 6
        }
    );
    let outdated = json!({"spec": {"actionableRevision": 1}, "status": {"phase": "Outdated"}});
    assert!(matches!(
        decide_bump(&outdated, &req),
        BumpDecision::Refuse {
            reason: BumpReason::Outdated,
            ..
        }
    ));
    let foreign = json!({"metadata": {"ownerReferences": [{"kind": "AutoscalingRunnerSet", "name": "x", "uid": "1", "controller": true}]}, "spec": {}});
    let owned = BumpRequest {
        owner: Some(("x", "2")),
        ..req
    };
    assert_eq!(
        decide_bump(&foreign, &owned),
        BumpDecision::Refuse {
            before: Some(Revisions::default()),
            reason: BumpReason::OwnerMismatch {
                scale_set: "x".into(),
                uid: "2".into(),
                found: Some(OwnerRef {
                    kind: Some("AutoscalingRunnerSet".into()),
                    name: Some("x".into()),
                    uid: Some("1".into()),
                }),
            },
        }
    );
    let owned = BumpRequest {
        owner: Some(("x", "1")),
        ..req
    };
    assert!(matches!(
        decide_bump(&foreign, &owned),
        BumpDecision::Write { new: 1, .. }
    ));
}

#[test]
fn recent_bumps_are_bounded() {
    let many: Vec<String> = (0..40).map(|i| format!("id{i}={i}")).collect();
    let ers = json!({"metadata": {"annotations": {"kubectl-arc/recent-bumps": many.join(",")}}, "spec": {"actionableRevision": 39}});
    let req = BumpRequest {
        id: "new",
        reason: None,
        owner: None,
    };
    let BumpDecision::Write { patch, .. } = decide_bump(&ers, &req) else {
        panic!()
    };
    let recent = patch["metadata"]["annotations"]["kubectl-arc/recent-bumps"]
        .as_str()
        .unwrap();
    assert_eq!(recent.split(',').count(), RECENT_BUMPS);
    assert!(recent.ends_with("new=40"));
    assert!(patch["metadata"]["annotations"]["kubectl-arc/bump-reason"].is_null());
}

/// Issue 22 (ARC #3821, #4595): the counts in the set's status against the runners listed, as
/// ARC's `updateStatus` counts them; a status without all four counts, or a set being deleted,
/// is not judged.
#[test]
fn status_counters_that_are_not_the_runners_listed_are_said() {
    let layout = Layout::arc();
    let counters = |current: i64, pending: i64, running: i64, failed: i64| {
        json!({"status": {"currentReplicas": current, "pendingEphemeralRunners": pending,
                          "runningEphemeralRunners": running, "failedEphemeralRunners": failed}})
    };
    let runners = [
        runner("idle", "a", json!({"phase": "Running"})),
        runner("busy", "a", json!({"phase": "Running", "jobRequestId": 7})),
        runner("new", "a", json!({})),
        runner("failed", "a", json!({"phase": "Failed"})),
        runner("done", "a", json!({"phase": "Succeeded"})),
        runner("old", "a", json!({"phase": "Outdated"})),
    ];
    let key = ("arc".to_string(), "runners".to_string());
    let row_of = |extra: Value| {
        let mut census = Census::new(layout, false);
        census.upsert_set(set(json!(1), json!(1), extra));
        for r in &runners {
            census.add_runner(&RunnerFacts::from_json(r).unwrap());
        }
        census.status(&key, None).unwrap()
    };
    // As ARC writes it: scaleTotal() = 1 pending + 2 running + 1 failed; Succeeded and Outdated
    // count in none.
    let agreeing = row_of(counters(4, 1, 2, 1));
    assert!(
        !agreeing
            .reasons
            .iter()
            .any(|r| r.code() == "CountersDisagree"),
        "{:?}",
        agreeing.reasons
    );
    // Counting two runners that are gone.
    let row = row_of(counters(6, 1, 4, 1));
    let said: Vec<String> = row
        .reasons
        .iter()
        .filter(|r| r.code() == "CountersDisagree")
        .map(ToString::to_string)
        .collect();
    assert_eq!(said.len(), 1, "{:?}", row.reasons);
    assert!(
        said[0].starts_with("status.currentReplicas is 6, the runners listed make 4; status.runningEphemeralRunners is 4, the runners listed make 2: "),
        "{}",
        said[0]
    );
    assert_eq!(row.state, agreeing.state, "it changes no state");
    // Not all four written, or the set being deleted: not judged.
    for extra in [json!({"status": {"currentReplicas": 9}}), {
        let mut c = counters(6, 1, 4, 1);
        merge(
            &mut c,
            json!({"metadata": {"deletionTimestamp": "2026-09-01T00:00:00Z"}}),
        );
        c
    }] {
        let row = row_of(extra);
        assert!(
            !row.reasons.iter().any(|r| r.code() == "CountersDisagree"),
            "{:?}",
            row.reasons
        );
    }
}

/// Issue 22: runners against their Pods (when read): one counted running without a Pod, one
/// pending whose Pod cannot be scheduled; a namespace whose Pods were not read says nothing.
#[test]
fn runners_without_their_pod_or_unschedulable_are_said_when_pods_were_read() {
    let layout = Layout::arc();
    let runners = [
        runner("ok", "a", json!({"phase": "Running"})),
        runner("gone", "a", json!({"phase": "Running", "jobRequestId": 3})),
        runner("stuck", "a", json!({"phase": "Pending"})),
        runner("starting", "a", json!({})),
    ];
    let key = ("arc".to_string(), "runners".to_string());
    let pods = |namespaces: Option<&[&str]>| RunnerPods {
        pods: [
            (("arc".to_string(), "ok".to_string()), None),
            (
                ("arc".to_string(), "stuck".to_string()),
                Some(
                    "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector"
                        .to_string(),
                ),
            ),
        ]
        .into_iter()
        .collect(),
        namespaces: namespaces.map(|n| n.iter().map(|s| s.to_string()).collect()),
    };
    let row_of = |pods: Option<RunnerPods>| {
        let mut census = Census::new(layout, false);
        census.upsert_set(set(json!(1), json!(1), json!({})));
        if let Some(p) = pods {
            census.set_runner_pods(p);
        }
        for r in &runners {
            census.add_runner(&RunnerFacts::from_json(r).unwrap());
        }
        census.status(&key, None).unwrap()
    };
    let row = row_of(Some(pods(None)));
    let said: Vec<(String, String)> = row
        .reasons
        .iter()
        .filter(|r| r.code().starts_with("RunnerPods") || r.code() == "RunnersUnschedulable")
        .map(|r| (r.code().to_string(), r.to_string()))
        .collect();
    assert_eq!(said.len(), 2, "{:?}", row.reasons);
    assert_eq!(said[0].0, "RunnerPodsMissing");
    assert!(
        said[0]
            .1
            .starts_with("1 runner in phase Running without a Pod (gone)"),
        "{}",
        said[0].1
    );
    assert_eq!(said[1].0, "RunnersUnschedulable");
    assert!(
        said[1].1.starts_with(
            "1 pending runner whose Pod cannot be scheduled (stuck): 0/3 nodes are available"
        ),
        "{}",
        said[1].1
    );
    for quiet in [None, Some(pods(Some(&["elsewhere"])))] {
        let row = row_of(quiet);
        assert!(
            !row.reasons
                .iter()
                .any(|r| r.code() == "RunnerPodsMissing" || r.code() == "RunnersUnschedulable"),
            "{:?}",
            row.reasons
        );
    }
    // A runner ARC counts running without a Pod is not a healthy set: RunnersNotRunning, the
    // reason first; a live census (--watch, --wait) judges its runners against the Pods it is
    // handed as a one-shot listing does: one state.
    assert_eq!(row.state, State::RunnersNotRunning, "{:?}", row.reasons);
    assert_eq!(row.reasons[0].code(), "RunnerPodsMissing");
    let mut live = Census::new(layout, true);
    live.set_runner_pods(pods(None));
    live.upsert_set(set(json!(1), json!(1), json!({})));
    for r in &runners {
        live.add_runner(&RunnerFacts::from_json(r).unwrap());
    }
    assert_eq!(live.status(&key, None).unwrap(), row);
}

/// Issue 30.11 and 30.12: a runner counted running whose Pod was made again and cannot be
/// scheduled (its node was lost), and one in ARC's failure back-off (status.failures, no Pod):
/// RunnersNotRunning, with the failure count, the last failure and the wait of
/// `failedRunnerBackoff`; more than `maxFailures` says that ARC deletes the runner; a pending
/// runner whose Pod cannot be scheduled alone changes no state.
#[test]
fn runners_counted_running_that_run_no_pod_are_runners_not_running() {
    let layout = Layout::arc();
    let key = ("arc".to_string(), "runners".to_string());
    let failures = |n: usize| {
        let mut m = serde_json::Map::new();
        for i in 0..n {
            m.insert(format!("uid-{i}"), json!(format!("2026-09-01T00:0{i}:00Z")));
        }
        Value::Object(m)
    };
    let unschedulable = Some("Unschedulable: 0/2 nodes are available".to_string());
    let row_of = |runners: &[String], pods: &[(&str, Option<String>)], now: i64| {
        let mut census = Census::new(layout, false);
        census.upsert_set(set(json!(1), json!(1), json!({})));
        census.set_runner_pods(RunnerPods {
            pods: pods
                .iter()
                .map(|(n, why)| (("arc".to_string(), n.to_string()), why.clone()))
                .collect(),
            namespaces: None,
        });
        for r in runners {
            census.add_runner(&RunnerFacts::from_json(r).unwrap());
        }
        census.status(&key, Some(now)).unwrap()
    };
    let at = |t: &str| unix_seconds(t).unwrap();
    // 11: Running, its Pod Pending and unschedulable.
    let lost = runner("lost", "a", json!({"phase": "Running", "ready": false}));
    let row = row_of(
        std::slice::from_ref(&lost),
        &[("lost", unschedulable.clone())],
        0,
    );
    assert_eq!(row.state, State::RunnersNotRunning, "{:?}", row.reasons);
    let text = row.reasons[0].to_string();
    assert_eq!(row.reasons[0].code(), "RunnersUnschedulable");
    assert!(
        text.starts_with("1 runner in phase Running whose Pod cannot be scheduled (lost): Unschedulable: 0/2 nodes are available; ARC counts a runner in phase Running as running though the Pod that ran is gone"),
        "{text}"
    );
    // A pending one alone is said and changes no state.
    let pending = runner("waits", "a", json!({"phase": "Pending"}));
    let row = row_of(&[pending], &[("waits", unschedulable.clone())], 0);
    assert_eq!(row.state, State::Synced, "{:?}", row.reasons);
    assert_eq!(row.reasons[0].code(), "RunnersUnschedulable");
    // 12: five failures, no Pod, phase Running: 80 s after the last failure.
    let backing = runner(
        "flaky",
        "a",
        json!({"phase": "Running", "failures": failures(5), "reason": "Evicted",
               "message": "The node was low on resource: memory."}),
    );
    let row = row_of(
        std::slice::from_ref(&backing),
        &[],
        at("2026-09-01T00:05:00Z"),
    );
    assert_eq!(row.state, State::RunnersNotRunning, "{:?}", row.reasons);
    assert_eq!(row.reasons[0].code(), "RunnersBackingOff");
    assert!(
        !row.reasons.iter().any(|r| r.code() == "RunnerPodsMissing"),
        "one reason per runner: {:?}",
        row.reasons
    );
    let text = row.reasons[0].to_string();
    assert!(
        text.starts_with("1 runner without a Pod in ARC's failure back-off (flaky): flaky has 5 failed Pods in status.failures, the last at 2026-09-01T00:04:00Z (Evicted: The node was low on resource: memory.); ARC's EphemeralRunner controller waits 80s after the last failure before it makes the Pod again (failedRunnerBackoff, ARC 0.12.0 to 0.14.2), 20s from now; after more than 5 failures (maxFailures) it deletes the runner"),
        "{text}"
    );
    // The wait over: said as such.
    let row = row_of(&[backing], &[], at("2026-09-01T00:10:00Z"));
    let text = row.reasons[0].to_string();
    assert!(text.contains("80s after the last failure before it makes the Pod again (failedRunnerBackoff, ARC 0.12.0 to 0.14.2): the wait ended 4m40s ago"), "{text}");
    // Six failures: ARC deletes the runner.
    let done = runner(
        "done",
        "a",
        json!({"phase": "Running", "failures": failures(6)}),
    );
    let text = row_of(&[done], &[], 0).reasons[0].to_string();
    assert!(
        text.contains("done has 6 failed Pods in status.failures, the last at 2026-09-01T00:05:00Z; that is more than maxFailures (5): ARC's EphemeralRunner controller deletes the runner on its next reconcile"),
        "{text}"
    );
    // ARC 0.9.0 to 0.11.0 record a failed Pod as `true` (map[string]bool), have no back-off and
    // make the Pod again at once: the Pod is missing, no wait is said.
    let untimed = runner(
        "old",
        "a",
        json!({"phase": "Running", "failures": {"uid-0": true, "uid-1": true}}),
    );
    let row = row_of(&[untimed], &[], at("2026-09-01T00:05:00Z"));
    let codes: Vec<&str> = row.reasons.iter().map(|r| r.code()).collect();
    assert_eq!(codes, ["RunnerPodsMissing"], "{:?}", row.reasons);
    assert_eq!(row.state, State::RunnersNotRunning, "{:?}", row.reasons);
    // Its Pod back and running: nothing said.
    let row = row_of(&[lost], &[("lost", None)], 0);
    assert_eq!(row.state, State::Synced, "{:?}", row.reasons);
}

fn codes(reasons: &[StatusReason]) -> Vec<&'static str> {
    reasons.iter().map(StatusReason::code).collect()
}

/// An Outdated runner made for `revision` (`None`: before ARC #4644, no annotation).
fn outdated_runner(name: &str, revision: Option<&str>) -> String {
    let mut r: Value =
        serde_json::from_str(&runner(name, "a", json!({"phase": "Outdated"}))).unwrap();
    if let Some(rev) = revision {
        r["metadata"]["annotations"] = json!({"actions.github.com/actionable-revision": rev});
    }
    r.to_string()
}

/// Issue 33, the next release: an AutoscalingRunnerSet whose latest generation is not observed
/// keeps a Synced set Pending (ARC #4636); under a released one it does not.
#[test]
fn under_next_an_unobserved_generation_keeps_a_synced_set_pending() {
    let key = ("arc".to_string(), "runners".to_string());
    for (next, want) in [(None, State::Synced), (Some(()), State::Pending)] {
        let mut c = Census::new(Layout::arc(), false);
        c.upsert_set(set(json!(2), json!(2), json!({})));
        c.set_next(
            &key,
            next.map(|_| NextSide {
                unobserved: crate::next::observed_generation_behind(Some(3), None),
                ..NextSide::default()
            }),
        );
        let row = c.status(&key, None).unwrap();
        assert_eq!(row.state, want, "{:?}", row.reasons);
        if next.is_some() {
            assert_eq!(codes(&row.reasons), ["ObservedGenerationBehind"]);
            assert!(row.reasons[0].to_string().contains("generation 3"));
        }
    }
}

/// Issue 33, the next release: an Outdated set is switched off, said with what leaves it (the
/// runner spec, not minRunners/maxRunners, ARC #4660); its Outdated runners made for a revision
/// older than the applied one are staleOutdated (ARC #4644) and not among those that hold it.
#[test]
fn under_next_an_outdated_set_is_switched_off_and_stale_outdated_runners_are_told_apart() {
    let key = ("arc".to_string(), "runners".to_string());
    let mut c = Census::new(Layout::arc(), false);
    c.upsert_set(set(
        json!(2),
        json!(2),
        json!({"status": {"phase": "Outdated"}}),
    ));
    c.set_next(
        &key,
        Some(NextSide {
            scale_set_phase: Some("Outdated".into()),
            listener_phase: Some("Stopped".into()),
            ..NextSide::default()
        }),
    );
    for (name, rev) in [
        ("r-old", Some("1")),
        ("r-legacy", None),
        ("r-now", Some("2")),
    ] {
        c.add_runner(&RunnerFacts::from_json(&outdated_runner(name, rev)).unwrap());
    }
    let row = c.status(&key, None).unwrap();
    assert_eq!(row.state, State::Outdated, "{:?}", row.reasons);
    assert_eq!(
        codes(&row.reasons),
        ["SwitchedOff", "RunnersOutdated", "RunnersStaleOutdated"]
    );
    let said: Vec<String> = row.reasons.iter().map(ToString::to_string).collect();
    assert!(
        said[0].contains("spec.phase Stopped") && said[0].contains("minRunners or maxRunners"),
        "{}",
        said[0]
    );
    assert!(
        said[1].starts_with("1 runner") && said[1].contains("r-now"),
        "{}",
        said[1]
    );
    assert!(
        said[2].starts_with(
            "2 runners in phase Outdated made for a revision older than the applied 2"
        ),
        "{}",
        said[2]
    );
    assert!(said[2].contains("r-legacy"), "{}", said[2]);
    // The same set judged by a released ARC: the Outdated reasons of before, every runner counted.
    c.set_next(&key, None);
    let row = c.status(&key, None).unwrap();
    assert_eq!(
        codes(&row.reasons),
        ["Outdated", "RunnersOutdated", "OutdatedExplanation"]
    );
}
