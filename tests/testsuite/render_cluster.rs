//! Helm renders of ARC's chart against the real API server (issue 12): a render carries no
//! runner-scale-set-id, ARC up to 0.14 names its sets `<scale set>-xxxxx` and finds them by their
//! controller owner reference, and a render is what would be applied. The same verdicts come from
//! the cluster, from a `kubectl get -o yaml` dump given with `--live`, and offline with `--local`.
//!
//! The manifests are shaped like what `helm template` renders of gha-runner-scale-set (Helm's
//! labels, the chart's ServiceAccount, Role, RoleBinding and Secret beside the
//! AutoscalingRunnerSet); they are our own, written here, never ARC's files.

use std::path::{Path, PathBuf};
use std::process::Command;

use kube::api::{DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{args, in_process_async as run, report};

fn kubectl() -> String {
    std::env::var("KUBECTL_ARC_TEST_KUBECTL")
        .expect("KUBECTL_ARC_TEST_KUBECTL: the test bed's kubectl")
}

/// A render of the chart for scale set `name` in `ns`, with the runner image and CPU limit given.
fn render(ns: &str, name: &str, image: &str, cpu: &str) -> String {
    format!(
        r#"---
# Source: gha-runner-scale-set/templates/githubsecret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: {name}-gha-rs-github-secret
  namespace: {ns}
  labels:
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: gha-rs-0.14.1
type: Opaque
data:
  github_token: "ZmFrZQ=="
---
# Source: gha-runner-scale-set/templates/no_permission_serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {name}-gha-rs-no-permission
  namespace: {ns}
  labels:
    app.kubernetes.io/managed-by: Helm
---
# Source: gha-runner-scale-set/templates/manager_role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {name}-gha-rs-manager
  namespace: {ns}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch]
---
# Source: gha-runner-scale-set/templates/manager_role_binding.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {name}-gha-rs-manager
  namespace: {ns}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {name}-gha-rs-manager
subjects:
- kind: ServiceAccount
  name: arc-gha-rs-controller
  namespace: arc-systems
---
# Source: gha-runner-scale-set/templates/autoscalingrunnerset.yaml
apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata:
  name: {name}
  namespace: {ns}
  labels:
    app.kubernetes.io/component: "autoscaling-runner-set"
    helm.sh/chart: gha-rs-0.14.1
    app.kubernetes.io/name: {name}
    app.kubernetes.io/instance: {name}
    app.kubernetes.io/version: "0.14.1"
    app.kubernetes.io/part-of: gha-rs
    app.kubernetes.io/managed-by: Helm
    actions.github.com/scale-set-name: {name}
    actions.github.com/scale-set-namespace: {ns}
  annotations:
    actions.github.com/cleanup-github-secret-name: {name}-gha-rs-github-secret
    actions.github.com/cleanup-manager-role-name: {name}-gha-rs-manager
spec:
  githubConfigUrl: https://github.com/my-org
  githubConfigSecret: {name}-gha-rs-github-secret
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: {name}-gha-rs-no-permission
      containers:
      - name: runner
        image: {image}
        command: ["/home/runner/run.sh"]
        resources:
          limits:
            cpu: {cpu}
"#
    )
}

