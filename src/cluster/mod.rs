//! Cluster layer: the only place that talks to a Kubernetes API server (kube-rs).
//!
//! Commands hand it a [`ConnectOptions`] built from kubectl's global flags; it hands back a client
//! and the namespace the context defaults to.

pub(crate) mod api;
pub(crate) mod dump;
mod error;
pub(crate) mod guarded;
pub mod http_log;
pub(crate) mod kubeconfig;
pub(crate) mod names;
pub(crate) mod no_answer;
pub(crate) mod preflight;
pub(crate) mod ratelimit;
mod resource;
pub(crate) mod retry;
mod runner_table;
pub(crate) mod watch;
pub mod write;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result};
use kube::config::KubeConfigOptions;
use kube::{Client, Config};
use kubeconfig::Kubeconfig;
use serde_json::value::RawValue;

use crate::core::arc;
use crate::input::{Meta, Object, Origin, OwnerRef};
use crate::shell::Env;

pub(crate) use error::{ApiError, ApiErrorKind, failure_in};

/// What kubectl's global flags say about how to reach the cluster.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConnectOptions {
    /// `--kubeconfig`: one file. When absent, `KUBECONFIG` (several files, merged like kubectl) or
    /// `~/.kube/config`.
    pub(crate) kubeconfig: Option<PathBuf>,
    /// `--context`
    pub(crate) context: Option<String>,
    /// `--cluster`
    pub(crate) cluster: Option<String>,
    /// `--user`
    pub(crate) user: Option<String>,
    /// `--as`
    pub(crate) impersonate: Option<String>,
    /// `--as-group` (repeatable)
    pub(crate) impersonate_groups: Vec<String>,
    /// `--request-timeout`: bounds each request (connect, write and read). `None`: no limit.
    pub(crate) request_timeout: Option<Duration>,
    /// What the process's environment says: `KUBECONFIG` and the home directory.
    pub(crate) env: KubeEnv,
}

/// The environment the kubeconfig is found by, handed in by `main` through the command layer:
/// the cluster layer reads no variable itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct KubeEnv {
    /// `KUBECONFIG`: a list of files, merged like kubectl.
    pub(crate) kubeconfig: Option<OsString>,
    /// The home directory, for `~/.kube/config`.
    pub(crate) home: Option<PathBuf>,
}

impl KubeEnv {
    /// The variables the cluster layer reads (`KUBECONFIG`) and the home directory, from the
    /// environment `main` handed in.
    pub(crate) fn from_env(env: &Env) -> KubeEnv {
        KubeEnv {
            kubeconfig: env.var_os("KUBECONFIG").map(std::ffi::OsStr::to_os_string),
            home: env.home.clone(),
        }
    }
}

/// A connected client and the context's default namespace.
pub(crate) struct Connection {
    pub(crate) client: Client,
    pub(crate) default_namespace: String,
    /// The API server's URL, as the kubeconfig's cluster gives it.
    pub(crate) server: String,
}

/// Read the kubeconfig as kubectl does: `--kubeconfig`, else `KUBECONFIG`'s files merged
/// (missing ones skipped), else `~/.kube/config` ([`kubeconfig::load`]). Errors say which file
/// failed and what to do.
pub(crate) fn load_kubeconfig(opts: &ConnectOptions) -> Result<Kubeconfig> {
    kubeconfig::load(
        opts.kubeconfig.as_deref(),
        opts.env.kubeconfig.as_deref(),
        opts.env.home.as_deref(),
    )
}

/// The namespace the kubeconfig's context (`--context`, else the current one) defaults to, read
/// without contacting anything: what kubectl gives objects of `-f` files that name none. `None`
/// when there is no readable kubeconfig or the context sets no namespace.
pub(crate) fn context_namespace(opts: &ConnectOptions) -> Option<String> {
    let kubeconfig = load_kubeconfig(opts).ok()?;
    let name = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())?;
    kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == name)?
        .context
        .as_ref()?
        .namespace
        .clone()
        .filter(|ns| !ns.is_empty())
}

