//! `kubectl arc diff` end to end against the real API server with ARC's CRDs: what ARC's
//! controller would conclude for objects that went through the API server, and the same report
//! offline from a dump of those objects.

use crate::common;

use crate::common::ars_api;
use crate::common::cli::{args, in_process as run, in_process_async as run_async, report};
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

fn template(image: &str) -> Value {
    json!({
        "metadata": {"labels": {"team": "platform"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{
                "name": "runner",
                "image": image,
                "command": ["/home/runner/run.sh"],
                "env": [],
                "resources": {"limits": {"cpu": "1000m", "memory": "4Gi"}}
            }]
        }
    })
}

/// The runner spec as ARC's controller writes it: Go's encoding/json drops the empty env
/// (omitempty) and writes the canonical quantity.
fn stored_runner_spec(image: &str) -> Value {
    json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 7,
        "metadata": {"labels": {"team": "platform"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{
                "name": "runner",
                "image": image,
                "command": ["/home/runner/run.sh"],
                "resources": {"limits": {"cpu": "1", "memory": "4Gi"}}
            }]
        }
    })
}

async fn create_pair(client: &kube::Client, ns: &str, name: &str, image: &str) {
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "annotations": {"runner-scale-set-id": "7"}},
        "spec": {
            "githubConfigUrl": "https://github.com/my-org",
            "githubConfigSecret": "gh-secret",
            "template": template(image),
        }
    }))
    .unwrap();
    ars_api(client, ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    common::create_ers(client, ns, name, stored_runner_spec(image)).await;
}

