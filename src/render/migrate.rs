//! Renderers for `migrate`: the `MigrateReport` (`-o json|yaml` and the rest through
//! [`super::emit`]), its kubectl-style table and the summary line.
//!
//! Reports in, text out, through the writer handed in.

use std::io::{self, Write};

use crate::core::migrate::Verdict;
use crate::report::migrate::{MigrateReport, MigrateRow};

/// The columns of migrate's table.
pub(super) const MIGRATE_HEADER: [&str; 8] = [
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
        t.add_row(migrate_cells(r));
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

/// One set's row of migrate's table.
pub(super) fn migrate_cells(r: &MigrateRow) -> [String; 8] {
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
    // A set of ARC up to 0.14 has no revision: `-`, as for a value that does not apply.
    let revision = |v: i64| {
        if r.runner_spec_hash_era {
            "-".to_string()
        } else {
            v.to_string()
        }
    };
    [
        r.namespace.clone(),
        r.name.clone(),
        decision.to_string(),
        revision(r.spec_revision),
        revision(r.new_spec_revision),
        r.stale_runners.to_string(),
        r.result.as_str().to_string(),
        reason,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::go::params::DryRun;
    use crate::report::Outcome;
    use crate::report::migrate::Summary;
    use crate::report::migrate::{MigrateResult, MigrateRow};

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
            runner_spec_hash_era: false,
        }
    }

    /// Issue 30: a set of ARC up to 0.14 has no revision: its SPEC and NEW SPEC are `-`, not 0.
    #[test]
    fn a_runner_spec_hash_set_shows_no_revision() {
        let mut r = row(Some(Verdict::NoLegacyAnnotation), MigrateResult::Unchanged);
        r.new_spec_revision = 0;
        assert_eq!(migrate_cells(&r)[3..5], ["0", "0"]);
        r.runner_spec_hash_era = true;
        assert_eq!(migrate_cells(&r)[3..5], ["-", "-"]);
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