/// The object `name` of `resource` in `namespace` (ignored for a cluster-scoped resource), as
/// [`object_of`] gives it; `None` when it does not exist.
async fn get_resource(
    client: &Client,
    resource: resource::Resource,
    namespace: Option<&str>,
    name: &str,
) -> Result<Option<crate::input::Object>, ApiError> {
    let namespace = namespace.filter(|_| resource.namespaced);
    let failed = |e| ApiError::new(e, "get", resource.plural, namespace, Some(name));
    let req = kube::core::Request::new(resource.path(namespace))
        .get(name, &kube::api::GetParams::default())
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    match retry::read_with_retry(retry::ReadRetry::default(), || {
        client.request::<RawObject>(req.clone())
    })
    .await
    {
        Ok(o) => Ok(Some(object_of(resource, o))),
        Err(e) => match failed(e) {
            e if e.kind() == ApiErrorKind::NotFound => Ok(None),
            e => Err(e),
        },
    }
}

/// The server a connection would go to (`--cluster`, else the context's cluster, the context
/// being `--context` or the current one), as the kubeconfig writes it; `None` when the kubeconfig
/// does not say. For messages.
pub(crate) fn server_of(opts: &ConnectOptions) -> Option<String> {
    let kubeconfig = load_kubeconfig(opts).ok()?;
    let context_name = opts
        .context
        .clone()
        .or(kubeconfig.current_context.clone())?;
    let cluster_name = match &opts.cluster {
        Some(c) => c.clone(),
        None => {
            let context = kubeconfig
                .contexts
                .iter()
                .find(|c| c.name == context_name)?;
            context.context.as_ref()?.cluster.clone()
        }
    };
    let cluster = kubeconfig
        .clusters
        .iter()
        .find(|c| c.name == cluster_name)?;
    cluster.cluster.as_ref()?.server.clone()
}

/// Load the kubeconfig as kubectl would and build a client from it.
pub(crate) async fn connect(opts: &ConnectOptions) -> Result<Connection> {
    let kubeconfig = load_kubeconfig(opts)?;
    let options = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        user: opts.user.clone(),
    };
    let mut config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| anyhow::anyhow!("cannot use the kubeconfig: {}", kubeconfig::describe(&e)))?;
    if let Some(user) = &opts.impersonate {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !opts.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(opts.impersonate_groups.clone());
    }
    if let Some(t) = opts.request_timeout {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
        config.reset_reader_on_write = true;
    }
    let default_namespace = config.default_namespace.clone();
    // kube's own retry layer retries up to 15 times with delays growing towards 1000s; reads
    // retry here instead, bounded (retry.rs), and writes only through the write guard.
    config.default_retry = false;
    // kubectl's request log (-v 6 and up) wraps kube's whole stack, outside its auth layer.
    let log = http_log::HttpLogLayer::new(&config.cluster_url);
    let server = config.cluster_url.to_string();
    let builder = kube::client::ClientBuilder::try_from(config)
        .context("cannot build a Kubernetes client")?;
    let client = match opts.request_timeout {
        Some(t) => builder
            .with_layer(&no_answer::NoAnswerLayer::new(t))
            .with_layer(&log)
            .build(),
        None => builder.with_layer(&log).build(),
    };
    Ok(Connection {
        client,
        default_namespace,
        server,
    })
}

/// An object as the API server sent it, with `spec` and `status` kept as the exact JSON text (so
/// the Go-faithful decoder sees the bytes ARC's controller sees).
#[derive(Debug, serde::Deserialize)]
struct RawObject {
    #[serde(default)]
    pub(crate) metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    #[serde(default)]
    pub(crate) spec: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    pub(crate) status: Option<Box<serde_json::value::RawValue>>,
}

/// A list page; its items as [`RawObject`]s, or another shape that decodes less of each.
#[derive(Debug, serde::Deserialize)]
#[serde(bound = "T: serde::de::DeserializeOwned")]
struct RawList<T = RawObject> {
    #[serde(default)]
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta,
    items: Vec<T>,
}

/// An EphemeralRunner as the impact forecast reads it: its name, namespace, controller owner
/// reference, `deletionTimestamp` and `status`, decoded from the list page as
/// [`object_from_cluster`] decodes them (the same typed owner references and time), while its
/// `spec` (the set's whole runner spec, copied onto every runner), its other metadata and its
/// managed fields are skipped by the parser without building any value.
#[derive(Debug, Default)]
pub(crate) struct RunnerRead {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) controller: Option<OwnerRef>,
    pub(crate) deletion_timestamp: Option<String>,
    /// `status` as sent, `None` when absent or null.
    pub(crate) status: Option<Box<RawValue>>,
}

