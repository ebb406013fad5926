//! Issue 33, the next release in `status` and `diff`, on the real API server: objects written as
//! ARC's master after 0.14.2 writes them (an AutoscalingRunnerSet and its EphemeralRunnerSet named
//! like it, statuses through the status subresource, runners stamped with
//! `actions.github.com/actionable-revision` by `newEphemeralRunner` (#4644), the Outdated phase
//! `reconcileOutdated` leaves on the scale set and the set (#4652)), judged under
//! `--arc-version next` and under a controller Deployment recognised as a build of master.
//!
//! The test bed's CRDs (ARC's at 2ee6b3b8 with PR #4638's two revision fields, as
//! `../shared/arc/crds/revision/` has them) lack two fields the next controller writes: the
//! AutoscalingRunnerSet's `status.observedGeneration` (#4636) and the listener's `spec.phase`
//! (#4652). The API server prunes the first, as shown here, so the scale set's generation reads as
//! never observed (Go decodes the absent field as 0) and status says it is Pending; the stopped
//! listener cannot be stored, so status says what ARC does to it rather than what it read.

use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{exe, report};

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no row {name} in {r:#}"))
}

fn codes(row: &Value) -> Vec<String> {
    row["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .collect()
}

/// Merge-patch the AutoscalingRunnerSet `name`'s status, as ARC's controller writes it.
async fn ars_status(client: &kube::Client, ns: &str, name: &str, status: Value) -> Value {
    let stored = common::ars_api(client, ns)
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": status})),
        )
        .await
        .unwrap();
    serde_json::to_value(stored).unwrap()
}

/// The scale set `runners` as the chart writes it (labelled with the next release's version, so
/// the version check `--arc-version next` makes keeps it) and its set named like it, acknowledged
/// at revision 1.
async fn next_scale_set(client: &kube::Client, ns: &str, label: &str) {
    common::scale_set(client, ns, "runners", 0).await;
    common::ars_api(client, ns)
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"app.kubernetes.io/version": label}}})),
        )
        .await
        .unwrap();
}

/// An EphemeralRunner of set `runners` in phase Outdated (its Pod exited with code 7:
/// `markAsOutdated`), stamped by `newEphemeralRunner` with the revision it was made for (`None`:
/// made before #4644, no annotation).
async fn outdated_runner(client: &kube::Client, ns: &str, name: &str, revision: Option<&str>) {
    let set = common::ers_api(client, ns).get("runners").await.unwrap();
    let mut meta = json!({"name": name, "ownerReferences": [{
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "name": "runners", "uid": set.metadata.uid, "controller": true}]});
    if let Some(r) = revision {
        meta["annotations"] = json!({"actions.github.com/actionable-revision": r});
    }
    let runner: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": meta, "spec": set.data["spec"]["ephemeralRunnerSpec"],
    }))
    .unwrap();
    let runners = common::runner_api(client, ns);
    runners
        .create(&PostParams::default(), &runner)
        .await
        .unwrap();
    runners
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Outdated"}})),
        )
        .await
        .unwrap();
}

/// The live AutoscalingRunnerSet as a chart render would give it, with `edit` applied to its spec.
async fn render(client: &kube::Client, ns: &str, edit: impl FnOnce(&mut Value)) -> String {
    let live = common::ars_api(client, ns).get("runners").await.unwrap();
    let mut spec = live.data["spec"].clone();
    edit(&mut spec);
    json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "namespace": ns,
                     "labels": live.metadata.labels, "annotations": live.metadata.annotations},
        "spec": spec,
    })
    .to_string()
}

