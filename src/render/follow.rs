//! What `status --watch` and `status --wait` print as the census changes: `--watch` a row again
//! when what it shows changes (a deleted set's last row as Deleted), `--wait` one updating line of
//! counts on a terminal or a line per real change in a log, then the table and the verdict. The
//! operation decides which rows changed and when waiting ends ([`crate::ops::status::follow`]); the
//! [`Printer`] only prints.

use std::cell::RefCell;
use std::io::Write;
use std::time::Duration;

use anyhow::Result;

use crate::core::status::{SetStatus, State};
use crate::ops::status::follow::{Ending, FollowSink};
use crate::render::emit::{self, Output};
use crate::render::status::{
    StatusReport, TableOptions, Widths, visible, write_json_line, write_reasons, write_rows,
    write_rows_in, write_table, write_yaml_document,
};
use crate::report::fleet::FleetItem;
use crate::report::name_a_few;
use crate::report::status::Chain;
use crate::shell::Shell;

/// What `-o name` calls a set.
pub(crate) const RESOURCE: &str = "ephemeralrunnerset.actions.github.com";

/// How status shows its rows.
pub(crate) struct ShowOptions {
    pub(crate) output: Output,
    pub(crate) table: TableOptions,
    pub(crate) no_headers: bool,
    /// `status NAME`: the reasons under the table.
    pub(crate) explain: bool,
    /// `--wait` (else `--watch`, or one listing).
    pub(crate) wait: bool,
}

