//! `status`'s report (`-o json|yaml`): the rows, each a set's verdict from the core.

use serde::Serialize;

use crate::core::status::install::{ControllerFacts, CrdFacts};
use crate::core::status::{ListenerView, SetStatus};

/// `status -o json|yaml`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StatusReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) items: Vec<SetStatus>,
}

impl StatusReport {
    pub(crate) fn new(items: Vec<SetStatus>) -> StatusReport {
        StatusReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "StatusReport",
            items,
        }
    }
}

/// `status NAME`: what surrounds one named set, as `kubectl describe` shows an object with what
/// it refers to: its scale set, the older sets, the listener and its Pod, the controller.
#[derive(Debug, Clone)]
pub(crate) struct Chain {
    /// The set's namespace and name (its row's).
    pub(crate) set: (String, String),
    /// The AutoscalingRunnerSet that owns the set, when in view.
    pub(crate) scale_set: Option<ScaleSetLine>,
    /// The scale set's other sets (older ones, which ARC deletes), newest first.
    pub(crate) older: Vec<String>,
    /// The scale set's listener and its Pod, as far as read.
    pub(crate) listener: ListenerView,
    /// ARC's controller Deployments with replicas (`None`: not read).
    pub(crate) controllers: Option<Vec<ControllerFacts>>,
    /// ARC's CRDs as installed (empty when not read).
    pub(crate) crds: Vec<CrdFacts>,
}

/// The scale set of a [`Chain`].
#[derive(Debug, Clone)]
pub(crate) struct ScaleSetLine {
    /// `namespace/name`.
    pub(crate) name: String,
    /// The `runner-scale-set-id` annotation.
    pub(crate) id: Option<String>,
    /// `status.phase`.
    pub(crate) phase: Option<String>,
    /// Past its `metadata.deletionTimestamp`.
    pub(crate) deleting: bool,
}
