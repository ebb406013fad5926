//! `upgrade-plan`: read the installation once (its controller Deployment, ARC's CRDs, every
//! scale set with its sets, runners and listener), then judge it under three hypotheses with
//! `diff`'s rules: the new release on the scale sets as their charts relabel them (the plan), the
//! running release on them as they are (a change already pending), and each release's version
//! check on the other's labels (the wrong orders). The order and the steps are the core's
//! ([`crate::core::upgrade`]).

use std::collections::BTreeMap;
use std::io::Read;

use anyhow::Result;

use crate::cluster::preflight::ControllerArgs;
use crate::core::release::{self, ArcRelease, LABEL_VERSION};
use crate::core::status::install::{CrdFacts, missing_for};
use crate::core::upgrade::{self, ChartAt, Verdict, WrongOrder};
use crate::input::Object;
use crate::ops::diff::{self, Installation};
use crate::report::diff::ScaleSetDiff;
use crate::report::upgrade::{CrdGaps, From, InstalledCrd, SetPlan, UpgradePlanReport};

/// What to plan, checked.
pub(crate) struct Plan {
    /// `--to`.
    pub(crate) to: &'static ArcRelease,
    /// How the installation is read: `diff`'s plan without `-f` (the dump is its `live` side).
    pub(crate) read: diff::Plan,
}

/// Read the installation and plan the upgrade.
pub(crate) fn run(plan: &Plan, stdin: &mut dyn Read) -> Result<UpgradePlanReport> {
    let found = Installation::read(&plan.read, stdin)?;
    Ok(plan_of(plan, &found))
}

/// The plan of an installation read.
fn plan_of(plan: &Plan, found: &Installation) -> UpgradePlanReport {
    let to = plan.to;
    let (controllers, unread) = found.controllers();
    let (from_release, from) = running_release(&controllers, unread.as_deref(), found);
    let labels: Vec<Option<&str>> = (found.scale_sets().iter())
        .map(|o| o.meta.labels.get(LABEL_VERSION).map(String::as_str))
        .collect();
    let choice = upgrade::choose_order(from_release, to, &labels);
    let judged = found.judge(&judging(plan, to), Some(to.version));
    let now: BTreeMap<(String, String), ScaleSetDiff> = from_release
        .map(|f| found.judge(&judging(plan, f), None).report.items)
        .unwrap_or_default()
        .into_iter()
        .map(|i| ((i.namespace.clone(), i.name.clone()), i))
        .collect();
    let by_key: BTreeMap<(String, String), &Object> =
        found.scale_sets().iter().map(|o| (o.key(), o)).collect();
    let sets: Vec<SetPlan> = (judged.report.items.iter())
        .map(|item| {
            let scale_set = by_key.get(&(item.namespace.clone(), item.name.clone()));
            let label = scale_set.and_then(|o| o.meta.labels.get(LABEL_VERSION).cloned());
            let pending = now
                .get(&(item.namespace.clone(), item.name.clone()))
                .and_then(|n| n.recycle);
            set_plan(item, label, from_release, to, pending)
        })
        .collect();
    let crds = crd_gaps(found, to);
    let controller = controllers.first().map(|c| ChartAt {
        namespace: c.namespace.clone(),
        name: c.name.clone(),
        helm_release: c.helm_release.clone(),
    });
    let charts: Vec<ChartAt> = (found.scale_sets().iter())
        .map(|o| ChartAt {
            namespace: o.namespace().to_string(),
            name: o.name().to_string(),
            helm_release: crate::cluster::preflight::helm_release(
                Some(&o.meta.annotations),
                Some(&o.meta.labels),
            ),
        })
        .collect();
    let crds_behind = !crds.missing.is_empty() || crds.unread.is_some();
    let steps = upgrade::steps(&choice, to, controller.as_ref(), &charts, crds_behind);
    let impacts: Vec<_> = sets.iter().filter_map(|s| s.impact.as_ref()).collect();
    UpgradePlanReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "UpgradePlan",
        to: to.version.to_string(),
        from,
        order: choice,
        steps,
        crds,
        impact: (!impacts.is_empty()).then(|| crate::core::impact::ImpactTotals::of(impacts)),
        sets,
        assumptions: assumptions(to),
        errors: judged.errors,
    }
}

/// `diff`'s plan judging by `release`.
fn judging(plan: &Plan, release: &'static ArcRelease) -> diff::Plan {
    let mut p = plan.read.clone();
    p.arc_release = Some(release);
    p.arc_version = Some(release.version.to_string());
    p
}

