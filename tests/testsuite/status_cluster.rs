//! `kubectl arc status` end to end against the real API server with ARC's CRDs: every state made
//! from real EphemeralRunnerSets and EphemeralRunners (statuses written through the status
//! subresource, as ARC's controllers write them), shown in the table and in JSON, online and from
//! a dump; `--wait` and `--watch` following a status patch that plays ARC's EphemeralRunnerSet
//! controller; and the errors that exit 2.

use crate::common;

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::cli::{args, in_process_async, report};
use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// The runner spec of a set whose runner container uses `image`.
fn runner_spec(image: &str) -> Value {
    json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 1,
        "spec": {"restartPolicy": "Never", "containers": [{"name": "runner", "image": image, "command": ["/home/runner/run.sh"]}]}
    })
}

/// Create a set with `spec.actionableRevision` and, through the status subresource,
/// `status.appliedActionableRevision` (and the phase).
async fn create_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    image: &str,
    spec_revision: i64,
    status: Value,
    annotations: Value,
) -> DynamicObject {
    let mut ers = common::ers_object(name, runner_spec(image));
    ers.data["spec"]["actionableRevision"] = json!(spec_revision);
    if let Some(a) = annotations.as_object() {
        ers.metadata.annotations = Some(
            a.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect(),
        );
    }
    let created = common::ers_api(client, ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    if !status.is_null() {
        return common::set_ers_status(client, ns, name, status).await;
    }
    created
}

/// Create a runner owned by `set` with `spec` and, through the status subresource, `status`.
async fn create_runner(
    client: &kube::Client,
    set: &DynamicObject,
    name: &str,
    spec: Value,
    status: Value,
    finalizer: bool,
) {
    let ns = set.metadata.namespace.clone().unwrap();
    let mut meta = json!({
        "name": name,
        "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": set.metadata.name, "uid": set.metadata.uid, "controller": true, "blockOwnerDeletion": true
        }],
    });
    if finalizer {
        meta["finalizers"] = json!(["ephemeralrunner.actions.github.com/finalizer"]);
    }
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": meta, "spec": spec,
    }))
    .unwrap();
    let api = common::runner_api(client, &ns);
    api.create(&PostParams::default(), &runner).await.unwrap();
    if !status.is_null() {
        api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": status})),
        )
        .await
        .unwrap();
    }
    // A runner reaches phase Running from its Pod (`updateRunStatusFromPod`): its Pod runs, as
    // `newEphemeralRunnerPod` names and labels it and a kubelet writes its status.
    if status["phase"] == "Running" {
        runner_pod(client, &ns, name).await;
    }
}

/// The running Pod of runner `name` (and the namespace's `runner` ServiceAccount it needs).
async fn runner_pod(client: &kube::Client, ns: &str, name: &str) {
    let accounts = kube::api::Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(
        client.clone(),
        ns,
    );
    if accounts.get_opt("runner").await.unwrap().is_none() {
        common::create_service_account(client, ns, "runner").await;
    }
    let pod = json!({
        "metadata": {"name": name, "labels": {"actions-ephemeral-runner": "True"}},
        "spec": {"restartPolicy": "Never", "automountServiceAccountToken": false,
                 "serviceAccountName": "runner",
                 "containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.329.0"}]}
    });
    let running = json!({"phase": "Running", "containerStatuses": [{"name": "runner", "ready": true,
        "restartCount": 0, "image": "ghcr.io/actions/actions-runner:2.329.0", "imageID": "",
        "state": {"running": {"startedAt": "2026-09-01T00:00:00Z"}}}]});
    common::create_pod_with_status(client, ns, pod, running).await;
}

/// `kubectl-arc status --kubeconfig KUBECONFIG -n NS ARGS...`, in-process; (exit code, stdout,
/// stderr).
async fn run_status(kubeconfig: &str, ns: &str, extra: &[&str]) -> (u8, String, String) {
    let mut argv = vec!["status", "--kubeconfig", kubeconfig, "-n", ns];
    argv.extend_from_slice(extra);
    in_process_async(args(&argv)).await
}