/// The parts of an EphemeralRunner [`RunnerRead`] keeps, as the page's JSON holds them; every
/// other field is skipped (serde's `IgnoredAny`).
#[derive(Debug, serde::Deserialize)]
struct RawRunner {
    #[serde(default)]
    metadata: RawRunnerMeta,
    #[serde(default)]
    status: Option<Box<RawValue>>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRunnerMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    deletion_timestamp: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(default)]
    owner_references: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>>,
}

impl From<RawRunner> for RunnerRead {
    fn from(raw: RawRunner) -> RunnerRead {
        let m = raw.metadata;
        let references = m
            .owner_references
            .as_ref()
            .and_then(|r| serde_json::to_value(r).ok());
        RunnerRead {
            namespace: m.namespace.unwrap_or_default(),
            name: m.name.unwrap_or_default(),
            controller: OwnerRef::controller_of(references.as_ref()),
            deletion_timestamp: m.deletion_timestamp.map(|t| rfc3339(&t.0)),
            status: raw.status.filter(|s| s.get() != "null"),
        }
    }
}

impl From<&Object> for RunnerRead {
    /// The same parts of a whole object (of a file, or listed whole).
    fn from(o: &Object) -> RunnerRead {
        RunnerRead {
            namespace: o.namespace().to_string(),
            name: o.name().to_string(),
            controller: o.meta.controller.clone(),
            deletion_timestamp: o.meta.deletion_timestamp.clone(),
            status: o.status.clone(),
        }
    }
}

/// The EphemeralRunners in `namespace` (all namespaces when `None`) as [`RunnerRead`]s: listed as
/// a Table where the CRD's printer columns say every field the forecast reads
/// ([`runner_table`]), else whole, paginated as every list ([`list_query_each`]).
async fn list_runners(
    client: &Client,
    namespace: Option<&str>,
) -> Result<Vec<RunnerRead>, ApiError> {
    match runner_table::list(client, namespace).await {
        Some(runners) => Ok(runners),
        None => list_runners_whole(client, namespace).await,
    }
}

/// [`list_runners`], each runner decoded from the whole object.
async fn list_runners_whole(
    client: &Client,
    namespace: Option<&str>,
) -> Result<Vec<RunnerRead>, ApiError> {
    let mut out = Vec::new();
    let plural = arc::EPHEMERAL_RUNNERS;
    let query = watch::Scope {
        namespace: namespace.map(str::to_string),
        label_selector: None,
        field_selector: None,
    };
    list_query_each(
        client,
        &arc_path(plural, namespace),
        plural,
        &query,
        |raw: RawRunner| {
            out.push(RunnerRead::from(raw));
            Ok::<_, ApiError>(())
        },
    )
    .await?;
    Ok(out)
}

/// Where ARC's resources live: `/apis/actions.github.com/v1alpha1[/namespaces/NS]/PLURAL`.
pub(crate) fn arc_path(plural: &str, namespace: Option<&str>) -> String {
    let base = format!("/apis/{}", crate::core::arc::API_VERSION);
    match namespace {
        Some(ns) => format!("{base}/namespaces/{ns}/{plural}"),
        None => format!("{base}/{plural}"),
    }
}

/// The collection path of `plural` in `namespace`: core Pods, else ARC's resources.
pub(crate) fn resource_path(plural: &str, namespace: Option<&str>) -> String {
    match (plural, namespace) {
        ("pods", Some(ns)) => format!("/api/v1/namespaces/{ns}/pods"),
        ("pods", None) => "/api/v1/pods".to_string(),
        _ => arc_path(plural, namespace),
    }
}

/// How many objects a list page asks for.
pub(crate) const PAGE_SIZE: u32 = 500;

/// List ARC objects of `plural` (in `namespace`, or all namespaces), following `continue` tokens
/// page by page and handing each object to `each`, so memory stays bounded by one page. A failed
/// list is an [`ApiError`] in the chain.
async fn list_each(
    client: &Client,
    plural: &str,
    namespace: Option<&str>,
    selector: Option<&str>,
    each: impl FnMut(RawObject) -> Result<()>,
) -> Result<()> {
    let path = arc_path(plural, namespace);
    list_pages_each(client, &path, plural, namespace, selector, each).await
}

