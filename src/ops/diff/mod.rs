//! The diff operation: the desired and live objects → one scale set per desired
//! AutoscalingRunnerSet, paired with its EphemeralRunnerSet as ARC pairs them → drift → a
//! [`DiffReport`].
//!
//! The desired side is what `-f` gives (a Helm render, a manifest: what would be applied), else the
//! cluster's AutoscalingRunnerSets. The live side is the cluster, or `--live` dumps, or nothing with
//! `--local`; EphemeralRunnerSets given with `-f` are live objects too (no one applies them).
//! Writes nothing anywhere.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;

use anyhow::Result;

use crate::cluster::ConnectOptions;
use crate::cluster::api::{ArcApi, Resource};
use crate::core::layout::Layout;
use crate::input::Object;
use crate::ops::Scope;
use crate::ops::impact;
use crate::report::Outcome;
use crate::report::diff::{DiffReport, ScaleSetDiff};

mod gather;
mod judge;

pub(crate) use gather::{Files, read_files};
use gather::{World, complete_from_cluster, prepare, read_sides};
use judge::judge;

/// What to compare, checked: the command's arguments after validation.
#[derive(Clone)]
pub(crate) struct Plan {
    pub(crate) layout: &'static Layout,
    /// AutoscalingRunnerSet names (none: every one in scope), `-n`, `-A` and `-l`.
    pub(crate) scope: Scope,
    /// The namespace of objects in files that name none: `-n`, else the kubeconfig context's,
    /// else `default` (kubectl's rule).
    pub(crate) file_namespace: String,
    /// `-f`: the desired side.
    pub(crate) files: Vec<PathBuf>,
    /// `--live`: the live side from dumps.
    pub(crate) live: Vec<PathBuf>,
    /// `--local`: never contact the cluster.
    pub(crate) local: bool,
    /// `--arc-version`, as given.
    pub(crate) arc_version: Option<String>,
    /// `--allow-empty-live`: a live side without any ARC object is meant (a first install).
    pub(crate) allow_empty_live: bool,
    /// `--arc-version`, the release it names (or `next`): its rule judges every scale set.
    pub(crate) arc_release: Option<crate::core::upgrade::Target>,
    /// How to reach the cluster.
    pub(crate) connect: ConnectOptions,
    /// Keep each item's specs for a text diff (the text report); else they are dropped as soon as
    /// the item is judged, so that the report of 10,000 sets holds no decoded spec.
    pub(crate) keep_specs: bool,
    /// `--fail-on`: what exits 1.
    pub(crate) fail_on: FailOn,
}

/// `--fail-on`: what makes `diff` exit 1 (errors exit 2 whatever it says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// A scale set's runners are replaced or recycled (the default).
    Recycle,
    /// Work in flight is hit: new jobs wait for running ones (`impact.waitsForJobs`), or no job is
    /// picked up any more (a scale set deleted by ARC's version check).
    Jobs,
    /// Never 1.
    Never,
}

/// A diff's result: the report, and the inputs that could not be read (said on stderr).
pub(crate) struct Diff {
    pub(crate) report: DiffReport,
    pub(crate) errors: Vec<String>,
    /// `--fail-on`, which the outcome follows.
    pub(crate) fail_on: FailOn,
}

impl Diff {
    /// The README's exit-code rule: 2 when anything could not be read or compared, else 1 for
    /// what `--fail-on` names (by default a recycle), else 0.
    pub(crate) fn outcome(&self) -> Outcome {
        let items = &self.report.items;
        let hit = match self.fail_on {
            FailOn::Recycle => items.iter().any(|i| i.recycle == Some(true)),
            FailOn::Jobs => (items.iter()).any(|i| {
                i.impact
                    .as_ref()
                    .is_some_and(|m| m.waits_for_jobs || m.scale_set_deleted)
                    || i.deleted_by_version_check.is_some()
            }),
            FailOn::Never => false,
        };
        if !self.errors.is_empty() || items.iter().any(|i| i.error.is_some()) {
            Outcome::Failed
        } else if hit {
            Outcome::Drift
        } else {
            Outcome::Clean
        }
    }
}

