//! Checks before any write: the installed CRD has the revision fields, the caller may do what the
//! command needs, and (for `migrate`) no ARC controller is running.
//!
//! Cluster layer. Each check answers with a sentence that names what is wrong and what to do.

use anyhow::{Context as _, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::Client;
use kube::api::{Api, ListParams, PostParams};
use serde_json::Value;

use super::ApiErrorKind;
use crate::core::arc;
use crate::core::status::install::CONTROLLER_SELECTORS;

/// The name of ARC's EphemeralRunnerSet CRD.
pub(crate) const ERS_CRD: &str = "ephemeralrunnersets.actions.github.com";

/// What the installed EphemeralRunnerSet CRD says about the revision fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CrdRevisionFields {
    /// Both `spec.actionableRevision` and `status.appliedActionableRevision` are in the schema.
    Present,
    /// One or both are missing: the API server would prune writes of them.
    Missing(Vec<&'static str>),
    /// The CRD is not installed at all.
    NotInstalled,
}

/// Inspect the CRD's `v1alpha1` schema for the two revision fields.
pub(crate) fn revision_fields_in_crd(crd: &Value) -> CrdRevisionFields {
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(v) = versions
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(arc::VERSION))
    else {
        return CrdRevisionFields::Missing(vec![
            "spec.actionableRevision",
            "status.appliedActionableRevision",
        ]);
    };
    let schema = v.pointer("/schema/openAPIV3Schema/properties");
    let has = |path: &str| schema.and_then(|s| s.pointer(path)).is_some();
    let mut missing = Vec::new();
    if !has("/spec/properties/actionableRevision") {
        missing.push("spec.actionableRevision");
    }
    if !has("/status/properties/appliedActionableRevision") {
        missing.push("status.appliedActionableRevision");
    }
    if missing.is_empty() {
        CrdRevisionFields::Present
    } else {
        CrdRevisionFields::Missing(missing)
    }
}

/// Read the installed EphemeralRunnerSet CRD. `Ok(None)` when the caller may not read CRDs (the
/// writes are still guarded by strict field validation and a read-back).
pub(crate) async fn ers_crd_revision_fields(client: &Client) -> Result<Option<CrdRevisionFields>> {
    let req = http::Request::get(format!(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{ERS_CRD}"
    ))
    .body(Vec::new())
    .context("cannot build a request")?;
    match super::retry::read_with_retry(super::retry::ReadRetry::default(), || {
        client.request::<Value>(req.clone())
    })
    .await
    {
        Ok(crd) => Ok(Some(revision_fields_in_crd(&crd))),
        Err(e) => match ApiErrorKind::of(&e) {
            ApiErrorKind::NotFound | ApiErrorKind::CrdMissing => {
                Ok(Some(CrdRevisionFields::NotInstalled))
            }
            ApiErrorKind::Forbidden => Ok(None),
            _ => Err(anyhow::Error::new(e).context(format!("cannot read the CRD {ERS_CRD}"))),
        },
    }
}

/// The message for a CRD without the revision fields.
pub(crate) fn crd_refusal(fields: &CrdRevisionFields) -> Option<String> {
    match fields {
        CrdRevisionFields::Present => None,
        CrdRevisionFields::NotInstalled => Some(format!(
            "the CRD {ERS_CRD} is not installed: install ARC's CRDs first (server-side apply: kubectl apply --server-side -f <ARC's crds>)"
        )),
        CrdRevisionFields::Missing(fields) => Some(format!(
            "the installed EphemeralRunnerSet CRD has no {}: the API server would silently drop the write. \
             Upgrade ARC's CRDs first (Helm does not upgrade CRDs): kubectl apply --server-side -f <ARC's crds for the revision-era release>",
            fields.join(" and no ")
        )),
    }
}

/// One permission a command needs.
#[derive(Debug, Clone)]
pub(crate) struct Permission {
    pub(crate) verb: &'static str,
    pub(crate) resource: &'static str,
    pub(crate) group: &'static str,
    pub(crate) subresource: Option<&'static str>,
}

impl Permission {
    pub(crate) const fn arc(verb: &'static str, resource: &'static str) -> Permission {
        Permission {
            verb,
            resource,
            group: arc::GROUP,
            subresource: None,
        }
    }
}