/// `--arc-version next`: the scale set's generation not observed keeps its set Pending (#4636); an
/// Outdated scale set is switched off, its stale Outdated runners told apart (#4644); diff says a
/// min/max change does not leave Outdated and a runner-spec change does (#4660). Without the flag
/// the same objects read as before.
#[tokio::test(flavor = "multi_thread")]
async fn status_and_diff_judge_a_scale_set_as_the_next_release_does() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-next").await;
    next_scale_set(&client, &ns, "0.15.0").await;

    // The next controller records the generation it reconciled; this CRD has no such field, so
    // the API server drops it (answering 200) and keeps the phase.
    let ars = common::ars_api(&client, &ns).get("runners").await.unwrap();
    let generation = ars.metadata.generation.unwrap();
    let stored = ars_status(
        &client,
        &ns,
        "runners",
        json!({"phase": "Running", "observedGeneration": generation}),
    )
    .await;
    assert_eq!(stored["status"]["phase"], "Running", "{stored:#}");
    assert!(
        stored["status"].get("observedGeneration").is_none(),
        "{stored:#}"
    );

    let status = |extra: &[&str]| {
        let mut a = vec!["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"];
        a.extend_from_slice(extra);
        let (code, out, err) = exe(&a);
        assert_eq!(code, 0, "{err}");
        report(&out)
    };
    // A released ARC (nothing says which): the revisions agree, Synced, as before.
    let before = status(&[]);
    let row = item(&before, "runners");
    assert_eq!(row["state"], "Synced", "{row:#}");
    assert!(row.get("release").is_none(), "{row:#}");

    let next = status(&["--arc-version", "next"]);
    let row = item(&next, "runners");
    assert_eq!(row["state"], "Pending", "{row:#}");
    assert_eq!(codes(row), ["ObservedGenerationBehind"], "{row:#}");
    assert_eq!(
        row["reasons"][0]["message"],
        format!(
            "ARC has not observed generation {generation} of the AutoscalingRunnerSet yet (status.observedGeneration 0)"
        )
    );
    assert_eq!(row["release"], "next", "{row:#}");
    assert_eq!(row["releaseFrom"], "--arc-version next", "{row:#}");

    // Runners reject the spec (exit code 7): the set and the scale set go Outdated. Two runners
    // were made for an older revision than the applied 1 (one before #4644, unstamped).
    for (name, revision) in [
        ("r-old", Some("0")),
        ("r-unstamped", None),
        ("r-now", Some("1")),
    ] {
        outdated_runner(&client, &ns, name, revision).await;
    }
    common::set_ers_status(&client, &ns, "runners", json!({"phase": "Outdated"})).await;
    ars_status(&client, &ns, "runners", json!({"phase": "Outdated"})).await;

    let next = status(&["--arc-version", "next"]);
    let row = item(&next, "runners");
    assert_eq!(row["state"], "Outdated", "{row:#}");
    assert_eq!(
        codes(row),
        [
            "SwitchedOff",
            "RunnersOutdated",
            "RunnersStaleOutdated",
            "ObservedGenerationBehind"
        ],
        "{row:#}"
    );
    let said = |i: usize| row["reasons"][i]["message"].as_str().unwrap().to_string();
    assert!(
        said(0).contains("the AutoscalingRunnerSet is in status.phase Outdated"),
        "{}",
        said(0)
    );
    assert!(
        said(0).contains("ARC stops its listener (spec.phase Stopped)"),
        "{}",
        said(0)
    );
    assert!(said(0).contains("minRunners or maxRunners"), "{}", said(0));
    assert!(
        said(1).starts_with("1 runner ") && said(1).contains("r-now"),
        "{}",
        said(1)
    );
    assert!(
        said(2).starts_with(
            "2 runners in phase Outdated made for a revision older than the applied 1"
        ) && said(2).contains("r-old")
            && said(2).contains("r-unstamped"),
        "{}",
        said(2)
    );
    // A released ARC's words for the same set: every Outdated runner holds it.
    let before = status(&[]);
    let row = item(&before, "runners");
    assert_eq!(row["state"], "Outdated", "{row:#}");
    assert_eq!(
        codes(row),
        ["Outdated", "RunnersOutdated", "OutdatedExplanation"],
        "{row:#}"
    );
    assert!(
        row["reasons"][1]["message"]
            .as_str()
            .unwrap()
            .starts_with("3 runners"),
        "{row:#}"
    );

    // The listener as `reconcileOutdated` leaves it, stopped: this CRD has no spec.phase, so the
    // API server drops it and status cannot read it (it says what ARC does instead, above).
    let ar = kube::core::ApiResource::from_gvk_with_plural(
        &kube::core::GroupVersionKind::gvk("actions.github.com", "v1alpha1", "AutoscalingListener"),
        "autoscalinglisteners",
    );
    let listener: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
        "metadata": {"name": common::arc_listener_name("runners", &ns, "")},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "runnerScaleSetId": 1, "autoscalingRunnerSetNamespace": ns,
                 "autoscalingRunnerSetName": "runners", "ephemeralRunnerSetName": "runners",
                 "maxRunners": 5, "minRunners": 0, "phase": "Stopped",
                 "image": "ghcr.io/actions/gha-runner-scale-set-controller:canary-2ee6b3b"}
    }))
    .unwrap();
    let stored =
        kube::api::Api::<kube::api::DynamicObject>::namespaced_with(client.clone(), &ns, &ar)
            .create(&PostParams::default(), &listener)
            .await
            .unwrap();
    assert_eq!(stored.data["spec"]["ephemeralRunnerSetName"], "runners");
    assert!(
        stored.data["spec"].get("phase").is_none(),
        "{:#}",
        stored.data
    );

    // diff of a change: maxRunners only stays switched off; a new runner image leaves Outdated.
    let dir = common::scratch_dir("next-diff");
    let max = render(&client, &ns, |s| s["maxRunners"] = json!(50)).await;
    let image = render(&client, &ns, |s| {
        s["template"]["spec"]["containers"][0]["image"] = json!("img:2")
    })
    .await;
    let diff = |name: &str, text: &str, output: &[&str]| {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let f = file.to_str().unwrap().to_string();
        let mut a = vec![
            "diff",
            "--kubeconfig",
            &kcs,
            "-n",
            &ns,
            "-f",
            &f,
            "--arc-version",
            "next",
        ];
        a.extend_from_slice(output);
        exe(&a)
    };
    let json_diff = |name: &str, text: &str| {
        let (code, out, err) = diff(name, text, &["-o", "json"]);
        (code, report(&out), err)
    };
    let (code, r, err) = json_diff("max.json", &max);
    assert_eq!(code, 0, "{err}\n{r:#}");
    let it = &r["items"][0];
    assert_eq!(it["outdated"], json!({"leaves": false}), "{it:#}");
    assert_eq!(it["recycle"], false, "{it:#}");
    assert_eq!(it["release"], "next", "{it:#}");
    assert_eq!(r["arcVersion"], "next", "{r:#}");
    let (code, r, err) = json_diff("image.json", &image);
    assert_eq!(code, 1, "{err}\n{r:#}");
    let it = &r["items"][0];
    assert_eq!(it["outdated"], json!({"leaves": true}), "{it:#}");
    assert_eq!(it["recycle"], true, "{it:#}");
    // The text says both.
    let (_, out, err) = diff("max.json", &max, &[]);
    assert!(
        out.contains(
            "  judged by the next release (ARC's master after 0.14.2): --arc-version next"
        ),
        "{out}{err}"
    );
    assert!(
        out.contains("this change does not leave Outdated"),
        "{out}{err}"
    );
}

