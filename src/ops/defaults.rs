//! What the API server does to a rendered AutoscalingRunnerSet before ARC reads it: the
//! structural defaults of the installed CRD (`protocol: TCP` on container ports, ...) applied, and
//! a number refused where the CRD says integer or string (`cpu: 0.5`). ARC hashes and compares the
//! scale set as stored, so `diff` completes each one of `-f` the same way before judging it
//! (`crate::core::defaulting`).
//!
//! Whose schema: the cluster's CRD `autoscalingrunnersets.actions.github.com` when the run asks
//! the cluster and may read it; else that CRD among the files (`-f` or `--live`); else the one
//! kubectl-arc ships for the release in use ([`crate::core::defaulting::shipped`]).

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use crate::core::arc;
use crate::core::defaulting::{self, Structural};
use crate::core::release::{self, ArcRelease};
use crate::core::replacement;
use crate::input::Object;
use crate::report::diff::ScaleSetDiff;

/// The CRD of AutoscalingRunnerSets.
pub(crate) const ARS_CRD: &str = "autoscalingrunnersets.actions.github.com";

/// The CRDs the run found: the cluster's, why it could not be read, and one among the files.
#[derive(Default, Clone)]
pub(crate) struct Crds {
    pub(crate) cluster: Option<Object>,
    /// Why the cluster's could not be used (not installed, forbidden, ...).
    pub(crate) cluster_missing: Option<String>,
    pub(crate) files: Option<Object>,
}

/// Whether `o` is the AutoscalingRunnerSet CRD (apiextensions.k8s.io/v1).
pub(crate) fn is_ars_crd(o: &Object) -> bool {
    o.kind == "CustomResourceDefinition"
        && o.api_version == "apiextensions.k8s.io/v1"
        && o.name() == ARS_CRD
        && o.problem.is_none()
}

/// The schema of ARC's version from a CRD object.
fn schema_of(crd: &Object) -> Result<Structural, String> {
    let spec: serde_json::Value = crd
        .spec
        .as_ref()
        .and_then(|s| serde_json::from_str(s.get()).ok())
        .ok_or_else(|| format!("{}: no spec", crd.describe()))?;
    let version = arc::API_VERSION.rsplit('/').next().unwrap_or_default();
    Structural::of_crd(&spec, version).map_err(|e| format!("{}: {e}", crd.describe()))
}

