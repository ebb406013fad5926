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
