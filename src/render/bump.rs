//! Renderers for `bump`: the `BumpReport` (`-o json|yaml` and the rest through
//! [`super::emit`]), its kubectl-style table, and the exit code it stands for.
//!
//! Reports in, text out, through the writer handed in. Colour only when asked (the command decides
//! from `--color` and NO_COLOR).

use std::io::{self, Write};

use comfy_table::{Cell, Color, ContentArrangement, Table};
use serde::Serialize;

use super::status::{revision, write_lines};
use crate::cli::Outcome;
use crate::cluster::write::DryRun;

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
    fn as_str(self) -> &'static str {
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
    /// The stable code of `message`: bump's rules ([`crate::core::status::BumpReason`]:
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
    /// The sets still waited for: namespace, name and the revision ARC has not acknowledged.
    pub(crate) left: Vec<(String, String, i64)>,
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

/// `bump` as a table.
pub(crate) fn write_bump_table(
    report: &BumpReport,
    color: bool,
    headers: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut table = Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    if headers {
        table.set_header(
            ["NAMESPACE", "NAME", "SPEC", "APPLIED", "NEW SPEC", "RESULT"]
                .into_iter()
                .map(Cell::new),
        );
    }
    for item in &report.items {
        let result = Cell::new(item.result.as_str());
        let result = match (color, item.result) {
            (true, BumpResult::Bumped | BumpResult::WouldBump) => result.fg(Color::Green),
            (true, _) => result.fg(Color::Red),
            _ => result,
        };
        table.add_row(vec![
            Cell::new(&item.namespace),
            Cell::new(&item.name),
            Cell::new(revision(item.spec_revision)),
            Cell::new(revision(item.applied_revision)),
            Cell::new(
                item.new_spec_revision
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "-".into()),
            ),
            result,
        ]);
    }
    let last = table.column_count().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 3 }));
    }
    write_lines(&table.to_string(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, result: BumpResult) -> BumpItem {
        BumpItem {
            namespace: "arc".into(),
            name: name.into(),
            spec_revision: Some(1),
            applied_revision: Some(1),
            new_spec_revision: Some(2),
            result,
            reason: None,
            message: None,
            attempts: Some(1),
            acknowledged: None,
            restarted_at: None,
            scale_set: None,
        }
    }

    fn report(items: Vec<BumpItem>, timed_out: bool) -> BumpReport {
        BumpReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "BumpReport",
            dry_run: DryRun::None,
            bump_id: "0123456789abcdef".into(),
            reason: None,
            items,
            resumable: false,
            timed_out: timed_out.then(|| WaitTimeout {
                waited_for: 1,
                left: vec![("arc".into(), "a".into(), 2)],
            }),
        }
    }

    /// The README's exit-code table, bump's column, row by row.
    #[test]
    fn outcome_is_the_readme_row_for_bump() {
        use BumpResult::*;
        // 0: every set bumped (or would be), nothing at all to bump, every one acknowledged.
        for items in [
            vec![item("a", Bumped), item("b", WouldBump)],
            vec![],
            vec![item("a", WouldBump)],
        ] {
            assert_eq!(report(items, false).outcome(), Outcome::Clean);
        }
        // 1: --wait timed out.
        assert_eq!(
            report(vec![item("a", Bumped)], true).outcome(),
            Outcome::Drift
        );
        // 2: a refused or failed set, the others still bumped; worse than a timeout.
        for result in [Refused, Failed] {
            let items = vec![item("a", Bumped), item("b", result)];
            assert_eq!(report(items.clone(), false).outcome(), Outcome::Failed);
            assert_eq!(report(items, true).outcome(), Outcome::Failed);
        }
        assert_eq!(report(vec![], false).outcome().code(), 0);
        assert_eq!(report(vec![item("a", Bumped)], true).outcome().code(), 1);
        assert_eq!(report(vec![item("a", Failed)], false).outcome().code(), 2);
    }

    #[test]
    fn what_the_report_leaves_to_the_messages_is_not_serialized() {
        let mut r = report(vec![item("a", BumpResult::Bumped)], true);
        r.resumable = true;
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["dryRun"], "none");
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["apiVersion", "kind", "dryRun", "bumpId", "items"]);
    }
}
