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
use crate::core::status::install::{CrdFacts, missing_for, next_missing_for};
use crate::core::upgrade::{self, ChartAt, SetAction, StepInputs, Target, Verdict, WrongOrder};
use crate::input::Object;
use crate::ops::diff::{self, Installation};
use crate::ops::fleet::{Fleet, context_failure, each, in_context};
use crate::report::diff::ScaleSetDiff;
use crate::report::upgrade::{
    ContextPlan, CrdGaps, From, InstalledCrd, SetPlan, UpgradePlanList, UpgradePlanReport,
};

/// What to plan, checked.
pub(crate) struct Plan {
    /// `--to`.
    pub(crate) to: Target,
    /// How the installation is read: `diff`'s plan without `-f` (the dump is its `live` side).
    pub(crate) read: diff::Plan,
}

/// Read the installation and plan the upgrade.
pub(crate) fn run(plan: &Plan, stdin: &mut dyn Read) -> Result<UpgradePlanReport> {
    let found = Installation::read(&plan.read, stdin)?;
    Ok(plan_of(plan, &found))
}

/// `--contexts`: one plan per context, at most `fleet.parallel` read at once, in the order the
/// contexts were selected; a context that fails is its error and never hides the others.
pub(crate) fn run_fleet(plan: &Plan, fleet: &Fleet) -> Result<UpgradePlanList> {
    let rt = crate::ops::runtime()?;
    let contexts = rt.block_on(each(fleet, |context| plan_one(plan, context)));
    Ok(UpgradePlanList {
        api_version: "kubectl-arc/v1alpha1",
        kind: "UpgradePlanList",
        to: plan.to.name().to_string(),
        contexts,
    })
}

