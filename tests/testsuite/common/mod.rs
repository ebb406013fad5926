//! Shared test support: the real API servers and the Go oracle that `scripts/test.sh` starts.
//!
//! Tests that need them read the environment that `scripts/testbed.sh up` prints. A missing test bed
//! is a hard failure with instructions, never a skip: CI must run every test.
#![allow(dead_code)]

pub mod apiserver;
pub mod cli;
pub mod controller;
pub mod faults;
pub mod oracle;
pub mod specgen;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

fn env_path(var: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => panic!(
            "{var} is not set: this test needs the real API server and Go oracle of the test bed.\n\
             Run the whole suite with `scripts/test.sh`, or start the test bed by hand with\n\
             `scripts/testbed.sh up` and source the environment it prints."
        ),
    }
}

/// A file of the project's reference material in `../shared/` (beside the repository in this
/// project's CI, absent from a clone made elsewhere), used only to check our own copies and
/// generated files against it. Absent: `None`, said on stderr, except under `CI=true`, where a
/// missing `../shared/` is a failure (CI must compare, never skip).
pub fn shared_file(relative: &str) -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!(
                "{}: {e}: under CI=true ../shared/ must sit beside the repository",
                path.display()
            )
        }
        Err(e) => {
            eprintln!(
                "note: {}: {e}; the comparison with ../shared/ is not made on this machine",
                path.display()
            );
            None
        }
    }
}

/// The directory `../shared/<relative>` when it exists; `None` (said) or a failure under `CI=true`,
/// as [`shared_file`].
pub fn shared_dir(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(relative);
    if path.is_dir() {
        return Some(path);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{}: missing: under CI=true ../shared/ must sit beside the repository",
            path.display()
        );
    }
    eprintln!(
        "note: {} does not exist; the comparison with ../shared/ is not made on this machine",
        path.display()
    );
    None
}

/// Kubeconfig of the admin user on the API server with ARC's revision-era CRDs.
pub fn revision_kubeconfig() -> PathBuf {
    env_path("KUBECTL_ARC_TEST_KUBECONFIG")
}

/// Kubeconfig of the read-only user on the revision-era API server.
pub fn restricted_kubeconfig() -> PathBuf {
    env_path("KUBECTL_ARC_TEST_RESTRICTED_KUBECONFIG")
}

/// Kubeconfig of the admin user on the API server with ARC's legacy (integrity-hash era) CRDs.
pub fn legacy_kubeconfig() -> PathBuf {
    env_path("KUBECTL_ARC_TEST_LEGACY_KUBECONFIG")
}

/// The directory of ARC's CRDs the test bed installed, holding `revision/` and `legacy/`: the ones
/// `scripts/testbed.sh build` generates (`.cache/crds`), or `KUBECTL_ARC_TESTBED_CRDS`.
pub fn test_crds_dir() -> PathBuf {
    env_path("KUBECTL_ARC_TEST_CRDS")
}

/// The directory holding the Go oracle binaries (`oracle`, `oracle-v0.35`, ...).
pub fn oracle_dir() -> PathBuf {
    env_path("KUBECTL_ARC_ORACLE_DIR")
}

pub async fn client(kubeconfig: &PathBuf) -> Client {
    let kc = Kubeconfig::read_from(kubeconfig).expect("test bed kubeconfig");
    let config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .expect("test bed config");
    Client::try_from(config).expect("test bed client")
}

/// A namespace name unique to this test process and call.
pub fn unique_name(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh namespace on the API server of `kubeconfig`: (the kubeconfig, a client, the namespace).
pub async fn fresh_namespace(kubeconfig: PathBuf, prefix: &str) -> (PathBuf, Client, String) {
    let client = client(&kubeconfig).await;
    let ns = namespace(&client, prefix).await;
    (kubeconfig, client, ns)
}

/// Create a fresh namespace and return its name.
pub async fn namespace(client: &Client, prefix: &str) -> String {
    let name = unique_name(prefix);
    let ns: Namespace = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}
    }))
    .unwrap();
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await
        .expect("create namespace");
    name
}

pub fn ers_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("actions.github.com", "v1alpha1", "EphemeralRunnerSet"),
        "ephemeralrunnersets",
    )
}

pub fn ers_api(client: &Client, ns: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), ns, &ers_resource())
}

