//! An ARC upgrade: the order of its steps that loses no scale set, and what the new controller
//! does to each scale set.
//!
//! Pure core. An upgrade has three parts that Helm does not order for the user: ARC's four CRDs
//! (Helm never upgrades a chart's `crds/`), the controller chart
//! (gha-runner-scale-set-controller) and one gha-runner-scale-set chart per scale set, which sets
//! the AutoscalingRunnerSet's `app.kubernetes.io/version` label (`.Chart.AppVersion`, the chart's
//! `gha-runner-scale-set.labels` helper). Every release's AutoscalingRunnerSet controller deletes
//! a scale set whose label its version check does not allow
//! ([`crate::release::ArcRelease::version_check`], at the top of
//! `AutoscalingRunnerSetReconciler.Reconcile`), so the order matters:
//! - the controller first: the new controller judges the old labels;
//! - the charts first: the old controller, still running, judges the new labels;
//! - neither allowed: the old controller is stopped, the charts relabel the scale sets while no
//!   controller runs, then the new controller starts.
//!
//! The verdict on each scale set in the order chosen is the new release's rule applied to the
//! scale set as its chart relabels it ([`SetAction`]); the verdicts of the two wrong orders are
//! the version checks above.

use serde::Serialize;

use crate::release::{ArcRelease, VersionCheck};

/// The release an upgrade goes to, and its `build.Version` for `next`: [`crate::arc::target`].
pub use crate::arc::target::{NEXT_VERSION, Target};

/// 0.14's EphemeralRunnerSet finalizer (`ephemeralRunnerSetFinalizerName` in
/// ephemeralrunnerset_controller.go, gha-runner-scale-set-0.14.2: the runner's name), which only
/// 0.14's controller removes.
pub const FINALIZER_0_14_SET: &str = "ephemeralrunner.actions.github.com/finalizer";

/// Which part of the installation is upgraded before the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Order {
    /// The new controller allows every scale set's current label: controller, then charts.
    ControllerFirst,
    /// The old controller allows the new label and the new controller does not allow the old
    /// one: charts, then controller.
    ChartsFirst,
    /// Each controller refuses the other's labels: stop the old controller, upgrade the charts,
    /// start the new controller.
    ControllerStopped,
}

/// The order chosen and why, with what each wrong order would delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderChoice {
    pub order: Order,
    pub why: String,
    /// How many scale sets the new controller deletes if it starts before their charts are
    /// upgraded (its version check on their current labels).
    pub controller_first_deletes: usize,
    /// Whether the old controller deletes a scale set whose chart is upgraded while it runs (its
    /// version check on the new release's label); `None` when the old release is not known.
    pub charts_first_deletes: Option<bool>,
}

/// The version check of the new release on each current label, and of the old release on the
/// new label; the order that loses nothing.
///
/// `labels` holds each scale set's `app.kubernetes.io/version` (`None`: no label). `from` is the
/// release the controller runs now; unknown, its check is assumed to refuse the new label (the
/// safe order: the controller stopped).
pub fn choose_order(
    from: Option<&'static ArcRelease>,
    to: Target,
    labels: &[Option<&str>],
) -> OrderChoice {
    let controller_first_deletes = labels
        .iter()
        .filter(|l| !to.version_check(**l).allowed)
        .count();
    let charts_first_deletes = from.map(|f| !f.version_check(Some(to.label())).allowed);
    let (order, why) = if controller_first_deletes == 0 {
        (
            Order::ControllerFirst,
            format!(
                "ARC {}'s version check allows every scale set's app.kubernetes.io/version label as it is",
                to.name()
            ),
        )
    } else if charts_first_deletes == Some(false) {
        let f = from.map_or("?", |f| f.version);
        (
            Order::ChartsFirst,
            format!(
                "ARC {}'s version check refuses {} scale set(s) as labelled now, and ARC {f}'s allows the label {}",
                to.name(),
                controller_first_deletes,
                to.label()
            ),
        )
    } else {
        let old = match from {
            Some(f) => format!("ARC {}'s refuses the label {}", f.version, to.label()),
            None => "the running controller's release is not known, so its check is assumed to refuse the new label".to_string(),
        };
        (
            Order::ControllerStopped,
            format!(
                "ARC {}'s version check refuses {} scale set(s) as labelled now and {old}: no controller may run while the charts relabel them",
                to.name(),
                controller_first_deletes
            ),
        )
    };
    OrderChoice {
        order,
        why,
        controller_first_deletes,
        charts_first_deletes,
    }
}

