//! Issue 34's tests of record for the finalizer repairs, on the real API server, where no ARC
//! controller runs (the test holds the controller lock shared, so no other test's controller
//! Deployment exists while a command runs). Objects are written as ARC writes them: its
//! finalizers set at creation, then deleted, so that `metadata.deletionTimestamp` is set and the
//! finalizers hold them; runners' statuses through their status subresource (a job as the
//! listener writes `status.jobId`), their Pods' phases as a kubelet writes them.

use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{exe, report};
use crate::common::runner_spec;

const RUNNER_FINALIZERS: [&str; 2] = [
    "ephemeralrunner.actions.github.com/finalizer",
    "ephemeralrunner.actions.github.com/runner-registration-finalizer",
];

/// A runner of `set` with ARC's two runner finalizers, `status` written, then deleted.
async fn held_runner(
    client: &kube::Client,
    ns: &str,
    set: &DynamicObject,
    name: &str,
    status: Value,
) {
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": name, "finalizers": RUNNER_FINALIZERS, "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": set.metadata.name, "uid": set.metadata.uid, "controller": true,
            "blockOwnerDeletion": true}]},
        "spec": set.data["spec"]["ephemeralRunnerSpec"],
    }))
    .unwrap();
    let api = common::runner_api(client, ns);
    api.create(&PostParams::default(), &runner).await.unwrap();
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "status": status })),
    )
    .await
    .unwrap();
    api.delete(name, &DeleteParams::default()).await.unwrap();
}

/// A runner's Pod as `newEphemeralRunnerPod` names and labels it, `phase` as a kubelet writes it.
async fn runner_pod(client: &kube::Client, ns: &str, name: &str, phase: &str) {
    common::create_pod_with_status(
        client,
        ns,
        json!({
            "metadata": {"name": name, "labels": {"actions-ephemeral-runner": "True"}},
            "spec": {"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.329.0"}]}
        }),
        json!({"phase": phase}),
    )
    .await;
}

/// An EphemeralRunnerSet `name` with ARC's finalizer, deleted.
async fn held_set(client: &kube::Client, ns: &str, name: &str) -> DynamicObject {
    let mut set = common::ers_object(name, runner_spec("img:1"));
    set.metadata.finalizers = Some(vec![RUNNER_FINALIZERS[0].into()]);
    let set = common::ers_api(client, ns)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
    common::ers_api(client, ns)
        .delete(name, &DeleteParams::default())
        .await
        .unwrap();
    set
}

/// (repair, object name, result) of every repair, sorted.
fn results(r: &Value) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        .map(|x| {
            let s = |v: &Value| v.as_str().unwrap().to_string();
            (s(&x["repair"]), s(&x["object"]["name"]), s(&x["result"]))
        })
        .collect();
    v.sort();
    v
}

/// The (reason, message) pairs status gives the namespace's rows.
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

