//! Issue 30, points 10 to 13 and status's small points: states ARC 0.14.2's real controllers
//! make, on the real API server. Every object is written as 0.14.2 writes it: the
//! AutoscalingRunnerSet with its chart's labels and ARC's annotations, its EphemeralRunnerSet
//! `<name>-xxxxx` (`newEphemeralRunnerSet`: owner reference, labels, the runner-spec hash of the
//! scale set as stored), the listener in the controller's namespace under ARC's own name
//! (`scaleSetListenerName`), the controller Deployment as the gha-runner-scale-set-controller chart
//! renders it, and every status through its status subresource (the phase 0.14 writes on each
//! reconcile, the runners' failures as `deletePodAsFailed` records them, the Pods' as a kubelet
//! and the scheduler write them). The server is the one whose CRDs lack the revision fields (as
//! 0.14.2's do).

use crate::common;
use crate::common::cli::{exe, report};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};

pub(crate) const CONFIG_URL: &str = "https://github.com/my-org";

pub(crate) fn release() -> &'static kubectl_arc::core::release::ArcRelease {
    kubectl_arc::core::release::release("0.14.2").expect("0.14.2 is in the release table")
}

pub(crate) fn listener_api(client: &kube::Client, ns: &str) -> Api<DynamicObject> {
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("actions.github.com", "v1alpha1", "AutoscalingListener"),
        "autoscalinglisteners",
    );
    Api::namespaced_with(client.clone(), ns, &ar)
}

/// An AutoscalingRunnerSet of chart `version` registered as scale set 7, with the status phase
/// ARC 0.14 writes (`phase` `None`: no phase, as CRDs older than 0.14.0 leave it), and its
/// EphemeralRunnerSet as 0.14.2 makes it; returns the stored scale set and the set.
pub(crate) async fn scale_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    version: &str,
    phase: Option<&str>,
) -> (Value, DynamicObject) {
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name,
            "labels": {"app.kubernetes.io/version": version, "app.kubernetes.io/part-of": "gha-rs",
                       "app.kubernetes.io/component": "autoscaling-runner-set",
                       "app.kubernetes.io/name": name, "actions.github.com/scale-set-name": name,
                       "actions.github.com/scale-set-namespace": ns},
            "annotations": {"runner-scale-set-id": "7", "actions.github.com/values-hash": "3f9c2ab1",
                            "actions.github.com/runner-group-name": "Default",
                            "actions.github.com/runner-scale-set-name": name},
            "finalizers": ["autoscalingrunnerset.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": CONFIG_URL, "githubConfigSecret": "gh-secret", "maxRunners": 5,
                 "template": {"spec": {"restartPolicy": "Never", "containers": [
                     {"name": "runner", "image": "ghcr.io/actions/actions-runner:2.329.0",
                      "command": ["/home/runner/run.sh"]}]}}}
    }))
    .unwrap();
    let api = common::ars_api(client, ns);
    let stored = api.create(&PostParams::default(), &ars).await.unwrap();
    if let Some(phase) = phase {
        api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": phase, "currentRunners": 0}})),
        )
        .await
        .unwrap();
    }
    let stored = serde_json::to_value(stored).unwrap();
    let spec = serde_json::to_string(&stored["spec"]).unwrap();
    let hash = kubectl_arc::core::spec_hash::runner_set_spec_hash(release(), &spec).unwrap();
    let mut runner_spec = json!({"githubConfigUrl": CONFIG_URL, "githubConfigSecret": "gh-secret",
                                 "runnerScaleSetId": 7});
    for (k, v) in stored["spec"]["template"].as_object().unwrap() {
        runner_spec[k] = v.clone();
    }
    let set: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "metadata": {"generateName": format!("{name}-"),
            "labels": {"app.kubernetes.io/component": "runner-set",
                       "app.kubernetes.io/part-of": "gha-runner-scale-set",
                       "app.kubernetes.io/version": version,
                       "actions.github.com/scale-set-name": name,
                       "actions.github.com/scale-set-namespace": ns},
            "annotations": {"actions.github.com/runner-spec-hash": hash,
                            "actions.github.com/runner-group-name": "Default",
                            "actions.github.com/runner-scale-set-name": name},
            "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1",
                "kind": "AutoscalingRunnerSet", "name": name, "uid": stored["metadata"]["uid"],
                "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": 2, "patchID": 0, "ephemeralRunnerSpec": runner_spec},
    }))
    .unwrap();
    let set = common::ers_api(client, ns)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
    let mut status = json!({"currentReplicas": 0, "pendingEphemeralRunners": 0,
                            "runningEphemeralRunners": 0, "failedEphemeralRunners": 0});
    if let Some(phase) = phase {
        status["phase"] = json!(phase);
    }
    common::ers_api(client, ns)
        .patch_status(
            set.metadata.name.as_deref().unwrap(),
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": status })),
        )
        .await
        .unwrap();
    (stored, set)
}

