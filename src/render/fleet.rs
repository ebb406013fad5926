//! `status --contexts`: one table of every context's rows with a CONTEXT column, a context that
//! failed as a row of its own; `-o name` as `context/namespace/name`; the structured formats from
//! the [`FleetReport`].
//!
//! Render layer: the report in, text out through the shell's writer.

use std::io::{self, Write};

use anyhow::Result;
use comfy_table::{Cell, Color, ContentArrangement, Table};
use owo_colors::OwoColorize as _;

use crate::render::diff::{TextOptions, write_items};
use crate::render::emit::{self, Output};
use crate::render::follow::{RESOURCE, ShowOptions};
use crate::render::status::{TableOptions, cells, header, write_lines, write_reasons_in};
use crate::report::fleet::{ContextSummary, FleetDiffReport, FleetItem, FleetReport};
use crate::shell::Shell;

/// The fleet report in the chosen format, then the notes; errors and warnings are the caller's
/// (they go to stderr after the table).
pub(crate) fn write_fleet_status(
    show: &ShowOptions,
    report: &FleetReport,
    shell: &mut Shell<'_>,
) -> Result<()> {
    let mut out = io::BufWriter::with_capacity(64 * 1024, shell.out());
    match &show.output {
        Output::Default | Output::Wide => {
            if report.items.is_empty() && report.contexts.iter().all(|c| c.error.is_none()) {
                drop(out);
                shell.status("No EphemeralRunnerSets found in any context.")?;
                return Ok(());
            }
            let opts = TableOptions {
                namespace_column: true,
                ..show.table
            };
            write_table(report, opts, &mut out)?;
            if show.explain && show.output == Output::Default {
                for c in &report.contexts {
                    let rows: Vec<_> = items_of(report, c).map(|i| i.row.clone()).collect();
                    write_reasons_in(&rows, &c.chains, Some(&c.name), opts.color, &mut out)?;
                }
            }
        }
        Output::Name => {
            for i in &report.items {
                writeln!(out, "{}/{}/{}", i.context, i.row.namespace, i.row.name)?;
            }
        }
        other => {
            emit::structured(report, other, RESOURCE, show.no_headers, &mut out)?;
        }
    }
    out.flush()?;
    drop(out);
    if show.output.is_human() {
        for n in &report.notes {
            shell.note(&n.message)?;
        }
    }
    Ok(())
}

/// The items of one context (they are in the contexts' order).
fn items_of<'a>(
    report: &'a FleetReport,
    context: &'a ContextSummary,
) -> impl Iterator<Item = &'a FleetItem> {
    report
        .items
        .iter()
        .filter(move |i| i.context == context.name)
}

/// The table: a CONTEXT column before the one-context table's, rows in the contexts' order, a
/// context that failed as one row whose STATE says how (and, with `-o wide`, REASONS why).
fn write_table(report: &FleetReport, opts: TableOptions, out: &mut dyn Write) -> io::Result<()> {
    let mut head = vec!["CONTEXT"];
    head.extend(header(opts));
    let state_column = head.iter().position(|h| *h == "STATE").unwrap_or(0);
    let mut body: Vec<Vec<(String, Option<Color>)>> = Vec::new();
    for c in &report.contexts {
        if let Some(e) = &c.error {
            let mut row: Vec<(String, Option<Color>)> =
                head.iter().map(|_| ("-".to_string(), None)).collect();
            row[0] = (c.name.clone(), None);
            row[state_column] = (e.kind.as_str().to_string(), Some(Color::Red));
            if opts.wide {
                let last = row.len() - 1;
                row[last] = (e.message.clone(), None);
            }
            body.push(row);
            continue;
        }
        for i in items_of(report, c) {
            let mut row = vec![(c.name.clone(), None)];
            row.extend(cells(&i.row, opts));
            body.push(row);
        }
    }
    let mut table = Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if opts.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    if !opts.no_headers {
        table.set_header(head.iter().map(Cell::new));
    }
    for row in body {
        table.add_row(row.into_iter().map(|(text, color)| match color {
            Some(c) if opts.color => Cell::new(text).fg(c),
            _ => Cell::new(text),
        }));
    }
    let last = head.len() - 1;
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 3 }));
    }
    write_lines(&table.to_string(), out)
}

