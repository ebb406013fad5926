//! Issue 19 end to end: objects written on the real API server as ARC 0.14.2 writes them (an
//! AutoscalingRunnerSet, an EphemeralRunnerSet `<ars>-xxxxx` made with `generateName`, owned by it,
//! whose `actions.github.com/runner-spec-hash` is the engine's hash for 0.14.2 of the scale set as
//! the server stores it), renders applied with the real kubectl, and each command judging them by
//! 0.14.2's rule. The server is the one with the CRDs without revision fields (as 0.14.2's are).

use crate::common;

use crate::common::cli::report;

/// The CLI in process, on a thread of its own: these tests are async, and the CLI starts its own
/// runtime.
fn run(args: &[&str]) -> (u8, String, String) {
    std::thread::scope(|s| {
        s.spawn(|| crate::common::cli::in_process(args))
            .join()
            .unwrap()
    })
}
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};

fn release() -> &'static kubectl_arc::core::release::ArcRelease {
    kubectl_arc::core::release::release("0.14.2").expect("0.14.2 is in the release table")
}

/// ARC 0.14.2's `RunnerSetSpecHash()` of a stored AutoscalingRunnerSet.
fn hash_of(ars: &Value) -> String {
    let spec = serde_json::to_string(&ars["spec"]).unwrap();
    kubectl_arc::core::spec_hash::runner_set_spec_hash(release(), &spec).expect("hash")
}

fn ars_manifest(ns: &str, name: &str, cpu: &str) -> String {
    format!(
        "apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata:
  name: {name}
  namespace: {ns}
  labels:
    app.kubernetes.io/version: 0.14.2
  annotations:
    runner-scale-set-id: \"7\"
spec:
  githubConfigUrl: https://github.com/my-org
  githubConfigSecret: gh-secret
  maxRunners: 5
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: runner
        image: ghcr.io/actions/actions-runner:2.329.0
        command: [/home/runner/run.sh]
        resources:
          requests: {{cpu: {cpu}}}
"
    )
}

