//! Names for shell completion: the namespaces and ARC objects a context can see, and the contexts,
//! clusters and users a kubeconfig defines.
//!
//! Cluster layer. Completion asks under a deadline and treats every failure as "no names", so these
//! functions return plain errors and never retry.

use std::collections::BTreeSet;

use anyhow::Result;
use k8s_openapi::api::core::v1::Namespace;
use kube::Client;
use kube::api::{Api, ListParams};

use super::{ConnectOptions, list_each};

/// The names of the ARC objects of `plural` in `namespace` (all namespaces when `None`), with the
/// namespace of each, sorted.
pub(crate) async fn arc_object_names(
    client: &Client,
    plural: &str,
    namespace: Option<&str>,
) -> Result<Vec<(String, String)>> {
    let mut names = BTreeSet::new();
    list_each(client, plural, namespace, None, |o| {
        if let Some(name) = o.metadata.name {
            names.insert((o.metadata.namespace.unwrap_or_default(), name));
        }
        Ok(())
    })
    .await?;
    Ok(names.into_iter().collect())
}

/// Every namespace, as `kubectl get namespaces` lists them. A caller who may not list namespaces
/// (a common RBAC setup) still gets the namespaces that hold ARC objects it can list.
pub(crate) async fn namespaces(client: &Client) -> Result<Vec<String>> {
    let api: Api<Namespace> = Api::all(client.clone());
    match api.list_metadata(&ListParams::default()).await {
        Ok(list) => Ok(list
            .items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect()),
        Err(list_namespaces) => {
            let mut found = BTreeSet::new();
            for plural in [
                crate::core::arc::AUTOSCALING_RUNNER_SETS,
                crate::core::arc::EPHEMERAL_RUNNER_SETS,
            ] {
                if let Ok(names) = arc_object_names(client, plural, None).await {
                    found.extend(names.into_iter().map(|(ns, _)| ns));
                }
            }
            if found.is_empty() {
                return Err(anyhow::Error::new(list_namespaces).context("cannot list namespaces"));
            }
            Ok(found.into_iter().collect())
        }
    }
}

/// What a kubeconfig names: the values `--context`, `--cluster` and `--user` accept.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct KubeconfigNames {
    pub(crate) contexts: Vec<String>,
    pub(crate) clusters: Vec<String>,
    pub(crate) users: Vec<String>,
}

/// Read the kubeconfig as [`super::connect`] would (`--kubeconfig`, else `KUBECONFIG`'s files
/// merged, else `~/.kube/config`) and list its names. Reads files only; contacts no server.
pub(crate) fn kubeconfig_names(opts: &ConnectOptions) -> Result<KubeconfigNames> {
    let kubeconfig = super::load_kubeconfig(opts)?;
    Ok(KubeconfigNames {
        contexts: kubeconfig.contexts.into_iter().map(|c| c.name).collect(),
        clusters: kubeconfig.clusters.into_iter().map(|c| c.name).collect(),
        users: kubeconfig.auth_infos.into_iter().map(|u| u.name).collect(),
    })
}