/// The controller Deployment as the gha-runner-scale-set-controller chart renders it for
/// `version` (its labels, the manager's image and `CONTROLLER_MANAGER_CONTAINER_IMAGE`).
pub(crate) fn controller_deployment(version: &str) -> Deployment {
    let image = format!("ghcr.io/actions/gha-runner-scale-set-controller:{version}");
    serde_json::from_value(json!({
        "metadata": {"name": "arc-gha-rs-controller", "labels": {
            "app.kubernetes.io/name": "gha-rs-controller",
            "app.kubernetes.io/part-of": "gha-rs-controller",
            "app.kubernetes.io/instance": "arc",
            "app.kubernetes.io/version": version}},
        "spec": {"replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "gha-rs-controller"}},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": "gha-rs-controller"}},
                "spec": {"containers": [{"name": "manager", "image": image,
                    "args": ["--auto-scaling-runner-set-only", "--log-level=debug",
                             "--log-format=text", "--update-strategy=immediate",
                             "--metrics-addr=0", "--listener-metrics-addr=0",
                             "--listener-metrics-endpoint="],
                    "command": ["/manager"],
                    "env": [{"name": "CONTROLLER_MANAGER_CONTAINER_IMAGE", "value": image},
                            {"name": "CONTROLLER_MANAGER_POD_NAMESPACE",
                             "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}]}]}}}
    }))
    .unwrap()
}

/// The listener ARC makes for the scale set (`newAutoScalingListener`) in the controller's
/// namespace `ctl`, under `name`, on `image`, from chart `version`.
async fn listener(
    client: &kube::Client,
    ctl: &str,
    (ns, ars, set): (&str, &Value, &str),
    name: &str,
    image: &str,
    version: &str,
) {
    let scale_set = ars["metadata"]["name"].as_str().unwrap();
    let l: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
        "metadata": {"name": name, "labels": {
                "actions.github.com/scale-set-namespace": ns,
                "actions.github.com/scale-set-name": scale_set,
                "actions.github.com/organization": "my-org",
                "app.kubernetes.io/part-of": "gha-runner-scale-set",
                "app.kubernetes.io/component": "runner-scale-set-listener",
                "app.kubernetes.io/version": version},
            "annotations": {"actions.github.com/runner-spec-hash": "5d8f9c7b6",
                            "actions.github.com/values-hash": "3f9c2ab1"},
            "finalizers": ["autoscalinglistener.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": CONFIG_URL, "githubConfigSecret": "gh-secret",
                 "runnerScaleSetId": 7, "autoscalingRunnerSetNamespace": ns,
                 "autoscalingRunnerSetName": scale_set, "ephemeralRunnerSetName": set,
                 "maxRunners": 5, "minRunners": 0, "image": image}
    }))
    .unwrap();
    listener_api(client, ctl)
        .create(&PostParams::default(), &l)
        .await
        .unwrap();
}

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {r:#}"))
}

fn reason<'a>(row: &'a Value, code: &str) -> Option<&'a str> {
    row["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["reason"] == code)
        .map(|r| r["message"].as_str().unwrap())
}

/// 30.10: the listener runs 0.14.1's image, the controller Deployment that makes it 0.14.2's, the
/// scale set and its set carry 0.14.1's labels: said, from the listener's image and the
/// Deployment's own image, whatever release judges the set.
#[tokio::test(flavor = "multi_thread")]
async fn a_listener_on_an_older_image_than_the_controller_is_said() {
    let kc = common::legacy_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "edge-behind").await;
    let ctl = common::namespace(&client, "edge-behind-ctl").await;
    let (ars, set) = scale_set(&client, &ns, "runners", "0.14.1", Some("Running")).await;
    let set_name = set.metadata.name.clone().unwrap();
    let name = common::arc_listener_name("runners", &ns, "");
    let old = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.1";
    listener(&client, &ctl, (&ns, &ars, &set_name), &name, old, "0.14.1").await;
    let controller = common::controller::ControllerDeployment::create(
        &kc,
        &client,
        &ctl,
        &controller_deployment("0.14.2"),
    )
    .await;
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let row = item(&r, &set_name);
    let said = reason(row, "ListenerBehindController").unwrap_or_else(|| panic!("{row:#}"));
    assert_eq!(
        said,
        format!(
            "AutoscalingListener {ctl}/{name} runs ARC 0.14.1 while controller Deployment {ctl}/arc-gha-rs-controller, which makes the listeners of this namespace, runs 0.14.2: an older controller made the listener, and ARC up to 0.14 makes a listener again only when its scale set's ListenerSpecHash() or values hash changes, not for a new image, so the old listener stays: delete it (kubectl delete autoscalinglistener -n {ctl} {name}) and ARC makes it again with the controller's image (ARC #4572, #4513)"
        )
    );
    // The listener on the controller's image says nothing.
    let api = listener_api(&client, &ctl);
    api.patch(
        &name,
        &PatchParams::default(),
        &Patch::Merge(
            json!({"spec": {"image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2"}}),
        ),
    )
    .await
    .unwrap();
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    assert_eq!(
        reason(item(&r, &set_name), "ListenerBehindController"),
        None,
        "{r:#}"
    );
    drop(controller);
}

