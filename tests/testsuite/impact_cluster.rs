//! Issue 32's tests of record: what a change does to running work, on the real API server.
//!
//! Runners are written as ARC writes them: created owned by their set (the set's controller
//! reference, its runner spec, ARC's finalizer), their status through the status subresource as
//! the EphemeralRunner controller and the listener write it (phase, runnerId; the job fields a
//! 0.13+ listener writes, or only `jobRequestId` and the job's names as 0.9 to 0.12.1's do). One
//! runner is being deleted (a finalizer holds it). The forecast must give the same numbers from
//! the cluster and from a `kubectl get` dump of it, and say when a dump lacks the runners.

use std::collections::BTreeSet;

use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::report;

/// The CLI in process, on a thread of its own (these tests are async; the CLI starts its own
/// runtime).
fn run(args: &[&str]) -> (u8, String, String) {
    std::thread::scope(|s| {
        s.spawn(|| crate::common::cli::in_process(args))
            .join()
            .unwrap()
    })
}

/// One runner of `set` with `status` written through the status subresource; `deleting` leaves
/// it with a deletionTimestamp (ARC's finalizer holds it).
async fn runner(
    client: &kube::Client,
    ns: &str,
    set: &DynamicObject,
    name: &str,
    status: Option<Value>,
    deleting: bool,
) {
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": name,
            "finalizers": ["ephemeralrunner.actions.github.com/finalizer"],
            "ownerReferences": [{
                "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                "name": set.metadata.name, "uid": set.metadata.uid, "controller": true,
                "blockOwnerDeletion": true}]},
        "spec": set.data["spec"]["ephemeralRunnerSpec"],
    }))
    .unwrap();
    let api = common::runner_api(client, ns);
    api.create(&PostParams::default(), &runner).await.unwrap();
    if let Some(status) = status {
        api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": status })),
        )
        .await
        .unwrap();
    }
    if deleting {
        api.delete(name, &DeleteParams::default()).await.unwrap();
    }
}

/// Runners in every phase ARC distinguishes, for `set`: two idle, one busy as a 0.13+ listener
/// records its job, one busy as a 0.9-0.12.1 listener does (no `jobId`), one pending, one that has
/// not registered yet (no status), one failed, one finished, one outdated, one being deleted.
pub(crate) async fn runners_in_every_phase(client: &kube::Client, ns: &str, set: &DynamicObject) {
    let running = |id: i64| json!({"phase": "Running", "ready": true, "runnerId": id});
    let phases: Vec<(&str, Option<Value>, bool)> = vec![
        ("idle-a", Some(running(11)), false),
        ("idle-b", Some(running(12)), false),
        (
            "busy-new",
            Some(json!({"phase": "Running", "ready": true, "runnerId": 13,
                "jobRequestId": 901, "jobId": "7e1c", "jobRepositoryName": "acme/api",
                "jobWorkflowRef": "acme/api/.github/workflows/ci.yaml@refs/heads/main",
                "workflowRunId": 812, "jobDisplayName": "build"})),
            false,
        ),
        (
            "busy-old",
            Some(json!({"phase": "Running", "ready": true, "runnerId": 14,
                "jobRequestId": 902, "jobRepositoryName": "acme/web",
                "jobWorkflowRef": "acme/web/.github/workflows/test.yaml@refs/heads/main",
                "workflowRunId": 813, "jobDisplayName": "test"})),
            false,
        ),
        (
            "pending",
            Some(json!({"phase": "Pending", "runnerId": 15})),
            false,
        ),
        ("unregistered", None, false),
        (
            "failed",
            Some(json!({"phase": "Failed", "runnerId": 16, "reason": "TooManyPodFailures"})),
            false,
        ),
        (
            "finished",
            Some(json!({"phase": "Succeeded", "runnerId": 17})),
            false,
        ),
        (
            "outdated",
            Some(json!({"phase": "Outdated", "runnerId": 18})),
            false,
        ),
        ("deleting", Some(running(19)), true),
    ];
    for (name, status, deleting) in phases {
        runner(client, ns, set, name, status, deleting).await;
    }
}

