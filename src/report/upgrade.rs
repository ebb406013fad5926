//! `upgrade-plan`'s report: the steps of an ARC upgrade in the order that loses no scale set, and
//! what the new controller does to each scale set (docs/upgrade-plan.md).

use serde::Serialize;

use crate::core::impact::{Impact, ImpactTotals};
use crate::core::status::install::MissingField;
use crate::core::upgrade::{OrderChoice, SetAction, Step, WrongOrder};
use crate::report::Outcome;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UpgradePlanReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// The release upgraded to (`--to`).
    pub(crate) to: String,
    /// The release the controller runs now, and where that was read (or why it was assumed).
    pub(crate) from: From,
    pub(crate) order: OrderChoice,
    pub(crate) steps: Vec<Step>,
    pub(crate) crds: CrdGaps,
    pub(crate) sets: Vec<SetPlan>,
    /// The impact of the plan's order over every scale set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) impact: Option<ImpactTotals>,
    /// What the plan takes as given and cannot see.
    pub(crate) assumptions: Vec<String>,
    /// Inputs that could not be read (also said on stderr).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) errors: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct From {
    /// `None`: not known (no controller Deployment, no label of a known release).
    pub(crate) release: Option<String>,
    pub(crate) from: String,
}

/// ARC's CRDs as installed against the new release.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CrdGaps {
    /// Each CRD read and the release it is of.
    pub(crate) installed: Vec<InstalledCrd>,
    /// Why they were not read (the dump holds none, the caller may not get them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) unread: Option<String>,
    /// Fields the new release writes that the installed CRDs do not declare: the API server
    /// prunes them until the CRDs are upgraded.
    pub(crate) missing: Vec<MissingField>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct InstalledCrd {
    pub(crate) name: String,
    pub(crate) release: &'static str,
}

/// One scale set under the plan.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetPlan {
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// Its `app.kubernetes.io/version` now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    /// What the new controller does to it in the plan's order.
    pub(crate) action: SetAction,
    /// Why, naming the rule and the Go that applies it.
    pub(crate) reason: String,
    /// The newest EphemeralRunnerSet it reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) set: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) impact: Option<Impact>,
    /// `LeftBehind`: the 0.14 set left running beside the new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) left_behind: Option<String>,
    /// What the steps in another order would do to it.
    #[serde(skip_serializing_if = "WrongOrder::is_empty")]
    pub(crate) wrong_order: WrongOrder,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

impl UpgradePlanReport {
    /// `diff`'s rule: 2 when anything could not be read or judged, 1 when some scale set is
    /// replaced, deleted or its running work hit (a listener made again pauses job pickup), else 0.
    pub(crate) fn outcome(&self) -> Outcome {
        let failed = !self.errors.is_empty() || self.sets.iter().any(|s| s.error.is_some());
        let lost = self.sets.iter().any(|s| s.action != SetAction::Kept);
        if failed {
            Outcome::Failed
        } else if lost {
            Outcome::Drift
        } else {
            Outcome::Clean
        }
    }
}

/// `upgrade-plan --contexts`: one plan per context.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UpgradePlanList {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) to: String,
    pub(crate) contexts: Vec<ContextPlan>,
}

/// One context's plan, or why there is none.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextPlan {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plan: Option<UpgradePlanReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<crate::report::fleet::ContextError>,
}

impl UpgradePlanList {
    /// The fleet's rule: any context that failed is 2, else the worst of the plans'.
    pub(crate) fn outcome(&self) -> Outcome {
        (self.contexts.iter())
            .map(|c| {
                c.plan
                    .as_ref()
                    .map_or(Outcome::Failed, UpgradePlanReport::outcome)
            })
            .max()
            .unwrap_or_default()
    }
}