/// What the new controller does to one scale set, in the order chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SetAction {
    /// Nothing touches its runners or its listener.
    Kept,
    /// A new EphemeralRunnerSet replaces the newest one (`RunnerSetSpecHash()` differs from its
    /// `actions.github.com/runner-spec-hash`): idle and pending runners deleted.
    Replaced,
    /// Only the listener is made again (`ListenerSpecHash()` or the values-hash differs): job
    /// pickup pauses.
    ListenerRecreated,
    /// The version check deletes it (its label stays one the new release refuses).
    DeletedByVersionCheck,
    /// `next`: its 0.14 set (`<scale set>-xxxxx`) is left running beside a new set named like the
    /// scale set, which the new controller makes; the listener is made again for the new one.
    LeftBehind,
    /// It could not be judged (see the item's error).
    Failed,
}

/// The facts of one scale set's verdict under the new release, after its chart's upgrade.
#[derive(Debug, Clone, Copy, Default)]
pub struct Verdict {
    pub failed: bool,
    pub deleted_by_version_check: bool,
    /// The set is replaced (runner-spec hash) or recycled.
    pub recycle: bool,
    pub listener_made_again: bool,
}

/// [`SetAction`] of a verdict: an error first, then the version check (ARC's `Reconcile` deletes
/// before it compares any hash), then the hash, then the listener.
pub fn set_action(v: Verdict) -> SetAction {
    if v.failed {
        SetAction::Failed
    } else if v.deleted_by_version_check {
        SetAction::DeletedByVersionCheck
    } else if v.recycle {
        SetAction::Replaced
    } else if v.listener_made_again {
        SetAction::ListenerRecreated
    } else {
        SetAction::Kept
    }
}

/// Why a scale set is replaced at the upgrade: by the upgrade itself, or by a change the running
/// controller has not acted on yet.
pub fn replaced_because(
    from: Option<&'static ArcRelease>,
    to: &'static ArcRelease,
    by_itself: Option<bool>,
    pending_now: Option<bool>,
) -> String {
    match (by_itself, pending_now) {
        (Some(true), _) => {
            let from_api = from.map_or("its release's".to_string(), |f| f.k8s_api.to_string());
            format!(
                "by the upgrade itself: ARC {} hashes the unchanged AutoscalingRunnerSet otherwise (its RunnerSetSpecHash() prints the types of k8s.io/api {}; the set's hash was made over {from_api})",
                to.version, to.k8s_api
            )
        }
        (_, Some(true)) => {
            let f = from.map_or("the running controller".to_string(), |f| {
                format!("ARC {}", f.version)
            });
            format!(
                "a change already pending: the AutoscalingRunnerSet changed since its set was made, and {f} replaces it too"
            )
        }
        _ => format!(
            "ARC {}'s RunnerSetSpecHash() of the AutoscalingRunnerSet differs from its set's actions.github.com/runner-spec-hash",
            to.version
        ),
    }
}

/// Where a chart release of ARC is installed: the object Helm made, and its Helm release when
/// the object carries Helm's annotations (`meta.helm.sh/release-name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartAt {
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub helm_release: Option<String>,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub step: StepKind,
    /// What to do, in a sentence.
    pub title: String,
    /// The commands that do it.
    pub commands: Vec<String>,
    /// What it changes, and why it comes here.
    pub why: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StepKind {
    Crds,
    StopController,
    Controller,
    ScaleSetCharts,
    Migrate,
    LeftBehindSets,
}

/// The OCI repository of ARC's charts.
pub const CHARTS: &str = "oci://ghcr.io/actions/actions-runner-controller-charts";

