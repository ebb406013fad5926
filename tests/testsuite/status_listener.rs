//! Issue 22: what stops a scale set from scaling, against the real API server. Objects made as
//! ARC's controllers make them: AutoscalingListeners in a controller namespace of their own (the
//! labels, annotations and spec fields of `newAutoScalingListener`), the listener Pods with the
//! statuses a kubelet writes (through the pods/status subresource), failed EphemeralRunners (their
//! status subresource), and objects deleted while a finalizer holds them. `status` and
//! `status NAME` in table and JSON, and under deploy/rbac.yaml's read role with and without the
//! listener reads (a read it lacks is a warning said once).

use crate::common;
use crate::common::{runner_spec, scale_set};

use crate::common::cli::{args, in_process_async, report};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};

fn listener_api(client: &kube::Client, ns: &str) -> Api<DynamicObject> {
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("actions.github.com", "v1alpha1", "AutoscalingListener"),
        "autoscalinglisteners",
    );
    Api::namespaced_with(client.clone(), ns, &ar)
}

/// The listener of scale set `ns/scale_set` in the controller namespace `ctl`, serving the set
/// `points_at`, as `newAutoScalingListener` writes it.
async fn listener(
    client: &kube::Client,
    ctl: &str,
    ns: &str,
    scale_set: &str,
    points_at: &str,
) -> String {
    let name = common::arc_listener_name(scale_set, ns, "");
    let l: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
        "metadata": {"name": name, "labels": {
                "actions.github.com/scale-set-namespace": ns,
                "actions.github.com/scale-set-name": scale_set,
                "app.kubernetes.io/part-of": "gha-runner-scale-set",
                "app.kubernetes.io/component": "runner-scale-set-listener",
                "app.kubernetes.io/version": "0.14.2"},
            "annotations": {"actions.github.com/runner-spec-hash": "5d8f9c7b6"},
            "finalizers": ["autoscalinglistener.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "runnerScaleSetId": 1, "autoscalingRunnerSetNamespace": ns,
                 "autoscalingRunnerSetName": scale_set, "ephemeralRunnerSetName": points_at,
                 "maxRunners": 2147483647, "minRunners": 0,
                 "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2"}
    }))
    .unwrap();
    listener_api(client, ctl)
        .create(&PostParams::default(), &l)
        .await
        .unwrap();
    name
}

/// The listener's Pod (name and labels of `newScaleSetListenerPod`, its own service account), with
/// `status` written through pods/status as a kubelet writes it.
async fn listener_pod(client: &kube::Client, ctl: &str, ns: &str, name: &str, status: Value) {
    common::create_service_account(client, ctl, name).await;
    let pod = json!({
        "metadata": {"name": name, "labels": {
            "actions.github.com/scale-set-namespace": ns,
            "app.kubernetes.io/component": "runner-scale-set-listener",
            "app.kubernetes.io/part-of": "gha-runner-scale-set"}},
        "spec": {"serviceAccountName": name, "automountServiceAccountToken": false,
                 "restartPolicy": "Never", "nodeName": "node-1",
                 "containers": [{"name": "listener",
                                 "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2",
                                 "command": ["/ghalistener"]}]}
    });
    common::create_pod_with_status(client, ctl, pod, status).await;
}

fn running() -> Value {
    json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
           "containerStatuses": [{"name": "listener", "ready": true, "restartCount": 0,
               "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2", "imageID": "",
               "state": {"running": {"startedAt": "2026-09-01T00:00:00Z"}}}]})
}

fn waiting(reason: &str, message: &str, restarts: i64) -> Value {
    json!({"phase": if restarts > 0 { "Running" } else { "Pending" },
           "containerStatuses": [{"name": "listener", "ready": false, "restartCount": restarts,
               "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2", "imageID": "",
               "state": {"waiting": {"reason": reason, "message": message}},
               "lastState": if restarts > 0 { json!({"terminated": {"exitCode": 1, "reason": "Error"}}) } else { json!({}) }}]})
}

