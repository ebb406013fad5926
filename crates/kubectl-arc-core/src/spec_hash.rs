//! The runner-spec and listener hashes of every released ARC (gha-runner-scale-set 0.9.0 to
//! 0.14.2), byte for byte.
//!
//! Pure core. Mirrors `(*AutoscalingRunnerSet).RunnerSetSpecHash` and `ListenerSpecHash`
//! (`apis/actions.github.com/v1alpha1/autoscalingrunnerset_types.go`, the same in every tag) over
//! `hash.ComputeTemplateHash` (`hash/hash.go`, the same in every tag): the spec is decoded into
//! the release's own Go types as the controller's client decodes it
//! (`sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts`; fields the release does not know are
//! dropped), then
//!
//! - `RunnerSetSpecHash` prints `&spec`, `spec` a pointer to the function-local
//!   `runnerSetSpec{GitHubConfigUrl, GitHubConfigSecret, RunnerGroup, RunnerScaleSetName, Proxy,
//!   GitHubServerTLS, Template}` copied from the spec (`(**v1alpha1.runnerSetSpec)` in go-spew);
//! - `ListenerSpecHash` prints `&spec`, `spec` the `*AutoscalingRunnerSetSpec` of `DeepCopy`
//!   (which keeps every value and every nil-versus-empty distinction);
//!
//! with go-spew `%#v`, into FNV-32a, `rand.SafeEncodeString` of the decimal sum. The same
//! formatter as the integrity hash ([`crate::legacy_hash`]) prints them, over the
//! release's layout.

use crate::layout::{Kind, Layout};
use crate::legacy_hash::{Root, Unverifiable, template_hash, template_spew};
use crate::release::ArcRelease;
use crate::value::{DecodeError, Value, decode};

/// Why a release's hash of an AutoscalingRunnerSet's spec cannot be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecHashError {
    /// The spec does not decode into the release's Go types: ARC's client fails to read the
    /// object (and the controller never hashes it). The source names the field.
    #[error("ARC {release} cannot decode the AutoscalingRunnerSet's spec: {source}")]
    Decode {
        release: &'static str,
        #[source]
        source: DecodeError,
    },
    /// The value prints differently in different Go processes (a set `metav1.Time`).
    #[error(transparent)]
    Unverifiable(#[from] Unverifiable),
}

impl SpecHashError {
    /// The field of the spec the error is about (`template.spec.containers[0].name`), when one.
    pub fn field(&self) -> Option<&str> {
        match self {
            SpecHashError::Decode {
                source: DecodeError::Type { path, .. } | DecodeError::Custom { path, .. },
                ..
            } => Some(path),
            _ => None,
        }
    }
}

/// `AutoscalingRunnerSet.RunnerSetSpecHash()` of this release, for the AutoscalingRunnerSet's
/// `spec` as the API server stores it (JSON): what the controller compares with the newest
/// EphemeralRunnerSet's `actions.github.com/runner-spec-hash`.
pub fn runner_set_spec_hash(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    let (layout, root, value) = runner_set_spec(release, ars_spec_json)?;
    Ok(template_hash(layout, Root::PtrPtr(root), &value)?)
}

/// `AutoscalingRunnerSet.ListenerSpecHash()` of this release: what the controller compares with
/// the listener's `actions.github.com/runner-spec-hash` (a difference recreates the listener).
pub fn listener_spec_hash(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    let layout = release.layout();
    let ars = decode_spec(release, ars_spec_json)?;
    Ok(template_hash(
        layout,
        Root::PtrPtr(layout.autoscaling_runner_set_spec),
        &ars,
    )?)
}

/// The go-spew text [`runner_set_spec_hash`] hashes.
pub fn runner_set_spec_spew(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    let (layout, root, value) = runner_set_spec(release, ars_spec_json)?;
    Ok(template_spew(layout, Root::PtrPtr(root), &value)?)
}

/// The go-spew text [`listener_spec_hash`] hashes.
pub fn listener_spec_spew(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<String, SpecHashError> {
    let layout = release.layout();
    let ars = decode_spec(release, ars_spec_json)?;
    Ok(template_spew(
        layout,
        Root::PtrPtr(layout.autoscaling_runner_set_spec),
        &ars,
    )?)
}

fn decode_spec(release: &ArcRelease, ars_spec_json: &str) -> Result<Value, SpecHashError> {
    let layout = release.layout();
    decode(layout, layout.autoscaling_runner_set_spec, ars_spec_json).map_err(|source| {
        SpecHashError::Decode {
            release: release.version,
            source,
        }
    })
}

/// The decoded spec's `runnerSetSpec` value: each of its fields taken from the spec's field of
/// the same Go name (`spec := &runnerSetSpec{GitHubConfigUrl: ars.Spec.GitHubConfigUrl, ...}`).
fn runner_set_spec(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<(&'static Layout, crate::layout::TypeId, Value), SpecHashError> {
    let layout = release.layout();
    let root = layout
        .runner_set_spec
        .expect("a release layout has the runnerSetSpec root");
    let Value::Struct(mut ars) = decode_spec(release, ars_spec_json)? else {
        unreachable!("a struct type decodes into a struct value")
    };
    let (Kind::Struct(wanted), Kind::Struct(have)) = (
        &layout.ty(root).kind,
        &layout.ty(layout.autoscaling_runner_set_spec).kind,
    ) else {
        unreachable!("both roots are structs")
    };
    let fields = wanted
        .iter()
        .map(|w| {
            let i = have
                .iter()
                .position(|h| h.name == w.name && h.ty == w.ty)
                .unwrap_or_else(|| {
                    panic!(
                        "layout of ARC {}: runnerSetSpec.{} is not a field of AutoscalingRunnerSetSpec",
                        release.version, w.name
                    )
                });
            std::mem::replace(&mut ars[i], Value::Ptr(None))
        })
        .collect::<Vec<_>>();
    Ok((layout, root, Value::Struct(fields.into_boxed_slice())))
}
