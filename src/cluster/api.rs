//! The ARC API the operations take: get, list (page by page), and the guarded patch, all over the
//! one [`Object`] the files give.
//!
//! Cluster layer. Two sources implement it: the API server ([`kube::Client`], this file: the
//! functions of `cluster/mod.rs` and `cluster/write.rs` behind it) and a dump read offline
//! ([`super::dump::Dump`]), which answers reads by namespace, name and selector as the API server
//! does and writes nothing. An operation generic over `A: ArcApi` is one pipeline for both, as
//! kubectl's `rollout history` takes an injected Builder (kubernetes/kubectl
//! `pkg/cmd/rollout/rollout_history.go`).

use serde_json::Value;

use super::preflight::ControllerArgs;
pub(crate) use super::resource::Resource;
use super::resource::Scope;
use super::watch::Watcher;
use super::write::{Decision, Guarded, ObjectText, WriteOptions};
use super::{ApiError, RawObject, RunnerRead, object_of};
use crate::input::Object;

/// An object as a source hands it: owned when read for the call (the API server's), lent when
/// the source holds it (a dump's: a listing of 10,000 sets copies none of them).
pub(crate) type Lent<'a> = std::borrow::Cow<'a, Object>;

/// What the operations ask of a source of ARC's objects and of the Pods, Deployments and CRDs
/// around them: the one door through which an operation reads the cluster.
pub(crate) trait ArcApi {
    /// The object `namespace/name` of `resource` (the namespace is ignored for a cluster-scoped
    /// resource); `None` when there is none.
    async fn get(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Object>, ApiError>;

    /// Every object of `resource` that `query` selects (its namespace, none: all; its label and
    /// field selectors), handed to `each` one at a time in the source's order, so that memory
    /// stays bounded by a page. Returns the list's resourceVersion (where a watch can start; empty
    /// for a source that has none).
    async fn list_each<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<String, E>;

    /// [`ArcApi::list_each`] of `namespace` (none: all) and a label selector, collected.
    async fn list(
        &self,
        resource: Resource,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<Object>, ApiError> {
        let query = Scope {
            namespace: namespace.map(str::to_string),
            label_selector: selector.map(str::to_string),
            field_selector: None,
        };
        let mut out = Vec::new();
        self.list_each(resource, &query, |o| {
            out.push(o);
            Ok::<_, ApiError>(())
        })
        .await?;
        Ok(out)
    }

    /// The namespaces in which this source's answer to a list of `resource` selected by
    /// `label_selector` is the whole truth. `None`: every namespace (an API server lists what
    /// there is). A dump knows only the namespaces where it holds such an object (one that holds
    /// a namespace's runners holds them all, as `kubectl get -n NS -o yaml` writes them); of any
    /// other namespace it says nothing, which the operations take as "not known", never as
    /// "none there".
    fn answers_for(
        &self,
        _resource: Resource,
        _label_selector: Option<&str>,
    ) -> Option<std::collections::HashSet<String>> {
        None
    }

    /// Whether the source holds its objects and lends them ([`Lent::Borrowed`]: a dump), rather
    /// than reading them for each call: a listing is then worked on as it comes, with no page to
    /// wait for.
    fn lends(&self) -> bool {
        false
    }

    /// How this source says that a named object is not in it: after "not found" (a dump adds
    /// " in the files").
    fn not_found_in(&self) -> &'static str {
        ""
    }

    /// [`ArcApi::list_each`], each object lent where the source holds it already (a dump's, not
    /// copied) and owned where it was read for this call (the API server's).
    async fn list_each_lent<'s, E: From<ApiError>>(
        &'s self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Lent<'s>) -> Result<(), E>,
    ) -> Result<String, E> {
        self.list_each(resource, query, |o| each(Lent::Owned(o)))
            .await
    }

    /// [`ArcApi::list`], each object lent where the source holds it already.
    async fn list_lent(
        &self,
        resource: Resource,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<Lent<'_>>, ApiError> {
        let listed = self.list(resource, namespace, selector).await?;
        Ok(listed.into_iter().map(Lent::Owned).collect())
    }

    /// The EphemeralRunners in `namespace` (all namespaces when `None`) as the impact forecast
    /// reads them ([`RunnerRead`]).
    async fn list_runners(&self, namespace: Option<&str>) -> Result<Vec<RunnerRead>, ApiError>;

    /// ARC's controller Deployments and their manager arguments
    /// ([`super::preflight::controller_args`]); `Ok(None)` when Deployments cannot be listed.
    async fn controller_args(&self) -> anyhow::Result<Option<Vec<ControllerArgs>>>;

    /// After a namespace-scoped read found nothing: an error when the namespace itself does not
    /// exist ([`super::check_namespace`]).
    async fn check_namespace(&self, namespace: &str) -> anyhow::Result<()>;

    /// The changes to what `query` selects of `resource` from `resource_version` (a list's;
    /// empty: the current state of every object first), as [`Object`]s like the lists give, on a
    /// watch that survives disconnections ([`Watcher`]). A source with no history to follow (a
    /// dump) gives what a list of `query` gives, then [`super::watch::Event::End`].
    fn watch(
        &self,
        resource: Resource,
        query: Scope,
        resource_version: String,
    ) -> Result<Watcher, ApiError>;

    /// Read `namespace/name`, decide, and write what the decision asks with the resourceVersion
    /// it was decided on ([`super::write::guarded_patch`]); the caller's decision `D` made on the
    /// read the last attempt was based on comes back with the outcome.
    async fn guarded_patch<D>(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
        opts: &WriteOptions,
        decide: impl FnMut(&ObjectText) -> (D, Decision),
    ) -> Guarded<D>;
}

impl ArcApi for kube::Client {
    async fn get(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Object>, ApiError> {
        super::get_resource(self, resource, Some(namespace), name).await
    }

    async fn list_each<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<String, E> {
        let cluster_wide;
        let query = if resource.namespaced || query.namespace.is_none() {
            query
        } else {
            cluster_wide = Scope {
                namespace: None,
                ..query.clone()
            };
            &cluster_wide
        };
        let path = resource.path(query.namespace.as_deref());
        super::list_query_each(self, &path, resource.plural, query, |raw: RawObject| {
            each(object_of(resource, raw))
        })
        .await
    }

    async fn list_runners(&self, namespace: Option<&str>) -> Result<Vec<RunnerRead>, ApiError> {
        super::list_runners(self, namespace).await
    }

    async fn controller_args(&self) -> anyhow::Result<Option<Vec<ControllerArgs>>> {
        super::preflight::controller_args(self).await
    }

    async fn check_namespace(&self, namespace: &str) -> anyhow::Result<()> {
        super::check_namespace(self, namespace).await
    }

    fn watch(
        &self,
        resource: Resource,
        query: Scope,
        resource_version: String,
    ) -> Result<Watcher, ApiError> {
        Ok(Watcher::new(
            self.clone(),
            resource,
            query,
            resource_version,
        ))
    }

    async fn guarded_patch<D>(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
        opts: &WriteOptions,
        decide: impl FnMut(&ObjectText) -> (D, Decision),
    ) -> Guarded<D> {
        super::write::guarded_patch(self, resource.plural, namespace, name, opts, decide).await
    }
}

/// An object as a decision reads it, from the one [`Object`]: its JSON text and its value.
pub(crate) fn object_text(object: &Object) -> ObjectText {
    let text = object.json();
    let value = serde_json::from_str(&text).unwrap_or(Value::Null);
    ObjectText { text, value }
}
