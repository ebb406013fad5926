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

use super::watch::{Scope, Watcher};
use super::write::{Decision, Guarded, ObjectText, WriteOptions};
use super::{ApiError, RawObject, arc_path, object_from_cluster};
use crate::core::arc;
use crate::input::Object;

/// One of ARC's resources (`actions.github.com/v1alpha1`): its kind and its plural.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resource {
    pub(crate) kind: &'static str,
    pub(crate) plural: &'static str,
}

impl Resource {
    pub(crate) const EPHEMERAL_RUNNER_SETS: Resource = Resource {
        kind: arc::KIND_EPHEMERAL_RUNNER_SET,
        plural: arc::EPHEMERAL_RUNNER_SETS,
    };
    pub(crate) const AUTOSCALING_RUNNER_SETS: Resource = Resource {
        kind: arc::KIND_AUTOSCALING_RUNNER_SET,
        plural: arc::AUTOSCALING_RUNNER_SETS,
    };
    pub(crate) const EPHEMERAL_RUNNERS: Resource = Resource {
        kind: arc::KIND_EPHEMERAL_RUNNER,
        plural: arc::EPHEMERAL_RUNNERS,
    };
}

/// What the operations ask of a source of ARC's objects.
pub(crate) trait ArcApi {
    /// The object `namespace/name` of `resource`; `None` when there is none.
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

    /// After a namespace-scoped read found nothing: an error when the namespace itself does not
    /// exist ([`super::check_namespace`]).
    async fn check_namespace(&self, namespace: &str) -> anyhow::Result<()>;

    /// The changes to what `query` selects of `resource` from `resource_version` (a list's;
    /// empty: the current state of every object first), as [`Object`]s like the lists give, on a
    /// watch that survives disconnections ([`Watcher`]). A source with no history to follow (a
    /// dump) refuses.
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
        super::get_object(self, resource.kind, resource.plural, namespace, name).await
    }

    async fn list_each<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<String, E> {
        let path = arc_path(resource.plural, query.namespace.as_deref());
        super::list_query_each(self, &path, resource.plural, query, |raw: RawObject| {
            each(object_from_cluster(resource.kind, raw))
        })
        .await
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