/// ARC's controller Deployment as the gha-runner-scale-set-controller chart makes it, of release
/// `version`, its manager started with `args`.
pub(crate) fn controller_deployment(
    version: &str,
    args: &[&str],
) -> k8s_openapi::api::apps::v1::Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": "arc-gha-rs-controller", "labels": {
            "app.kubernetes.io/name": "gha-rs-controller",
            "app.kubernetes.io/part-of": "gha-rs-controller",
            "app.kubernetes.io/version": version}},
        "spec": {"replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "gha-rs-controller"}},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": "gha-rs-controller"}},
                "spec": {"containers": [{"name": "manager",
                    "image": format!("ghcr.io/actions/gha-runner-scale-set-controller:{version}"),
                    "args": args}]}}}
    }))
    .unwrap()
}

/// The set's counters as its controller writes them for those runners: running (idle and busy,
/// not deleting) 4, pending (pending and no phase) 2.
fn counters() -> Value {
    json!({"currentReplicas": 9, "runningEphemeralRunners": 4, "pendingEphemeralRunners": 2,
           "failedEphemeralRunners": 1})
}

pub(crate) fn kubectl_get(kubeconfig: &std::path::Path, ns: &str, kinds: &str) -> String {
    let kubectl = std::env::var("KUBECTL_ARC_TEST_KUBECTL")
        .expect("KUBECTL_ARC_TEST_KUBECTL: the test bed's kubectl");
    let out = std::process::Command::new(&kubectl)
        .args(["--kubeconfig", kubeconfig.to_str().unwrap(), "-n", ns])
        .args(["get", kinds, "-o", "yaml"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn only_item(r: &Value) -> &Value {
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{r:#}");
    &items[0]
}

fn busy_names(impact: &Value) -> BTreeSet<String> {
    impact["busy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect()
}

/// The impact without where the strategy was read (a dump does not hold the controller).
fn counted(impact: &Value) -> Value {
    let mut i = impact.clone();
    if let Some(s) = i.get_mut("updateStrategy") {
        s.as_object_mut().unwrap().remove("from");
    }
    i
}

/// The image the scale sets of these tests run.
pub(crate) const RUNNER_IMAGE: &str = "ghcr.io/actions/actions-runner:2.329.0";

/// The 0.14.2 scale set of the test and its set, made by ARC from an older template (its
/// runner-spec hash is of the scale set before `image` changed).
async fn scale_set_0_14_2(client: &kube::Client, ns: &str, name: &str) -> DynamicObject {
    scale_set_made_by(
        client,
        ns,
        name,
        "0.14.2",
        "ghcr.io/actions/actions-runner:2.328.0",
    )
    .await
}

/// A scale set on [`RUNNER_IMAGE`], labelled `release` as its chart labels it (with Helm's
/// release annotation), and its set as that release made it from the scale set when its runner
/// ran `made_from_image`: the set's runner spec and its `runner-spec-hash` (the release's
/// `RunnerSetSpecHash()`) are of that scale set; its counters as [`counters`].
pub(crate) async fn scale_set_made_by(
    client: &kube::Client,
    ns: &str,
    name: &str,
    release: &str,
    made_from_image: &str,
) -> DynamicObject {
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name,
            "labels": {"app.kubernetes.io/version": release, "app.kubernetes.io/instance": name},
            "annotations": {"runner-scale-set-id": "7", "meta.helm.sh/release-name": name}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
            "maxRunners": 10,
            "template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "runner", "image": RUNNER_IMAGE}]}}}
    }))
    .unwrap();
    let ars = common::ars_api(client, ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    let mut before = serde_json::to_value(&ars).unwrap();
    before["spec"]["template"]["spec"]["containers"][0]["image"] = json!(made_from_image);
    let hash = kubectl_arc::core::spec_hash::runner_set_spec_hash(
        kubectl_arc::core::release::release(release).unwrap(),
        &serde_json::to_string(&before["spec"]).unwrap(),
    )
    .unwrap();
    let set: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "metadata": {"generateName": format!("{name}-"),
            "labels": {"app.kubernetes.io/version": release,
                "actions.github.com/scale-set-name": name,
                "actions.github.com/scale-set-namespace": ns},
            "annotations": {"actions.github.com/runner-spec-hash": hash},
            "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1",
                "kind": "AutoscalingRunnerSet", "name": name, "uid": ars.metadata.uid,
                "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"replicas": 9, "patchID": 3, "ephemeralRunnerSpec": {
            "githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
            "runnerScaleSetId": 7,
            "spec": before["spec"]["template"]["spec"]}}
    }))
    .unwrap();
    let set = common::ers_api(client, ns)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
    let set_name = set.metadata.name.clone().unwrap();
    common::set_ers_status(client, ns, &set_name, counters()).await
}

