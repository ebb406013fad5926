//! `kubectl arc bump` end to end against the real API servers: concurrent bumps from separate
//! processes are neither lost nor doubled, every refusal writes nothing (legacy CRD, Outdated
//! phase, a set its AutoscalingRunnerSet does not own, Forbidden), dry runs write nothing, and
//! `--wait` returns once a status patch (playing ARC's EphemeralRunnerSet controller)
//! acknowledges the revision.

use crate::common;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::cli::{args, exe, exe_async, report};
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-arc");

/// Create a set at `spec_revision`, with `status` written through the status subresource.
async fn create_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    spec_revision: i64,
    status: Value,
    metadata: Value,
) -> DynamicObject {
    let mut ers = common::ers_object(
        name,
        json!({"spec": {"containers": [{"name": "runner", "image": "img:1"}]}}),
    );
    ers.data["spec"]["actionableRevision"] = json!(spec_revision);
    let mut meta = serde_json::to_value(&ers.metadata).unwrap();
    for (k, v) in metadata.as_object().unwrap() {
        meta[k] = v.clone();
    }
    ers.metadata = serde_json::from_value(meta).unwrap();
    let created = common::ers_api(client, ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    if status.is_null() {
        return created;
    }
    common::set_ers_status(client, ns, name, status).await
}

async fn get_set(client: &kube::Client, ns: &str, name: &str) -> DynamicObject {
    common::ers_api(client, ns).get(name).await.unwrap()
}

fn spec_revision(o: &DynamicObject) -> i64 {
    o.data["spec"]["actionableRevision"].as_i64().unwrap_or(0)
}

/// `kubectl-arc bump --kubeconfig KUBECONFIG -n NS ARGS...` from the real binary, in a blocking
/// task; (exit code, stdout, stderr).
async fn bump(kubeconfig: &str, ns: &str, extra: &[&str]) -> (i32, String, String) {
    let mut argv = vec!["bump", "--kubeconfig", kubeconfig, "-n", ns];
    argv.extend_from_slice(extra);
    exe_async(args(&argv)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_bumps_from_eight_processes_are_never_lost_or_doubled() {
    const PROCESSES: usize = 8;
    const BUMPS: usize = 1000;
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-bump-race").await;
    let initial = 5;
    create_set(
        &client,
        &ns,
        "runners",
        initial,
        json!({"appliedActionableRevision": 5}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let results = tokio::task::spawn_blocking(move || {
        let workers: Vec<_> = (0..PROCESSES)
            .map(|w| {
                let (kc, ns) = (kc.clone(), ns.clone());
                std::thread::spawn(move || {
                    let argv = [
                        "bump",
                        "--kubeconfig",
                        &kc,
                        "-n",
                        &ns,
                        "runners",
                        "-o",
                        "json",
                    ];
                    // Worker w runs bumps w, w + PROCESSES, ... of the BUMPS.
                    (w..BUMPS)
                        .step_by(PROCESSES)
                        .map(|_| exe(&argv))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all = Vec::new();
        for w in workers {
            all.extend(w.join().unwrap());
        }
        (all, ns)
    })
    .await
    .unwrap();
    let (results, ns) = results;
    assert_eq!(results.len(), BUMPS);
    let mut written = Vec::new();
    let mut retried = 0;
    for (code, out, err) in &results {
        if *code == 0 {
            let r = report(out);
            let item = &r["items"][0];
            assert_eq!(item["result"], "Bumped", "{out}");
            let (old, new) = (
                item["specRevision"].as_i64().unwrap(),
                item["newSpecRevision"].as_i64().unwrap(),
            );
            assert_eq!(
                new,
                old + 1,
                "max(spec, applied) + 1 of what was read: {out}"
            );
            if item["attempts"].as_u64().unwrap() > 1 {
                retried += 1;
            }
            written.push(new);
        } else {
            assert_eq!(*code, 2, "{err}");
            assert!(
                err.contains("conflict"),
                "a failed bump says it met a conflict: {err}"
            );
            assert!(err.contains("nothing was written by this request"), "{err}");
        }
    }
    let successes = written.len() as i64;
    let set = get_set(&client, &ns, "runners").await;
    assert_eq!(
        spec_revision(&set),
        initial + successes,
        "the spec revision moved by exactly the number of reported successes"
    );
    written.sort();
    let expected: Vec<i64> = (initial + 1..=initial + successes).collect();
    assert_eq!(
        written, expected,
        "each success wrote its own revision, none twice"
    );
    println!(
        "concurrent bumps: {successes} of {BUMPS} succeeded ({:.1}%), {retried} of them after a conflict, with {PROCESSES} processes and client-go's default backoff",
        successes as f64 * 100.0 / BUMPS as f64
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bump_by_name_records_the_request_and_the_reason() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-bump").await;
    // Applied ahead of spec: the new revision is max + 1 = 8, never lower.
    create_set(
        &client,
        &ns,
        "runners",
        3,
        json!({"appliedActionableRevision": 7}),
        json!({"labels": {"team": "a"}}),
    )
    .await;
    create_set(
        &client,
        &ns,
        "other",
        1,
        json!({"appliedActionableRevision": 1}),
        json!({"labels": {"team": "b"}}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = bump(&kc, &ns, &["runners", "--reason", "new node pool"]).await;
    assert_eq!(code, 0, "{err}");
    let cells: Vec<&str> = out.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        cells,
        [ns.as_str(), "runners", "3", "7", "8", "Bumped"],
        "{out}"
    );
    let set = get_set(&client, &ns, "runners").await;
    assert_eq!(spec_revision(&set), 8);
    let ann = set.metadata.annotations.clone().unwrap();
    assert_eq!(ann["kubectl-arc/bump-reason"], "new node pool");
    let id = &ann["kubectl-arc/bump-id"];
    assert_eq!(ann["kubectl-arc/recent-bumps"], format!("{id}=8"));
    let managers: Vec<_> = set
        .metadata
        .managed_fields
        .unwrap()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert!(
        managers.contains(&"kubectl-arc".to_string()),
        "{managers:?}"
    );

    // -l picks by label; a bump without --reason removes the old reason.
    let (code, out, err) = bump(&kc, &ns, &["-l", "team=a", "-o", "yaml"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("newSpecRevision: 9"), "{out}");
    assert!(!out.contains("name: other"), "{out}");
    let set = get_set(&client, &ns, "runners").await;
    assert!(
        !set.metadata
            .annotations
            .unwrap()
            .contains_key("kubectl-arc/bump-reason")
    );
    assert_eq!(spec_revision(&get_set(&client, &ns, "other").await), 1);

    // --all bumps both.
    let (code, out, err) = bump(&kc, &ns, &["--all", "-o", "json"]).await;
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let news: Vec<(String, i64)> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_string(),
                i["newSpecRevision"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        news,
        [("other".to_string(), 2), ("runners".to_string(), 10)]
    );

    // An unknown name: exit 2, the known one is still bumped.
    let (code, out, err) = bump(&kc, &ns, &["other", "absent", "-o", "json"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("no EphemeralRunnerSet or AutoscalingRunnerSet named absent"),
        "{err}"
    );
    let absent = report(&out)["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "absent")
        .cloned()
        .unwrap();
    assert_eq!(absent["reason"], "NotFound", "{absent}");
    assert_eq!(spec_revision(&get_set(&client, &ns, "other").await), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_autoscaling_runner_set_name_bumps_the_set_it_owns_and_nothing_else() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-bump-ars").await;
    let ars = |name: &str| -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "metadata": {"name": name, "annotations": {"runner-scale-set-id": "1"}},
            "spec": {"githubConfigUrl": "https://github.com/o", "githubConfigSecret": "s",
                     "template": {"spec": {"containers": [{"name": "runner", "image": "img:1"}]}}}
        }))
        .unwrap()
    };
    let owned = common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars("owned"))
        .await
        .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars("foreign"))
        .await
        .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars("lonely"))
        .await
        .unwrap();
    let owner = |name: &str, uid: &str| {
        json!({"ownerReferences": [{
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}]})
    };
    create_set(
        &client,
        &ns,
        "owned",
        2,
        json!({"appliedActionableRevision": 2}),
        owner("owned", owned.metadata.uid.as_deref().unwrap()),
    )
    .await;
    let foreign = create_set(
        &client,
        &ns,
        "foreign",
        2,
        json!({"appliedActionableRevision": 2}),
        owner("foreign", "00000000-0000-0000-0000-000000000000"),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = bump(&kc, &ns, &["owned", "-o", "json"]).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(report(&out)["items"][0]["newSpecRevision"], 3);

    let (code, out, err) = bump(&kc, &ns, &["foreign", "-o", "json"]).await;
    assert_eq!(code, 2, "{out}");
    assert_eq!(report(&out)["items"][0]["result"], "Refused");
    assert_eq!(report(&out)["items"][0]["reason"], "OwnerMismatch");
    assert!(
        err.contains("not owned by the AutoscalingRunnerSet foreign"),
        "{err}"
    );
    let after = get_set(&client, &ns, "foreign").await;
    assert_eq!(
        after.metadata.resource_version, foreign.metadata.resource_version,
        "nothing written"
    );

    let (code, out, err) = bump(&kc, &ns, &["lonely", "-o", "json"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("has no EphemeralRunnerSet"), "{err}");
    assert_eq!(report(&out)["items"][0]["reason"], "NoEphemeralRunnerSet");
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_and_dry_runs_write_nothing() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-bump-refuse").await;
    let outdated = create_set(
        &client,
        &ns,
        "outdated",
        4,
        json!({"appliedActionableRevision": 4, "phase": "Outdated"}),
        json!({}),
    )
    .await;
    let plain = create_set(
        &client,
        &ns,
        "plain",
        4,
        json!({"appliedActionableRevision": 4}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let unchanged = |before: &DynamicObject, after: &DynamicObject| {
        assert_eq!(
            after.metadata.resource_version,
            before.metadata.resource_version
        );
        assert_eq!(spec_revision(after), spec_revision(before));
    };

    // Phase Outdated: refused, with what clears it.
    let (code, _, err) = bump(&kc, &ns, &["outdated"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("refused, nothing was written: status.phase is Outdated"),
        "{err}"
    );
    assert!(
        err.contains("update the runner image in the AutoscalingRunnerSet"),
        "{err}"
    );
    unchanged(&outdated, &get_set(&client, &ns, "outdated").await);

    // Server-side dry run: the API server validates the patch and stores nothing.
    let (code, out, err) = bump(&kc, &ns, &["plain", "--dry-run=server", "-o", "json"]).await;
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    assert_eq!(r["dryRun"], "server");
    assert_eq!(r["items"][0]["result"], "WouldBump");
    assert_eq!(r["items"][0]["newSpecRevision"], 5);
    unchanged(&plain, &get_set(&client, &ns, "plain").await);
    let (code, out, _) = bump(&kc, &ns, &["plain", "--dry-run=client"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("WouldBump"), "{out}");
    // kubectl's rule: a bare --dry-run is client, and the next word is a name, not a mode.
    let (code, out, _) = bump(&kc, &ns, &["--dry-run", "plain"]).await;
    assert_eq!(code, 0);
    assert!(out.contains("WouldBump"), "{out}");
    unchanged(&plain, &get_set(&client, &ns, "plain").await);

    // The read-only user: Forbidden, naming the verb and the resource.
    let restricted = common::restricted_kubeconfig()
        .to_str()
        .unwrap()
        .to_string();
    let (code, _, err) = bump(&restricted, &ns, &["plain"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("forbidden"), "{err}");
    assert!(
        err.contains("patch ephemeralrunnersets.actions.github.com"),
        "names the verb and resource: {err}"
    );
    unchanged(&plain, &get_set(&client, &ns, "plain").await);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_legacy_crd_makes_bump_refuse_and_write_nothing() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-bump-legacy").await;
    let before = create_set(&client, &ns, "runners", 0, Value::Null, json!({})).await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let (code, out, err) = bump(&kc, &ns, &["runners"]).await;
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("refusing to bump, nothing was written"),
        "{err}"
    );
    assert!(err.contains("has no spec.actionableRevision"), "{err}");
    assert!(err.contains("Upgrade ARC's CRDs"), "{err}");
    let after = get_set(&client, &ns, "runners").await;
    assert_eq!(
        after.metadata.resource_version,
        before.metadata.resource_version
    );
    assert!(
        after
            .metadata
            .annotations
            .is_none_or(|a| !a.contains_key("kubectl-arc/bump-id"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_returns_once_the_controller_acknowledges_and_times_out_otherwise() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-bump-wait").await;
    create_set(
        &client,
        &ns,
        "runners",
        2,
        json!({"appliedActionableRevision": 2}),
        json!({}),
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let mut child = Command::new(BIN)
        .args([
            "bump",
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
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("bump says it waits");
    assert_eq!(
        line,
        format!("Waiting for ARC to acknowledge revision 3 of EphemeralRunnerSet {ns}/runners...")
    );
    assert!(child.try_wait().unwrap().is_none(), "still waiting");
    assert_eq!(
        spec_revision(&get_set(&client, &ns, "runners").await),
        3,
        "written before waiting"
    );
    // Play ARC's EphemeralRunnerSet controller.
    common::acknowledge(&client, &ns, "runners", 3).await;
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let r = report(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(r["items"][0]["acknowledged"], true);
    // The reader thread ends at the child's end of stderr: wait for every line, not a snapshot.
    let rest: Vec<String> = rx.iter().collect();
    assert!(
        rest.iter()
            .any(|l| l.contains("revision 3 acknowledged (applied 3)")),
        "{rest:?}"
    );

    // Nobody acknowledges: exit 1 after the timeout, the revision is written all the same.
    let (code, out, err) = bump(
        &kc,
        &ns,
        &["runners", "--wait", "--timeout", "2s", "-o", "json"],
    )
    .await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "timed out waiting for ARC to acknowledge 1/1 EphemeralRunnerSets: {ns}/runners (revision 4)"
        )),
        "{err}"
    );
    assert_eq!(report(&out)["items"][0]["acknowledged"], false);
    assert_eq!(spec_revision(&get_set(&client, &ns, "runners").await), 4);
}
