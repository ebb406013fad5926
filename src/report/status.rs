//! `status`'s report (`-o json|yaml`): the rows, each a set's verdict from the core.

use serde::Serialize;

use crate::core::status::SetStatus;

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
