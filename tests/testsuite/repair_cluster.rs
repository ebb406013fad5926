//! Issue 34's tests of record: `repair` of failed runners on the real API server. Runners are
//! written as ARC and a kubelet write them: created owned by their set, their status (phase,
//! jobId, failures) through the status subresource, their Pods made and their phase written
//! through the Pod's status subresource. A runner with a job is never deleted: not when it is
//! read with one, and not when it gets one after it was read (the delete's preconditions).

use std::collections::BTreeSet;

use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::report;

/// A runner of `set` (no finalizer: a delete removes it at once), `status` written through the
/// status subresource.
async fn runner(client: &kube::Client, ns: &str, set: &DynamicObject, name: &str, status: Value) {
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": name, "ownerReferences": [{
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
}

/// The runner's Pod as ARC makes it (named like the runner, labelled
/// `actions-ephemeral-runner=True`), its phase written as the kubelet writes it.
async fn pod(client: &kube::Client, ns: &str, name: &str, phase: &str) {
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

fn failed(extra: Value) -> Value {
    let mut s = json!({"phase": "Failed", "runnerId": 5, "reason": "TooManyPodFailures",
        "failures": {"a1": "2026-12-01T10:00:00Z", "a2": "2026-12-01T10:01:00Z"}});
    s.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s
}

async fn names(client: &kube::Client, ns: &str) -> BTreeSet<String> {
    common::runner_api(client, ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|r| r.metadata.name.unwrap())
        .collect()
}

/// The `RunnersFailed` repairs: (runner, result), sorted.
fn results(r: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        .filter(|rep| rep["repair"] == "RunnersFailed")
        .map(|rep| {
            (
                rep["object"]["name"].as_str().unwrap().to_string(),
                rep["result"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn failed_count(kc: &str, ns: &str) -> u64 {
    let (_, out, _) = common::cli::exe(&["status", "--kubeconfig", kc, "-n", ns, "-o", "json"]);
    let r = report(&out);
    let message = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["reasons"].as_array().cloned().unwrap_or_default())
        .find(|x| x["reason"] == "RunnersFailed")
        .map(|x| x["message"].as_str().unwrap().to_string());
    message.map_or(0, |m| {
        assert!(m.contains("`kubectl arc repair` deletes those"), "{m}");
        m.split(' ').next().unwrap().parse().unwrap()
    })
}

/// Failed runners without a job and without a live Pod are deleted; one with a job, one whose
/// Pod runs are refused with the reason; `--dry-run=server` and `--dry-run=client` write nothing;
/// the runner a cleanup CronJob would also have taken (busy, with a past failure) is named.
#[tokio::test(flavor = "multi_thread")]
async fn failed_runners_are_deleted_and_none_with_a_job_or_a_running_pod() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-repair").await;
    let kc = kubeconfig.to_str().unwrap();
    let set =
        crate::upgrade_plan_cluster::settled_scale_set(&client, &ns, "runners", "0.14.2").await;
    common::create_service_account(&client, &ns, "default").await;
    runner(&client, &ns, &set, "failed-a", failed(json!({}))).await;
    runner(&client, &ns, &set, "failed-b", failed(json!({}))).await;
    pod(&client, &ns, "failed-b", "Failed").await;
    runner(
        &client,
        &ns,
        &set,
        "failed-job",
        failed(json!({"jobId": "7e1c"})),
    )
    .await;
    runner(
        &client,
        &ns,
        &set,
        "failed-old-job",
        failed(json!({"jobRequestId": 902})),
    )
    .await;
    runner(&client, &ns, &set, "failed-pod", failed(json!({}))).await;
    pod(&client, &ns, "failed-pod", "Running").await;
    runner(
        &client,
        &ns,
        &set,
        "busy-once-failed",
        json!({"phase": "Running", "runnerId": 6, "jobId": "9f00",
               "failures": {"b1": "2026-12-01T09:00:00Z"}}),
    )
    .await;
    runner(
        &client,
        &ns,
        &set,
        "idle",
        json!({"phase": "Running", "runnerId": 7}),
    )
    .await;
    let all = names(&client, &ns).await;
    assert_eq!(failed_count(kc, &ns), 5);

    let refused = [
        ("failed-job", "a job is assigned"),
        ("failed-old-job", "a job is assigned"),
        ("failed-pod", "its Pod has not terminated"),
    ];
    for dry in ["--dry-run=server", "--dry-run=client"] {
        let (code, out, err) =
            common::cli::exe(&["repair", "--kubeconfig", kc, "-n", &ns, dry, "-o", "json"]);
        assert_eq!(code, 0, "{out}{err}");
        let r = report(&out);
        let mut want: Vec<(String, String)> = [
            ("failed-a", "WouldWrite"),
            ("failed-b", "WouldWrite"),
            ("failed-job", "Refused"),
            ("failed-old-job", "Refused"),
            ("failed-pod", "Refused"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        want.sort();
        assert_eq!(results(&r), want, "{r:#}");
        assert_eq!(names(&client, &ns).await, all, "{dry} wrote nothing");
        let item = &r["items"][0];
        assert_eq!(item["scaleSet"], "runners");
        let besides = &item["cronJobWouldAlsoDelete"];
        assert_eq!(besides["withAJob"], 3, "{besides:#}");
        assert!(
            besides["runners"]
                .as_array()
                .unwrap()
                .contains(&json!("busy-once-failed"))
        );
        for (name, why) in refused {
            let rep = (item["repairs"].as_array().unwrap().iter())
                .find(|x| x["object"]["name"] == name)
                .unwrap();
            assert!(rep["why"].as_str().unwrap().contains(why), "{rep:#}");
        }
    }

    // Offline from a `kubectl get` dump: the same decisions as against the cluster.
    let dir = common::scratch_dir("repair");
    let dump = dir.join("dump.yaml");
    std::fs::write(
        &dump,
        crate::impact_cluster::kubectl_get(
            &kubeconfig,
            &ns,
            "ephemeralrunnersets,ephemeralrunners,pods",
        ),
    )
    .unwrap();
    let offline = |args: &[&str]| {
        let (code, out, err) = common::cli::exe(args);
        assert_eq!(code, 0, "{out}{err}");
        results(&report(&out))
    };
    assert_eq!(
        offline(&[
            "repair",
            "-f",
            dump.to_str().unwrap(),
            "--dry-run=client",
            "-o",
            "json"
        ]),
        offline(&[
            "repair",
            "--kubeconfig",
            kc,
            "-n",
            &ns,
            "--dry-run=client",
            "-o",
            "json"
        ]),
    );

    let (code, out, err) = common::cli::exe(&["repair", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("failed-a: RunnersFailed deleted"), "{out}");
    assert!(out.contains("failed-job: RunnersFailed refused"), "{out}");
    // The two failed runners, and the set's counts (ARC's, before the runners were made).
    assert!(
        out.ends_with("0 would be written, 3 written, 3 refused, 0 failed\n"),
        "{out}"
    );
    assert!(out.contains(": CountersDisagree patched ("), "{out}");
    let left = names(&client, &ns).await;
    let gone: BTreeSet<String> = all.difference(&left).cloned().collect();
    assert_eq!(
        gone,
        BTreeSet::from(["failed-a".to_string(), "failed-b".to_string()])
    );
    assert_eq!(failed_count(kc, &ns), 3);
    // Nothing left that is safe: a second run deletes nothing.
    let (code, out, _) = common::cli::exe(&["repair", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(code, 0);
    assert!(
        out.ends_with("0 would be written, 0 written, 3 refused, 0 failed\n"),
        "{out}"
    );
}

/// Randomized, concurrent with the repair: rounds of failed runners, each given a job at a random
/// moment by another task (as the listener writes `status.jobId`) while `repair` reads and
/// deletes. A runner whose job was written is never deleted: if the job was written before the
/// read, the rules refuse it; if after, the delete's resourceVersion precondition does (409).
#[tokio::test(flavor = "multi_thread")]
async fn a_runner_that_gets_a_job_while_repair_runs_is_never_deleted() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-repair-race").await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let set =
        crate::upgrade_plan_cluster::settled_scale_set(&client, &ns, "runners", "0.14.2").await;
    let mut rng = common::specgen::Rng::new(34);
    let (mut decided, mut given_jobs, mut refused_by_precondition) = (0usize, 0usize, 0usize);
    for round in 0..25 {
        let batch: Vec<String> = (0..40).map(|i| format!("r{round}-{i}")).collect();
        for name in &batch {
            runner(&client, &ns, &set, name, failed(json!({}))).await;
        }
        let mut targets = batch.clone();
        targets.retain(|_| rng.chance(50));
        let delays: Vec<u64> = targets.iter().map(|_| rng.below(30) as u64).collect();
        let api = common::runner_api(&client, &ns);
        let assign = tokio::spawn(async move {
            let mut assigned = Vec::new();
            for (name, delay) in targets.iter().zip(delays) {
                tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                let job = json!({"status": {"jobId": format!("job-{name}")}});
                if api
                    .patch_status(name, &PatchParams::default(), &Patch::Merge(job))
                    .await
                    .is_ok()
                {
                    assigned.push(name.clone());
                }
            }
            assigned
        });
        let args = ["repair", "--kubeconfig", &kc, "-n", &ns, "-o", "json"].map(str::to_string);
        let (code, out, err) = common::cli::exe_async(args.to_vec()).await;
        let assigned = assign.await.unwrap();
        assert_eq!(code, 0, "{out}{err}");
        let r = report(&out);
        let left = names(&client, &ns).await;
        for name in &assigned {
            assert!(
                left.contains(name.as_str()),
                "round {round}: {name} got a job and was deleted: {r:#}"
            );
        }
        for rep in (r["items"].as_array().unwrap().iter())
            .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        {
            decided += 1;
            if rep["why"]
                .as_str()
                .is_some_and(|w| w.contains("changed since it was read"))
            {
                refused_by_precondition += 1;
            }
        }
        given_jobs += assigned.len();
        // Clean the round up (the survivors with jobs would be refused forever).
        for name in &batch {
            let _ = common::runner_api(&client, &ns)
                .delete(name, &Default::default())
                .await;
        }
    }
    assert!(decided >= 1000, "{decided} decisions");
    assert!(given_jobs > 0);
    eprintln!(
        "{decided} decisions, {given_jobs} jobs given, {refused_by_precondition} refused by the precondition"
    );
}

/// Ghost counters (ARC #4595): the set's status counts runners that are gone. `status` says
/// CountersDisagree; `--dry-run=server` writes nothing; `repair` writes the counts of the runners
/// listed through the status subresource; `status` no longer says it, and a second run has
/// nothing to do.
#[tokio::test(flavor = "multi_thread")]
async fn ghost_counters_are_written_as_arc_counts_the_runners_listed() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-repair-counts").await;
    let kc = kubeconfig.to_str().unwrap();
    let set =
        crate::upgrade_plan_cluster::settled_scale_set(&client, &ns, "runners", "0.14.2").await;
    let set_name = set.metadata.name.clone().unwrap();
    runner(
        &client,
        &ns,
        &set,
        "idle",
        json!({"phase": "Running", "runnerId": 1}),
    )
    .await;
    runner(
        &client,
        &ns,
        &set,
        "busy",
        json!({"phase": "Running", "runnerId": 2, "jobId": "j"}),
    )
    .await;
    runner(&client, &ns, &set, "pending", json!({"phase": "Pending"})).await;
    let said = || {
        let (_, out, _) =
            common::cli::exe(&["status", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
        (report(&out)["items"].as_array().unwrap().iter())
            .flat_map(|i| i["reasons"].as_array().cloned().unwrap_or_default())
            .any(|x| x["reason"] == "CountersDisagree")
    };
    assert!(said());
    let stored = || async {
        common::ers_api(&client, &ns)
            .get(&set_name)
            .await
            .unwrap()
            .data["status"]
            .clone()
    };
    let before = stored().await;
    let (code, out, err) = common::cli::exe(&[
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
    let rep = &report(&out)["items"][0]["repairs"][0];
    assert_eq!(rep["repair"], "CountersDisagree", "{rep:#}");
    assert_eq!(rep["action"], "PatchStatus");
    assert_eq!(rep["result"], "WouldWrite");
    assert_eq!(stored().await, before, "the dry run wrote nothing");
    let (code, out, err) =
        common::cli::exe(&["repair", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        report(&out)["items"][0]["repairs"][0]["result"],
        "Written",
        "{out}"
    );
    let after = stored().await;
    assert_eq!(
        (
            &after["currentReplicas"],
            &after["pendingEphemeralRunners"],
            &after["runningEphemeralRunners"],
            &after["failedEphemeralRunners"]
        ),
        (&json!(3), &json!(1), &json!(2), &json!(0)),
        "{after:#}"
    );
    assert!(!said());
    let (_, out, _) = common::cli::exe(&["repair", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(out, "nothing to repair\n");
}
