//! What `status --watch` and `status --wait` print as the census changes: `--watch` a row again
//! when what it shows changes (a deleted set's last row as Deleted), `--wait` one updating line of
//! counts on a terminal or a line per real change in a log, then the table and the verdict.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::cli::Outcome;
use crate::core::status::{Census, SetKey, SetStatus, State, StatusReason};
use crate::ops::status::{Plan, cannot_progress, settled, where_it_stands};
use crate::render::emit::{self, Output};
use crate::render::status::{
    StatusReport, TableOptions, Widths, visible, write_json_line, write_reasons, write_rows,
    write_table, write_yaml_document,
};
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
    /// `--timeout`, for the message when it passes.
    pub(crate) timeout: Option<Duration>,
}

/// The rows in the chosen format: a table (with the reasons under it for `status NAME`), or a
/// `StatusReport`.
pub(crate) fn write_status(
    show: &ShowOptions,
    rows: Vec<SetStatus>,
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
                write_reasons(&rows, opts.color, &mut out)?;
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

/// What `--watch` and `--wait` have shown, and how they print what changed.
pub(crate) struct Shown<'a> {
    show: &'a ShowOptions,
    rows: HashMap<SetKey, SetStatus>,
    widths: Widths,
}

impl<'a> Shown<'a> {
    /// A set gone while the watch was away (a relist): not shown again, not waited for.
    pub(crate) fn forget(&mut self, key: &SetKey) {
        self.rows.remove(key);
    }

    pub(crate) fn new(show: &'a ShowOptions) -> Shown<'a> {
        Shown {
            show,
            rows: HashMap::new(),
            widths: Widths::default(),
        }
    }

    fn sorted(&self) -> Vec<SetStatus> {
        let mut rows: Vec<SetStatus> = self.rows.values().cloned().collect();
        rows.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        rows
    }

    /// The first rows: a table (`--watch`), or progress lines and maybe the end already
    /// (`--wait`: everything settled, or something waiting cannot change).
    pub(crate) fn start(
        &mut self,
        plan: &Plan,
        rows: Vec<SetStatus>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        let args = self.show;
        if args.wait {
            if rows.is_empty() {
                bail!(
                    "no EphemeralRunnerSets match{}: nothing to wait for",
                    match &plan.namespace {
                        Some(ns) => format!(" in namespace {ns}"),
                        None => String::new(),
                    }
                );
            }
            if !shell.shows_progress() {
                for r in &rows {
                    shell.status(progress_line(r))?;
                }
            }
        } else if rows.is_empty() && args.output.is_human() {
            shell.status("No EphemeralRunnerSets found; watching.")?;
        } else {
            self.print(&rows, shell.out())?;
        }
        for r in rows {
            self.rows.insert((r.namespace.clone(), r.name.clone()), r);
        }
        if args.wait {
            return self.verdict(shell);
        }
        Ok(None)
    }

    /// Rows printed under the first ones, in the output's format.
    fn print(&mut self, rows: &[SetStatus], out: &mut dyn Write) -> Result<()> {
        match &self.show.output {
            Output::Default | Output::Wide => {
                write_rows(rows, self.show.table, &mut self.widths, out)?
            }
            Output::Json => rows.iter().try_for_each(|r| write_json_line(r, out))?,
            Output::Yaml => rows.iter().try_for_each(|r| write_yaml_document(r, out))?,
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

    /// A set was deleted: `--watch` prints its row one last time as Deleted, as `kubectl get -w`
    /// prints a deleted object; `--wait` fails when it waited for that set by name.
    pub(crate) fn deleted(
        &mut self,
        plan: &Plan,
        key: &SetKey,
        shell: &mut Shell<'_>,
    ) -> Result<()> {
        let last = self.rows.remove(key);
        if self.show.wait {
            if plan.names.contains(&key.1) {
                bail!(
                    "EphemeralRunnerSet {}/{} was deleted while waiting for it",
                    key.0,
                    key.1
                );
            }
            return Ok(());
        }
        if let Some(mut row) = last {
            row.state = State::Deleted;
            row.reasons = vec![StatusReason::Deleted];
            self.print(&[row], shell.out())?;
        }
        Ok(())
    }

    /// Print what changed of the dirty sets (only what the output shows), and for `--wait` decide
    /// whether it is over.
    pub(crate) fn flush(
        &mut self,
        plan: &Plan,
        census: &mut Census,
        dirty: &mut HashSet<SetKey>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        let (args, opts) = (self.show, self.show.table);
        let table = args.output.is_human();
        let mut changed = Vec::new();
        let mut keys: Vec<SetKey> = dirty.drain().collect();
        keys.sort();
        for key in keys {
            let Some(row) = census.status(&key, plan.now()) else {
                continue;
            };
            let unchanged = self.rows.get(&key).is_some_and(|b| {
                if args.wait {
                    progress_line(b) == progress_line(&row)
                } else if table {
                    visible(b, opts) == visible(&row, opts)
                } else {
                    same_row(b, &row)
                }
            });
            if !unchanged {
                if args.wait {
                    if !shell.shows_progress() {
                        shell.status(progress_line(&row))?;
                    }
                } else {
                    changed.push(row.clone());
                }
            }
            self.rows.insert(key, row);
        }
        if args.wait {
            return self.verdict(shell);
        }
        if !changed.is_empty() {
            self.print(&changed, shell.out())?;
        }
        Ok(None)
    }

    /// `--wait`: over when every set has settled (exit 0), or when waiting cannot help (exit 1).
    ///
    /// On a terminal, while it goes on, one line counts what is left.
    fn verdict(&self, shell: &mut Shell<'_>) -> Result<Option<Outcome>> {
        let rows = self.sorted();
        if rows.iter().all(settled) {
            shell.clear_progress();
            write_status(self.show, rows, shell)?;
            return Ok(Some(Outcome::Clean));
        }
        if let Some(stuck) = cannot_progress(&rows) {
            shell.clear_progress();
            write_status(self.show, rows, shell)?;
            shell.error(stuck)?;
            return Ok(Some(Outcome::Drift));
        }
        shell.progress(wait_summary(&rows))?;
        Ok(None)
    }

    /// `--timeout` passed: the table, and the sets still waited for (a few named).
    pub(crate) fn timed_out(&mut self, shell: &mut Shell<'_>) -> Result<Outcome> {
        let rows = self.sorted();
        let waiting: Vec<String> = rows
            .iter()
            .filter(|r| !settled(r))
            .map(where_it_stands)
            .collect();
        shell.clear_progress();
        write_status(self.show, rows, shell)?;
        shell.error(format_args!(
            "timed out after {} waiting for every EphemeralRunnerSet to be Synced: {} of {} not Synced yet: {}",
            format_duration(self.show.timeout.unwrap_or_default()),
            waiting.len(),
            self.rows.len(),
            crate::cli::name_a_few(&waiting, 3)
        ))?;
        Ok(Outcome::Drift)
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
    let settled = rows.iter().filter(|r| settled(r)).count();
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

/// The line a set prints in a log while `--wait` goes on: printed again only when it changes.
fn progress_line(row: &SetStatus) -> String {
    let revisions = format!(
        "spec revision {}, applied {}",
        row.spec_revision
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into()),
        row.applied_revision
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into())
    );
    if row.state == State::Synced {
        format!(
            "EphemeralRunnerSet {}/{} is Synced ({revisions})",
            row.namespace, row.name
        )
    } else {
        format!(
            "Waiting for EphemeralRunnerSet {}/{}: {} ({revisions}){}",
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
        }
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
}