/// A controller Deployment as master's chart labels it (`app.kubernetes.io/version: 0.14.2`, its
/// `appVersion`) running a canary image over the revision CRDs is recognised as the next release,
/// said with why, by status and diff alike; its version check (a `canary-` build allows every
/// label) keeps a scale set labelled 0.14.2; the set 0.14.2 made before is left behind.
#[tokio::test(flavor = "multi_thread")]
async fn a_canary_controller_over_the_revision_crds_is_recognised_as_next() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-canary").await;
    next_scale_set(&client, &ns, "0.14.2").await;
    let deploy: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(json!({
        "metadata": {"name": "arc-gha-rs-controller", "labels": {
            "app.kubernetes.io/name": "arc",
            "app.kubernetes.io/part-of": "gha-rs-controller",
            "app.kubernetes.io/version": "0.14.2"
        }},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "c"}},
            "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [
                {"name": "manager", "image": "ghcr.io/actions/gha-runner-scale-set-controller:canary-2ee6b3b"}]}}
        }
    }))
    .unwrap();
    // The set ARC 0.14.2 made for the scale set before the upgrade (`generateName: runners-`,
    // its runner-spec hash, owned by the scale set), which the next release does not use.
    let ars = common::ars_api(&client, &ns).get("runners").await.unwrap();
    let mut old = common::ers_object("runners-x7k2p", common::runner_spec("img:1"));
    old.metadata.annotations = Some(
        [(
            "actions.github.com/runner-spec-hash".to_string(),
            "595bdbd674".to_string(),
        )]
        .into(),
    );
    old.metadata.labels = Some(
        [
            (
                "actions.github.com/scale-set-name".to_string(),
                "runners".to_string(),
            ),
            (
                "actions.github.com/scale-set-namespace".to_string(),
                ns.clone(),
            ),
            (
                "app.kubernetes.io/version".to_string(),
                "0.14.2".to_string(),
            ),
        ]
        .into(),
    );
    old.metadata.owner_references = Some(vec![
        serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": ars.metadata.uid, "controller": true, "blockOwnerDeletion": true
        }))
        .unwrap(),
    ]);
    common::ers_api(&client, &ns)
        .create(&PostParams::default(), &old)
        .await
        .unwrap();
    let _controller =
        common::controller::ControllerDeployment::create(&kc, &client, &ns, &deploy).await;

    let (code, out, err) = exe(&["status", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    let row = item(&r, "runners");
    assert_eq!(row["release"], "next", "{row:#}");
    let from = row["releaseFrom"].as_str().unwrap();
    assert!(
        from.starts_with(&format!("controller Deployment {ns}/arc-gha-rs-controller runs the next release: its image tag canary-2ee6b3b is a build of ARC's master")),
        "{from}"
    );
    assert!(from.contains("spec.actionableRevision"), "{from}");
    let reasons = codes(row);
    assert!(
        reasons.contains(&"ObservedGenerationBehind".to_string()),
        "{row:#}"
    );
    assert!(
        !reasons.contains(&"DeletedByVersionCheck".to_string()),
        "{row:#}"
    );
    // The test bed's revision CRDs are #4638's: they lack the scale set's observed generation and
    // the listener's phase, which the next release writes; status says so (the Pending above is
    // what ARC itself would keep showing on these CRDs).
    let crds = (row["reasons"].as_array().unwrap().iter())
        .find(|x| x["reason"] == "CrdsBehindController")
        .unwrap_or_else(|| panic!("{row:#}"));
    let message = crds["message"].as_str().unwrap();
    assert!(message.contains("runs ARC next"), "{message}");
    assert!(
        message.contains("status.observedGeneration (next)"),
        "{message}"
    );
    assert!(message.contains("spec.phase (next)"), "{message}");
    // The 0.14 set, newer than the one named like the scale set, is left behind all the same.
    let old = item(&r, "runners-x7k2p");
    assert_eq!(old["state"], "SpecHash", "{old:#}");
    assert_eq!(codes(old)[0], "LeftBehindByNext", "{old:#}");

    let (code, out, err) = exe(&["diff", "--kubeconfig", &kcs, "-n", &ns, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let r = report(&out);
    assert_eq!(r["arcVersion"], "next", "{r:#}");
    assert!(
        r["arcVersionFrom"]
            .as_str()
            .unwrap()
            .contains("canary-2ee6b3b"),
        "{r:#}"
    );
    let it = &r["items"][0];
    assert_eq!(it["release"], "next", "{r:#}");
    // The set named like the scale set, not the newer 0.14 one, which is left beside it.
    assert!(it.get("error").is_none(), "{it:#}");
    assert!(
        it["currentFrom"].as_str().unwrap().ends_with("/runners"),
        "{it:#}"
    );
    assert!(
        it["note"]
            .as_str()
            .unwrap()
            .starts_with("the next release leaves runners-x7k2p running"),
        "{it:#}"
    );
}