/// Read the files, complete from the cluster where allowed and needed, pair and compare.
pub(crate) fn run(plan: &Plan, stdin: &mut dyn Read) -> Result<Diff> {
    let files = read_files(plan, stdin);
    let (mut world, ask_cluster) = prepare(plan, files)?;
    if ask_cluster {
        let rt = crate::ops::runtime()?;
        return rt.block_on(async {
            complete_from_cluster(plan, &mut world).await?;
            Ok(judge_with_impact(plan, world).await)
        });
    }
    let mut diff = judge(plan, &mut world);
    forecast(&mut world, &mut diff.report);
    Ok(diff)
}

/// Judge, then read the runners of the namespaces whose sets a change concerns (those the files
/// did not give) and forecast the impact.
async fn judge_with_impact(plan: &Plan, mut world: World) -> Diff {
    let mut diff = judge(plan, &mut world);
    if let Some(client) = world.client.clone() {
        let needed: BTreeSet<String> = impact::namespaces_needed(&diff.report.items)
            .into_iter()
            .filter(|ns| !world.runners.knows(ns))
            .collect();
        (world.runners)
            .list(&client, &needed, plan.scope.all_namespaces)
            .await;
    }
    forecast(&mut world, &mut diff.report);
    diff
}

/// Attach each item's impact and the report's totals.
fn forecast(world: &mut World, report: &mut DiffReport) {
    let controllers = match world.controllers.take() {
        Some(impact::Controllers::Unread(_)) | None if !world.file_controllers.is_empty() => {
            impact::Controllers::Read(std::mem::take(&mut world.file_controllers))
        }
        Some(c) => c,
        None => impact::Controllers::Unread(
            "the controller Deployment was not read: not in the input".to_string(),
        ),
    };
    impact::attach(&mut report.items, &world.runners, &controllers);
    let impacts: Vec<_> = report
        .items
        .iter()
        .filter_map(|i| i.impact.as_ref())
        .collect();
    report.impact = (!impacts.is_empty()).then(|| crate::core::impact::ImpactTotals::of(impacts));
    let namespaces: BTreeSet<String> = (report.items.iter())
        .filter(|i| i.impact.is_some())
        .map(|i| i.namespace.clone())
        .collect();
    let sets: BTreeSet<(String, String)> = world.live_sets.iter().map(Object::key).collect();
    report.runners_outside = world.runners.outside(&namespaces, &sets);
}

/// One context of a fleet run (`plan.connect` names it, `plan.file_namespace` is its namespace
/// default): the files' world completed from its cluster, judged. The error is the context's
/// failure (the files' own errors are the same in every context and are said before any is
/// contacted, by [`check_files`]).
pub(crate) async fn run_in_context(plan: &Plan, files: Files) -> Result<Diff> {
    let (mut world, ask_cluster) = prepare(plan, files)?;
    if ask_cluster {
        complete_from_cluster(plan, &mut world).await?;
        return Ok(judge_with_impact(plan, world).await);
    }
    let mut diff = judge(plan, &mut world);
    forecast(&mut world, &mut diff.report);
    Ok(diff)
}

/// The files' errors that stop a run before any cluster is contacted (no ARC object in `-f`),
/// checked once for a fleet run under the first context's namespace rule.
pub(crate) fn check_files(plan: &Plan, files: &Files) -> Result<()> {
    read_sides(plan, files.clone(), &mut World::default()).map(|_| ())
}

/// The report of a run that could not read its input at all: no item.
pub(crate) fn empty_report(plan: &Plan) -> DiffReport {
    DiffReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "DiffReport",
        layout: plan.layout.k8s_api.clone(),
        arc_version: None,
        arc_version_from: None,
        defaults_from: None,
        not_in_change: 0,
        impact: None,
        runners_outside: Vec::new(),
        items: Vec::new(),
    }
}

/// `upgrade-plan`'s reading of an installation: the world `diff` reads without `-f` (each live
/// scale set compared with its own set; the cluster, or `--live` dumps with `--local`), the
/// runners of every namespace of its scale sets, and ARC's CRDs as installed. Read once, judged
/// once per hypothesis of the plan ([`Installation::judge`]).
#[derive(Clone)]
pub(crate) struct Installation {
    world: World,
    /// ARC's CRDs: the cluster's, or those in the dump.
    crds: Vec<Object>,
    /// Why the cluster's CRDs could not all be read.
    crds_unread: Option<String>,
}

impl Installation {
    /// Read the installation under `plan` (no `-f`: its `live` files are the dump).
    pub(crate) fn read(plan: &Plan, stdin: &mut dyn Read) -> Result<Installation> {
        let files = read_files(plan, stdin);
        crate::ops::runtime()?.block_on(Installation::read_in_context(plan, files))
    }

