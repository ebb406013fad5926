//! What a read names: the [`Resource`] (kind, plural, apiVersion, scope) and the [`Scope`] of a
//! list or a watch.
//!
//! Cluster layer. Both [`super::api`] (the door) and [`super::watch`] (the live watch behind it)
//! import these, so the two do not import each other; they are re-exported as
//! `cluster::api::Resource` and `cluster::watch::Scope`.

use crate::core::arc;
use crate::core::status::listener;

/// One resource the commands read: its kind, plural, apiVersion (`group/version`, or `v1` for the
/// core group) and whether its objects live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resource {
    pub(crate) kind: &'static str,
    pub(crate) plural: &'static str,
    pub(crate) api_version: &'static str,
    pub(crate) namespaced: bool,
}

impl Resource {
    /// One of ARC's resources (`actions.github.com/v1alpha1`, namespaced).
    const fn arc(kind: &'static str, plural: &'static str) -> Resource {
        Resource {
            kind,
            plural,
            api_version: arc::API_VERSION,
            namespaced: true,
        }
    }

    pub(crate) const EPHEMERAL_RUNNER_SETS: Resource =
        Resource::arc(arc::KIND_EPHEMERAL_RUNNER_SET, arc::EPHEMERAL_RUNNER_SETS);
    pub(crate) const AUTOSCALING_RUNNER_SETS: Resource = Resource::arc(
        arc::KIND_AUTOSCALING_RUNNER_SET,
        arc::AUTOSCALING_RUNNER_SETS,
    );
    pub(crate) const EPHEMERAL_RUNNERS: Resource =
        Resource::arc(arc::KIND_EPHEMERAL_RUNNER, arc::EPHEMERAL_RUNNERS);
    pub(crate) const AUTOSCALING_LISTENERS: Resource = Resource::arc(
        listener::KIND_AUTOSCALING_LISTENER,
        listener::AUTOSCALING_LISTENERS,
    );
    pub(crate) const PODS: Resource = Resource {
        kind: "Pod",
        plural: "pods",
        api_version: "v1",
        namespaced: true,
    };
    pub(crate) const DEPLOYMENTS: Resource = Resource {
        kind: "Deployment",
        plural: "deployments",
        api_version: "apps/v1",
        namespaced: true,
    };
    pub(crate) const CUSTOM_RESOURCE_DEFINITIONS: Resource = Resource {
        kind: "CustomResourceDefinition",
        plural: "customresourcedefinitions",
        api_version: "apiextensions.k8s.io/v1",
        namespaced: false,
    };

    /// Whether `object` is one of this resource's (its kind and apiVersion).
    pub(crate) fn is_of(&self, object: &crate::input::Object) -> bool {
        object.kind == self.kind && object.api_version == self.api_version
    }

    /// The collection path of this resource in `namespace` (none, or a cluster-scoped resource:
    /// all): `/api/v1[/namespaces/NS]/PLURAL` for the core group, else
    /// `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL`.
    pub(crate) fn path(&self, namespace: Option<&str>) -> String {
        let base = match self.api_version {
            "v1" => "/api/v1".to_string(),
            group_version => format!("/apis/{group_version}"),
        };
        match namespace.filter(|_| self.namespaced) {
            Some(ns) => format!("{base}/namespaces/{ns}/{}", self.plural),
            None => format!("{base}/{}", self.plural),
        }
    }
}

/// What a list or a watch is restricted to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scope {
    /// `None`: all namespaces.
    pub(crate) namespace: Option<String>,
    pub(crate) label_selector: Option<String>,
    pub(crate) field_selector: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_the_api_servers() {
        let sets = Resource::EPHEMERAL_RUNNER_SETS;
        assert_eq!(
            sets.path(Some("ci")),
            "/apis/actions.github.com/v1alpha1/namespaces/ci/ephemeralrunnersets"
        );
        assert_eq!(
            sets.path(None),
            super::super::arc_path(arc::EPHEMERAL_RUNNER_SETS, None)
        );
        assert_eq!(
            Resource::PODS.path(Some("ci")),
            "/api/v1/namespaces/ci/pods"
        );
        assert_eq!(Resource::PODS.path(None), "/api/v1/pods");
        assert_eq!(
            Resource::DEPLOYMENTS.path(None),
            "/apis/apps/v1/deployments"
        );
        assert_eq!(
            Resource::CUSTOM_RESOURCE_DEFINITIONS.path(Some("ci")),
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "cluster-scoped: no namespace in the path"
        );
        assert_eq!(
            Resource::AUTOSCALING_LISTENERS.path(Some("arc-systems")),
            "/apis/actions.github.com/v1alpha1/namespaces/arc-systems/autoscalinglisteners"
        );
    }
}
