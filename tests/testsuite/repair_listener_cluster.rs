//! Issue 34's tests of record for the listener repairs, on the real API server. Every object is
//! written as ARC 0.14.2 writes it (the scale sets, sets and controller Deployment of
//! `status_edges`; each listener as `newAutoScalingListener` makes it, its hash annotations the
//! scale set's `ListenerSpecHash()` and values hash unless the test makes them stale), the listener
//! Pods' statuses as a kubelet writes them, and the controller Deployment's ready replicas through
//! its status subresource. Then ARC's part after a delete is played by the test: the listener
//! controller removes its finalizer and the scale set controller makes the listener again
//! (`createAutoScalingListenerForRunnerSet`), the listener controller makes a Pod again.

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{exe, report};
use crate::status_edges::{CONFIG_URL, controller_deployment, listener_api, release, scale_set};

/// The listener of the scale set `ars` in `ctl`, for the set `points_at`, on `image` labelled
/// `version`; `spec_hash`: its `runner-spec-hash` annotation (the scale set's
/// `ListenerSpecHash()` when `None`).
async fn listener(
    client: &kube::Client,
    ctl: &str,
    ns: &str,
    ars: &Value,
    points_at: &str,
    (image, version): (&str, &str),
    spec_hash: Option<&str>,
) -> String {
    let scale_set = ars["metadata"]["name"].as_str().unwrap();
    let name = common::arc_listener_name(scale_set, ns, "");
    let spec = serde_json::to_string(&ars["spec"]).unwrap();
    let hash = kubectl_arc::core::spec_hash::listener_spec_hash(release(), &spec).unwrap();
    let l: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
        "metadata": {"name": name, "labels": {
                "actions.github.com/scale-set-namespace": ns,
                "actions.github.com/scale-set-name": scale_set,
                "actions.github.com/organization": "my-org",
                "app.kubernetes.io/part-of": "gha-runner-scale-set",
                "app.kubernetes.io/component": "runner-scale-set-listener",
                "app.kubernetes.io/version": version},
            "annotations": {"actions.github.com/runner-spec-hash": spec_hash.unwrap_or(&hash),
                            "actions.github.com/values-hash": "3f9c2ab1"},
            "finalizers": ["autoscalinglistener.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": CONFIG_URL, "githubConfigSecret": "gh-secret",
                 "runnerScaleSetId": 7, "autoscalingRunnerSetNamespace": ns,
                 "autoscalingRunnerSetName": scale_set, "ephemeralRunnerSetName": points_at,
                 "maxRunners": 5, "minRunners": 0, "image": image}
    }))
    .unwrap();
    listener_api(client, ctl)
        .create(&PostParams::default(), &l)
        .await
        .unwrap();
    name
}

/// The listener's Pod as `newScaleSetListenerPod` makes it, the listener template's
/// `restartPolicy: Always` (a crash loop needs it), `status` written as a kubelet writes it.
async fn listener_pod(client: &kube::Client, ctl: &str, name: &str, status: Value) {
    let pod = json!({
        "metadata": {"name": name, "labels": {
            "app.kubernetes.io/component": "runner-scale-set-listener",
            "app.kubernetes.io/part-of": "gha-runner-scale-set"}},
        "spec": {"serviceAccountName": "listener", "automountServiceAccountToken": false,
                 "restartPolicy": "Always", "nodeName": "node-1",
                 "containers": [{"name": "listener",
                                 "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2",
                                 "command": ["/ghalistener"]}]}
    });
    common::create_pod_with_status(client, ctl, pod, status).await;
}