/// What the steps name besides the order: the controller, the scale sets, the CRDs, the sets
/// to migrate and those left behind.
#[derive(Debug, Clone, Copy)]
pub struct StepInputs<'a> {
    pub controller: Option<&'a ChartAt>,
    pub scale_sets: &'a [ChartAt],
    /// The installed CRDs lack fields the new release writes, or were not read.
    pub crds_behind: bool,
    /// Some set carries a legacy `actions.github.com/integrity-hash` (an install of ARC's master
    /// before the revision fields): `kubectl arc migrate` runs before the new controller.
    pub migrate: bool,
    /// The 0.14 sets (`<scale set>-xxxxx`) the next release leaves running beside its own.
    pub left_behind: &'a [ChartAt],
}

/// The chart version a command names: the release's, or a placeholder for `next` (no tag yet).
fn chart_version(to: Target) -> &'static str {
    match to {
        Target::Release(r) => r.version,
        Target::Next => "<next release>",
    }
}

/// The steps in `choice`'s order. The CRD step is always there (a new release's CRDs are a
/// superset; applying them again is harmless).
pub fn steps(choice: &OrderChoice, to: Target, inputs: &StepInputs<'_>) -> Vec<Step> {
    let (ctrl_ns, ctrl_name, ctrl_release) = match inputs.controller {
        Some(c) => (
            c.namespace.clone(),
            c.name.clone(),
            c.helm_release.clone().unwrap_or_else(|| "<release>".into()),
        ),
        None => (
            "<namespace>".to_string(),
            "<controller>".to_string(),
            "<release>".to_string(),
        ),
    };
    let crds = crds_step(to, inputs.crds_behind);
    let stop = Step {
        step: StepKind::StopController,
        title: format!("Stop the controller {ctrl_ns}/{ctrl_name}"),
        commands: vec![format!(
            "kubectl -n {ctrl_ns} scale deployment {ctrl_name} --replicas=0"
        )],
        why: format!(
            "{}. Listeners and runners keep running; no runner is made or deleted until the new controller starts, so jobs beyond the idle runners wait.",
            choice.why
        ),
    };
    let controller = controller_step(choice, to, (&ctrl_ns, &ctrl_name, &ctrl_release));
    let charts = charts_step(to, inputs.scale_sets);
    let mut steps = match choice.order {
        Order::ControllerFirst => vec![crds, controller, charts],
        Order::ChartsFirst => vec![crds, charts, controller],
        Order::ControllerStopped => vec![crds, stop, charts, controller],
    };
    if inputs.migrate {
        // Between the old controller's last write and the new one's first reconcile.
        let at = steps.iter().position(|s| s.step == StepKind::Controller);
        steps.insert(at.unwrap_or(steps.len()), migrate_step());
    }
    if !inputs.left_behind.is_empty() {
        steps.push(left_behind_step(inputs.left_behind));
    }
    steps
}

fn crds_step(to: Target, crds_behind: bool) -> Step {
    let (name, v) = (to.name(), chart_version(to));
    Step {
        step: StepKind::Crds,
        title: format!("Apply ARC {name}'s CRDs with server-side apply"),
        commands: vec![
            format!(
                "helm pull {CHARTS}/gha-runner-scale-set-controller --version {v} --untar --untardir arc-{name}"
            ),
            format!(
                "kubectl apply --server-side --force-conflicts -f arc-{name}/gha-runner-scale-set-controller/crds/"
            ),
        ],
        why: format!(
            "Helm never upgrades a chart's CRDs, and a CRD prunes the fields it does not declare: {}. They are too large for client-side apply.",
            if crds_behind {
                format!("the installed ones lack fields ARC {name} writes, or were not read")
            } else {
                "first, so that no step runs a controller on CRDs older than it".to_string()
            }
        ),
    }
}

