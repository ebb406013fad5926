//! Reading what `diff` compares: the files (`-f`, `--live`) sorted into a [`World`] under
//! kubectl's namespace rule, and the cluster completing it (the live scale sets, sets and
//! listeners, the controller's release, the CRD).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::{self};
use crate::core::arc;
use crate::core::pairing::{self};
use crate::core::revision::RevisionError;
use crate::core::selector::Selector;
use crate::input::{self, Object};
use crate::ops::impact;
use crate::report::diff::ScaleSetDiff;

use super::Plan;
use super::judge::pair_all;

/// Everything the comparison reads: desired AutoscalingRunnerSets and the live objects, each with
/// its origin. Built from files, then completed from the cluster when that is allowed and needed.
#[derive(Default, Clone)]
pub(super) struct World {
    /// The desired AutoscalingRunnerSets: `-f`'s, and only `-f`'s; without `-f`, the live ones
    /// (there is no change to judge: each scale set is compared with its own set).
    pub(super) desired: Vec<Object>,
    /// Live AutoscalingRunnerSets (cluster or --live), by namespace/name.
    pub(super) live_scale_sets: BTreeMap<(String, String), Object>,
    /// Live EphemeralRunnerSets (cluster, --live, or -f).
    pub(super) live_sets: Vec<Object>,
    /// AutoscalingListeners from the files (their hash annotations say when ARC recreates them).
    pub(super) listeners: Vec<Object>,
    /// Namespaces whose EphemeralRunnerSets are all known (listed, or files-only mode): a scale set
    /// without one there is new, not unknown.
    pub(super) complete: BTreeSet<String>,
    /// Every namespace's EphemeralRunnerSets are known (files only, or listed across namespaces).
    pub(super) complete_everywhere: bool,
    /// Desired scale sets that failed before any comparison (an object kubectl refuses, a
    /// duplicate, ...), by scale set.
    pub(super) failed: Vec<ScaleSetDiff>,
    /// Live objects that could not be read, by the scale set they belong to: reported only for a
    /// scale set that is judged (a broken set of another scale set is not this change's).
    pub(super) failed_live: Vec<ScaleSetDiff>,
    /// Files that could not be read.
    pub(super) errors: Vec<String>,
    /// The ARC release and where it was read, when the cluster says.
    pub(super) arc_version: Option<(String, String)>,
    /// The AutoscalingRunnerSet CRDs found (the cluster's, the files'): whose defaults apply.
    pub(super) crds: crate::ops::defaults::Crds,
    /// The EphemeralRunners read (files, then the cluster for the namespaces a change concerns).
    pub(super) runners: impact::Runners,
    /// The controller Deployments whose arguments give the update strategy (the cluster's).
    pub(super) controllers: Option<impact::Controllers>,
    /// Controller Deployments given in the files (a render of ARC's controller chart).
    pub(super) file_controllers: Vec<crate::cluster::preflight::ControllerArgs>,
    /// The cluster's client, once connected: the forecast lists runners with it.
    pub(super) client: Option<kube::Client>,
}