/// ARC 0.14.2 replaces the set: with the default strategy its idle and pending registered
/// runners go at once with the finished, failed and outdated ones (`cleanUpEphemeralRunners` of
/// the deleted set), both busy runners (by either listener's record) finish first, the one not
/// registered stays, the listener is made again; new jobs do not wait. The same numbers from a
/// dump; a dump without the runners says so.
#[tokio::test(flavor = "multi_thread")]
async fn a_replacement_by_0_14_2_forecasts_each_runner_from_the_cluster_and_from_a_dump() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-impact").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = scale_set_0_14_2(&client, &ns, "runners").await;
    runners_in_every_phase(&client, &ns, &set).await;

    let (code, out, err) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let item = only_item(&r);
    assert_eq!(item["recycle"], true, "{item:#}");
    let impact = &item["impact"];
    assert_eq!(impact["runnersKnown"], true, "{impact:#}");
    assert_eq!(
        (impact["idle"].as_u64(), impact["pending"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        impact["deleted"], 6,
        "idle 2, pending 1, failed, finished, outdated: {impact:#}"
    );
    assert_eq!(impact["unregistered"], 1, "{impact:#}");
    assert_eq!(
        busy_names(impact),
        BTreeSet::from(["busy-new".to_string(), "busy-old".to_string()])
    );
    let new = impact["busy"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "busy-new")
        .unwrap();
    assert_eq!(new["jobRepositoryName"], "acme/api");
    assert_eq!(new["workflowRunId"], 812);
    assert_eq!(new["jobDisplayName"], "build");
    assert_eq!(
        new["jobWorkflowRef"],
        "acme/api/.github/workflows/ci.yaml@refs/heads/main"
    );
    assert_eq!(impact["listenerRecreated"], true);
    assert_eq!(impact["jobPickupPauses"], true);
    assert_eq!(impact["waitsForJobs"], false);
    assert_eq!(impact["updateStrategy"]["value"], "immediate", "{impact:#}");
    assert_eq!(r["impact"]["deleted"], 6);
    assert_eq!(r["impact"]["busy"], 2);

    // The text's verdict line carries it, the totals close the output.
    let (code, text, _) = run(&["diff", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(code, 1);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains(
            "2 idle, 1 pending and 3 finished or failed runners deleted now; 2 busy runners finish their jobs first (acme/"
        ),
        "{text}"
    );
    assert!(
        first.contains("job pickup pauses while the listener is made again"),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("impact on 1 scale set: 6 runners deleted now, 2 busy runners"),
        "{text}"
    );

    // --fail-on: nothing waits for running jobs here.
    for (fail_on, want) in [("recycle", 1), ("jobs", 0), ("never", 0)] {
        let (code, _, err) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "--fail-on", fail_on]);
        assert_eq!(code, want, "--fail-on {fail_on}: {err}");
    }
    let (code, _, err) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "--fail-on", "jobz"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("jobz"), "{err}");

    // bump (its dry run too) forecasts its own replacement by the same rule.
    let (code, out, err) = run(&[
        "bump",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--all",
        "--dry-run=server",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}{out}");
    let bumped = report(&out);
    let b = &bumped["items"][0];
    assert_eq!(b["result"], "WouldBump", "{bumped:#}");
    assert_eq!(counted(&b["impact"]), counted(impact), "{bumped:#}");
    assert!(err.contains("impact: 2 idle, 1 pending"), "{err}");

    // The same numbers from a dump of the three kinds.
    let scratch = common::scratch_dir("arc-impact-dump");
    let dump = scratch.join("dump.yaml");
    std::fs::write(
        &dump,
        kubectl_get(
            &kubeconfig,
            &ns,
            "autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners",
        ),
    )
    .unwrap();
    let (code, out, err) = run(&["diff", "--live", dump.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let offline = report(&out);
    assert_eq!(counted(&only_item(&offline)["impact"]), counted(impact));
    assert_eq!(offline["impact"], r["impact"]);

    // A dump without them: never a 0 that was not counted.
    let partial = scratch.join("sets.yaml");
    std::fs::write(
        &partial,
        kubectl_get(
            &kubeconfig,
            &ns,
            "autoscalingrunnersets,ephemeralrunnersets",
        ),
    )
    .unwrap();
    let (code, out, _) = run(&["diff", "--live", partial.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let unknown = report(&out);
    let impact = &only_item(&unknown)["impact"];
    assert_eq!(impact["runnersKnown"], false, "{impact:#}");
    assert_eq!(impact["deleted"], 0);
    assert_eq!(impact["busy"], json!([]));
    let (_, text, _) = run(&["diff", "--live", partial.to_str().unwrap()]);
    assert!(text.contains("its runners are not in the input"), "{text}");
    assert!(!text.contains("0 runners deleted"), "{text}");
}

/// A 0.14.2 controller Deployment started with `--update-strategy eventual` (Go's flag package
/// takes the next argument as the value): the set is scaled to 0 first, so its idle and pending
/// registered runners and the finished one go, the failed and outdated ones stay with the set,
/// and the new set waits for the running and pending ones: `--fail-on jobs` exits 1.
#[tokio::test(flavor = "multi_thread")]
async fn the_eventual_strategy_read_from_the_controller_makes_new_jobs_wait() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-impact-ev").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = scale_set_0_14_2(&client, &ns, "runners").await;
    runners_in_every_phase(&client, &ns, &set).await;
    let ctl = common::namespace(&client, "arc-systems").await;
    let deploy = controller_deployment(
        "0.14.2",
        &[
            "--auto-scaling-runner-set-only",
            "--log-level=debug",
            "--update-strategy",
            "eventual",
            "--metrics-addr=0",
        ],
    );
    let controller =
        common::controller::ControllerDeployment::create(&kubeconfig, &client, &ctl, &deploy).await;
    let (code, out, err) = common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let impact = &only_item(&r)["impact"];
    assert_eq!(impact["updateStrategy"]["value"], "eventual", "{impact:#}");
    let from = impact["updateStrategy"]["from"].as_str().unwrap();
    assert!(
        from.contains(&format!(
            "controller Deployment {ctl}/arc-gha-rs-controller"
        )) && from.contains("--update-strategy=eventual"),
        "{from}"
    );
    assert_eq!(
        impact["deleted"], 4,
        "idle 2, pending 1, finished 1: {impact:#}"
    );
    assert_eq!(impact["waitsForJobs"], true);
    assert_eq!(impact["jobPickupPauses"], true);
    assert_eq!(busy_names(impact).len(), 2);
    let (code, text, _) = common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns]);
    assert_eq!(code, 1);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("new jobs wait until the set's running and pending runners are gone"),
        "{text}"
    );
    assert!(
        text.contains("update strategy eventual: controller Deployment"),
        "{text}"
    );
    let (code, _, err) =
        common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns, "--fail-on", "jobs"]);
    assert_eq!(code, 1, "{err}");
    drop(controller);
}

