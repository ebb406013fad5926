//! `repair`'s report: per EphemeralRunnerSet, each repair with its evidence, the write and its
//! result (docs/repair.md).

use serde::Serialize;

use crate::core::go::params::DryRun;
use crate::core::repair::CronJobBesides;
use crate::report::Outcome;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RepairReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    /// The request id every object written carries in `kubectl-arc/repair-id` (`--request-id`,
    /// else a new one).
    pub(crate) request_id: String,
    pub(crate) dry_run: DryRun,
    pub(crate) items: Vec<SetRepairs>,
}

/// The repairs of one EphemeralRunnerSet (or of an AutoscalingRunnerSet without one).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetRepairs {
    pub(crate) namespace: String,
    /// The EphemeralRunnerSet (the AutoscalingRunnerSet's name when it has none).
    pub(crate) name: String,
    /// Its scale set (`actions.github.com/scale-set-name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scale_set: Option<String>,
    pub(crate) repairs: Vec<Repair>,
    /// What a cleanup CronJob's selector would delete besides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cron_job_would_also_delete: Option<CronJobBesides>,
}

/// One repair of one object.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Repair {
    /// The `status` reason it fixes.
    pub(crate) repair: &'static str,
    pub(crate) action: &'static str,
    pub(crate) object: ObjectRef,
    /// What was read that makes it safe, or not.
    pub(crate) evidence: String,
    /// The write, as sent (or as it would be): the request and its guard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) write: Option<String>,
    pub(crate) result: RepairResult,
    /// Why it was refused, or how it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) why: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ObjectRef {
    pub(crate) kind: &'static str,
    pub(crate) namespace: String,
    pub(crate) name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum RepairResult {
    /// `--dry-run=client`: decided, nothing sent. `--dry-run=server`: the API server accepted it
    /// and persisted nothing.
    WouldWrite,
    Written,
    /// Not provably safe (or the object changed since it was read: the precondition refused it).
    Refused,
    Failed,
}

impl RepairReport {
    /// 2 when a write failed, else 0 (a refusal is the command doing its job).
    pub(crate) fn outcome(&self) -> Outcome {
        let failed = (self.items.iter())
            .flat_map(|i| &i.repairs)
            .any(|r| r.result == RepairResult::Failed);
        if failed {
            Outcome::Failed
        } else {
            Outcome::Clean
        }
    }
}
