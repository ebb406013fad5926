//! The diff operation: the desired and live objects → one scale set per desired
//! AutoscalingRunnerSet, paired with its EphemeralRunnerSet as ARC pairs them → drift → a
//! [`DiffReport`].
//!
//! The desired side is what `-f` gives (a Helm render, a manifest: what would be applied), else the
//! cluster's AutoscalingRunnerSets. The live side is the cluster, or `--live` dumps, or nothing with
//! `--local`; EphemeralRunnerSets given with `-f` are live objects too (no one applies them).
//! Writes nothing anywhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::cluster::{self, ConnectOptions};
use crate::core::arc;
use crate::core::desired::DesiredError;
use crate::core::drift::{DriftError, drift};
use crate::core::layout::Layout;
use crate::core::pairing::{self, PairedBy, Pairing};
use crate::core::recycle_loop::round_trip_of_autoscaling_runner_set;
use crate::core::revision::RevisionError;
use crate::core::selector::Selector;
use crate::input::{self, Object};
use crate::ops::Scope;
use crate::ops::impact;
use crate::report::Outcome;
use crate::report::diff::{DiffReport, ScaleSetDiff};

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

/// Everything the comparison reads: desired AutoscalingRunnerSets and the live objects, each with
/// its origin. Built from files, then completed from the cluster when that is allowed and needed.
#[derive(Default, Clone)]
struct World {
    /// The desired AutoscalingRunnerSets: `-f`'s, and only `-f`'s; without `-f`, the live ones
    /// (there is no change to judge: each scale set is compared with its own set).
    desired: Vec<Object>,
    /// Live AutoscalingRunnerSets (cluster or --live), by namespace/name.
    live_scale_sets: BTreeMap<(String, String), Object>,
    /// Live EphemeralRunnerSets (cluster, --live, or -f).
    live_sets: Vec<Object>,
    /// AutoscalingListeners from the files (their hash annotations say when ARC recreates them).
    listeners: Vec<Object>,
    /// Namespaces whose EphemeralRunnerSets are all known (listed, or files-only mode): a scale set
    /// without one there is new, not unknown.
    complete: BTreeSet<String>,
    /// Every namespace's EphemeralRunnerSets are known (files only, or listed across namespaces).
    complete_everywhere: bool,
    /// Desired scale sets that failed before any comparison (an object kubectl refuses, a
    /// duplicate, ...), by scale set.
    failed: Vec<ScaleSetDiff>,
    /// Live objects that could not be read, by the scale set they belong to: reported only for a
    /// scale set that is judged (a broken set of another scale set is not this change's).
    failed_live: Vec<ScaleSetDiff>,
    /// Files that could not be read.
    errors: Vec<String>,
    /// The ARC release and where it was read, when the cluster says.
    arc_version: Option<(String, String)>,
    /// The AutoscalingRunnerSet CRDs found (the cluster's, the files'): whose defaults apply.
    crds: crate::ops::defaults::Crds,
    /// The EphemeralRunners read (files, then the cluster for the namespaces a change concerns).
    runners: impact::Runners,
    /// The controller Deployments whose arguments give the update strategy (the cluster's).
    controllers: Option<impact::Controllers>,
    /// Controller Deployments given in the files (a render of ARC's controller chart).
    file_controllers: Vec<crate::cluster::preflight::ControllerArgs>,
    /// The cluster's client, once connected: the forecast lists runners with it.
    client: Option<kube::Client>,
}

/// The live sets indexed by what ARC's pairing looks at, built once: each scale set's candidates
/// are the sets of its namespace that name it by owner uid, owner name, scale-set label or own
/// name, and [`pairing::pair`] applies ARC's rules to those alone (any set a rule can take is a
/// candidate, so the answer is the one over all sets, at a cost linear in the sets).
struct SetIndex {
    by_key: HashMap<(String, String), Vec<usize>>,
}

impl SetIndex {
    fn new(sets: &[Object]) -> SetIndex {
        let mut by_key: HashMap<(String, String), Vec<usize>> = HashMap::new();
        for (i, set) in sets.iter().enumerate() {
            let p = set.pairing_set();
            let mut keys: Vec<String> = vec![format!("n:{}", p.name)];
            if let Some((_, _, name, uid)) = p.owner {
                keys.push(format!("o:{name}"));
                if !uid.is_empty() {
                    keys.push(format!("u:{uid}"));
                }
            }
            if let Some(label) = p.label_name {
                keys.push(format!("l:{label}"));
            }
            keys.dedup();
            for k in keys {
                by_key
                    .entry((p.namespace.to_string(), k))
                    .or_default()
                    .push(i);
            }
        }
        SetIndex { by_key }
    }