async fn plan_one(plan: &Plan, context: &str) -> ContextPlan {
    let (connect, server) = in_context(&plan.read.connect, context);
    let read = diff::Plan {
        file_namespace: plan.read.scope.file_namespace(&connect),
        connect,
        ..plan.read.clone()
    };
    let one = Plan { to: plan.to, read };
    let planned = Installation::read_in_context(&one.read, diff::Files::default())
        .await
        .map(|found| plan_of(&one, &found))
        .map_err(|e| context_failure(&e, server.as_deref()));
    let (plan, error) = match planned {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    };
    ContextPlan {
        name: context.to_string(),
        server,
        plan,
        error,
    }
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
    let judged = match to {
        Target::Release(r) => found.judge(&judging(plan, Some(r)), Some(r.version)),
        // Each set by its own rule, or the running release's: `next` keeps a set named like its
        // scale set and leaves the others behind.
        Target::Next => found.judge(&judging(plan, None), None),
    };
    let now: BTreeMap<(String, String), ScaleSetDiff> = from_release
        .map(|f| found.judge(&judging(plan, Some(f)), None).report.items)
        .unwrap_or_default()
        .into_iter()
        .map(|i| ((i.namespace.clone(), i.name.clone()), i))
        .collect();
    let by_key: BTreeMap<(String, String), &Object> =
        found.scale_sets().iter().map(|o| (o.key(), o)).collect();
    let read = crate::ops::impact::Controllers::Read(controllers.clone());
    let sets: Vec<SetPlan> = (judged.report.items.iter())
        .map(|item| {
            let key = (item.namespace.clone(), item.name.clone());
            let label = (by_key.get(&key)).and_then(|o| o.meta.labels.get(LABEL_VERSION).cloned());
            let pending = now.get(&key).and_then(|n| n.recycle);
            match left_behind(to, item) {
                Some(old) => left_behind_plan((found, &read), item, label, from_release, old),
                None => set_plan(item, label, from_release, to, pending),
            }
        })
        .collect();
    let crds = crd_gaps(found, to);
    let steps = steps_of(
        found,
        &controllers,
        &choice,
        to,
        &judged.report.items,
        &sets,
        &crds,
    );
    let impacts: Vec<_> = sets.iter().filter_map(|s| s.impact.as_ref()).collect();
    UpgradePlanReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "UpgradePlan",
        to: to.name().to_string(),
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

/// The steps, with what they name: the controller, each scale set's chart, the sets to migrate
/// and those left behind.
fn steps_of(
    found: &Installation,
    controllers: &[ControllerArgs],
    choice: &upgrade::OrderChoice,
    to: Target,
    items: &[ScaleSetDiff],
    sets: &[SetPlan],
    crds: &CrdGaps,
) -> Vec<upgrade::Step> {
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
    let left: Vec<ChartAt> = (sets.iter())
        .filter(|s| s.action == SetAction::LeftBehind)
        .filter_map(|s| {
            Some(ChartAt {
                namespace: s.namespace.clone(),
                name: s.left_behind.clone()?,
                helm_release: None,
            })
        })
        .collect();
    let migrate = matches!(to, Target::Next)
        && (items.iter()).any(|i| i.mechanism == Some(release::Mechanism::IntegrityHash));
    let inputs = StepInputs {
        controller: controller.as_ref(),
        scale_sets: &charts,
        crds_behind: !crds.missing.is_empty() || crds.unread.is_some(),
        migrate,
        left_behind: &left,
    };
    upgrade::steps(choice, to, &inputs)
}

/// `next` and a newest set not named like its scale set (a 0.14 set, `<scale set>-xxxxx`): its
/// name. ARC's master gets the set by the scale set's own name and creates it when absent
/// (`AutoscalingRunnerSetReconciler.Reconcile` at 2ee6b3b8, PR #4516).
fn left_behind(to: Target, item: &ScaleSetDiff) -> Option<&str> {
    let set = item.set_facts.as_ref()?;
    (matches!(to, Target::Next) && item.error.is_none() && set.name != item.name)
        .then_some(set.name.as_str())
}

/// A scale set whose 0.14 set `next` leaves behind: a new set named like the scale set, the
/// listener made again for it; the old set adopted by the new set controller, which (seen with
/// 2ee6b3b8's controllers) deletes its idle and pending runners and makes them again, while no
/// listener scales it down.
fn left_behind_plan(
    (found, controllers): (&Installation, &crate::ops::impact::Controllers),
    item: &ScaleSetDiff,
    label: Option<String>,
    from: Option<&'static ArcRelease>,
    old: &str,
) -> SetPlan {
    let impact = found
        .forecast(
            item,
            crate::core::impact::Change::Cleanup,
            release::Mechanism::IntegrityHash,
            controllers,
        )
        .map(|mut i| {
            i.listener_recreated = true;
            i.job_pickup_pauses = true;
            i
        });
    SetPlan {
        namespace: item.namespace.clone(),
        name: item.name.clone(),
        wrong_order: WrongOrder::of(from, Target::Next, label.as_deref()),
        label,
        action: SetAction::LeftBehind,
        reason: format!(
            "the next release gets the EphemeralRunnerSet named {} and creates it (AutoscalingRunnerSetReconciler.Reconcile at 2ee6b3b8, PR #4516); {old} is left running with its runners, adopted by the new EphemeralRunnerSet controller (seen: it deletes the idle and pending runners and makes them again), and no listener scales it down any more",
            item.name
        ),
        set: (!item.current_from.is_empty()).then(|| item.current_from.clone()),
        impact,
        left_behind: Some(old.to_string()),
        error: None,
    }
}

/// `diff`'s plan judging by `release` (`None`: each set by its own rule, else the running one).
fn judging(plan: &Plan, release: Option<&'static ArcRelease>) -> diff::Plan {
    let mut p = plan.read.clone();
    p.arc_release = release.map(Target::Release);
    p.arc_version = release.map(|r| r.version.to_string());
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
    to: Target,
    pending_now: Option<bool>,
) -> SetPlan {
    let verdict = Verdict {
        failed: item.error.is_some(),
        deleted_by_version_check: item.deleted_by_version_check.is_some(),
        recycle: item.recycle == Some(true),
        listener_made_again: item.listener_restart == Some(true),
    };
    let action = upgrade::set_action(verdict);
    let gh = match to {
        Target::Release(r) => format!("gha-runner-scale-set-{}", r.version),
        Target::Next => "its own rule".to_string(),
    };
    let reason = match action {
        upgrade::SetAction::Kept => format!(
            "ARC {}'s RunnerSetSpecHash() of the AutoscalingRunnerSet equals its set's actions.github.com/runner-spec-hash{} (AutoscalingRunnerSetReconciler.Reconcile, {gh})",
            to.name(),
            match item.listener_restart {
                Some(false) => " and its listener's hashes hold",
                _ => "; its listener is not in the input, so whether it is made again is not known",
            }
        ),
        upgrade::SetAction::Replaced => match to {
            Target::Release(r) => format!(
                "{} (AutoscalingRunnerSetReconciler.Reconcile, {gh})",
                upgrade::replaced_because(from, r, item.upgrade_replaces, pending_now)
            ),
            Target::Next => "its set's own rule recycles its idle and pending runners (as `kubectl arc diff` judges it)".to_string(),
        },
        upgrade::SetAction::ListenerRecreated => format!(
            "its AutoscalingListener's actions.github.com/runner-spec-hash (ListenerSpecHash()) or actions.github.com/values-hash is not the AutoscalingRunnerSet's: the listener is deleted and made again (AutoscalingRunnerSetReconciler.Reconcile, {gh})"
        ),
        upgrade::SetAction::DeletedByVersionCheck => (item.deleted_by_version_check.as_ref())
            .map_or_else(String::new, |c| c.rule.to_string()),
        upgrade::SetAction::Failed => item.error.clone().unwrap_or_default(),
        upgrade::SetAction::LeftBehind => String::new(),
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
        left_behind: None,
        error: item.error.clone(),
    }
}

/// ARC's CRDs as installed against the fields `to` writes.
fn crd_gaps(found: &Installation, to: Target) -> CrdGaps {
    let (crds, unread) = found.crds();
    let facts: Vec<CrdFacts> = crds.iter().filter_map(CrdFacts::from_object).collect();
    CrdGaps {
        installed: facts
            .iter()
            .map(|c| InstalledCrd {
                name: c.name.clone(),
                release: c.release,
            })
            .collect(),
        unread: unread.map(str::to_string),
        missing: match to {
            Target::Release(r) => missing_for(r.version, &facts),
            // Each CRD's own (`upgrade::next_missing` of each), from the facts read above.
            Target::Next => (facts.iter())
                .flat_map(|f| next_missing_for(std::slice::from_ref(f)))
                .collect(),
        },
    }
}

/// What the plan cannot see.
fn assumptions(to: Target) -> Vec<String> {
    let mut said = vec![format!(
        "each scale set's spec stays as stored: the plan relabels it app.kubernetes.io/version={} as its chart's upgrade does; a chart whose templates change the spec is what `kubectl arc diff -f <its render>` judges",
        to.label()
    )];
    if matches!(to, Target::Next) {
        said.push(format!(
            "next is ARC's master after 0.14.2 (docs/upgrade-plan.md, \"The next release\"): no tag yet, its build.Version taken as {}, its chart version a placeholder",
            upgrade::NEXT_VERSION
        ));
    }
    said
}