fn controller_step(
    choice: &OrderChoice,
    to: Target,
    (ns, name, release): (&str, &str, &str),
) -> Step {
    let (n, v, label) = (to.name(), chart_version(to), to.label());
    Step {
        step: StepKind::Controller,
        title: format!("Upgrade the controller to ARC {n}"),
        commands: vec![
            format!(
                "helm upgrade {release} {CHARTS}/gha-runner-scale-set-controller -n {ns} --version {v} --reuse-values"
            ),
            format!("kubectl -n {ns} rollout status deployment {name}"),
        ],
        why: match choice.order {
            Order::ControllerStopped => format!(
                "starts ARC {n} (Helm's three-way merge gives the Deployment the chart's replicas again) on scale sets already labelled {label}"
            ),
            Order::ChartsFirst => {
                format!("after the charts: ARC {n} finds every scale set labelled {label}")
            }
            Order::ControllerFirst => format!(
                "ARC {n} allows every scale set's current label, so it may run before the charts"
            ),
        },
    }
}

fn charts_step(to: Target, scale_sets: &[ChartAt]) -> Step {
    let (n, v, label) = (to.name(), chart_version(to), to.label());
    Step {
        step: StepKind::ScaleSetCharts,
        title: format!("Upgrade each scale set's chart to {n}"),
        commands: scale_sets
            .iter()
            .map(|s| chart_command(s, v, label))
            .collect(),
        why: format!(
            "each chart labels its AutoscalingRunnerSet app.kubernetes.io/version={label}, the label ARC's version check reads (a scale set Helm does not manage is labelled by hand)"
        ),
    }
}

fn migrate_step() -> Step {
    Step {
        step: StepKind::Migrate,
        title: "Turn pending integrity-hash cleanups into pending revisions".to_string(),
        commands: vec![
            "kubectl arc migrate -A --dry-run=server".to_string(),
            "kubectl arc migrate -A".to_string(),
        ],
        why: "a set whose legacy actions.github.com/integrity-hash cleanup was pending decodes both revision fields as 0 under the new controller, and the cleanup is lost (docs/migrate.md)".to_string(),
    }
}

fn left_behind_step(sets: &[ChartAt]) -> Step {
    let mut commands = Vec::new();
    for s in sets {
        commands.push(format!("kubectl arc status -n {} {}", s.namespace, s.name));
        commands.push(format!(
            "kubectl -n {} delete ephemeralrunnerset {} --wait=false",
            s.namespace, s.name
        ));
    }
    Step {
        step: StepKind::LeftBehindSets,
        title: "Delete the 0.14 sets the new controller left running, once their jobs are done"
            .to_string(),
        commands,
        why: format!(
            "the next release gets the EphemeralRunnerSet named like its AutoscalingRunnerSet (ARC #4516) and makes it beside the 0.14 set <scale set>-xxxxx, which no listener scales down any more: its runners count twice. Delete each once status shows none of its runners busy; the deletion then waits on 0.14's finalizer {FINALIZER_0_14_SET}, which only 0.14's controller removes."
        ),
    }
}

/// The command that upgrades one scale set's chart, or relabels a scale set Helm does not manage.
fn chart_command(s: &ChartAt, v: &str, label: &str) -> String {
    match &s.helm_release {
        Some(release) => format!(
            "helm upgrade {release} {CHARTS}/gha-runner-scale-set -n {} --version {v} --reuse-values",
            s.namespace
        ),
        None => format!(
            "kubectl -n {} label autoscalingrunnerset {} app.kubernetes.io/version={label} --overwrite",
            s.namespace, s.name
        ),
    }
}

/// What each wrong order would do to one scale set: the new controller's check on its label as
/// it is (the controller first), the old controller's on the new label (the charts first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WrongOrder {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_first: Option<VersionCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charts_first: Option<VersionCheck>,
}

