//! `status --contexts`'s report: every context's rows in one list, each item naming its context,
//! and per context what was found or why nothing was (`contexts[]`), with the fleet's notes.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::core::status::SetStatus;

/// `status --contexts -o json|yaml`: the one-context report's shape, its items each with a
/// `context`, and `contexts[]` and `notes[]` beside them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FleetReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// The rows of every context, in the order the contexts were selected.
    pub(crate) items: Vec<FleetItem>,
    pub(crate) contexts: Vec<ContextSummary>,
    /// What differs across the fleet (said once, not on a row).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<FleetNote>,
}

/// One row, and the context it was read from.
#[derive(Debug, Serialize)]
pub(crate) struct FleetItem {
    pub(crate) context: String,
    #[serde(flatten)]
    pub(crate) row: SetStatus,
}

/// What one context gave.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextSummary {
    pub(crate) name: String,
    /// The API server, as the kubeconfig's cluster gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<String>,
    /// The ARC chart releases its scale sets were made by (`app.kubernetes.io/version`).
    pub(crate) arc_versions: Vec<String>,
    /// The listeners' images.
    pub(crate) listener_images: Vec<String>,
    pub(crate) counts: Counts,
    /// Why nothing could be read from it: the context is a row of its own in the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<ContextError>,
    /// What could not be shown, the others being read (a name not found, an unreadable object).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) errors: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
    /// `status NAME`: what surrounds each named set in this context (the describe-style lines
    /// under the table; not in JSON, as for one context).
    #[serde(skip)]
    pub(crate) chains: Vec<crate::report::status::Chain>,
}

/// How many rows a context gave, and in which states.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Counts {
    pub(crate) sets: usize,
    pub(crate) states: BTreeMap<String, usize>,
}

/// Why a context could not be read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ContextError {
    pub(crate) kind: FailureKind,
    pub(crate) message: String,
}

/// The kind of a context's failure, as its table row's STATE says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum FailureKind {
    /// No answer: connection refused, reset, or `--request-timeout` passed.
    Unreachable,
    /// 401: the server refused the credentials.
    Unauthorized,
    /// 403: the credentials may not list ARC's resources.
    Forbidden,
    /// ARC's CRDs are not installed.
    #[serde(rename = "CRDsMissing")]
    CrdsMissing,
    /// The kubeconfig's context cannot be used (a missing cluster, user or certificate file).
    Kubeconfig,
    /// Any other failure (a server error, a namespace that does not exist...).
    Failed,
}

impl FailureKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FailureKind::Unreachable => "Unreachable",
            FailureKind::Unauthorized => "Unauthorized",
            FailureKind::Forbidden => "Forbidden",
            FailureKind::CrdsMissing => "CRDsMissing",
            FailureKind::Kubeconfig => "Kubeconfig",
            FailureKind::Failed => "Failed",
        }
    }
}

/// A version that differs across the fleet, each value with the contexts that run it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FleetNote {
    /// `ArcVersionsDiffer` or `ListenerImagesDiffer`.
    pub(crate) reason: &'static str,
    pub(crate) message: String,
    pub(crate) values: BTreeMap<String, Vec<String>>,
}

/// `diff --contexts -o json|yaml`: the one-context `DiffReport`'s shape, its items each with a
/// `context`, and `contexts[]` beside them (per context its release and counts, or its error).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FleetDiffReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// The k8s.io/api layout the comparison used.
    pub(crate) layout: String,
    /// The scale sets of every context, in the order the contexts were selected.
    pub(crate) items: Vec<FleetDiffItem>,
    pub(crate) contexts: Vec<DiffContextSummary>,
}

/// One scale set's drift, and the context it was judged in.
#[derive(Debug, Serialize)]
pub(crate) struct FleetDiffItem {
    pub(crate) context: String,
    #[serde(flatten)]
    pub(crate) item: crate::report::diff::ScaleSetDiff,
}

/// What one context's diff gave.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffContextSummary {
    pub(crate) name: String,
    /// The API server, as the kubeconfig's cluster gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<String>,
    /// The ARC release the context's scale sets were judged under, and where it was read, as
    /// the one-context report's `arcVersion` and `arcVersionFrom`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) arc_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) arc_version_from: Option<String>,
    /// Scale sets only this context holds (not in the change given with `-f`): not judged.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) not_in_change: usize,
    pub(crate) counts: DiffCounts,
    /// The totals of the context's impacts, as the one-context report's `impact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) impact: Option<crate::core::impact::ImpactTotals>,
    /// Why nothing could be compared in it: its cluster could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<ContextError>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How a context's scale sets were judged.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffCounts {
    /// Scale sets judged (one item each).
    pub(crate) scale_sets: usize,
    /// Whose idle or pending runners the release recycles (`recycle: true`).
    pub(crate) recycle: usize,
    /// Without an EphemeralRunnerSet yet (`new: true`).
    pub(crate) new: usize,
    /// That could not be compared (`error`).
    pub(crate) errors: usize,
}