/// The runner spec ARC writes for the render's scale set (what the decoded template reads back as).
fn stored_runner_spec(name: &str, image: &str) -> Value {
    json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": format!("{name}-gha-rs-github-secret"),
        "runnerScaleSetId": 7,
        "metadata": {},
        "spec": {
            "restartPolicy": "Never",
            "serviceAccountName": format!("{name}-gha-rs-no-permission"),
            "containers": [{
                "name": "runner",
                "image": image,
                "command": ["/home/runner/run.sh"],
                "resources": {"limits": {"cpu": "1"}}
            }]
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Naming {
    /// ARC up to 0.14: `generateName: <scale set>-`, a runner-spec-hash annotation.
    Generated,
    /// The integrity-hash and revision eras: the scale set's own name.
    SameName,
}

/// What ARC's controller does after `helm install`: register the scale set (the id annotation on
/// the AutoscalingRunnerSet) and create its EphemeralRunnerSet with a controller owner reference
/// and ARC's labels. Returns the set's name.
async fn arc_creates_the_set(
    client: &kube::Client,
    ns: &str,
    name: &str,
    image: &str,
    naming: Naming,
) -> String {
    let ars_api = common::ars_api(client, ns);
    let patch = json!({"metadata": {"annotations": {"runner-scale-set-id": "7"}}});
    let ars = ars_api
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    let mut metadata = json!({
        "namespace": ns,
        "labels": {
            "actions.github.com/scale-set-name": name,
            "actions.github.com/scale-set-namespace": ns,
            "app.kubernetes.io/version": "0.14.1",
        },
        "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1",
            "kind": "AutoscalingRunnerSet",
            "name": name,
            "uid": ars.metadata.uid.clone().unwrap(),
            "controller": true,
            "blockOwnerDeletion": true,
        }],
    });
    match naming {
        Naming::Generated => {
            metadata["generateName"] = json!(format!("{name}-"));
            // ARC 0.14.1's RunnerSetSpecHash() of the AutoscalingRunnerSet as the server stores
            // it: what that release writes on the set it creates.
            let release = kubectl_arc::core::release::release("0.14.1").unwrap();
            let hash = kubectl_arc::core::spec_hash::runner_set_spec_hash(
                release,
                &ars.data["spec"].to_string(),
            )
            .unwrap();
            metadata["annotations"] = json!({"actions.github.com/runner-spec-hash": hash});
        }
        Naming::SameName => metadata["name"] = json!(name),
    }
    let ers: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "EphemeralRunnerSet",
        "metadata": metadata,
        "spec": {"replicas": 1, "patchID": 0, "ephemeralRunnerSpec": stored_runner_spec(name, image)},
    }))
    .unwrap();
    let created = common::ers_api(client, ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    created.metadata.name.unwrap()
}

fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path
}

fn kubectl_run(kubeconfig: &Path, cmd: &[&str]) -> String {
    let out = Command::new(kubectl())
        .args(cmd)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl {cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The verdict fields of a diff report's item, for comparing the three ways of asking.
fn verdicts(report: &Value) -> Vec<Value> {
    report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            json!({
                "name": i["name"],
                "new": i.get("new").cloned().unwrap_or(json!(false)),
                "semanticDrift": i["semanticDrift"],
                "differences": i["differences"],
                "error": i.get("error").cloned().unwrap_or(Value::Null),
            })
        })
        .collect()
}

async fn three_ways(
    kubeconfig: &Path,
    ns: &str,
    render: &Path,
    live_dump: &Path,
    sets_dump: &Path,
) -> [(u8, Value); 3] {
    let kc = kubeconfig.to_str().unwrap();
    let r = render.to_str().unwrap();
    let ask = |extra: Vec<&str>| {
        let mut argv = vec!["diff", "--kubeconfig", kc, "-n", ns, "-f", r, "-o", "json"];
        argv.extend(extra);
        run(args(&argv))
    };
    let (c1, o1, e1) = ask(vec![]).await;
    let (c2, o2, e2) = ask(vec!["--live", live_dump.to_str().unwrap()]).await;
    let (c3, o3, e3) = ask(vec!["--local", "-f", sets_dump.to_str().unwrap()]).await;
    for (c, e) in [(c1, &e1), (c2, &e2), (c3, &e3)] {
        assert!(c < 2, "exit {c}: {e}");
    }
    [(c1, report(&o1)), (c2, report(&o2)), (c3, report(&o3))]
}