pub fn ars_api(client: &Client, ns: &str) -> Api<DynamicObject> {
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("actions.github.com", "v1alpha1", "AutoscalingRunnerSet"),
        "autoscalingrunnersets",
    );
    Api::namespaced_with(client.clone(), ns, &ar)
}

pub fn runner_api(client: &Client, ns: &str) -> Api<DynamicObject> {
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("actions.github.com", "v1alpha1", "EphemeralRunner"),
        "ephemeralrunners",
    );
    Api::namespaced_with(client.clone(), ns, &ar)
}

/// A minimal EphemeralRunnerSet as ARC's controller would create it. The CRD requires
/// githubConfigUrl, githubConfigSecret and runnerScaleSetId; `spec` overrides the defaults.
pub fn ers_object(name: &str, spec: serde_json::Value) -> DynamicObject {
    let mut full = serde_json::json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 1,
    });
    for (k, v) in spec.as_object().expect("spec is an object") {
        full[k] = v.clone();
    }
    let spec = full;
    serde_json::from_value(serde_json::json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "EphemeralRunnerSet",
        "metadata": {"name": name},
        "spec": {"replicas": 0, "patchID": 0, "ephemeralRunnerSpec": spec},
    }))
    .unwrap()
}

/// Create `ers_object(name, spec)` in `ns`; the object as the API server stored it.
pub async fn create_ers(
    client: &Client,
    ns: &str,
    name: &str,
    spec: serde_json::Value,
) -> DynamicObject {
    ers_api(client, ns)
        .create(&PostParams::default(), &ers_object(name, spec))
        .await
        .expect("create EphemeralRunnerSet")
}

/// Write `status` of the EphemeralRunnerSet `name` through the status subresource, as ARC's
/// controller does (with the required `currentReplicas` 0 unless `status` sets it).
pub async fn set_ers_status(
    client: &Client,
    ns: &str,
    name: &str,
    status: serde_json::Value,
) -> DynamicObject {
    let mut s = serde_json::json!({"currentReplicas": 0});
    for (k, v) in status.as_object().expect("status is an object") {
        s[k] = v.clone();
    }
    ers_api(client, ns)
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"status": s})),
        )
        .await
        .unwrap()
}

/// Play ARC's EphemeralRunnerSet controller: acknowledge `revision`.
pub async fn acknowledge(client: &Client, ns: &str, name: &str, revision: i64) {
    set_ers_status(
        client,
        ns,
        name,
        serde_json::json!({"appliedActionableRevision": revision}),
    )
    .await;
}

/// (actionableRevision, has the legacy annotation, resourceVersion) of every EphemeralRunnerSet
/// in `ns`, by name.
pub async fn ers_states(client: &Client, ns: &str) -> BTreeMap<String, (i64, bool, String)> {
    ers_api(client, ns)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|o| {
            let rev = o.data["spec"]["actionableRevision"].as_i64().unwrap_or(0);
            let legacy = o
                .metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key("actions.github.com/integrity-hash"));
            (
                o.metadata.name.unwrap(),
                (rev, legacy, o.metadata.resource_version.unwrap()),
            )
        })
        .collect()
}

/// The states of [`ers_states`] without their resourceVersions: (actionableRevision, legacy).
pub fn revisions(states: &BTreeMap<String, (i64, bool, String)>) -> BTreeMap<String, (i64, bool)> {
    states
        .iter()
        .map(|(k, (r, l, _))| (k.clone(), (*r, *l)))
        .collect()
}

/// (actionableRevision, has the legacy annotation) of every EphemeralRunnerSet in `ns`, by name.
pub async fn ers_revisions(client: &Client, ns: &str) -> BTreeMap<String, (i64, bool)> {
    revisions(&ers_states(client, ns).await)
}

