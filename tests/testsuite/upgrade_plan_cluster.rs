//! Issue 33's tests of record: `upgrade-plan` on the real API server, from objects written as
//! ARC 0.13.1 writes them (a scale set labelled by its chart, its set hashed by 0.13.1's
//! `RunnerSetSpecHash()`, runners in every phase with their status through the status
//! subresource) and the controller Deployment of the gha-runner-scale-set-controller chart.

use kube::api::DynamicObject;
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::report;
use crate::impact_cluster::{
    RUNNER_IMAGE, controller_deployment, kubectl_get, runners_in_every_phase,
};

/// A scale set labelled `release` and its set as that release made it from the scale set as it
/// is (settled: the runner-spec hash is the scale set's own).
pub(crate) async fn settled_scale_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    release: &str,
) -> DynamicObject {
    crate::impact_cluster::scale_set_made_by(client, ns, name, release, RUNNER_IMAGE).await
}

fn only_set(r: &Value) -> &Value {
    let sets = r["sets"].as_array().unwrap();
    assert_eq!(sets.len(), 1, "{r:#}");
    &sets[0]
}

fn step_kinds(r: &Value) -> Vec<&str> {
    (r["steps"].as_array().unwrap().iter())
        .map(|s| s["step"].as_str().unwrap())
        .collect()
}