fn waiting(reason: &str, restarts: i64) -> Value {
    json!({"phase": if restarts > 0 { "Running" } else { "Pending" },
           "containerStatuses": [{"name": "listener", "ready": false, "restartCount": restarts,
               "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2", "imageID": "",
               "state": {"waiting": {"reason": reason, "message": "back-off"}},
               "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}}]})
}

fn running() -> Value {
    json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
           "containerStatuses": [{"name": "listener", "ready": true, "restartCount": 0,
               "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2", "imageID": "",
               "state": {"running": {"startedAt": "2026-12-01T00:00:00Z"}}}]})
}

/// Every (reason, message) status gives the namespace's rows.
fn status_reasons(kc: &str, ns: &str) -> Vec<(String, String)> {
    let (code, out, err) = exe(&["status", "--kubeconfig", kc, "-n", ns, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    (report(&out)["items"].as_array().unwrap().iter())
        .flat_map(|i| i["reasons"].as_array().cloned().unwrap_or_default())
        .map(|r| {
            (
                r["reason"].as_str().unwrap().to_string(),
                r["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `repair` as JSON: (code, report).
fn repair(kc: &str, ns: &str, extra: &[&str]) -> (i32, Value) {
    let mut argv = vec!["repair", "--kubeconfig", kc, "-n", ns, "-o", "json"];
    argv.extend_from_slice(extra);
    let (code, out, err) = exe(&argv);
    assert!(err.is_empty() || code == 0, "{err}");
    (code, report(&out))
}

/// (repair, action, object name, result) of every repair of the report, sorted.
fn results(r: &Value) -> Vec<(String, String, String, String)> {
    let mut v: Vec<_> = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        .map(|x| {
            let s = |v: &Value| v.as_str().unwrap().to_string();
            (
                s(&x["repair"]),
                s(&x["action"]),
                s(&x["object"]["name"]),
                s(&x["result"]),
            )
        })
        .collect();
    v.sort();
    v
}

fn why<'a>(r: &'a Value, name: &str) -> &'a str {
    (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap())
        .find(|x| x["object"]["name"] == name)
        .and_then(|x| x["why"].as_str())
        .unwrap_or_else(|| panic!("no refusal of {name} in {r:#}"))
}

/// The resourceVersions of the listeners and Pods of `ctl`: what a dry run must leave.
async fn versions(client: &kube::Client, ctl: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    for l in listener_api(client, ctl)
        .list(&Default::default())
        .await
        .unwrap()
    {
        v.push((
            l.metadata.name.unwrap(),
            l.metadata.resource_version.unwrap(),
        ));
    }
    for p in Api::<Pod>::namespaced(client.clone(), ctl)
        .list(&Default::default())
        .await
        .unwrap()
    {
        v.push((
            p.metadata.name.unwrap(),
            p.metadata.resource_version.unwrap(),
        ));
    }
    v.sort();
    v
}

/// ARC's part after a listener is deleted: its controller removes the finalizer, and the scale
/// set controller makes it again for the newest set with the scale set's hashes.
async fn arc_makes_it_again(
    client: &kube::Client,
    ctl: &str,
    ns: &str,
    ars: &Value,
    set: &str,
) -> DynamicObject {
    let name = common::arc_listener_name(ars["metadata"]["name"].as_str().unwrap(), ns, "");
    let api = listener_api(client, ctl);
    let gone = api.get(&name).await.unwrap();
    let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    api.patch(&name, &PatchParams::default(), &release)
        .await
        .unwrap();
    let image = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2";
    listener(client, ctl, ns, ars, set, (image, "0.14.2"), None).await;
    gone
}

/// Each listener reason on its own scale set, under a 0.14.2 controller: refused while no
/// controller runs; `--dry-run=server` writes nothing; `repair` annotates and deletes the stale
/// listener, the one for another set and the one on another version than its chart, and the
/// crash-looping listener Pod, never the Pod that cannot pull its image; once ARC has made them
/// again, `status` no longer gives the reasons.
#[tokio::test(flavor = "multi_thread")]
async fn listeners_are_deleted_where_a_running_controller_makes_them_again() {
    let kubeconfig = common::legacy_kubeconfig();
    let kc = kubeconfig.to_str().unwrap().to_string();
    let client = common::client(&kubeconfig).await;
    let ns = common::namespace(&client, "arc-repair-listener").await;
    let ctl = common::namespace(&client, "arc-repair-listener-ctl").await;
    let image = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2";
    common::create_service_account(&client, &ctl, "listener").await;
    let mut made = Vec::new();
    for name in ["stale", "other", "mismatch", "crashing", "pulling"] {
        made.push(scale_set(&client, &ns, name, "0.14.2", Some("Running")).await);
    }
    let set_of = |i: usize| made[i].1.metadata.name.clone().unwrap();
    let stale = listener(
        &client,
        &ctl,
        &ns,
        &made[0].0,
        &set_of(0),
        (image, "0.14.2"),
        Some("5d8f9c7b6"),
    )
    .await;
    let other = listener(
        &client,
        &ctl,
        &ns,
        &made[1].0,
        "other-gone",
        (image, "0.14.2"),
        None,
    )
    .await;
    let old = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.1";
    let mismatch = listener(
        &client,
        &ctl,
        &ns,
        &made[2].0,
        &set_of(2),
        (old, "0.14.2"),
        None,
    )
    .await;
    let crashing = listener(
        &client,
        &ctl,
        &ns,
        &made[3].0,
        &set_of(3),
        (image, "0.14.2"),
        None,
    )
    .await;
    listener_pod(&client, &ctl, &crashing, waiting("CrashLoopBackOff", 7)).await;
    let pulling = listener(
        &client,
        &ctl,
        &ns,
        &made[4].0,
        &set_of(4),
        (image, "0.14.2"),
        None,
    )
    .await;
    listener_pod(&client, &ctl, &pulling, waiting("ImagePullBackOff", 0)).await;
    for l in [&stale, &other, &mismatch] {
        listener_pod(&client, &ctl, l, running()).await;
    }
    let controller = common::controller::ControllerDeployment::create(
        &kubeconfig,
        &client,
        &ctl,
        &controller_deployment("0.14.2"),
    )
    .await;

    // status gives each reason, naming this command.
    let said = status_reasons(&kc, &ns);
    for code in [
        "ListenerHashStale",
        "ListenerForOtherSet",
        "ListenerVersionMismatch",
        "ListenerPodNotRunning",
    ] {
        let m = (said.iter().find(|(c, _)| c == code))
            .unwrap_or_else(|| panic!("no {code} in {said:#?}"));
        if code != "ListenerPodNotRunning" || m.1.contains("CrashLoopBackOff") {
            assert!(m.1.contains("`kubectl arc repair`"), "{m:?}");
        }
    }

    // The controller Deployment has no ready replica yet: nothing would make them again.
    let before = versions(&client, &ctl).await;
    let (code, r) = repair(&kc, &ns, &["--dry-run=server"]);
    assert_eq!(code, 0, "{r:#}");
    assert!(why(&r, &stale).contains("is not running"), "{r:#}");
    assert!(why(&r, &crashing).contains("is not running"), "{r:#}");
    controller
        .api(&client)
        .patch_status(
            &controller.name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 1, "readyReplicas": 1}})),
        )
        .await
        .unwrap();

    let want = |result: &str| {
        let mut v: Vec<(String, String, String, String)> = [
            ("ListenerHashStale", "DeleteListener", &stale, result),
            ("ListenerForOtherSet", "DeleteListener", &other, result),
            (
                "ListenerVersionMismatch",
                "DeleteListener",
                &mismatch,
                result,
            ),
            (
                "ListenerPodNotRunning",
                "DeleteListenerPod",
                &crashing,
                result,
            ),
            (
                "ListenerPodNotRunning",
                "DeleteListenerPod",
                &pulling,
                "Refused",
            ),
        ]
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
        v.sort();
        v
    };
    let (code, r) = repair(&kc, &ns, &["--dry-run=server"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(results(&r), want("WouldWrite"), "{r:#}");
    assert!(why(&r, &pulling).contains("same image pull error"), "{r:#}");
    assert_eq!(
        versions(&client, &ctl).await,
        before,
        "the dry runs wrote nothing"
    );

    // From a dump of both namespaces (the controller Deployment in it): the same decisions.
    let dir = common::scratch_dir("repair-listener");
    let dump = dir.join("dump.yaml");
    let get = crate::impact_cluster::kubectl_get;
    let text = [
        get(
            &kubeconfig,
            &ns,
            "autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners",
        ),
        get(&kubeconfig, &ctl, "autoscalinglisteners,pods,deployments"),
    ]
    .join("---\n");
    std::fs::write(&dump, text).unwrap();
    let (code, out, err) = exe(&[
        "repair",
        "-f",
        dump.to_str().unwrap(),
        "--dry-run=client",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(results(&report(&out)), want("WouldWrite"), "{out}");

    let (code, r) = repair(
        &kc,
        &ns,
        &["--request-id", "fix-34", "--reason", "listeners stuck"],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["requestId"], "fix-34");
    assert_eq!(results(&r), want("Written"), "{r:#}");
    let pods = Api::<Pod>::namespaced(client.clone(), &ctl);
    let deleted = pods.get(&crashing).await.unwrap();
    assert!(
        deleted.metadata.deletion_timestamp.is_some(),
        "the crash-looping Pod is deleted"
    );
    let a = deleted.metadata.annotations.unwrap_or_default();
    assert_eq!(
        a.get("kubectl-arc/repair-id").map(String::as_str),
        Some("fix-34")
    );
    let kept = pods.get(&pulling).await.unwrap();
    assert!(
        kept.metadata.deletion_timestamp.is_none(),
        "the Pod that cannot pull stays"
    );
    // The kubelet ends the graceful deletion of a bound Pod.
    pods.delete(
        &crashing,
        &DeleteParams {
            grace_period_seconds: Some(0),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    // The deleted listeners hang on their finalizer while their Pods run: the controller runs
    // and removes it once they are gone, so ARC is doing it and repair leaves them.
    let (code, r) = repair(&kc, &ns, &["--dry-run=server"]);
    assert_eq!(code, 0, "{r:#}");
    let mut want: Vec<(String, String, String, String)> = [&stale, &other, &mismatch]
        .iter()
        .map(|l| {
            let s = |x: &str| x.to_string();
            (
                s("FinalizersLeft"),
                s("RemoveFinalizer"),
                l.to_string(),
                s("Refused"),
            )
        })
        .chain(std::iter::once((
            "ListenerPodNotRunning".to_string(),
            "DeleteListenerPod".to_string(),
            pulling.clone(),
            "Refused".to_string(),
        )))
        .collect();
    want.sort();
    assert_eq!(results(&r), want, "{r:#}");
    assert!(
        why(&r, &stale).contains("ARC removes the finalizers once they are gone"),
        "{r:#}"
    );

    // ARC's part: each deleted listener (held by its finalizer, annotated) made again.
    for (i, name) in [(0, &stale), (1, &other), (2, &mismatch)] {
        let gone = arc_makes_it_again(&client, &ctl, &ns, &made[i].0, &set_of(i)).await;
        assert!(gone.metadata.deletion_timestamp.is_some(), "{name} deleted");
        let a = gone.metadata.annotations.unwrap_or_default();
        assert_eq!(
            a.get("kubectl-arc/repair-id").map(String::as_str),
            Some("fix-34")
        );
        assert!(
            a.get("kubectl-arc/repair-reason")
                .unwrap()
                .ends_with(": listeners stuck"),
            "{a:?}"
        );
    }
    listener_pod(&client, &ctl, &crashing, running()).await;
    let said = status_reasons(&kc, &ns);
    let codes: Vec<&str> = said.iter().map(|(c, _)| c.as_str()).collect();
    for gone in [
        "ListenerHashStale",
        "ListenerForOtherSet",
        "ListenerVersionMismatch",
    ] {
        assert!(!codes.contains(&gone), "{said:#?}");
    }
    let not_running: Vec<&(String, String)> = said
        .iter()
        .filter(|(c, _)| c == "ListenerPodNotRunning")
        .collect();
    assert_eq!(
        not_running.len(),
        1,
        "only the Pod that cannot pull: {said:#?}"
    );
    assert!(not_running[0].1.contains("ImagePullBackOff"));
    drop(controller);
    for n in [&ns, &ctl] {
        let _ = Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
            .delete(n, &DeleteParams::default())
            .await;
    }
}