/// A failed runner of the set `set`, as ARC's EphemeralRunner controller marks it (`markAsFailed`).
async fn failed_runner(client: &kube::Client, ns: &str, set: &DynamicObject, name: &str) {
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": name, "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": set.metadata.name, "uid": set.metadata.uid, "controller": true, "blockOwnerDeletion": true}]},
        "spec": runner_spec("img:1"),
    }))
    .unwrap();
    let api = common::runner_api(client, ns);
    api.create(&PostParams::default(), &runner).await.unwrap();
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(
            json!({"status": {"phase": "Failed", "reason": "TooManyPodFailures",
            "message": "Pod has failed to start more than 5 times",
            "failures": {"u1": "2026-09-01T00:00:00Z", "u2": "2026-09-01T00:01:00Z"}}}),
        ),
    )
    .await
    .unwrap();
}

async fn status(kc: &str, ns: &str, extra: &[&str]) -> (u8, String, String) {
    let mut argv = vec!["status", "--kubeconfig", kc, "-n", ns];
    argv.extend_from_slice(extra);
    in_process_async(args(&argv)).await
}

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {r:#}"))
}

fn codes(item: &Value) -> Vec<&str> {
    item["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect()
}

fn message<'a>(item: &'a Value, code: &str) -> &'a str {
    item["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reason"] == code)
        .unwrap_or_else(|| panic!("no {code} in {item:#}"))["message"]
        .as_str()
        .unwrap()
}

fn table_state<'a>(table: &'a str, name: &str) -> &'a str {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|c| c.first() == Some(&name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))[3]
}