/// `kubectl-arc diff --kubeconfig KUBECONFIG -n NS ARGS...`, in-process; (exit code, stdout,
/// stderr).
async fn run_diff(kubeconfig: &str, ns: &str, extra: &[&str]) -> (u8, String, String) {
    let mut argv = vec!["diff", "--kubeconfig", kubeconfig, "-n", ns];
    argv.extend_from_slice(extra);
    run_async(args(&argv)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn nil_vs_empty_is_strict_only_and_an_image_change_is_semantic_drift() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-diff").await;
    create_pair(
        &client,
        &ns,
        "runners",
        "ghcr.io/actions/actions-runner:2.328.0",
    )
    .await;
    let kc = kubeconfig.to_str().unwrap().to_string();

    let (code, out, err) = run_diff(&kc, &ns, &["-o", "json"]).await;
    assert_eq!(code, 0, "no semantic drift → exit 0\n{out}\n{err}");
    let r = report(&out);
    let item = &r["items"][0];
    assert_eq!(item["name"], "runners");
    assert_eq!(item["semanticDrift"], false);
    assert_eq!(item["semanticEqual"], true);
    assert_eq!(item["reflectEqual"], false);
    assert_eq!(item["cmpEqual"], false);
    assert_eq!(item["strictOnlyDifferences"], 2, "{item}");
    let reasons: Vec<(String, String)> = item["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().into(),
                d["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "spec.containers[0].env".to_string(),
                "NilVsEmpty".to_string()
            ),
            (
                "spec.containers[0].resources.limits.cpu".to_string(),
                "QuantityNotation".to_string()
            ),
        ]
    );

    // The user changes the runner image in the AutoscalingRunnerSet: ARC will act.
    ars_api(&client, &ns)
        .patch(
            "runners",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"template": template("ghcr.io/actions/actions-runner:2.329.0")}}),
            ),
        )
        .await
        .unwrap();
    let (code, out, _) = run_diff(&kc, &ns, &["runners", "--color", "never"]).await;
    assert_eq!(code, 1, "semantic drift → exit 1\n{out}");
    assert!(
        out.contains(&format!("{ns}/runners: semantic drift")),
        "{out}"
    );
    assert!(
        out.contains("-    image: ghcr.io/actions/actions-runner:2.328.0"),
        "{out}"
    );
    assert!(
        out.contains("+    image: ghcr.io/actions/actions-runner:2.329.0"),
        "{out}"
    );
    assert!(out.contains("env: []  # strict-only"), "{out}");

    // A dump of both objects gives the same report offline (no kubeconfig at all).
    let mut items = Vec::new();
    for plural in ["autoscalingrunnersets", "ephemeralrunnersets"] {
        let path = format!("/apis/actions.github.com/v1alpha1/namespaces/{ns}/{plural}/runners");
        let req = http::Request::get(path).body(Vec::new()).unwrap();
        let text = client.request_text(req).await.unwrap();
        items.push(serde_json::from_str::<Value>(&text).unwrap());
    }
    let dir = std::env::temp_dir().join(common::unique_name("arc-dump"));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("dump.json");
    std::fs::write(
        &dump,
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let online = run_diff(&kc, &ns, &["-o", "json"]).await;
    let offline = run_async(args(&[
        "diff",
        "--kubeconfig",
        "/nonexistent",
        "-f",
        dump.to_str().unwrap(),
        "-o",
        "json",
    ]))
    .await;
    assert_eq!(online.0, 1);
    assert_eq!(offline.0, 1, "{}", offline.2);
    // The dump's scale sets are completed with the shipped CRD defaults (the file holds no CRD,
    // the cluster is not asked); the cluster's are as stored.
    let mut offline = report(&offline.1);
    assert_eq!(
        offline.as_object_mut().unwrap().remove("defaultsFrom"),
        Some(json!(
            "kubectl-arc's copy of ARC 0.13.0-0.14.2's CRD autoscalingrunnersets.actions.github.com (the newest release, as nothing says which)"
        ))
    );
    // The impact differs by what each side could count: the cluster's runners were listed (none),
    // the dump holds none, so there they are not known (issue 32: never a 0 not counted).
    let mut online = report(&online.1);
    assert_eq!(online["items"][0]["impact"]["runnersKnown"], true);
    assert_eq!(offline["items"][0]["impact"]["runnersKnown"], false);
    let strip = |v: &mut Value| {
        v.as_object_mut().unwrap().remove("impact");
        for item in v["items"].as_array_mut().unwrap() {
            let o = item.as_object_mut().unwrap();
            o.remove("desiredFrom");
            o.remove("currentFrom");
            o.remove("impact");
        }
    };
    strip(&mut online);
    strip(&mut offline);
    assert_eq!(online, offline);
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_objects_and_forbidden_reads_are_errors_naming_the_object() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-diff-err").await;
    create_pair(&client, &ns, "complete", "img:1").await;
    // An ARS whose ERS ARC has not created yet.
    let lonely: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "lonely", "annotations": {"runner-scale-set-id": "8"}},
        "spec": {"githubConfigUrl": "https://github.com/o", "githubConfigSecret": "s", "template": template("img:1")}
    }))
    .unwrap();
    ars_api(&client, &ns)
        .create(&PostParams::default(), &lonely)
        .await
        .unwrap();
    let kc = kubeconfig.to_str().unwrap().to_string();
    // A scale set without its set is new (nothing to recycle), said with what ARC waits for: it
    // does not turn the run into an error (issue 12).
    let (code, out, _) = run_diff(&kc, &ns, &["-o", "json"]).await;
    assert_eq!(code, 0, "{out}");
    let r = report(&out);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["name"], "complete");
    assert_eq!(items[0]["semanticDrift"], false);
    assert_eq!(items[1]["name"], "lonely");
    assert_eq!(items[1]["new"], true, "{}", items[1]);
    assert!(
        items[1]["note"].as_str().unwrap().contains(
            "ARC has registered the scale set but not created its EphemeralRunnerSet yet"
        ),
        "{}",
        items[1]
    );
    // Without the id annotation it is in the registration gap, and says so.
    ars_api(&client, &ns)
        .patch(
            "lonely",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {"runner-scale-set-id": null}}})),
        )
        .await
        .unwrap();
    let (code, out, _) = run_diff(&kc, &ns, &["lonely", "-o", "json"]).await;
    assert_eq!(code, 0, "{out}");
    let r = report(&out);
    assert!(
        r["items"][0]["note"]
            .as_str()
            .unwrap()
            .contains("ARC has not registered the scale set with GitHub yet"),
        "{r}"
    );

    // The read-only user can diff; a user without any access is told what is forbidden.
    let restricted = common::restricted_kubeconfig()
        .to_str()
        .unwrap()
        .to_string();
    let ok = run_diff(&restricted, &ns, &["complete"]).await;
    assert_eq!(ok.0, 0, "{}", ok.2);
    let (code, _, err) = run_diff(&kc, &ns, &["--as", "nobody"]).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("forbidden: cannot list autoscalingrunnersets"),
        "the message names the verb and the resource: {err}"
    );
}