/// A scratch directory, removed when dropped.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh scratch directory `kubectl-arc-<name>-...` under the temporary directory.
pub fn scratch_dir(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(unique_name(&format!("kubectl-arc-{name}")));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// The runner spec of the scale sets the status tests make, on `image`.
pub fn runner_spec(image: &str) -> serde_json::Value {
    serde_json::json!({
        "githubConfigUrl": "https://github.com/my-org",
        "githubConfigSecret": "gh-secret",
        "runnerScaleSetId": 1,
        "spec": {"restartPolicy": "Never", "containers": [{"name": "runner", "image": image}]}
    })
}

/// An AutoscalingRunnerSet registered with GitHub (scale set id 1), and its EphemeralRunnerSet as
/// ARC makes it (owner reference, scale-set labels), acknowledged at revision 1; `replicas` runners
/// asked.
pub async fn scale_set(client: &kube::Client, ns: &str, name: &str, replicas: i64) {
    let ars: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "annotations": {"runner-scale-set-id": "1"}},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": runner_spec("img:1")["spec"]}}
    }))
    .unwrap();
    let ars = ars_api(client, ns)
        .create(&kube::api::PostParams::default(), &ars)
        .await
        .unwrap();
    let mut ers = ers_object(name, runner_spec("img:1"));
    ers.data["spec"]["actionableRevision"] = serde_json::json!(1);
    ers.data["spec"]["replicas"] = serde_json::json!(replicas);
    ers.metadata.labels = Some(
        [
            ("actions.github.com/scale-set-name", name),
            ("actions.github.com/scale-set-namespace", ns),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    ers.metadata.owner_references = Some(vec![
        serde_json::from_value(serde_json::json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": name, "uid": ars.metadata.uid, "controller": true, "blockOwnerDeletion": true
        }))
        .unwrap(),
    ]);
    ers_api(client, ns)
        .create(&kube::api::PostParams::default(), &ers)
        .await
        .unwrap();
    set_ers_status(
        client,
        ns,
        name,
        serde_json::json!({"appliedActionableRevision": 1, "phase": "Running"}),
    )
    .await;
}

/// An EphemeralRunner `name` owned by `set` (its controller owner reference, name and uid) with
/// the set's runner spec, as ARC's EphemeralRunnerSet controller creates it, then `phase` written
/// through the status subresource.
pub async fn create_owned_runner(
    client: &Client,
    ns: &str,
    set: &DynamicObject,
    name: &str,
    phase: &str,
) -> DynamicObject {
    let runner: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
        "metadata": {"name": name, "ownerReferences": [{
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": set.metadata.name, "uid": set.metadata.uid, "controller": true}]},
        "spec": set.data["spec"]["ephemeralRunnerSpec"],
    }))
    .unwrap();
    let runners = runner_api(client, ns);
    runners
        .create(&PostParams::default(), &runner)
        .await
        .unwrap();
    runners
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"status": {"phase": phase}})),
        )
        .await
        .unwrap()
}

/// The ServiceAccount `name` in `ns` (no controller manager runs on the test bed to make even the
/// default one, and a Pod needs its account to be created).
pub async fn create_service_account(client: &Client, ns: &str, name: &str) {
    let sa: k8s_openapi::api::core::v1::ServiceAccount =
        serde_json::from_value(serde_json::json!({"metadata": {"name": name}})).unwrap();
    Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &sa)
        .await
        .unwrap();
}

/// Create `pod` in `ns`, then write `status` through pods/status as a kubelet would.
pub async fn create_pod_with_status(
    client: &Client,
    ns: &str,
    pod: serde_json::Value,
    status: serde_json::Value,
) {
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).unwrap();
    let name = pod.metadata.name.clone().unwrap();
    let pods = Api::<k8s_openapi::api::core::v1::Pod>::namespaced(client.clone(), ns);
    pods.create(&PostParams::default(), &pod).await.unwrap();
    pods.patch_status(
        &name,
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"status": status})),
    )
    .await
    .unwrap();
}

/// Go's `hash/fnv` New32a, then k8s.io/apimachinery `rand.SafeEncodeString` of its decimal
/// (ARC's `hash.FNVHashString`), written here apart from the engine.
pub fn fnv_hash_string(text: &str) -> String {
    let mut h: u32 = 2166136261;
    for b in text.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(16777619);
    }
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string()
        .bytes()
        .map(|d| ALPHANUMS[d as usize % ALPHANUMS.len()] as char)
        .collect()
}

/// ARC 0.13.1 to 0.14.2's `scaleSetListenerName` of a scale set on `https://github.com/my-org`:
/// its name, the first 8 characters of the hash of `namespace@runnerGroup@githubConfigUrl`.
pub fn arc_listener_name(name: &str, ns: &str, runner_group: &str) -> String {
    let hash = fnv_hash_string(&format!("{ns}@{runner_group}@https://github.com/my-org"));
    format!("{name}-{}-listener", &hash[..8])
}