    /// [`Installation::read`] from files already read (none: one context of a fleet run).
    pub(crate) async fn read_in_context(plan: &Plan, files: Files) -> Result<Installation> {
        let crds: Vec<Object> = (files.live.objects.iter())
            .filter(|o| {
                o.kind == "CustomResourceDefinition" && o.name().ends_with(".actions.github.com")
            })
            .cloned()
            .collect();
        let (mut world, ask_cluster) = prepare(plan, files)?;
        let mut found = Installation {
            crds,
            crds_unread: None,
            world: World::default(),
        };
        if ask_cluster {
            complete_from_cluster(plan, &mut world).await?;
            if let Some(client) = world.client.clone() {
                let namespaces: BTreeSet<String> = (world.desired.iter())
                    .map(|o| o.namespace().to_string())
                    .collect();
                (world.runners)
                    .list(&client, &namespaces, plan.scope.all_namespaces)
                    .await;
                found.read_crds(&client).await;
            }
        } else if found.crds.is_empty() {
            found.crds_unread = Some("the dump holds no CustomResourceDefinition of ARC".into());
        }
        found.world = world;
        Ok(found)
    }

    async fn read_crds(&mut self, client: &kube::Client) {
        for name in crate::core::status::install::ARC_CRDS {
            match (client.get(Resource::CUSTOM_RESOURCE_DEFINITIONS, "", name)).await {
                Ok(Some(crd)) => self.crds.push(crd),
                Ok(None) => {}
                Err(e) => {
                    self.crds.clear();
                    self.crds_unread = Some(format!("ARC's CRDs could not be read: {e}"));
                    return;
                }
            }
        }
    }

    /// The scale sets in view.
    pub(crate) fn scale_sets(&self) -> &[Object] {
        &self.world.desired
    }

    /// ARC's CRDs as installed, or why they were not read.
    pub(crate) fn crds(&self) -> (&[Object], Option<&str>) {
        (&self.crds, self.crds_unread.as_deref())
    }

    /// The controller Deployments found (the cluster's and the files'), or why none was read.
    pub(crate) fn controllers(
        &self,
    ) -> (
        Vec<crate::cluster::preflight::ControllerArgs>,
        Option<String>,
    ) {
        let mut found = self.world.file_controllers.clone();
        match &self.world.controllers {
            Some(impact::Controllers::Read(list)) => {
                found.extend(
                    list.iter()
                        .filter(|c| !found.contains(c))
                        .cloned()
                        .collect::<Vec<_>>(),
                );
                (found, None)
            }
            Some(impact::Controllers::Unread(why)) => (found, Some(why.clone())),
            None => (
                found,
                Some("the controller Deployment was not read: not in the input".to_string()),
            ),
        }
    }

    /// The impact of `change` on an item's set, by `mechanism`'s rule, from the runners read and
    /// `controllers` ([`Installation::controllers`], read once by the caller), for a change
    /// `diff` does not judge itself (`upgrade-plan --to next`).
    pub(crate) fn forecast(
        &self,
        item: &ScaleSetDiff,
        change: crate::core::impact::Change,
        mechanism: crate::core::release::Mechanism,
        controllers: &impact::Controllers,
    ) -> Option<crate::core::impact::Impact> {
        let set = item.set_facts.as_ref()?;
        let of = impact::Concerned {
            namespace: &item.namespace,
            set,
            mechanism,
            version: None,
            listener_restart: true,
        };
        Some(of.forecast(change, &self.world.runners, controllers))
    }

    /// Every scale set judged by `plan`'s release (`plan.arc_release`), each
    /// AutoscalingRunnerSet first labelled `app.kubernetes.io/version=relabel` as its chart's
    /// upgrade labels it, with the impact on the runners read.
    pub(crate) fn judge(&self, plan: &Plan, relabel: Option<&str>) -> Diff {
        let mut world = self.world.clone();
        if let Some(v) = relabel {
            let label = crate::core::release::LABEL_VERSION.to_string();
            for o in world
                .desired
                .iter_mut()
                .chain(world.live_scale_sets.values_mut())
            {
                o.meta.labels.insert(label.clone(), v.to_string());
            }
        }
        let mut diff = judge(plan, &mut world);
        forecast(&mut world, &mut diff.report);
        diff
    }
}
