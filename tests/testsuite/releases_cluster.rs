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
    create_set_made_by(client, ns, ars, replicas, hash, "0.14.2").await
}

/// The set `version` of ARC made for `ars` (labelled by it, carrying `hash`).
async fn create_set_made_by(
    client: &kube::Client,
    ns: &str,
    ars: &Value,
    replicas: i64,
    hash: &str,
    version: &str,
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
                "app.kubernetes.io/version": version,
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

/// ARC up to 0.14 replaces the set because the AutoscalingRunnerSet changed: diff shows what
/// changed in it (the live and the desired scale set over the hashed fields), not the set as ARC
/// wrote it. The chart's untouched `memory: 4096Mi` (the set holds Go's `4Gi`) is no cause; the
/// real change, `cpu: 500m` -> `"0.5"`, is; the Action's line points at it.
#[tokio::test(flavor = "multi_thread")]
async fn diff_of_a_0_14_2_scale_set_shows_what_changed_in_it_not_the_set_as_arc_wrote_it() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-rel-what").await;
    let scratch = common::scratch_dir("arc-rel-what");
    let with = |cpu: &str| {
        ars_manifest(&ns, "runners", cpu).replace(
            &format!("requests: {{cpu: {cpu}}}"),
            &format!("requests: {{cpu: {cpu}, memory: 4096Mi}}"),
        )
    };
    let before = scratch.join("before.yaml");
    std::fs::write(&before, with("500m")).unwrap();
    kubectl_apply(&kubeconfig, &before);
    let stored = stored_ars(&client, &ns, "runners").await;
    // The set as ARC writes it: Go's canonical quantities.
    let mut as_written = stored.clone();
    as_written["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] =
        json!("4Gi");
    create_set_as_0_14_2(&client, &ns, &as_written, 1, &hash_of(&stored)).await;
    let render = scratch.join("render.yaml");
    std::fs::write(&render, with("\"0.5\"")).unwrap();
    let render_s = render.to_str().unwrap().to_string();
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = run(&["diff", "--kubeconfig", &kc, "-f", &render_s, "-o", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let r = report(&out);
    let i = item(&r, "runners");
    assert_eq!(i["recycle"], true, "{i:#}");
    let changed: Vec<&str> = i["scaleSetDifferences"]
        .as_array()
        .unwrap_or_else(|| panic!("{i:#}"))
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        changed,
        ["spec.template.spec.containers[0].resources.requests.cpu"],
        "{i:#}"
    );
    let cpu = &i["scaleSetDifferences"][0];
    assert_eq!(
        (cpu["from"].as_str(), cpu["to"].as_str()),
        (Some("500m"), Some("0.5"))
    );
    assert!(
        i.get("liveRunnerSpecHash").is_none(),
        "made from the live one: {i:#}"
    );
    // The set comparison stays (the revision era's): memory is there, as strict-only.
    assert!(
        i["differences"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"] == "spec.containers[0].resources.requests.memory"),
        "{i:#}"
    );

    // Text: the scale set's unified diff, without the memory line as a change.
    let (code, out, _) = run(&["diff", "--kubeconfig", &kc, "-f", &render_s]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("-          cpu: 500m\n+          cpu: \"0.5\""),
        "{out}"
    );
    assert!(!out.contains("-          memory"), "{out}");
    // -o github lists it.
    let (_, out, _) = run(&["diff", "--kubeconfig", &kc, "-f", &render_s, "-o", "github"]);
    assert!(
        out.contains("%0A  - spec.template.spec.containers[0].resources.requests.cpu (same quantity in another notation)"),
        "{out}"
    );
}

/// The charts were upgraded (every AutoscalingRunnerSet labelled 0.13.1), the sets are still
/// 0.9.3's (its label, its hash), no controller in view: the scale set is judged by its chart's
/// release, 0.13.1, which replaces the sets (its hash differs); 0.9.3 is named as the
/// alternative, which would keep them. status says the same (`ReleaseDisagrees`).
#[tokio::test(flavor = "multi_thread")]
async fn a_scale_set_labelled_by_upgraded_charts_is_judged_by_their_release() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-rel-label").await;
    let scratch = common::scratch_dir("arc-rel-label");
    let manifest = scratch.join("ars.yaml");
    std::fs::write(
        &manifest,
        ars_manifest(&ns, "runners", "500m").replace(
            "app.kubernetes.io/version: 0.14.2",
            "app.kubernetes.io/version: 0.13.1",
        ),
    )
    .unwrap();
    kubectl_apply(&kubeconfig, &manifest);
    let stored = stored_ars(&client, &ns, "runners").await;
    let old = kubectl_arc::core::release::release("0.9.3").unwrap();
    let new = kubectl_arc::core::release::release("0.13.1").unwrap();
    let spec = serde_json::to_string(&stored["spec"]).unwrap();
    let old_hash = kubectl_arc::core::spec_hash::runner_set_spec_hash(old, &spec).unwrap();
    let new_hash = kubectl_arc::core::spec_hash::runner_set_spec_hash(new, &spec).unwrap();
    assert_ne!(
        old_hash, new_hash,
        "0.9.3 and 0.13.1 hash the scale set otherwise"
    );
    create_set_made_by(&client, &ns, &stored, 1, &old_hash, "0.9.3").await;
    // A dump: no controller Deployment in it.
    let dump = scratch.join("dump.yaml");
    std::fs::write(&dump, kubectl_get_yaml(&kubeconfig, &ns)).unwrap();
    let dump_s = dump.to_str().unwrap().to_string();

    let (code, out, err) = run(&["diff", "--live", &dump_s, "-o", "json"]);
    assert_eq!(code, 1, "0.13.1 replaces the set: {out}{err}");
    let r = report(&out);
    let i = item(&r, "runners");
    assert_eq!(i["release"], "0.13.1", "{i:#}");
    assert!(
        i["releaseFrom"]
            .as_str()
            .unwrap()
            .starts_with("label app.kubernetes.io/version of AutoscalingRunnerSet"),
        "{i:#}"
    );
    assert_eq!(i["recycle"], true);
    assert_eq!(i["runnerSpecHash"]["current"], old_hash.as_str());
    assert_eq!(i["runnerSpecHash"]["desired"], new_hash.as_str());
    assert_eq!(i["alternative"]["release"], "0.9.3", "{i:#}");
    assert_eq!(i["alternative"]["recycle"], false);
    assert_eq!(
        i["alternative"]["runnerSpecHash"]["desired"],
        old_hash.as_str()
    );
    let (_, text, _) = run(&["diff", "--live", &dump_s]);
    assert!(
        text.contains("if the controller still runs ARC 0.9.3 (")
            && text.contains("not replaced (runner-spec-hash"),
        "{text}"
    );

    let (_, out, err) = run(&["status", "-f", &dump_s, "-o", "json"]);
    let s = report(&out);
    let row = s["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("runners-"))
        })
        .unwrap_or_else(|| panic!("{s:#}{err}"));
    assert_eq!(row["state"], "Replacing", "{row:#}");
    let reasons = row["reasons"].to_string();
    assert!(reasons.contains("ReleaseDisagrees"), "{row:#}");
    assert!(reasons.contains("ARC 0.9.3, it keeps the set"), "{row:#}");
}