/// Every finalizer ARC left where no controller runs: the runners without a job or a live Pod,
/// the set without runners and the scale set without sets lose them and are gone; the runner
/// with a job and the set whose runner has one keep them, refused with the reason.
/// `--dry-run=server` writes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn finalizers_are_removed_only_where_no_job_is_lost() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-repair-fin").await;
    let kc = kubeconfig.to_str().unwrap();
    common::create_service_account(&client, &ns, "default").await;
    common::scale_set(&client, &ns, "held", 2).await;
    let held = common::ers_api(&client, &ns).get("held").await.unwrap();
    held_runner(
        &client,
        &ns,
        &held,
        "held-done",
        json!({"phase": "Running", "runnerId": 1}),
    )
    .await;
    runner_pod(&client, &ns, "held-done", "Succeeded").await;
    held_runner(
        &client,
        &ns,
        &held,
        "held-gone",
        json!({"phase": "Running", "runnerId": 2}),
    )
    .await;
    held_runner(
        &client,
        &ns,
        &held,
        "held-busy",
        json!({"phase": "Running", "runnerId": 3, "jobId": "7e1c"}),
    )
    .await;
    runner_pod(&client, &ns, "held-busy", "Running").await;
    held_set(&client, &ns, "stuck").await;
    let busy_set = held_set(&client, &ns, "stuck-busy").await;
    common::create_owned_runner(&client, &ns, &busy_set, "stuck-busy-runner", "Running").await;
    common::runner_api(&client, &ns)
        .patch_status(
            "stuck-busy-runner",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"jobRequestId": 902}})),
        )
        .await
        .unwrap();
    runner_pod(&client, &ns, "stuck-busy-runner", "Running").await;
    let going: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "going", "annotations": {"runner-scale-set-id": "1"},
                     "finalizers": ["autoscalingrunnerset.actions.github.com/finalizer"]},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": runner_spec("img:1")["spec"]}}
    }))
    .unwrap();
    let ars = common::ars_api(&client, &ns);
    ars.create(&PostParams::default(), &going).await.unwrap();
    ars.delete("going", &DeleteParams::default()).await.unwrap();

    let said = status_reasons(kc, &ns);
    for code in ["FinalizersLeft", "ScaleSetDeleting"] {
        let (_, m) = said
            .iter()
            .find(|(c, _)| c == code)
            .unwrap_or_else(|| panic!("{said:#?}"));
        assert!(m.contains("`kubectl arc repair`"), "{m}");
    }
    let want = |result: &str| {
        let mut v: Vec<(String, String, String)> = [
            ("FinalizersLeft", "held-busy", "Refused"),
            ("FinalizersLeft", "held-done", result),
            ("FinalizersLeft", "held-gone", result),
            ("FinalizersLeft", "stuck", result),
            ("FinalizersLeft", "stuck-busy", "Refused"),
            ("ScaleSetDeleting", "going", result),
        ]
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
        v.sort();
        v
    };
    let stored = || async {
        let mut v: Vec<(String, Option<Vec<String>>)> = Vec::new();
        for r in common::runner_api(&client, &ns)
            .list(&Default::default())
            .await
            .unwrap()
        {
            v.push((r.metadata.name.unwrap(), r.metadata.finalizers));
        }
        for s in common::ers_api(&client, &ns)
            .list(&Default::default())
            .await
            .unwrap()
        {
            v.push((s.metadata.name.unwrap(), s.metadata.finalizers));
        }
        for a in common::ars_api(&client, &ns)
            .list(&Default::default())
            .await
            .unwrap()
        {
            v.push((a.metadata.name.unwrap(), a.metadata.finalizers));
        }
        v.sort();
        v
    };
    let before = stored().await;
    let (code, out, err) = exe(&[
        "repair",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--dry-run=server",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(results(&r), want("WouldWrite"), "{r:#}");
    assert_eq!(stored().await, before, "the dry run wrote nothing");
    let refusal = |name: &str| {
        (r["items"].as_array().unwrap().iter())
            .flat_map(|i| i["repairs"].as_array().unwrap().clone())
            .find(|x| x["object"]["name"] == name)
            .unwrap()["why"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(refusal("held-busy").contains("has a job"), "{r:#}");
    assert!(
        refusal("stuck-busy").contains("stuck-busy-runner has a job"),
        "{r:#}"
    );
    let evidence = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        .find(|x| x["object"]["name"] == "going")
        .unwrap();
    let e = evidence["evidence"].as_str().unwrap();
    assert!(
        e.contains("no controller Deployment reconciles the namespace"),
        "{e}"
    );
    assert!(
        e.contains("its listener (0) and EphemeralRunnerSets (0)"),
        "{e}"
    );

    // From a dump without the controller Deployments: whether a controller runs is not known, so
    // every removal is refused.
    let dir = common::scratch_dir("repair-fin");
    let dump = dir.join("dump.yaml");
    let kinds = "autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners,pods";
    std::fs::write(
        &dump,
        crate::impact_cluster::kubectl_get(&kubeconfig, &ns, kinds),
    )
    .unwrap();
    let (code, out, err) = exe(&[
        "repair",
        "-f",
        dump.to_str().unwrap(),
        "--dry-run=client",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let offline = report(&out);
    let all_refused: Vec<(String, String, String)> = (want("Refused").into_iter())
        .map(|(a, b, _)| (a, b, "Refused".to_string()))
        .collect();
    assert_eq!(results(&offline), all_refused, "{offline:#}");
    assert!(out.contains("the dump holds no Deployment"), "{out}");

    let (code, out, err) = exe(&["repair", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(results(&report(&out)), want("Written"), "{out}");
    let left: Vec<String> = stored().await.into_iter().map(|(n, _)| n).collect();
    // The scale set and the set "held" stay, not being deleted.
    assert_eq!(
        left,
        [
            "held",
            "held",
            "held-busy",
            "stuck-busy",
            "stuck-busy-runner"
        ]
    );

    let said = status_reasons(kc, &ns);
    assert!(
        !said.iter().any(|(c, _)| c == "ScaleSetDeleting"),
        "{said:#?}"
    );
    let mut held: Vec<&str> = (said.iter())
        .filter(|(c, _)| c == "FinalizersLeft")
        .map(|(_, m)| m.split(" is being deleted").next().unwrap())
        .collect();
    held.sort();
    assert_eq!(
        held,
        [
            format!("EphemeralRunner {ns}/held-busy"),
            format!("EphemeralRunnerSet {ns}/stuck-busy")
        ],
        "{said:#?}"
    );
}
