//! `bump --contexts` and `migrate --contexts`: one command carried through several kubeconfig
//! contexts one after the other (a canary first), each context's own report kept whole, and
//! where the run stopped.
//!
//! The run's rules are [`crate::ops::rollout`]'s; this is what it found, for the renderers.

use serde::Serialize;

use crate::core::go::params::DryRun;
use crate::report::Outcome;
use crate::report::bump::{BumpItem, BumpReport};
use crate::report::fleet::ContextError;
use crate::report::migrate::{MigrateReport, MigrateRow};

/// A command's report in one context, as a rollout needs it.
pub(crate) trait ContextReport {
    /// One row of it (a set).
    type Item: Serialize;
    /// `kind` of the one-context report (`BumpReport`, `MigrateReport`).
    const KIND: &'static str;
    fn items(&self) -> &[Self::Item];
    /// The one-context exit rule.
    fn outcome(&self) -> Outcome;
}

impl ContextReport for BumpReport {
    type Item = BumpItem;
    const KIND: &'static str = "BumpReport";
    fn items(&self) -> &[BumpItem] {
        &self.items
    }
    fn outcome(&self) -> Outcome {
        BumpReport::outcome(self)
    }
}

impl ContextReport for MigrateReport {
    type Item = MigrateRow;
    const KIND: &'static str = "MigrateReport";
    fn items(&self) -> &[MigrateRow] {
        &self.items
    }
    fn outcome(&self) -> Outcome {
        MigrateReport::outcome(self)
    }
}

/// How far a rollout went: what its items are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Phase {
    /// `--dry-run`: every context was dry-run, nothing was written.
    DryRun,
    /// The dry run that comes before any write failed in some context: nothing was written in
    /// any, and the items are that dry run's.
    CheckFailed,
    /// Every context passed the dry run, then the contexts were written one after the other,
    /// up to the first that did not succeed.
    Written,
}

/// What happened in one context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum StageResult {
    /// Written (or, in a dry run, every set would be) with no set failing.
    Succeeded,
    /// Some set failed or was refused, or the context could not be used at all (`error`).
    Failed,
    /// `--wait` gave up before ARC acknowledged every set of the context.
    TimedOut,
    /// The run stopped before this context: nothing was written in it.
    NotReached,
}

impl StageResult {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StageResult::Succeeded => "Succeeded",
            StageResult::Failed => "Failed",
            StageResult::TimedOut => "TimedOut",
            StageResult::NotReached => "NotReached",
        }
    }
}

/// One context of a rollout: its report, or why there is none.
#[derive(Debug)]
pub(crate) struct Stage<R> {
    pub(crate) context: String,
    pub(crate) server: Option<String>,
    pub(crate) result: StageResult,
    /// The context's own report (none: not reached, or it failed before any set: `error`).
    pub(crate) report: Option<R>,
    pub(crate) error: Option<ContextError>,
}

/// A whole rollout.
#[derive(Debug)]
pub(crate) struct Rollout<R> {
    pub(crate) phase: Phase,
    /// What the items are: the flag's mode, `server` when the dry run before the writes failed,
    /// `none` when they were written.
    pub(crate) dry_run: DryRun,
    /// In the order the contexts were given.
    pub(crate) stages: Vec<Stage<R>>,
}

impl<R: ContextReport> Rollout<R> {
    /// The context whose failure stopped the writes (the contexts after it were not reached).
    pub(crate) fn stopped_at(&self) -> Option<&Stage<R>> {
        if self.phase != Phase::Written {
            return None;
        }
        self.stages
            .iter()
            .find(|s| matches!(s.result, StageResult::Failed | StageResult::TimedOut))
    }

    /// The contexts not reached, by name.
    pub(crate) fn not_reached(&self) -> Vec<String> {
        self.stages
            .iter()
            .filter(|s| s.result == StageResult::NotReached)
            .map(|s| s.context.clone())
            .collect()
    }

    /// The worst over the contexts, by their own reports' rules; a context that failed before any
    /// set, a dry run that kept every write back, and a run that stopped before the last context
    /// are errors (2): a partial result is not a success.
    pub(crate) fn outcome(&self) -> Outcome {
        let stages = self.stages.iter().map(|s| match (&s.report, s.result) {
            (_, StageResult::NotReached) => Outcome::Failed,
            (Some(r), _) => r.outcome(),
            (None, _) => Outcome::Failed,
        });
        let phase = match self.phase {
            Phase::CheckFailed => Outcome::Failed,
            _ => Outcome::Clean,
        };
        stages.chain([phase]).max().unwrap_or_default()
    }
}

/// `-o json|yaml` of a rollout: the one-context report's shape, each item with its `context`,
/// and `contexts[]` saying what happened where.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RolloutDocument<'a, I: Serialize> {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) dry_run: DryRun,
    pub(crate) phase: Phase,
    /// bump's request id, the same in every context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bump_id: Option<&'a str>,
    pub(crate) items: Vec<ContextItem<'a, I>>,
    pub(crate) contexts: Vec<ContextLine<'a>>,
    /// The context whose failure stopped the writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stopped_at: Option<&'a str>,
}

/// One set, and the context it is in.
#[derive(Debug, Serialize)]
pub(crate) struct ContextItem<'a, I: Serialize> {
    pub(crate) context: &'a str,
    #[serde(flatten)]
    pub(crate) item: &'a I,
}

/// One context in `contexts[]`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextLine<'a> {
    pub(crate) name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) server: Option<&'a str>,
    pub(crate) result: StageResult,
    /// How many sets its report has.
    pub(crate) sets: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<&'a ContextError>,
}

impl<R: ContextReport> Rollout<R> {
    /// The document `-o json|yaml` writes (`bump_id`: bump's request id).
    pub(crate) fn document<'a>(&'a self, bump_id: Option<&'a str>) -> RolloutDocument<'a, R::Item> {
        let items = self
            .stages
            .iter()
            .flat_map(|s| {
                s.report.iter().flat_map(move |r| {
                    r.items().iter().map(move |item| ContextItem {
                        context: &s.context,
                        item,
                    })
                })
            })
            .collect();
        let contexts = self
            .stages
            .iter()
            .map(|s| ContextLine {
                name: &s.context,
                server: s.server.as_deref(),
                result: s.result,
                sets: s.report.as_ref().map_or(0, |r| r.items().len()),
                error: s.error.as_ref(),
            })
            .collect();
        RolloutDocument {
            api_version: "kubectl-arc/v1alpha1",
            kind: R::KIND,
            dry_run: self.dry_run,
            phase: self.phase,
            bump_id,
            items,
            contexts,
            stopped_at: self.stopped_at().map(|s| s.context.as_str()),
        }
    }
}
