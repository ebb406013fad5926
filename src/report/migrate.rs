//! `migrate`'s report: a row per set, the summary, and the outcome it stands for.

use serde::Serialize;

use crate::core::go::params::DryRun;
use crate::core::migrate::Verdict;
use crate::report::Outcome;

/// What happened to one set in a `migrate` (as bump's [`crate::report::bump::BumpResult`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum MigrateResult {
    /// Written and read back.
    Written,
    /// `--dry-run`: would be written.
    WouldWrite,
    /// Nothing to write.
    Unchanged,
    /// Not written: an error, a refusal, or a set that was not found.
    Failed,
}

impl MigrateResult {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            MigrateResult::Written => "Written",
            MigrateResult::WouldWrite => "WouldWrite",
            MigrateResult::Unchanged => "Unchanged",
            MigrateResult::Failed => "Failed",
        }
    }
}

/// One row of the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MigrateRow {
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// `Pending`, `InSync`, `Unverifiable`, `NoLegacyAnnotation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<Verdict>,
    /// Which signal decided, as a stable code ([`crate::core::migrate::MigrateReason`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<&'static str>,
    /// The same, in English.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// `spec.actionableRevision` and `status.appliedActionableRevision` as read.
    pub(crate) spec_revision: i64,
    pub(crate) applied_revision: i64,
    /// The revision written (or that would be): the same as `specRevision` when nothing is.
    pub(crate) new_spec_revision: i64,
    pub(crate) stale_runners: usize,
    pub(crate) stale_idle_or_pending_runners: usize,
    pub(crate) result: MigrateResult,
    /// Write attempts (more than one: the set changed concurrently and was decided again).
    pub(crate) attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// A set of ARC up to 0.14 (its `actions.github.com/runner-spec-hash`): it has no revisions,
    /// so the table shows none (`-`), not a revision 0.
    #[serde(skip)]
    pub(crate) runner_spec_hash_era: bool,
}

/// `migrate -o json|yaml`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MigrateReport {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) dry_run: DryRun,
    pub(crate) items: Vec<MigrateRow>,
    pub(crate) summary: Summary,
    /// Inputs (`-f`) that could not be read; the sets of the others are still decided. Said as
    /// errors, not in the report.
    #[serde(skip)]
    pub(crate) input_errors: Vec<String>,
}

/// The counts under the rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Summary {
    pub(crate) sets: usize,
    pub(crate) pending: usize,
    pub(crate) in_sync: usize,
    pub(crate) unverifiable: usize,
    pub(crate) no_legacy_annotation: usize,
    pub(crate) written: usize,
    pub(crate) failed: usize,
}

impl MigrateReport {
    /// The report of these rows, counted.
    pub(crate) fn new(dry_run: DryRun, items: Vec<MigrateRow>, input_errors: Vec<String>) -> Self {
        MigrateReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "MigrateReport",
            dry_run,
            summary: summarize(&items),
            items,
            input_errors,
        }
    }

    /// The README's exit-code row for migrate: 2 when a set failed (the others were still
    /// processed, a name asked for and not found among them) or an input could not be read, else
    /// 0. Never 1: migrate has nothing to wait for.
    pub(crate) fn outcome(&self) -> Outcome {
        if !self.input_errors.is_empty() || self.summary.failed > 0 {
            Outcome::Failed
        } else {
            Outcome::Clean
        }
    }

    /// The summary line said after the table.
    pub(crate) fn summary_line(&self) -> String {
        let s = &self.summary;
        format!(
            "{} EphemeralRunnerSets: {} pending, {} in sync, {} unverifiable, {} without the legacy annotation; {} {}, {} failed",
            s.sets,
            s.pending,
            s.in_sync,
            s.unverifiable,
            s.no_legacy_annotation,
            s.written,
            if self.dry_run == DryRun::None {
                "written"
            } else {
                "would be written"
            },
            s.failed
        )
    }
}

fn summarize(rows: &[MigrateRow]) -> Summary {
    let mut s = Summary {
        sets: rows.len(),
        ..Default::default()
    };
    for r in rows {
        match r.decision {
            Some(Verdict::Pending) => s.pending += 1,
            Some(Verdict::InSync) => s.in_sync += 1,
            Some(Verdict::Unverifiable) => s.unverifiable += 1,
            Some(Verdict::NoLegacyAnnotation) => s.no_legacy_annotation += 1,
            None => {}
        }
        match r.result {
            MigrateResult::Written | MigrateResult::WouldWrite => s.written += 1,
            MigrateResult::Failed => s.failed += 1,
            MigrateResult::Unchanged => {}
        }
    }
    s
}
