//! Issue 30: what the API server does to a render before ARC reads it, on the real API server.
//! It stores an AutoscalingRunnerSet with its CRD's structural defaults applied (`protocol: TCP`
//! on a container port, `name: ""` on a key reference, `service: ""` on a gRPC probe, ...), and
//! ARC hashes what is stored; it refuses a number that is not an integer where the CRD says
//! integer or string (`cpu: 0.5`). The server here is the legacy one (CRDs without revision
//! fields, as ARC 0.14.2's are).

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::report;
use kubectl_arc::core::defaulting::{self, Structural};

/// The CLI in process, on a thread of its own (the CLI starts its own runtime).
fn run(args: &[&str]) -> (u8, String, String) {
    std::thread::scope(|s| {
        s.spawn(|| crate::common::cli::in_process(args))
            .join()
            .unwrap()
    })
}

fn kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> std::process::Output {
    let kubectl = std::env::var("KUBECTL_ARC_TEST_KUBECTL")
        .expect("KUBECTL_ARC_TEST_KUBECTL: the test bed's kubectl");
    std::process::Command::new(&kubectl)
        .args(["--kubeconfig", kubeconfig.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap()
}

fn crd_api(client: &kube::Client) -> Api<DynamicObject> {
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    Api::all_with(client.clone(), &ar)
}

/// The installed AutoscalingRunnerSet CRD's schema.
async fn installed_schema(client: &kube::Client) -> Structural {
    let crd = crd_api(client)
        .get("autoscalingrunnersets.actions.github.com")
        .await
        .unwrap();
    let crd = serde_json::to_value(crd).unwrap();
    Structural::of_crd(&crd["spec"], "v1alpha1").unwrap()
}

fn release() -> &'static kubectl_arc::core::release::ArcRelease {
    kubectl_arc::core::release::release("0.14.2").expect("0.14.2 is in the release table")
}

fn hash_of(spec: &Value) -> String {
    let spec = serde_json::to_string(spec).unwrap();
    kubectl_arc::core::spec_hash::runner_set_spec_hash(release(), &spec).expect("hash")
}

/// A render of a scale set with fields the CRD defaults left out: container and init-container
/// ports without `protocol`, an env var from a ConfigMap key without `name`, a gRPC probe
/// without `service`, an envFrom Secret without `name`; `cpu` as given.
fn render(ns: &str, name: &str, cpu: &str) -> String {
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
      initContainers:
      - name: init
        image: busybox
        ports: [{{containerPort: 9000}}]
      containers:
      - name: runner
        image: ghcr.io/actions/actions-runner:2.329.0
        command: [/home/runner/run.sh]
        ports:
        - containerPort: 8080
        - {{containerPort: 5353, protocol: UDP}}
        env:
        - name: FROM_MAP
          valueFrom: {{configMapKeyRef: {{key: k}}}}
        envFrom:
        - secretRef: {{optional: true}}
        livenessProbe:
          grpc: {{port: 9090}}
        resources:
          requests: {{cpu: {cpu}}}
"
    )
}

/// The spec of a render as the CLI reads it (YAML as kubectl reads it, numbers as Go writes them).
fn spec_of(text: &str) -> Value {
    let objects = kubectl_arc::manifest::parse(text, "render.yaml").unwrap();
    objects[0].value["spec"].clone()
}

/// The real server stores a render exactly as our defaulting completes it.
#[tokio::test(flavor = "multi_thread")]
async fn the_server_stores_a_render_as_our_defaulting_completes_it() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-defaults").await;
    let text = render(&ns, "runners", "\"500m\"");
    let object: DynamicObject = serde_json::from_value(
        kubectl_arc::manifest::parse(&text, "r").unwrap()[0]
            .value
            .clone(),
    )
    .unwrap();
    common::ars_api(&client, &ns)
        .create(&PostParams::default(), &object)
        .await
        .unwrap();
    let stored =
        serde_json::to_value(common::ars_api(&client, &ns).get("runners").await.unwrap()).unwrap();
    let schema = installed_schema(&client).await;
    let ours = defaulting::stored_spec(&spec_of(&text).to_string(), &schema).unwrap();
    let ours: Value = serde_json::from_str(&ours).unwrap();
    assert_eq!(
        ours, stored["spec"],
        "ours:\n{ours:#}\nstored:\n{:#}",
        stored["spec"]
    );
    // What the defaults added, and what they left.
    let runner = &ours["template"]["spec"]["containers"][0];
    assert_eq!(runner["ports"][0]["protocol"], "TCP");
    assert_eq!(runner["ports"][1]["protocol"], "UDP");
    assert_eq!(runner["env"][0]["valueFrom"]["configMapKeyRef"]["name"], "");
    assert_eq!(runner["envFrom"][0]["secretRef"]["name"], "");
    assert_eq!(runner["livenessProbe"]["grpc"]["service"], "");
    assert_eq!(
        ours["template"]["spec"]["initContainers"][0]["ports"][0]["protocol"],
        "TCP"
    );
    drop(kubeconfig);
}

