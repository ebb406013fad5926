//! `kubectl arc migrate` end to end on the real API server with ARC's CRDs: refusal on the legacy
//! CRD, exact decisions on the revision CRD, idempotence, dry runs, concurrent writers, and a run
//! killed part way.

use crate::common;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::common::cli::exe;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// The tests of this file run one at a time: the kill test's timing and the race test's load are
/// their own. The (fake) ARC controller Deployment one of them makes is kept from every other test,
/// of any file, by `common::controller`.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// ARC's hash (k8s.io/api v0.36.2) of the runner spec `common::ers_object` builds with `spec`
/// below, computed by our core and checked against Go by the differential tests.
fn hash_of(runner_spec: &Value) -> String {
    let l = kubectl_arc::core::layout::Layout::arc();
    let v = kubectl_arc::core::value::decode(l, l.ephemeral_runner_spec, &runner_spec.to_string())
        .unwrap();
    kubectl_arc::core::legacy_hash::integrity_hash(l, &v).unwrap()
}

fn runner_spec(image: &str) -> Value {
    json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 1,
        "spec": {"containers": [{"name": "runner", "image": image}]}
    })
}

/// Create a set with the given legacy annotation, revisions and image.
async fn create_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    annotation: Option<&str>,
    spec_rev: i64,
    applied: i64,
    image: &str,
) {
    let mut obj = common::ers_object(name, runner_spec(image));
    if let Some(a) = annotation {
        obj.metadata.annotations = Some(BTreeMap::from([(
            "actions.github.com/integrity-hash".to_string(),
            a.to_string(),
        )]));
    }
    obj.data["spec"]["actionableRevision"] = json!(spec_rev);
    common::ers_api(client, ns)
        .create(&PostParams::default(), &obj)
        .await
        .unwrap();
    if applied != 0 {
        common::acknowledge(client, ns, name, applied).await;
    }
}

/// An EphemeralRunner owned by set `owner`, with `image`, in phase `phase` (idle: no jobId).
async fn create_runner(
    client: &kube::Client,
    ns: &str,
    owner: &str,
    name: &str,
    image: &str,
    phase: &str,
) {
    let set = common::ers_api(client, ns).get(owner).await.unwrap();
    let runner: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "EphemeralRunner",
        "metadata": {"name": name, "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": owner, "uid": set.metadata.uid.unwrap(), "controller": true
        }]},
        "spec": runner_spec(image),
    }))
    .unwrap();
    let api = common::runner_api(client, ns);
    api.create(&PostParams::default(), &runner).await.unwrap();
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": phase, "runnerId": 12}})),
    )
    .await
    .unwrap();
}