/// A Pod named after runner `name`, labelled as `newEphemeralRunnerPod` labels it, with `status`
/// written as the scheduler or a kubelet writes it.
async fn runner_pod(client: &kube::Client, ns: &str, name: &str, status: Value) {
    let pod = json!({
        "metadata": {"name": name, "labels": {"actions-ephemeral-runner": "True",
                                               "app.kubernetes.io/component": "runner"}},
        "spec": {"restartPolicy": "Never", "automountServiceAccountToken": false,
                 "serviceAccountName": "runner",
                 "containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.329.0"}]}
    });
    common::create_pod_with_status(client, ns, pod, status).await;
}

/// 30.11 and 30.12: a runner counted running whose Pod ARC made again after its node was lost and
/// that cannot be scheduled, and a runner with five failed Pods and none now (phase Running, in
/// ARC's failure back-off): the set is RunnersNotRunning, not Synced, each said with what ARC
/// does; `--wait` waits on it (a timeout, not "waiting cannot help").
#[tokio::test(flavor = "multi_thread")]
async fn runners_counted_running_that_run_no_pod_are_not_synced() {
    let kc = common::legacy_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "edge-norun").await;
    common::create_service_account(&client, &ns, "runner").await;
    let (_, set) = scale_set(&client, &ns, "runners", "0.14.2", Some("Running")).await;
    let set_name = set.metadata.name.clone().unwrap();
    let lost = format!("{set_name}-lost1");
    common::create_owned_runner(&client, &ns, &set, &lost, "Running").await;
    runner_pod(
        &client,
        &ns,
        &lost,
        json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "lastTransitionTime": "2026-09-01T00:00:00Z", "reason": "Unschedulable",
            "message": "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 1 Insufficient cpu."}]}),
    )
    .await;
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let row = item(&r, &set_name);
    assert_eq!(row["state"], "RunnersNotRunning", "{row:#}");
    assert_eq!(
        row["reasons"][0]["reason"], "RunnersUnschedulable",
        "{row:#}"
    );
    assert!(
        reason(row, "RunnersUnschedulable").unwrap().starts_with(&format!(
            "1 runner in phase Running whose Pod cannot be scheduled ({lost}): Unschedulable: 0/2 nodes are available"
        )),
        "{row:#}"
    );

    // Five failed Pods recorded, none now, the runner still Running: ARC's back-off.
    let flaky = format!("{set_name}-flaky");
    common::create_owned_runner(&client, &ns, &set, &flaky, "Running").await;
    let failures: serde_json::Map<String, Value> = (1..=5)
        .map(|i| {
            (
                format!("8c1f0e2a-0000-4000-8000-00000000000{i}"),
                json!(format!("2026-09-01T00:0{i}:00Z")),
            )
        })
        .collect();
    common::runner_api(&client, &ns)
        .patch_status(
            &flaky,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"failures": failures, "ready": false,
                "reason": "Evicted", "message": "The node was low on resource: memory."}})),
        )
        .await
        .unwrap();
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let row = item(&r, &set_name);
    assert_eq!(row["state"], "RunnersNotRunning", "{row:#}");
    let said = reason(row, "RunnersBackingOff").unwrap_or_else(|| panic!("{row:#}"));
    assert!(
        said.starts_with(&format!(
            "1 runner without a Pod in ARC's failure back-off ({flaky}): {flaky} has 5 failed Pods in status.failures, the last at 2026-09-01T00:05:00Z (Evicted: The node was low on resource: memory.); ARC's EphemeralRunner controller waits 80s after the last failure before it makes the Pod again (failedRunnerBackoff, ARC 0.12.0 to 0.14.2): the wait ended "
        )),
        "{said}"
    );
    assert_eq!(reason(row, "RunnerPodsMissing"), None, "{row:#}");
    // --wait waits on it: ARC and the scheduler act by themselves.
    let (code, _, err) = exe(&[
        "status",
        "--kubeconfig",
        &kcs,
        "-n",
        &ns,
        &set_name,
        "--wait",
        "--timeout",
        "3s",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("waiting cannot help"), "{err}");
    assert!(err.contains("RunnersNotRunning"), "{err}");
}

