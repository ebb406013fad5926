//! `--watch` and `--wait`: which rows changed, and when waiting is over.
//!
//! The operation decides (what changed, whether every set settled, whether waiting cannot help,
//! the [`Outcome`]); a [`FollowSink`] only shows what it is handed, as ripgrep's searcher pushes
//! matches into a printer that implements its `Sink`. The renderer's sink is
//! `render::follow::Printer`.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use anyhow::{Result, bail};

use crate::core::status::{Census, SetKey, SetStatus, State, StatusReason};
use crate::ops::status::{Plan, cannot_progress, settled, where_it_stands};
use crate::report::Outcome;
use crate::shell::Shell;

/// What `--watch` and `--wait` push to whoever shows them.
pub(crate) trait FollowSink {
    /// `--watch`: the first listing (maybe empty).
    fn listed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// `--watch`: rows whose shown part changed, or a deleted set's last row (as Deleted).
    fn changed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// Whether the output shows `after` otherwise than `before` (AGE aside).
    fn differs(&self, before: &SetStatus, after: &SetStatus) -> bool;
    /// `--wait`: one set's progress, first and whenever it differs.
    fn progress(&mut self, row: &SetStatus, shell: &mut Shell<'_>) -> Result<()>;
    /// `--wait` goes on: every row as it stands, sorted.
    fn waiting(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// `--wait` is over: every row as it stands, sorted, and why it ended.
    fn end(&mut self, rows: Vec<SetStatus>, why: &Ending, shell: &mut Shell<'_>) -> Result<()>;
}

/// Why `--wait` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Every set settled (exit 0).
    Settled,
    /// Waiting cannot help: only a person can change these sets (exit 1); the message names them.
    Stuck(String),
    /// `--timeout` passed (exit 1): where each set not settled stands, of `total` followed.
    TimedOut {
        after: Duration,
        waiting: Vec<String>,
        total: usize,
    },
}

impl Ending {
    pub(crate) fn outcome(&self) -> Outcome {
        match self {
            Ending::Settled => Outcome::Clean,
            Ending::Stuck(_) | Ending::TimedOut { .. } => Outcome::Drift,
        }
    }
}

/// What `--watch` and `--wait` have shown, deciding what to show next.
pub(crate) struct Follow<'s> {
    wait: bool,
    sink: &'s mut dyn FollowSink,
    rows: HashMap<SetKey, SetStatus>,
}

impl<'s> Follow<'s> {
    /// `wait`: `--wait` (else `--watch`).
    pub(crate) fn new(wait: bool, sink: &'s mut dyn FollowSink) -> Follow<'s> {
        Follow {
            wait,
            sink,
            rows: HashMap::new(),
        }
    }

    /// A set gone while the watch was away (a relist): not shown again, not waited for.
    pub(crate) fn forget(&mut self, key: &SetKey) {
        self.rows.remove(key);
    }

    fn sorted(&self) -> Vec<SetStatus> {
        let mut rows: Vec<SetStatus> = self.rows.values().cloned().collect();
        rows.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        rows
    }

    /// The first rows: shown (`--watch`), or each set's progress and maybe the end already
    /// (`--wait`: everything settled, or something waiting cannot change).
    pub(crate) fn start(
        &mut self,
        plan: &Plan,
        rows: Vec<SetStatus>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        if self.wait {
            if rows.is_empty() {
                bail!(
                    "no EphemeralRunnerSets match{}: nothing to wait for",
                    match &plan.namespace {
                        Some(ns) => format!(" in namespace {ns}"),
                        None => String::new(),
                    }
                );
            }
            for r in &rows {
                self.sink.progress(r, shell)?;
            }
        } else {
            self.sink.listed(&rows, shell)?;
        }
        for r in rows {
            self.rows.insert((r.namespace.clone(), r.name.clone()), r);
        }
        if self.wait {
            return self.verdict(shell);
        }
        Ok(None)
    }

    /// A set was deleted: `--watch` shows its row one last time as Deleted, as `kubectl get -w`
    /// prints a deleted object; `--wait` fails when it waited for that set by name.
    pub(crate) fn deleted(
        &mut self,
        plan: &Plan,
        key: &SetKey,
        shell: &mut Shell<'_>,
    ) -> Result<()> {
        let last = self.rows.remove(key);
        if self.wait {
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
            self.sink.changed(&[row], shell)?;
        }
        Ok(())
    }

    /// Show what changed of the dirty sets (only what the output shows differs), and for `--wait`
    /// decide whether it is over.
    pub(crate) fn flush(
        &mut self,
        plan: &Plan,
        census: &mut Census,
        dirty: &mut HashSet<SetKey>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        let mut changed = Vec::new();
        let mut keys: Vec<SetKey> = dirty.drain().collect();
        keys.sort();
        for key in keys {
            let Some(row) = census.status(&key, plan.now()) else {
                continue;
            };
            let unchanged = self
                .rows
                .get(&key)
                .is_some_and(|before| !self.sink.differs(before, &row));
            if !unchanged {
                if self.wait {
                    self.sink.progress(&row, shell)?;
                } else {
                    changed.push(row.clone());
                }
            }
            self.rows.insert(key, row);
        }
        if self.wait {
            return self.verdict(shell);
        }
        if !changed.is_empty() {
            self.sink.changed(&changed, shell)?;
        }
        Ok(None)
    }

    /// `--wait`: over when every set has settled (exit 0), or when waiting cannot help (exit 1).
    fn verdict(&mut self, shell: &mut Shell<'_>) -> Result<Option<Outcome>> {
        let rows = self.sorted();
        let ending = if rows.iter().all(settled) {
            Ending::Settled
        } else if let Some(stuck) = cannot_progress(&rows) {
            Ending::Stuck(stuck)
        } else {
            self.sink.waiting(&rows, shell)?;
            return Ok(None);
        };
        self.sink.end(rows, &ending, shell)?;
        Ok(Some(ending.outcome()))
    }

    /// `--timeout` passed: the rows, and the sets still waited for.
    pub(crate) fn timed_out(&mut self, after: Duration, shell: &mut Shell<'_>) -> Result<Outcome> {
        let rows = self.sorted();
        let waiting: Vec<String> = rows
            .iter()
            .filter(|r| !settled(r))
            .map(where_it_stands)
            .collect();
        let ending = Ending::TimedOut {
            after,
            waiting,
            total: self.rows.len(),
        };
        self.sink.end(rows, &ending, shell)?;
        Ok(ending.outcome())
    }
}