/// The revision era: a Semantic change through the scale set is deferred while the set counts
/// running or pending runners (the listener deleted, nothing patched: new jobs wait); with none
/// counted the set is patched and its cleanup deletes idle, pending and terminated runners at
/// once while busy ones (`HasJob()`) finish on the old spec. No update strategy applies.
#[tokio::test(flavor = "multi_thread")]
async fn the_revision_era_defers_while_runners_are_active_and_cleans_up_otherwise() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-impact-rev").await;
    let kc = kubeconfig.to_str().unwrap();
    common::scale_set(&client, &ns, "runners", 9).await;
    let set = common::ers_api(&client, &ns).get("runners").await.unwrap();
    runners_in_every_phase(&client, &ns, &set).await;
    common::ars_api(&client, &ns)
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "runner", "image": "img:2"}]}}}})),
        )
        .await
        .unwrap();
    let mut status = counters();
    status["appliedActionableRevision"] = json!(1);
    status["runningEphemeralRunners"] = json!(0);
    status["pendingEphemeralRunners"] = json!(0);
    common::set_ers_status(&client, &ns, "runners", status.clone()).await;
    let (code, out, err) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let item = only_item(&r);
    assert_eq!(item["mechanism"], "ActionableRevision", "{item:#}");
    let impact = &item["impact"];
    assert_eq!(impact["deleted"], 6, "{impact:#}");
    assert_eq!(busy_names(impact).len(), 2);
    assert_eq!(impact["waitsForJobs"], false);
    assert_eq!(impact["jobPickupPauses"], false);
    assert!(impact.get("updateStrategy").is_none(), "{impact:#}");

    // The controller's counters say runners are active: the change waits for them.
    status["runningEphemeralRunners"] = json!(4);
    status["pendingEphemeralRunners"] = json!(2);
    common::set_ers_status(&client, &ns, "runners", status).await;
    let (code, out, _) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1);
    let r = report(&out);
    let impact = &only_item(&r)["impact"];
    assert_eq!(impact["deleted"], 0, "{impact:#}");
    assert_eq!(impact["waitsForJobs"], true);
    assert_eq!(impact["jobPickupPauses"], true);
    assert_eq!(impact["listenerRecreated"], true);
    assert_eq!(impact["idleRunnersHoldTheWait"], true);
    let (code, _, _) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "--fail-on", "jobs"]);
    assert_eq!(code, 1);

    // A bump is the set's own cleanup, whatever the counters: no deferral, no listener.
    let (code, out, err) = run(&[
        "bump",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "runners",
        "--dry-run=server",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}{out}");
    let bumped = report(&out);
    let impact = &bumped["items"][0]["impact"];
    assert_eq!(impact["deleted"], 6, "{bumped:#}");
    assert_eq!(busy_names(impact).len(), 2);
    assert_eq!(impact["waitsForJobs"], false);
    assert_eq!(impact["jobPickupPauses"], false);
}