/// One scale set of each listener state, failed runners, an EphemeralRunnerSet and a scale set
/// held in deletion by their finalizers; then the same under the read role.
#[tokio::test(flavor = "multi_thread")]
async fn status_finds_the_listener_failed_runners_and_finalizers() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-listen").await;
    let ctl = common::namespace(&client, "arc-systems").await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    // ARC's own names of the listeners (`scaleSetListenerName`).
    let crashing_l = common::arc_listener_name("crashing", &ns, "");
    let pointing_l = common::arc_listener_name("pointing", &ns, "");

    // healthy: a running listener for its set. nolistener: none (the other listeners of the
    // namespace say that a controller serves it).
    for (name, replicas) in [
        ("healthy", 0),
        ("nolistener", 0),
        ("crashing", 0),
        ("pulling", 0),
        ("pointing", 0),
        ("failing", 3),
    ] {
        scale_set(&client, &ns, name, replicas).await;
    }
    let l = listener(&client, &ctl, &ns, "healthy", "healthy").await;
    listener_pod(&client, &ctl, &ns, &l, running()).await;
    let l = listener(&client, &ctl, &ns, "crashing", "crashing").await;
    listener_pod(
        &client,
        &ctl,
        &ns,
        &l,
        waiting(
            "CrashLoopBackOff",
            "back-off 5m0s restarting failed container=listener",
            7,
        ),
    )
    .await;
    let l = listener(&client, &ctl, &ns, "pulling", "pulling").await;
    listener_pod(
        &client,
        &ctl,
        &ns,
        &l,
        waiting(
            "ImagePullBackOff",
            "Back-off pulling image \"ghcr.io/actions/gha-runner-scale-set-controller:0.14.2\"",
            0,
        ),
    )
    .await;
    // pointing: its listener names a set that does not exist (ARC #4561).
    let l = listener(&client, &ctl, &ns, "pointing", "pointing-x7k2p").await;
    listener_pod(&client, &ctl, &ns, &l, running()).await;
    // failing: 2 of its 3 replicas are failed runners.
    let l = listener(&client, &ctl, &ns, "failing", "failing").await;
    listener_pod(&client, &ctl, &ns, &l, running()).await;
    let set = common::ers_api(&client, &ns).get("failing").await.unwrap();
    failed_runner(&client, &ns, &set, "failing-runner-a").await;
    failed_runner(&client, &ns, &set, "failing-runner-b").await;
    // stuck: a set deleted while ARC's finalizer is on it (no controller runs to remove it).
    let mut stuck = common::ers_object("stuck", runner_spec("img:1"));
    stuck.metadata.finalizers = Some(vec!["ephemeralrunner.actions.github.com/finalizer".into()]);
    common::ers_api(&client, &ns)
        .create(&PostParams::default(), &stuck)
        .await
        .unwrap();
    common::ers_api(&client, &ns)
        .delete("stuck", &DeleteParams::default())
        .await
        .unwrap();
    // going: a scale set with no set left, deleted while its finalizer is on it (ARC #4484).
    let going: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "going", "annotations": {"runner-scale-set-id": "1"},
                     "finalizers": ["autoscalingrunnerset.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": runner_spec("img:1")["spec"]}}
    }))
    .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &going)
        .await
        .unwrap();
    common::ars_api(&client, &ns)
        .delete("going", &DeleteParams::default())
        .await
        .unwrap();

    // JSON.
    let (code, out, err) = status(&kc, &ns, &["-o", "json"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.is_empty(), "the admin reads everything: {err}");
    let r = report(&out);
    let healthy = item(&r, "healthy");
    assert_eq!(healthy["state"], "Synced", "{healthy:#}");
    assert_eq!(codes(healthy), Vec::<&str>::new(), "{healthy:#}");

    let none = item(&r, "nolistener");
    assert_eq!(none["state"], "ListenerDown", "{none:#}");
    assert_eq!(codes(none), ["NoListener"]);
    assert!(
        message(none, "NoListener").starts_with(&format!(
            "no AutoscalingListener has spec.autoscalingRunnerSetName {ns}/nolistener"
        )),
        "{none:#}"
    );

    let crashing = item(&r, "crashing");
    assert_eq!(crashing["state"], "ListenerFailing", "{crashing:#}");
    assert_eq!(codes(crashing), ["ListenerPodNotRunning"]);
    assert!(
        message(crashing, "ListenerPodNotRunning").starts_with(&format!(
            "listener Pod {ctl}/{crashing_l} is not running: CrashLoopBackOff after 7 restarts (last terminated: Error)"
        )),
        "{crashing:#}"
    );

    let pulling = item(&r, "pulling");
    assert_eq!(pulling["state"], "ListenerFailing", "{pulling:#}");
    assert!(
        message(pulling, "ListenerPodNotRunning").contains(
            "is not running: ImagePullBackOff (Back-off pulling image \"ghcr.io/actions/gha-runner-scale-set-controller:0.14.2\")"
        ),
        "{pulling:#}"
    );

    let pointing = item(&r, "pointing");
    assert_eq!(codes(pointing), ["ListenerForOtherSet"]);
    assert!(
        message(pointing, "ListenerForOtherSet").starts_with(&format!(
            "AutoscalingListener {ctl}/{pointing_l} spec.ephemeralRunnerSetName is pointing-x7k2p, which does not exist (the newest set is pointing)"
        )),
        "{pointing:#}"
    );
    // A revision-era set: ARC after 0.14 compares the listener's whole spec and makes it again.
    assert_eq!(pointing["state"], "ListenerDown", "{pointing:#}");

    let failing = item(&r, "failing");
    assert_eq!(failing["state"], "RunnersFailed", "{failing:#}");
    assert_eq!(failing["runners"]["failed"], 2);
    let why = message(failing, "RunnersFailed");
    assert!(
        why.starts_with("2 runners in phase Failed (failing-runner-a, failing-runner-b); the oldest, failing-runner-a (created "),
        "{why}"
    );
    assert!(
        why.contains("status.reason TooManyPodFailures: Pod has failed to start more than 5 times, 2 pod failures in status.failures; ARC counts failed runners toward spec.replicas 3 (scaleTotal), so it creates 2 fewer runners"),
        "{why}"
    );

    let stuck = item(&r, "stuck");
    assert_eq!(stuck["state"], "Deleting", "{stuck:#}");
    assert_eq!(codes(stuck), ["Deleting", "FinalizersLeft"]);
    assert!(
        message(stuck, "FinalizersLeft").contains(&format!(
            "EphemeralRunnerSet {ns}/stuck is being deleted (metadata.deletionTimestamp "
        )) && message(stuck, "FinalizersLeft").contains(
            "held by metadata.finalizers ephemeralrunner.actions.github.com/finalizer (removed by the EphemeralRunnerSet controller of ARC)"
        ),
        "{stuck:#}"
    );

    let going = item(&r, "going");
    assert_eq!(going["state"], "Deleting", "{going:#}");
    assert_eq!(codes(going), ["ScaleSetDeleting", "FinalizersLeft"]);
    assert!(
        message(going, "FinalizersLeft").contains(
            "autoscalingrunnerset.actions.github.com/finalizer (removed by the AutoscalingRunnerSet controller of ARC)"
        ),
        "{going:#}"
    );

    // The table, and `status NAME` with the reasons under it.
    let (code, table, _) = status(&kc, &ns, &[]).await;
    assert_eq!(code, 0);
    for (name, state) in [
        ("healthy", "Synced"),
        ("nolistener", "ListenerDown"),
        ("crashing", "ListenerFailing"),
        ("pulling", "ListenerFailing"),
        ("pointing", "ListenerDown"),
        ("failing", "RunnersFailed"),
        ("stuck", "Deleting"),
        ("going", "Deleting"),
    ] {
        assert_eq!(table_state(&table, name), state, "{table}");
    }
    // `status NAME`: the whole chain, as kubectl describe shows it, the reasons last.
    let (code, named, _) = status(&kc, &ns, &["crashing"]).await;
    assert_eq!(code, 0);
    let chain = named
        .split_once(&format!(
            "EphemeralRunnerSet {ns}/crashing: ListenerFailing (spec revision 1, applied 1)\n"
        ))
        .unwrap_or_else(|| panic!("{named}"))
        .1;
    let lines: Vec<&str> = chain.lines().collect();
    assert_eq!(
        lines,
        [
            format!("  Scale set:    AutoscalingRunnerSet {ns}/crashing (runner-scale-set-id 1, phase <none>)").as_str(),
            "  Older sets:   <none>",
            format!("  Listener:     AutoscalingListener {ctl}/{crashing_l}, for crashing, image ghcr.io/actions/gha-runner-scale-set-controller:0.14.2").as_str(),
            format!("  Listener Pod: {ctl}/{crashing_l}: Running, waiting (CrashLoopBackOff), 7 restarts").as_str(),
            "  Runners:      0 idle, 0 busy, 0 pending, 0 failed",
            "  Controller:   <none found>",
            "  Reasons:",
            format!("  - listener Pod {ctl}/{crashing_l} is not running: CrashLoopBackOff after 7 restarts (last terminated: Error); read its log (kubectl logs -n {ctl} {crashing_l} --previous): a GitHub App or token the listener cannot use, a scale set GitHub no longer knows (ARC #4370), or a listener image that does not match the controller (ARC #4572); `kubectl arc repair` deletes the Pod so that ARC makes one that starts without the kubelet's back-off").as_str(),
        ][..],
        "{named}"
    );
    let (_, wide, _) = status(&kc, &ns, &["-o", "wide"]).await;
    let line = wide.lines().find(|l| l.starts_with("failing ")).unwrap();
    assert!(line.contains("2 runners in phase Failed"), "{wide}");

    // --wait: a state only a person ends fails at once; one ARC ends by itself is waited for.
    let (code, _, err) = status(&kc, &ns, &["crashing", "--wait", "--timeout", "60s"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "waiting cannot help: {ns}/crashing is ListenerFailing"
        )),
        "{err}"
    );
    let (code, _, err) = status(&kc, &ns, &["failing", "--wait", "--timeout", "60s"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is RunnersFailed"), "{err}");
    let (code, _, err) = status(&kc, &ns, &["nolistener", "--wait", "--timeout", "2s"]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("timed out after 2s"), "{err}");

    // The read role of deploy/rbac.yaml, bound cluster-wide: the same verdicts.
    roles(&client, &ns).await;
    let (code, out, err) = status(&kc, &ns, &["-o", "json", "--as", &format!("reader-{ns}")]).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let r = report(&out);
    assert_eq!(item(&r, "crashing")["state"], "ListenerFailing");
    assert_eq!(item(&r, "nolistener")["state"], "ListenerDown");
    // Without the listener reads (the role as it was before them): said once, never fatal, and
    // the sets read as before, no listener reason guessed.
    let (code, out, err) = status(
        &kc,
        &ns,
        &["-o", "json", "--as", &format!("old-reader-{ns}")],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            format!("warning: cannot list pods in namespace {ns}: the role lacks list on them (the runner Pod checks are skipped; deploy/rbac.yaml's kubectl-arc-read grants it)"),
            "warning: cannot list autoscalinglisteners.actions.github.com in all namespaces: the role lacks list on them (the listener checks are skipped; deploy/rbac.yaml's kubectl-arc-read grants it)".to_string(),
            "warning: cannot list deployments in all namespaces: the role lacks list on them (the controller's version is not checked against the CRDs; deploy/rbac.yaml's kubectl-arc-read grants it)".to_string()
        ],
        "{err}"
    );
    let r = report(&out);
    for name in ["healthy", "nolistener", "crashing", "pulling", "pointing"] {
        assert_eq!(item(&r, name)["state"], "Synced", "{name}: {r:#}");
    }
    assert_eq!(item(&r, "failing")["state"], "RunnersFailed");
    // Listeners but not Pods: the Pod read is said once, the listener checks stay.
    let (code, out, err) =
        status(&kc, &ns, &["-o", "json", "--as", &format!("no-pods-{ns}")]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            format!(
                "warning: cannot list pods in namespace {ns}: the role lacks list on them (the runner Pod checks are skipped; deploy/rbac.yaml's kubectl-arc-read grants it)"
            ),
            format!(
                "warning: cannot list pods in namespace {ctl}: the role lacks list on them (the listener Pod checks are skipped there; deploy/rbac.yaml's kubectl-arc-read grants it)"
            )
        ],
        "{err}"
    );
    let r = report(&out);
    assert_eq!(item(&r, "crashing")["state"], "Synced");
    assert_eq!(item(&r, "nolistener")["state"], "ListenerDown");
    // --watch says it once too, and shows the same rows.
    let (code, _, err) = status(
        &kc,
        &ns,
        &[
            "--wait",
            "--timeout",
            "2s",
            "--as",
            &format!("old-reader-{ns}"),
            "healthy",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("warning: cannot list autoscalinglisteners")
            .count(),
        1,
        "{err}"
    );

    // Let go of the held objects and the listeners, so that no other test meets them.
    let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));
    for name in ["healthy", "crashing", "pulling", "pointing", "failing"] {
        let l = common::arc_listener_name(name, &ns, "");
        let api = listener_api(&client, &ctl);
        api.patch(&l, &PatchParams::default(), &release)
            .await
            .unwrap();
        api.delete(&l, &DeleteParams::default()).await.unwrap();
    }
    common::ers_api(&client, &ns)
        .patch("stuck", &PatchParams::default(), &release)
        .await
        .unwrap();
    common::ars_api(&client, &ns)
        .patch("going", &PatchParams::default(), &release)
        .await
        .unwrap();
}

