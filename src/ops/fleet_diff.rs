//! `diff --contexts` / `--all-contexts`: the same comparison in every selected kubeconfig
//! context, merged into one report in the order the contexts were selected.
//!
//! Ops layer. `-f` and standard input are read once, before any context is contacted
//! ([`crate::ops::diff::read_files`]); each context then sorts its own copy under its own
//! namespace default (kubectl's rule: an object without a namespace takes `-n`, else the
//! context's), completes it from its own cluster and is judged as a one-context run
//! ([`crate::ops::diff::run_in_context`]), at most `--parallel` contexts at a time. A context that
//! fails is a summary with its error and never hides the others; any failed context makes the
//! run's outcome Failed (exit 2), else the worst of the contexts' (1 for drift somewhere).

use std::io::Read;

use anyhow::Result;

use crate::ops::diff::{self, Diff, Files, Plan};
use crate::ops::fleet::{Fleet, context_failure, each, in_context};
use crate::report::Outcome;
use crate::report::fleet::{
    ContextError, DiffContextSummary, DiffCounts, FleetDiffItem, FleetDiffReport,
};

/// What a fleet diff found: the report, its outcome, and the lines for stderr (a context's
/// failure naming it; the files' own errors once).
pub(crate) struct FleetDiff {
    pub(crate) report: FleetDiffReport,
    pub(crate) outcome: Outcome,
    pub(crate) errors: Vec<String>,
}

/// One context's diff, or why there is none.
struct Judged {
    context: String,
    server: Option<String>,
    diff: Result<Diff, ContextError>,
}

/// Read the files once, then diff them against every context of `fleet`. An error here is the
/// files' (no ARC object in `-f`): nothing was contacted.
pub(crate) fn run(plan: &Plan, fleet: &Fleet, stdin: &mut dyn Read) -> Result<FleetDiff> {
    let files = diff::read_files(plan, stdin);
    diff::check_files(plan, &files)?;
    let file_errors: Vec<String> = files.errors().cloned().collect();
    let rt = crate::ops::runtime()?;
    let judged = rt.block_on(each(fleet, |context| judge_one(plan, &files, context)));
    Ok(merge(plan, judged, file_errors))
}

async fn judge_one(plan: &Plan, files: &Files, context: &str) -> Judged {
    let (connect, server) = in_context(&plan.connect, context);
    let one = Plan {
        file_namespace: plan.scope.file_namespace(&connect),
        connect,
        ..plan.clone()
    };
    let diff = diff::run_in_context(&one, files.clone())
        .await
        .map_err(|e| context_failure(&e, server.as_deref()));
    Judged {
        context: context.to_string(),
        server,
        diff,
    }
}

/// The contexts' diffs, in order, as one report.
fn merge(plan: &Plan, judged: Vec<Judged>, file_errors: Vec<String>) -> FleetDiff {
    let mut outcome = if file_errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    };
    let mut errors = file_errors;
    let (mut items, mut contexts) = (Vec::new(), Vec::new());
    for j in judged {
        let mut summary = DiffContextSummary {
            name: j.context.clone(),
            server: j.server,
            arc_version: None,
            arc_version_from: None,
            not_in_change: 0,
            counts: DiffCounts::default(),
            impact: None,
            error: None,
        };
        match j.diff {
            Err(e) => {
                outcome = Outcome::Failed;
                errors.push(format!("context {}: {}", j.context, e.message));
                summary.error = Some(e);
            }
            Ok(diff) => {
                // Its `errors` are the files' (said once above).
                outcome = outcome.max(diff.outcome());
                let report = diff.report;
                summary.arc_version = report.arc_version;
                summary.arc_version_from = report.arc_version_from;
                summary.not_in_change = report.not_in_change;
                summary.impact = report.impact.clone();
                for item in report.items {
                    let c = &mut summary.counts;
                    c.scale_sets += 1;
                    c.recycle += usize::from(item.recycle == Some(true));
                    c.new += usize::from(item.new);
                    c.errors += usize::from(item.error.is_some());
                    items.push(FleetDiffItem {
                        context: j.context.clone(),
                        item,
                    });
                }
            }
        }
        contexts.push(summary);
    }
    FleetDiff {
        report: FleetDiffReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "DiffReport",
            layout: plan.layout.k8s_api.clone(),
            items,
            contexts,
        },
        outcome,
        errors,
    }
}