/// [`list_each`] for an `each` of any error type that a failed list converts to, with a field
/// selector as well; returns the list's resourceVersion (where a watch can start).
async fn list_pages_each<E: From<ApiError>>(
    client: &Client,
    path: &str,
    plural: &str,
    namespace: Option<&str>,
    selector: Option<&str>,
    each: impl FnMut(RawObject) -> Result<(), E>,
) -> Result<(), E> {
    let query = watch::Scope {
        namespace: namespace.map(str::to_string),
        label_selector: selector.map(str::to_string),
        field_selector: None,
    };
    list_query_each(client, path, plural, &query, each)
        .await
        .map(drop)
}

/// [`list_pages_each`] of `query` (its namespace is in `path` already): the list's
/// resourceVersion, from its first page.
async fn list_query_each<T: serde::de::DeserializeOwned, E: From<ApiError>>(
    client: &Client,
    path: &str,
    plural: &str,
    query: &watch::Scope,
    mut each: impl FnMut(T) -> Result<(), E>,
) -> Result<String, E> {
    let namespace = query.namespace.as_deref();
    let failed = |e| ApiError::new(e, "list", plural, namespace, None);
    let request = kube::core::Request::new(path);
    let mut params = kube::api::ListParams::default().limit(PAGE_SIZE);
    if let Some(s) = &query.label_selector {
        params = params.labels(s);
    }
    if let Some(f) = &query.field_selector {
        params = params.fields(f);
    }
    let mut resource_version = None;
    loop {
        let req = request
            .list(&params)
            .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
        let page: RawList<T> =
            retry::read_with_retry(retry::ReadRetry::default(), || client.request(req.clone()))
                .await
                .map_err(failed)?;
        tracing::debug!(
            plural,
            ?namespace,
            items = page.items.len(),
            "listed a page"
        );
        if resource_version.is_none() {
            resource_version = page.metadata.resource_version.clone();
        }
        for item in page.items {
            each(item)?;
        }
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params.continue_token = Some(token),
            _ => return Ok(resource_version.unwrap_or_default()),
        }
    }
}

/// Get one ARC object (or Pod); `None` when it does not exist.
async fn get(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
) -> Result<Option<RawObject>, ApiError> {
    let failed = |e| ApiError::new(e, "get", plural, Some(namespace), Some(name));
    let req = kube::core::Request::new(resource_path(plural, Some(namespace)))
        .get(name, &kube::api::GetParams::default())
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    match retry::read_with_retry(retry::ReadRetry::default(), || {
        client.request::<RawObject>(req.clone())
    })
    .await
    {
        Ok(o) => Ok(Some(o)),
        Err(e) => match failed(e) {
            e if e.kind() == ApiErrorKind::NotFound => Ok(None),
            e => Err(e),
        },
    }
}

/// After a namespace-scoped read found nothing: fail when the namespace itself does not exist
/// (a typo in `-n`, or a context pointing at a deleted namespace), so the user is told that rather
/// than "nothing found". Only a definite 404 on the namespace fails; a caller without permission
/// to read namespaces (the least-privilege roles have none) or any other answer keeps the plain
/// "nothing found" outcome.
async fn check_namespace(client: &Client, namespace: &str) -> Result<()> {
    let req = match kube::core::Request::new("/api/v1/namespaces")
        .get(namespace, &kube::api::GetParams::default())
    {
        Ok(r) => r,
        Err(_) => return Ok(()),
    };
    match client.request::<serde::de::IgnoredAny>(req).await {
        Err(e) if ApiErrorKind::of(&e) == ApiErrorKind::NotFound => Err(anyhow::anyhow!(
            "namespace \"{namespace}\" not found: check -n/--namespace (or the namespace of the kubeconfig context)"
        )),
        Ok(_) | Err(_) => Ok(()),
    }
}