/// Objects the API server accepts but ARC never writes (no `spec`), and a namespace that does not
/// exist: each gets an error naming the object (or namespace) and the field, exit 2, and the
/// healthy set beside them is still reported.
#[tokio::test(flavor = "multi_thread")]
async fn objects_without_spec_and_unknown_namespaces_are_errors() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-nospec").await;
    create_pair(&client, &ns, "healthy", "img:1").await;
    // An ARS without spec (its ERS is fine) and an ERS without spec (its ARS is fine).
    create_pair(&client, &ns, "ars-nospec", "img:1").await;
    ars_api(&client, &ns)
        .patch(
            "ars-nospec",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": null})),
        )
        .await
        .unwrap();
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "ers-nospec", "annotations": {"runner-scale-set-id": "7"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": template("img:1")}
    }))
    .unwrap();
    ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    let mut ers = common::ers_object("ers-nospec", json!({}));
    ers.data = json!({});
    common::ers_api(&client, &ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    let stored = common::ers_api(&client, &ns)
        .get("ers-nospec")
        .await
        .unwrap();
    assert!(stored.data.get("spec").is_none(), "{:?}", stored.data);

    let kc = kubeconfig.to_str().unwrap().to_string();
    let ns2 = ns.clone();
    let (diff, status, migrate, unknown) = tokio::task::spawn_blocking(move || {
        let k = |args: &[&str]| {
            let mut a = vec!["--kubeconfig", kc.as_str()];
            a.extend_from_slice(args);
            run(&a)
        };
        (
            k(&["diff", "-n", &ns2]),
            k(&["status", "-n", &ns2, "-o", "wide"]),
            k(&["migrate", "-n", &ns2, "--dry-run=client", "--force"]),
            [
                k(&["diff", "-n", "no-such-namespace"]),
                k(&["diff", "x", "-n", "no-such-namespace"]),
                k(&["status", "-n", "no-such-namespace"]),
                k(&[
                    "migrate",
                    "-n",
                    "no-such-namespace",
                    "--dry-run=client",
                    "--force",
                ]),
                k(&["bump", "x", "-n", "no-such-namespace"]),
            ],
        )
    })
    .await
    .unwrap();

    let (code, out, err) = diff;
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains(&format!(
            "{ns}/ars-nospec: error: AutoscalingRunnerSet {ns}/ars-nospec: spec is missing"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ns}/ers-nospec: error: EphemeralRunnerSet {ns}/ers-nospec: spec is missing"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("{ns}/healthy: no semantic drift")),
        "{out}"
    );

    let (code, out, err) = status;
    assert_eq!(code, 0, "{out}{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{out}"))
            .to_string()
    };
    assert!(
        row("ers-nospec").contains("Invalid") && row("ers-nospec").contains("spec is missing"),
        "{out}"
    );
    assert!(row("healthy").contains("Synced"), "{out}");

    let (code, out, err) = migrate;
    // A set that could not be processed is exit 2 in every command (the README's one rule).
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains(&format!(
            "EphemeralRunnerSet {ns}/ers-nospec: spec is missing"
        )),
        "{out}{err}"
    );
    assert!(err.contains("0 would be written, 1 failed"), "{out}{err}");

    for (code, out, err) in unknown {
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("namespace \"no-such-namespace\" not found"),
            "{out}{err}"
        );
    }
}