/// 30.13: a dump without CRDs, of a 0.14.2 controller whose scale set and set carry no
/// `status.phase` (as the API server leaves them under CRDs older than 0.14.0, which prune it):
/// the CRDs look older than the controller, with how to check; the same objects with the phase
/// 0.14.2 writes say nothing.
#[tokio::test(flavor = "multi_thread")]
async fn old_crds_seen_offline_are_said() {
    let kc = common::legacy_kubeconfig();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "edge-oldcrd").await;
    let ctl = common::namespace(&client, "edge-oldcrd-ctl").await;
    let (_, pruned) = scale_set(&client, &ns, "pruned", "0.14.2", None).await;
    let ns2 = common::namespace(&client, "edge-newcrd").await;
    let (_, phased) = scale_set(&client, &ns2, "phased", "0.14.2", Some("Running")).await;
    // Made alone (other tests' commands list Deployments), read back, and deleted once read.
    let controller = common::controller::ControllerDeployment::create(
        &kc,
        &client,
        &ctl,
        &controller_deployment("0.14.2"),
    )
    .await;
    let deployment = controller.api(&client).get(&controller.name).await.unwrap();
    let mut items = Vec::new();
    for (namespace, set) in [(&ns, &pruned), (&ns2, &phased)] {
        let mut ars = serde_json::to_value(
            common::ars_api(&client, namespace)
                .get(if namespace == &ns { "pruned" } else { "phased" })
                .await
                .unwrap(),
        )
        .unwrap();
        ars["apiVersion"] = json!("actions.github.com/v1alpha1");
        ars["kind"] = json!("AutoscalingRunnerSet");
        let mut ers = serde_json::to_value(
            common::ers_api(&client, namespace)
                .get(set.metadata.name.as_deref().unwrap())
                .await
                .unwrap(),
        )
        .unwrap();
        ers["apiVersion"] = json!("actions.github.com/v1alpha1");
        ers["kind"] = json!("EphemeralRunnerSet");
        items.extend([ars, ers]);
    }
    let mut d = serde_json::to_value(&deployment).unwrap();
    d["apiVersion"] = json!("apps/v1");
    d["kind"] = json!("Deployment");
    items.push(d);
    drop(controller);
    let dir = common::scratch_dir("status-edges-crds");
    let dump = dir.join("dump.json");
    std::fs::write(
        &dump,
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let (code, out, err) = exe(&["status", "-f", dump.to_str().unwrap(), "-A", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let said = reason(
        item(&r, pruned.metadata.name.as_deref().unwrap()),
        "CrdsLookOlder",
    )
    .unwrap_or_else(|| panic!("{r:#}"));
    assert!(
        said.starts_with(&format!(
            "no ARC CustomResourceDefinition was read, controller Deployment {ctl}/arc-gha-rs-controller runs ARC 0.14.2, and no status ARC wrote in this namespace has status.phase"
        )),
        "{said}"
    );
    assert!(said.contains("kubectl get crd ephemeralrunnersets.actions.github.com -o yaml"));
    assert_eq!(
        reason(
            item(&r, phased.metadata.name.as_deref().unwrap()),
            "CrdsLookOlder"
        ),
        None,
        "{r:#}"
    );
}

/// A second set of the scale set as 0.14.2 makes it after a replacement (`generateName`, a newer
/// creationTimestamp).
async fn newer_set(client: &kube::Client, ns: &str, set: &DynamicObject) -> DynamicObject {
    // creationTimestamp has whole seconds: the new set must be newer.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let mut again: DynamicObject = set.clone();
    again.metadata.name = None;
    again.metadata.uid = None;
    again.metadata.resource_version = None;
    again.metadata.creation_timestamp = None;
    again.metadata.managed_fields = None;
    again.data.as_object_mut().unwrap().remove("status");
    let made = common::ers_api(client, ns)
        .create(&PostParams::default(), &again)
        .await
        .unwrap();
    common::ers_api(client, ns)
        .patch_status(
            made.metadata.name.as_deref().unwrap(),
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"currentReplicas": 0, "pendingEphemeralRunners": 0,
                "runningEphemeralRunners": 0, "failedEphemeralRunners": 0, "phase": "Running"}}),
            ),
        )
        .await
        .unwrap();
    made
}

