//! The guarded writes `repair` makes besides a runner's delete: a merge patch of an object's
//! metadata (annotations, finalizers) that carries the resourceVersion read (409 Conflict when
//! anything wrote it since), sent with Strict field validation. Cluster layer.

use kube::Client;

use super::ApiError;

/// Merge `metadata` (annotations, finalizers) into `plural`/`namespace`/`name` only if it is
/// still at `resource_version` (the patch carries it: 409 Conflict otherwise), with Strict field
/// validation. Returns the object as the API server stored it (with `server_dry_run`, as it
/// would store it).
pub(crate) async fn patch_metadata_if_unchanged(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    resource_version: &str,
    metadata: serde_json::Value,
    server_dry_run: bool,
) -> Result<serde_json::Value, ApiError> {
    let failed = |e| ApiError::new(e, "patch", plural, Some(namespace), Some(name));
    let mut params = kube::api::PatchParams {
        field_validation: Some(kube::api::ValidationDirective::Strict),
        ..kube::api::PatchParams::default()
    };
    params.dry_run = server_dry_run;
    let mut metadata = metadata;
    metadata["resourceVersion"] = resource_version.into();
    let body = serde_json::json!({ "metadata": metadata });
    let req = kube::core::Request::new(super::resource_path(plural, Some(namespace)))
        .patch(name, &params, &kube::api::Patch::Merge(&body))
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    client
        .request::<serde_json::Value>(req)
        .await
        .map_err(failed)
}
