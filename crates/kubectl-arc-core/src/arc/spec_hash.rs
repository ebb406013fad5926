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

/// The fields of an AutoscalingRunnerSet's spec that make this release's hashes
/// [`Unverifiable`]: its set times ([`crate::legacy_hash::set_times`]), spelled from the object
/// (`spec.template.metadata.creationTimestamp`). Empty when the spec does not decode.
pub fn set_times(release: &ArcRelease, ars_spec_json: &str) -> Vec<String> {
    let layout = release.layout();
    match decode_spec(release, ars_spec_json) {
        Ok(v) => crate::legacy_hash::set_times(layout, layout.autoscaling_runner_set_spec, &v)
            .into_iter()
            .map(|p| format!("spec.{p}"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The AutoscalingRunnerSet spec as this release decodes it, with only the fields
/// `RunnerSetSpecHash()` hashes kept (the others zero): what the hash of the object depends on,
/// in the object's own field names (`template`, `githubConfigUrl`), to compare or to show.
pub fn hashed_spec(
    release: &ArcRelease,
    ars_spec_json: &str,
) -> Result<(&'static Layout, Value), SpecHashError> {
    let layout = release.layout();
    let Value::Struct(mut ars) = decode_spec(release, ars_spec_json)? else {
        unreachable!("a struct type decodes into a struct value")
    };
    // A decoded struct's base is its type's zero value.
    let hashed = hashed_field_indexes(release);
    for i in 0..ars.len() {
        if !hashed.contains(&i) {
            ars.reset(i);
        }
    }
    Ok((layout, Value::Struct(ars)))
}

/// The indexes, among `AutoscalingRunnerSetSpec`'s fields, of those `runnerSetSpec` copies.
fn hashed_field_indexes(release: &ArcRelease) -> Vec<usize> {
    let layout = release.layout();
    let root = layout
        .runner_set_spec
        .expect("a release layout has the runnerSetSpec root");
    let (Kind::Struct(wanted), Kind::Struct(have)) = (
        &layout.ty(root).kind,
        &layout.ty(layout.autoscaling_runner_set_spec).kind,
    ) else {
        unreachable!("both roots are structs")
    };
    wanted
        .iter()
        .filter_map(|w| have.iter().position(|h| h.name == w.name && h.ty == w.ty))
        .collect()
}

/// What changed between two AutoscalingRunnerSet specs in the fields this release's
/// `RunnerSetSpecHash()` hashes: every difference a strict comparison sees (go-spew prints every
/// value, so each one changes the hash), with paths from the object (`spec.template.spec...`).
pub fn scale_set_differences(
    release: &ArcRelease,
    live_spec_json: &str,
    desired_spec_json: &str,
) -> Result<Vec<crate::equality::Difference>, SpecHashError> {
    let (layout, live) = hashed_spec(release, live_spec_json)?;
    let (_, desired) = hashed_spec(release, desired_spec_json)?;
    let ty = layout.autoscaling_runner_set_spec;
    Ok(crate::equality::compare(layout, ty, &live, &desired)
        .differences
        .into_iter()
        .map(|mut d| {
            d.path = format!("spec.{}", d.path);
            d
        })
        .collect())
}

/// The fields of the AutoscalingRunnerSet that reach the runners without being hashed by
/// `RunnerSetSpecHash()` (0.14.2's `newEphemeralRunnerSet` copies `vaultConfig` and
/// `ephemeralRunnerConfigSecretMetadata` into the runner spec and `ephemeralRunnerMetadata`
/// onto the set): a change of one alone is written only into the next set ARC makes.
pub const UNHASHED_RUNNER_FIELDS: [&str; 3] = [
    "ephemeralRunnerMetadata",
    "ephemeralRunnerConfigSecretMetadata",
    "vaultConfig",
];

/// Which of [`UNHASHED_RUNNER_FIELDS`] this release knows and the two specs hold otherwise
/// (`spec.vaultConfig`), in that order; empty when either spec does not decode.
pub fn unhashed_changes(
    release: &ArcRelease,
    live_spec_json: &str,
    desired_spec_json: &str,
) -> Vec<String> {
    let layout = release.layout();
    let (Ok(Value::Struct(live)), Ok(Value::Struct(desired))) = (
        decode_spec(release, live_spec_json),
        decode_spec(release, desired_spec_json),
    ) else {
        return Vec::new();
    };
    let Kind::Struct(fields) = &layout.ty(layout.autoscaling_runner_set_spec).kind else {
        unreachable!("AutoscalingRunnerSetSpec is a struct")
    };
    UNHASHED_RUNNER_FIELDS
        .iter()
        .filter_map(|name| {
            let i = fields.iter().position(|f| f.json == *name)?;
            let changed = !crate::equality::compare(layout, fields[i].ty, &live[i], &desired[i])
                .differences
                .is_empty();
            changed.then(|| format!("spec.{name}"))
        })
        .collect()
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
    Ok((layout, root, Value::Struct(fields.into())))
}
