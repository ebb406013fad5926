//! `bump`'s report: what happened to each set, and the outcome it stands for.

use serde::Serialize;

use crate::core::go::params::DryRun;
use crate::report::Outcome;

/// What happened to one set in a `bump`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) enum BumpResult {
    /// Written and read back.
    Bumped,
    /// `--dry-run=client|server`: would be written.
    WouldBump,
    /// Refused before writing (Outdated phase, owner mismatch, invalid revision fields).
    Refused,
    /// Failed (conflict after every retry, not found, forbidden).
    Failed,
}

impl BumpResult {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BumpResult::Bumped => "Bumped",
            BumpResult::WouldBump => "WouldBump",
            BumpResult::Refused => "Refused",
            BumpResult::Failed => "Failed",
        }
    }
}

/// `bump`'s result for one set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BumpItem {
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// `spec.actionableRevision` before.
    pub(crate) spec_revision: Option<i64>,
    /// `status.appliedActionableRevision` before.
    pub(crate) applied_revision: Option<i64>,
    /// `spec.actionableRevision` written (or that would be).
    pub(crate) new_spec_revision: Option<i64>,
    pub(crate) result: BumpResult,
    /// The stable code of `message`: bump's rules ([`crate::core::bump::BumpReason`]:
    /// `InvalidRevision`, `OwnerMismatch`, `Outdated`, `LegacyAnnotation`), or what the cluster
    /// said of the set (`AlreadyBumped`, `SpecHash`, `NoEphemeralRunnerSet`, `NotFound`,
    /// `Conflict`, `OutcomeUnknown`, `WriteFailed`, `NotAttempted`, `Deleted`, `Internal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<&'static str>,
    /// Why (refused or failed), or a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// Write attempts (more than 1 after conflicts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) attempts: Option<u32>,
    /// With `--wait`: the applied revision reached the new one (ARC up to 0.14: the new set
    /// replaced this one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) acknowledged: Option<bool>,
    /// ARC up to 0.14: the `kubectl-arc/restarted-at` time written into the scale set's template.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) restarted_at: Option<String>,
    /// ARC up to 0.14: the AutoscalingRunnerSet whose template the bump changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scale_set: Option<String>,
    /// What the bump does to the set's running work (docs/diff.md, "Impact").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) impact: Option<crate::core::impact::Impact>,
}

/// `bump -o json|yaml`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BumpReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// `none`, `client` or `server`.
    pub(crate) dry_run: DryRun,
    /// Recorded on each set in annotation `kubectl-arc/bump-id`.
    pub(crate) bump_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    pub(crate) items: Vec<BumpItem>,
    /// Some set failed in a way the same request run again can finish (`--request-id`): a write,
    /// not a name that was not found nor a refusal. Said as a hint, not in the report.
    #[serde(skip)]
    pub(crate) resumable: bool,
    /// `--wait` gave up before ARC acknowledged every set. Said as an error, not in the report
    /// (each item's `acknowledged` is).
    #[serde(skip)]
    pub(crate) timed_out: Option<WaitTimeout>,
}

/// What `--wait` had not seen acknowledged when its timeout passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WaitTimeout {
    /// How many sets it waited for.
    pub(crate) waited_for: usize,
    /// The sets still waited for: namespace, name and the revision ARC has not acknowledged,
    /// `None` for a set of ARC up to 0.14 that ARC has not replaced yet (it has no revision).
    pub(crate) left: Vec<(String, String, Option<i64>)>,
}

impl BumpResult {
    /// A set refused or failed: the run's exit code is 2 (the others are still bumped).
    pub(crate) fn is_error(self) -> bool {
        matches!(self, BumpResult::Refused | BumpResult::Failed)
    }
}

impl BumpReport {
    /// The README's exit-code row for bump: 2 when a set was refused or failed, else 1 when
    /// `--wait` timed out, else 0 (every set bumped, or would be).
    pub(crate) fn outcome(&self) -> Outcome {
        let items = self.items.iter().map(|i| {
            if i.result.is_error() {
                Outcome::Failed
            } else {
                Outcome::Clean
            }
        });
        let wait = if self.timed_out.is_some() {
            Outcome::Drift
        } else {
            Outcome::Clean
        };
        items.chain([wait]).max().unwrap_or_default()
    }
}