fn item<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {report}"))
}

/// The messages of a row's reasons, one a line.
fn reasons(item: &Value) -> String {
    item["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The codes of a row's reasons, in order.
fn reason_codes(item: &Value) -> Vec<&str> {
    item["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect()
}

/// The cells of a table row whose first cell is `name`.
fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cells| cells.first() == Some(&name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
}

/// One of every state, made of real objects.
async fn every_state(client: &kube::Client, ns: &str) {
    // Synced: the revisions agree; the idle runners run the set's spec (one with the proxy secret
    // ARC sets on each runner, one with an empty env that Go reads as none); a busy runner on the
    // old image is only counted, and a deleting one is not stale.
    let synced = create_set(
        client,
        ns,
        "synced",
        "img:2",
        2,
        json!({"appliedActionableRevision": 2, "phase": "Running"}),
        json!({}),
    )
    .await;
    let running = |id: i64| json!({"phase": "Running", "runnerId": id, "ready": true});
    create_runner(
        client,
        &synced,
        "synced-idle",
        runner_spec("img:2"),
        running(11),
        false,
    )
    .await;
    let mut proxied = runner_spec("img:2");
    proxied["proxySecretRef"] = json!("synced-runner-proxy");
    create_runner(
        client,
        &synced,
        "synced-proxied",
        proxied,
        running(12),
        false,
    )
    .await;
    let mut empty_env = runner_spec("img:2");
    empty_env["spec"]["containers"][0]["env"] = json!([]);
    create_runner(
        client,
        &synced,
        "synced-empty-env",
        empty_env,
        running(13),
        false,
    )
    .await;
    create_runner(
        client,
        &synced,
        "synced-busy-old",
        runner_spec("img:1"),
        json!({"phase": "Running", "runnerId": 14, "jobId": "4242"}),
        false,
    )
    .await;
    create_runner(
        client,
        &synced,
        "synced-deleting",
        runner_spec("img:1"),
        running(15),
        true,
    )
    .await;
    common::runner_api(client, ns)
        .delete("synced-deleting", &DeleteParams::default())
        .await
        .unwrap();

    // Pending: the "ARS controller" asked for revision 3; a busy runner, a runner that never
    // registered and an outdated one are there.
    let pending = create_set(
        client,
        ns,
        "pending",
        "img:2",
        2,
        json!({"appliedActionableRevision": 2}),
        json!({}),
    )
    .await;
    common::ers_api(client, ns)
        .patch(
            "pending",
            &PatchParams::apply("arc-controller-sim").force(),
            &Patch::Apply(json!({
                "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                "spec": {"actionableRevision": 3, "patchID": 0},
            })),
        )
        .await
        .unwrap();
    create_runner(
        client,
        &pending,
        "pending-busy",
        runner_spec("img:1"),
        json!({"phase": "Running", "runnerId": 21, "jobId": "77"}),
        false,
    )
    .await;
    create_runner(
        client,
        &pending,
        "pending-unregistered",
        runner_spec("img:2"),
        Value::Null,
        false,
    )
    .await;
    create_runner(
        client,
        &pending,
        "pending-outdated",
        runner_spec("img:1"),
        json!({"phase": "Outdated", "runnerId": 23, "reason": "Outdated"}),
        false,
    )
    .await;

    // Stale: the revisions agree, yet an idle runner runs the old image.
    let stale = create_set(
        client,
        ns,
        "stale",
        "img:2",
        4,
        json!({"appliedActionableRevision": 4, "phase": "Running"}),
        json!({}),
    )
    .await;
    create_runner(
        client,
        &stale,
        "stale-idle-old",
        runner_spec("img:1"),
        running(31),
        false,
    )
    .await;
    create_runner(
        client,
        &stale,
        "stale-failed",
        runner_spec("img:2"),
        json!({"phase": "Failed", "runnerId": 32}),
        false,
    )
    .await;

    // Legacy: migrate has not run.
    create_set(
        client,
        ns,
        "legacy",
        "img:2",
        0,
        Value::Null,
        json!({"actions.github.com/integrity-hash": "1234567890"}),
    )
    .await;

    // Invalid: applied ahead of spec.
    create_set(
        client,
        ns,
        "invalid",
        "img:2",
        1,
        json!({"appliedActionableRevision": 4}),
        json!({}),
    )
    .await;
}

fn check_states_json(r: &Value) {
    let counts = |name: &str| {
        let rn = &item(r, name)["runners"];
        [
            rn["idle"].as_u64().unwrap(),
            rn["busy"].as_u64().unwrap(),
            rn["pending"].as_u64().unwrap(),
            rn["failed"].as_u64().unwrap(),
            rn["stale"].as_u64().unwrap(),
        ]
    };
    let s = item(r, "synced");
    assert_eq!(s["state"], "Synced", "{s}");
    assert_eq!(
        (s["specRevision"].as_i64(), s["appliedRevision"].as_i64()),
        (Some(2), Some(2))
    );
    assert_eq!(counts("synced"), [3, 1, 0, 0, 1], "{s}");
    assert_eq!(s["runners"]["deleting"], 1);
    assert!(
        reasons(s).contains("1 runner busy with a job on an older spec"),
        "{s}"
    );

    let p = item(r, "pending");
    assert_eq!(p["state"], "Pending", "{p}");
    assert_eq!(
        (p["specRevision"].as_i64(), p["appliedRevision"].as_i64()),
        (Some(3), Some(2))
    );
    assert_eq!(counts("pending"), [0, 1, 1, 0, 2], "{p}");
    assert_eq!(p["runners"]["outdated"], 1);
    let why = reasons(p);
    assert!(
        why.contains("revision 3 is requested and not acknowledged yet (applied 2)"),
        "{why}"
    );
    assert!(why.contains("last written by arc-controller-sim"), "{why}");
    assert!(
        why.contains("busy with a job") && why.contains("pending-busy"),
        "{why}"
    );
    assert!(
        why.contains("runnerId 0") && why.contains("pending-unregistered"),
        "{why}"
    );
    assert!(
        why.contains("phase Outdated") && why.contains("pending-outdated"),
        "{why}"
    );
    assert_eq!(
        reason_codes(p)[..2],
        ["RevisionNotAcknowledged", "RevisionWrittenBy"],
        "{p}"
    );
    assert!(reason_codes(p).contains(&"RunnersUnregistered"), "{p}");

    let t = item(r, "stale");
    assert_eq!(t["state"], "Stale", "{t}");
    assert_eq!(counts("stale"), [1, 0, 0, 1, 1], "{t}");
    assert!(reasons(t).contains("stale-idle-old"), "{t}");
    assert_eq!(reason_codes(t)[0], "StaleRunners", "{t}");

    let l = item(r, "legacy");
    assert_eq!(l["state"], "Legacy", "{l}");
    assert!(reasons(l).contains("kubectl arc migrate"), "{l}");
    assert_eq!(reason_codes(l)[0], "LegacyAnnotation", "{l}");

    let i = item(r, "invalid");
    assert_eq!(i["state"], "Invalid", "{i}");
    assert_eq!(
        (i["specRevision"].as_i64(), i["appliedRevision"].as_i64()),
        (Some(1), Some(4))
    );
    assert!(
        reasons(i).contains("is ahead of spec.actionableRevision 1"),
        "{i}"
    );
    assert_eq!(reason_codes(i), ["AppliedAhead"], "{i}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_state_from_real_objects_in_table_and_json() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-status").await;
    every_state(&client, &ns).await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = run_status(&kc, &ns, &["-o", "json"]).await;
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    assert_eq!(r["kind"], "StatusReport");
    assert_eq!(r["items"].as_array().unwrap().len(), 5, "{out}");
    check_states_json(&r);

    // The table: NAME SPEC APPLIED STATE IDLE BUSY PENDING FAILED STALE AGE.
    let (code, table, err) = run_status(&kc, &ns, &[]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        table
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>(),
        [
            "NAME", "SPEC", "APPLIED", "STATE", "IDLE", "BUSY", "PENDING", "FAILED", "STALE", "AGE"
        ]
    );
    assert_eq!(
        row(&table, "synced")[..9],
        ["synced", "2", "2", "Synced", "3", "1", "0", "0", "1"]
    );
    assert_eq!(
        row(&table, "pending")[..9],
        ["pending", "3", "2", "Pending", "0", "1", "1", "0", "2"]
    );
    assert_eq!(
        row(&table, "stale")[..9],
        ["stale", "4", "4", "Stale", "1", "0", "0", "1", "1"]
    );
    assert_eq!(row(&table, "legacy")[..4], ["legacy", "0", "0", "Legacy"]);
    assert_eq!(
        row(&table, "invalid")[..4],
        ["invalid", "1", "4", "Invalid"]
    );
    assert!(!table.contains('\u{1b}'), "no colour when not a terminal");

    // -o wide adds the phase and the reasons; `status NAME` explains under the table.
    let (_, wide, _) = run_status(&kc, &ns, &["-o", "wide"]).await;
    let pending_line = wide.lines().find(|l| l.starts_with("pending ")).unwrap();
    assert!(
        pending_line.contains("never registered with GitHub (status.runnerId 0)"),
        "{wide}"
    );
    let header: Vec<&str> = wide.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header[10..], ["PHASE", "REASONS"], "{wide}");
    let (code, named, _) = run_status(&kc, &ns, &["pending", "stale"]).await;
    assert_eq!(code, 0);
    assert_eq!(
        named
            .lines()
            .filter(|l| l.starts_with("pending ") || l.starts_with("stale "))
            .count(),
        2
    );
    assert!(
        named.contains(&format!(
            "EphemeralRunnerSet {ns}/pending: Pending (spec revision 3, applied 2)"
        )),
        "{named}"
    );
    assert!(
        named.contains("  - spec.actionableRevision was last written by arc-controller-sim"),
        "{named}"
    );
    assert!(
        named.contains(&format!("EphemeralRunnerSet {ns}/stale: Stale")),
        "{named}"
    );
    assert!(!named.contains("synced"), "only the named sets: {named}");

    // -A shows the namespace column; the read-only user may run status.
    let restricted = common::restricted_kubeconfig()
        .to_str()
        .unwrap()
        .to_string();
    let (code, all, err) =
        in_process_async(args(&["status", "--kubeconfig", &restricted, "-A"])).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        all.lines().next().unwrap().starts_with("NAMESPACE "),
        "{all}"
    );
    assert!(
        all.lines()
            .any(|l| l.starts_with(&format!("{ns} ")) && l.contains(" Stale ")),
        "{all}"
    );

    // A dump of the same objects gives the same verdicts offline.
    let mut items = Vec::new();
    for plural in ["ephemeralrunnersets", "ephemeralrunners"] {
        let path = format!("/apis/actions.github.com/v1alpha1/namespaces/{ns}/{plural}");
        let req = http::Request::get(path).body(Vec::new()).unwrap();
        let list: Value = serde_json::from_str(&client.request_text(req).await.unwrap()).unwrap();
        for mut o in list["items"].as_array().unwrap().clone() {
            o["apiVersion"] = json!("actions.github.com/v1alpha1");
            o["kind"] = json!(if plural == "ephemeralrunners" {
                "EphemeralRunner"
            } else {
                "EphemeralRunnerSet"
            });
            items.push(o);
        }
    }
    let dir = std::env::temp_dir().join(common::unique_name("arc-status-dump"));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("dump.json");
    std::fs::write(
        &dump,
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let (code, offline, err) = in_process_async(args(&[
        "status",
        "--kubeconfig",
        "/nonexistent",
        "-f",
        dump.to_str().unwrap(),
        "-o",
        "json",
    ]))
    .await;
    assert_eq!(code, 0, "{err}");
    let offline = report(&offline);
    check_states_json(&offline);
    let strip = |v: &Value| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["name"].clone(), i["state"].clone(), i["runners"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&r), strip(&offline));

    // A field of the wrong type (only a dump can hold one: the API server rejects it) is Invalid.
    let mut bad = items.clone();
    for o in &mut bad {
        if o["metadata"]["name"] == "synced" && o["kind"] == "EphemeralRunnerSet" {
            o["spec"]["actionableRevision"] = json!("five");
        }
    }
    let bad_dump = dir.join("bad.json");
    std::fs::write(
        &bad_dump,
        json!({"apiVersion": "v1", "kind": "List", "items": bad}).to_string(),
    )
    .unwrap();
    let (code, out, err) = in_process_async(args(&[
        "status",
        "-f",
        bad_dump.to_str().unwrap(),
        "-o",
        "json",
        "synced",
    ]))
    .await;
    assert_eq!(code, 0, "{err}");
    let s = item(&report(&out), "synced").clone();
    assert_eq!(s["state"], "Invalid", "{s}");
    assert!(s["specRevision"].is_null());
    assert!(
        reasons(&s).contains("spec.actionableRevision is \"five\", not an integer"),
        "{s}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_set_on_the_legacy_crd_is_legacy() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-status-legacy").await;
    create_set(
        &client,
        &ns,
        "old",
        "img:1",
        0,
        Value::Null,
        json!({"actions.github.com/integrity-hash": "987"}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let (code, out, err) = run_status(&kc, &ns, &["-o", "yaml"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("state: Legacy"), "{out}");
    assert!(out.contains("specRevision: 0"), "{out}");
}

/// Start the real binary; stderr lines arrive on the channel.
fn spawn_cli(args: &[&str]) -> (Child, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = |r: Box<dyn std::io::Read + Send>| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(r).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        rx
    };
    let out = lines(Box::new(child.stdout.take().unwrap()));
    let err = lines(Box::new(child.stderr.take().unwrap()));
    (child, out, err)
}

/// The next line matching `pred` (a guard against hanging, not a timing assertion).
fn wait_line(rx: &mpsc::Receiver<String>, pred: impl Fn(&str) -> bool) -> String {
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) if pred(&l) => return l,
            Ok(_) => {}
            Err(e) => panic!("the expected line never came: {e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_returns_when_the_controller_acknowledges_and_times_out_otherwise() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-status-wait").await;
    create_set(
        &client,
        &ns,
        "runners",
        "img:2",
        3,
        json!({"appliedActionableRevision": 2}),
        json!({}),
    )
    .await;
    create_set(
        &client,
        &ns,
        "never",
        "img:2",
        5,
        json!({"appliedActionableRevision": 4}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (mut child, out, err) = spawn_cli(&[
        "status",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "runners",
        "--wait",
        "--timeout",
        "5m",
        "-o",
        "json",
    ]);
    let waiting = wait_line(&err, |l| l.starts_with("Waiting for EphemeralRunnerSet"));
    assert!(
        waiting.contains("Pending (spec revision 3, applied 2)"),
        "{waiting}"
    );
    // Not yet: the process is still waiting.
    assert!(child.try_wait().unwrap().is_none());
    common::acknowledge(&client, &ns, "runners", 3).await;
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let stdout: Vec<String> = out.iter().collect();
    let r = report(&stdout.join("\n"));
    assert_eq!(item(&r, "runners")["state"], "Synced");
    assert_eq!(item(&r, "runners")["appliedRevision"], 3);
    let rest: Vec<String> = err.iter().collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("runners is Synced (spec revision 3, applied 3)")),
        "{rest:?}"
    );

    // Nobody acknowledges "never": exit 1 on timeout, with the reason.
    let (code, out, err) = run_status(&kc, &ns, &["never", "--wait", "--timeout", "2s"]).await;
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("timed out after 2s"), "{err}");
    assert!(
        err.contains(&format!("{ns}/never is Pending (revision 5 is requested")),
        "{err}"
    );
    assert_eq!(row(&out, "never")[..4], ["never", "5", "4", "Pending"]);

    // Already Synced: returns at once.
    let (code, _, err) = run_status(&kc, &ns, &["runners", "--wait"]).await;
    assert_eq!(code, 0, "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_prints_a_row_again_when_it_changes() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-status-watch").await;
    let set = create_set(
        &client,
        &ns,
        "runners",
        "img:2",
        7,
        json!({"appliedActionableRevision": 6}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let (mut child, out, _err) = spawn_cli(&[
        "status",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "--watch",
        "-o",
        "json",
    ]);
    let first: Value = serde_json::from_str(&wait_line(&out, |_| true)).unwrap();
    assert_eq!(
        (first["name"].as_str(), first["state"].as_str()),
        (Some("runners"), Some("Pending"))
    );

    // A runner appears (a runner watch event), then the controller acknowledges (a set event).
    create_runner(
        &client,
        &set,
        "runners-a",
        runner_spec("img:1"),
        json!({"phase": "Running", "runnerId": 3}),
        false,
    )
    .await;
    let second: Value = serde_json::from_str(&wait_line(&out, |_| true)).unwrap();
    assert_eq!(second["runners"]["idle"], 1, "{second}");
    assert_eq!(second["runners"]["stale"], 1, "{second}");
    common::acknowledge(&client, &ns, "runners", 7).await;
    let third: Value =
        serde_json::from_str(&wait_line(&out, |l| l.contains("\"appliedRevision\":7"))).unwrap();
    assert_eq!(
        third["state"], "Stale",
        "the old idle runner is still there: {third}"
    );
    common::runner_api(&client, &ns)
        .delete("runners-a", &DeleteParams::default())
        .await
        .unwrap();
    let fourth: Value = serde_json::from_str(&wait_line(&out, |_| true)).unwrap();
    assert_eq!(fourth["state"], "Synced", "{fourth}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_exit_2_with_a_clear_message() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-status-err").await;
    create_set(
        &client,
        &ns,
        "present",
        "img:2",
        1,
        json!({"appliedActionableRevision": 1}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = run_status(&kc, &ns, &["present", "absent", "-o", "json"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("EphemeralRunnerSet {ns}/absent not found")),
        "{err}"
    );
    assert_eq!(
        item(&report(&out), "present")["state"],
        "Synced",
        "the others are still shown"
    );

    let (code, _, err) = run_status(&kc, &ns, &["-l", "team in (a"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("invalid label selector"), "{err}");

    let (code, _, err) = run_status(&kc, &ns, &["--as", "nobody"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("forbidden: cannot list ephemeralrunnersets"),
        "names the verb and resource: {err}"
    );

    let (code, _, err) = run_status(&kc, &ns, &["--wait", "--watch"]).await;
    assert_eq!(code, 2, "{err}");
}

/// Issue 13: a change of the AutoscalingRunnerSet that ARC's controller has not propagated yet is
/// `Propagating`, and `--wait` waits for it (times out while nothing writes it); once the set is
/// patched and acknowledged as ARC would, `--wait` returns 0. An Outdated set fails `--wait` at
/// once with its reason, instead of waiting for the timeout.
#[tokio::test(flavor = "multi_thread")]
async fn wait_waits_for_propagation_and_fails_fast_on_outdated() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-propagate").await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    // helm upgrade moved the image to img:2; the set (acknowledged at revision 1) still has img:1.
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "prop", "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": runner_spec("img:2")["spec"]}}
    }))
    .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    create_set(
        &client,
        &ns,
        "prop",
        "img:1",
        1,
        json!({"appliedActionableRevision": 1, "phase": "Running"}),
        json!({}),
    )
    .await;
    let (code, out, err) = run_status(&kc, &ns, &["-o", "json"]).await;
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    let prop = item(&r, "prop");
    assert_eq!(prop["state"], "Propagating", "{prop:#}");
    assert!(
        reasons(prop).contains("has not written the new runner spec of AutoscalingRunnerSet")
            && reasons(prop).contains("spec.containers[0].image"),
        "{prop:#}"
    );
    let (code, out, err) = run_status(&kc, &ns, &["prop", "--wait", "--timeout", "5s"]).await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("timed out after 5s"), "{err}");
    assert!(err.contains("is Propagating"), "{err}");

    // ARC propagates: the new spec and revision 2, then the acknowledgement.
    let patch =
        json!({"spec": {"actionableRevision": 2, "ephemeralRunnerSpec": runner_spec("img:2")}});
    common::ers_api(&client, &ns)
        .patch("prop", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    common::acknowledge(&client, &ns, "prop", 2).await;
    let (code, out, err) = run_status(&kc, &ns, &["prop", "--wait", "--timeout", "60s"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(row(&out, "prop").contains(&"Synced"), "{out}");

    // Outdated: nothing will change while waiting, so --wait says so at once.
    create_set(
        &client,
        &ns,
        "outdated",
        "img:1",
        1,
        json!({"appliedActionableRevision": 1, "phase": "Outdated"}),
        json!({}),
    )
    .await;
    let (code, out, err) = run_status(&kc, &ns, &["outdated", "--wait", "--timeout", "10m"]).await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("waiting cannot help") && err.contains("is Outdated"),
        "{err}"
    );
    assert!(row(&out, "outdated").contains(&"Outdated"), "{out}");
}

/// `--watch` in a table prints a row only when something the table shows changes (a change to a
/// field it does not show prints nothing), prints the header again when a longer name widens
/// the columns, and prints a deleted set's row one last time as Deleted.
#[tokio::test(flavor = "multi_thread")]
async fn watch_table_prints_visible_changes_and_deletions() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-watch-table").await;
    create_set(
        &client,
        &ns,
        "a",
        "img:1",
        1,
        json!({"appliedActionableRevision": 1}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let (mut child, out, _err) = spawn_cli(&["status", "--kubeconfig", &kc, "-n", &ns, "--watch"]);
    let header = wait_line(&out, |l| l.starts_with("NAME"));
    assert!(header.contains("STATE"), "{header}");
    let first = wait_line(&out, |_| true);
    assert!(
        first.starts_with("a ") && first.contains("Synced"),
        "{first}"
    );

    // A field the table does not show: the set's replicas. Then one it shows: a longer name,
    // which widens NAME, so the header comes again before the new row.
    let hidden = json!({"spec": {"replicas": 3}});
    common::ers_api(&client, &ns)
        .patch("a", &PatchParams::default(), &Patch::Merge(&hidden))
        .await
        .unwrap();
    let long = "a-much-longer-scale-set-name";
    create_set(
        &client,
        &ns,
        long,
        "img:1",
        1,
        json!({"appliedActionableRevision": 1}),
        json!({}),
    )
    .await;
    let next = wait_line(&out, |_| true);
    assert!(
        next.starts_with("NAME"),
        "a hidden change printed a row, or a wider name printed no header: {next}"
    );
    let row = wait_line(&out, |_| true);
    assert!(row.starts_with(long), "{row}");
    // Columns line up under the new header.
    let spec_column = row[long.len()..].find(|c| c != ' ').map(|i| i + long.len());
    assert_eq!(next.find("SPEC"), spec_column, "{next}\n{row}");

    common::ers_api(&client, &ns)
        .delete("a", &DeleteParams::default())
        .await
        .unwrap();
    // (STATE widens for "Deleted": a header may come first.)
    let gone = wait_line(&out, |l| !l.starts_with("NAME"));
    assert!(gone.starts_with("a ") && gone.contains("Deleted"), "{gone}");
    child.kill().unwrap();
    child.wait().unwrap();
}