async fn renders_agree_for(naming: Naming) {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-render").await;
    let dir = common::scratch_dir("arc-render");
    let name = "arc-runner-set";
    let (old, new) = (
        "ghcr.io/actions/actions-runner:2.328.0",
        "ghcr.io/actions/actions-runner:2.329.0",
    );
    // helm install: the render applied with the real kubectl, then ARC makes the set.
    let installed = write(&dir, "installed.yaml", &render(&ns, name, old, "\"1\""));
    kubectl_run(&kubeconfig, &["apply", "-f", installed.to_str().unwrap()]);
    let set_name = arc_creates_the_set(&client, &ns, name, old, naming).await;
    if naming == Naming::Generated {
        assert!(
            set_name.starts_with("arc-runner-set-") && set_name != name,
            "{set_name}"
        );
    }
    let live = write(
        &dir,
        "live.yaml",
        &kubectl_run(
            &kubeconfig,
            &[
                "get",
                "autoscalingrunnersets,ephemeralrunnersets",
                "-n",
                &ns,
                "-o",
                "yaml",
            ],
        ),
    );
    let sets = write(
        &dir,
        "sets.yaml",
        &kubectl_run(
            &kubeconfig,
            &["get", "ephemeralrunnersets", "-n", &ns, "-o", "yaml"],
        ),
    );

    // An image bump: drift (exit 1), the same three ways.
    let bumped = write(&dir, "bumped.yaml", &render(&ns, name, new, "\"1\""));
    let answers = three_ways(&kubeconfig, &ns, &bumped, &live, &sets).await;
    for (code, report) in &answers {
        assert_eq!(*code, 1, "{report:#}");
        let item = &report["items"][0];
        assert_eq!(item["semanticDrift"], json!(true), "{report:#}");
        assert!(
            item["currentFrom"].as_str().unwrap().contains(&set_name),
            "{report:#}"
        );
        let paths: Vec<&str> = item["differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["spec.containers[0].image"], "{report:#}");
    }
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[1].1));
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[2].1));
    // Online the id comes from the set (the render has none), offline too.
    for (_, report) in &answers {
        assert_eq!(
            report["items"][0]["scaleSetIdFrom"],
            json!("EphemeralRunnerSet")
        );
    }

    // `cpu: 1000m` where ARC stored `1`: strict-only for Semantic equality, the same three ways;
    // ARC 0.14.1 (a generated name and a runner-spec-hash) hashes the notation and replaces the
    // set (issue 19), the later eras do not act.
    let notation = write(&dir, "notation.yaml", &render(&ns, name, old, "1000m"));
    let answers = three_ways(&kubeconfig, &ns, &notation, &live, &sets).await;
    let hash_era = naming == Naming::Generated;
    for (code, report) in &answers {
        assert_eq!(*code, if hash_era { 1 } else { 0 }, "{report:#}");
        let item = &report["items"][0];
        assert_eq!(item["semanticDrift"], json!(false), "{report:#}");
        assert_eq!(item["strictOnlyDifferences"], json!(1), "{report:#}");
        assert_eq!(item["recycle"], json!(hash_era), "{report:#}");
    }
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[1].1));
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[2].1));

    // A pull request that adds a scale set: new, nothing recycled, exit 0, the same three ways.
    let added = format!(
        "{}{}",
        render(&ns, name, old, "\"1\""),
        render(&ns, "arc-gpu", old, "\"1\"")
    );
    let added = write(&dir, "added.yaml", &added);
    let answers = three_ways(&kubeconfig, &ns, &added, &live, &sets).await;
    for (code, report) in &answers {
        assert_eq!(*code, 0, "{report:#}");
        let gpu = report["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == "arc-gpu")
            .unwrap_or_else(|| panic!("{report:#}"));
        assert_eq!(gpu["new"], json!(true), "{report:#}");
        assert_eq!(gpu["semanticDrift"], json!(false), "{report:#}");
    }
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[1].1));
    assert_eq!(verdicts(&answers[0].1), verdicts(&answers[2].1));

    // A render plus a full dump (which holds the old scale set too) is refused, naming both.
    let kc = kubeconfig.to_str().unwrap();
    let (code, out, err) = run(args(&[
        "diff",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        "-f",
        bumped.to_str().unwrap(),
        "-f",
        live.to_str().unwrap(),
    ]))
    .await;
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("is given twice"), "{out}{err}");
    assert!(!out.contains("no drift"), "{out}");

    // The README's workflow step, verbatim in shape: annotations, never a failure on drift.
    let (code, out, err) = run(args(&[
        "diff",
        "--kubeconfig",
        kc,
        "-f",
        bumped.to_str().unwrap(),
        "--live",
        sets.to_str().unwrap(),
        "-o",
        "github",
    ]))
    .await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.starts_with("::warning file="), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_against_sets_arc_named_after_its_scale_set() {
    renders_agree_for(Naming::SameName).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_against_sets_arc_0_14_named_with_a_generated_suffix() {
    renders_agree_for(Naming::Generated).await;
}

/// ARC 0.14 replaces the set on a spec change and deletes the old one: for a moment a dump holds
/// both, the old one with a deletionTimestamp. diff pairs the newest offline and says which set it
/// replaces; status marks the replaced set (and the era's meaning) instead of revisions 0/0; bump
/// refuses, saying why and what to do instead.
#[tokio::test(flavor = "multi_thread")]
async fn a_replacement_by_arc_0_14() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-replace").await;
    let dir = common::scratch_dir("arc-replace");
    let name = "arc-runner-set";
    let image = "ghcr.io/actions/actions-runner:2.329.0";
    let installed = write(&dir, "installed.yaml", &render(&ns, name, image, "\"1\""));
    kubectl_run(&kubeconfig, &["apply", "-f", installed.to_str().unwrap()]);
    let old = arc_creates_the_set(
        &client,
        &ns,
        name,
        "ghcr.io/actions/actions-runner:2.328.0",
        Naming::Generated,
    )
    .await;
    // Creation times have a resolution of a second: the replacement is younger.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let new = arc_creates_the_set(&client, &ns, name, image, Naming::Generated).await;
    // The old one is being deleted, held for a moment by a finalizer (as a runner's cleanup does).
    let ers_api = common::ers_api(&client, &ns);
    let hold = json!({"metadata": {"finalizers": ["kubectl-arc.test/hold"]}});
    ers_api
        .patch(&old, &PatchParams::default(), &Patch::Merge(&hold))
        .await
        .unwrap();
    ers_api
        .delete(&old, &DeleteParams::default())
        .await
        .unwrap();

    let kc = kubeconfig.to_str().unwrap();
    let dump = write(
        &dir,
        "dump.yaml",
        &kubectl_run(
            &kubeconfig,
            &[
                "get",
                "autoscalingrunnersets,ephemeralrunnersets",
                "-n",
                &ns,
                "-o",
                "yaml",
            ],
        ),
    );
    // Offline: the dump pairs the newest set and names the one ARC replaces.
    let (code, out, err) = run(args(&["diff", "-f", dump.to_str().unwrap(), "-o", "json"])).await;
    let r = report(&out);
    assert_eq!(code, 0, "{out}{err}");
    let item = &r["items"][0];
    assert_eq!(item["name"], json!(name), "{r:#}");
    assert!(
        item["currentFrom"].as_str().unwrap().contains(&new),
        "{r:#}"
    );
    assert_eq!(item["replaced"], json!([old]), "{r:#}");
    assert_eq!(item["pairedBy"], json!("OwnerUid"), "{r:#}");

    // status, from the cluster and from the dump: the replaced set is Deleting, the new one SpecHash.
    for from in [
        vec!["--kubeconfig", kc, "-n", &ns],
        vec!["-f", dump.to_str().unwrap()],
    ] {
        let mut argv = vec!["status", "-o", "json"];
        argv.extend(from.iter().copied());
        let (code, out, err) = run(args(&argv)).await;
        assert!(code < 2, "{out}{err}");
        let rows = report(&out);
        let state = |set: &str| {
            rows["items"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["name"] == set)
                .map(|i| i["state"].clone())
                .unwrap_or_else(|| panic!("{set}: {rows:#}"))
        };
        assert_eq!(state(&old), json!("Deleting"), "{rows:#}");
        // ARC 0.14.1's hash of the scale set equals the newest set's annotation: Synced.
        assert_eq!(state(&new), json!("Synced"), "{rows:#}");
    }
    // `status NAME` with the scale set's name finds ARC's generated names.
    let (code, out, err) = run(args(&["status", "--kubeconfig", kc, "-n", &ns, name])).await;
    assert!(code < 2, "{out}{err}");
    assert!(out.contains(&new) && out.contains(&old), "{out}{err}");

    // bump restarts a set of ARC 0.14 through its scale set's template (issue 19); a client dry
    // run names the restart and writes nothing.
    let before = ers_api.get(&new).await.unwrap();
    let (code, out, err) = run(args(&[
        "bump",
        "--kubeconfig",
        kc,
        "-n",
        &ns,
        name,
        "--dry-run=client",
        "-o",
        "json",
    ]))
    .await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("WouldBump") && out.contains("restartedAt"),
        "{out}{err}"
    );
    let after = ers_api.get(&new).await.unwrap();
    assert_eq!(
        before.metadata.resource_version,
        after.metadata.resource_version
    );

    // Let the old set go.
    let release = json!({"metadata": {"finalizers": null}});
    ers_api
        .patch(&old, &PatchParams::default(), &Patch::Merge(&release))
        .await
        .unwrap();
}