    /// The indexes of the sets that may belong to the scale set, in list order.
    fn candidates(&self, scale_set: &pairing::ScaleSet<'_>) -> Vec<usize> {
        let ns = scale_set.namespace.to_string();
        let mut keys = vec![
            format!("n:{}", scale_set.name),
            format!("o:{}", scale_set.name),
            format!("l:{}", scale_set.name),
        ];
        if let Some(uid) = scale_set.uid {
            keys.push(format!("u:{uid}"));
        }
        let mut found: Vec<usize> = keys
            .into_iter()
            .filter_map(|k| self.by_key.get(&(ns.clone(), k)))
            .flatten()
            .copied()
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// Each desired scale set's pairing (by its index in `world.desired`), computed once.
/// Under the next release (`next`), each scale set's set is the one named like it
/// ([`Pairing::named_like`]).
fn pair_all(world: &World, next: bool) -> Vec<Option<Pairing>> {
    let index = SetIndex::new(&world.live_sets);
    let name_of = |i: usize| world.live_sets[i].name().to_string();
    world
        .desired
        .iter()
        .map(|ars| {
            let p = pair_of(world, &index, ars)?;
            Some(if next {
                p.named_like(ars.name(), name_of)
            } else {
                p
            })
        })
        .collect()
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

/// `-f` and `--live` as read, once (standard input can be read only once): each context of a
/// fleet run sorts its own copy under its own namespace default.
#[derive(Clone, Default)]
pub(crate) struct Files {
    given: input::Inputs,
    live: input::Inputs,
}

impl Files {
    /// The files that could not be read (the same for every context).
    pub(crate) fn errors(&self) -> impl Iterator<Item = &String> {
        self.given.errors.iter().chain(&self.live.errors)
    }
}

/// Read `-f` and `--live` through the one input layer (no namespace rule applied yet).
pub(crate) fn read_files(plan: &Plan, stdin: &mut dyn Read) -> Files {
    Files {
        given: input::read(&plan.files, stdin),
        live: input::read(&plan.live, stdin),
    }
}

/// The world the files give under `plan`'s namespace rule, and whether the cluster must complete
/// it (no I/O).
fn prepare(plan: &Plan, files: Files) -> Result<(World, bool)> {
    let offline = plan.local || !plan.live.is_empty();
    let mut world = World::default();
    let (given, live) = read_sides(plan, files, &mut world)?;
    let filter = Filter {
        names: &plan.scope.names,
        selector: plan.scope.selector(),
    };
    let files_given = !plan.files.is_empty();
    if files_given || !plan.live.is_empty() {
        sort_sides(plan, given, live, &filter, &mut world);
    }
    if plan.arc_version.is_none() {
        // A controller Deployment among the files (a render of its chart, a dump) says the release,
        // as `status -f` reads it; the cluster's own, when read, takes its place.
        let revision_sets = world
            .live_sets
            .iter()
            .any(crate::ops::release::has_revision_fields);
        world.arc_version = running_release(&world.file_controllers, revision_sets);
    }
    let ask_cluster = if offline {
        world.complete_everywhere = true;
        false
    } else {
        !files_given || needs_cluster(&world)
    };
    Ok((world, ask_cluster))
}

/// The release the controllers run, as (version, where): the first one's `app.kubernetes.io/version`
/// (else its image tag), or `next` with why when it is recognised as a build of ARC's master over
/// the revision era's CRDs ([`crate::core::status::install::controller_target`]).
fn running_release(
    controllers: &[crate::cluster::preflight::ControllerArgs],
    revision_crd: bool,
) -> Option<(String, String)> {
    use crate::core::status::install::controller_target;
    controllers.iter().find_map(|c| {
        match controller_target(c.version.as_deref(), c.image_tag.as_deref(), revision_crd) {
            Some((crate::core::upgrade::Target::Next, Some(why))) => Some((
                "next".to_string(),
                format!("{} runs the next release: {why}", c.at),
            )),
            _ => Some((c.version.clone()?, c.at.clone())),
        }
    })
}

/// Whether the cluster's EphemeralRunnerSet CRD declares the revision fields (ARC #4638), read
/// only when a controller runs a build of ARC's master; a CRD that cannot be read says no.
async fn revision_crd(
    client: &kube::Client,
    controllers: &[crate::cluster::preflight::ControllerArgs],
) -> bool {
    let master = controllers.iter().any(|c| {
        c.image_tag
            .as_deref()
            .is_some_and(crate::core::next::next_build)
    });
    if !master {
        return false;
    }
    let Ok(Some(crd)) = cluster::get_crd(client, "ephemeralrunnersets.actions.github.com").await
    else {
        return false;
    };
    serde_json::from_str(&crd.json())
        .ok()
        .and_then(|v| crate::core::status::install::CrdFacts::from_crd(&v))
        .is_some_and(|f| f.revision_fields)
}

/// Pair, compare and judge the completed world; the scale sets of `-f` first completed as the
/// API server stores them (`crate::ops::defaults`).
fn judge(plan: &Plan, world: &mut World) -> Diff {
    let defaults_from = (!plan.files.is_empty()).then(|| stored_as_the_server_would(plan, world));
    let mut report = report_of(plan, world, !plan.files.is_empty());
    report.defaults_from = defaults_from.flatten();
    Diff {
        report,
        errors: std::mem::take(&mut world.errors),
        fail_on: plan.fail_on,
    }
}

/// The desired scale sets with the CRD's defaults, those the API server refuses moved to the
/// failed ones; where the defaults came from (`None`: no schema could be read, said as an error).
fn stored_as_the_server_would(plan: &Plan, world: &mut World) -> Option<String> {
    let stated = match (plan.arc_release, &world.arc_version) {
        (Some(t), _) => t.release().map(|r| (r, "--arc-version".to_string())),
        (None, Some((v, from))) => crate::core::release::release(v).map(|r| (r, from.clone())),
        (None, None) => None,
    };
    let source = match crate::ops::defaults::source(&world.crds, stated) {
        Ok(found) => found,
        Err(e) => {
            world.errors.push(e);
            return None;
        }
    };
    let desired = std::mem::take(&mut world.desired);
    let (kept, mut refused, froms) = crate::ops::defaults::complete(&source, desired);
    world.desired = kept;
    world.failed.append(&mut refused);
    (!froms.is_empty()).then(|| froms.join("; "))
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

/// The paths given, for a message.
fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sort what `-f` (the desired side) and `--live` gave, kubectl's namespace rule
/// applied; what cannot be read goes to `world.errors`. A side given without any ARC object is an
/// error (a wrong file, namespace or context), unless `--allow-empty-live` says a live side is
/// meant to be empty.
fn read_sides(plan: &Plan, files: Files, world: &mut World) -> Result<(Vec<Object>, Vec<Object>)> {
    let Files { given, live } = files;
    world.errors.extend(given.errors);
    world.errors.extend(live.errors);
    let (mut given, mut live) = (given.objects, live.objects);
    input::resolve_namespaces(
        &mut given,
        &plan.file_namespace,
        plan.scope.namespace.is_some(),
    );
    input::resolve_namespaces(
        &mut live,
        &plan.file_namespace,
        plan.scope.namespace.is_some(),
    );
    let files_given = !plan.files.is_empty();
    // Any object of ARC's group (a wrong kind or version is reported with the object).
    let holds_arc = |objects: &[Object]| objects.iter().any(Object::in_arc_group);
    if files_given && !holds_arc(&given) && world.errors.is_empty() {
        bail!(
            "no AutoscalingRunnerSet or EphemeralRunnerSet (actions.github.com/v1alpha1) in {}",
            names(&plan.files)
        );
    }
    if !plan.live.is_empty() && !holds_arc(&live) && world.errors.is_empty() {
        if !files_given {
            bail!(
                "no AutoscalingRunnerSet or EphemeralRunnerSet (actions.github.com/v1alpha1) in {}",
                names(&plan.live)
            );
        }
        if !plan.allow_empty_live {
            bail!(
                "--live {}: no AutoscalingRunnerSet or EphemeralRunnerSet (actions.github.com/v1alpha1) in it, so every scale set of -f would be judged new (a wrong namespace or context when it was dumped?); give --allow-empty-live if nothing is deployed there yet",
                names(&plan.live)
            );
        }
    }
    Ok((given, live))
}

/// Sort both sides' objects into the world; with `--live` alone the dump's own scale sets are the
/// desired side, with `-f` a name asked for that it does not give is not found.
fn sort_sides(
    plan: &Plan,
    given: Vec<Object>,
    live: Vec<Object>,
    filter: &Filter<'_>,
    world: &mut World,
) {
    sort_objects(given, Side::Desired, filter, world);
    sort_objects(live, Side::Live, filter, world);
    if plan.files.is_empty() {
        // `--live` alone: no change to judge; the dump's scale sets are compared with their
        // own sets.
        world.desired = (world.live_scale_sets.values())
            .filter(|o| filter.selects(o))
            .cloned()
            .collect();
        return;
    }
    // A name asked for that -f does not give is not found, as kubectl says.
    let given: BTreeSet<&str> = world
        .desired
        .iter()
        .map(Object::name)
        .chain(world.failed.iter().map(|f| f.name.as_str()))
        .collect();
    let missing: Vec<String> = (plan.scope.names.iter())
        .filter(|n| !given.contains(n.as_str()))
        .cloned()
        .collect();
    for name in missing {
        world.failed.push(ScaleSetDiff::failed(
            plan.file_namespace.clone(),
            name.clone(),
            String::new(),
            String::new(),
            format!(
                "AutoscalingRunnerSet {name} not found in {}",
                names(&plan.files)
            ),
        ));
    }
}

/// Pair, compare and judge every scale set of the world: the report, one item per scale set.
fn report_of(plan: &Plan, world: &mut World, files_given: bool) -> DiffReport {
    if !files_given {
        // No change to judge: every scale set of the live side is judged, broken ones included.
        let mut failed_live = std::mem::take(&mut world.failed_live);
        world.failed.append(&mut failed_live);
    }
    let stated = crate::ops::release::Stated {
        flag: plan.arc_release,
        controller: world
            .arc_version
            .as_ref()
            .and_then(|(v, from)| Some((crate::core::upgrade::Target::parse(v)?, from.clone()))),
    };
    let pairings = pair_all(world, stated.next().is_some());
    let (mut items, not_in_change) = compare_all(plan, world, &pairings, !files_given, &stated);
    items.append(&mut world.failed);
    let judged: BTreeSet<(String, String)> = (items.iter())
        .map(|i| (i.namespace.clone(), i.name.clone()))
        .chain(world.desired.iter().map(Object::key))
        .collect();
    items.extend(
        std::mem::take(&mut world.failed_live)
            .into_iter()
            .filter(|f| judged.contains(&(f.namespace.clone(), f.name.clone()))),
    );
    let items = one_per_scale_set(items);
    let (arc_version, arc_version_from) = match (&plan.arc_version, &world.arc_version) {
        (Some(v), _) => (
            Some(plan.arc_release.map_or(v.clone(), |t| t.name().to_string())),
            Some("--arc-version".to_string()),
        ),
        (None, Some((v, from))) => (Some(v.clone()), Some(from.clone())),
        (None, None) => match labelled_version(world) {
            Some((v, from)) => (Some(v), Some(from)),
            None => (None, None),
        },
    };
    DiffReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "DiffReport",
        layout: plan.layout.k8s_api.clone(),
        arc_version,
        arc_version_from,
        defaults_from: None,
        not_in_change,
        impact: None,
        runners_outside: Vec::new(),
        items,
    }
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

/// One item per scale set, whatever the inputs gave: an error about a scale set replaces its
/// verdict (a verdict next to an error about the same set would be both answers at once), and
/// several errors are one item saying each.
fn one_per_scale_set(items: Vec<ScaleSetDiff>) -> Vec<ScaleSetDiff> {
    let mut by_key: BTreeMap<(String, String), ScaleSetDiff> = BTreeMap::new();
    for item in items {
        let key = (item.namespace.clone(), item.name.clone());
        let Some(mut kept) = by_key.remove(&key) else {
            by_key.insert(key, item);
            continue;
        };
        match (&mut kept.error, &item.error) {
            (Some(a), Some(b)) => {
                if !a.split("; ").any(|e| e == b) {
                    a.push_str("; ");
                    a.push_str(b);
                }
            }
            (None, Some(_)) => kept = item,
            (_, None) => {}
        }
        by_key.insert(key, kept);
    }
    by_key.into_values().collect()
}

/// The ARC release the objects say they are under (`app.kubernetes.io/version`, which ARC and
/// its chart set on all three kinds), in the order of the one release rule
/// ([`crate::ops::release::judging_release`]): a scale set's chart label (a desired one's, else a
/// live one's), else a live set's.
fn labelled_version(world: &World) -> Option<(String, String)> {
    let scale_sets = world.desired.iter().chain(world.live_scale_sets.values());
    scale_sets.chain(&world.live_sets).find_map(|o| {
        let v = o.meta.labels.get("app.kubernetes.io/version")?;
        Some((
            v.clone(),
            format!("label app.kubernetes.io/version of {}", o.describe()),
        ))
    })
}

/// The names and selector that choose scale sets.
struct Filter<'a> {
    names: &'a [String],
    selector: Option<&'a Selector>,
}

impl Filter<'_> {
    fn selects(&self, o: &Object) -> bool {
        (self.names.is_empty() || self.names.iter().any(|n| n == o.name()))
            && self.selector.is_none_or(|s| s.matches(&o.meta.labels))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `-f`: what would be applied.
    Desired,
    /// `--live`: what is there.
    Live,
}

/// Put each object read from files where it belongs, refusing what ARC's Go types or kubectl would
/// refuse, and the same object twice on one side (every copy: which one is meant is the question).
fn sort_objects(objects: Vec<Object>, side: Side, filter: &Filter<'_>, world: &mut World) {
    let mut duplicated: HashMap<(String, String, String), String> = HashMap::new();
    for (i, message) in input::duplicates(&objects) {
        let o = &objects[i];
        let (ns, name) = o.key();
        duplicated
            .entry((o.kind.clone(), ns, name))
            .or_insert(message);
    }
    let mut reported: BTreeSet<(String, String, String)> = BTreeSet::new();
    for o in objects {
        if crate::ops::defaults::is_ars_crd(&o) && world.crds.files.is_none() {
            world.crds.files = Some(o.clone());
        }
        if let Some(c) = impact::controller_of_file(&o) {
            world.file_controllers.push(c);
        }
        match verdict(&o, side, filter, &duplicated, &mut reported) {
            Verdict::Skip => {}
            Verdict::Unreadable(error) => world.errors.push(error),
            Verdict::Fail { scale_set, error } => {
                // A desired object's failure is its scale set's; a live set's is the scale set's
                // it belongs to, reported only if that one is judged, unless the object cannot be
                // read at all: an input kubectl refuses is never an all-clear, whatever it holds.
                let unreadable = o.problem.is_some();
                let live_set = o.kind == arc::KIND_EPHEMERAL_RUNNER_SET || side == Side::Live;
                let (desired_from, current_from) = if live_set {
                    (String::new(), o.describe())
                } else {
                    (o.describe(), String::new())
                };
                let item = ScaleSetDiff::failed(
                    o.namespace().to_string(),
                    scale_set,
                    desired_from,
                    current_from,
                    error,
                );
                if live_set && !unreadable {
                    world.failed_live.push(item);
                } else {
                    world.failed.push(item);
                }
            }
            Verdict::Use => match o.kind.as_str() {
                arc::KIND_AUTOSCALING_RUNNER_SET => match side {
                    Side::Desired => world.desired.push(o),
                    Side::Live => {
                        world.live_scale_sets.insert(o.key(), o);
                    }
                },
                arc::KIND_EPHEMERAL_RUNNER_SET => world.live_sets.push(o),
                KIND_AUTOSCALING_LISTENER => world.listeners.push(o),
                // An EphemeralRunner: read for the impact forecast.
                _ => world.runners.add(&o),
            },
        }
    }
}

/// What [`sort_objects`] does with one object.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Not ours (a chart's Role, Secret), or a scale set the names and the selector leave out.
    Skip,
    /// Refused: the scale set whose row says so, and why.
    Fail { scale_set: String, error: String },
    /// An object kubectl refuses that belongs to no scale set's row (an EphemeralRunner, a
    /// listener, a chart's Role or Secret): the run's error, never dropped.
    Unreadable(String),
    /// An object of ARC's a diff reads (an EphemeralRunner is read and left).
    Use,
}

/// Whether an object read from files is used, and if not, why: in this order, no name, not
/// selected (a desired scale set only: live objects are all kept, since a set is found through
/// its scale set whatever its own name, and live scale sets lend their uid and scale-set id), a
/// problem found while reading, given twice (reported once: `reported` keeps the ones told), an
/// apiVersion ARC does not serve, no spec, an unknown kind.
fn verdict(
    o: &Object,
    side: Side,
    filter: &Filter<'_>,
    duplicated: &HashMap<(String, String, String), String>,
    reported: &mut BTreeSet<(String, String, String)>,
) -> Verdict {
    let ars = o.in_arc_group() && o.kind == arc::KIND_AUTOSCALING_RUNNER_SET;
    let ers = o.in_arc_group() && o.kind == arc::KIND_EPHEMERAL_RUNNER_SET;
    if let Some(problem) = &o.problem
        && !(ars || ers)
    {
        // kubectl refuses the object whatever its kind, and so the input: said, never skipped.
        return Verdict::Unreadable(if problem.starts_with(&o.kind) {
            format!("{}: {problem}", o.origin)
        } else {
            format!("{}: {problem}", o.describe())
        });
    }
    if !o.in_arc_group() {
        return Verdict::Skip;
    }
    let (ns, name) = o.key();
    let scale_set = if ers {
        scale_set_name(o).to_string()
    } else {
        name.clone()
    };
    let fail = |scale_set: String, error: String| Verdict::Fail { scale_set, error };
    if o.meta.name.is_none() {
        let error = format!("{}: {} has no metadata.name", o.origin, o.kind);
        return fail(format!("<unnamed in {}>", o.origin), error);
    }
    if ars && side == Side::Desired && !filter.selects(o) {
        return Verdict::Skip;
    }
    if let Some(problem) = &o.problem
        && (ars || ers)
    {
        // A problem found while reading already names the object; others do not.
        let error = if problem.starts_with(&o.kind) {
            format!("{}: {problem}", o.origin)
        } else {
            format!("{}: {problem}", o.describe())
        };
        return fail(scale_set, error);
    }
    let id = (o.kind.clone(), ns, name.clone());
    if let Some(dup) = duplicated.get(&id)
        && (ars || ers)
    {
        return if reported.insert(id) {
            fail(scale_set, dup.clone())
        } else {
            Verdict::Skip
        };
    }
    match o.kind.as_str() {
        _ if (ars || ers) && o.api_version != arc::API_VERSION => fail(
            scale_set,
            format!(
                "{}: apiVersion {:?} is not served by ARC (use {})",
                o.describe(),
                o.api_version,
                arc::API_VERSION
            ),
        ),
        arc::KIND_AUTOSCALING_RUNNER_SET if o.spec.is_none() => {
            fail(scale_set, format!("{}: {SPEC_MISSING_ARS}", o.describe()))
        }
        arc::KIND_EPHEMERAL_RUNNER_SET if o.spec.is_none() => fail(
            scale_set,
            format!("{}: {}", o.describe(), RevisionError::MissingSpec),
        ),
        arc::KIND_AUTOSCALING_RUNNER_SET
        | arc::KIND_EPHEMERAL_RUNNER_SET
        | KIND_AUTOSCALING_LISTENER
        | arc::KIND_EPHEMERAL_RUNNER => Verdict::Use,
        other => fail(
            name,
            format!(
                "{}: unknown kind {other:?} in {} (expected AutoscalingRunnerSet or EphemeralRunnerSet)",
                o.describe(),
                o.api_version
            ),
        ),
    }
}

/// ARC's listener kind: one per scale set, in the controller's namespace.
const KIND_AUTOSCALING_LISTENER: &str = "AutoscalingListener";

/// An AutoscalingRunnerSet without `spec` (or with `spec: null`) has no runner template: Go would
/// decode it as the zero spec, but no real scale set looks like that, so it is reported instead.
const SPEC_MISSING_ARS: &str = "spec is missing: an AutoscalingRunnerSet without one has no runner template to compare (is this the whole object?)";

/// The pairing of `ars` among the live sets, with the uid of the live scale set when known.
fn pair_of(world: &World, index: &SetIndex, ars: &Object) -> Option<Pairing> {
    let live_uid = world
        .live_scale_sets
        .get(&ars.key())
        .and_then(|l| l.meta.uid.as_deref());
    let scale_set = pairing::ScaleSet {
        namespace: ars.namespace(),
        name: ars.name(),
        uid: ars.meta.uid.as_deref().or(live_uid),
    };
    let candidates = index.candidates(&scale_set);
    let sets: Vec<_> = candidates
        .iter()
        .map(|&i| world.live_sets[i].pairing_set())
        .collect();
    let mut pairing = pairing::pair(scale_set, &sets)?;
    pairing.chosen = candidates[pairing.chosen];
    for i in &mut pairing.replaced {
        *i = candidates[*i];
    }
    Some(pairing)
}

/// Whether a desired scale set lacks its set among the files, so the cluster must be asked.
/// Sets of other scale sets are not this change's: they never send diff to the cluster.
fn needs_cluster(world: &World) -> bool {
    let failed = failed_keys(world);
    pair_all(world, false)
        .iter()
        .zip(&world.desired)
        .any(|(p, a)| p.is_none() && !failed.contains(&(a.namespace(), a.name())))
}

/// The scale sets already reported as failed: a desired object that could not be read, or a set
/// of theirs that could not (its scale set has a set, broken: not new, not to be asked for).
fn failed_keys(world: &World) -> BTreeSet<(&str, &str)> {
    (world.failed.iter())
        .chain(&world.failed_live)
        .map(|f| (f.namespace.as_str(), f.name.as_str()))
        .collect()
}

/// The name of the scale set a set belongs to: its controller owner's, else ARC's scale-set-name
/// label, else its own.
fn scale_set_name(set: &Object) -> &str {
    match set.owner(arc::KIND_AUTOSCALING_RUNNER_SET) {
        Some(c) => c.name.as_str(),
        None => set
            .meta
            .labels
            .get(pairing::LABEL_SCALE_SET_NAME)
            .map_or(set.name(), String::as_str),
    }
}

/// Complete the live side from the cluster: the scale sets in scope when no file gave any, and for
/// each namespace with a desired scale set every EphemeralRunnerSet (one paged list each) and the
/// live AutoscalingRunnerSets (for their uid and scale-set id).
async fn complete_from_cluster(plan: &Plan, world: &mut World) -> Result<()> {
    let filter = &Filter {
        names: &plan.scope.names,
        selector: plan.scope.selector(),
    };
    let conn = cluster::connect(&plan.connect).await?;
    let client = &conn.client;
    let namespace = plan.scope.namespace_or(&conn.default_namespace);
    let scope = (!plan.scope.all_namespaces).then_some(namespace.as_str());
    if plan.files.is_empty() {
        // The sets of the cluster are judged: their runners are listed meanwhile.
        world.runners.prefetch(client, scope);
    }
    // The controller's release and arguments, where the caller may list Deployments (the read
    // role may not).
    let mut controllers = impact::Controllers::read(client).await;
    if let impact::Controllers::Read(found) = &mut controllers {
        if plan.arc_version.is_none()
            && let Some(running) = running_release(found, revision_crd(client, found).await)
        {
            world.arc_version = Some(running);
        }
        found.append(&mut world.file_controllers);
    }
    world.controllers = Some(controllers);
    world.client = Some(client.clone());
    if plan.files.is_empty() {
        live_scale_sets(client, plan, filter, &namespace, scope, world).await?;
    } else {
        // The installed CRD's defaults complete the render as the API server will.
        match cluster::get_crd(client, crate::ops::defaults::ARS_CRD).await {
            Ok(Some(crd)) => world.crds.cluster = Some(crd),
            Ok(None) => world.crds.cluster_missing = Some("not installed".to_string()),
            Err(e) => world.crds.cluster_missing = Some(e.to_string()),
        }
    }
    let namespaces = live_sets(client, plan, world).await?;
    if !plan.files.is_empty() {
        live_side_of_change(client, &conn.server, plan, &namespaces, world).await?;
    }
    live_listeners(client, world).await;
    Ok(())
}

/// The AutoscalingListeners (ARC makes them in its controller's namespace, so they are listed in
/// all namespaces): their hash annotations say whether ARC makes each listener again. A caller
/// who may not list them (the read role may not) gets no listing: `listenerRestart` is then
/// judged from the live scale set, or left out.
async fn live_listeners(client: &kube::Client, world: &mut World) {
    if world.desired.is_empty() {
        return;
    }
    let Ok(listeners) = cluster::list_objects(
        client,
        KIND_AUTOSCALING_LISTENER,
        AUTOSCALING_LISTENERS,
        None,
        None,
    )
    .await
    else {
        return;
    };
    let known: BTreeSet<(String, String)> = world.listeners.iter().map(Object::key).collect();
    world
        .listeners
        .extend(listeners.into_iter().filter(|l| !known.contains(&l.key())));
}

/// ARC's listener resource.
const AUTOSCALING_LISTENERS: &str = "autoscalinglisteners";

/// No `-f`: the cluster's AutoscalingRunnerSets in scope are the desired side (each its own
/// truth), as `kubectl get` finds them: by name, else listed with `-l`.
async fn live_scale_sets(
    client: &kube::Client,
    plan: &Plan,
    filter: &Filter<'_>,
    namespace: &str,
    scope: Option<&str>,
    world: &mut World,
) -> Result<()> {
    let ars_kind = arc::KIND_AUTOSCALING_RUNNER_SET;
    let live = if plan.scope.names.is_empty() {
        cluster::list_objects(
            client,
            ars_kind,
            arc::AUTOSCALING_RUNNER_SETS,
            scope,
            plan.scope.selector_text(),
        )
        .await?
    } else {
        let mut found = Vec::new();
        for name in &plan.scope.names {
            match cluster::get_object(
                client,
                ars_kind,
                arc::AUTOSCALING_RUNNER_SETS,
                namespace,
                name,
            )
            .await?
            {
                Some(o) => found.push(o),
                None => {
                    cluster::check_namespace(client, namespace).await?;
                    world.failed.push(ScaleSetDiff::failed(
                        namespace.to_string(),
                        name.clone(),
                        String::new(),
                        String::new(),
                        format!("AutoscalingRunnerSet {namespace}/{name} not found"),
                    ));
                }
            }
        }
        found
    };
    if live.is_empty()
        && world.failed.is_empty()
        && let Some(ns) = scope
    {
        cluster::check_namespace(client, ns).await?;
    }
    for o in live.into_iter().filter(|o| filter.selects(o)) {
        if o.spec.is_none() {
            let error = format!("{}: {SPEC_MISSING_ARS}", o.describe());
            let (ns, name) = o.key();
            world.failed.push(ScaleSetDiff::failed(
                ns,
                name,
                o.describe(),
                String::new(),
                error,
            ));
            continue;
        }
        world.live_scale_sets.insert(o.key(), o.clone());
        world.desired.push(o);
    }
    Ok(())
}

/// The EphemeralRunnerSets of every namespace a desired scale set without its set among the files
/// lives in (or of all namespaces with `-A` and no `-f`); returns those namespaces.
async fn live_sets(
    client: &kube::Client,
    plan: &Plan,
    world: &mut World,
) -> Result<BTreeSet<String>> {
    let ers_kind = arc::KIND_EPHEMERAL_RUNNER_SET;
    let pairings = pair_all(world, false);
    let namespaces: BTreeSet<String> = world
        .desired
        .iter()
        .zip(&pairings)
        .filter(|(_, p)| plan.files.is_empty() || p.is_none())
        .map(|(a, _)| a.namespace().to_string())
        .collect();
    let listed = if plan.scope.all_namespaces && plan.files.is_empty() {
        vec![None]
    } else {
        namespaces.iter().map(|ns| Some(ns.as_str())).collect()
    };
    for ns in listed {
        let sets =
            cluster::list_objects(client, ers_kind, arc::EPHEMERAL_RUNNER_SETS, ns, None).await?;
        // Sets from files stay the live truth; the cluster adds the others.
        let known: BTreeSet<(String, String)> = world.live_sets.iter().map(Object::key).collect();
        world
            .live_sets
            .extend(sets.into_iter().filter(|s| !known.contains(&s.key())));
        match ns {
            Some(ns) => {
                world.complete.insert(ns.to_string());
            }
            None => world.complete_everywhere = true,
        }
    }
    Ok(namespaces)
}

/// With `-f`: the live scale sets of the rendered ones (their uid and scale-set id), and a live
/// side without any ARC object refused unless `--allow-empty-live` says it is meant.
async fn live_side_of_change(
    client: &kube::Client,
    server: &str,
    plan: &Plan,
    namespaces: &BTreeSet<String>,
    world: &mut World,
) -> Result<()> {
    let ars_kind = arc::KIND_AUTOSCALING_RUNNER_SET;
    let wanted: BTreeSet<(String, String)> = world.desired.iter().map(Object::key).collect();
    for (ns, name) in wanted {
        if world
            .live_scale_sets
            .contains_key(&(ns.clone(), name.clone()))
        {
            continue;
        }
        if let Some(o) =
            cluster::get_object(client, ars_kind, arc::AUTOSCALING_RUNNER_SETS, &ns, &name).await?
        {
            world.live_scale_sets.insert((ns, name), o);
        }
    }
    // A live side with no ARC object at all is a wrong namespace or context far more often
    // than a first install: fail closed unless told.
    let listed_some = world
        .live_sets
        .iter()
        .any(|s| s.origin == input::Origin::Cluster);
    if !plan.allow_empty_live
        && !namespaces.is_empty()
        && !listed_some
        && world.live_scale_sets.is_empty()
    {
        for ns in namespaces {
            let scale_sets = cluster::list_objects(
                client,
                ars_kind,
                arc::AUTOSCALING_RUNNER_SETS,
                Some(ns),
                None,
            )
            .await?;
            if !scale_sets.is_empty() {
                return Ok(());
            }
        }
        let namespaces: Vec<&str> = namespaces.iter().map(String::as_str).collect();
        bail!(
            "the cluster at {} holds no AutoscalingRunnerSet or EphemeralRunnerSet in namespace {}, so every scale set of -f would be judged new (a wrong namespace or context?); give --allow-empty-live if nothing is deployed there yet",
            server,
            namespaces.join(", ")
        );
    }
    Ok(())
}

/// Where the runner scale set id of a desired scale set comes from, and the id.
fn scale_set_id<'a>(
    ars: &'a Object,
    set: Option<&'a Object>,
    live: Option<&'a Object>,
) -> Result<Option<(String, &'static str)>, String> {
    if let Some(id) = ars
        .meta
        .annotations
        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
    {
        return Ok(Some((id.clone(), "AutoscalingRunnerSet")));
    }
    if let Some(set) = set {
        let runner_spec = set
            .spec_field("ephemeralRunnerSpec")
            .map_err(|e| format!("{}: {e}", set.describe()))?;
        if let Some(runner_spec) = runner_spec {
            #[derive(serde::Deserialize)]
            struct Id {
                #[serde(rename = "runnerScaleSetId")]
                id: Option<serde_json::Number>,
            }
            if let Ok(Id { id: Some(id) }) = serde_json::from_str::<Id>(runner_spec.get())
                && id.as_i64().is_some_and(|n| n != 0)
            {
                return Ok(Some((id.to_string(), "EphemeralRunnerSet")));
            }
        }
    }
    if let Some(id) = live.and_then(|l| l.meta.annotations.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
    {
        return Ok(Some((id.clone(), "LiveAutoscalingRunnerSet")));
    }
    Ok(None)
}

/// Compare every desired scale set with its set; and how many scale sets are only live (not in
/// the change: not judged).
fn compare_all(
    plan: &Plan,
    world: &World,
    pairings: &[Option<Pairing>],
    live_desired: bool,
    stated: &crate::ops::release::Stated,
) -> (Vec<ScaleSetDiff>, usize) {
    let failed = failed_keys(world);
    let listeners = listeners_by_scale_set(&world.listeners);
    let mut items = Vec::new();
    for (ars, pairing) in world.desired.iter().zip(pairings) {
        if pairing.is_none() && failed.contains(&(ars.namespace(), ars.name())) {
            continue; // its set could not be read: reported with it.
        }
        let listener = listeners.get(&ars.key()).copied();
        let mut item = compare_one(
            plan.layout,
            world,
            ars,
            pairing.as_ref(),
            listener,
            live_desired,
            stated,
        );
        // The text diff is the only reader of the specs, and only of an item with differences.
        if !plan.keep_specs {
            item.scale_set_specs = None;
        }
        if !plan.keep_specs || item.differences.is_empty() {
            item.specs = None;
        }
        items.push(item);
    }
    let claimed: BTreeSet<usize> = pairings
        .iter()
        .flatten()
        .flat_map(|p| std::iter::once(p.chosen).chain(p.replaced.iter().copied()))
        .collect();
    let desired: BTreeSet<(&str, &str)> = world
        .desired
        .iter()
        .map(|a| (a.namespace(), a.name()))
        .collect();
    let mut only_live: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (ns, name) in world.live_scale_sets.keys() {
        only_live.insert((ns, name));
    }
    for (i, set) in world.live_sets.iter().enumerate() {
        if !claimed.contains(&i) {
            only_live.insert((set.namespace(), scale_set_name(set)));
        }
    }
    let not_in_change = only_live
        .iter()
        .filter(|k| !desired.contains(k) && !failed.contains(k))
        .count();
    (items, not_in_change)
}

/// The AutoscalingListeners by the scale set they name (`spec.autoscalingRunnerSetNamespace` and
/// `-Name`), indexed once; the first of each scale set, in input order.
fn listeners_by_scale_set(listeners: &[Object]) -> HashMap<(String, String), &Object> {
    let mut by = HashMap::new();
    for l in listeners {
        let field = |f: &str| {
            l.spec_field(f)
                .ok()
                .flatten()
                .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
        };
        if let (Some(ns), Some(name)) = (
            field("autoscalingRunnerSetNamespace"),
            field("autoscalingRunnerSetName"),
        ) {
            by.entry((ns, name)).or_insert(l);
        }
    }
    by
}

/// One scale set's report, with the integrity-hash recycle loop verdict of its template (a
/// property of the template, so given whenever there is one, even when the drift is not).
fn compare_one(
    layout: &'static Layout,
    world: &World,
    ars: &Object,
    pairing: Option<&Pairing>,
    listener: Option<&Object>,
    live_desired: bool,
    stated: &crate::ops::release::Stated,
) -> ScaleSetDiff {
    let set = pairing.map(|p| &world.live_sets[p.chosen]);
    let live = world.live_scale_sets.get(&ars.key());
    // The id ARC reads is the one diff resolves (the render's, else the set's, else the live
    // scale set's): the in-memory hash depends on it, the loop's verdict does not.
    let id = scale_set_id(ars, set, live)
        .ok()
        .flatten()
        .map(|(id, _)| id);
    let recycle_loop = ars
        .spec
        .as_ref()
        .map(|spec| round_trip_of_autoscaling_runner_set(layout, spec.get(), id.as_deref()));
    let in_memory: Option<Result<String, String>> = match &recycle_loop {
        Some(Ok(t)) => Some(t.hash_in_memory.clone().map_err(|e| {
            let spec = ars.spec.as_ref().map_or("{}", |s| s.get());
            let id = id.as_deref().and_then(crate::core::desired::go_atoi);
            let value =
                crate::core::desired::desired_runner_spec_with_id(layout, spec, id.unwrap_or(0))
                    .ok();
            crate::ops::release::integrity_unverifiable(layout, value.as_ref(), &e.to_string())
        })),
        _ => None,
    };
    let mut item = compare_one_drift(layout, world, ars, pairing, live_desired)
        .with_legacy_recycle_loop_as_written(recycle_loop, || {
            crate::core::desired::written_runner_spec(layout, ars.written_spec(None))
        });
    let sides = crate::ops::release::Sides {
        desired: ars,
        set,
        live,
        listener,
        integrity_hash_in_memory: in_memory.as_ref(),
        layout,
    };
    crate::ops::release::judge(&mut item, stated, &sides);
    item
}

fn compare_one_drift(
    layout: &'static Layout,
    world: &World,
    ars: &Object,
    pairing: Option<&Pairing>,
    live_desired: bool,
) -> ScaleSetDiff {
    let (ns, name) = ars.key();
    let desired_from = ars.describe();
    let set = pairing.map(|p| &world.live_sets[p.chosen]);
    let live = world.live_scale_sets.get(&ars.key());
    let Some(set) = set else {
        return without_a_set(layout, world, ars, live, live_desired);
    };
    let current_from = set.describe();
    let fail = |error: String| {
        ScaleSetDiff::failed(
            ns.clone(),
            name.clone(),
            desired_from.clone(),
            current_from.clone(),
            error,
        )
    };
    if set.spec.is_none() {
        return fail(format!("{current_from}: {}", RevisionError::MissingSpec));
    }
    let id = match scale_set_id(ars, Some(set), live) {
        Ok(id) => id,
        Err(e) => return fail(e),
    };
    let runner_spec = match set.spec_field("ephemeralRunnerSpec") {
        Ok(r) => r.map(|r| r.get().to_string()),
        Err(e) => return fail(format!("{current_from}: {e}")),
    };
    let spec = ars.spec.as_ref().map_or("{}", |s| s.get());
    let result = drift(
        layout,
        spec,
        id.as_ref().map(|(id, _)| id.as_str()),
        runner_spec.as_deref(),
    );
    let result = match result {
        Err(DriftError::Desired(DesiredError::MissingScaleSetId)) => {
            return fail(format!(
                "{desired_from}: annotation {} is missing, and neither its EphemeralRunnerSet nor a live AutoscalingRunnerSet carries the scale set's id",
                arc::ANNOTATION_RUNNER_SCALE_SET_ID
            ));
        }
        other => other,
    };
    let mut item = ScaleSetDiff::from_drift(layout, ns, name, desired_from, current_from, result)
        .with_written(|| {
            let desired = crate::core::desired::written_runner_spec(layout, ars.written_spec(None));
            (desired, set.written_spec(Some("ephemeralRunnerSpec")))
        });
    item.desired_file = ars.origin.file().map(str::to_string);
    item.scale_set_id_from = id.map(|(_, from)| from);
    item.set_facts = Some(impact::set_facts(set));
    if let Some(p) = pairing {
        with_pairing(&mut item, p, world);
    }
    item
}

/// A scale set none of whose sets is known: unknown where its namespace's sets were not all
/// read; else new (ARC builds its first set with the same `newEphemeralRunnerSet` as a
/// replacement, so what stops it there stops it here: the id ARC will read is the render's, else
/// the one the live scale set keeps), waiting for ARC when it exists already.
fn without_a_set(
    layout: &'static Layout,
    world: &World,
    ars: &Object,
    live: Option<&Object>,
    live_desired: bool,
) -> ScaleSetDiff {
    let (ns, name) = ars.key();
    let desired_from = ars.describe();
    if !world.complete_everywhere && !world.complete.contains(&ns) {
        return ScaleSetDiff::failed(
            ns.clone(),
            name.clone(),
            desired_from,
            String::new(),
            format!("EphemeralRunnerSet of AutoscalingRunnerSet {ns}/{name} not found"),
        );
    }
    let id = (ars
        .meta
        .annotations
        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
    .or_else(|| live.and_then(|l| l.meta.annotations.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)));
    let spec = ars.spec.as_ref().map_or("{}", |s| s.get());
    if let Err(e) = crate::core::desired::check_builds(layout, spec, id.map(String::as_str)) {
        return ScaleSetDiff::failed(
            ns,
            name,
            desired_from.clone(),
            String::new(),
            format!("{desired_from}: {e}"),
        );
    }
    let waiting = (live_desired || live.is_some()).then(|| {
        waiting_for_arc(
            live.unwrap_or(ars)
                .meta
                .annotations
                .contains_key(arc::ANNOTATION_RUNNER_SCALE_SET_ID),
        )
    });
    ScaleSetDiff::new_scale_set(ns, name, desired_from, waiting, ars.origin.file())
}

/// What a scale set that exists without a set waits for: the set, once ARC has registered the
/// scale set with GitHub (its id annotation), else the registration.
fn waiting_for_arc(registered: bool) -> String {
    if registered {
        "ARC has registered the scale set but not created its EphemeralRunnerSet yet (is the controller running?)".to_string()
    } else {
        format!(
            "ARC has not registered the scale set with GitHub yet (no {} annotation): it creates the EphemeralRunnerSet once it has (is the controller running, and is the GitHub secret valid?)",
            arc::ANNOTATION_RUNNER_SCALE_SET_ID
        )
    }
}

/// What the pairing adds to a comparison: how the set was found when not by its name, the sets
/// ARC is replacing, and a tie ARC may break either way.
fn with_pairing(item: &mut ScaleSetDiff, p: &Pairing, world: &World) {
    if p.by != PairedBy::Name {
        item.paired_by = Some(p.by);
    }
    item.replaced = p
        .replaced
        .iter()
        .map(|&i| world.live_sets[i].name().to_string())
        .collect();
    if p.ambiguous {
        item.note = Some(format!(
            "{} sets share the newest creation time; ARC may use either",
            1 + p.replaced.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Origin;
    use serde_json::json;

    fn object(v: serde_json::Value) -> Object {
        let origin = Origin::File {
            path: "f.yaml".into(),
            document: None,
            items: vec![3],
        };
        let mut o = Object::from_manifest(&v, origin, None);
        if o.meta.namespace.is_none() && o.meta.name.is_some() {
            o.meta.namespace = Some("ci".into());
        }
        o
    }

    fn arc_object(kind: &str, name: &str, labels: serde_json::Value) -> Object {
        object(json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": kind,
            "metadata": {"name": name, "namespace": "ci", "labels": labels},
            "spec": {}
        }))
    }

    /// Which objects a diff reads, which it leaves, and which it refuses, and under which scale
    /// set's name the refusal is told.
    #[test]
    fn verdicts_use_skip_or_refuse_naming_the_scale_set() {
        let names = ["a".to_string()];
        let filter = Filter {
            names: &names,
            selector: None,
        };
        let none = HashMap::new();
        let judge = |o: &Object, side| verdict(o, side, &filter, &none, &mut BTreeSet::new());
        let ars = arc_object("AutoscalingRunnerSet", "a", json!({}));
        assert_eq!(judge(&ars, Side::Desired), Verdict::Use);
        let other = arc_object("AutoscalingRunnerSet", "b", json!({}));
        assert_eq!(judge(&other, Side::Desired), Verdict::Skip, "not named");
        assert_eq!(
            judge(&other, Side::Live),
            Verdict::Use,
            "live ones all kept"
        );
        let role = object(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"}));
        assert_eq!(judge(&role, Side::Desired), Verdict::Skip, "not ARC's");
        for kind in [
            "EphemeralRunnerSet",
            "AutoscalingListener",
            "EphemeralRunner",
        ] {
            assert_eq!(
                judge(&arc_object(kind, "x", json!({})), Side::Live),
                Verdict::Use
            );
        }
        let fail = |v: Verdict| match v {
            Verdict::Fail { scale_set, error } => (scale_set, error),
            v => panic!("{v:?}"),
        };
        // A set's refusal is its scale set's (by owner, else label).
        let mut set = arc_object(
            "EphemeralRunnerSet",
            "a-x7k2p",
            json!({"actions.github.com/scale-set-name": "a"}),
        );
        set.spec = None;
        let (scale_set, error) = fail(judge(&set, Side::Live));
        assert_eq!(scale_set, "a");
        assert!(
            error.starts_with("EphemeralRunnerSet ci/a-x7k2p (f.yaml[3]): "),
            "{error}"
        );
        let mut ars_without_spec = ars.clone();
        ars_without_spec.spec = None;
        assert_eq!(
            fail(judge(&ars_without_spec, Side::Desired)).1,
            format!("AutoscalingRunnerSet ci/a (f.yaml[3]): {SPEC_MISSING_ARS}")
        );
        let mut old = ars.clone();
        old.api_version = "actions.github.com/v1beta1".into();
        assert!(
            fail(judge(&old, Side::Desired))
                .1
                .contains("apiVersion \"actions.github.com/v1beta1\" is not served by ARC")
        );
        let unknown = arc_object("RunnerDeployment", "r", json!({}));
        let (scale_set, error) = fail(judge(&unknown, Side::Live));
        assert_eq!(scale_set, "r");
        assert!(
            error.contains("unknown kind \"RunnerDeployment\""),
            "{error}"
        );
        let unnamed = object(
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet"}),
        );
        assert_eq!(
            fail(judge(&unnamed, Side::Desired)),
            (
                "<unnamed in f.yaml[3]>".to_string(),
                "f.yaml[3]: AutoscalingRunnerSet has no metadata.name".to_string()
            )
        );
        // A problem found while reading: named once, by the object if it does not name itself.
        let mut refused = ars.clone();
        refused.problem = Some("metadata.namespace: true is a bool".into());
        assert_eq!(
            fail(judge(&refused, Side::Desired)).1,
            "AutoscalingRunnerSet ci/a (f.yaml[3]): metadata.namespace: true is a bool"
        );
        refused.problem = Some("AutoscalingRunnerSet ci/a spec.x: refused".into());
        assert_eq!(
            fail(judge(&refused, Side::Desired)).1,
            "f.yaml[3]: AutoscalingRunnerSet ci/a spec.x: refused"
        );
        // Given twice: refused once, then left.
        let id = (
            "AutoscalingRunnerSet".to_string(),
            "ci".to_string(),
            "a".to_string(),
        );
        let duplicated = HashMap::from([(id, "given twice".to_string())]);
        let mut reported = BTreeSet::new();
        let twice = |reported: &mut BTreeSet<_>| {
            verdict(&ars, Side::Desired, &filter, &duplicated, reported)
        };
        assert_eq!(fail(twice(&mut reported)).1, "given twice");
        assert_eq!(twice(&mut reported), Verdict::Skip);
    }

    #[test]
    fn a_scale_set_without_a_set_waits_for_its_registration_or_its_set() {
        assert!(waiting_for_arc(true).contains("not created its EphemeralRunnerSet yet"));
        assert!(waiting_for_arc(false).contains(&format!(
            "no {} annotation",
            arc::ANNOTATION_RUNNER_SCALE_SET_ID
        )));
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
            match cluster::get_crd(client, name).await {
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