/// `diff --contexts`: in text, each context's part of the report after a `# context NAME` line
/// (a failed context: `# context NAME: KIND`, its error on stderr; none found:
/// `# context NAME: no AutoscalingRunnerSets`), a blank line between contexts; `-o name` as
/// `context/namespace/name`; the structured formats from the [`FleetDiffReport`].
pub(crate) fn write_fleet_diff(
    report: &FleetDiffReport,
    output: &Output,
    text: TextOptions,
    no_headers: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(64 * 1024, out);
    match output {
        Output::Default => {
            for (i, c) in report.contexts.iter().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                let items: Vec<_> = (report.items.iter())
                    .filter(|i| i.context == c.name)
                    .map(|i| &i.item)
                    .collect();
                let head = match &c.error {
                    Some(e) => format!("# context {}: {}", c.name, e.kind.as_str()),
                    None if items.is_empty() => {
                        format!("# context {}: no AutoscalingRunnerSets", c.name)
                    }
                    None => format!("# context {}", c.name),
                };
                if text.color {
                    writeln!(out, "{}", head.bold())?;
                } else {
                    writeln!(out, "{head}")?;
                }
                if c.error.is_none() {
                    let release = c.arc_version.as_deref().zip(c.arc_version_from.as_deref());
                    write_items(items.into_iter(), release, text, &mut out)?;
                }
            }
        }
        Output::Name => {
            for i in &report.items {
                writeln!(out, "{}/{}/{}", i.context, i.item.namespace, i.item.name)?;
            }
        }
        other => {
            let resource = "autoscalingrunnerset.actions.github.com";
            emit::structured(report, other, resource, no_headers, &mut out)?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::runners::RunnerCounts;
    use crate::core::status::{SetStatus, State};
    use crate::report::fleet::{ContextError, Counts, FailureKind};

    fn row(ns: &str, name: &str, state: State) -> SetStatus {
        SetStatus {
            namespace: ns.into(),
            name: name.into(),
            spec_revision: Some(2),
            applied_revision: Some(2),
            state,
            runners: RunnerCounts::default(),
            reasons: Vec::new(),
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: Some(3600),
            ids: Default::default(),
        }
    }

    fn context(name: &str, error: Option<FailureKind>) -> ContextSummary {
        ContextSummary {
            name: name.into(),
            server: None,
            arc_versions: Vec::new(),
            listener_images: Vec::new(),
            counts: Counts::default(),
            error: error.map(|kind| ContextError {
                kind,
                message: "no answer".into(),
            }),
            errors: Vec::new(),
            warnings: Vec::new(),
            chains: Vec::new(),
        }
    }

    fn report() -> FleetReport {
        FleetReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "StatusReport",
            items: vec![
                FleetItem {
                    context: "east".into(),
                    row: row("arc", "set-a", State::Synced),
                },
                FleetItem {
                    context: "west-long-name".into(),
                    row: row("arc-runners", "b", State::Pending),
                },
            ],
            contexts: vec![
                context("east", None),
                context("dead", Some(FailureKind::Unreachable)),
                context("west-long-name", None),
            ],
            notes: Vec::new(),
        }
    }

    fn table(opts: TableOptions) -> String {
        let mut out = Vec::new();
        write_table(&report(), opts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_table_in_the_contexts_order_with_failed_contexts_as_rows() {
        let opts = TableOptions {
            namespace_column: true,
            ..TableOptions::default()
        };
        assert_eq!(
            table(opts),
            "CONTEXT          NAMESPACE     NAME    SPEC   APPLIED   STATE         IDLE   BUSY   PENDING   FAILED   STALE   AGE\n\
             east             arc           set-a   2      2         Synced        0      0      0         0        0       60m\n\
             dead             -             -       -      -         Unreachable   -      -      -         -        -       -\n\
             west-long-name   arc-runners   b       2      2         Pending       0      0      0         0        0       60m\n"
        );
        let wide = table(TableOptions {
            wide: true,
            no_headers: true,
            ..opts
        });
        let dead = wide.lines().nth(1).unwrap();
        let cells: Vec<&str> = dead.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "dead",
                "-",
                "-",
                "-",
                "-",
                "Unreachable",
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
                "no",
                "answer"
            ],
            "{wide}"
        );
    }
}