/// The verdict lines of an `-o github` run: each workflow command's level and properties (its
/// message carries `currentFrom`, which names the dump or the cluster), and the summary line.
fn github_verdict(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| match l.find("::").filter(|_| l.starts_with("::")) {
            Some(_) => l[..l[2..].find("::").map_or(l.len(), |i| i + 2)].to_string(),
            None => l.to_string(),
        })
        .collect()
}

/// Issue 20: two scale sets in one namespace, both applied with the real kubectl; ARC created both
/// sets, and team-b's new image is not propagated yet (the upgrade runbook scales the controller
/// to 0). A pull request changes team-a alone: the README's `-o github` step gives the same single
/// verdict against the cluster and against a `--live` dump of the namespace, team-b counted once
/// as not in the change. Then the README's CI recipe as it is written, on the two sets, and with a
/// dump of a mistyped namespace it fails closed.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_check_judges_the_change_and_nothing_else() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-prcheck").await;
    let dir = common::scratch_dir("arc-prcheck");
    let (old, new) = (
        "ghcr.io/actions/actions-runner:2.328.0",
        "ghcr.io/actions/actions-runner:2.329.0",
    );
    let installed = format!(
        "{}{}",
        render(&ns, "team-a", old, "\"1\""),
        render(&ns, "team-b", old, "\"1\"")
    );
    let installed = write(&dir, "installed.yaml", &installed);
    kubectl_run(&kubeconfig, &["apply", "-f", installed.to_str().unwrap()]);
    arc_creates_the_set(&client, &ns, "team-a", old, Naming::Generated).await;
    arc_creates_the_set(&client, &ns, "team-b", old, Naming::Generated).await;
    // team-b's upgrade applied, not propagated: its scale set wants the new image, its set runs
    // the old one.
    let team_b = write(&dir, "team-b.yaml", &render(&ns, "team-b", new, "\"1\""));
    kubectl_run(&kubeconfig, &["apply", "-f", team_b.to_str().unwrap()]);
    let live = write(
        &dir,
        "current.yaml",
        &kubectl_run(
            &kubeconfig,
            &[
                "get",
                "autoscalingrunnersets,ephemeralrunnersets",
                "-n",
                &ns,
                "-o",
                "yaml",
            ],
        ),
    );
    // The pull request: team-a's image moves.
    let rendered = write(&dir, "rendered.yaml", &render(&ns, "team-a", new, "\"1\""));
    let kc = kubeconfig.to_str().unwrap();
    let step = |extra: &[&str]| {
        let mut argv = vec![
            "diff",
            "--kubeconfig",
            kc,
            "-f",
            rendered.to_str().unwrap(),
            "-o",
            "github",
            "--annotate-file",
            "values.yaml",
        ];
        argv.extend_from_slice(extra);
        run(args(&argv))
    };
    let (c1, from_cluster, e1) = step(&["-n", &ns]).await;
    let (c2, from_dump, e2) = step(&["--live", live.to_str().unwrap()]).await;
    assert_eq!((c1, c2), (1, 1), "{from_cluster}{e1}\n{from_dump}{e2}");
    let want = [
        "::warning file=values.yaml,title=ARC 0.14.1 will replace the runners of scale set NS/team-a"
            .replace("NS", &ns),
        "kubectl arc diff: 1 scale set checked, 1 not in the change; 1 would recycle runners, 0 with strict-only differences, 0 with a legacy recycle loop, 0 errors".to_string(),
    ];
    // The footer ends with the impact's totals: the cluster's runners were listed (none), the
    // dump holds none, so there they are not counted.
    for (out, impact) in [
        (
            &from_cluster,
            "; impact on 1 scale set: 0 runners deleted now, 0 busy runners finishing their jobs first, job pickup pauses for 1 scale set",
        ),
        (
            &from_dump,
            "; impact on 1 scale set: job pickup pauses for 1 scale set (1 without its runners in the input: not counted)",
        ),
    ] {
        let mut want = want.clone();
        want[1].push_str(impact);
        assert_eq!(github_verdict(out), want, "{out}");
    }
    assert!(!from_cluster.contains("team-b") && !from_dump.contains("team-b"));

    // The README's CI recipe, its `kubectl arc diff` line as written (helm is not in the test
    // bed: rendered.yaml is written above), run by bash through kubectl's plugin mechanism.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let recipe = readme
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("kubectl arc diff -f rendered.yaml --live current.yaml -o github"))
        .expect("the README's CI recipe")
        .to_string();
    let plugin_dir = common::scratch_dir("arc-prcheck-plugin");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_kubectl-arc"),
        plugin_dir.join("kubectl-arc"),
    )
    .unwrap();
    let path = std::env::join_paths([
        &*plugin_dir,
        Path::new(&kubectl()).parent().unwrap(),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .unwrap();
    let recipe_in = || {
        let out = Command::new("bash")
            .args(["-e", "-c", &recipe])
            .current_dir(&*dir)
            .env("PATH", &path)
            .env("KUBECONFIG", &kubeconfig)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = recipe_in();
    assert_eq!(code, 0, "the step passes on drift: {out}{err}");
    let mut from_recipe = want.clone();
    from_recipe[1].push_str("; impact on 1 scale set: job pickup pauses for 1 scale set (1 without its runners in the input: not counted)");
    assert_eq!(github_verdict(&out), from_recipe, "{out}");
    // A dump of a mistyped namespace: the step fails, saying why on the pull request.
    let typo = kubectl_run(
        &kubeconfig,
        &[
            "get",
            "autoscalingrunnersets,ephemeralrunnersets",
            "-n",
            &format!("{ns}-typo"),
            "-o",
            "yaml",
        ],
    );
    write(&dir, "current.yaml", &typo);
    let (code, out, err) = recipe_in();
    // diff exits 2, and the recipe's `|| [ $? -eq 1 ]` turns that into the test's own 1: the
    // step fails either way.
    assert_eq!(code, 1, "the step fails: {out}{err}");
    assert!(out.starts_with("::error file=current.yaml,"), "{out}");
    assert!(err.contains("--allow-empty-live"), "{err}");
}
