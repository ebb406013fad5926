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

/// A state a runner is made in for the randomized rounds: its status, whether it is given a job
/// at creation (either listener's field), its Pod's phase, and whether it is being deleted and
/// held by ARC's runner finalizer.
struct Made {
    name: String,
    status: Value,
    has_job: bool,
    pod: Option<&'static str>,
    deleting: bool,
}

/// One runner in a random state ARC distinguishes: failed (with or without a job, a live or a
/// finished Pod), idle, busy, pending, or being deleted (with a job or not).
fn random_runner(rng: &mut common::specgen::Rng, name: String) -> Made {
    let job = match rng.below(4) {
        0 => Some(json!({"jobId": format!("job-{name}")})),
        1 => Some(json!({"jobRequestId": 1000 + rng.below(9000)})),
        _ => None,
    };
    let has_job = job.is_some();
    let job = job.unwrap_or_else(|| json!({}));
    let (status, pod, deleting) = match rng.below(6) {
        0 | 1 => (
            failed(job),
            *rng.pick(&[None, Some("Failed"), Some("Running")]),
            false,
        ),
        2 => {
            let mut s = json!({"phase": "Running", "runnerId": 3});
            s.as_object_mut()
                .unwrap()
                .extend(job.as_object().unwrap().clone());
            (s, Some("Running"), false)
        }
        3 => (json!({"phase": "Pending"}), Some("Pending"), false),
        _ => (failed(job), None, true),
    };
    // A pending runner has no job in either listener's view.
    let has_job = has_job && status["phase"] != "Pending";
    let status = if status["phase"] == "Pending" {
        json!({"phase": "Pending"})
    } else {
        status
    };
    Made {
        name,
        status,
        has_job,
        pod,
        deleting,
    }
}

/// Make `m` as ARC and a kubelet write it; one being deleted is created with ARC's runner
/// finalizer and then deleted, so it stays until the finalizer goes.
async fn make(client: &kube::Client, ns: &str, set: &DynamicObject, m: &Made) {
    runner(client, ns, set, &m.name, m.status.clone()).await;
    if let Some(phase) = m.pod {
        pod(client, ns, &m.name, phase).await;
    }
    if m.deleting {
        let api = common::runner_api(client, ns);
        let fin =
            json!({"metadata": {"finalizers": ["ephemeralrunner.actions.github.com/finalizer"]}});
        api.patch(&m.name, &PatchParams::default(), &Patch::Merge(fin))
            .await
            .unwrap();
        api.delete(&m.name, &Default::default()).await.unwrap();
    }
}

/// Remove every runner (and its finalizers) and runner Pod of a round.
async fn clear(client: &kube::Client, ns: &str, made: &[Made]) {
    let api = common::runner_api(client, ns);
    let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
        kube::Api::namespaced(client.clone(), ns);
    let unhold = json!({"metadata": {"finalizers": null}});
    for m in made {
        let _ = api
            .patch(&m.name, &PatchParams::default(), &Patch::Merge(&unhold))
            .await;
        let _ = api.delete(&m.name, &Default::default()).await;
        if m.pod.is_some() {
            let _ = pods.delete(&m.name, &Default::default()).await;
        }
    }
}

/// One lane of the randomized test: `rounds` rounds in a namespace of its own. Each round makes
/// one to three runners in random states, then runs `repair` while another task gives jobs (as
/// the listener writes `status.jobId`) to random runners at random moments. Every runner that
/// had a job (made with one, or given one at any moment) must still exist afterwards: a job
/// written before `repair` read the runner makes the rules refuse it; one written after makes
/// the write's resourceVersion precondition refuse it (409). Returns (rounds, jobs given during
/// the run, repairs written, repairs refused by the precondition).
///
/// A runner made already being deleted (Pod-less, as ARC leaves one) is given no job while
/// `repair` runs. The write that removes its last finalizer cannot be guarded against a write
/// racing it, by any client: the API server stores the update, finds the finalizers emptied and
/// deletes the object with a UID precondition only (k8s.io/apiserver's `Store.Update` then
/// `deleteWithoutFinalizers`; `defaultUpdatedObjectInfo.Preconditions` gives no
/// resourceVersion), so a status write landing between the two is deleted with it (seen here
/// about once in 3,000 rounds). ARC's listener writes a job to a runner whose process took it, which
/// needs its Pod; `repair` removes a runner's finalizer only when its Pod is gone
/// (`core::repair::finalizer::remove_finalizers`), and a runner made being deleted with a job
/// keeps testing the refusal.
async fn lane(lane: u64, rounds: usize) -> (usize, usize, usize, usize) {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-repair-race").await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let set =
        crate::upgrade_plan_cluster::settled_scale_set(&client, &ns, "runners", "0.14.2").await;
    common::create_service_account(&client, &ns, "default").await;
    let mut rng = common::specgen::Rng::new(3400 + lane);
    let (mut given, mut written, mut precondition) = (0, 0, 0);
    for round in 0..rounds {
        let made: Vec<Made> = (0..1 + rng.below(3))
            .map(|i| random_runner(&mut rng, format!("r{round}-{i}")))
            .collect();
        for m in &made {
            make(&client, &ns, &set, m).await;
        }
        let mut targets: Vec<(String, u64)> = Vec::new();
        for m in made.iter().filter(|m| !m.has_job && !m.deleting) {
            if rng.chance(60) {
                targets.push((m.name.clone(), rng.below(120) as u64));
            }
        }
        let api = common::runner_api(&client, &ns);
        let assign = tokio::spawn(async move {
            let mut assigned = Vec::new();
            for (name, delay) in targets {
                tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                let job = json!({"status": {"jobId": format!("job-{name}")}});
                let patched = api
                    .patch_status(&name, &PatchParams::default(), &Patch::Merge(job))
                    .await;
                if patched.is_ok() {
                    assigned.push(name);
                }
            }
            assigned
        });
        let args = ["repair", "--kubeconfig", &kc, "-n", &ns, "-o", "json"].map(str::to_string);
        let (code, out, err) = common::cli::exe_async(args.to_vec()).await;
        let assigned = assign.await.unwrap();
        assert_eq!(code, 0, "lane {lane} round {round}: {out}{err}");
        let r = report(&out);
        let left = names(&client, &ns).await;
        let with_job = (made.iter().filter(|m| m.has_job).map(|m| &m.name)).chain(&assigned);
        for name in with_job {
            assert!(
                left.contains(name.as_str()),
                "lane {lane} round {round}: {name} had a job and is gone: {r:#}"
            );
        }
        for rep in (r["items"].as_array().unwrap().iter())
            .flat_map(|i| i["repairs"].as_array().unwrap().clone())
        {
            written += usize::from(rep["result"] == "Written");
            precondition += usize::from(
                rep["why"]
                    .as_str()
                    .is_some_and(|w| w.contains("changed since it was read")),
            );
        }
        given += assigned.len();
        clear(&client, &ns, &made).await;
    }
    (rounds, given, written, precondition)
}