/// A pull request bumped the scale-set chart to 0.14.2 ahead of a 0.13.1 controller: the running
/// controller's version check (`v1alpha1.IsVersionAllowed`, another minor) deletes the scale set,
/// and diff, judging by the controller Deployment's release, says so from the cluster: deleted,
/// not replaced, with every runner of its set cleaned up and job pickup stopped.
#[tokio::test(flavor = "multi_thread")]
async fn a_controller_that_does_not_allow_the_chart_label_deletes_the_scale_set() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-impact-vc").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = scale_set_0_14_2(&client, &ns, "runners").await;
    runners_in_every_phase(&client, &ns, &set).await;
    let ctl = common::namespace(&client, "arc-systems-vc").await;
    let deploy = controller_deployment(
        "0.13.1",
        &[
            "--auto-scaling-runner-set-only",
            "--update-strategy=eventual",
        ],
    );
    let controller =
        common::controller::ControllerDeployment::create(&kubeconfig, &client, &ctl, &deploy).await;
    let (code, out, err) = common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let item = only_item(&r);
    assert_eq!(item["release"], "0.13.1", "{item:#}");
    let check = &item["deletedByVersionCheck"];
    assert_eq!(check["label"], "0.14.2", "{item:#}");
    assert_eq!(check["allowed"], false);
    let impact = &item["impact"];
    // The deletion ignores the strategy: every set is cleaned up at once.
    assert_eq!(impact["deleted"], 6, "{impact:#}");
    assert_eq!(impact["scaleSetDeleted"], true);
    assert_eq!(impact["waitsForJobs"], false);
    assert_eq!(busy_names(impact).len(), 2);
    let (code, _, _) =
        common::cli::exe(&["diff", "--kubeconfig", kc, "-n", &ns, "--fail-on", "jobs"]);
    assert_eq!(code, 1);
    // status says it of the set's row, from the same controller.
    let (_, out, err) = common::cli::exe(&["status", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    let rows = report(&out);
    let said = (rows["items"].as_array().unwrap().iter())
        .flat_map(|i| i["reasons"].as_array().cloned().unwrap_or_default())
        .find(|r| r["reason"] == "DeletedByVersionCheck")
        .unwrap_or_else(|| panic!("{rows:#}{err}"));
    let message = said["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "controller Deployment {ctl}/arc-gha-rs-controller runs ARC 0.13.1"
        )) && message.contains("app.kubernetes.io/version label 0.14.2 is not allowed"),
        "{message}"
    );
    drop(controller);
}