/// During a 0.14.2 replacement: the listener, made from the scale set's former spec (its
/// runner-spec-hash annotation is not `ListenerSpecHash()`), still scales the old set. The new
/// set's row is ListenerDown (ARC deletes the listener and makes it again by itself), not
/// ListenerFailing with "delete the listener"; and `--watch` says what a one-shot `status` says,
/// before and after ARC deletes the old set.
#[tokio::test(flavor = "multi_thread")]
async fn watch_and_a_one_shot_status_give_one_state() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let kc = common::legacy_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "edge-onestate").await;
    let ctl = common::namespace(&client, "edge-onestate-ctl").await;
    let (ars, old) = scale_set(&client, &ns, "runners", "0.14.2", Some("Running")).await;
    let old_name = old.metadata.name.clone().unwrap();
    let name = common::arc_listener_name("runners", &ns, "");
    let image = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2";
    listener(
        &client,
        &ctl,
        (&ns, &ars, &old_name),
        &name,
        image,
        "0.14.2",
    )
    .await;
    let new = newer_set(&client, &ns, &old).await;
    let new_name = new.metadata.name.clone().unwrap();
    // No other test's controller Deployment while the watch runs (it would change which
    // listener ARC finds): the lock is held for the test, and the one-shot runs bypass `exe`'s.
    let _no_controller = common::controller::shared();
    let one_shot = || {
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
            .args(["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        report(&String::from_utf8(out.stdout).unwrap())
    };
    let r = one_shot();
    let row = item(&r, &new_name);
    assert_eq!(row["state"], "ListenerDown", "{row:#}");
    assert!(reason(row, "ListenerHashStale").is_some(), "{row:#}");
    let other = reason(row, "ListenerForOtherSet").unwrap_or_else(|| panic!("{row:#}"));
    assert!(
        other.contains("ARC makes the listener again for the newest set by itself"),
        "{other}"
    );
    assert!(!other.contains("delete the listener"), "{other}");
    assert_eq!(item(&r, &old_name)["state"], "Draining", "{r:#}");

    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args([
            "status",
            "--kubeconfig",
            &kcs,
            "-n",
            &ns,
            "--watch",
            "-o",
            "json",
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                break;
            }
        }
    });
    // The latest row of each set `--watch` printed within `secs` seconds.
    let latest = |secs: u64, seen: &mut std::collections::BTreeMap<String, Value>| {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(row) => {
                    seen.insert(row["name"].as_str().unwrap().to_string(), row);
                }
                Err(_) => break,
            }
        }
    };
    let mut seen = std::collections::BTreeMap::new();
    latest(4, &mut seen);
    assert_eq!(seen[&new_name]["state"], "ListenerDown", "{seen:#?}");
    // ARC deletes the old set; the listener still names it. Past the 5-second re-read, the watch
    // and a one-shot status agree on the new set.
    common::ers_api(&client, &ns)
        .delete(&old_name, &Default::default())
        .await
        .unwrap();
    latest(8, &mut seen);
    let r = one_shot();
    let row = item(&r, &new_name);
    assert_eq!(
        seen[&new_name]["state"], row["state"],
        "{seen:#?} against {row:#}"
    );
    assert_eq!(row["state"], "ListenerDown", "{row:#}");
    assert_eq!(seen[&old_name]["state"], "Deleted", "{seen:#?}");
    child.kill().unwrap();
    child.wait().unwrap();
}
