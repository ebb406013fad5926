//! Shared test support: the real API servers and the Go oracle that `scripts/test.sh` starts.
//!
//! Tests that need them read the environment that `scripts/testbed.sh up` prints. A missing test bed
//! is a hard failure with instructions, never a skip: CI must run every test.
#![allow(dead_code)]

pub mod faults;
pub mod oracle;
pub mod specgen;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
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