/// deploy/rbac.yaml's kubectl-arc-read bound cluster-wide to `reader-NS`; the same role without
/// the listener, Pod, Deployment and CRD rules (as it was before issue 22) to `old-reader-NS`, and without the
/// Pod rule to `no-pods-NS`.
async fn roles(client: &kube::Client, ns: &str) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/rbac.yaml")).unwrap();
    let docs = kubectl_arc::manifest::parse(&text, "deploy/rbac.yaml").unwrap();
    let read = docs
        .iter()
        .find(|d| d.value["metadata"]["name"] == "kubectl-arc-read")
        .unwrap()
        .value
        .clone();
    let rules = read["rules"].as_array().unwrap().clone();
    assert!(
        rules
            .iter()
            .any(|r| r["resources"] == json!(["autoscalinglisteners"])
                && r["verbs"] == json!(["get", "list", "watch"])),
        "{read:#}"
    );
    assert!(
        rules
            .iter()
            .any(|r| r["resources"] == json!(["pods"]) && r["verbs"] == json!(["get", "list"])),
        "{read:#}"
    );
    let without = |resource: &str| -> Vec<Value> {
        rules
            .iter()
            .filter(|r| r["resources"] != json!([resource]))
            .cloned()
            .collect()
    };
    let old: Vec<Value> = without("autoscalinglisteners")
        .into_iter()
        .filter(|r| {
            ![
                json!(["pods"]),
                json!(["deployments"]),
                json!(["customresourcedefinitions"]),
            ]
            .contains(&r["resources"])
        })
        .collect();
    for (user, rules) in [
        (format!("reader-{ns}"), rules.clone()),
        (format!("old-reader-{ns}"), old),
        (format!("no-pods-{ns}"), without("pods")),
    ] {
        let role: ClusterRole =
            serde_json::from_value(json!({"metadata": {"name": user}, "rules": rules})).unwrap();
        Api::<ClusterRole>::all(client.clone())
            .create(&PostParams::default(), &role)
            .await
            .unwrap();
        let b: ClusterRoleBinding = serde_json::from_value(json!({
            "metadata": {"name": user},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone())
            .create(&PostParams::default(), &b)
            .await
            .unwrap();
    }
}
