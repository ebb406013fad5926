//! Renderers for `migrate`: the `MigrateReport` (`-o json|yaml` and the rest through
//! [`super::emit`]), its kubectl-style table, the summary line, and the exit code it stands for.
//!
//! Reports in, text out, through the writer handed in.

use std::io::{self, Write};

use serde::Serialize;

use crate::cli::Outcome;
use crate::cluster::write::DryRun;
use crate::core::migrate::Verdict;

/// What happened to one set in a `migrate` (as bump's [`crate::render::bump::BumpResult`]).
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

/// The columns of migrate's table.
const MIGRATE_HEADER: [&str; 8] = [
    "NAMESPACE",
    "NAME",
    "DECISION",
    "SPEC",
    "NEW SPEC",
    "STALE",
    "RESULT",
    "REASON",
];

/// `migrate` as a table (nothing at all when there are no rows).
pub(crate) fn write_table(
    report: &MigrateReport,
    headers: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    if headers {
        t.set_header(MIGRATE_HEADER);
    }
    for r in &report.items {
        let decision = match r.decision {
            Some(Verdict::Pending) => "Pending",
            Some(Verdict::InSync) => "InSync",
            Some(Verdict::Unverifiable) => "Unverifiable",
            Some(Verdict::NoLegacyAnnotation) => "NoLegacyAnnotation",
            None => "-",
        };
        let reason = match &r.error {
            Some(e) => format!("error: {e}"),
            None => r.message.clone().unwrap_or_default(),
        };
        t.add_row([
            r.namespace.clone(),
            r.name.clone(),
            decision.to_string(),
            r.spec_revision.to_string(),
            r.new_spec_revision.to_string(),
            r.stale_runners.to_string(),
            r.result.as_str().to_string(),
            reason,
        ]);
    }
    if report.items.is_empty() {
        return Ok(());
    }
    // kubectl's layout: no borders, columns three spaces apart.
    for col in t.column_iter_mut() {
        col.set_padding((0, 3));
    }
    for line in t.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(decision: Option<Verdict>, result: MigrateResult) -> MigrateRow {
        MigrateRow {
            namespace: "arc".into(),
            name: "set".into(),
            decision,
            reason: None,
            message: None,
            spec_revision: 0,
            applied_revision: 0,
            new_spec_revision: 1,
            stale_runners: 0,
            stale_idle_or_pending_runners: 0,
            result,
            attempts: 1,
            error: (result == MigrateResult::Failed).then(|| "boom".into()),
        }
    }

    /// The README's exit-code table, migrate's column, row by row.
    #[test]
    fn outcome_is_the_readme_row_for_migrate() {
        let report = |rows, errors: &[&str]| {
            let errors = errors.iter().map(|e| e.to_string()).collect();
            MigrateReport::new(DryRun::None, rows, errors)
        };
        // 0: every set decided and written (or would be), or nothing to migrate.
        let written = vec![
            row(Some(Verdict::Pending), MigrateResult::Written),
            row(Some(Verdict::InSync), MigrateResult::WouldWrite),
            row(Some(Verdict::NoLegacyAnnotation), MigrateResult::Unchanged),
        ];
        assert_eq!(report(written.clone(), &[]).outcome(), Outcome::Clean);
        assert_eq!(report(vec![], &[]).outcome(), Outcome::Clean);
        // 2: a failed set (the others were processed), a name not found, an unreadable input.
        let mut failed = written;
        failed.push(row(None, MigrateResult::Failed));
        assert_eq!(report(failed, &[]).outcome().code(), 2);
        assert_eq!(
            report(vec![], &["x.yaml: no such file"]).outcome().code(),
            2
        );
    }

    #[test]
    fn the_summary_counts_decisions_and_results() {
        let r = MigrateReport::new(
            DryRun::Client,
            vec![
                row(Some(Verdict::Pending), MigrateResult::WouldWrite),
                row(Some(Verdict::Unverifiable), MigrateResult::Unchanged),
                row(None, MigrateResult::Failed),
            ],
            vec![],
        );
        assert_eq!(
            r.summary,
            Summary {
                sets: 3,
                pending: 1,
                unverifiable: 1,
                written: 1,
                failed: 1,
                ..Summary::default()
            }
        );
        assert_eq!(
            r.summary_line(),
            "3 EphemeralRunnerSets: 1 pending, 0 in sync, 1 unverifiable, 0 without the legacy annotation; 1 would be written, 1 failed"
        );
        let json = serde_json::to_value(&r).unwrap();
        assert!(json.get("inputErrors").is_none());
        assert_eq!(json["dryRun"], "client");
    }
}