/// Ask the API server (SelfSubjectAccessReview) whether the caller has each permission in
/// `namespace` (`None`: all namespaces). Returns the denied ones as `verb resource.group`.
pub(crate) async fn denied_permissions(
    client: &Client,
    namespace: Option<&str>,
    needed: &[Permission],
) -> Result<Vec<String>> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let mut denied = Vec::new();
    for p in needed {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    namespace: namespace.map(str::to_string),
                    verb: Some(p.verb.to_string()),
                    group: Some(p.group.to_string()),
                    resource: Some(p.resource.to_string()),
                    subresource: p.subresource.map(str::to_string),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        // A review writes nothing, so asking again after a transient failure is safe.
        let post = PostParams::default();
        let answer = super::retry::read_with_retry(super::retry::ReadRetry::default(), || {
            api.create(&post, &review)
        })
        .await
        .context("cannot ask the API server what this user may do (SelfSubjectAccessReview)")?;
        if !answer.status.is_some_and(|s| s.allowed) {
            let sub = p.subresource.map(|s| format!("/{s}")).unwrap_or_default();
            denied.push(format!("{} {}{sub}.{}", p.verb, p.resource, p.group));
        }
    }
    Ok(denied)
}

/// ARC controller Deployments with replicas, as `namespace/name (version V)` where the chart's
/// `app.kubernetes.io/version` label or the image tag says it. `Ok(None)` when deployments cannot
/// be listed (the caller decides whether that blocks).
pub(crate) async fn running_arc_controllers(client: &Client) -> Result<Option<Vec<String>>> {
    let api: Api<Deployment> = Api::all(client.clone());
    let mut found = std::collections::BTreeMap::new();
    for selector in CONTROLLER_SELECTORS {
        let lp = ListParams::default().labels(selector);
        let list = match super::retry::read_with_retry(super::retry::ReadRetry::default(), || {
            api.list(&lp)
        })
        .await
        {
            Ok(list) => list,
            Err(e) if ApiErrorKind::of(&e) == ApiErrorKind::Forbidden => return Ok(None),
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context("cannot list Deployments to look for ARC's controller"));
            }
        };
        for d in list.items {
            let running = d
                .status
                .as_ref()
                .and_then(|s| s.ready_replicas)
                .unwrap_or(0)
                > 0
                || d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1) > 0;
            if !running {
                continue;
            }
            let key = format!(
                "{}/{}",
                d.metadata.namespace.as_deref().unwrap_or(""),
                d.metadata.name.as_deref().unwrap_or("")
            );
            let version = controller_version(&d);
            found.insert(
                key.clone(),
                match version {
                    Some(v) => format!("{key} (version {v})"),
                    None => key,
                },
            );
        }
    }
    Ok(Some(found.into_values().collect()))
}

/// One ARC controller Deployment as the impact forecast reads it: where, its release, and its
/// manager container's arguments (the container named `manager`, else the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ControllerArgs {
    /// `controller Deployment ns/name`.
    pub(crate) at: String,
    pub(crate) version: Option<String>,
    pub(crate) args: Vec<String>,
    /// Its namespace and name.
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// The Helm release that installed it (`meta.helm.sh/release-name`, else the chart's
    /// `app.kubernetes.io/instance` label).
    pub(crate) helm_release: Option<String>,
    /// The tag of its manager container's image: a build of ARC's master
    /// ([`crate::core::next::next_build`]) where the chart's label says a release.
    pub(crate) image_tag: Option<String>,
}

/// The Helm release that made an object: Helm's `meta.helm.sh/release-name` annotation, else the
/// `app.kubernetes.io/instance` label ARC's charts set to `.Release.Name`.
pub(crate) fn helm_release(
    annotations: Option<&std::collections::BTreeMap<String, String>>,
    labels: Option<&std::collections::BTreeMap<String, String>>,
) -> Option<String> {
    annotations
        .and_then(|a| a.get("meta.helm.sh/release-name"))
        .or_else(|| labels.and_then(|l| l.get("app.kubernetes.io/instance")))
        .filter(|r| !r.is_empty())
        .cloned()
}