/// A cluster without ARC's CRDs (an API server of its own on empty storage): every command fails
/// with exit 2 and says the CRDs are missing, instead of "nothing found".
#[tokio::test(flavor = "multi_thread")]
async fn without_arc_crds_every_command_says_so() {
    let server = common::apiserver::Replica::start_empty().await;
    let kc = server.kubeconfig.to_str().unwrap().to_string();
    let runs = tokio::task::spawn_blocking(move || {
        let cases: [&[&str]; 7] = [
            &["diff"],
            &["diff", "arc"],
            &["status"],
            &["status", "-A", "--wait", "--timeout", "5s"],
            &["migrate", "--dry-run=client", "--force"],
            &["bump", "arc"],
            &["bump", "--all", "-A"],
        ];
        cases
            .iter()
            .map(|c| {
                let mut a = vec!["--kubeconfig", kc.as_str()];
                a.extend_from_slice(c);
                (c.join(" "), run(&a))
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for (case, (code, out, err)) in runs {
        assert_eq!(code, 2, "{case}\n{out}{err}");
        let all = format!("{out}{err}");
        assert!(
            all.contains("are ARC's CRDs installed?")
                || all.contains(
                    "the CRD ephemeralrunnersets.actions.github.com is not installed: install ARC's CRDs first"
                ),
            "{case}: {all}"
        );
        assert!(!all.contains("not found\n"), "{case}: {all}");
    }
}

/// A YAML file reads as kubectl applies it: the same AutoscalingRunnerSet file (plain YAML floats
/// and an octal in the template, as hand-written or Helm-rendered values often are) applied with
/// the real kubectl and compared online gives exactly the report `diff -f FILE` gives from the
/// file itself. kubectl writes YAML `1.0` as the JSON number `1`, `4e9` as `4000000000` and
/// `0644` as 420; reading them as `1.0`, `4e9` and 644 would make other quantities, fail the
/// int32 fields and change the mode. (The CRD schema admits only integral numbers for quantities.)
#[tokio::test(flavor = "multi_thread")]
async fn a_yaml_file_reads_as_kubectl_applies_it() {
    let kubectl = std::env::var("KUBECTL_ARC_TEST_KUBECTL")
        .expect("KUBECTL_ARC_TEST_KUBECTL: the test bed's kubectl");
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-yaml").await;
    let file = std::env::temp_dir()
        .join(common::unique_name("arc-yaml"))
        .with_extension("yaml");
    std::fs::write(
        &file,
        format!(
            "apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata:
  name: runners
  namespace: {ns}
  annotations:
    runner-scale-set-id: \"7\"
spec:
  githubConfigUrl: https://github.com/my-org
  githubConfigSecret: gh-secret
  template:
    spec:
      terminationGracePeriodSeconds: 30.0
      containers:
      - name: runner
        image: img:1
        resources:
          limits: {{cpu: 1.0, memory: 4e9}}
          requests: {{cpu: 500m}}
      volumes:
      - name: work
        configMap: {{name: x, defaultMode: 0644}}
"
        ),
    )
    .unwrap();
    let out = std::process::Command::new(&kubectl)
        .args(["--kubeconfig", kubeconfig.to_str().unwrap(), "apply", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The EphemeralRunnerSet as ARC's controller writes it: canonical quantities.
    let ers = json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 7,
        "spec": {
            "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "runner", "image": "img:1",
                "resources": {"limits": {"cpu": "1", "memory": "4G"}, "requests": {"cpu": "500m"}}}],
            "volumes": [{"name": "work", "configMap": {"name": "x", "defaultMode": 420}}]
        }
    });
    common::create_ers(&client, &ns, "runners", ers).await;

    let kc = kubeconfig.to_str().unwrap().to_string();
    let f = file.to_str().unwrap().to_string();
    let ns2 = ns.clone();
    let (online, offline) = tokio::task::spawn_blocking(move || {
        (
            run(&["diff", "--kubeconfig", &kc, "-n", &ns2, "-o", "json"]),
            run(&["diff", "--kubeconfig", &kc, "-f", &f, "-o", "json"]),
        )
    })
    .await
    .unwrap();
    assert_eq!(online.0, 0, "{}{}", online.1, online.2);
    assert_eq!(offline.0, 0, "{}{}", offline.1, offline.2);
    let strip = |mut v: Value| {
        for item in v["items"].as_array_mut().unwrap() {
            item.as_object_mut().unwrap().remove("desiredFrom");
        }
        v
    };
    let (mut online, mut offline) = (strip(report(&online.1)), strip(report(&offline.1)));
    // The file is completed with the cluster's CRD defaults.
    assert_eq!(
        offline.as_object_mut().unwrap().remove("defaultsFrom"),
        Some(json!(
            "CustomResourceDefinition autoscalingrunnersets.actions.github.com (cluster)"
        ))
    );
    // Each side's `to` is as its input wrote it: the file's `4e9`, the API server's number.
    let to = "/items/0/differences/0/to";
    assert_eq!(online.pointer(to), Some(&json!("4000000000")), "{online}");
    assert_eq!(offline.pointer(to), Some(&json!("4e9")), "{offline}");
    for v in [&mut online, &mut offline] {
        *v.pointer_mut(to).unwrap() = Value::Null;
    }
    assert_eq!(online, offline);
    // And what that report says: no semantic drift; the quantities ARC's controller normalised
    // are strict-only differences, the same online and offline.
    assert_eq!(online["items"][0]["semanticDrift"], false, "{online}");
    std::fs::remove_file(file).unwrap();
}
