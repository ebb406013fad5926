//! `bump --contexts` and `migrate --contexts`: one table of every context's sets with a CONTEXT
//! column (a context with no sets to show, because it failed before any or was not reached, is a
//! row of its own whose RESULT says so), and the structured formats from the
//! [`crate::report::rollout::RolloutDocument`].
//!
//! Render layer: the report in, text out through the writer handed in.

use std::io::{self, Write};

use comfy_table::{Cell, Color};

use super::bump::{BUMP_HEADER, bump_cells};
use super::migrate::{MIGRATE_HEADER, migrate_cells};
use super::table::{kubectl_table, write_kubectl_table};
use crate::report::bump::BumpReport;
use crate::report::migrate::MigrateReport;
use crate::report::rollout::{ContextReport, Rollout, StageResult};

/// The one-context table of a command, as the rollout table reuses it.
pub(crate) trait RolloutTable: ContextReport {
    /// The one-context table's columns.
    fn header() -> &'static [&'static str];
    /// The column a context without sets says its result in.
    const RESULT_COLUMN: usize;
    /// One set's row.
    fn cells(item: &Self::Item, color: bool) -> Vec<Cell>;
}

impl RolloutTable for BumpReport {
    fn header() -> &'static [&'static str] {
        &BUMP_HEADER
    }
    const RESULT_COLUMN: usize = 5;
    fn cells(item: &Self::Item, color: bool) -> Vec<Cell> {
        bump_cells(item, color)
    }
}

impl RolloutTable for MigrateReport {
    fn header() -> &'static [&'static str] {
        &MIGRATE_HEADER
    }
    const RESULT_COLUMN: usize = 6;
    fn cells(item: &Self::Item, _color: bool) -> Vec<Cell> {
        migrate_cells(item).into_iter().map(Cell::new).collect()
    }
}

/// The rollout as one table: CONTEXT, then the command's own columns, contexts in the order they
/// were given. A context that failed before any set shows its failure's kind (`Unreachable`,
/// `Forbidden`...) as its RESULT; one the run did not reach, `NotReached`.
pub(crate) fn write_rollout_table<R: RolloutTable>(
    rollout: &Rollout<R>,
    color: bool,
    headers: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut table = kubectl_table(color);
    let columns = R::header().len() + 1;
    if headers {
        table.set_header(std::iter::once("CONTEXT").chain(R::header().iter().copied()));
    }
    for stage in &rollout.stages {
        if let Some(report) = &stage.report {
            for item in report.items() {
                let mut row = vec![Cell::new(&stage.context)];
                row.extend(R::cells(item, color));
                table.add_row(row);
            }
            continue;
        }
        let (said, hue) = match (&stage.error, stage.result) {
            (Some(e), _) => (e.kind.as_str(), Color::Red),
            (None, StageResult::NotReached) => ("NotReached", Color::Yellow),
            (None, other) => (other.as_str(), Color::Red),
        };
        let mut row: Vec<Cell> = (0..columns).map(|_| Cell::new("-")).collect();
        row[0] = Cell::new(&stage.context);
        let result = Cell::new(said);
        row[R::RESULT_COLUMN + 1] = if color { result.fg(hue) } else { result };
        table.add_row(row);
    }
    write_kubectl_table(table, out)
}
