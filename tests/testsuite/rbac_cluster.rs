//! Least privilege: deploy/rbac.yaml applied to the real API server; each command works with
//! exactly its role (impersonated with --as) and fails without it, naming the verb and resource.

use crate::common;

use crate::common::cli::exe;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::json;

/// Apply deploy/rbac.yaml (server-side), then bind: `reader` to kubectl-arc-read in `ns`,
/// `ns-migrator` to kubectl-arc-migrate in `ns` only, and `migrate-<ns>` and `bump-<ns>` to
/// kubectl-arc-migrate and kubectl-arc-bump
/// cluster-wide (migrate reads the CRD and looks for controllers in every namespace).
async fn apply_roles(client: &kube::Client, ns: &str) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleBinding};
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/rbac.yaml")).unwrap();
    let docs = kubectl_arc::manifest::parse(&text, "deploy/rbac.yaml").unwrap();
    assert_eq!(docs.len(), 4);
    let apply = PatchParams::apply("kubectl-arc-test").force();
    for d in &docs {
        let role: ClusterRole = serde_json::from_value(d.value.clone()).unwrap();
        let name = role.metadata.name.clone().unwrap();
        Api::<ClusterRole>::all(client.clone())
            .patch(&name, &apply, &Patch::Apply(&role))
            .await
            .unwrap();
    }
    let subject = |user: &str| json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]);
    let role_ref = |role: &str| json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role});
    for (user, role) in [
        ("reader", "kubectl-arc-read"),
        ("ns-migrator", "kubectl-arc-migrate"),
        ("repairer", "kubectl-arc-repair"),
    ] {
        let b: RoleBinding = serde_json::from_value(json!({
            "metadata": {"name": user}, "roleRef": role_ref(role), "subjects": subject(user)
        }))
        .unwrap();
        Api::<RoleBinding>::namespaced(client.clone(), ns)
            .create(&PostParams::default(), &b)
            .await
            .unwrap();
    }
    for role in ["kubectl-arc-migrate", "kubectl-arc-bump"] {
        let user = format!("{}-{ns}", role.trim_start_matches("kubectl-arc-"));
        let b: ClusterRoleBinding = serde_json::from_value(json!({
            "metadata": {"name": user}, "roleRef": role_ref(role), "subjects": subject(&user)
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone())
            .patch(&user, &apply, &Patch::Apply(&b))
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_command_works_with_exactly_its_role() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-rbac-roles").await;
    apply_roles(&client, &ns).await;
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret"}
    }))
    .unwrap();
    let ars = common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    let mut ers = common::ers_object("runners", json!({}));
    // Owned by its AutoscalingRunnerSet, as ARC creates it (bump checks this).
    ers.metadata.owner_references = Some(vec![
        serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": ars.metadata.uid.clone().unwrap(), "controller": true
        }))
        .unwrap(),
    ]);
    ers.metadata.annotations = Some(std::collections::BTreeMap::from([(
        "actions.github.com/integrity-hash".to_string(),
        "stale".to_string(),
    )]));
    common::ers_api(&client, &ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();

    let as_user = |user: &str, args: &[&str]| {
        let mut a: Vec<&str> = vec!["--kubeconfig", &kcs, "-n", &ns, "--as", user];
        a.extend_from_slice(args);
        exe(&a)
    };
    let revision = || async {
        common::ers_api(&client, &ns)
            .get("runners")
            .await
            .unwrap()
            .data["spec"]["actionableRevision"]
            .as_i64()
            .unwrap_or(0)
    };

    // diff: the read role is enough; without it, Forbidden names the verb and resource.
    let (code, out, err) = as_user("reader", &["diff"]);
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(out.contains(&format!("{ns}/runners")), "{out}");
    let (code, _, err) = as_user("nobody", &["diff"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("forbidden: cannot list autoscalingrunnersets"),
        "{err}"
    );

    // migrate: the read role may not write, and is told so before anything is written.
    let (code, _, err) = as_user("reader", &["migrate"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("may not patch ephemeralrunnersets.actions.github.com"),
        "{err}"
    );
    // Bound in the namespace only, the cluster-wide checks are out of reach: said, not guessed.
    let (code, _, err) = as_user("ns-migrator", &["migrate"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no permission to list Deployments"), "{err}");
    assert!(err.contains("cannot read the CRD"), "{err}");
    assert_eq!(revision().await, 0, "nothing written by refused runs");
    // Bound cluster-wide, it works.
    let (code, _, err) = as_user(&format!("migrate-{ns}"), &["migrate"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(revision().await, 1);

    // status: the read role is enough.
    let (code, out, err) = as_user("reader", &["status", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"runners\""), "{out}");
    // bump: the read role is refused before writing, naming the verb and resource; the bump role works.
    let (code, _, err) = as_user("reader", &["bump", "runners"]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("patch") && err.contains("ephemeralrunnersets"),
        "{err}"
    );
    assert_eq!(revision().await, 1, "nothing written by a refused bump");
    let (code, _, err) = as_user(&format!("bump-{ns}"), &["bump", "runners"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(revision().await, 2);
}

/// Issue 30: on ARC up to 0.14 `bump` patches the AutoscalingRunnerSet's pod template, so the bump
/// role must allow that patch, and a role without it is refused before anything is written, naming
/// `patch autoscalingrunnersets`. The set is as 0.14.2 writes it: a generated name, the
/// runner-spec hash, its release label and the controller owner reference.
#[tokio::test(flavor = "multi_thread")]
async fn the_bump_role_bumps_a_set_of_arc_up_to_0_14() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "arc-rbac-hash-era").await;
    apply_roles(&client, &ns).await;
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "annotations": {"runner-scale-set-id": "1"},
                     "labels": {"app.kubernetes.io/version": "0.14.2"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": {"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.328.0"}]}}}
    }))
    .unwrap();
    let ars = common::ars_api(&client, &ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    let mut ers = common::ers_object("runners-x7k2p", json!({}));
    ers.metadata.owner_references = Some(vec![
        serde_json::from_value(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": ars.metadata.uid.clone().unwrap(), "controller": true
        }))
        .unwrap(),
    ]);
    ers.metadata.labels = Some(std::collections::BTreeMap::from([
        (
            "app.kubernetes.io/version".to_string(),
            "0.14.2".to_string(),
        ),
        (
            "actions.github.com/scale-set-name".to_string(),
            "runners".to_string(),
        ),
        (
            "actions.github.com/scale-set-namespace".to_string(),
            ns.clone(),
        ),
    ]));
    ers.metadata.annotations = Some(std::collections::BTreeMap::from([(
        "actions.github.com/runner-spec-hash".to_string(),
        "595bdbd674".to_string(),
    )]));
    common::ers_api(&client, &ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    let restarted = || async {
        common::ars_api(&client, &ns)
            .get("runners")
            .await
            .unwrap()
            .data["spec"]["template"]["metadata"]["annotations"]["kubectl-arc/restarted-at"]
            .as_str()
            .map(str::to_string)
    };
    let as_user = |user: &str, args: &[&str]| {
        let mut a: Vec<&str> = vec!["--kubeconfig", &kcs, "-n", &ns, "--as", user];
        a.extend_from_slice(args);
        exe(&a)
    };
    // The bump role as it was before (get and list on scale sets, no patch): refused before any
    // write, naming the verb and the resource.
    {
        use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
        let apply = PatchParams::apply("kubectl-arc-test").force();
        let mut role = Api::<ClusterRole>::all(client.clone())
            .get("kubectl-arc-bump")
            .await
            .unwrap();
        let name = format!("bump-without-ars-patch-{ns}");
        role.metadata = kube::api::ObjectMeta {
            name: Some(name.clone()),
            ..Default::default()
        };
        for rule in role.rules.iter_mut().flatten() {
            if rule.resources.as_deref() == Some(&["autoscalingrunnersets".to_string()][..]) {
                rule.verbs.retain(|v| v != "patch");
            }
        }
        Api::<ClusterRole>::all(client.clone())
            .patch(&name, &apply, &Patch::Apply(&role))
            .await
            .unwrap();
        let b: ClusterRoleBinding = serde_json::from_value(json!({
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}]
        }))
        .unwrap();
        Api::<ClusterRoleBinding>::all(client.clone())
            .patch(&name, &apply, &Patch::Apply(&b))
            .await
            .unwrap();
    }
    let (code, _, err) = as_user(
        &format!("bump-without-ars-patch-{ns}"),
        &["bump", "runners-x7k2p"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("may not patch autoscalingrunnersets.actions.github.com"),
        "{err}"
    );
    assert_eq!(restarted().await, None, "nothing written by a refused bump");
    // The bump role: the restart is written into the scale set's pod template.
    let (code, out, err) = as_user(&format!("bump-{ns}"), &["bump", "runners-x7k2p"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(restarted().await.is_some(), "{out}{err}");
    // A server-side dry run needs the same right, and writes nothing more.
    let before = restarted().await;
    let (code, out, err) = as_user(
        &format!("bump-{ns}"),
        &["bump", "runners-x7k2p", "--dry-run=server"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(restarted().await, before);
}

/// `repair` with exactly its role (bound in the namespace) deletes a failed runner; the read role
/// may list but not delete, so the repair is refused with the role it needs, and nothing is
/// deleted.
#[tokio::test(flavor = "multi_thread")]
async fn the_repair_role_deletes_failed_runners_and_the_read_role_is_refused() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "rbac-repair").await;
    apply_roles(&client, &ns).await;
    common::create_ers(&client, &ns, "runners", json!({})).await;
    let set = common::ers_api(&client, &ns).get("runners").await.unwrap();
    common::create_owned_runner(&client, &ns, &set, "failed-a", "Failed").await;
    let run = |user: &str| {
        common::cli::exe(&[
            "repair",
            "--kubeconfig",
            &kcs,
            "-n",
            &ns,
            "--as",
            user,
            "-o",
            "json",
        ])
    };
    let (code, out, err) = run("reader");
    assert_eq!(code, 0, "{out}{err}");
    let r = common::cli::report(&out);
    let rep = &r["items"][0]["repairs"][0];
    assert_eq!(rep["result"], "Refused", "{r:#}");
    assert!(
        rep["why"].as_str().unwrap().contains("kubectl-arc-repair"),
        "{rep:#}"
    );
    assert!(
        common::runner_api(&client, &ns)
            .get_opt("failed-a")
            .await
            .unwrap()
            .is_some()
    );
    let (code, out, err) = run("repairer");
    assert_eq!(code, 0, "{out}{err}");
    let r = common::cli::report(&out);
    assert_eq!(r["items"][0]["repairs"][0]["result"], "Written", "{r:#}");
    let left = common::runner_api(&client, &ns)
        .get_opt("failed-a")
        .await
        .unwrap();
    assert!(
        left.is_none_or(|r| r.metadata.deletion_timestamp.is_some()),
        "deleted"
    );
}

/// A right the repair role lacks refuses that repair alone: bound in the namespace only, it
/// cannot list the controller Deployments in every namespace, so the removal of a held set's
/// finalizer (which needs to know whether a controller runs) is refused, naming the role, while
/// the failed runner is deleted in the same run.
#[tokio::test(flavor = "multi_thread")]
async fn a_right_the_repair_role_lacks_refuses_that_repair_alone() {
    let kc = common::revision_kubeconfig();
    let kcs = kc.to_str().unwrap().to_string();
    let client = common::client(&kc).await;
    let ns = common::namespace(&client, "rbac-repair-alone").await;
    apply_roles(&client, &ns).await;
    common::create_ers(&client, &ns, "runners", json!({})).await;
    let set = common::ers_api(&client, &ns).get("runners").await.unwrap();
    common::create_owned_runner(&client, &ns, &set, "failed-a", "Failed").await;
    let mut stuck = common::ers_object("stuck", json!({}));
    stuck.metadata.finalizers = Some(vec!["ephemeralrunner.actions.github.com/finalizer".into()]);
    let sets = common::ers_api(&client, &ns);
    sets.create(&PostParams::default(), &stuck).await.unwrap();
    sets.delete("stuck", &Default::default()).await.unwrap();
    let (code, out, err) = common::cli::exe(&[
        "repair",
        "--kubeconfig",
        &kcs,
        "-n",
        &ns,
        "--as",
        "repairer",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let r = common::cli::report(&out);
    let repairs: Vec<&serde_json::Value> = (r["items"].as_array().unwrap().iter())
        .flat_map(|i| i["repairs"].as_array().unwrap())
        .collect();
    let of = |name: &str| {
        *repairs
            .iter()
            .find(|x| x["object"]["name"] == name)
            .unwrap()
    };
    assert_eq!(of("failed-a")["result"], "Written", "{r:#}");
    let held = of("stuck");
    assert_eq!(held["action"], "RemoveFinalizer", "{r:#}");
    assert_eq!(held["result"], "Refused", "{r:#}");
    let why = held["why"].as_str().unwrap();
    assert!(
        why.contains("cannot be listed") && why.contains("kubectl-arc-repair"),
        "{why}"
    );
    let left = sets.get("stuck").await.unwrap();
    assert_eq!(
        left.metadata.finalizers.unwrap().len(),
        1,
        "the finalizer stays"
    );
}