/// The ARC controller Deployments and their manager arguments. `Ok(None)` when Deployments
/// cannot be listed (the read role may not).
pub(crate) async fn controller_args(client: &Client) -> Result<Option<Vec<ControllerArgs>>> {
    let api: Api<Deployment> = Api::all(client.clone());
    let mut found: Vec<ControllerArgs> = Vec::new();
    for selector in CONTROLLER_SELECTORS {
        let lp = ListParams::default().labels(selector);
        let list = match api.list(&lp).await {
            Ok(list) => list,
            Err(e) if ApiErrorKind::of(&e) == ApiErrorKind::Forbidden => return Ok(None),
            Err(e) => {
                return Err(anyhow::Error::new(e)
                    .context("cannot list Deployments to look for ARC's controller"));
            }
        };
        add_controllers(&mut found, list.items);
    }
    Ok(Some(found))
}

/// Add the ARC controller Deployments `deployments` (one selector's list) to `found`, each once
/// (the first selector that lists it wins): the one rule both sources of
/// [`super::api::ArcApi::controller_args`] apply, the API server's lists and a dump's.
pub(crate) fn add_controllers(
    found: &mut Vec<ControllerArgs>,
    deployments: impl IntoIterator<Item = Deployment>,
) {
    for d in deployments {
        let at = format!(
            "controller Deployment {}/{}",
            d.metadata.namespace.as_deref().unwrap_or(""),
            d.metadata.name.as_deref().unwrap_or("")
        );
        if found.iter().any(|c| c.at == at) {
            continue;
        }
        let containers = d
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref())
            .map(|s| s.containers.as_slice())
            .unwrap_or_default();
        let manager =
            (containers.iter().find(|c| c.name == "manager")).or_else(|| containers.first());
        found.push(ControllerArgs {
            at,
            version: controller_version(&d),
            image_tag: manager
                .and_then(|c| c.image.as_deref())
                .and_then(crate::core::status::install::image_tag)
                .map(str::to_string),
            args: manager.and_then(|c| c.args.clone()).unwrap_or_default(),
            namespace: d.metadata.namespace.clone().unwrap_or_default(),
            name: d.metadata.name.clone().unwrap_or_default(),
            helm_release: helm_release(d.metadata.annotations.as_ref(), d.metadata.labels.as_ref()),
        });
    }
}

/// The ARC release a controller Deployment runs
/// ([`crate::core::status::install::controller_version`]).
pub(crate) fn controller_version(d: &Deployment) -> Option<String> {
    let label = d
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("app.kubernetes.io/version"))
        .map(String::as_str);
    let containers: Vec<(&str, Option<&str>)> = d
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .map(|s| {
            s.containers
                .iter()
                .map(|c| (c.name.as_str(), c.image.as_deref()))
                .collect()
        })
        .unwrap_or_default();
    crate::core::status::install::controller_version(label, &containers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of ARC's EphemeralRunnerSet CRD in each era, cut down to what is inspected (the
    /// test suite checks the real generated CRDs, `tests/testsuite/crds.rs`).
    fn crd(dir: &str) -> Value {
        let (spec, status) = match dir {
            "revision" => (
                serde_json::json!({"replicas": {"type": "integer"}, "actionableRevision": {"type": "integer", "format": "int64"}}),
                serde_json::json!({"phase": {"type": "string"}, "appliedActionableRevision": {"type": "integer", "format": "int64"}}),
            ),
            _ => (
                serde_json::json!({"replicas": {"type": "integer"}}),
                serde_json::json!({"phase": {"type": "string"}}),
            ),
        };
        serde_json::json!({"spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {
            "properties": {"spec": {"properties": spec}, "status": {"properties": status}}
        }}}]}})
    }

    #[test]
    fn the_two_eras_of_arcs_crd() {
        assert_eq!(
            revision_fields_in_crd(&crd("revision")),
            CrdRevisionFields::Present
        );
        let legacy = revision_fields_in_crd(&crd("legacy"));
        assert_eq!(
            legacy,
            CrdRevisionFields::Missing(vec![
                "spec.actionableRevision",
                "status.appliedActionableRevision"
            ])
        );
        assert!(
            crd_refusal(&legacy)
                .unwrap()
                .contains("Helm does not upgrade CRDs")
        );
    }
}