/// The rows in the chosen format: a table (with the reasons under it for `status NAME`), or a
/// `StatusReport`.
pub(crate) fn write_status(
    show: &ShowOptions,
    rows: Vec<SetStatus>,
    chains: &[Chain],
    shell: &mut Shell<'_>,
) -> Result<()> {
    let (args, opts) = (show, show.table);
    if rows.is_empty() && matches!(args.output, Output::Default | Output::Wide) {
        shell.status("No EphemeralRunnerSets found.")?;
        return Ok(());
    }
    // Thousands of rows: one buffered stream, not a write per line.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, shell.out());
    match args.output {
        Output::Default | Output::Wide => {
            write_table(&rows, opts, &mut out)?;
            if show.explain && args.output == Output::Default {
                write_reasons(&rows, chains, opts.color, &mut out)?;
            }
        }
        Output::Name => {
            for r in &rows {
                writeln!(out, "{}/{}", resource_of(r), r.name)?;
            }
        }
        _ => {
            emit::structured(
                &StatusReport::new(rows),
                &args.output,
                RESOURCE,
                args.no_headers,
                &mut out,
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The `<resource>.<group>` of a row in `-o name`: an EphemeralRunnerSet's, or the
/// AutoscalingRunnerSet's of a scale set without a set (Registering, Creating).
pub(crate) fn resource_of(row: &SetStatus) -> &'static str {
    if row.ids.kind == crate::core::arc::KIND_AUTOSCALING_RUNNER_SET {
        "autoscalingrunnerset.actions.github.com"
    } else {
        RESOURCE
    }
}

/// How `--watch` and `--wait` show what the operation ([`crate::ops::status::follow::Follow`]) hands
/// them: the rows in the output's format, progress lines, the final table and message.
pub(crate) struct Printer<'a> {
    show: &'a ShowOptions,
    widths: Widths,
    /// `status --contexts --watch/--wait`: the context this printer's rows are from, and what
    /// every context's printer shares.
    fleet: Option<(String, &'a RefCell<FleetShown>)>,
}

/// What the printers of a fleet run's contexts share: one table's column widths, and the rows
/// each context's `--wait` ended with (shown together once every context is done).
#[derive(Default)]
pub(crate) struct FleetShown {
    widths: Widths,
    pub(crate) ended: Vec<(String, Vec<SetStatus>)>,
}

impl<'a> Printer<'a> {
    pub(crate) fn new(show: &'a ShowOptions) -> Printer<'a> {
        Printer {
            show,
            widths: Widths::default(),
            fleet: None,
        }
    }

    /// The printer of `context`'s rows in a fleet run: a CONTEXT column first in the table
    /// (one table for every context), `context` in each JSON or YAML row, `-o name` as
    /// `context/namespace/name`; `--wait`'s last rows kept in `shared` for one table at the end.
    pub(crate) fn in_context(
        show: &'a ShowOptions,
        context: &str,
        shared: &'a RefCell<FleetShown>,
    ) -> Printer<'a> {
        Printer {
            show,
            widths: Widths::default(),
            fleet: Some((context.to_string(), shared)),
        }
    }

    /// Rows of one context of a fleet run.
    fn print_in(
        &self,
        context: &str,
        shared: &RefCell<FleetShown>,
        rows: &[SetStatus],
        out: &mut dyn Write,
    ) -> Result<()> {
        let item = |r: &SetStatus| FleetItem {
            context: context.to_string(),
            row: r.clone(),
        };
        match &self.show.output {
            Output::Default | Output::Wide => {
                let widths = &mut shared.borrow_mut().widths;
                write_rows_in(rows, Some(context), self.show.table, widths, out)?
            }
            Output::Json => {
                for r in rows {
                    serde_json::to_writer(&mut *out, &item(r))?;
                    writeln!(out)?;
                }
            }
            Output::Yaml => {
                for r in rows {
                    let text = emit::to_yaml(&item(r)).map_err(std::io::Error::other)?;
                    write!(out, "---\n{text}")?;
                }
            }
            Output::Name => {
                for r in rows {
                    writeln!(out, "{context}/{}/{}", r.namespace, r.name)?;
                }
            }
            other => {
                for r in rows {
                    emit::structured(&item(r), other, RESOURCE, true, out)?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    /// Rows printed under the first ones, in the output's format.
    fn print(&mut self, rows: &[SetStatus], out: &mut dyn Write) -> Result<()> {
        if let Some((context, shared)) = &self.fleet {
            return self.print_in(context, shared, rows, out);
        }
        match &self.show.output {
            Output::Default | Output::Wide => {
                write_rows(rows, self.show.table, &mut self.widths, out)?
            }
            Output::Json => rows.iter().try_for_each(|r| write_json_line(r, out))?,
            Output::Yaml => rows.iter().try_for_each(|r| write_yaml_document(r, out))?,
            Output::Name => {
                for r in rows {
                    writeln!(out, "{}/{}", resource_of(r), r.name)?;
                }
            }
            // One line per row, as the other formats print an item.
            other => {
                for r in rows {
                    emit::structured(r, other, RESOURCE, true, out)?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }
}

impl FollowSink for Printer<'_> {
    fn listed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()> {
        if rows.is_empty() && self.show.output.is_human() {
            shell.status("No EphemeralRunnerSets found; watching.")?;
            return Ok(());
        }
        self.print(rows, shell.out())
    }

    fn changed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()> {
        self.print(rows, shell.out())
    }

    fn differs(&self, before: &SetStatus, after: &SetStatus) -> bool {
        if self.show.wait {
            progress_line(before) != progress_line(after)
        } else if self.show.output.is_human() {
            visible(before, self.show.table) != visible(after, self.show.table)
        } else {
            !same_row(before, after)
        }
    }

    /// In a log, a line per set and change; on a terminal the one line of [`Self::waiting`].
    fn progress(&mut self, row: &SetStatus, shell: &mut Shell<'_>) -> Result<()> {
        if !shell.shows_progress() {
            shell.status(progress_line(row))?;
        }
        Ok(())
    }

    /// On a terminal, while it goes on, one line counts what is left.
    fn waiting(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()> {
        shell.progress(wait_summary(rows))?;
        Ok(())
    }

    fn end(&mut self, rows: Vec<SetStatus>, why: &Ending, shell: &mut Shell<'_>) -> Result<()> {
        shell.clear_progress();
        match &self.fleet {
            Some((context, shared)) => shared.borrow_mut().ended.push((context.clone(), rows)),
            None => write_status(self.show, rows, &[], shell)?,
        }
        match why {
            Ending::Settled => {}
            Ending::Stuck(message) => shell.error(message)?,
            Ending::TimedOut {
                after,
                waiting,
                total,
            } => {
                shell.error(format_args!(
                    "timed out after {} waiting for every EphemeralRunnerSet to be Synced: {} of {} not Synced yet: {}",
                    format_duration(*after),
                    waiting.len(),
                    total,
                    name_a_few(waiting, 3)
                ))?
            }
        }
        Ok(())
    }
}

/// Whether two rows print the same (AGE aside).
fn same_row(a: &SetStatus, b: &SetStatus) -> bool {
    a.spec_revision == b.spec_revision
        && a.applied_revision == b.applied_revision
        && a.state == b.state
        && a.runners == b.runners
        && a.reasons == b.reasons
        && a.phase == b.phase
}

/// `--wait`'s one line on a terminal: how many sets settled, how many acknowledged their revision,
/// and the stale runners ARC has yet to replace.
fn wait_summary(rows: &[SetStatus]) -> String {
    let total = rows.len();
    let settled = rows.iter().filter(|r| r.settled()).count();
    let acknowledged = rows
        .iter()
        .filter(|r| matches!((r.spec_revision, r.applied_revision), (Some(s), Some(a)) if a >= s))
        .count();
    let stale: usize = rows.iter().map(|r| r.runners.stale).sum();
    // What is left comes first, in words: "1/1 revisions acknowledged" at a timeout read as done.
    format!(
        "Waiting for ARC: {} of {total} {} not Synced yet ({acknowledged} of {total} revisions acknowledged), {stale} stale {} left",
        total - settled,
        if total == 1 {
            "EphemeralRunnerSet"
        } else {
            "EphemeralRunnerSets"
        },
        if stale == 1 { "runner" } else { "runners" }
    )
}

/// The line a set prints in a log while `--wait` goes on: printed again only when it changes. A
/// set without revisions (ARC up to 0.14 replaces its sets instead) says none.
fn progress_line(row: &SetStatus) -> String {
    let revisions = match (row.spec_revision, row.applied_revision) {
        (None, None) => String::new(),
        (spec, applied) => format!(
            " (spec revision {}, applied {})",
            spec.map_or_else(|| "?".into(), |v| v.to_string()),
            applied.map_or_else(|| "?".into(), |v| v.to_string())
        ),
    };
    if row.state == State::Synced {
        format!(
            "EphemeralRunnerSet {}/{} is Synced{revisions}",
            row.namespace, row.name
        )
    } else {
        format!(
            "Waiting for EphemeralRunnerSet {}/{}: {}{revisions}{}",
            row.namespace,
            row.name,
            row.state,
            row.reasons
                .first()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        )
    }
}

fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s.fract() == 0.0 && (s as u64).is_multiple_of(60) {
        format!("{}m", s as u64 / 60)
    } else if s.fract() == 0.0 {
        format!("{}s", s as u64)
    } else {
        format!("{s:.1}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, state: State, revisions: (i64, i64), stale: usize) -> SetStatus {
        SetStatus {
            namespace: "arc".into(),
            name: name.into(),
            spec_revision: Some(revisions.0),
            applied_revision: Some(revisions.1),
            state,
            runners: crate::core::runners::RunnerCounts {
                stale,
                ..Default::default()
            },
            reasons: Vec::new(),
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: None,
            ids: Default::default(),
        }
    }

    /// Issue 30: a set of ARC up to 0.14 has no revisions, and its `--wait` line names none (not
    /// "spec revision ?, applied ?").
    #[test]
    fn a_runner_spec_hash_sets_wait_line_names_no_revision() {
        let mut hash_era = row("old-x7k2p", State::Synced, (0, 0), 0);
        hash_era.spec_revision = None;
        hash_era.applied_revision = None;
        assert_eq!(
            progress_line(&hash_era),
            "EphemeralRunnerSet arc/old-x7k2p is Synced"
        );
        let line = progress_line(&row("new", State::Pending, (3, 2), 0));
        assert!(
            line.ends_with("Pending (spec revision 3, applied 2)"),
            "{line}"
        );
    }

    /// Issue 14: `--wait` on a terminal is one line of counts, not a line per set.
    #[test]
    fn the_wait_line_counts_sets_revisions_and_stale_runners() {
        let rows = [
            row("a", State::Synced, (2, 2), 0),
            row("b", State::Stale, (3, 3), 1),
            row("c", State::Pending, (4, 3), 2),
        ];
        assert_eq!(
            wait_summary(&rows),
            "Waiting for ARC: 2 of 3 EphemeralRunnerSets not Synced yet (2 of 3 revisions acknowledged), 3 stale runners left"
        );
        assert!(wait_summary(&rows[1..2]).ends_with("1 stale runner left"));
    }

    /// Issue 20: at a timeout, "0/1 EphemeralRunnerSets Synced, 1/1 revisions acknowledged" read
    /// as done. The line says first what is not done.
    #[test]
    fn wait_timeout_does_not_read_one_of_one_as_done() {
        let line = wait_summary(&[row("b", State::Stale, (3, 3), 1)]);
        assert!(
            line.starts_with("Waiting for ARC: 1 of 1 EphemeralRunnerSet not Synced yet"),
            "{line}"
        );
        assert!(!line.contains("1/1"), "{line}");
    }

    fn show(output: Output) -> ShowOptions {
        ShowOptions {
            output,
            table: TableOptions {
                wide: false,
                namespace_column: true,
                color: false,
                no_headers: false,
            },
            no_headers: false,
            explain: false,
            wait: false,
        }
    }

    /// Issue 23: `status --contexts --watch` streams each change as a row naming its context:
    /// one table for every context (the header once, again only when a column widens), the
    /// context in each JSON row, `-o name` as context/namespace/name; each context's lines on
    /// stderr name it.
    #[test]
    fn fleet_watch_rows_name_their_context_in_one_table() {
        let rows = |name: &str| vec![row(name, State::Pending, (3, 2), 0)];
        let run = |output: Output| {
            let show = show(output);
            let shared = RefCell::new(FleetShown::default());
            let (mut out, mut err) = (Vec::new(), Vec::new());
            {
                let mut shell = Shell::new(&mut out, &mut err, Default::default());
                let contexts = ["prod-eu".to_string(), "prod-us".to_string()];
                let mut shells = shell.for_contexts(&contexts);
                let mut eu = Printer::in_context(&show, "prod-eu", &shared);
                let mut us = Printer::in_context(&show, "prod-us", &shared);
                eu.listed(&rows("a"), &mut shells[0]).unwrap();
                us.listed(&[], &mut shells[1]).unwrap();
                us.changed(&rows("b"), &mut shells[1]).unwrap();
                eu.changed(&rows("a-much-longer-name"), &mut shells[0])
                    .unwrap();
            }
            (
                String::from_utf8(out).unwrap(),
                String::from_utf8(err).unwrap(),
            )
        };
        let (table, err) = run(Output::Default);
        let lines: Vec<Vec<&str>> = table
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        let firsts: Vec<(&str, &str)> = lines.iter().map(|l| (l[0], l[2])).collect();
        assert_eq!(
            firsts,
            [
                ("CONTEXT", "NAME"),
                ("prod-eu", "a"),
                ("prod-us", "b"),
                ("CONTEXT", "NAME"),
                ("prod-eu", "a-much-longer-name"),
            ],
            "{table}"
        );
        assert_eq!(
            err,
            "context prod-us: No EphemeralRunnerSets found; watching.\n"
        );
        let (json, _) = run(Output::Json);
        let contexts: Vec<String> = json
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["context"].to_string())
            .collect();
        assert_eq!(contexts, ["\"prod-eu\"", "\"prod-us\"", "\"prod-eu\""]);
        let (names, _) = run(Output::Name);
        assert_eq!(
            names,
            "prod-eu/arc/a\nprod-us/arc/b\nprod-eu/arc/a-much-longer-name\n"
        );
    }
}