/// The EphemeralRunnerSet ARC 0.14.2 makes of a stored scale set, with its runner-spec hash.
async fn set_as_0_14_2(client: &kube::Client, ns: &str, ars: &Value) {
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
            "name": format!("{name}-x7k2p"),
            "labels": {
                "app.kubernetes.io/version": "0.14.2",
                "actions.github.com/scale-set-name": name,
                "actions.github.com/scale-set-namespace": ns,
            },
            "annotations": {"actions.github.com/runner-spec-hash": hash_of(&ars["spec"])},
            "ownerReferences": [{
                "apiVersion": "actions.github.com/v1alpha1",
                "kind": "AutoscalingRunnerSet",
                "name": name,
                "uid": ars["metadata"]["uid"],
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        },
        "spec": {"replicas": 1, "patchID": 0, "ephemeralRunnerSpec": runner_spec},
    }))
    .unwrap();
    common::ers_api(client, ns)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
}

fn item<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no item {name} in {r:#}"))
}

/// A render with a `containerPort` and no `protocol`, applied with kubectl and its set made by
/// 0.14.2 from what is stored: the same render is kept (exit 0), against the cluster (its CRD's
/// defaults) and against a dump holding the CRD; without the defaults its hash differs.
#[tokio::test(flavor = "multi_thread")]
async fn a_render_with_a_container_port_and_no_protocol_is_kept() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-defaults-kept").await;
    let scratch = common::scratch_dir("arc-defaults-kept");
    let text = render(&ns, "runners", "\"500m\"");
    let file = scratch.join("render.yaml");
    std::fs::write(&file, &text).unwrap();
    let out = kubectl(
        &kubeconfig,
        &["apply", "--server-side", "-f", file.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stored =
        serde_json::to_value(common::ars_api(&client, &ns).get("runners").await.unwrap()).unwrap();
    set_as_0_14_2(&client, &ns, &stored).await;
    // The render as written does not hash as stored: without the defaults it would be replaced.
    assert_ne!(hash_of(&spec_of(&text)), hash_of(&stored["spec"]));

    let kc = kubeconfig.to_str().unwrap().to_string();
    let render_s = file.to_str().unwrap().to_string();
    let (code, out, err) = run(&["diff", "--kubeconfig", &kc, "-f", &render_s, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(item(&r, "runners")["recycle"], false, "{r:#}");
    assert_eq!(
        r["defaultsFrom"],
        "CustomResourceDefinition autoscalingrunnersets.actions.github.com (cluster)"
    );

    // A dump holding the CRD.
    let mut dump = String::from_utf8(
        kubectl(
            &kubeconfig,
            &[
                "-n",
                &ns,
                "get",
                "autoscalingrunnersets,ephemeralrunnersets",
                "-o",
                "yaml",
            ],
        )
        .stdout,
    )
    .unwrap();
    let crd = kubectl(
        &kubeconfig,
        &[
            "get",
            "crd",
            "autoscalingrunnersets.actions.github.com",
            "-o",
            "yaml",
        ],
    );
    assert!(crd.status.success());
    dump.push_str("---\n");
    dump.push_str(&String::from_utf8(crd.stdout).unwrap());
    let dump_file = scratch.join("dump.yaml");
    std::fs::write(&dump_file, dump).unwrap();
    let dump_s = dump_file.to_str().unwrap().to_string();
    let (code, out, err) = run(&["diff", "-f", &render_s, "--live", &dump_s, "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(item(&r, "runners")["recycle"], false, "{r:#}");
    let from = r["defaultsFrom"].as_str().unwrap();
    assert!(
        from.starts_with("CustomResourceDefinition autoscalingrunnersets.actions.github.com (")
            && from.contains("dump.yaml"),
        "{from}"
    );
}

/// `cpu: 0.5` unquoted: the server answers 422 ("must be of type integer,string"), and diff
/// refuses the render (exit 2) naming the object, the field and the fix.
#[tokio::test(flavor = "multi_thread")]
async fn a_render_the_api_server_refuses_is_refused() {
    let (kubeconfig, _client, ns) =
        common::fresh_namespace(common::legacy_kubeconfig(), "arc-defaults-refused").await;
    let scratch = common::scratch_dir("arc-defaults-refused");
    let file = scratch.join("render.yaml");
    std::fs::write(&file, render(&ns, "runners", "0.5")).unwrap();
    let out = kubectl(
        &kubeconfig,
        &["apply", "--server-side", "-f", file.to_str().unwrap()],
    );
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(
        said.contains("spec.template.spec.containers[0].resources.requests.cpu")
            && said.contains("must be of type integer,string"),
        "{said}"
    );
    let kc = kubeconfig.to_str().unwrap().to_string();
    let render_s = file.to_str().unwrap().to_string();
    for args in [
        vec![
            "diff",
            "--kubeconfig",
            &kc,
            "-f",
            &render_s,
            "--allow-empty-live",
            "-o",
            "json",
        ],
        vec!["diff", "--local", "-f", &render_s, "-o", "json"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{out}{err}");
        let r = report(&out);
        let error = item(&r, "runners")["error"].as_str().unwrap().to_string();
        assert!(
            error.contains(&format!("AutoscalingRunnerSet {ns}/runners"))
                && error.contains("spec.template.spec.containers[0].resources.requests.cpu: 0.5")
                && error.contains("quote it (\"0.5\"), or write it in milli-units (500m)"),
            "{error}"
        );
    }
}

/// The shipped defaults of each release are a fresh generation's: the defaults and int-or-string
/// nodes of the AutoscalingRunnerSet CRD `scripts/testbed.sh build` generates with the tag's
/// controller-gen from our declarations of its types at its k8s.io/api (gen_release_crds, one
/// directory per group of releases). `KUBECTL_ARC_BLESS=1` writes them.
#[test]
fn shipped_crds_are_a_fresh_generation() {
    let dir = std::path::PathBuf::from(
        std::env::var("KUBECTL_ARC_TEST_RELEASE_CRDS")
            .expect("KUBECTL_ARC_TEST_RELEASE_CRDS: run scripts/testbed.sh build, then up"),
    );
    let bless = std::env::var("KUBECTL_ARC_BLESS").is_ok_and(|v| v == "1");
    // The generated groups (scripts/testbed.sh, release_crd_groups), by first release.
    for generated in ["0.9.0", "0.11.0", "0.12.0", "0.13.0", "0.13.1", "0.14.0"] {
        let file = dir
            .join(generated)
            .join("actions.github.com_autoscalingrunnersets.yaml");
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let crd = &kubectl_arc::manifest::parse(&text, "crd.yaml").unwrap()[0].value;
        let schema = Structural::of_crd(&crd["spec"], "v1alpha1").unwrap();
        let fresh = defaulting::entries(&schema);
        let (first, group, shipped) = defaulting::shipped_text(generated).expect("a shipped group");
        if bless {
            let mut out = format!(
                "# ARC {group}: the defaults and int-or-string nodes of its AutoscalingRunnerSet CRD, generated\n# by controller-gen from our declarations of its types (scripts/testbed.sh, gen_release_crds).\n"
            );
            for line in &fresh {
                out.push_str(line);
                out.push('\n');
            }
            let path = format!(
                "{}/crates/kubectl-arc-core/src/defaults/ars-{first}.txt",
                env!("CARGO_MANIFEST_DIR")
            );
            std::fs::write(&path, out).unwrap();
            continue;
        }
        let shipped: Vec<&str> = shipped.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            shipped, fresh,
            "ARC {generated} (shipped as ARC {group}): re-bless with KUBECTL_ARC_BLESS=1"
        );
    }
}
