//! Renderers for `bump`: the `BumpReport` (`-o json|yaml` and the rest through
//! [`super::emit`]) and its kubectl-style table.
//!
//! Reports in, text out, through the writer handed in. Colour only when asked (the command decides
//! from `--color` and NO_COLOR).

use std::io::{self, Write};

use comfy_table::{Cell, Color};

use super::status::revision;
use super::table::{kubectl_table, write_kubectl_table};
use crate::report::bump::{BumpItem, BumpReport, BumpResult};

/// `bump` as a table.
pub(crate) fn write_bump_table(
    report: &BumpReport,
    color: bool,
    headers: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut table = kubectl_table(color);
    if headers {
        table.set_header(BUMP_HEADER.into_iter().map(Cell::new));
    }
    for item in &report.items {
        table.add_row(bump_cells(item, color));
    }
    write_kubectl_table(table, out)
}

/// The columns of bump's table.
pub(super) const BUMP_HEADER: [&str; 6] =
    ["NAMESPACE", "NAME", "SPEC", "APPLIED", "NEW SPEC", "RESULT"];

/// One set's row of bump's table.
pub(super) fn bump_cells(item: &BumpItem, color: bool) -> Vec<Cell> {
    let result = Cell::new(item.result.as_str());
    let result = match (color, item.result) {
        (true, BumpResult::Bumped | BumpResult::WouldBump) => result.fg(Color::Green),
        (true, _) => result.fg(Color::Red),
        _ => result,
    };
    vec![
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
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::go::params::DryRun;
    use crate::report::Outcome;
    use crate::report::bump::{BumpItem, WaitTimeout};

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
            impact: None,
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
                left: vec![("arc".into(), "a".into(), Some(2))],
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