/// Delete the ARC object (or Pod) `plural`/`namespace`/`name` only if it is still the one read: its `uid`
/// and `resourceVersion` as preconditions, so any write since the read (a job assigned to a
/// runner, a phase changed) makes the API server answer 409 Conflict and nothing is deleted.
/// `server_dry_run`: `dryRun=All`, the API server checks and persists nothing.
pub(crate) async fn delete_if_unchanged(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    (uid, resource_version): (&str, &str),
    server_dry_run: bool,
) -> Result<(), ApiError> {
    let failed = |e| ApiError::new(e, "delete", plural, Some(namespace), Some(name));
    let params = kube::api::DeleteParams {
        dry_run: server_dry_run,
        preconditions: Some(kube::api::Preconditions {
            uid: Some(uid.to_string()),
            resource_version: Some(resource_version.to_string()),
        }),
        ..kube::api::DeleteParams::default()
    };
    let req = kube::core::Request::new(resource_path(plural, Some(namespace)))
        .delete(name, &params)
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    client
        .request::<serde::de::IgnoredAny>(req)
        .await
        .map(|_| ())
        .map_err(failed)
}

/// Merge `status` into the status subresource of the ARC object `plural`/`namespace`/`name` only
/// if it is still at `resource_version` (the patch carries it: 409 Conflict otherwise), with
/// Strict field validation (a field the CRD does not declare is refused, not pruned). Returns the
/// object as the API server stored it (with `server_dry_run`, as it would store it).
pub(crate) async fn patch_status_if_unchanged(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    resource_version: &str,
    status: serde_json::Value,
    server_dry_run: bool,
) -> Result<serde_json::Value, ApiError> {
    let failed = |e| ApiError::new(e, "patch", plural, Some(namespace), Some(name));
    let mut params = kube::api::PatchParams {
        field_validation: Some(kube::api::ValidationDirective::Strict),
        ..kube::api::PatchParams::default()
    };
    params.dry_run = server_dry_run;
    let body = serde_json::json!({
        "metadata": {"resourceVersion": resource_version},
        "status": status,
    });
    let req = kube::core::Request::new(arc_path(plural, Some(namespace)))
        .patch_subresource("status", name, &params, &kube::api::Patch::Merge(&body))
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    client
        .request::<serde_json::Value>(req)
        .await
        .map_err(failed)
}

/// An object read from the cluster, as the one [`Object`] every source gives (its kind and
/// version are the resource's).
fn object_from_cluster(kind: &str, raw: RawObject) -> Object {
    let metadata = serde_json::to_string(&raw.metadata)
        .ok()
        .and_then(|t| RawValue::from_string(t).ok());
    let m = raw.metadata;
    // The one owner rule (crate::core::owner::controller_ref), on the references as sent.
    let references = m
        .owner_references
        .as_ref()
        .and_then(|r| serde_json::to_value(r).ok());
    let controller = OwnerRef::controller_of(references.as_ref());
    Object {
        origin: Origin::Cluster,
        api_version: arc::API_VERSION.to_string(),
        kind: kind.to_string(),
        meta: Meta {
            namespace: m.namespace,
            name: m.name,
            generate_name: m.generate_name,
            uid: m.uid,
            resource_version: m.resource_version,
            generation: m.generation,
            creation_timestamp: m.creation_timestamp.map(|t| rfc3339(&t.0)),
            deletion_timestamp: m.deletion_timestamp.map(|t| rfc3339(&t.0)),
            labels: m.labels.unwrap_or_default(),
            annotations: m.annotations.unwrap_or_default(),
            controller,
        },
        metadata,
        spec: raw.spec.filter(|s| s.get() != "null"),
        status: raw.status.filter(|s| s.get() != "null"),
        spellings: Vec::new(),
        problem: None,
    }
}

/// An object of `resource` read from the cluster ([`object_from_cluster`], its apiVersion the
/// resource's).
fn object_of(resource: resource::Resource, raw: RawObject) -> Object {
    let mut object = object_from_cluster(resource.kind, raw);
    if object.api_version != resource.api_version {
        object.api_version = resource.api_version.to_string();
    }
    object
}

