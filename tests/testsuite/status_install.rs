//! Issue 22: the controller's release against the installed CRDs, on the real API server. A
//! controller Deployment labelled as the gha-runner-scale-set-controller chart labels it; the
//! server's own CRDs (ARC's master, which declare every field of 0.14.2); and the same objects read
//! back from the server beside that CRD as ARC 0.13 installed it (without 0.14's fields), the case
//! a `helm upgrade` from 0.13 to 0.14 leaves behind.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{exe, report};

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {r:#}"))
}

fn codes(r: &Value) -> Vec<String> {
    item(r, "runners")["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn status_tells_a_controller_whose_crds_lack_what_it_writes() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-install").await;
    common::create_ers(&client, &ns, "runners", json!({})).await;
    common::acknowledge(&client, &ns, "runners", 0).await;
    common::scale_set(&client, &ns, "lonely", 0).await;
    // Labelled by the chart of the controller's release, as a chart install labels it: the
    // controller's version check keeps it (without the label, 0.14.2 deletes it: VersionRejected).
    common::ars_api(&client, &ns)
        .patch(
            "lonely",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(
                json!({"metadata": {"labels": {"app.kubernetes.io/version": "0.14.2"}}}),
            ),
        )
        .await
        .unwrap();
    let deploy: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(json!({
        "metadata": {"name": "arc-gha-rs-controller", "labels": {
            "app.kubernetes.io/name": "arc",
            "app.kubernetes.io/part-of": "gha-rs-controller",
            "app.kubernetes.io/version": "0.14.2"
        }},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "c"}},
            "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [
                {"name": "manager", "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2"}]}}
        }
    }))
    .unwrap();
    // Before the controller: no listener anywhere for the namespace says nothing.
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let before = report(&out);
    assert_eq!(item(&before, "lonely")["state"], "Synced", "{before:#}");
    // Deleted when the guard drops (on a failure too); other tests' diff, migrate and status wait
    // meanwhile.
    let controller =
        common::controller::ControllerDeployment::create(&kc, &client, &ns, &deploy).await;

    // Live: the Deployment is found and the four CRDs read; the server's CRDs declare every field
    // 0.14.2 writes, so nothing is said.
    let (code, out, err) = exe(&[
        "status",
        "--kubeconfig",
        &kcs,
        "-n",
        &ns,
        "-o",
        "json",
        "-v",
        "6",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.lines().any(|l| l.contains(" GET ")
            && l.contains("/apis/apps/v1/deployments?")
            && l.contains(" 200 OK")),
        "{err}"
    );
    for crd in [
        "autoscalingrunnersets",
        "ephemeralrunnersets",
        "ephemeralrunners",
        "autoscalinglisteners",
    ] {
        assert!(
            err.lines().any(|l| l.contains(&format!(
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}.actions.github.com 200 OK"
            ))),
            "{crd}: {err}"
        );
    }
    let live = report(&out);
    assert!(
        !codes(&live).contains(&"CrdsBehindController".to_string()),
        "{live:#}"
    );
    // A registered scale set with no listener, the only one of its namespace: the controller
    // reconciles every namespace (no --watch-single-namespace), so it should have one.
    let lonely = item(&live, "lonely");
    assert_eq!(lonely["state"], "ListenerDown", "{lonely:#}");
    assert_eq!(lonely["reasons"][0]["reason"], "NoListener", "{lonely:#}");

    // `status NAME` shows the controller and the CRDs' release in the set's chain.
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "runners"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "\n  Controller: Deployment {ns}/arc-gha-rs-controller (ARC 0.14.2)\n  CRDs:       of ARC 0.14.2 or later (4 read)\n  Reasons:    <none>\n"
        )),
        "{out}"
    );

    // The same objects as the server has them, with the EphemeralRunnerSet CRD as ARC 0.13 had
    // it: its two 0.14 fields gone.
    let mut crd = serde_json::to_value(
        Api::<CustomResourceDefinition>::all(client.clone())
            .get("ephemeralrunnersets.actions.github.com")
            .await
            .unwrap(),
    )
    .unwrap();
    let schema = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
    for (part, field) in [("spec", "ephemeralRunnerMetadata"), ("status", "phase")] {
        let props = schema[part]["properties"].as_object_mut().unwrap();
        assert!(
            props.remove(field).is_some(),
            "{part}.{field} on the server"
        );
    }
    crd["apiVersion"] = json!("apiextensions.k8s.io/v1");
    crd["kind"] = json!("CustomResourceDefinition");
    let mut set =
        serde_json::to_value(common::ers_api(&client, &ns).get("runners").await.unwrap()).unwrap();
    set["apiVersion"] = json!("actions.github.com/v1alpha1");
    set["kind"] = json!("EphemeralRunnerSet");
    let mut deployment =
        serde_json::to_value(controller.api(&client).get(&controller.name).await.unwrap()).unwrap();
    deployment["apiVersion"] = json!("apps/v1");
    deployment["kind"] = json!("Deployment");
    let dir = common::scratch_dir("status-install");
    let dump = dir.join("dump.json");
    std::fs::write(
        &dump,
        json!({"apiVersion": "v1", "kind": "List", "items": [set, deployment, crd]}).to_string(),
    )
    .unwrap();
    let (code, out, err) = exe(&["status", "-f", dump.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let reason = item(&r, "runners")["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["reason"] == "CrdsBehindController")
        .unwrap_or_else(|| panic!("{r:#}"));
    assert!(
        reason["message"].as_str().unwrap().starts_with(&format!(
            "controller Deployment {ns}/arc-gha-rs-controller runs ARC 0.14.2, but the installed CRDs lack what it writes: ephemeralrunnersets.actions.github.com lacks spec.ephemeralRunnerMetadata (0.14.0), status.phase (0.14.0): "
        )),
        "{reason:#}"
    );
    assert_eq!(
        item(&r, "runners")["state"],
        item(&live, "runners")["state"],
        "it changes no state"
    );
    // The table names it under `status NAME`.
    let (code, out, err) = exe(&["status", "-f", dump.to_str().unwrap(), "runners"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("lacks spec.ephemeralRunnerMetadata (0.14.0), status.phase (0.14.0)"),
        "{out}"
    );
    drop(controller);
}

/// Issue 22 (ARC #3821, #4595): the counts ARC's `updateStatus` writes in a set's status, against
/// the runners the server lists: a status counting a runner that is gone is said, with the field;
/// the status ARC writes for the runners there is not.
#[tokio::test(flavor = "multi_thread")]
async fn status_tells_set_counters_that_count_runners_that_are_gone() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-counters").await;
    let set = common::create_ers(&client, &ns, "runners", json!({})).await;
    for (name, phase) in [("r-running", "Running"), ("r-pending", "Pending")] {
        common::create_owned_runner(&client, &ns, &set, name, phase).await;
    }
    let write = |current: i64, running: i64| {
        let client = client.clone();
        let ns = ns.clone();
        async move {
            common::set_ers_status(
                &client,
                &ns,
                "runners",
                json!({"appliedActionableRevision": 0, "currentReplicas": current,
                       "pendingEphemeralRunners": 1, "runningEphemeralRunners": running,
                       "failedEphemeralRunners": 0, "phase": "Running"}),
            )
            .await;
        }
    };
    let said = || {
        let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
        assert_eq!(code, 0, "{err}");
        let r = report(&out);
        r["items"][0]["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["reason"] == "CountersDisagree")
            .map(|x| x["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // What ARC writes for these runners: 1 pending + 1 running.
    write(2, 1).await;
    assert_eq!(said(), Vec::<String>::new());
    // A runner counted running that the server no longer lists.
    write(3, 2).await;
    let messages = said();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("status.currentReplicas is 3, the runners listed make 2; status.runningEphemeralRunners is 2, the runners listed make 1: "),
        "{}",
        messages[0]
    );
}

/// Issue 22 (ARC #4596): a scale set ARC 0.14 gave up on: in phase Outdated its listener and sets
/// are deleted and none is made; it is still a row, Outdated, and `--wait` does not wait for it.
#[tokio::test(flavor = "multi_thread")]
async fn a_scale_set_arc_gave_up_on_is_an_outdated_row() {
    use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-gaveup").await;
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "old-runners", "annotations": {"runner-scale-set-id": "4"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": common::runner_spec("img:1")["spec"]}}
    }))
    .unwrap();
    let api = common::ars_api(&client, &ns);
    api.create(&PostParams::default(), &ars).await.unwrap();
    api.patch_status(
        "old-runners",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": "Outdated"}})),
    )
    .await
    .unwrap();
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let row = item(&r, "old-runners");
    assert_eq!(row["state"], "Outdated", "{row:#}");
    assert_eq!(row["reasons"][0]["reason"], "ScaleSetOutdated", "{row:#}");
    let (code, _, err) = exe(&[
        "status",
        "--kubeconfig",
        &kcs,
        "-n",
        &ns,
        "old-runners",
        "--wait",
        "--timeout",
        "60s",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "waiting cannot help: {ns}/old-runners is Outdated"
        )),
        "{err}"
    );
}

/// Issue 22: runners against their Pods (named after them, labelled `actions-ephemeral-runner`),
/// with the statuses a kubelet and the scheduler write: a runner counted running whose Pod is
/// gone, and a pending one whose Pod cannot be scheduled, are said; one whose Pod runs is not.
#[tokio::test(flavor = "multi_thread")]
async fn status_tells_runners_whose_pods_are_gone_or_unschedulable() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-runpods").await;
    let set = common::create_ers(&client, &ns, "runners", json!({})).await;
    common::create_service_account(&client, &ns, "runner").await;
    for (name, phase, pod_status) in [
        ("r-up", "Running", Some(json!({"phase": "Running"}))),
        ("r-gone", "Running", None),
        (
            "r-wait",
            "Pending",
            Some(
                json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                "reason": "Unschedulable", "message": "0/1 nodes are available: 1 Insufficient cpu."}]}),
            ),
        ),
    ] {
        common::create_owned_runner(&client, &ns, &set, name, phase).await;
        if let Some(status) = pod_status {
            let pod = json!({
                "metadata": {"name": name, "labels": {"actions-ephemeral-runner": "True"}},
                "spec": {"restartPolicy": "Never", "automountServiceAccountToken": false,
                         "serviceAccountName": "runner",
                         "containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.330.0"}]}
            });
            common::create_pod_with_status(&client, &ns, pod, status).await;
        }
    }
    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let reasons: Vec<(String, String)> = item(&r, "runners")["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["reason"].as_str().unwrap().to_string(),
                x["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let find = |code: &str| {
        reasons
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("no {code} in {reasons:?}"))
    };
    assert!(
        find("RunnerPodsMissing").starts_with("1 runner in phase Running without a Pod (r-gone)"),
        "{reasons:?}"
    );
    assert!(
        find("RunnersUnschedulable").starts_with(
            "1 pending runner whose Pod cannot be scheduled (r-wait): Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."
        ),
        "{reasons:?}"
    );
}