impl WrongOrder {
    /// The refusing checks only: an order that loses nothing says nothing.
    pub fn of(from: Option<&'static ArcRelease>, to: Target, label: Option<&str>) -> WrongOrder {
        let controller_first = Some(to.version_check(label)).filter(|c| !c.allowed);
        let charts_first = from
            .map(|f| f.version_check(Some(to.label())))
            .filter(|c| !c.allowed);
        WrongOrder {
            controller_first,
            charts_first,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.controller_first.is_none() && self.charts_first.is_none()
    }
}

pub use crate::status::install::NEXT_MARKS;

/// The fields the next release writes that an installed CRD lacks: 0.14.2's
/// ([`crate::status::install::missing_for`]) and [`NEXT_MARKS`] (`since: "next"`).
pub fn next_missing(crd: &serde_json::Value) -> Vec<crate::status::install::MissingField> {
    use crate::status::install::{CrdFacts, next_missing_for};
    CrdFacts::from_crd(crd).map_or_else(Vec::new, |facts| next_missing_for(&[facts]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::release;

    fn r(v: &str) -> &'static ArcRelease {
        release(v).unwrap()
    }

    fn t(v: &str) -> Target {
        Target::parse(v).unwrap()
    }

    #[test]
    fn a_patch_upgrade_of_0_14_runs_the_controller_first() {
        let c = choose_order(Some(r("0.14.0")), t("0.14.2"), &[Some("0.14.0")]);
        assert_eq!(c.order, Order::ControllerFirst);
        assert_eq!(c.controller_first_deletes, 0);
        assert_eq!(c.charts_first_deletes, Some(false));
    }

    #[test]
    fn a_minor_upgrade_stops_the_controller_because_each_refuses_the_other() {
        // 0.13.1 refuses 0.14.2 (another minor) and 0.14.2 refuses 0.13.1.
        let c = choose_order(
            Some(r("0.13.1")),
            t("0.14.2"),
            &[Some("0.13.1"), Some("0.13.1")],
        );
        assert_eq!(c.order, Order::ControllerStopped);
        assert_eq!(c.controller_first_deletes, 2);
        assert_eq!(c.charts_first_deletes, Some(true));
        assert!(
            c.why.contains("ARC 0.13.1's refuses the label 0.14.2"),
            "{}",
            c.why
        );
    }

    #[test]
    fn before_0_12_even_a_patch_upgrade_needs_the_controller_stopped() {
        // 0.9.0 to 0.11.0 compare the label with build.Version exactly.
        let c = choose_order(Some(r("0.9.2")), t("0.9.3"), &[Some("0.9.2")]);
        assert_eq!(c.order, Order::ControllerStopped);
        assert_eq!(c.charts_first_deletes, Some(true));
    }

    #[test]
    fn an_old_controller_that_allows_the_new_label_lets_the_charts_go_first() {
        // A controller of 0.14.0 and scale sets still labelled 0.13.1: 0.14.2 refuses them,
        // 0.14.0 allows 0.14.2.
        let c = choose_order(Some(r("0.14.0")), t("0.14.2"), &[Some("0.13.1")]);
        assert_eq!(c.order, Order::ChartsFirst);
    }

    #[test]
    fn an_unknown_running_release_is_assumed_to_refuse_the_new_label() {
        let c = choose_order(None, t("0.14.2"), &[None]);
        assert_eq!(c.order, Order::ControllerStopped);
        assert_eq!(c.charts_first_deletes, None);
        assert!(c.why.contains("not known"), "{}", c.why);
    }

    #[test]
    fn steps_follow_the_order_and_name_the_helm_releases() {
        let c = choose_order(Some(r("0.13.1")), t("0.14.2"), &[Some("0.13.1")]);
        let controller = ChartAt {
            namespace: "arc-systems".into(),
            name: "arc-gha-rs-controller".into(),
            helm_release: Some("arc".into()),
        };
        let sets = [
            ChartAt {
                namespace: "arc-runners".into(),
                name: "a".into(),
                helm_release: Some("a".into()),
            },
            ChartAt {
                namespace: "arc-runners".into(),
                name: "b".into(),
                helm_release: None,
            },
        ];
        let s = steps(
            &c,
            t("0.14.2"),
            &StepInputs {
                controller: Some(&controller),
                scale_sets: &sets,
                crds_behind: true,
                migrate: false,
                left_behind: &[],
            },
        );
        let kinds: Vec<StepKind> = s.iter().map(|s| s.step).collect();
        assert_eq!(
            kinds,
            [
                StepKind::Crds,
                StepKind::StopController,
                StepKind::ScaleSetCharts,
                StepKind::Controller
            ]
        );
        assert_eq!(
            s[1].commands,
            ["kubectl -n arc-systems scale deployment arc-gha-rs-controller --replicas=0"]
        );
        assert_eq!(
            s[2].commands,
            [
                "helm upgrade a oci://ghcr.io/actions/actions-runner-controller-charts/gha-runner-scale-set -n arc-runners --version 0.14.2 --reuse-values",
                "kubectl -n arc-runners label autoscalingrunnerset b app.kubernetes.io/version=0.14.2 --overwrite"
            ]
        );
        assert!(
            s[3].commands[0].starts_with("helm upgrade arc "),
            "{:?}",
            s[3]
        );
        let c = choose_order(Some(r("0.14.0")), t("0.14.2"), &[Some("0.14.0")]);
        let kinds: Vec<StepKind> = steps(
            &c,
            t("0.14.2"),
            &StepInputs {
                controller: None,
                scale_sets: &sets,
                crds_behind: false,
                migrate: false,
                left_behind: &[],
            },
        )
        .iter()
        .map(|s| s.step)
        .collect();
        assert_eq!(
            kinds,
            [
                StepKind::Crds,
                StepKind::Controller,
                StepKind::ScaleSetCharts
            ]
        );
    }

    #[test]
    fn the_version_check_comes_before_the_hash() {
        let v = Verdict {
            deleted_by_version_check: true,
            recycle: true,
            ..Verdict::default()
        };
        assert_eq!(set_action(v), SetAction::DeletedByVersionCheck);
        let v = Verdict {
            listener_made_again: true,
            ..Verdict::default()
        };
        assert_eq!(set_action(v), SetAction::ListenerRecreated);
        assert_eq!(set_action(Verdict::default()), SetAction::Kept);
        let v = Verdict {
            failed: true,
            recycle: true,
            ..Verdict::default()
        };
        assert_eq!(set_action(v), SetAction::Failed);
    }

    #[test]
    fn a_wrong_order_says_only_the_checks_that_refuse() {
        let w = WrongOrder::of(Some(r("0.14.0")), t("0.14.2"), Some("0.14.0"));
        assert!(w.is_empty());
        let w = WrongOrder::of(Some(r("0.13.1")), t("0.14.2"), Some("0.13.1"));
        assert_eq!(
            w.controller_first.as_ref().unwrap().label.as_deref(),
            Some("0.13.1")
        );
        assert_eq!(w.charts_first.as_ref().unwrap().release, "0.13.1");
    }

    #[test]
    fn next_refuses_0_14_labels_and_adds_the_left_behind_sets_and_the_migration() {
        // 0.14.2 refuses 0.15.0 (another minor) and next (0.15.0) refuses 0.14.2.
        let c = choose_order(Some(r("0.14.2")), Target::Next, &[Some("0.14.2")]);
        assert_eq!(c.order, Order::ControllerStopped);
        assert_eq!(c.charts_first_deletes, Some(true));
        let check = Target::Next.version_check(Some("0.14.2"));
        assert!(!check.allowed);
        assert_eq!(check.release, "next");
        assert!(Target::Next.version_check(Some("0.15.3")).allowed);
        let sets = [ChartAt {
            namespace: "arc-runners".into(),
            name: "a".into(),
            helm_release: None,
        }];
        let old = [ChartAt {
            namespace: "arc-runners".into(),
            name: "a-x7k2p".into(),
            helm_release: None,
        }];
        let s = steps(
            &c,
            Target::Next,
            &StepInputs {
                controller: None,
                scale_sets: &sets,
                crds_behind: true,
                migrate: true,
                left_behind: &old,
            },
        );
        let kinds: Vec<StepKind> = s.iter().map(|s| s.step).collect();
        assert_eq!(
            kinds,
            [
                StepKind::Crds,
                StepKind::StopController,
                StepKind::ScaleSetCharts,
                StepKind::Migrate,
                StepKind::Controller,
                StepKind::LeftBehindSets
            ]
        );
        assert_eq!(
            s[2].commands,
            [
                "kubectl -n arc-runners label autoscalingrunnerset a app.kubernetes.io/version=0.15.0 --overwrite"
            ]
        );
        assert!(
            s[4].commands[0].contains("--version <next release>"),
            "{:?}",
            s[4]
        );
        assert_eq!(
            s[5].commands[1],
            "kubectl -n arc-runners delete ephemeralrunnerset a-x7k2p --wait=false"
        );
    }
}
