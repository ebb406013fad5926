//! Offline, without any CRD among the files: a render is completed with the defaults kubectl-arc
//! ships for the release in use (issue 30), before it is hashed. The live side is the one ARC of
//! that release writes: its set hashes the scale set as the API server stored it, with that
//! release's CRD defaults. (The same on the real API server, with its CRD: the test suite's
//! defaults_cluster.rs.)
use kubectl_arc::core::{defaulting, release, spec_hash};
use serde_json::{Value, json};

use crate::issue20::run;

/// A render labelled `version`: a container port without `protocol`, a gRPC probe without
/// `service` (defaulted by the CRDs of 0.11.0 on, not by 0.9.x's).
fn render(version: &str) -> Value {
    json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "arc", "namespace": "ci",
            "labels": {"app.kubernetes.io/version": version},
            "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/o", "githubConfigSecret": "s",
            "template": {"spec": {"containers": [{"name": "runner", "image": "img",
                "ports": [{"containerPort": 8080}],
                "livenessProbe": {"grpc": {"port": 9090}}}]}}}
    })
}

/// The set `version` made of the render as its CRD stored it (its shipped defaults).
fn set_of(render: &Value, version: &str) -> Value {
    let r = release::release(version).unwrap();
    let (schema, _) = defaulting::shipped(r).unwrap();
    let stored = defaulting::stored_spec(&render["spec"].to_string(), &schema).unwrap();
    let hash = spec_hash::runner_set_spec_hash(r, &stored).unwrap();
    let stored: Value = serde_json::from_str(&stored).unwrap();
    let mut runner_spec = json!({"githubConfigUrl": "https://github.com/o",
        "githubConfigSecret": "s", "runnerScaleSetId": 1});
    runner_spec["spec"] = stored["template"]["spec"].clone();
    json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "metadata": {"name": "arc-x7k2p", "namespace": "ci",
            "labels": {"app.kubernetes.io/version": version,
                "actions.github.com/scale-set-name": "arc",
                "actions.github.com/scale-set-namespace": "ci"},
            "annotations": {"actions.github.com/runner-spec-hash": hash}},
        "spec": {"replicas": 1, "patchID": 0, "ephemeralRunnerSpec": runner_spec}
    })
}

fn files(name: &str, render: &Value, set: &Value) -> (std::path::PathBuf, String, String) {
    let dir = std::env::temp_dir().join(format!(
        "kubectl-arc-defaults-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (r, d) = (dir.join("render.json"), dir.join("dump.json"));
    std::fs::write(&r, render.to_string()).unwrap();
    std::fs::write(&d, set.to_string()).unwrap();
    let (r, d) = (r.display().to_string(), d.display().to_string());
    (dir, r, d)
}

#[test]
fn an_offline_render_is_completed_with_the_shipped_defaults_of_its_release() {
    for version in ["0.9.3", "0.13.1", "0.14.2"] {
        let render = render(version);
        let set = set_of(&render, version);
        let (dir, r, d) = files(version, &render, &set);
        let (code, out, err) = run(&["diff", "-f", &r, "--live", &d, "-o", "json"]);
        assert_eq!(code, 0, "{version}: {out}{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["items"][0]["recycle"], false, "{report:#}");
        let from = report["defaultsFrom"].as_str().unwrap();
        let group = defaulting::shipped(release::release(version).unwrap())
            .unwrap()
            .1;
        assert_eq!(
            from,
            format!(
                "kubectl-arc's copy of ARC {group}'s CRD autoscalingrunnersets.actions.github.com (label app.kubernetes.io/version of AutoscalingRunnerSet ci/arc ({r}))"
            )
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// The release in use chooses the defaults: 0.9.3's CRD defaults the protocol and not the gRPC
/// service, so a set made by 0.9.3 is kept under `--arc-version 0.9.3` and replaced under 0.14.2
/// (whose hash differs anyway, and whose CRD adds `service: ""`).
#[test]
fn the_release_in_use_chooses_the_shipped_defaults() {
    let render = render("0.9.3");
    let set = set_of(&render, "0.9.3");
    let stored_by_0_9 = &set["spec"]["ephemeralRunnerSpec"]["spec"]["containers"][0];
    assert_eq!(stored_by_0_9["ports"][0]["protocol"], "TCP");
    assert!(
        stored_by_0_9["livenessProbe"]["grpc"]
            .get("service")
            .is_none()
    );
    let (dir, r, d) = files("release", &render, &set);
    let (code, out, err) = run(&[
        "diff",
        "-f",
        &r,
        "--live",
        &d,
        "--arc-version",
        "0.9.3",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["defaultsFrom"],
        "kubectl-arc's copy of ARC 0.9.0-0.10.1's CRD autoscalingrunnersets.actions.github.com (--arc-version)"
    );
    let (code, out, _) = run(&[
        "diff",
        "-f",
        &r,
        "--live",
        &d,
        "--arc-version",
        "0.14.2",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["defaultsFrom"],
        "kubectl-arc's copy of ARC 0.13.0-0.14.2's CRD autoscalingrunnersets.actions.github.com (--arc-version)"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