/// Whose schema completes the desired scale sets.
pub(crate) enum Source {
    /// A CRD read (the cluster's, or one among the files), and where.
    Crd(Structural, String),
    /// kubectl-arc's copy of each release's CRD: the release stated for the run (`--arc-version`,
    /// the controller) and where, else each scale set's own `app.kubernetes.io/version`, else
    /// the newest; `missing` says why the cluster's was not used.
    Shipped {
        stated: Option<(&'static ArcRelease, String)>,
        missing: String,
    },
}

/// The schema whose defaults apply, by the rule of the module's doc.
pub(crate) fn source(
    crds: &Crds,
    stated: Option<(&'static ArcRelease, String)>,
) -> Result<Source, String> {
    if let Some(crd) = &crds.cluster {
        let from = format!("CustomResourceDefinition {ARS_CRD} (cluster)");
        return Ok(Source::Crd(schema_of(crd)?, from));
    }
    let missing = crds
        .cluster_missing
        .as_ref()
        .map(|why| format!("; the cluster's: {why}"))
        .unwrap_or_default();
    if let Some(crd) = &crds.files {
        let from = format!(
            "CustomResourceDefinition {ARS_CRD} ({}){missing}",
            crd.origin
        );
        return Ok(Source::Crd(schema_of(crd)?, from));
    }
    Ok(Source::Shipped { stated, missing })
}

/// The CRDs kubectl-arc ships, by release, each read once: (its schema, its group's name).
type Shipped = BTreeMap<&'static str, (Structural, &'static str)>;

/// Which schema applies to one desired scale set (`None`: the source's CRD; else the release
/// whose shipped CRD, now read into `shipped`), and where it is from.
fn schema_for(
    source: &Source,
    o: &Object,
    shipped: &mut Shipped,
) -> Result<(Option<&'static str>, String), String> {
    let (stated, missing) = match source {
        Source::Crd(_, from) => return Ok((None, from.clone())),
        Source::Shipped { stated, missing } => (stated, missing),
    };
    let labelled = || {
        let v = o.meta.labels.get("app.kubernetes.io/version")?;
        let r = release::release(v)?;
        Some((
            r,
            format!("label app.kubernetes.io/version of {}", o.describe()),
        ))
    };
    let (r, why) = match stated.clone().or_else(labelled) {
        Some(found) => found,
        None => (
            replacement::newest_hash_release().ok_or("no release of ARC is known")?,
            "the newest release, as nothing says which".to_string(),
        ),
    };
    let (_, group) = match shipped.entry(r.version) {
        std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::btree_map::Entry::Vacant(e) => e.insert(
            defaulting::shipped(r)
                .ok_or_else(|| format!("kubectl-arc ships no CRD of ARC {}", r.version))?,
        ),
    };
    let from = format!("kubectl-arc's copy of ARC {group}'s CRD {ARS_CRD} ({why}){missing}");
    Ok((Some(r.version), from))
}

/// The schema [`schema_for`] chose.
fn schema<'a>(source: &'a Source, shipped: &'a Shipped, key: Option<&str>) -> &'a Structural {
    match (source, key) {
        (Source::Crd(schema, _), _) => schema,
        (Source::Shipped { .. }, Some(version)) => &shipped[version].0,
        (Source::Shipped { .. }, None) => unreachable!("schema_for names a shipped CRD's release"),
    }
}

/// Each desired scale set as the API server would store it, or refused, with the field and the
/// fix, where the server refuses it; and where the defaults came from (each source once).
pub(crate) fn complete(
    source: &Source,
    desired: Vec<Object>,
) -> (Vec<Object>, Vec<ScaleSetDiff>, Vec<String>) {
    // Which schema each takes, in order (each shipped CRD read once)...
    let mut shipped = Shipped::new();
    let schemas: Vec<_> = (desired.iter())
        .map(|o| (o.spec.as_ref()).map(|_| schema_for(source, o, &mut shipped)))
        .collect();
    // ...then each stored as the server would, on its own (on the machine's cores)...
    let work: Vec<_> = desired.iter().zip(&schemas).collect();
    let stored = crate::ops::parallel::map(&work, |(o, chosen)| match (&o.spec, chosen) {
        (Some(spec), Some(Ok((key, _)))) => Some(defaulting::stored_spec_if_changed(
            spec.get(),
            schema(source, &shipped, *key),
        )),
        _ => None,
    });
    // ...and sorted out in order.
    let mut kept = Vec::with_capacity(desired.len());
    let mut refused = Vec::new();
    let mut froms: Vec<String> = Vec::new();
    let fail = |o: &Object, error: String| {
        let (ns, name) = o.key();
        ScaleSetDiff::failed(ns, name, o.describe(), String::new(), error)
    };
    for ((mut o, chosen), stored) in desired.into_iter().zip(schemas).zip(stored) {
        let from = match chosen {
            None => {
                kept.push(o);
                continue;
            }
            Some(Err(e)) => {
                refused.push(fail(&o, format!("{}: {e}", o.describe())));
                continue;
            }
            Some(Ok((_, from))) => from,
        };
        if !froms.contains(&from) {
            froms.push(from);
        }
        match stored {
            Some(Ok(stored)) => {
                // Unchanged: the text the object has is what the server stores.
                if let Some(raw) = stored.and_then(|s| RawValue::from_string(s).ok()) {
                    o.spec = Some(raw);
                }
                kept.push(o);
            }
            Some(Err(numbers)) => {
                let error = numbers
                    .iter()
                    .map(|n| refusal(&o, n))
                    .collect::<Vec<_>>()
                    .join("; ");
                refused.push(fail(&o, error));
            }
            None => unreachable!("a scale set with a spec and a schema is stored"),
        }
    }
    (kept, refused, froms)
}

/// What the API server says of a number at an int-or-string node, and the fix.
fn refusal(o: &Object, n: &defaulting::NotIntOrString) -> String {
    let written = (o.spellings.iter())
        .find(|s| s.pointer == n.pointer)
        .map(|s| s.yaml.as_str());
    format!(
        "{}: {}: {} is a number, and the API server refuses it there (the CRD types it integer or string: \"{}\"): {}",
        o.describe(),
        n.path,
        written.map_or_else(|| n.number.to_string(), str::to_string),
        n.server_says,
        defaulting::int_or_string_fix(&n.number, written)
    )
}