fn kubectl_apply(kubeconfig: &std::path::Path, file: &std::path::Path) {
    let kubectl = std::env::var("KUBECTL_ARC_TEST_KUBECTL")
        .expect("KUBECTL_ARC_TEST_KUBECTL: the test bed's kubectl");
    let out = std::process::Command::new(&kubectl)
        .args(["--kubeconfig", kubeconfig.to_str().unwrap(), "apply", "-f"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn kubectl_get_yaml(kubeconfig: &std::path::Path, ns: &str) -> String {
    let kubectl = std::env::var("KUBECTL_ARC_TEST_KUBECTL").unwrap();
    let out = std::process::Command::new(&kubectl)
        .args(["--kubeconfig", kubeconfig.to_str().unwrap(), "-n", ns])
        .args([
            "get",
            "autoscalingrunnersets,ephemeralrunnersets",
            "-o",
            "yaml",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

async fn stored_ars(client: &kube::Client, ns: &str, name: &str) -> Value {
    let o = common::ars_api(client, ns).get(name).await.unwrap();
    serde_json::to_value(o).unwrap()
}

/// The EphemeralRunnerSet ARC 0.14.2 creates for `ars` (`newEphemeralRunnerSet`): generateName,
/// controller owner reference, ARC's labels, the runner-spec hash of the scale set as stored.
async fn create_set_as_0_14_2(
    client: &kube::Client,
    ns: &str,
    ars: &Value,
    replicas: i64,
    hash: &str,
) -> String {
    let name = ars["metadata"]["name"].as_str().unwrap();
    let mut runner_spec = json!({
        "githubConfigUrl": ars["spec"]["githubConfigUrl"],
        "githubConfigSecret": ars["spec"]["githubConfigSecret"],
        "runnerScaleSetId": 7,
    });
    for (k, v) in ars["spec"]["template"].as_object().unwrap() {
        runner_spec[k] = v.clone();
    }
    let set: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "EphemeralRunnerSet",
        "metadata": {
            "generateName": format!("{name}-"),
            "labels": {
                "app.kubernetes.io/component": "runner-set",
                "app.kubernetes.io/part-of": "gha-runner-scale-set",
                "app.kubernetes.io/version": "0.14.2",
                "actions.github.com/scale-set-name": name,
                "actions.github.com/scale-set-namespace": ns,
            },
            "annotations": {"actions.github.com/runner-spec-hash": hash},
            "ownerReferences": [{
                "apiVersion": "actions.github.com/v1alpha1",
                "kind": "AutoscalingRunnerSet",
                "name": name,
                "uid": ars["metadata"]["uid"],
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        },
        "spec": {"replicas": replicas, "patchID": 0, "ephemeralRunnerSpec": runner_spec},
    }))
    .unwrap();
    let created = common::ers_api(client, ns)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
    created.metadata.name.unwrap()
}

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no item {name} in {r:#}"))
}

/// `500m` -> `0.5` is Semantic-equal (a revision-era ARC would not act), yet ARC 0.14.2 replaces
/// the set: diff says so with the hashes 0.14.2 computes, against the cluster and against a
/// `--live` dump, and the file's hash is the cluster's once applied.
#[tokio::test(flavor = "multi_thread")]
async fn a_render_that_0_14_2_replaces_is_reported_with_its_hashes() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-rel-diff").await;
    let scratch = common::scratch_dir("arc-rel-diff");
    let before = scratch.join("before.yaml");
    std::fs::write(&before, ars_manifest(&ns, "runners", "500m")).unwrap();
    kubectl_apply(&kubeconfig, &before);
    let stored = stored_ars(&client, &ns, "runners").await;
    let made_with = hash_of(&stored);
    let set = create_set_as_0_14_2(&client, &ns, &stored, 1, &made_with).await;
    assert!(set.starts_with("runners-"), "{set}");

    let kc = kubeconfig.to_str().unwrap().to_string();
    let (code, out, err) = run(&["diff", "--kubeconfig", &kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    let i = item(&r, "runners");
    assert_eq!(i["mechanism"], "RunnerSpecHash", "{i:#}");
    assert_eq!(i["recycle"], false);
    assert_eq!(i["runnerSpecHash"]["current"], made_with.as_str());
    assert_eq!(i["runnerSpecHash"]["desired"], made_with.as_str());
    assert!(
        i["hashMatches"]
            .as_array()
            .unwrap()
            .contains(&json!("0.14.2")),
        "{i:#}"
    );

    // The render: the same quantity written otherwise.
    let render = scratch.join("render.yaml");
    std::fs::write(&render, ars_manifest(&ns, "runners", "\"0.5\"")).unwrap();
    let render_s = render.to_str().unwrap().to_string();
    let dump = scratch.join("dump.yaml");
    std::fs::write(&dump, kubectl_get_yaml(&kubeconfig, &ns)).unwrap();
    let dump_s = dump.to_str().unwrap().to_string();
    let (code, out, err) = run(&["diff", "--kubeconfig", &kc, "-f", &render_s, "-o", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let from_cluster = report(&out);
    let (code, out, err) = run(&["diff", "-f", &render_s, "--live", &dump_s, "-o", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let from_dump = report(&out);
    for r in [&from_cluster, &from_dump] {
        let i = item(r, "runners");
        assert_eq!(i["recycle"], true, "{i:#}");
        assert_eq!(i["semanticDrift"], false, "Semantic-equal: {i:#}");
        assert_eq!(i["runnerSpecHash"]["current"], made_with.as_str());
        assert_ne!(i["runnerSpecHash"]["desired"], made_with.as_str());
    }
    let desired_from_file = item(&from_cluster, "runners")["runnerSpecHash"]["desired"].clone();
    assert_eq!(
        desired_from_file,
        item(&from_dump, "runners")["runnerSpecHash"]["desired"]
    );

    // The pull-request check of that render.
    let (code, out, _) = run(&["diff", "-f", &render_s, "--live", &dump_s, "-o", "github"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("::warning ") && out.contains("ARC 0.14.2 will replace"),
        "{out}"
    );

    // Applied with the real kubectl, the cluster's AutoscalingRunnerSet hashes as the file did.
    kubectl_apply(&kubeconfig, &render);
    let applied = stored_ars(&client, &ns, "runners").await;
    assert_eq!(json!(hash_of(&applied)), desired_from_file);
    let (code, out, err) = run(&["diff", "--kubeconfig", &kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        item(&report(&out), "runners")["runnerSpecHash"]["desired"],
        desired_from_file
    );

    // status: Replacing now (ARC has not acted); an old set scaled to 0 is Draining.
    let (_, out, err) = run(&["status", "--kubeconfig", &kc, "-n", &ns, "-o", "json"]);
    let s = report(&out);
    assert_eq!(item(&s, &set)["state"], "Replacing", "{s:#}{err}");
    // ARC replaces it: a newer set with the new hash, the old one scaled to 0.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let newer = create_set_as_0_14_2(&client, &ns, &applied, 1, &hash_of(&applied)).await;
    let ers: Api<DynamicObject> = common::ers_api(&client, &ns);
    ers.patch(
        &set,
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Merge(json!({"spec": {"replicas": 0}})),
    )
    .await
    .unwrap();
    let (_, out, _) = run(&["status", "--kubeconfig", &kc, "-n", &ns, "-o", "json"]);
    let s = report(&out);
    assert_eq!(item(&s, &newer)["state"], "Synced", "{s:#}");
    assert_eq!(item(&s, &set)["state"], "Draining", "{s:#}");

    // Nothing to migrate on a cluster of these releases.
    let (code, out, err) = run(&["migrate", "--kubeconfig", &kc, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let m = report(&out);
    for row in m["items"].as_array().unwrap() {
        assert_eq!(row["decision"], "NoLegacyAnnotation", "{m:#}");
        assert_eq!(row["result"], "Unchanged", "{m:#}");
    }
}

/// bump on a set of ARC 0.14.2: a guarded patch of `kubectl-arc/restarted-at` into the
/// AutoscalingRunnerSet's pod template; the dry runs write nothing; concurrent bumps conflict on
/// the resourceVersion (409) and are retried, each written once.
#[tokio::test(flavor = "multi_thread")]
async fn bump_restarts_a_0_14_2_scale_set_through_its_template() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-rel-bump").await;
    let scratch = common::scratch_dir("arc-rel-bump");
    let file = scratch.join("ars.yaml");
    std::fs::write(&file, ars_manifest(&ns, "runners", "500m")).unwrap();
    kubectl_apply(&kubeconfig, &file);
    let stored = stored_ars(&client, &ns, "runners").await;
    let set = create_set_as_0_14_2(&client, &ns, &stored, 1, &hash_of(&stored)).await;
    let kc = kubeconfig.to_str().unwrap().to_string();
    let rv = |v: &Value| v["metadata"]["resourceVersion"].clone();

    for dry in ["--dry-run=client", "--dry-run=server"] {
        let (code, out, err) = run(&[
            "bump",
            "--kubeconfig",
            &kc,
            "-n",
            &ns,
            "runners",
            dry,
            "-o",
            "json",
        ]);
        assert_eq!(code, 0, "{dry}: {out}{err}");
        let r = report(&out);
        assert_eq!(r["items"][0]["result"], "WouldBump", "{r:#}");
        assert_eq!(r["items"][0]["name"], set.as_str());
        assert!(err.contains("GitOps"), "the sync warning: {err}");
        let after = stored_ars(&client, &ns, "runners").await;
        assert_eq!(rv(&after), rv(&stored), "{dry} wrote nothing");
    }

    let (code, out, err) = run(&[
        "bump",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "runners",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    let stamp = r["items"][0]["restartedAt"].as_str().unwrap().to_string();
    let after = stored_ars(&client, &ns, "runners").await;
    assert_eq!(
        after["spec"]["template"]["metadata"]["annotations"]["kubectl-arc/restarted-at"],
        stamp.as_str()
    );
    assert_ne!(hash_of(&after), hash_of(&stored), "the set is replaced");

    // Issue 30: --reason is written too, beside the restart (the runners' Pods carry it); a
    // later bump without one leaves no stale reason behind.
    let reason = |v: &Value| {
        v["spec"]["template"]["metadata"]["annotations"]["kubectl-arc/bump-reason"].clone()
    };
    assert_eq!(reason(&after), Value::Null, "no --reason, no reason");
    let (code, out, err) = run(&[
        "bump",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "runners",
        "--reason",
        "new base image",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let after = stored_ars(&client, &ns, "runners").await;
    assert_eq!(reason(&after), "new base image");
    let (code, out, err) = run(&["bump", "--kubeconfig", &kc, "-n", &ns, "runners"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        reason(&stored_ars(&client, &ns, "runners").await),
        Value::Null
    );

    // Racing bumps: the resourceVersion precondition makes the server answer 409 to all but one
    // of each round; the guard re-reads and writes again.
    let runs: Vec<_> = (0..6)
        .map(|_| {
            let (kc, ns) = (kc.clone(), ns.clone());
            tokio::spawn(common::cli::in_process_async(common::cli::args(&[
                "bump",
                "--kubeconfig",
                &kc,
                "-n",
                &ns,
                "runners",
                "-o",
                "json",
            ])))
        })
        .collect();
    let mut attempts = 0;
    for r in runs {
        let (code, out, err) = r.await.unwrap();
        assert_eq!(code, 0, "{out}{err}");
        attempts += report(&out)["items"][0]["attempts"].as_u64().unwrap();
    }
    assert!(
        attempts > 6,
        "at least one conflict was retried: {attempts} attempts"
    );
}