/// The release the controller runs now: the controller Deployment's, else the scale sets' chart
/// label (said as assumed), else unknown.
fn running_release(
    controllers: &[ControllerArgs],
    unread: Option<&str>,
    found: &Installation,
) -> (Option<&'static ArcRelease>, From) {
    if let Some((r, c)) = controllers
        .iter()
        .find_map(|c| Some((release::release(c.version.as_deref()?)?, c)))
    {
        let mut from = c.at.clone();
        let others: Vec<&str> = (controllers.iter())
            .filter_map(|o| o.version.as_deref())
            .filter(|v| release::release(v).is_none_or(|o| o.version != r.version))
            .collect();
        if !others.is_empty() {
            from.push_str(&format!(
                " (other controllers run {}: each reconciles its own namespaces; the plan takes this one's)",
                others.join(", ")
            ));
        }
        return (
            Some(r),
            From {
                release: Some(r.version.to_string()),
                from,
            },
        );
    }
    let why = match (controllers.first(), unread) {
        (Some(c), _) => format!("{} runs no release kubectl-arc knows", c.at),
        (None, Some(why)) => why.to_string(),
        (None, None) => "no controller Deployment found".to_string(),
    };
    let labelled = found.scale_sets().iter().find_map(|o| {
        let r = release::release(o.meta.labels.get(LABEL_VERSION)?)?;
        Some((r, o.describe()))
    });
    match labelled {
        Some((r, of)) => (
            Some(r),
            From {
                release: Some(r.version.to_string()),
                from: format!("assumed from the label app.kubernetes.io/version of {of} ({why})"),
            },
        ),
        None => (
            None,
            From {
                release: None,
                from: format!(
                    "not known ({why}; no scale set carries the label of a known release)"
                ),
            },
        ),
    }
}

/// One scale set's line of the plan, from its verdict under the new release.
fn set_plan(
    item: &ScaleSetDiff,
    label: Option<String>,
    from: Option<&'static ArcRelease>,
    to: &'static ArcRelease,
    pending_now: Option<bool>,
) -> SetPlan {
    let verdict = Verdict {
        failed: item.error.is_some(),
        deleted_by_version_check: item.deleted_by_version_check.is_some(),
        recycle: item.recycle == Some(true),
        listener_made_again: item.listener_restart == Some(true),
    };
    let action = upgrade::set_action(verdict);
    let gh = format!("gha-runner-scale-set-{}", to.version);
    let reason = match action {
        upgrade::SetAction::Kept => format!(
            "ARC {}'s RunnerSetSpecHash() of the AutoscalingRunnerSet equals its set's actions.github.com/runner-spec-hash{} (AutoscalingRunnerSetReconciler.Reconcile, {gh})",
            to.version,
            match item.listener_restart {
                Some(false) => " and its listener's hashes hold",
                _ => "; its listener is not in the input, so whether it is made again is not known",
            }
        ),
        upgrade::SetAction::Replaced => format!(
            "{} (AutoscalingRunnerSetReconciler.Reconcile, {gh})",
            upgrade::replaced_because(from, to, item.upgrade_replaces, pending_now)
        ),
        upgrade::SetAction::ListenerRecreated => format!(
            "its AutoscalingListener's actions.github.com/runner-spec-hash (ListenerSpecHash()) or actions.github.com/values-hash is not the AutoscalingRunnerSet's: the listener is deleted and made again (AutoscalingRunnerSetReconciler.Reconcile, {gh})"
        ),
        upgrade::SetAction::DeletedByVersionCheck => (item.deleted_by_version_check.as_ref())
            .map_or_else(String::new, |c| c.rule.to_string()),
        upgrade::SetAction::Failed => item.error.clone().unwrap_or_default(),
    };
    SetPlan {
        namespace: item.namespace.clone(),
        name: item.name.clone(),
        wrong_order: WrongOrder::of(from, to, label.as_deref()),
        label,
        action,
        reason,
        set: (!item.current_from.is_empty()).then(|| item.current_from.clone()),
        impact: item.impact.clone(),
        error: item.error.clone(),
    }
}

/// ARC's CRDs as installed against the fields `to` writes.
fn crd_gaps(found: &Installation, to: &'static ArcRelease) -> CrdGaps {
    let (crds, unread) = found.crds();
    let facts: Vec<CrdFacts> = crds
        .iter()
        .filter_map(|o| CrdFacts::from_crd(&serde_json::from_str(&o.json()).ok()?))
        .collect();
    CrdGaps {
        installed: facts
            .iter()
            .map(|c| InstalledCrd {
                name: c.name.clone(),
                release: c.release,
            })
            .collect(),
        unread: unread.map(str::to_string),
        missing: missing_for(to.version, &facts),
    }
}

/// What the plan cannot see.
fn assumptions(to: &ArcRelease) -> Vec<String> {
    vec![format!(
        "each scale set's spec stays as stored: the plan relabels it app.kubernetes.io/version={} as its chart's upgrade does; a chart {} whose templates change the spec is what `kubectl arc diff -f <its render> --arc-version {}` judges",
        to.version, to.version, to.version
    )]
}