/// ARC 0.13.1 installed (controller, scale set, set, runners), planned to 0.14.2: each release's
/// version check refuses the other's label, so the controller is stopped while the chart
/// relabels the scale set; 0.14.2 hashes the unchanged scale set over k8s.io/api v0.35.2, so the
/// upgrade itself replaces the set (its runners deleted as 0.14.2's `cleanUpEphemeralRunners`
/// deletes them, the busy ones finishing first); the controller first or the chart first would
/// delete the scale set. The server's CRDs declare what 0.14.2 writes; the same CRD without
/// 0.14.0's `status.phase` (as 0.13 installed it) in a dump is a gap. The same plan from a dump.
#[tokio::test(flavor = "multi_thread")]
async fn an_upgrade_from_0_13_1_stops_the_controller_and_the_upgrade_replaces_the_set() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-upgrade").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = settled_scale_set(&client, &ns, "runners", "0.13.1").await;
    runners_in_every_phase(&client, &ns, &set).await;
    let ctl = common::namespace(&client, "arc-systems-up").await;
    let deploy = controller_deployment(
        "0.13.1",
        &[
            "--auto-scaling-runner-set-only",
            "--update-strategy=immediate",
        ],
    );
    let controller =
        common::controller::ControllerDeployment::create(&kubeconfig, &client, &ctl, &deploy).await;

    // Before the upgrade, 0.13.1 keeps the set: diff says nothing.
    let (code, out, err) = common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(code, 0, "{err}{out}");

    let (code, out, err) = common::cli::exe(&[
        "upgrade-plan",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--to",
        "0.14.2",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    assert_eq!(r["kind"], "UpgradePlan");
    assert_eq!(r["from"]["release"], "0.13.1", "{r:#}");
    assert_eq!(
        r["from"]["from"],
        format!("controller Deployment {ctl}/arc-gha-rs-controller")
    );
    assert_eq!(r["order"]["order"], "ControllerStopped", "{r:#}");
    assert_eq!(
        step_kinds(&r),
        ["Crds", "StopController", "ScaleSetCharts", "Controller"]
    );
    assert_eq!(
        r["steps"][1]["commands"][0],
        format!("kubectl -n {ctl} scale deployment arc-gha-rs-controller --replicas=0")
    );
    assert_eq!(
        r["steps"][2]["commands"][0],
        format!(
            "helm upgrade runners oci://ghcr.io/actions/actions-runner-controller-charts/gha-runner-scale-set -n {ns} --version 0.14.2 --reuse-values"
        )
    );
    let s = only_set(&r);
    assert_eq!(s["label"], "0.13.1");
    assert_eq!(s["action"], "Replaced", "{s:#}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .starts_with("by the upgrade itself"),
        "{s:#}"
    );
    assert_eq!(s["wrongOrder"]["controllerFirst"]["release"], "0.14.2");
    assert_eq!(s["wrongOrder"]["controllerFirst"]["label"], "0.13.1");
    assert_eq!(s["wrongOrder"]["chartsFirst"]["release"], "0.13.1");
    assert_eq!(s["wrongOrder"]["chartsFirst"]["label"], "0.14.2");
    let impact = &s["impact"];
    assert_eq!(impact["deleted"], 6, "{impact:#}");
    assert_eq!(impact["busy"].as_array().unwrap().len(), 2, "{impact:#}");
    assert_ne!(impact["scaleSetDeleted"], true, "{impact:#}");
    assert_eq!(impact["updateStrategy"]["value"], "immediate");
    // The server's CRDs (ARC's master) declare every field 0.14.2 writes.
    assert_eq!(r["crds"]["installed"].as_array().unwrap().len(), 4, "{r:#}");
    assert_eq!(r["crds"]["missing"], json!([]), "{r:#}");

    // The same plan from a dump, with the EphemeralRunnerSet CRD as 0.13 installed it (no
    // status.phase): the gap is named.
    let mut crd: Value = serde_json::to_value(
        kube::Api::<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>::all(client.clone())
            .get("ephemeralrunnersets.actions.github.com")
            .await
            .unwrap(),
    )
    .unwrap();
    for v in crd["spec"]["versions"].as_array_mut().unwrap() {
        v["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("phase");
    }
    crd["apiVersion"] = json!("apiextensions.k8s.io/v1");
    crd["kind"] = json!("CustomResourceDefinition");
    let dir = common::scratch_dir("upgrade-plan");
    let dump = dir.join("dump.yaml");
    std::fs::write(
        &dump,
        kubectl_get(
            &kubeconfig,
            &ns,
            "autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners",
        ),
    )
    .unwrap();
    let crds = dir.join("crd.json");
    std::fs::write(&crds, crd.to_string()).unwrap();
    let (code, out, err) = common::cli::exe(&[
        "upgrade-plan",
        "-f",
        dump.to_str().unwrap(),
        "-f",
        crds.to_str().unwrap(),
        "--to",
        "0.14.2",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}{out}");
    let d = report(&out);
    // No controller in the dump: the running release is the scale set's label, said as assumed.
    assert_eq!(d["from"]["release"], "0.13.1", "{d:#}");
    assert!(
        d["from"]["from"]
            .as_str()
            .unwrap()
            .starts_with("assumed from the label")
    );
    assert_eq!(d["order"]["order"], "ControllerStopped");
    let ds = only_set(&d);
    assert_eq!(ds["action"], s["action"]);
    let without_strategy = |i: &Value| {
        let mut i = i.clone();
        i["updateStrategy"].as_object_mut().unwrap().remove("from");
        i
    };
    assert_eq!(without_strategy(&ds["impact"]), without_strategy(impact));
    assert_eq!(
        d["crds"]["missing"],
        json!([{"crd": "ephemeralrunnersets.actions.github.com", "field": "status.phase", "since": "0.14.0"}]),
        "{d:#}"
    );
    drop(controller);
}

/// A patch upgrade within 0.14: the new controller allows the old label, so it goes first, and
/// the set is kept (0.14.0 and 0.14.2 hash over the same k8s.io/api); exit 0. The cluster has no
/// controller Deployment: the running release is the scale set's label, said as assumed.
#[tokio::test(flavor = "multi_thread")]
async fn a_patch_upgrade_within_0_14_keeps_the_set_and_runs_the_controller_first() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-upgrade-patch").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = settled_scale_set(&client, &ns, "runners", "0.14.0").await;
    runners_in_every_phase(&client, &ns, &set).await;
    let (code, out, err) = common::cli::exe(&[
        "upgrade-plan",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--to",
        "0.14.2",
        "-o",
        "json",
    ]);
    let r = report(&out);
    assert_eq!(only_set(&r)["action"], "Kept", "{r:#}{err}");
    assert_eq!(r["order"]["order"], "ControllerFirst");
    // No controller Deployment in the cluster: the plan says which release it assumed and why.
    assert_eq!(r["from"]["release"], "0.14.0");
    let from = r["from"]["from"].as_str().unwrap();
    assert!(
        from.starts_with(
            "assumed from the label app.kubernetes.io/version of AutoscalingRunnerSet"
        ) && from.contains("no controller Deployment found"),
        "{from}"
    );
    assert_eq!(step_kinds(&r), ["Crds", "Controller", "ScaleSetCharts"]);
    assert_eq!(code, 0, "{err}{out}");
}

/// An unknown release: exit 2 listing the known ones, before the cluster is contacted.
#[test]
fn an_unknown_release_is_refused_before_anything_is_read() {
    let (code, _, err) = common::cli::exe(&[
        "upgrade-plan",
        "--kubeconfig",
        "/nonexistent",
        "--to",
        "0.15.0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--to \"0.15.0\": not an ARC release kubectl-arc knows (known: 0.9.0"),
        "{err}"
    );
}

/// 0.14.2 installed (controller, a scale set whose set is `runners-xxxxx`, runners in every
/// phase), planned to `next`: the next release gets the set named like the scale set, so the
/// 0.14 set is left behind (its idle and pending runners deleted as the new set controller adopts
/// it, the busy ones finishing, the listener made again), the controller is stopped (0.14.2 and
/// the next minor refuse each other's label), and a last step deletes the old set by its name.
/// The server's CRDs (ARC's master before the revision fields) lack the revision fields. A scale
/// set of the revision era (its set named like it, on the revision-era server) is kept.
#[tokio::test(flavor = "multi_thread")]
async fn an_upgrade_from_0_14_to_next_leaves_the_generated_name_set_behind() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-upgrade-next").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = settled_scale_set(&client, &ns, "runners", "0.14.2").await;
    let old = set.metadata.name.clone().unwrap();
    assert!(old.starts_with("runners-"), "{old}");
    runners_in_every_phase(&client, &ns, &set).await;
    let ctl = common::namespace(&client, "arc-systems-next").await;
    let deploy = controller_deployment("0.14.2", &["--auto-scaling-runner-set-only"]);
    let controller =
        common::controller::ControllerDeployment::create(&kubeconfig, &client, &ctl, &deploy).await;
    let (code, out, err) = common::cli::exe(&[
        "upgrade-plan",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--to",
        "next",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    assert_eq!(r["to"], "next");
    assert_eq!(r["from"]["release"], "0.14.2", "{r:#}");
    assert_eq!(r["order"]["order"], "ControllerStopped", "{r:#}");
    assert_eq!(
        step_kinds(&r),
        [
            "Crds",
            "StopController",
            "ScaleSetCharts",
            "Controller",
            "LeftBehindSets"
        ]
    );
    assert_eq!(
        r["steps"][4]["commands"][1],
        format!("kubectl -n {ns} delete ephemeralrunnerset {old} --wait=false")
    );
    let s = only_set(&r);
    assert_eq!(s["action"], "LeftBehind", "{s:#}");
    assert_eq!(s["leftBehind"], old.as_str());
    let impact = &s["impact"];
    assert_eq!(
        (impact["idle"].as_u64(), impact["pending"].as_u64()),
        (Some(2), Some(1)),
        "{impact:#}"
    );
    assert_eq!(impact["busy"].as_array().unwrap().len(), 2, "{impact:#}");
    assert_eq!(impact["jobPickupPauses"], true);
    assert_eq!(s["wrongOrder"]["controllerFirst"]["release"], "next");
    // The legacy CRDs lack every field the next release writes besides 0.14.2's.
    assert_eq!(
        missing_fields(&r),
        [
            "autoscalinglisteners spec.phase",
            "autoscalingrunnersets status.observedGeneration",
            "ephemeralrunnersets spec.actionableRevision",
            "ephemeralrunnersets status.appliedActionableRevision",
        ],
        "{r:#}"
    );
    drop(controller);

    // The revision era: the set is named like its scale set and carries the revision fields;
    // the next release keeps it (its own rule: no semantic drift), and the CRDs declare them, but
    // not what the PRs after #4638 added (the test bed's revision CRDs are #4638's).
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-upgrade-rev").await;
    let kc = kubeconfig.to_str().unwrap();
    common::scale_set(&client, &ns, "runners", 0).await;
    let (code, out, err) = common::cli::exe(&[
        "upgrade-plan",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--to",
        "next",
        "-o",
        "json",
    ]);
    let r = report(&out);
    assert_eq!(only_set(&r)["action"], "Kept", "{r:#}{err}");
    assert!(!step_kinds(&r).contains(&"LeftBehindSets"), "{r:#}");
    assert_eq!(
        missing_fields(&r),
        [
            "autoscalinglisteners spec.phase",
            "autoscalingrunnersets status.observedGeneration",
        ],
        "{r:#}"
    );
    assert_eq!(code, 0, "{err}{out}");
}

/// The plan's `crds.missing` as `PLURAL FIELD`, sorted.
fn missing_fields(r: &Value) -> Vec<String> {
    let mut missing: Vec<String> = (r["crds"]["missing"].as_array().unwrap().iter())
        .map(|m| {
            let crd = m["crd"].as_str().unwrap();
            let plural = crd.strip_suffix(".actions.github.com").unwrap_or(crd);
            format!("{plural} {}", m["field"].as_str().unwrap())
        })
        .collect();
    missing.sort();
    missing
}

/// `--contexts`: one plan per context, one table. fleet-a (the revision server) holds a 0.14.0
/// scale set, kept by 0.14.2; fleet-b (the legacy server) a 0.13.1 one, whose set the upgrade
/// replaces; fleet-dead answers nothing and is an error row of its own (exit 2), the others
/// still planned. Two good contexts alone exit 1.
#[tokio::test(flavor = "multi_thread")]
async fn a_plan_per_context_and_a_dead_context_as_its_own_row() {
    let (client_a, client_b) = (
        common::client(&common::revision_kubeconfig()).await,
        common::client(&common::legacy_kubeconfig()).await,
    );
    let ns_a = common::namespace(&client_a, "upgrade-fleet-a").await;
    let ns_b = common::namespace(&client_b, "upgrade-fleet-b").await;
    settled_scale_set(&client_a, &ns_a, "runners", "0.14.0").await;
    settled_scale_set(&client_b, &ns_b, "runners", "0.13.1").await;
    let (kc, _, _dir) = crate::fleet_cluster::four_contexts(&ns_a, &ns_b);
    let args = |contexts: &str, output: &str| {
        [
            "upgrade-plan",
            "--kubeconfig",
            &kc,
            "--contexts",
            contexts,
            "--to",
            "0.14.2",
            "--request-timeout",
            "2s",
            "-o",
            output,
        ]
        .map(str::to_string)
    };
    let run = |a: [String; 11]| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        common::cli::exe(&a)
    };
    let (code, out, err) = run(args("fleet-a,fleet-b,fleet-dead", "json"));
    assert_eq!(code, 2, "{out}{err}");
    let r = report(&out);
    assert_eq!(r["kind"], "UpgradePlanList");
    let contexts = r["contexts"].as_array().unwrap();
    let names: Vec<&str> = contexts
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fleet-a", "fleet-b", "fleet-dead"]);
    assert_eq!(only_set(&contexts[0]["plan"])["action"], "Kept", "{r:#}");
    assert_eq!(contexts[0]["plan"]["order"]["order"], "ControllerFirst");
    assert_eq!(
        only_set(&contexts[1]["plan"])["action"],
        "Replaced",
        "{r:#}"
    );
    assert_eq!(contexts[1]["plan"]["order"]["order"], "ControllerStopped");
    assert_eq!(contexts[2]["error"]["kind"], "Unreachable", "{r:#}");
    assert!(contexts[2].get("plan").is_none());
    assert!(
        err.contains("context fleet-dead: unable to connect"),
        "{err}"
    );

    let (code, out, err) = run(args("fleet-a,fleet-b", "text"));
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("CONTEXT"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("fleet-a") && l.contains(&ns_a) && l.ends_with("Kept")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("fleet-b") && l.contains("0.13.1") && l.ends_with("Replaced")),
        "{out}"
    );
    assert!(
        out.contains(
            "fleet-b: ControllerStopped: Crds, StopController, ScaleSetCharts, Controller"
        ),
        "{out}"
    );
}