/// `-f` and `--live` as read, once (standard input can be read only once): each context of a
/// fleet run sorts its own copy under its own namespace default.
#[derive(Clone, Default)]
pub(crate) struct Files {
    pub(super) given: input::Inputs,
    pub(super) live: input::Inputs,
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
pub(super) fn prepare(plan: &Plan, files: Files) -> Result<(World, bool)> {
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
pub(super) fn running_release(
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
pub(super) async fn revision_crd(
    api: &impl ArcApi,
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
    let crds = Resource::CUSTOM_RESOURCE_DEFINITIONS;
    let Ok(Some(crd)) = api
        .get(crds, "", "ephemeralrunnersets.actions.github.com")
        .await
    else {
        return false;
    };
    crate::core::status::install::CrdFacts::from_object(&crd).is_some_and(|f| f.revision_fields)
}

/// The paths given, for a message.
pub(super) fn names(paths: &[PathBuf]) -> String {
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
pub(super) fn read_sides(
    plan: &Plan,
    files: Files,
    world: &mut World,
) -> Result<(Vec<Object>, Vec<Object>)> {
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
pub(super) fn sort_sides(
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

/// The names and selector that choose scale sets.
pub(super) struct Filter<'a> {
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
pub(super) enum Side {
    /// `-f`: what would be applied.
    Desired,
    /// `--live`: what is there.
    Live,
}

/// Put each object read from files where it belongs, refusing what ARC's Go types or kubectl would
/// refuse, and the same object twice on one side (every copy: which one is meant is the question).
pub(super) fn sort_objects(
    objects: Vec<Object>,
    side: Side,
    filter: &Filter<'_>,
    world: &mut World,
) {
    let mut duplicated: HashMap<(String, String, String), String> = HashMap::new();
    for (i, message) in input::duplicates(&objects) {
        let o = &objects[i];
        let (ns, name) = o.key();
        duplicated
            .entry((o.kind.clone(), ns, name))
            .or_insert(message);
    }
    let mut reported: BTreeSet<(String, String, String)> = BTreeSet::new();
    // Room for the scale sets and sets at once (a dump of thousands would double its way there).
    let of_kind = |kind: &str| objects.iter().filter(|o| o.kind == kind).count();
    match side {
        Side::Desired => world
            .desired
            .reserve(of_kind(arc::KIND_AUTOSCALING_RUNNER_SET)),
        Side::Live => {}
    }
    world
        .live_sets
        .reserve(of_kind(arc::KIND_EPHEMERAL_RUNNER_SET));
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
pub(super) enum Verdict {
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
pub(super) fn verdict(
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
pub(super) const KIND_AUTOSCALING_LISTENER: &str = "AutoscalingListener";

/// An AutoscalingRunnerSet without `spec` (or with `spec: null`) has no runner template: Go would
/// decode it as the zero spec, but no real scale set looks like that, so it is reported instead.
pub(super) const SPEC_MISSING_ARS: &str = "spec is missing: an AutoscalingRunnerSet without one has no runner template to compare (is this the whole object?)";

/// Whether a desired scale set lacks its set among the files, so the cluster must be asked.
/// Sets of other scale sets are not this change's: they never send diff to the cluster.
pub(super) fn needs_cluster(world: &World) -> bool {
    let failed = failed_keys(world);
    pair_all(world, false)
        .iter()
        .zip(&world.desired)
        .any(|(p, a)| p.is_none() && !failed.contains(&(a.namespace(), a.name())))
}

/// The scale sets already reported as failed: a desired object that could not be read, or a set
/// of theirs that could not (its scale set has a set, broken: not new, not to be asked for).
pub(super) fn failed_keys(world: &World) -> BTreeSet<(&str, &str)> {
    (world.failed.iter())
        .chain(&world.failed_live)
        .map(|f| (f.namespace.as_str(), f.name.as_str()))
        .collect()
}

/// The name of the scale set a set belongs to: its controller owner's, else ARC's scale-set-name
/// label, else its own.
pub(super) fn scale_set_name(set: &Object) -> &str {
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
pub(super) async fn complete_from_cluster(plan: &Plan, world: &mut World) -> Result<()> {
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
        let crds = Resource::CUSTOM_RESOURCE_DEFINITIONS;
        match client.get(crds, "", crate::ops::defaults::ARS_CRD).await {
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
pub(super) async fn live_listeners(api: &impl ArcApi, world: &mut World) {
    if world.desired.is_empty() {
        return;
    }
    let Ok(listeners) = api.list(Resource::AUTOSCALING_LISTENERS, None, None).await else {
        return;
    };
    let known: BTreeSet<(String, String)> = world.listeners.iter().map(Object::key).collect();
    world
        .listeners
        .extend(listeners.into_iter().filter(|l| !known.contains(&l.key())));
}

/// No `-f`: the cluster's AutoscalingRunnerSets in scope are the desired side (each its own
/// truth), as `kubectl get` finds them: by name, else listed with `-l`.
pub(super) async fn live_scale_sets(
    api: &impl ArcApi,
    plan: &Plan,
    filter: &Filter<'_>,
    namespace: &str,
    scope: Option<&str>,
    world: &mut World,
) -> Result<()> {
    let scale_sets = Resource::AUTOSCALING_RUNNER_SETS;
    let live = if plan.scope.names.is_empty() {
        (api.list(scale_sets, scope, plan.scope.selector_text())).await?
    } else {
        let mut found = Vec::new();
        for name in &plan.scope.names {
            match api.get(scale_sets, namespace, name).await? {
                Some(o) => found.push(o),
                None => {
                    api.check_namespace(namespace).await?;
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
        api.check_namespace(ns).await?;
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
pub(super) async fn live_sets(
    api: &impl ArcApi,
    plan: &Plan,
    world: &mut World,
) -> Result<BTreeSet<String>> {
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
        let sets = (api.list(Resource::EPHEMERAL_RUNNER_SETS, ns, None)).await?;
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
pub(super) async fn live_side_of_change(
    api: &impl ArcApi,
    server: &str,
    plan: &Plan,
    namespaces: &BTreeSet<String>,
    world: &mut World,
) -> Result<()> {
    let scale_sets = Resource::AUTOSCALING_RUNNER_SETS;
    let wanted: BTreeSet<(String, String)> = world.desired.iter().map(Object::key).collect();
    for (ns, name) in wanted {
        if world
            .live_scale_sets
            .contains_key(&(ns.clone(), name.clone()))
        {
            continue;
        }
        if let Some(o) = api.get(scale_sets, &ns, &name).await? {
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
            if !api.list(scale_sets, Some(ns), None).await?.is_empty() {
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
}