/// `kubectl-arc migrate --kubeconfig KUBECONFIG -n NS ARGS...` from the real binary; (exit code,
/// stdout, stderr).
fn migrate(kubeconfig: &str, ns: &str, extra: &[&str]) -> (i32, String, String) {
    let mut argv = vec!["migrate", "--kubeconfig", kubeconfig, "-n", ns];
    argv.extend_from_slice(extra);
    exe(&argv)
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_crd_refuses_and_writes_nothing() {
    let _serial = SERIAL.lock().await;
    let kc = common::legacy_kubeconfig();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-mig-legacy").await;
    let api = common::ers_api(&client, &ns);
    let mut obj = common::ers_object("runners", runner_spec("img:1"));
    obj.metadata.annotations = Some(BTreeMap::from([(
        "actions.github.com/integrity-hash".to_string(),
        "stale".to_string(),
    )]));
    api.create(&PostParams::default(), &obj).await.unwrap();
    let before = api.get("runners").await.unwrap().metadata.resource_version;
    let (code, _, err) = migrate(kc.to_str().unwrap(), &ns, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no spec.actionableRevision"), "{err}");
    assert!(err.contains("Helm does not upgrade CRDs"), "{err}");
    let after = api.get("runners").await.unwrap();
    assert_eq!(after.metadata.resource_version, before, "nothing written");
}

#[tokio::test(flavor = "multi_thread")]
async fn decides_exactly_and_a_second_run_is_a_no_op() {
    let _serial = SERIAL.lock().await;
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-mig").await;
    let good = hash_of(&runner_spec("img:2"));
    create_set(&client, &ns, "in-sync", Some(&good), 0, 0, "img:2").await;
    create_set(&client, &ns, "pending", Some("7b4dd5c9f8"), 0, 0, "img:2").await;
    create_set(
        &client,
        &ns,
        "applied-ahead",
        Some("7b4dd5c9f8"),
        2,
        5,
        "img:2",
    )
    .await;
    create_set(&client, &ns, "no-annotation", None, 3, 3, "img:2").await;
    create_set(&client, &ns, "stale-runner", Some(&good), 4, 4, "img:2").await;
    create_runner(
        &client,
        &ns,
        "stale-runner",
        "stale-runner-a",
        "img:1",
        "Running",
    )
    .await;
    create_set(&client, &ns, "busy-only", Some(&good), 0, 0, "img:2").await;
    // A busy runner on an old spec finishes its job: it does not make the set pending.
    create_runner(&client, &ns, "busy-only", "busy-only-a", "img:1", "Pending").await;
    common::runner_api(&client, &ns)
        .patch_status(
            "busy-only-a",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Running", "jobId": "1234"}})),
        )
        .await
        .unwrap();
    let before = common::ers_states(&client, &ns).await;

    // Dry runs write nothing.
    for mode in ["client", "server"] {
        let dry_run = format!("--dry-run={mode}");
        let (code, out, err) = migrate(&kcs, &ns, &[&dry_run, "-o", "json"]);
        assert_eq!(code, 0, "{mode}: {err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["summary"]["written"], 5, "{mode}: {out}");
        assert_eq!(
            common::ers_states(&client, &ns).await,
            before,
            "--dry-run={mode} wrote something"
        );
    }

    let (code, out, err) = migrate(&kcs, &ns, &["-o", "json"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let rows: BTreeMap<String, (String, i64, i64, String)> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                (
                    r["decision"].as_str().unwrap().to_string(),
                    r["specRevision"].as_i64().unwrap(),
                    r["newSpecRevision"].as_i64().unwrap(),
                    r["result"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    let row = |d: &str, f: i64, t: i64, r: &str| (d.to_string(), f, t, r.to_string());
    assert_eq!(rows["in-sync"], row("InSync", 0, 0, "Written"));
    assert_eq!(rows["pending"], row("Pending", 0, 1, "Written"));
    assert_eq!(rows["applied-ahead"], row("Pending", 2, 6, "Written"));
    assert_eq!(
        rows["no-annotation"],
        row("NoLegacyAnnotation", 3, 3, "Unchanged")
    );
    assert_eq!(rows["stale-runner"], row("Pending", 4, 5, "Written"));
    assert_eq!(rows["busy-only"], row("InSync", 0, 0, "Written"));

    let after = common::ers_states(&client, &ns).await;
    let want: BTreeMap<String, (i64, bool)> = [
        ("applied-ahead", 6),
        ("busy-only", 0),
        ("in-sync", 0),
        ("no-annotation", 3),
        ("pending", 1),
        ("stale-runner", 5),
    ]
    .into_iter()
    .map(|(n, r)| (n.to_string(), (r, false)))
    .collect();
    assert_eq!(common::revisions(&after), want);
    assert_eq!(
        after["no-annotation"].2, before["no-annotation"].2,
        "untouched"
    );

    // Re-running changes nothing.
    let (code, _, err) = migrate(&kcs, &ns, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        common::ers_states(&client, &ns).await,
        after,
        "a second run wrote"
    );
    assert!(
        err.contains("6 without the legacy annotation; 0 written"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_controller_blocks_unless_forced() {
    let _serial = SERIAL.lock().await;
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-mig-ctrl").await;
    create_set(&client, &ns, "pending", Some("0000000000"), 0, 0, "img:1").await;
    let deploy: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(json!({
        // As the gha-runner-scale-set-controller chart labels it for a release named "arc": found
        // by `part-of` (its `name` label is the release's).
        "metadata": {"name": "arc-gha-rs-controller", "labels": {
            "app.kubernetes.io/name": "arc",
            "app.kubernetes.io/part-of": "gha-rs-controller",
            "app.kubernetes.io/version": "0.14.1"
        }},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "c"}},
            "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "ctrl"}]}}
        }
    }))
    .unwrap();
    // Every migrate and diff of the other tests sees it (they list Deployments cluster-wide): it
    // exists only while this test holds the controller lock alone, and is deleted when the guard
    // drops, on a failure too.
    let controller =
        common::controller::ControllerDeployment::create(&kc, &client, &ns, &deploy).await;
    let before = common::ers_states(&client, &ns).await;
    let (code, _, err) = exe(&["migrate", "--kubeconfig", &kcs, "-A"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{ns}/arc-gha-rs-controller (version 0.14.1) are running"
        )),
        "{err}"
    );
    // A server-side dry run says what the real run would refuse.
    let (code, _, err) = migrate(&kcs, &ns, &["--dry-run=server"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the real run will refuse until they are scaled to 0"),
        "{err}"
    );
    assert_eq!(common::ers_states(&client, &ns).await, before);
    let (code, _, err) = migrate(&kcs, &ns, &["--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: --force"), "{err}");
    assert_eq!(
        common::ers_revisions(&client, &ns).await["pending"],
        (1, false)
    );
    // Scaled to zero, it no longer blocks.
    controller
        .api(&client)
        .patch(
            &controller.name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 0}})),
        )
        .await
        .unwrap();
    let (code, _, err) = exe(&["migrate", "--kubeconfig", &kcs, "-n", &ns]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("are running"), "{err}");
    drop(controller);
}

/// Sets: every third in sync, the others pending with assorted revisions.
async fn populate(client: &kube::Client, ns: &str, n: usize) -> BTreeMap<String, (i64, bool)> {
    let good = hash_of(&runner_spec("img:1"));
    let mut want = BTreeMap::new();
    let mut tasks = Vec::new();
    for i in 0..n {
        let client = client.clone();
        let ns = ns.to_string();
        let good = good.clone();
        tasks.push(tokio::spawn(async move {
            let name = format!("set-{i:04}");
            let (ann, spec, applied) = match i % 3 {
                0 => (good.clone(), (i % 5) as i64, (i % 5) as i64),
                1 => ("0000000000".to_string(), (i % 4) as i64, 0),
                _ => ("1111111111".to_string(), 1, (i % 7) as i64),
            };
            create_set(&client, &ns, &name, Some(&ann), spec, applied, "img:1").await;
            let to = if i % 3 == 0 {
                spec
            } else {
                spec.max(applied) + 1
            };
            (name, (to, false))
        }));
        if tasks.len() >= 16 {
            for t in tasks.drain(..) {
                let (k, v) = t.await.unwrap();
                want.insert(k, v);
            }
        }
    }
    for t in tasks {
        let (k, v) = t.await.unwrap();
        want.insert(k, v);
    }
    want
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_writers_never_lose_or_lower_a_revision() {
    let _serial = SERIAL.lock().await;
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    // Whether a write meets a concurrent change is timing: on a loaded machine a round may see
    // none. Rounds on fresh sets until one does (at most 5); every round checks the invariants.
    // Without the resourceVersion precondition no round ever meets a conflict, and this fails.
    let mut conflicts = 0;
    for round in 1..=5 {
        conflicts = race_round(&client, &kcs, round).await;
        if conflicts > 0 {
            break;
        }
    }
    assert!(
        conflicts > 0,
        "no write met a conflict in 5 rounds: is resourceVersion sent?"
    );
}

/// One round of `concurrent_writers_never_lose_or_lower_a_revision`: 60 sets, three writers that
/// keep changing them (labels only) while migrate runs until it converges; the conflicts met.
async fn race_round(client: &kube::Client, kcs: &str, round: u32) -> u64 {
    let ns = common::namespace(client, &format!("arc-mig-race{round}")).await;
    let want = populate(client, &ns, 60).await;

    // Each write of another writer makes migrate's precondition stale, so migrate sees 409s and
    // must re-decide.
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (client, ns, stop) = (client.clone(), ns.clone(), stop.clone());
            tokio::spawn(async move {
                let api = common::ers_api(&client, &ns);
                let mut writes = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for i in 0..60 {
                        let p = json!({"metadata": {"labels": {format!("touched-{w}"): writes.to_string()}}});
                        let _ = api
                            .patch(
                                &format!("set-{i:04}"),
                                &PatchParams::default(),
                                &Patch::Merge(&p),
                            )
                            .await;
                        writes += 1;
                    }
                }
                writes
            })
        })
        .collect();
    let mut runs = 0;
    let mut conflicts = 0u64;
    let final_state = loop {
        runs += 1;
        let (code, out, err) = migrate(kcs, &ns, &["--qps", "0", "-o", "json"]);
        assert!(code == 0 || code == 1, "run {runs}: {err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        eprintln!("round {round}, run {runs}: {}", report["summary"]);
        // A write that met a 409 is read again and sent again (attempts > 1), or fails as a
        // conflict once its retries are spent.
        for item in report["items"].as_array().unwrap() {
            let attempts = item["attempts"].as_u64().unwrap_or(0);
            conflicts += attempts.saturating_sub(1);
            if item["error"]
                .as_str()
                .is_some_and(|e| e.contains("conflict"))
            {
                conflicts += 1;
            }
        }
        if code == 1 {
            assert!(
                err.contains("conflict"),
                "a failure under concurrency is a conflict: {err}"
            );
        }
        let s = common::ers_revisions(client, &ns).await;
        // Never lowered, never past the target, never an annotation removed without its revision.
        for (name, (rev, legacy)) in &s {
            let (target, _) = want[name];
            assert!(*rev <= target, "{name}: revision {rev} overshoots {target}");
            if !legacy {
                assert_eq!(
                    *rev, target,
                    "{name}: annotation removed but revision {rev} != {target}"
                );
            }
        }
        if code == 0 || runs == 5 {
            break s;
        }
    };
    stop.store(true, Ordering::Relaxed);
    let mut writes = 0;
    for w in writers {
        writes += w.await.unwrap();
    }
    eprintln!(
        "round {round}: migrate converged in {runs} run(s) against {writes} concurrent writes, meeting {conflicts} conflicts"
    );
    assert!(writes > 60, "the concurrent writers ran ({writes} writes)");
    assert_eq!(final_state, want, "after {runs} runs");
    conflicts
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_part_way_then_rerun_ends_like_an_uninterrupted_run() {
    let _serial = SERIAL.lock().await;
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let interrupted = common::namespace(&client, "arc-mig-kill").await;
    let reference = common::namespace(&client, "arc-mig-ref").await;
    let want = populate(&client, &interrupted, 150).await;
    assert_eq!(populate(&client, &reference, 150).await, want);

    let (code, _, err) = migrate(&kcs, &reference, &[]);
    assert_eq!(code, 0, "{err}");

    // Throttled so that the kill lands mid-run.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args([
            "migrate",
            "--kubeconfig",
            &kcs,
            "-n",
            &interrupted,
            "--qps",
            "40",
            "--burst",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = common::ers_revisions(&client, &interrupted).await;
    let done = partial.values().filter(|(_, legacy)| !legacy).count();
    assert!(
        done > 0 && done < 150,
        "the kill should land part way ({done} of 150 done)"
    );

    let (code, _, err) = migrate(&kcs, &interrupted, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(common::ers_revisions(&client, &interrupted).await, want);
    assert_eq!(common::ers_revisions(&client, &reference).await, want);
}