/// Randomized, concurrent with the repair: 1,000 rounds (four lanes of 250, each in its own
/// namespace) of runners in every state ARC distinguishes, jobs given at random moments while
/// `repair` reads and writes. 0 runners with a job are deleted.
#[tokio::test(flavor = "multi_thread")]
async fn a_runner_that_gets_a_job_while_repair_runs_is_never_deleted() {
    let lanes: Vec<_> = (0..4).map(|l| tokio::spawn(lane(l, 250))).collect();
    let (mut rounds, mut given, mut written, mut precondition) = (0, 0, 0, 0);
    for l in lanes {
        let (r, g, w, p) = l.await.unwrap();
        (rounds, given, written, precondition) =
            (rounds + r, given + g, written + w, precondition + p);
    }
    assert_eq!(rounds, 1000);
    assert!(given > 0, "no job was given while repair ran");
    assert!(written > 0, "no repair was written");
    eprintln!(
        "{rounds} rounds, {given} jobs given while repair ran, {written} repairs written, {precondition} refused by the precondition"
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

/// The counters repair never overwrites what ARC wrote after it read the set: the proxy holds
/// `repair`'s status patch until ARC's own write of the counts has landed, so the patch carries
/// a resourceVersion that is no longer the set's. The API server answers 409, the repair is
/// `Refused` (exit 0: refusing is the command doing its job), and ARC's counts stay.
#[tokio::test(flavor = "multi_thread")]
async fn counts_arc_writes_after_the_read_are_not_overwritten() {
    use crate::common::faults::{Fault, FaultProxy, Rule};
    let kc = common::legacy_kubeconfig();
    let (_, client, ns) = common::fresh_namespace(kc.clone(), "arc-repair-409").await;
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
    runner(&client, &ns, &set, "pending", json!({"phase": "Pending"})).await;
    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&ns).to_str().unwrap().to_string();
    let status_patch = format!("/ephemeralrunnersets/{set_name}/status");
    proxy.add(Rule {
        method: Some("PATCH"),
        path_contains: status_patch.clone(),
        fault: Fault::Delay(std::time::Duration::from_secs(3)),
        times: 1,
    });
    let args = ["repair", "--kubeconfig", &pk, "-o", "json"].map(str::to_string);
    let task = tokio::spawn(common::cli::exe_async(args.to_vec()));
    // The patch has reached the proxy (and is held there): ARC writes its counts now.
    let held = || (proxy.log().iter()).any(|l| l.starts_with("PATCH") && l.contains(&status_patch));
    for _ in 0..2000 {
        if held() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(
        held(),
        "repair never sent its status patch: {:?}",
        proxy.log()
    );
    // Not the counts repair writes (2, 1, 1, 0): ARC saw a third runner that repair did not.
    let arc_counts = json!({"currentReplicas": 3, "pendingEphemeralRunners": 1,
        "runningEphemeralRunners": 2, "failedEphemeralRunners": 0});
    common::ers_api(&client, &ns)
        .patch_status(
            &set_name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": arc_counts })),
        )
        .await
        .unwrap();
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 0, "{out}{err}");
    let rep = &report(&out)["items"][0]["repairs"][0];
    assert_eq!(rep["repair"], "CountersDisagree", "{rep:#}");
    assert_eq!(rep["result"], "Refused", "{rep:#}");
    assert!(
        rep["why"]
            .as_str()
            .unwrap()
            .contains("changed since it was read"),
        "{rep:#}"
    );
    let stored = common::ers_api(&client, &ns).get(&set_name).await.unwrap();
    for (field, want) in arc_counts.as_object().unwrap() {
        assert_eq!(
            &stored.data["status"][field], want,
            "{field}: ARC's count stays"
        );
    }
}