/// `metav1.Time` as the API server writes it.
fn rfc3339(t: &k8s_openapi::jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `v` as a list of `resource` gives it: through the one object model the door reads into
    /// ([`object_of`]), for the operations' tests.
    pub(crate) fn listed(resource: resource::Resource, v: &serde_json::Value) -> Object {
        object_of(resource, serde_json::from_value(v.clone()).unwrap())
    }

    fn owner(kind: &str, name: &str, controller: Option<bool>) -> serde_json::Value {
        let mut r = serde_json::json!({"apiVersion": "actions.github.com/v1alpha1",
            "kind": kind, "name": name, "uid": format!("uid-{name}"), "blockOwnerDeletion": true});
        if let Some(c) = controller {
            r["controller"] = c.into();
        }
        r
    }

    /// One EphemeralRunner as the API server sends it (managed fields, the runner spec), with
    /// `extra` (JSON text: `status`, `deletionTimestamp`) added.
    fn runner(name: &str, ns: &str, refs: serde_json::Value, extra: &str) -> serde_json::Value {
        let mut r = serde_json::json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": name, "namespace": ns, "uid": format!("u-{name}"),
                "resourceVersion": "17", "generation": 1,
                "creationTimestamp": "2026-01-01T00:00:00Z",
                "labels": {"app.kubernetes.io/component": "runner"},
                "annotations": {"actions.github.com/patch-id": "0"},
                "finalizers": ["ephemeralrunner.actions.github.com/finalizer"],
                "ownerReferences": refs,
                "managedFields": [{"manager": "python", "operation": "Update",
                    "apiVersion": "actions.github.com/v1alpha1", "time": "2026-01-01T00:00:00Z",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:spec": {".": {}}}}}]},
            "spec": {"githubConfigUrl": "https://github.com/acme", "githubConfigSecret": "s",
                "runnerScaleSetId": 1, "spec": {"containers": [{"name": "runner",
                    "image": "ghcr.io/actions/actions-runner:2.329.0",
                    "resources": {"limits": {"cpu": "2", "memory": 1.5e9}}}]}}
        });
        let extra: serde_json::Value = serde_json::from_str(extra).unwrap();
        for (k, v) in extra.as_object().unwrap() {
            match k.as_str() {
                "deletionTimestamp" => r["metadata"][k] = v.clone(),
                _ => r[k] = v.clone(),
            }
        }
        r
    }

    /// A list page of EphemeralRunners, one in each state the forecast tells apart: idle, busy
    /// by `jobId`, busy by `jobRequestId` alone (ARC 0.9 to 0.12.1), pending, no status, a null
    /// status, being deleted, an unknown phase, `Outdated`, `runnerId` 0, finished, failed, and
    /// owners that are not a set's controller.
    pub(crate) fn runner_page() -> String {
        let set = serde_json::json!([owner("EphemeralRunnerSet", "set-a", Some(true))]);
        let running = r#""phase": "Running", "ready": true, "runnerName": "r""#;
        let busy = r#""jobRequestId": 9, "jobId": "j-9", "jobRepositoryName": "acme/api",
            "jobWorkflowRef": "acme/api/.github/workflows/ci.yaml@refs/heads/main",
            "workflowRunId": 812, "jobDisplayName": "build""#;
        let in_set_a = [
            (
                "idle",
                format!(r#"{{"status": {{{running}, "runnerId": 7}}}}"#),
            ),
            (
                "busy-job-id",
                format!(r#"{{"status": {{{running}, "runnerId": 7, {busy}}}}}"#),
            ),
            (
                "busy-request-only",
                format!(
                    r#"{{"status": {{{running}, "runnerId": 7, "jobRequestId": 11, "jobDisplayName": "test"}}}}"#
                ),
            ),
            (
                "idle-empty-job",
                format!(
                    r#"{{"status": {{{running}, "runnerId": 7, "jobRequestId": 0, "jobId": ""}}}}"#
                ),
            ),
            (
                "pending",
                r#"{"status": {"phase": "Pending", "runnerId": 8}}"#.to_string(),
            ),
            ("no-status", "{}".to_string()),
            ("null-status", r#"{"status": null}"#.to_string()),
            (
                "deleting",
                r#"{"deletionTimestamp": "2026-01-02T03:04:05Z",
                    "status": {"phase": "Running", "runnerId": 3, "jobId": "j-3"}}"#
                    .to_string(),
            ),
            (
                "unknown-phase",
                r#"{"status": {"phase": "Hibernating", "runnerId": 4}}"#.to_string(),
            ),
            (
                "outdated",
                r#"{"status": {"phase": "Outdated", "runnerId": 5}}"#.to_string(),
            ),
            (
                "unregistered",
                format!(r#"{{"status": {{{running}, "runnerId": 0}}}}"#),
            ),
            (
                "finished",
                r#"{"status": {"phase": "Succeeded", "runnerId": 6}}"#.to_string(),
            ),
            (
                "failed",
                r#"{"status": {"phase": "Failed", "reason": "TooManyPodFailures"}}"#.to_string(),
            ),
        ];
        let idle = format!(r#"{{"status": {{{running}, "runnerId": 7}}}}"#);
        let mut items: Vec<_> = (in_set_a.iter())
            .map(|(name, extra)| runner(name, "ns-a", set.clone(), extra))
            .collect();
        let b = serde_json::json!([owner("EphemeralRunnerSet", "set-b", Some(true))]);
        items.push(runner("other-ns", "ns-b", b, &idle));
        items.push(runner("no-owner", "ns-a", serde_json::Value::Null, &idle));
        let unmarked = serde_json::json!([
            owner("EphemeralRunnerSet", "set-a", None),
            owner("EphemeralRunnerSet", "set-c", Some(false))
        ]);
        items.push(runner("not-controller", "ns-a", unmarked, &idle));
        let ars_first = serde_json::json!([
            owner("AutoscalingRunnerSet", "ars", Some(true)),
            owner("EphemeralRunnerSet", "set-a", Some(true))
        ]);
        items.push(runner("second-controller", "ns-a", ars_first, &idle));
        serde_json::json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerList",
            "metadata": {"resourceVersion": "99", "continue": ""}, "items": items})
        .to_string()
    }

    /// The page read both ways: whole objects ([`object_from_cluster`]) and [`RunnerRead`]s.
    pub(crate) fn read_both(page: &str) -> (Vec<Object>, Vec<RunnerRead>) {
        let whole: RawList = serde_json::from_str(page).unwrap();
        let light: RawList<RawRunner> = serde_json::from_str(page).unwrap();
        (
            (whole.items.into_iter())
                .map(|o| object_from_cluster(arc::KIND_EPHEMERAL_RUNNER, o))
                .collect(),
            light.items.into_iter().map(RunnerRead::from).collect(),
        )
    }

    fn parts(r: &RunnerRead) -> impl PartialEq + std::fmt::Debug + '_ {
        (
            &r.namespace,
            &r.name,
            &r.controller,
            &r.deletion_timestamp,
            r.status.as_ref().map(|s| s.get()),
        )
    }

    #[test]
    fn the_light_runner_decode_reads_what_the_whole_object_gives() {
        let (whole, light) = read_both(&runner_page());
        assert_eq!(whole.len(), 17);
        assert_eq!(light.len(), whole.len());
        for (o, r) in whole.iter().zip(&light) {
            assert_eq!(parts(&RunnerRead::from(o)), parts(r), "{}", o.name());
        }
        let by = |name: &str| light.iter().find(|r| r.name == name).unwrap();
        assert_eq!(
            by("deleting").deletion_timestamp.as_deref(),
            Some("2026-01-02T03:04:05Z")
        );
        assert!(by("no-status").status.is_none() && by("null-status").status.is_none());
        assert_eq!(by("idle").controller.as_ref().unwrap().name, "set-a");
        assert!(by("no-owner").controller.is_none() && by("not-controller").controller.is_none());
        assert_eq!(
            by("second-controller").controller.as_ref().unwrap().kind,
            "AutoscalingRunnerSet"
        );
    }

    #[test]
    fn a_runner_page_of_another_shape_reads_alike_or_fails_alike() {
        let page = |item: &str| format!(r#"{{"metadata":{{}},"items":[{item}]}}"#);
        for bad in [
            r#"{"metadata":{"name":"x","ownerReferences":[{"kind":5}]}}"#,
            r#"{"metadata":{"name":"x","deletionTimestamp":"yesterday"}}"#,
            r#"{"metadata":{"name":7}}"#,
            r#"{"metadata":null}"#,
        ] {
            assert!(
                serde_json::from_str::<RawList>(&page(bad)).is_err(),
                "{bad}"
            );
            assert!(
                serde_json::from_str::<RawList<RawRunner>>(&page(bad)).is_err(),
                "{bad}"
            );
        }
        for odd in [
            r#"{"metadata":{"name":"x","ownerReferences":[{"kind":"EphemeralRunnerSet","controller":true}]}}"#,
            r#"{"metadata":{"name":"x","deletionTimestamp":null},"status":{"phase":7}}"#,
            r#"{"status":"Running"}"#,
        ] {
            let (whole, light) = read_both(&page(odd));
            assert_eq!(
                parts(&RunnerRead::from(&whole[0])),
                parts(&light[0]),
                "{odd}"
            );
        }
    }
}