/// The integrity-hash era (the set named like its scale set, `actions.github.com/integrity-hash`
/// not the hash of the desired spec): the change goes through the scale set's controller, which
/// defers while the set counts running or pending runners (the listener deleted, new jobs wait),
/// and once they are gone patches the set, whose cleanup deletes idle, pending and terminated
/// runners at once (busy ones by `HasJob()` finish first).
#[tokio::test(flavor = "multi_thread")]
async fn the_integrity_hash_era_defers_then_cleans_up() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-impact-ih").await;
    let kc = kubeconfig.to_str().unwrap();
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": common::runner_spec("img:2")["spec"]}}
    }))
    .unwrap();
    let ars = common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    let mut ers = common::ers_object("runners", common::runner_spec("img:1"));
    ers.data["spec"]["replicas"] = json!(9);
    ers.metadata.annotations = Some(
        [(
            "actions.github.com/integrity-hash".to_string(),
            "0".to_string(),
        )]
        .into_iter()
        .collect(),
    );
    ers.metadata.owner_references = Some(vec![
        serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": ars.metadata.uid, "controller": true,
            "blockOwnerDeletion": true
        }))
        .unwrap(),
    ]);
    let set = common::ers_api(&client, &ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    common::set_ers_status(&client, &ns, "runners", counters()).await;
    runners_in_every_phase(&client, &ns, &set).await;

    let (code, out, err) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let item = only_item(&r);
    assert_eq!(item["mechanism"], "IntegrityHash", "{item:#}");
    let impact = &item["impact"];
    assert_eq!(impact["waitsForJobs"], true, "{impact:#}");
    assert_eq!(impact["jobPickupPauses"], true);
    assert_eq!(impact["deleted"], 0);
    assert_eq!(busy_names(impact).len(), 2);

    let mut drained = counters();
    drained["runningEphemeralRunners"] = json!(0);
    drained["pendingEphemeralRunners"] = json!(0);
    common::set_ers_status(&client, &ns, "runners", drained).await;
    let (code, out, _) = run(&["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1);
    let r = report(&out);
    let impact = &only_item(&r)["impact"];
    assert_eq!(impact["deleted"], 6, "{impact:#}");
    assert_eq!(impact["waitsForJobs"], false);
    assert_eq!(impact["unregistered"], 1);
}

/// Across namespaces (`-A`): the runners are listed once for all, and each scale set counts only
/// its own set's.
#[tokio::test(flavor = "multi_thread")]
async fn across_namespaces_each_scale_set_counts_its_own_runners() {
    let kubeconfig = common::legacy_kubeconfig();
    let client = common::client(&kubeconfig).await;
    let kc = kubeconfig.to_str().unwrap();
    let mark = common::unique_name("impact-all");
    let mut namespaces = Vec::new();
    for _ in 0..2 {
        let ns = common::namespace(&client, "arc-impact-all").await;
        let set = scale_set_0_14_2(&client, &ns, "runners").await;
        runners_in_every_phase(&client, &ns, &set).await;
        common::ars_api(&client, &ns)
            .patch(
                "runners",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"impact-test": mark}}})),
            )
            .await
            .unwrap();
        namespaces.push(ns);
    }
    let selector = format!("impact-test={mark}");
    let (code, out, err) = run(&[
        "diff",
        "--kubeconfig",
        kc,
        "-A",
        "-l",
        &selector,
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{err}{out}");
    let r = report(&out);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{r:#}");
    for item in items {
        assert!(namespaces.contains(&item["namespace"].as_str().unwrap().to_string()));
        assert_eq!(item["impact"]["deleted"], 6, "{item:#}");
        assert_eq!(busy_names(&item["impact"]).len(), 2);
    }
    assert_eq!(r["impact"]["deleted"], 12);
}

/// Issues 33 and 31: `status` judges a set by the release `diff` judges it by, the running
/// controller's. A 0.13.1 controller Deployment and a scale set its chart moved to 0.14.2 ahead of
/// it: `diff` says ARC 0.13.1 deletes the scale set; `status` gives its set the state
/// `VersionRejected`, judged by 0.13.1 too (before, by the scale set's own 0.14.2 label, while the
/// reason named the controller's release); `--wait` fails at once on it; a `kubectl get` dump with
/// the controller Deployment says the same offline; and `--arc-version 0.14.2` judges both
/// commands by that release instead (replaced, not deleted).
#[tokio::test(flavor = "multi_thread")]
async fn status_and_diff_judge_by_the_running_controller_and_agree_on_the_deletion() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-status-vc").await;
    let kc = kubeconfig.to_str().unwrap();
    let set = scale_set_0_14_2(&client, &ns, "runners").await;
    runners_in_every_phase(&client, &ns, &set).await;
    let set_name = set.metadata.name.clone().unwrap();
    let ctl = common::namespace(&client, "arc-systems-svc").await;
    let deploy = controller_deployment("0.13.1", &["--auto-scaling-runner-set-only"]);
    let controller =
        common::controller::ControllerDeployment::create(&kubeconfig, &client, &ctl, &deploy).await;
    let judged = |extra: &[&str]| {
        let (code, out, err) = common::cli::exe(
            &[
                &["diff", "--kubeconfig", kc, "-n", &ns, "-o", "json"],
                extra,
            ]
            .concat(),
        );
        assert_eq!(code, 1, "{err}{out}");
        let diff = only_item(&report(&out)).clone();
        let (code, out, err) = common::cli::exe(
            &[
                &["status", "--kubeconfig", kc, "-n", &ns, "-o", "json"],
                extra,
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{err}{out}");
        let status = only_item(&report(&out)).clone();
        assert_eq!(status["name"], set_name.as_str(), "{status:#}");
        (diff, status)
    };
    let (diff, status) = judged(&[]);
    assert_eq!(diff["release"], "0.13.1", "{diff:#}");
    assert_eq!(diff["deletedByVersionCheck"]["label"], "0.14.2");
    assert_eq!(status["release"], diff["release"], "{status:#}");
    assert_eq!(status["state"], "VersionRejected", "{status:#}");
    let reasons = status["reasons"].as_array().unwrap();
    assert_eq!(reasons[0]["reason"], "DeletedByVersionCheck", "{status:#}");
    let message = reasons[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "controller Deployment {ctl}/arc-gha-rs-controller runs ARC 0.13.1, whose version check deletes this scale set: its app.kubernetes.io/version label 0.14.2 is not allowed"
        )) && message.contains(diff["deletedByVersionCheck"]["rule"].as_str().unwrap()),
        "{message}"
    );
    // The deletion comes first in ARC's Reconcile: the replacement is never reached.
    assert!(
        !reasons.iter().any(|r| r["reason"] == "ReplacementPending"),
        "{status:#}"
    );
    // --wait stops at once: the set never settles.
    let (code, _, err) = common::cli::exe(&[
        "status",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "--wait",
        "--timeout",
        "2m",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "waiting cannot help: {ns}/{set_name} is VersionRejected (controller Deployment {ctl}/arc-gha-rs-controller runs ARC 0.13.1"
        )),
        "{err}"
    );
    // Offline, from a dump of the objects and the controller Deployment: the same verdict.
    let dir = common::scratch_dir("status-vc");
    let objects = dir.join("objects.yaml");
    let objects_kinds = "autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners";
    std::fs::write(&objects, kubectl_get(&kubeconfig, &ns, objects_kinds)).unwrap();
    let controllers = dir.join("controller.yaml");
    std::fs::write(&controllers, kubectl_get(&kubeconfig, &ctl, "deployments")).unwrap();
    let (code, out, err) = common::cli::exe(&[
        "status",
        "-f",
        objects.to_str().unwrap(),
        "-f",
        controllers.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let offline = only_item(&report(&out)).clone();
    assert_eq!(offline["state"], "VersionRejected", "{offline:#}");
    assert_eq!(offline["release"], "0.13.1");
    // --arc-version judges both instead: 0.14.2 keeps the scale set and replaces its set.
    let (diff, status) = judged(&["--arc-version", "0.14.2"]);
    assert_eq!(diff["release"], "0.14.2", "{diff:#}");
    assert!(diff.get("deletedByVersionCheck").is_none(), "{diff:#}");
    assert_eq!(status["release"], "0.14.2", "{status:#}");
    assert_eq!(status["state"], "Replacing", "{status:#}");
    assert_eq!(
        status["desiredRunnerSpecHash"],
        diff["runnerSpecHash"]["desired"]
    );
    drop(controller);
}
