//! The status operation: the EphemeralRunnerSets and runners in scope, streamed into a per-set
//! census → a verdict per set (`crate::core::status`) → rows for a renderer.
//!
//! Reads EphemeralRunnerSets and EphemeralRunners from the cluster (paginated, page by page, on a
//! worker thread so that the next page is fetched meanwhile) or from files (`-f`); writes nothing.
//! `--watch` and `--wait` keep the census live from two watches ([`follow`]).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, SystemTime};

use anyhow::{Context as _, Result};
use serde::Deserialize;

use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::watch::{Event, Scope};
use crate::cluster::{self, ConnectOptions, PAGE_SIZE};
use crate::core::arc;
use crate::core::layout::Layout;
use crate::core::pairing;
use crate::core::selector::Selector;
use crate::core::status::install::{
    ARC_CRDS, CONTROLLER_SELECTORS, ControllerFacts, CrdFacts, controller_target, install_reasons,
    reconciler_of,
};
use crate::core::status::listener::{
    AUTOSCALING_LISTENERS, COMPONENT_LISTENER, KIND_AUTOSCALING_LISTENER, LABEL_COMPONENT,
    LISTENER_CONTAINER, OwnListener, behind_controller, controller_of, deletion_of_object,
    finalizers_left, listener_reasons, orphaned_listeners,
};
use crate::core::status::{
    Census, DesiredSpec, ListenerFacts, ListenerView, PodFacts, PodView, Replacement, RunnerFacts,
    RunnerPods, ScaleSetFacts, SetFacts, SetKey, SetStatus, State, Unobserved,
};
use crate::core::upgrade::Target;
use crate::input;
use crate::ops::follow::Follow;
use crate::report::Outcome;
use crate::report::status::{Chain, ScaleSetLine};
use crate::shell::Shell;

/// What the command asks, checked, before the cluster resolves the namespace and the names.
pub(crate) struct Request {
    pub(crate) layout: &'static Layout,
    /// EphemeralRunnerSet (or AutoscalingRunnerSet) names, `-n`, `-A` and `-l`.
    pub(crate) scope: super::Scope,
    pub(crate) connect: ConnectOptions,
    pub(crate) clock: fn() -> SystemTime,
    /// `--arc-version`: the release whose rule judges every set (or `next`), instead of the
    /// controller's.
    pub(crate) arc_release: Option<Target>,
}

/// `-f`: the dump to read, and the namespace of its objects that name none (kubectl's rule).
pub(crate) struct Files {
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) namespace: String,
    /// `-n` was given: an object in another namespace is refused.
    pub(crate) namespace_given: bool,
}

/// The rows, and what could not be shown (names not found, objects that cannot be read).
pub(crate) struct Snapshot {
    pub(crate) rows: Vec<SetStatus>,
    pub(crate) errors: Vec<String>,
    /// What could not be read around the sets (a listener or Pod read the role does not allow),
    /// each said once; never a failure.
    pub(crate) warnings: Vec<String>,
    /// `status NAME`: each named set's chain (empty without names).
    pub(crate) chains: Vec<Chain>,
    /// What a fleet run (`--contexts`) compares across contexts; unused by one context.
    pub(crate) fleet: FleetFacts,
}

/// What one context's listing tells a fleet run: its scale sets as registrations with GitHub,
/// and the ARC versions it runs.
#[derive(Debug, Default)]
pub(crate) struct FleetFacts {
    /// Each readable AutoscalingRunnerSet in the listed namespace (its `context` left empty),
    /// with the rows it stands for (its newest set's, or its own when it has none).
    pub(crate) registrations: Vec<(crate::core::fleet::Registration, Vec<SetKey>)>,
    /// The `app.kubernetes.io/version` labels of those scale sets (the chart release).
    pub(crate) versions: std::collections::BTreeSet<String>,
    /// The listeners' `spec.image`s.
    pub(crate) listener_images: std::collections::BTreeSet<String>,
}

impl FleetFacts {
    fn read(
        scale_sets: &[input::Object],
        census: &Census,
        around: &Surroundings,
        namespace: Option<&str>,
    ) -> FleetFacts {
        #[derive(Deserialize)]
        struct Spec {
            #[serde(rename = "githubConfigUrl")]
            config_url: Option<String>,
            #[serde(rename = "runnerScaleSetName")]
            scale_set_name: Option<String>,
        }
        let mut newest: HashMap<SetKey, SetKey> = census_pairs(scale_sets, census)
            .into_iter()
            .map(|(a, key, _)| (a.key(), key))
            .collect();
        let registrations = scale_sets
            .iter()
            .filter(|a| a.problem.is_none() && a.meta.name.is_some())
            .map(|a| {
                let spec = a
                    .spec
                    .as_ref()
                    .and_then(|s| serde_json::from_str::<Spec>(s.get()).ok());
                let (config_url, scale_set_name) =
                    spec.map_or((None, None), |s| (s.config_url, s.scale_set_name));
                let registration = crate::core::fleet::Registration {
                    context: String::new(),
                    namespace: a.namespace().to_string(),
                    name: a.name().to_string(),
                    config_url,
                    scale_set_name,
                    scale_set_id: (a.meta.annotations)
                        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                        .cloned(),
                    uid: a.meta.uid.clone(),
                };
                let row = newest.remove(&a.key()).unwrap_or_else(|| a.key());
                (registration, vec![row])
            })
            .collect();
        FleetFacts {
            registrations,
            versions: scale_sets
                .iter()
                .filter_map(|a| a.meta.labels.get("app.kubernetes.io/version").cloned())
                .collect(),
            // The listeners of the listed namespace's scale sets only (`-n`).
            listener_images: (around.listeners.iter().flatten())
                .filter(|l| namespace.is_none_or(|ns| ns == l.scale_set.0))
                .filter_map(|l| l.image.clone())
                .collect(),
        }
    }
}

impl Snapshot {
    /// The README's exit-code rule: 2 when anything could not be shown, else 0.
    pub(crate) fn outcome(&self) -> Outcome {
        if self.errors.is_empty() {
            Outcome::Clean
        } else {
            Outcome::Failed
        }
    }
}

impl Request {
    /// The plan for a dump: every namespace in it, the names as given.
    pub(crate) fn offline(&self) -> Plan {
        Plan {
            layout: self.layout,
            namespace: None,
            names: self.scope.names.clone(),
            selector: self.scope.selector_text().map(str::to_string),
            parsed_selector: self.scope.selector().cloned(),
            clock: self.clock,
            arc_release: self.arc_release,
        }
    }

    /// Connect, and resolve the namespace (`-n`, else the context's; none with `-A`) and the
    /// names (an AutoscalingRunnerSet's name stands for its sets).
    pub(crate) async fn connect(&self) -> Result<(kube::Client, Plan)> {
        let conn = cluster::connect(&self.connect).await?;
        let namespace = self.scope.listed_namespace(&conn.default_namespace);
        let names = match &namespace {
            Some(ns) if !self.scope.names.is_empty() => {
                resolve_names(&conn.client, ns, &self.scope.names).await?
            }
            _ => self.scope.names.clone(),
        };
        let plan = Plan {
            layout: self.layout,
            namespace,
            names,
            selector: self.scope.selector_text().map(str::to_string),
            parsed_selector: self.scope.selector().cloned(),
            clock: self.clock,
            arc_release: self.arc_release,
        };
        Ok((conn.client, plan))
    }
}

/// One listing of the sets in scope, with what their scale sets want.
pub(crate) async fn list(client: &kube::Client, plan: &Plan) -> Result<Snapshot> {
    let mut census = Census::new(plan.layout, false);
    // The runners' Pods first: a runner reaches phase Running only after its Pod runs, so a
    // Pod made between the two lists cannot make a running runner look Pod-less.
    let mut pod_warnings = Vec::new();
    match runner_pods(client, plan).await {
        Ok(pods) => census.set_runner_pods(pods),
        Err(warning) => pod_warnings.push(warning),
    }
    let gathered = gather(client, plan, census).await?;
    let mut census = gathered.census;
    let scale_sets = scale_sets(client, plan).await;
    let without = without_sets(plan, &scale_sets, &census);
    if gathered.seen.is_empty()
        && without.is_empty()
        && let Some(ns) = plan.namespace.as_deref()
    {
        cluster::check_namespace(client, ns).await?;
    }
    // The controllers first: the release that judges each set is the one its controller runs.
    let around = Surroundings::read(client, plan).await;
    let waiting: Vec<SetStatus> = (without.into_iter())
        .map(|a| scale_set_row(plan, a, &around))
        .collect();
    let errors = missing_names(plan, &census, &waiting);
    rejudge(&scale_sets, &mut census, &around);
    let fleet = FleetFacts::read(&scale_sets, &census, &around, plan.namespace.as_deref());
    let chains = chains(plan, &scale_sets, &census, &around);
    let mut warnings = pod_warnings;
    warnings.extend(around.warnings);
    Ok(Snapshot {
        rows: with_rows(census.statuses(plan.now()), waiting),
        errors,
        warnings,
        fleet,
        chains,
    })
}

/// What status reads around the sets, each only where the caller's rights allow: the
/// AutoscalingListeners (in every namespace: ARC makes them in its controller's namespace) and the
/// listeners' Pods (in the namespaces the listeners are in, by the label ARC gives them).
#[derive(Debug, Default)]
pub(crate) struct Surroundings {
    /// `None`: not readable.
    listeners: Option<Vec<ListenerFacts>>,
    /// The listener Pods of each namespace whose Pods could be read.
    pods: HashMap<String, Vec<PodFacts>>,
    /// ARC's controller Deployments with replicas (`None`: not readable), and ARC's CRDs as
    /// installed (empty when not read).
    controllers: Option<Vec<ControllerFacts>>,
    crds: Vec<CrdFacts>,
    /// `--arc-version` (not read: the plan's), which judges every set instead of its controller.
    arc_release: Option<Target>,
    /// What could not be read, said once each.
    pub(crate) warnings: Vec<String>,
}

/// The label selector of the listeners' Pods (`newScaleSetListenerPod` copies the listener's
/// labels).
fn listener_pod_selector() -> String {
    format!("{LABEL_COMPONENT}={COMPONENT_LISTENER}")
}

impl Surroundings {
    /// Read the listeners and their Pods. A read that fails is a warning naming the resource and
    /// the verb the role lacks; the checks that need it are skipped.
    pub(crate) async fn read(client: &kube::Client, plan: &Plan) -> Surroundings {
        let mut out = Surroundings {
            arc_release: plan.arc_release,
            ..Surroundings::default()
        };
        match cluster::list_objects(
            client,
            KIND_AUTOSCALING_LISTENER,
            AUTOSCALING_LISTENERS,
            None,
            None,
        )
        .await
        {
            Ok(objects) => {
                out.listeners = Some(
                    objects
                        .iter()
                        .filter_map(|o| ListenerFacts::from_object(o).ok())
                        .collect(),
                );
            }
            Err(e) => out.warnings.push(unreadable(
                &e,
                "list",
                "autoscalinglisteners.actions.github.com in all namespaces",
                "the listener checks are skipped",
            )),
        }
        // The Pods of the listeners that serve scale sets in scope only.
        let namespaces: std::collections::BTreeSet<String> = out
            .listeners
            .iter()
            .flatten()
            .filter(|l| {
                plan.namespace
                    .as_deref()
                    .is_none_or(|ns| ns == l.scale_set.0)
            })
            .map(|l| l.namespace.clone())
            .collect();
        let selector = listener_pod_selector();
        let mut refused: Vec<(String, cluster::ApiError)> = Vec::new();
        for ns in namespaces {
            match cluster::list_pods(client, &ns, Some(&selector)).await {
                Ok(pods) => {
                    out.pods.insert(
                        ns,
                        pods.iter()
                            .filter_map(|p| PodFacts::from_object(p, LISTENER_CONTAINER).ok())
                            .collect(),
                    );
                }
                Err(e) => refused.push((ns, e)),
            }
        }
        // One warning, however many namespaces refused.
        if let Some((_, e)) = refused.first() {
            let names: Vec<String> = refused.iter().map(|(ns, _)| ns.clone()).collect();
            let what = match names.as_slice() {
                [one] => format!("pods in namespace {one}"),
                many => format!("pods in namespaces {}", crate::report::name_a_few(many, 3)),
            };
            out.warnings.push(unreadable(
                e,
                "list",
                &what,
                "the listener Pod checks are skipped there",
            ));
        }
        out.read_installation(client).await;
        out
    }

    /// Read ARC's controller Deployments (by the chart's labels, in every namespace) and ARC's
    /// four CRDs: whether the controller's release writes fields its CRDs lack.
    async fn read_installation(&mut self, client: &kube::Client) {
        let mut names = HashSet::new();
        let mut controllers = Vec::new();
        for selector in CONTROLLER_SELECTORS {
            match cluster::list_deployments(client, selector).await {
                Ok(found) => {
                    for d in found {
                        if let Some(c) = ControllerFacts::from_object(&d)
                            && names.insert(c.name.clone())
                        {
                            controllers.push(c);
                        }
                    }
                }
                Err(e) => {
                    self.warnings.push(unreadable(
                        &e,
                        "list",
                        "deployments in all namespaces",
                        "the controller's version is not checked against the CRDs",
                    ));
                    return;
                }
            }
        }
        let versioned = controllers.iter().any(|c| c.version.is_some());
        self.controllers = Some(controllers);
        if !versioned {
            return;
        }
        for name in ARC_CRDS {
            match cluster::get_crd(client, name).await {
                Ok(Some(crd)) => self.crds.extend(crd_facts(&crd)),
                Ok(None) => {}
                Err(e) => {
                    self.warnings.push(unreadable(
                        &e,
                        "get",
                        &format!("customresourcedefinitions {}", ARC_CRDS.join(", ")),
                        "the controller's version is not checked against the CRDs",
                    ));
                    self.crds.clear();
                    return;
                }
            }
        }
    }

    /// [`crate::core::status::listener::behind_controller`] of the scale set `key`'s listener,
    /// against the controller Deployment that makes it.
    fn behind_controller(
        &self,
        key: &SetKey,
        view: &ListenerView,
    ) -> Option<crate::core::status::StatusReason> {
        let ListenerView::Found { listener, .. } = view else {
            return None;
        };
        if listener.deletion.is_some() {
            return None;
        }
        let controllers = self.controllers.as_deref()?;
        let controller = controller_of(controllers, &key.0, Some(&listener.namespace))?;
        behind_controller(listener, controller)
    }

    /// The controller Deployment whose release judges the scale sets of `namespace`
    /// ([`reconciler_of`]), when it runs a release of the table or is recognised as running the
    /// next release ([`controller_target`], with why).
    fn reconciler(&self, namespace: &str) -> Option<(&ControllerFacts, Target, Option<String>)> {
        let controller = reconciler_of(self.controllers.as_deref()?, namespace)?;
        let revision_crd = self.crds.iter().any(|c| c.revision_fields);
        let (target, why) = controller_target(
            controller.version.as_deref(),
            controller.image_tag.as_deref(),
            revision_crd,
        )?;
        Some((controller, target, why))
    }

    /// What the run knows of the release that judges the sets of `namespace`, as `diff` states it
    /// ([`crate::ops::release::Stated`]): `--arc-version`, and the release of the controller
    /// Deployment that reconciles the namespace.
    fn stated(&self, namespace: &str) -> crate::ops::release::Stated {
        crate::ops::release::Stated {
            flag: self.arc_release,
            controller: self.reconciler(namespace).map(|(c, t, why)| {
                let from = match why {
                    Some(why) => format!(
                        "controller Deployment {} runs the next release: {why}",
                        c.name
                    ),
                    None => format!("controller Deployment {}", c.name),
                };
                (t, from)
            }),
        }
    }

    /// Whether the next release judges the sets of `namespace` (`--arc-version next`, or the
    /// controller that reconciles it recognised as running it), and where that was said.
    fn next(&self, namespace: &str) -> Option<String> {
        self.stated(namespace).next()
    }

    /// [`StatusReason::DeletedByVersionCheck`]: the release that judges the scale set
    /// (`--arc-version`, else that of the controller Deployment that reconciles its namespace:
    /// never its own label) does not allow its `app.kubernetes.io/version`; `--arc-version next`
    /// takes the next release's `build.Version` as [`crate::core::upgrade::NEXT_VERSION`]. A
    /// scale set being deleted is not checked (`Reconcile` handles the deletion first).
    fn version_check(
        &self,
        scale_set: &input::Object,
    ) -> Option<crate::core::status::StatusReason> {
        if scale_set.meta.deletion_timestamp.is_some() {
            return None;
        }
        let (controller, target) = match self.arc_release {
            Some(t) => (None, t),
            None => {
                let (c, t, why) = self.reconciler(scale_set.namespace())?;
                // A build of master recognised by its image: its `build.Version` is the canary
                // workflow's `canary-<sha>` or the Dockerfile's `dev`, which
                // `IsVersionAllowed` lets keep every label.
                if why.is_some() {
                    return None;
                }
                (Some(c.name.clone()), t)
            }
        };
        let label = (scale_set.meta.labels)
            .get(crate::core::release::LABEL_VERSION)
            .map(String::as_str);
        let check = target.version_check(label);
        (!check.allowed).then(
            || crate::core::status::StatusReason::DeletedByVersionCheck {
                controller,
                release: target.name().to_string(),
                label: check.label,
                rule: check.rule.to_string(),
            },
        )
    }

    /// [`crate::core::status::install::crds_look_older`] of each namespace of the census's sets:
    /// the statuses ARC wrote there (a set's four counts, a scale set's status) and how many have
    /// `status.phase`.
    fn crds_look_older(
        &self,
        scale_sets: &[input::Object],
        census: &Census,
    ) -> HashMap<String, crate::core::status::StatusReason> {
        let Some(controllers) = self.controllers.as_deref() else {
            return HashMap::new();
        };
        let mut seen: HashMap<&str, (usize, usize)> = HashMap::new();
        for facts in census.keys().filter_map(|k| census.facts(k)) {
            if facts.status_written || facts.phase.is_some() {
                let e = seen.entry(facts.namespace.as_str()).or_default();
                e.0 += 1;
                e.1 += usize::from(facts.phase.is_some());
            }
        }
        for a in scale_sets.iter().filter(|a| a.problem.is_none()) {
            let written = (a.status.as_ref()).is_some_and(|s| s.get().trim() != "{}");
            if written {
                let e = seen.entry(a.namespace()).or_default();
                e.0 += 1;
                e.1 += usize::from(phase_of(a).is_some());
            }
        }
        seen.into_iter()
            .filter_map(|(ns, (written, with_phase))| {
                let controller = controller_of(controllers, ns, None)?;
                let reason = crate::core::status::install::crds_look_older(
                    controller,
                    !self.crds.is_empty(),
                    written,
                    with_phase,
                )?;
                Some((ns.to_string(), reason))
            })
            .collect()
    }

    /// What the installation says of every scale set ([`install_reasons`]).
    fn installation_reasons(&self) -> Vec<crate::core::status::StatusReason> {
        install_reasons(self.controllers.as_deref().unwrap_or_default(), &self.crds)
    }

    /// The listeners and Pods among a dump's objects: listeners are known as far as the dump
    /// holds them, the Pods of a namespace when it holds a Pod of that namespace.
    fn from_objects(objects: &[input::Object]) -> Surroundings {
        let listeners: Vec<ListenerFacts> = objects
            .iter()
            .filter(|o| o.is_arc(KIND_AUTOSCALING_LISTENER) && o.problem.is_none())
            .filter_map(|o| ListenerFacts::from_object(o).ok())
            .collect();
        let mut pods: HashMap<String, Vec<PodFacts>> = HashMap::new();
        for o in objects
            .iter()
            .filter(|o| o.kind == "Pod" && o.api_version == "v1" && o.problem.is_none())
        {
            if let Ok(p) = PodFacts::from_object(o, LISTENER_CONTAINER) {
                pods.entry(p.namespace.clone()).or_default().push(p);
            }
        }
        // The dump's Deployments, when it holds any: then its controllers are known.
        let deployments: Vec<&input::Object> = objects
            .iter()
            .filter(|o| o.kind == "Deployment" && o.api_version == "apps/v1" && o.problem.is_none())
            .collect();
        let controllers = (!deployments.is_empty()).then(|| {
            deployments
                .iter()
                .filter_map(|o| ControllerFacts::from_object(o))
                .collect()
        });
        let crds = objects
            .iter()
            .filter(|o| {
                o.kind == "CustomResourceDefinition"
                    && o.api_version == "apiextensions.k8s.io/v1"
                    && o.problem.is_none()
            })
            .filter_map(crd_facts)
            .collect();
        Surroundings {
            listeners: (!listeners.is_empty()).then_some(listeners),
            pods,
            controllers,
            crds,
            arc_release: None,
            warnings: Vec::new(),
        }
    }

    /// Where ARC looks for the listener of `scale_set` ([`OwnListener::of`]): the controller
    /// that reconciles its namespace, else its `app.kubernetes.io/version`, names the rule.
    fn own_listener(&self, scale_set: &input::Object) -> OwnListener {
        #[derive(Deserialize, Default)]
        struct Spec {
            #[serde(rename = "runnerGroup", default)]
            runner_group: Option<String>,
            #[serde(rename = "githubConfigUrl", default)]
            config_url: Option<String>,
        }
        let spec: Spec = (scale_set.spec.as_ref())
            .and_then(|s| serde_json::from_str(s.get()).ok())
            .unwrap_or_default();
        let controller = (self.controllers.as_deref())
            .and_then(|c| controller_of(c, scale_set.namespace(), None));
        OwnListener::of(
            (scale_set.namespace(), scale_set.name()),
            spec.runner_group.as_deref().unwrap_or(""),
            spec.config_url.as_deref().unwrap_or(""),
            controller,
            (scale_set.meta.labels)
                .get("app.kubernetes.io/version")
                .map(String::as_str),
        )
    }

    /// The listeners that serve the scale set `key` (`spec.autoscalingRunnerSetNamespace`/`Name`).
    fn serving<'a>(&'a self, key: &'a SetKey) -> impl Iterator<Item = &'a ListenerFacts> {
        self.listeners
            .iter()
            .flatten()
            .filter(move |l| &l.scale_set == key)
    }

    /// Every listener of `scale_set` that is not the one ARC finds ([`orphaned_listeners`]).
    fn orphans(&self, scale_set: &input::Object) -> Vec<crate::core::status::StatusReason> {
        let key = scale_set.key();
        orphaned_listeners(self.serving(&key), &self.own_listener(scale_set))
    }

    /// What is known of the listener of `scale_set`: the one ARC finds by its name
    /// ([`OwnListener`]), however the others are named.
    fn view(&self, scale_set: &input::Object) -> ListenerView {
        let key = scale_set.key();
        let Some(listeners) = self.listeners.as_ref() else {
            return ListenerView::Unknown;
        };
        // No listener says nothing by itself of whether an ARC controller serves the namespace
        // (it may run elsewhere, watch other namespaces, or not run at all): "no listener" is
        // said only where a listener serves a scale set of the same namespace, or a controller
        // Deployment with replicas reconciles the namespace's scale sets.
        let served = listeners.iter().any(|l| l.scale_set.0 == key.0)
            || self.controllers.iter().flatten().any(|c| c.watches(&key.0));
        let own = self.own_listener(scale_set);
        // Two of that name (a controller moved to another namespace, not known): the one not
        // being deleted.
        let Some(listener) =
            (self.serving(&key).filter(|l| own.is(l))).min_by_key(|l| l.deletion.is_some())
        else {
            return if served {
                ListenerView::Absent
            } else {
                ListenerView::Unknown
            };
        };
        let pod = match self.pods.get(&listener.namespace) {
            None => PodView::Unknown,
            Some(pods) => match pods.iter().find(|p| p.name == listener.name) {
                Some(p) => PodView::Found(Box::new(p.clone())),
                None => PodView::Absent,
            },
        };
        ListenerView::Found {
            listener: Box::new(listener.clone()),
            pod,
        }
    }
}

/// An installed CRD as the installation check judges it ([`CrdFacts::from_crd`]).
fn crd_facts(crd: &input::Object) -> Option<CrdFacts> {
    CrdFacts::from_crd(&serde_json::from_str(&crd.json()).ok()?)
}

/// The warning of a read the caller may not make (or that failed otherwise): the resource, the
/// verb, and what is skipped for it.
fn unreadable(e: &cluster::ApiError, verb: &str, what: &str, skipped: &str) -> String {
    use cluster::ApiErrorKind;
    match e.kind() {
        ApiErrorKind::Forbidden => format!(
            "cannot {verb} {what}: the role lacks {verb} on them ({skipped}; deploy/rbac.yaml's kubectl-arc-read grants it)"
        ),
        ApiErrorKind::CrdMissing => {
            format!("cannot {verb} {what}: the server does not serve them ({skipped})")
        }
        _ => format!("{e} ({skipped})"),
    }
}

/// The readable scale sets with their sets in the census, paired as ARC's
/// `listEphemeralRunnerSets` finds them, the census's sets indexed once: (the scale set, its newest
/// set, the sets it replaced, newest first).
fn census_pairs<'a>(
    scale_sets: &'a [input::Object],
    census: &Census,
) -> Vec<(&'a input::Object, SetKey, Vec<SetKey>)> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    // Indexed once: each scale set looks at its own few candidates, not at every set.
    let index = pairing::Index::new(&sets);
    scale_sets
        .iter()
        .filter(|a| a.problem.is_none())
        .filter_map(|a| {
            let p = index.pair(pairing::ScaleSet {
                namespace: a.namespace(),
                name: a.name(),
                uid: a.meta.uid.as_deref(),
            })?;
            let replaced = p.replaced.iter().map(|&i| inputs[i].0.clone()).collect();
            Some((a, inputs[p.chosen].0.clone(), replaced))
        })
        .collect()
}

/// Tell each scale set's newest set what its surroundings say: its listener and the listener's
/// Pod ([`crate::core::status::listener::listener_reasons`]), and its scale set stuck in deletion;
/// and every set what the installation says (a controller newer than its CRDs).
fn attach_surroundings(scale_sets: &[input::Object], census: &mut Census, around: &Surroundings) {
    let said: Vec<(SetKey, Vec<crate::core::status::StatusReason>)> = {
        census_pairs(scale_sets, census)
            .into_iter()
            .filter_map(|(a, key, replaced)| {
                let key = &key;
                let latest = census.facts(key)?;
                let names: Vec<String> = std::iter::once(key)
                    .chain(&replaced)
                    .map(|k| k.1.clone())
                    .collect();
                let deletion = deletion_of_object(a);
                let scale_set = ScaleSetFacts::new(
                    a.key(),
                    a.meta
                        .annotations
                        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                        .map(String::as_str),
                    phase_of(a).as_deref(),
                    deletion.clone(),
                );
                let (running, pending) = census.running_and_pending(key);
                let view = around.view(a);
                let stated = around.stated(a.namespace());
                let stale = listener_stale_under(a, latest, &view, &stated);
                let mut reasons = listener_reasons(
                    &scale_set,
                    latest,
                    &names,
                    &view,
                    running,
                    pending,
                    stale.as_deref(),
                );
                reasons.extend(around.behind_controller(&a.key(), &view));
                reasons.extend(around.version_check(a));
                reasons.extend(around.orphans(a));
                reasons.extend(release_disagrees(a, latest, &stated));
                if let Some(d) = deletion.filter(|d| !d.finalizers.is_empty()) {
                    let name = format!("{}/{}", a.namespace(), a.name());
                    reasons.push(finalizers_left(arc::KIND_AUTOSCALING_RUNNER_SET, &name, &d));
                }
                Some((key.clone(), reasons))
            })
            .collect()
    };
    // What the installation says goes on every set's row, with a scale set or not.
    let installation = around.installation_reasons();
    let older = around.crds_look_older(scale_sets, census);
    let mut said: HashMap<SetKey, Vec<crate::core::status::StatusReason>> =
        said.into_iter().collect();
    let keys: Vec<SetKey> = census.keys().cloned().collect();
    for key in keys {
        let mut reasons = said.remove(&key).unwrap_or_default();
        reasons.extend(installation.iter().cloned());
        reasons.extend(older.get(&key.0).cloned());
        census.set_around(&key, reasons);
    }
}

/// The label `newEphemeralRunnerPod` gives every runner's Pod.
const RUNNER_POD_SELECTOR: &str = "actions-ephemeral-runner=True";

/// The runners' Pods in the plan's namespace (every namespace with `-A`), by name, each with its
/// Unschedulable message; a read the role does not allow is the warning to give.
async fn runner_pods(client: &kube::Client, plan: &Plan) -> Result<RunnerPods, String> {
    let ns = plan.namespace.as_deref();
    match cluster::list_pods_in(client, ns, Some(RUNNER_POD_SELECTOR)).await {
        Ok(pods) => Ok(runner_pods_of(&pods, ns.map(|n| [n.to_string()].into()))),
        Err(e) => Err(unreadable(
            &e,
            "list",
            &match ns {
                Some(ns) => format!("pods in namespace {ns}"),
                None => "pods in all namespaces".to_string(),
            },
            "the runner Pod checks are skipped",
        )),
    }
}

/// The runner Pods among `pods` ([`RunnerPods`]), read in `namespaces` (`None`: all).
fn runner_pods_of(pods: &[input::Object], namespaces: Option<HashSet<String>>) -> RunnerPods {
    RunnerPods {
        pods: pods
            .iter()
            .filter(|p| {
                p.meta
                    .labels
                    .get("actions-ephemeral-runner")
                    .map(String::as_str)
                    == Some("True")
            })
            .filter_map(|p| {
                let facts = PodFacts::from_object(p, "runner").ok()?;
                Some(((facts.namespace, facts.name), facts.unschedulable))
            })
            .collect(),
        namespaces,
    }
}

/// `status NAME`: the chain of every set in view ([`Chain`]); none without names.
fn chains(
    plan: &Plan,
    scale_sets: &[input::Object],
    census: &Census,
    around: &Surroundings,
) -> Vec<Chain> {
    if plan.names.is_empty() {
        return Vec::new();
    }
    let mut by_set: HashMap<SetKey, (&input::Object, Vec<String>)> = HashMap::new();
    for (a, newest, replaced) in census_pairs(scale_sets, census) {
        let older = replaced.iter().map(|k| k.1.clone()).collect();
        for key in replaced {
            by_set.insert(key, (a, Vec::new()));
        }
        by_set.insert(newest, (a, older));
    }
    census
        .keys()
        .map(|key| {
            let (scale_set, older) = match by_set.get(key) {
                Some((a, older)) => (Some(*a), older.clone()),
                None => (None, Vec::new()),
            };
            Chain {
                set: key.clone(),
                scale_set: scale_set.map(|a| ScaleSetLine {
                    name: format!("{}/{}", a.namespace(), a.name()),
                    id: a
                        .meta
                        .annotations
                        .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                        .cloned(),
                    phase: phase_of(a),
                    deleting: a.meta.deletion_timestamp.is_some(),
                }),
                older,
                listener: scale_set.map_or(ListenerView::Unknown, |a| around.view(a)),
                controllers: around.controllers.clone(),
                crds: around.crds.clone(),
            }
        })
        .collect()
}

/// ARC up to 0.14: the release under which the scale set's listener was made from another spec
/// than the scale set's (its `runner-spec-hash` or `values-hash` annotation differs from
/// `ListenerSpecHash()` and the scale set's values hash: `listener_restart`), the release as
/// [`judged`] takes it; `None` when it was not, or this cannot be told.
fn listener_stale_under(
    scale_set: &input::Object,
    latest: &SetFacts,
    view: &ListenerView,
    stated: &crate::ops::release::Stated,
) -> Option<String> {
    use crate::core::replacement::{ANNOTATION_VALUES_HASH, ListenerSide, listener_restart};
    let ListenerView::Found { listener, .. } = view else {
        return None;
    };
    if !latest.spec_hash_era || listener.deletion.is_some() || listener.spec_hash.is_none() {
        return None;
    }
    let release = judging_of(scale_set, latest, stated)?.release;
    let spec = scale_set.spec.as_ref()?.get();
    let values = scale_set
        .meta
        .annotations
        .get(ANNOTATION_VALUES_HASH)
        .map(String::as_str);
    let side = ListenerSide::Listener {
        hash: listener.spec_hash.as_deref(),
        values_hash: listener.values_hash.as_deref(),
    };
    listener_restart(release, spec, values, side)
        .ok()?
        .then(|| release.version.to_string())
}

/// `status.phase` of an object, when a string.
fn phase_of(object: &input::Object) -> Option<String> {
    crate::ops::release::phase_in(object.status.as_deref())
}

/// The sets' rows and the rows of scale sets without a set, in one order (namespace, name).
fn with_rows(mut rows: Vec<SetStatus>, more: Vec<SetStatus>) -> Vec<SetStatus> {
    rows.extend(more);
    rows.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    rows
}

/// What to show, with the namespace and names resolved (a scale set's name stands for its sets).
pub(crate) struct Plan {
    pub(crate) layout: &'static Layout,
    /// `None`: all namespaces.
    pub(crate) namespace: Option<String>,
    pub(crate) names: Vec<String>,
    pub(crate) selector: Option<String>,
    pub(crate) parsed_selector: Option<Selector>,
    /// The wall clock (AGE, "last written ... ago"), injected.
    pub(crate) clock: fn() -> SystemTime,
    /// `--arc-version`.
    pub(crate) arc_release: Option<Target>,
}

impl Plan {
    /// The clock, in Unix seconds.
    pub(crate) fn now(&self) -> Option<i64> {
        (self.clock)()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs() as i64)
    }

    /// Whether a set event belongs to the selection (names; the selector is applied by the
    /// server).
    fn selects(&self, key: &SetKey) -> bool {
        (self.namespace.is_none() || self.namespace.as_deref() == Some(key.0.as_str()))
            && (self.names.is_empty() || self.names.contains(&key.1))
    }

    fn set_scope(&self) -> Scope {
        Scope {
            namespace: self.namespace.clone(),
            label_selector: self.selector.clone(),
            field_selector: None,
        }
    }

    fn runner_scope(&self) -> Scope {
        Scope {
            namespace: self.namespace.clone(),
            ..Default::default()
        }
    }
}

/// Attach to each set in the census what its AutoscalingRunnerSet wants, found as ARC finds it
/// (owner reference, labels, name; the newest set when several), so that a change ARC has not
/// written yet shows as Propagating; a set of ARC up to 0.14 judged by the release `around`
/// states for its namespace ([`Surroundings::stated`]).
fn attach_desired(scale_sets: &[input::Object], census: &mut Census, around: &Surroundings) {
    let mut replacements: Vec<(SetKey, Replacement)> = Vec::new();
    let mut nexts: Vec<(SetKey, Option<crate::core::status::NextSide>)> = Vec::new();
    let chosen: Vec<(SetKey, DesiredSpec)> = {
        census_pairs(scale_sets, census)
            .into_iter()
            .filter_map(|(a, newest, replaced)| {
                let next = around.next(a.namespace()).is_some();
                // The next release uses the set named like its scale set (ARC #4516), whichever
                // is newest; every release before it the newest.
                let key = match next {
                    true => std::iter::once(&newest)
                        .chain(&replaced)
                        .find(|k| k.1 == a.name())
                        .unwrap_or(&newest),
                    false => &newest,
                };
                let facts = census.facts(key)?;
                let judged_next = (next && !facts.spec_hash_era).then(|| next_side(a, around));
                nexts.push((key.clone(), judged_next.flatten()));
                if next {
                    replacements.extend(left_behind(a, census, &newest, &replaced));
                } else if facts.spec_hash_era {
                    let stated = around.stated(a.namespace());
                    replacements.push((key.clone(), judged(a, facts, &stated)));
                    for old in &replaced {
                        replacements.push((
                            old.clone(),
                            Replacement::Old {
                                newest: facts.name.clone(),
                            },
                        ));
                    }
                }
                let id = a
                    .meta
                    .annotations
                    .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                    .cloned()
                    .or_else(|| runner_scale_set_id(facts.runner_spec.as_deref()?));
                Some((
                    key.clone(),
                    DesiredSpec {
                        scale_set: format!("{}/{}", a.namespace(), a.name()),
                        spec_json: a.spec.as_ref()?.get().to_string(),
                        scale_set_id: id,
                        unobserved: unobserved(a),
                    },
                ))
            })
            .collect()
    };
    for (key, desired) in chosen {
        census.set_desired(&key, Some(desired));
    }
    for (key, replacement) in replacements {
        census.set_replacement(&key, Some(replacement));
    }
    for (key, next) in nexts {
        census.set_next(&key, next);
    }
}

/// The sets of ARC up to 0.14 of `scale_set` (its newest `key` and those it replaced) that the
/// next release leaves behind: every one not named like the scale set
/// ([`Replacement::LeftBehind`]).
fn left_behind(
    scale_set: &input::Object,
    census: &Census,
    key: &SetKey,
    replaced: &[SetKey],
) -> Vec<(SetKey, Replacement)> {
    std::iter::once(key)
        .chain(replaced)
        .filter(|k| k.1 != scale_set.name())
        .filter(|k| census.facts(k).is_some_and(|f| f.spec_hash_era))
        .map(|k| {
            let scale_set = format!("{}/{}", scale_set.namespace(), scale_set.name());
            (k.clone(), Replacement::LeftBehind { scale_set })
        })
        .collect()
}

/// The newest set of ARC up to 0.14 as its scale set judges it: the release of the one rule
/// ([`crate::ops::release::judging_release`]: `--arc-version`, the controller's, the scale set's
/// chart label, else the set's own) hashes the scale set.
fn judged(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Replacement {
    let Some(judging) = judging_of(scale_set, facts, stated) else {
        return Replacement::Judged {
            scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
            release: "?".into(),
            desired: Err("no release of the runner-spec-hash era is known".into()),
        };
    };
    let release = judging.release;
    let spec = scale_set.spec.as_ref().map_or("{}", |s| s.get());
    Replacement::Judged {
        scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
        release: release.version.to_string(),
        desired: crate::core::spec_hash::runner_set_spec_hash(release, spec)
            .map_err(|e| e.to_string()),
    }
}

/// The release judging a scale set's newest set of ARC up to 0.14, by the one rule `diff` follows:
/// `--arc-version`, else the release of the controller Deployment that reconciles the namespace,
/// else the scale set's chart label (the set's own label as the alternative), else the set's own.
/// `None` under the next release, which leaves such a set behind ([`left_behind`]).
fn judging_of(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Option<crate::ops::release::Judging> {
    if stated.next().is_some() {
        return None;
    }
    let label = |labels: &std::collections::BTreeMap<String, String>, of: String| {
        let r = crate::core::release::release(labels.get("app.kubernetes.io/version")?)?;
        Some((r, format!("label app.kubernetes.io/version of {of}")))
    };
    crate::ops::release::judging_release(
        stated,
        label(&scale_set.meta.labels, scale_set.describe()),
        label(
            &facts.labels,
            format!("EphemeralRunnerSet {}/{}", facts.namespace, facts.name),
        ),
    )
}

/// [`StatusReason::ReleaseDisagrees`]: the scale set is judged by its chart's release, and the
/// release that made its newest set hashes it otherwise.
fn release_disagrees(
    scale_set: &input::Object,
    facts: &SetFacts,
    stated: &crate::ops::release::Stated,
) -> Option<crate::core::status::StatusReason> {
    if !facts.spec_hash_era {
        return None;
    }
    let judging = judging_of(scale_set, facts, stated)?;
    let (other, _) = judging.alternative?;
    let spec = scale_set.spec.as_ref()?.get();
    let hash = |r| crate::core::spec_hash::runner_set_spec_hash(r, spec).ok();
    let (ours, theirs) = (hash(judging.release)?, hash(other)?);
    (ours != theirs).then(|| crate::core::status::StatusReason::ReleaseDisagrees {
        scale_set: format!("{}/{}", scale_set.namespace(), scale_set.name()),
        release: judging.release.version.to_string(),
        other: other.version.to_string(),
        other_replaces: facts.runner_spec_hash.as_deref() != Some(theirs.as_str()),
        other_hash: theirs,
    })
}

/// Names as a user gives them: an EphemeralRunnerSet's, or its AutoscalingRunnerSet's (ARC up to
/// 0.14 names its sets `<scale set>-xxxxx`), which stands for the sets ARC made for it, found as
/// ARC finds them. A name that is neither stays, and is reported as not found.
async fn resolve_names<A: ArcApi>(
    api: &A,
    namespace: &str,
    names: &[String],
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut sets: Option<Vec<input::Object>> = None;
    for name in names {
        if (api
            .get(Resource::EPHEMERAL_RUNNER_SETS, namespace, name)
            .await?)
            .is_some()
        {
            out.push(name.clone());
            continue;
        }
        let Some(scale_set) = (api.get(Resource::AUTOSCALING_RUNNER_SETS, namespace, name)).await?
        else {
            out.push(name.clone());
            continue;
        };
        if sets.is_none() {
            let listed = api.list(Resource::EPHEMERAL_RUNNER_SETS, Some(namespace), None);
            sets = Some(listed.await?);
        }
        let sets = sets.as_deref().unwrap_or_default();
        let inputs: Vec<_> = sets.iter().map(input::Object::pairing_set).collect();
        let scale_set = pairing::ScaleSet {
            namespace,
            name,
            uid: scale_set.meta.uid.as_deref(),
        };
        match pairing::pair(scale_set, &inputs) {
            Some(p) => out.extend(
                std::iter::once(p.chosen)
                    .chain(p.replaced)
                    .map(|i| sets[i].name().to_string()),
            ),
            None => out.push(name.clone()),
        }
    }
    Ok(out)
}

/// The names of `plan` as the sets of the files they stand for ([`resolve_names`] over a dump of
/// the files' sets and scale sets): a scale set's name is its sets'.
fn offline_names(plan: &Plan, files: &Files, objects: &[input::Object]) -> Vec<String> {
    if plan.names.is_empty() {
        return Vec::new();
    }
    let namespace = plan.namespace.as_deref().unwrap_or(&files.namespace);
    let kept = objects.iter().filter(|o| {
        o.problem.is_none()
            && (o.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET)
                || o.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET))
    });
    let dump = crate::cluster::dump::Dump::of(kept.cloned().collect());
    let resolved =
        super::runtime().and_then(|rt| rt.block_on(resolve_names(&dump, namespace, &plan.names)));
    resolved.unwrap_or_else(|_| plan.names.clone())
}

/// `runnerScaleSetId` of a runner spec, when set.
fn runner_scale_set_id(runner_spec: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Id {
        #[serde(rename = "runnerScaleSetId")]
        id: Option<serde_json::Number>,
    }
    let Id { id } = serde_json::from_str(runner_spec).ok()?;
    id.filter(|n| n.as_i64().is_some_and(|n| n != 0))
        .map(|n| n.to_string())
}

/// `metadata.generation` ahead of `status.observedGeneration`, where the object has both.
fn unobserved(scale_set: &input::Object) -> Option<Unobserved> {
    let observed = observed_generation(scale_set)?;
    crate::core::next::observed_generation_behind(scale_set.meta.generation, Some(observed))
}

/// `status.observedGeneration` of an AutoscalingRunnerSet, when written (the next release writes
/// it, ARC #4636).
fn observed_generation(scale_set: &input::Object) -> Option<i64> {
    #[derive(Deserialize)]
    struct Status {
        #[serde(rename = "observedGeneration")]
        observed: Option<i64>,
    }
    serde_json::from_str::<Status>(scale_set.status.as_ref()?.get())
        .ok()?
        .observed
}

/// What the next release reads around the newest set of `scale_set` when it judges the
/// namespace ([`crate::core::status::NextSide`]): the scale set's generation against its
/// `status.observedGeneration` (absent reads 0, as Go decodes it), its phase, its listener's
/// `spec.phase`.
fn next_side(
    scale_set: &input::Object,
    around: &Surroundings,
) -> Option<crate::core::status::NextSide> {
    let from = around.next(scale_set.namespace())?;
    let listener_phase = match around.view(scale_set) {
        ListenerView::Found { listener, .. } => listener.phase.clone(),
        _ => None,
    };
    Some(crate::core::status::NextSide {
        from,
        unobserved: crate::core::next::observed_generation_behind(
            scale_set.meta.generation,
            observed_generation(scale_set),
        ),
        scale_set_phase: phase_of(scale_set),
        listener_phase,
    })
}

/// The scale sets in scope, for [`attach_desired`]. A caller who may not list them still gets the
/// sets' own states.
async fn scale_sets(client: &kube::Client, plan: &Plan) -> Vec<input::Object> {
    cluster::list_objects(
        client,
        arc::KIND_AUTOSCALING_RUNNER_SET,
        arc::AUTOSCALING_RUNNER_SETS,
        plan.namespace.as_deref(),
        None,
    )
    .await
    .unwrap_or_default()
}

/// Whether ARC's `listEphemeralRunnerSets` finds a set of `scale_set` in the census.
fn has_set(scale_set: &input::Object, census: &Census) -> bool {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    has_set_among(scale_set, &pairing::Index::new(&sets))
}

/// Whether ARC's `listEphemeralRunnerSets` finds a set of `scale_set` among the indexed sets
/// (indexed once: each scale set looks at its own few candidates, not at every set).
fn has_set_among(scale_set: &input::Object, sets: &pairing::Index<'_, '_>) -> bool {
    sets.pair(pairing::ScaleSet {
        namespace: scale_set.namespace(),
        name: scale_set.name(),
        uid: scale_set.meta.uid.as_deref(),
    })
    .is_some()
}

/// The scale sets in scope (namespace, names, selector) for which ARC finds no set in the census:
/// each is a row of its own (a scale set just installed, waiting for registration or for the
/// controller, or one ARC cannot build).
fn scale_sets_without_sets<'a>(
    plan: &Plan,
    scale_sets: &'a [input::Object],
    has_set: impl Fn(&input::Object) -> bool,
) -> Vec<&'a input::Object> {
    scale_sets
        .iter()
        .filter(|a| a.problem.is_none() && a.meta.name.is_some())
        .filter(|a| {
            plan.namespace
                .as_deref()
                .is_none_or(|ns| ns == a.namespace())
        })
        .filter(|a| plan.names.is_empty() || plan.names.iter().any(|n| n == a.name()))
        .filter(|a| (plan.parsed_selector.as_ref()).is_none_or(|s| s.matches(&a.meta.labels)))
        .filter(|a| !has_set(a))
        .collect()
}

/// [`scale_sets_without_sets`] against the census, its sets indexed once.
fn without_sets<'a>(
    plan: &Plan,
    scale_sets: &'a [input::Object],
    census: &Census,
) -> Vec<&'a input::Object> {
    let inputs = census.pairing_inputs();
    let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
    let index = pairing::Index::new(&sets);
    scale_sets_without_sets(plan, scale_sets, |a| has_set_among(a, &index))
}

/// The row of a scale set without a set ([`crate::core::status::scale_set_without_set`]), its
/// version checked by the release `around` states for its namespace.
fn scale_set_row(plan: &Plan, scale_set: &input::Object, around: &Surroundings) -> SetStatus {
    let key = scale_set.key();
    let phase = phase_of(scale_set);
    let deletion = deletion_of_object(scale_set);
    let version_check = around.version_check(scale_set);
    crate::core::status::scale_set_without_set(
        plan.layout,
        crate::core::status::WithoutSet {
            key: &key,
            spec_json: scale_set.spec.as_ref().map(|s| s.get()),
            scale_set_id: (scale_set.meta.annotations)
                .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                .map(String::as_str),
            phase: phase.as_deref(),
            creation_timestamp: scale_set.meta.creation_timestamp.as_deref(),
            deletion: deletion.as_ref(),
            version_check: version_check.as_ref(),
            next: around.next(scale_set.namespace()).is_some(),
        },
        plan.now(),
    )
}

/// Names given that are neither a set in the census nor a scale set shown without one.
pub(crate) fn missing_names(plan: &Plan, census: &Census, shown: &[SetStatus]) -> Vec<String> {
    let ns = plan.namespace.clone().unwrap_or_default();
    plan.names
        .iter()
        .filter(|n| !census.contains(&(ns.clone(), (*n).clone())))
        .filter(|n| !shown.iter().any(|r| r.namespace == ns && &r.name == *n))
        .map(|n| format!("EphemeralRunnerSet {ns}/{n} not found"))
        .collect()
}

/// What a listing produced.
struct Gathered {
    census: Census,
    /// The sets seen by this listing.
    seen: HashSet<SetKey>,
    /// Where watches can start.
    sets_version: String,
    runners_version: String,
}

/// The worker thread: sets first (they arrive on `sets`), then runners, into the census, each
/// read from the one [`input::Object`] every source gives (as `-f` reads them).
fn consume(
    mut census: Census,
    sets: std_mpsc::Receiver<input::Object>,
    runners: std_mpsc::Receiver<input::Object>,
) -> Result<(Census, HashSet<SetKey>)> {
    let mut seen = HashSet::new();
    for set in sets {
        let facts = SetFacts::from_object(&set)
            .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet in the list: {e}"))?;
        seen.insert(census.upsert_set(facts));
    }
    for runner in runners {
        // A runner whose facts cannot be read cannot belong to any set: skip it.
        if let Ok(runner) = RunnerFacts::from_object(&runner) {
            census.add_runner(&runner);
        }
    }
    Ok((census, seen))
}

/// The census worker stopped (it failed, and says why): the list it was fed stops.
#[derive(Debug, thiserror::Error)]
#[error("the census worker stopped")]
struct WorkerStopped;

/// Hand a listed object to the worker, waiting while it is a page behind.
fn to_worker(
    worker: &std_mpsc::SyncSender<input::Object>,
) -> impl FnMut(input::Object) -> Result<()> {
    |object| (worker.send(object)).map_err(|_| anyhow::Error::new(WorkerStopped))
}

/// List the selected sets and then the runners in scope into `census`, page by page.
async fn gather<A: ArcApi>(api: &A, plan: &Plan, census: Census) -> Result<Gathered> {
    gather_parts(api, plan, census, true, true).await
}

/// List the sets (`list_sets`) and the runners (`list_runners`) into `census`, on a worker thread
/// that works on each object while the next page is fetched.
async fn gather_parts<A: ArcApi>(
    api: &A,
    plan: &Plan,
    census: Census,
    list_sets: bool,
    list_runners: bool,
) -> Result<Gathered> {
    let (sets_tx, sets_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let (runners_tx, runners_rx) = std_mpsc::sync_channel(PAGE_SIZE as usize);
    let worker = std::thread::Builder::new()
        .name("status-census".into())
        .spawn(move || consume(census, sets_rx, runners_rx))
        .context("cannot start a worker thread")?;
    let fetched: Result<(String, String)> = async {
        let mut sets_version = String::new();
        if list_sets {
            let ns = plan.namespace.clone();
            let sets = Resource::EPHEMERAL_RUNNER_SETS;
            if plan.names.is_empty() {
                let query = plan.set_scope();
                sets_version = api.list_each(sets, &query, to_worker(&sets_tx)).await?;
            } else {
                for name in &plan.names {
                    let query = Scope {
                        namespace: ns.clone(),
                        label_selector: plan.selector.clone(),
                        field_selector: Some(format!("metadata.name={name}")),
                    };
                    sets_version = api.list_each(sets, &query, to_worker(&sets_tx)).await?;
                }
            }
        }
        drop(sets_tx);
        let mut runners_version = String::new();
        if list_runners {
            let (runners, query) = (Resource::EPHEMERAL_RUNNERS, plan.runner_scope());
            runners_version = api
                .list_each(runners, &query, to_worker(&runners_tx))
                .await?;
        }
        drop(runners_tx);
        Ok((sets_version, runners_version))
    }
    .await;
    let worked = worker
        .join()
        .map_err(|_| anyhow::anyhow!("the census worker thread panicked"))?;
    let (sets_version, runners_version) = match fetched {
        // The worker's error says why.
        Err(e) if e.is::<WorkerStopped>() => Default::default(),
        fetched => fetched?,
    };
    let (census, seen) = worked?;
    Ok(Gathered {
        census,
        seen,
        sets_version,
        runners_version,
    })
}

/// `--watch` and `--wait`: list, then keep the census current from two watches.
pub(crate) async fn follow(
    client: &kube::Client,
    plan: &Plan,
    shown: &mut Follow<'_>,
    timeout: Option<Duration>,
    shell: &mut Shell<'_>,
) -> Result<Outcome> {
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    // The runners' Pods as a one-shot listing reads them, read again with the listeners: the
    // rows of --watch and --wait are judged as `status` judges them.
    let mut live = Census::new(plan.layout, true);
    let pods_unreadable = match runner_pods(client, plan).await {
        Ok(pods) => {
            live.set_runner_pods(pods);
            None
        }
        Err(warning) => Some(warning),
    };
    let pods_readable = pods_unreadable.is_none();
    let gathered = gather(client, plan, live).await?;
    let mut census = gathered.census;
    census.start_following();
    // Said once the sets could be listed, as a listing says it.
    if let Some(warning) = pods_unreadable {
        shell.warn(&warning)?;
    }
    let scale_sets = scale_sets(client, plan).await;
    let around = Surroundings::read(client, plan).await;
    for w in &around.warnings {
        shell.warn(w)?;
    }
    // Scale sets, listeners, controllers and runner Pods are not watched: read again every few
    // seconds while the rows are followed, and every set judged again as a one-shot `status`
    // judges it, as also when a set comes or goes.
    rejudge(&scale_sets, &mut census, &around);
    // Scale sets without a set yet (just installed): waited for until ARC creates their set, as
    // `kubectl rollout status` waits for a new Deployment's ReplicaSet.
    let waiting: Vec<input::Object> = without_sets(plan, &scale_sets, &census)
        .into_iter()
        .cloned()
        .collect();
    let waiting_rows: Vec<SetStatus> = (waiting.iter())
        .map(|a| scale_set_row(plan, a, &around))
        .collect();
    let missing = missing_names(plan, &census, &waiting_rows);
    if !missing.is_empty() {
        for e in &missing {
            shell.error(e)?;
        }
        return Ok(Outcome::Failed);
    }
    let rows = with_rows(census.statuses(plan.now()), waiting_rows);
    if let Some(code) = shown.start(plan, rows, shell)? {
        return Ok(code);
    }
    let watched = Watched {
        scale_sets,
        around,
        waiting,
        adopted: HashSet::new(),
        dirty: HashSet::new(),
        pods_readable,
        deadline,
        timeout: timeout.unwrap_or_default(),
    };
    let versions = (gathered.sets_version, gathered.runners_version);
    follow_events(client, plan, shown, shell, census, watched, versions).await
}

/// What [`follow`] keeps beside the census while it follows the watches.
struct Watched {
    /// The scale sets, the listeners and controllers, read again every few seconds.
    scale_sets: Vec<input::Object>,
    around: Surroundings,
    /// Scale sets without a set yet, waited for until ARC creates one.
    waiting: Vec<input::Object>,
    /// Sets ARC created for a waited-for scale set, whatever their name (`<name>-xxxxx` up to
    /// 0.14): followed as if they had been named.
    adopted: HashSet<SetKey>,
    /// The sets whose rows changed since the last flush.
    dirty: HashSet<SetKey>,
    /// Whether the runners' Pods could be read when following began (else not read again).
    pods_readable: bool,
    /// When to give up (`--timeout`), and the timeout that says.
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
}

/// The follow loop: fold the events of the sets' and the runners' watches into the census, print
/// the changed rows at most every 100 ms, read the surroundings again every 5 s, and stop when
/// `shown` says so or at the deadline. The watches start at the listing's resource `versions`
/// (the sets', the runners').
async fn follow_events(
    client: &kube::Client,
    plan: &Plan,
    shown: &mut Follow<'_>,
    shell: &mut Shell<'_>,
    mut census: Census,
    mut w: Watched,
    (sets_version, runners_version): (String, String),
) -> Result<Outcome> {
    let reread = || tokio::time::Instant::now() + Duration::from_secs(5);
    let mut reread_at = reread();
    let mut sets_watch = client.watch(
        Resource::EPHEMERAL_RUNNER_SETS,
        plan.set_scope(),
        sets_version,
    )?;
    let mut runners_watch = client.watch(
        Resource::EPHEMERAL_RUNNERS,
        plan.runner_scope(),
        runners_version,
    )?;
    let mut flush_at: Option<tokio::time::Instant> = None;
    let far = || tokio::time::Instant::now() + Duration::from_secs(86400 * 365);
    let soon = || tokio::time::Instant::now() + Duration::from_millis(100);
    loop {
        let flush_deadline = flush_at.unwrap_or_else(far);
        let timeout_deadline = w.deadline.unwrap_or_else(far);
        tokio::select! {
            event = sets_watch.next() => {
                match event? {
                    Event::Applied(o) => set_applied(&o, plan, &mut census, &mut w, shown)?,
                    Event::Deleted(o) => {
                        if let Ok(facts) = SetFacts::from_object(&o) {
                            let key = (facts.namespace, facts.name);
                            census.remove_set(&key);
                            shown.deleted(plan, &key, shell)?;
                            rejudge(&w.scale_sets, &mut census, &w.around);
                            w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
                        }
                    }
                    Event::Relist => {
                        let g = gather_parts(client, plan, census, true, false).await?;
                        census = g.census;
                        let gone: Vec<SetKey> =
                            census.keys().filter(|k| !g.seen.contains(*k)).cloned().collect();
                        for k in gone {
                            census.remove_set(&k);
                            shown.forget(&k);
                        }
                        w.dirty.extend(g.seen);
                        sets_watch.resume_from(g.sets_version);
                    }
                    Event::Reconnecting(why) => shell.status(why)?,
                    Event::End => {} // a live watch's never comes
                }
                flush_at.get_or_insert_with(soon);
            }
            event = runners_watch.next() => {
                match event? {
                    Event::Applied(o) => {
                        if let Ok(runner) = RunnerFacts::from_object(&o)
                            && let Some(key) = census.add_runner(&runner)
                        {
                            w.dirty.insert(key);
                        }
                    }
                    Event::Deleted(o) => {
                        if let Some(key) = census.remove_runner(o.namespace(), o.name()) {
                            w.dirty.insert(key);
                        }
                    }
                    Event::Relist => {
                        census.clear_runners();
                        let g = gather_parts(client, plan, census, false, true).await?;
                        census = g.census;
                        w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
                        runners_watch.resume_from(g.runners_version);
                    }
                    Event::Reconnecting(why) => shell.status(why)?,
                    Event::End => {} // a live watch's never comes
                }
                flush_at.get_or_insert_with(soon);
            }
            _ = tokio::time::sleep_until(flush_deadline), if flush_at.is_some() => {
                flush_at = None;
                if let Some(code) = shown.flush(plan, &mut census, &mut w.dirty, shell)? {
                    return Ok(code);
                }
            }
            _ = tokio::time::sleep_until(reread_at) => {
                reread_at = reread();
                reread_surroundings(client, plan, &mut census, &mut w).await;
                flush_at.get_or_insert_with(soon);
            }
            _ = tokio::time::sleep_until(timeout_deadline), if w.deadline.is_some() => {
                return shown.timed_out(w.timeout, shell);
            }
        }
    }
}

/// A set added or changed while followed: a selected (or adopted) set is judged again, a set
/// ARC made for a waited-for scale set is adopted, and a scale set that has its set is no longer
/// waited for.
fn set_applied(
    o: &input::Object,
    plan: &Plan,
    census: &mut Census,
    w: &mut Watched,
    shown: &mut Follow<'_>,
) -> Result<()> {
    let facts = SetFacts::from_object(o)
        .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet event: {e}"))?;
    let key = (facts.namespace.clone(), facts.name.clone());
    if plan.selects(&key) || w.adopted.contains(&key) {
        // ARC up to 0.14 replaces a set with a new one: which set is the newest (and so judged by
        // the hash, and given the listener) is decided again.
        let replaced = facts.spec_hash_era || !census.contains(&key);
        census.upsert_set(facts);
        w.dirty.insert(key);
        if replaced {
            rejudge(&w.scale_sets, census, &w.around);
            w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
        }
    } else if !w.waiting.is_empty() {
        census.upsert_set(facts);
        if w.waiting.iter().any(|a| has_set(a, census)) {
            w.adopted.insert(key.clone());
            w.dirty.insert(key);
        } else {
            census.remove_set(&key);
        }
    }
    if !w.waiting.is_empty() {
        w.waiting.retain(|a| {
            let found = has_set(a, census);
            if found {
                shown.forget(&a.key());
            }
            !found
        });
    }
    Ok(())
}

/// Read again what is not watched (the runners' Pods, if they could be read at first, the scale
/// sets and the surroundings), and judge every set again.
async fn reread_surroundings(
    client: &kube::Client,
    plan: &Plan,
    census: &mut Census,
    w: &mut Watched,
) {
    if w.pods_readable
        && let Ok(pods) = runner_pods(client, plan).await
    {
        census.set_runner_pods(pods);
    }
    w.scale_sets = scale_sets(client, plan).await;
    w.around = Surroundings::read(client, plan).await;
    rejudge(&w.scale_sets, census, &w.around);
    w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
}

/// Judge every set of the census again against its scale set ([`attach_desired`]) and its
/// surroundings ([`attach_surroundings`]), as one listing does.
fn rejudge(scale_sets: &[input::Object], census: &mut Census, around: &Surroundings) {
    attach_desired(scale_sets, census, around);
    attach_surroundings(scale_sets, census, around);
}

/// What `--wait` waits for: [`SetStatus::settled`].
pub(crate) fn settled(row: &SetStatus) -> bool {
    row.settled()
}

/// A set's state and its first reason, for a message about waiting: `ns/name is Pending (...)`.
pub(crate) fn where_it_stands(row: &SetStatus) -> String {
    let reason = row.reasons.first().map(|x| format!(" ({x})"));
    format!(
        "{}/{} is {}{}",
        row.namespace,
        row.name,
        row.state,
        reason.unwrap_or_default()
    )
}

/// The sets whose state waiting cannot change (only a person can), said with their reasons: `--wait`
/// fails at once on them instead of waiting for its timeout (or forever).
pub(crate) fn cannot_progress(rows: &[SetStatus]) -> Option<String> {
    let stuck: Vec<String> = rows
        .iter()
        .filter(|r| {
            matches!(
                r.state,
                State::Outdated
                    | State::Invalid
                    | State::Legacy
                    | State::SpecHash
                    | State::RecycleLoop
                    | State::ListenerFailing
                    | State::RunnersFailed
                    | State::VersionRejected
            )
        })
        .map(where_it_stands)
        .collect();
    (!stuck.is_empty()).then(|| {
        format!(
            "waiting cannot help: {}",
            crate::report::name_a_few(&stuck, 3)
        )
    })
}

/// The runner Pods a dump holds (label `actions-ephemeral-runner: True`), as read for the
/// namespaces it holds any of; `None` when it holds none.
fn dumped_runner_pods(objects: &[input::Object]) -> Option<RunnerPods> {
    let dumped_pods: Vec<input::Object> = objects
        .iter()
        .filter(|o| o.kind == "Pod" && o.api_version == "v1" && o.problem.is_none())
        .filter(|o| {
            o.meta
                .labels
                .get("actions-ephemeral-runner")
                .map(String::as_str)
                == Some("True")
        })
        .cloned()
        .collect();
    if dumped_pods.is_empty() {
        return None;
    }
    let namespaces = dumped_pods
        .iter()
        .map(|p| p.namespace().to_string())
        .collect();
    Some(runner_pods_of(&dumped_pods, Some(namespaces)))
}

/// A dump's objects sorted out by [`sort_dump`].
struct DumpSorted {
    /// The runners' JSON text.
    runners: Vec<String>,
    scale_sets: Vec<input::Object>,
    /// Every set of the dump, selected or not.
    set_objects: Vec<input::Object>,
}

/// Sort a dump's objects out: the selected sets go into the census, the runners and scale sets
/// are kept for it; an object kubectl refuses, or a set that cannot be read, is an error.
fn sort_dump(
    objects: Vec<input::Object>,
    plan: &Plan,
    names: &[String],
    census: &mut Census,
    errors: &mut Vec<String>,
) -> DumpSorted {
    let runner_namespaces: HashSet<String> = objects
        .iter()
        .filter(|o| o.is_arc(arc::KIND_EPHEMERAL_RUNNER))
        .map(|o| o.namespace().to_string())
        .collect();
    let mut runners = Vec::new();
    let mut scale_sets = Vec::new();
    let mut set_objects = Vec::new();
    for obj in objects {
        let set = obj.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET);
        let runner = obj.is_arc(arc::KIND_EPHEMERAL_RUNNER);
        if let Some(problem) = (obj.problem.as_ref()).filter(|_| !set && !runner) {
            // An object kubectl refuses, whatever its kind: said, never dropped (its Pods,
            // listeners and scale sets are left out of the census below by their problem).
            errors.push(if problem.starts_with(&obj.kind) {
                format!("{}: {problem}", obj.origin)
            } else {
                format!("{}: {problem}", obj.describe())
            });
        }
        if obj.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET) {
            scale_sets.push(obj);
            continue;
        }
        if !set && !runner {
            continue;
        }
        if let Some(problem) = &obj.problem {
            errors.push(format!("{}: {problem}", obj.describe()));
            continue;
        }
        if set {
            match SetFacts::from_object(&obj) {
                Ok(mut facts) => {
                    // A dump without the namespace's runners says nothing of them: the counts
                    // in the set's status are not judged against runners it does not hold.
                    if !runner_namespaces.contains(facts.namespace.as_str()) {
                        facts.counters = None;
                    }
                    let selected = (names.is_empty() || names.contains(&facts.name))
                        && plan
                            .parsed_selector
                            .as_ref()
                            .is_none_or(|s| s.matches(&facts.labels));
                    if selected {
                        census.upsert_set(facts);
                    }
                }
                Err(e) => errors.push(format!("{}: {e}", obj.describe())),
            }
            set_objects.push(obj);
        } else {
            runners.push(obj.json());
        }
    }
    DumpSorted {
        runners,
        scale_sets,
        set_objects,
    }
}

/// `-f`: the census from a dump, read through the one input layer. Returns the rows and the
/// problems found (files that cannot be read, objects kubectl would refuse).
pub(crate) fn from_files(plan: &Plan, files: &Files, stdin: &mut dyn std::io::Read) -> Snapshot {
    let inputs = input::read(&files.paths, stdin);
    let mut errors = inputs.errors;
    let mut objects = inputs.objects;
    input::resolve_namespaces(&mut objects, &files.namespace, files.namespace_given);
    // A scale set's name stands for its sets, offline as against the cluster: the same rule
    // ([`resolve_names`]) over the dump's sets and scale sets.
    let names = offline_names(plan, files, &objects);
    let around = Surroundings {
        arc_release: plan.arc_release,
        ..Surroundings::from_objects(&objects)
    };
    let mut census = Census::new(plan.layout, false);
    if let Some(pods) = dumped_runner_pods(&objects) {
        census.set_runner_pods(pods);
    }
    let DumpSorted {
        runners,
        scale_sets,
        set_objects,
    } = sort_dump(objects, plan, &names, &mut census, &mut errors);
    for text in &runners {
        if let Ok(r) = RunnerFacts::from_json(text) {
            census.add_runner(&r);
        }
    }
    rejudge(&scale_sets, &mut census, &around);
    // Against every set of the files, named or not: a scale set's set may have another name.
    let all_sets: Vec<_> = set_objects.iter().map(input::Object::pairing_set).collect();
    let all_sets = pairing::Index::new(&all_sets);
    let waiting: Vec<SetStatus> =
        scale_sets_without_sets(plan, &scale_sets, |a| has_set_among(a, &all_sets))
            .into_iter()
            .map(|a| scale_set_row(plan, a, &around))
            .collect();
    for name in &names {
        if !census.keys().any(|k| &k.1 == name) && !waiting.iter().any(|r| &r.name == name) {
            errors.push(format!("EphemeralRunnerSet {name} not found in the files"));
        }
    }
    let chains = chains(plan, &scale_sets, &census, &around);
    Snapshot {
        rows: with_rows(census.statuses(plan.now()), waiting),
        errors,
        warnings: Vec::new(),
        fleet: FleetFacts::default(),
        chains,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::runners::RunnerCounts;
    use serde_json::{Value, json};

    /// The shipped example's scale set and set, as JSON values.
    fn example() -> (Value, Value) {
        let text = include_str!("../../examples/actionable-revision/scale-set-dump.yaml");
        let docs = crate::manifest::parse(text, "example.yaml").unwrap();
        let items: Vec<Value> = match docs[0].value.get("items") {
            Some(Value::Array(items)) => items.clone(),
            _ => docs.iter().map(|d| d.value.clone()).collect(),
        };
        assert_eq!(items[0]["kind"], "AutoscalingRunnerSet");
        assert_eq!(items[1]["kind"], "EphemeralRunnerSet");
        (items[0].clone(), items[1].clone())
    }

    fn plan(names: &[&str], selector: Option<&str>) -> Plan {
        Plan {
            layout: Layout::arc(),
            namespace: None,
            names: names.iter().map(|n| n.to_string()).collect(),
            selector: selector.map(str::to_string),
            parsed_selector: selector.map(|s| Selector::parse(s).unwrap()),
            clock: || std::time::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
            arc_release: None,
        }
    }

    /// `status -f -` of these objects.
    fn status(plan: &Plan, items: &[Value]) -> Snapshot {
        let dump = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let files = Files {
            paths: vec!["-".into()],
            namespace: "default".into(),
            namespace_given: false,
        };
        from_files(plan, &files, &mut dump.as_bytes())
    }

    fn states(s: &Snapshot) -> Vec<(String, State)> {
        s.rows.iter().map(|r| (r.name.clone(), r.state)).collect()
    }

    fn row(name: &str, state: State) -> SetStatus {
        SetStatus {
            namespace: "ci".into(),
            name: name.into(),
            spec_revision: Some(1),
            applied_revision: Some(1),
            state,
            runners: RunnerCounts::default(),
            reasons: Vec::new(),
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: None,
            ids: Default::default(),
        }
    }

    /// The scale set's wanted spec reaches the set it owns, found as ARC finds it: its change not
    /// yet written shows the set as Propagating; a set it does not own is judged on its own.
    #[test]
    fn a_scale_sets_unwritten_change_shows_on_the_set_it_owns() {
        let (ars, ers) = example();
        let s = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
        assert_eq!(
            states(&s),
            vec![("arc-runner-set".to_string(), State::Propagating)]
        );
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        assert_eq!(s.outcome(), Outcome::Clean);
        // Alone, the set is judged on its own revisions.
        let alone = status(&plan(&[], None), std::slice::from_ref(&ers));
        assert_ne!(alone.rows[0].state, State::Propagating);
        // Owned by another scale set: not this one's, even with its name.
        let mut foreign = ers.clone();
        foreign["metadata"]["ownerReferences"][0]["name"] = json!("other");
        foreign["metadata"]["ownerReferences"][0]["uid"] = json!("u-other");
        let s = status(&plan(&[], None), &[ars.clone(), foreign]);
        assert_eq!(s.rows[0].state, alone.rows[0].state);
        // Of two sets of the scale set, the newest is ARC's: only it is compared.
        let mut old = ers.clone();
        old["metadata"]["name"] = json!("arc-runner-set-old");
        old["metadata"]["creationTimestamp"] = json!("2020-01-01T00:00:00Z");
        let mut new = ers;
        new["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:00Z");
        let s = status(&plan(&[], None), &[old, ars, new]);
        assert_eq!(s.rows[0].name, "arc-runner-set");
        assert_eq!(s.rows[0].state, State::Propagating);
        assert_ne!(s.rows[1].state, State::Propagating, "{:?}", s.rows[1]);
    }

    #[test]
    fn names_and_selectors_choose_the_sets_and_a_missing_name_fails() {
        let (ars, ers) = example();
        let mut gpu = ers.clone();
        gpu["metadata"]["name"] = json!("gpu");
        gpu["metadata"]["labels"] = json!({"team": "gpu"});
        let items = [ars, ers, gpu];
        let s = status(&plan(&["gpu"], None), &items);
        assert_eq!(s.rows.len(), 1);
        assert_eq!(s.rows[0].name, "gpu");
        assert_eq!(s.outcome(), Outcome::Clean);
        let s = status(&plan(&[], Some("team=gpu")), &items);
        assert_eq!(
            s.rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["gpu"]
        );
        let s = status(&plan(&["gpu", "nope"], None), &items);
        assert_eq!(s.rows.len(), 1);
        assert_eq!(s.errors, ["EphemeralRunnerSet nope not found in the files"]);
        assert_eq!(s.outcome(), Outcome::Failed);
    }

    #[test]
    fn runners_count_on_their_set_and_a_bad_object_is_an_error_beside_the_others() {
        let (_, ers) = example();
        let runner = |name: &str, phase: &str, job: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
                   "metadata": {"name": name, "namespace": "arc-runners", "ownerReferences": [
                       {"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                        "name": "arc-runner-set", "uid": "u", "controller": true}]},
                   "spec": ers["spec"]["ephemeralRunnerSpec"],
                   "status": {"phase": phase, "jobId": job}})
        };
        let mut bad = ers.clone();
        bad["metadata"]["name"] = json!("bad");
        bad["metadata"]["labels"] = json!("not a map");
        let items = [
            ers.clone(),
            runner("idle", "Running", ""),
            runner("busy", "Running", "42"),
            runner("pending", "Pending", ""),
            bad,
        ];
        let s = status(&plan(&[], None), &items);
        assert_eq!(s.rows.len(), 1, "{:?}", states(&s));
        let r = &s.rows[0].runners;
        assert_eq!((r.idle, r.busy, r.pending), (1, 1, 1));
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert!(s.errors[0].contains("bad"), "{:?}", s.errors);
        assert_eq!(s.outcome(), Outcome::Failed);
    }

    #[test]
    fn wait_settles_on_synced_or_deleting_and_gives_up_on_what_only_a_person_fixes() {
        assert!(settled(&row("a", State::Synced)));
        assert!(settled(&row("a", State::Deleting)));
        for state in [State::Pending, State::Stale, State::Propagating] {
            assert!(!settled(&row("a", state)), "{state:?}");
        }
        let waiting = [row("a", State::Pending), row("b", State::Propagating)];
        assert_eq!(cannot_progress(&waiting), None);
        let stuck = [
            row("a", State::Pending),
            row("b", State::Outdated),
            row("c", State::Invalid),
        ];
        // What a person must fix fails at once too; what ARC fixes by itself is waited for.
        for state in [
            State::ListenerFailing,
            State::RunnersFailed,
            State::VersionRejected,
        ] {
            assert!(cannot_progress(&[row("x", state)]).is_some(), "{state:?}");
        }
        assert_eq!(cannot_progress(&[row("x", State::ListenerDown)]), None);
        assert!(!settled(&row("x", State::ListenerDown)));
        let why = cannot_progress(&stuck).unwrap();
        assert!(why.starts_with("waiting cannot help: "), "{why}");
        assert!(
            why.contains("ci/b is Outdated") && why.contains("ci/c is Invalid"),
            "{why}"
        );
        assert!(!why.contains("ci/a"), "{why}");
    }

    #[test]
    fn the_scale_set_id_and_an_unobserved_generation_are_read_as_written() {
        assert_eq!(
            runner_scale_set_id(r#"{"runnerScaleSetId": 7}"#),
            Some("7".into())
        );
        assert_eq!(
            runner_scale_set_id(r#"{"runnerScaleSetId": 0}"#),
            None,
            "unset"
        );
        assert_eq!(runner_scale_set_id(r#"{}"#), None);
        let (ars, _) = example();
        let object = |generation: i64, observed: i64| {
            let mut a = ars.clone();
            a["metadata"]["generation"] = json!(generation);
            a["status"] = json!({"observedGeneration": observed});
            let text = json!({"apiVersion": "v1", "kind": "List", "items": [a]}).to_string();
            let mut inputs = input::read(&["-".into()], &mut text.as_bytes());
            inputs.objects.remove(0)
        };
        assert_eq!(
            unobserved(&object(3, 2)),
            Some(Unobserved {
                generation: 3,
                observed: 2
            })
        );
        assert_eq!(unobserved(&object(2, 2)), None);
    }

    /// `-f` with listeners and Pods: a dump's listener for another set of the namespace makes a
    /// scale set without one ListenerDown, a crashing listener Pod ListenerFailing; a dump without
    /// listeners, or without Pods of the listener's namespace, says nothing of them.
    #[test]
    fn a_dumps_listeners_and_pods_are_judged_as_the_clusters() {
        let (ars, ers) = example();
        let ns = ers["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        let mut ars = ars;
        ars["metadata"]["annotations"]["runner-scale-set-id"] = json!("3");
        let mut other_ars = ars.clone();
        other_ars["metadata"]["name"] = json!("other");
        other_ars["metadata"]["uid"] = json!("u-other");
        // ARC's own name of each scale set's listener (`scaleSetListenerName`, 0.13.1 on).
        let arc_name = |scale_set: &str| {
            crate::core::status::listener::scale_set_listener_name(
                scale_set,
                &ns,
                "",
                "https://github.com/my-org",
                true,
            )
        };
        let listener = |scale_set: &str, points_at: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
                   "metadata": {"name": arc_name(scale_set), "namespace": "arc-systems"},
                   "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": scale_set,
                            "ephemeralRunnerSetName": points_at}})
        };
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": arc_name("other"), "namespace": "arc-systems"},
            "status": {"phase": "Running", "containerStatuses": [{"name": "listener", "restartCount": 4,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        let base = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
        let base_state = base.rows[0].state;
        // Another scale set's listener in the namespace: this one has none.
        let s = status(
            &plan(&[], None),
            &[
                ars.clone(),
                ers.clone(),
                other_ars.clone(),
                listener("other", "other"),
            ],
        );
        let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
        assert!(
            row.reasons.iter().any(|r| r.code() == "NoListener"),
            "{:?}",
            row.reasons
        );
        // Its own listener, no Pod in the dump: nothing said of the Pod.
        let s = status(
            &plan(&[], None),
            &[
                ars.clone(),
                ers.clone(),
                listener("arc-runner-set", "arc-runner-set"),
            ],
        );
        let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
        assert_eq!(row.state, base_state, "{:?}", row.reasons);
        assert!(!row.reasons.iter().any(|r| r.code().starts_with("Listener")));
        // Pods of that namespace in the dump, only another's (crashing): its own is missing.
        let s = status(
            &plan(&[], None),
            &[
                ars.clone(),
                ers.clone(),
                listener("arc-runner-set", "arc-runner-set"),
                pod.clone(),
            ],
        );
        let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
        let codes: Vec<&str> = row.reasons.iter().map(|r| r.code()).collect();
        assert!(codes.contains(&"ListenerPodMissing"), "{codes:?}");
        assert!(!codes.contains(&"ListenerPodNotRunning"), "{codes:?}");
        // Its own listener's Pod crashes.
        let mut own_pod = pod.clone();
        own_pod["metadata"]["name"] = json!(arc_name("arc-runner-set"));
        let s = status(
            &plan(&[], None),
            &[
                ars.clone(),
                ers.clone(),
                listener("arc-runner-set", "arc-runner-set"),
                own_pod,
            ],
        );
        let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
        assert!(
            row.reasons
                .iter()
                .any(|r| r.code() == "ListenerPodNotRunning"),
            "{:?}",
            row.reasons
        );
        // No listener in the dump: unknown, nothing said.
        let s = status(&plan(&[], None), &[ars.clone(), ers.clone(), other_ars]);
        let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
        assert!(!row.reasons.iter().any(|r| r.code() == "NoListener"));
        // Listeners left behind (a runner group or githubConfigUrl changed): each is said,
        // however its name sorts against ARC's own, which stays the one judged.
        for left in ["aaa-left-listener", "zzz-left-listener"] {
            let mut orphan = listener("arc-runner-set", "arc-runner-set-old");
            orphan["metadata"]["name"] = json!(left);
            let s = status(
                &plan(&[], None),
                &[
                    ars.clone(),
                    ers.clone(),
                    orphan,
                    listener("arc-runner-set", "arc-runner-set"),
                ],
            );
            let row = s.rows.iter().find(|r| r.name == "arc-runner-set").unwrap();
            let said: Vec<String> = (row.reasons.iter())
                .filter(|r| r.code() == "ListenerOrphaned")
                .map(|r| r.to_string())
                .collect();
            assert_eq!(said.len(), 1, "{:?}", row.reasons);
            assert!(
                said[0].starts_with(&format!(
                    "AutoscalingListener arc-systems/{left} serves this scale set, but ARC finds the scale set's listener only as {}",
                    arc_name("arc-runner-set")
                )),
                "{}",
                said[0]
            );
            assert!(
                !row.reasons
                    .iter()
                    .any(|r| r.code() == "ListenerForOtherSet"),
                "{:?}",
                row.reasons
            );
        }
    }

    /// Issue 33: a dump's controller on a canary image (its chart label says 0.14.2) over an
    /// EphemeralRunnerSet CRD with the revision fields runs the next release: its set is judged
    /// so, with why; a stopped listener (`spec.phase: Stopped`, which the dump can hold where the
    /// test bed's CRD prunes it) switches the scale set off; the same controller on a 0.14.2 image
    /// is 0.14.2.
    #[test]
    fn a_dumps_canary_controller_over_the_revision_crd_judges_as_next() {
        let (ars, ers) = example();
        let ns = ars["metadata"]["namespace"].as_str().unwrap().to_string();
        let controller = |image: &str| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                           "app.kubernetes.io/version": "0.14.2"}},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [
                       {"name": "manager", "image": format!("ghcr.io/actions/gha-runner-scale-set-controller:{image}")}]}}}})
        };
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
            "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {"properties": {
                "spec": {"properties": {"actionableRevision": {"type": "integer"}}}}}}}]}});
        let listener = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
            "metadata": {"name": crate::core::status::listener::scale_set_listener_name(
                "arc-runner-set", &ns, "", "https://github.com/my-org", true),
                "namespace": "arc-systems"},
            "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "arc-runner-set",
                     "ephemeralRunnerSetName": "arc-runner-set", "phase": "Stopped"}});
        let items = [ars, ers, controller("canary-2ee6b3b"), crd, listener];
        let s = status(&plan(&[], None), &items);
        let row = &s.rows[0];
        assert_eq!(row.ids.release.as_deref(), Some("next"), "{row:?}");
        let from = row.ids.release_from.as_deref().unwrap();
        assert!(
            from.starts_with("controller Deployment arc-systems/arc-gha-rs-controller runs the next release: its image tag canary-2ee6b3b is a build of ARC's master"),
            "{from}"
        );
        // The example's scale set has a new image its set has not got yet: the change that
        // leaves Outdated, on its way (Propagating), the set said switched off meanwhile.
        assert_eq!(row.state, State::Propagating, "{:?}", row.reasons);
        let off = (row.reasons.iter())
            .find(|r| r.code() == "SwitchedOff")
            .unwrap_or_else(|| panic!("{:?}", row.reasons));
        assert!(
            off.to_string()
                .contains("its listener has spec.phase Stopped and the set is kept at 0 replicas"),
            "{off}"
        );
        // No version check of a canary build (`canary-` allows every label).
        assert!(
            !row.reasons
                .iter()
                .any(|r| r.code() == "DeletedByVersionCheck")
        );
        // A released image: judged as 0.14.2 (its version check refuses the unlabelled scale set).
        let mut items = items;
        items[2] = controller("0.14.2");
        let s = status(&plan(&[], None), &items);
        assert_eq!(s.rows[0].ids.release, None, "{:?}", s.rows[0]);
        assert_eq!(
            s.rows[0].state,
            State::VersionRejected,
            "{:?}",
            s.rows[0].reasons
        );
    }

    #[test]
    fn a_dumps_controller_and_crds_tell_a_controller_newer_than_its_crds() {
        let (mut ars, ers) = example();
        // Labelled by the chart of the controller's minor release: its version check keeps it.
        ars["metadata"]["labels"]["app.kubernetes.io/version"] = json!("0.14.2");
        let controller = |version: &str| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                           "app.kubernetes.io/version": version}},
                   "spec": {"replicas": 1}})
        };
        // ARC 0.13's EphemeralRunnerSet CRD: 0.12's vaultConfig, none of 0.14's fields.
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
            "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {"properties": {
                "spec": {"properties": {"ephemeralRunnerSpec": {"properties": {"vaultConfig": {"type": "object"}}}}},
                "status": {"properties": {"currentReplicas": {"type": "integer"}}}}}}}]}});
        let codes = |s: &Snapshot| -> Vec<String> {
            s.rows[0]
                .reasons
                .iter()
                .map(|r| r.code().to_string())
                .collect()
        };
        let base = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
        let s = status(
            &plan(&[], None),
            &[ars.clone(), ers.clone(), controller("0.14.2"), crd.clone()],
        );
        assert_eq!(s.rows[0].state, base.rows[0].state, "changes no state");
        let reason = s.rows[0]
            .reasons
            .iter()
            .find(|r| r.code() == "CrdsBehindController")
            .unwrap_or_else(|| panic!("{:?}", codes(&s)));
        assert!(
            reason.to_string().starts_with(
                "controller Deployment arc-systems/arc-gha-rs-controller runs ARC 0.14.2, but the installed CRDs lack what it writes: ephemeralrunnersets.actions.github.com lacks spec.ephemeralRunnerMetadata (0.14.0), status.phase (0.14.0)"
            ),
            "{reason}"
        );
        // The CRDs' own release, no CRD in the dump, or no controller: nothing said.
        for items in [
            vec![ars.clone(), ers.clone(), controller("0.13.1"), crd.clone()],
            vec![ars.clone(), ers.clone(), controller("0.14.2")],
            vec![ars.clone(), ers.clone(), crd],
        ] {
            let s = status(&plan(&[], None), &items);
            assert!(
                !codes(&s).contains(&"CrdsBehindController".to_string()),
                "{:?}",
                codes(&s)
            );
        }
    }

    /// Issue 30.13: a dump without CRDs, a 0.14.2 controller that reconciles the namespace, and
    /// no status ARC wrote there with a phase: the CRDs look older than the controller.
    #[test]
    fn a_dump_without_crds_whose_statuses_lack_the_phase_tells_crds_that_look_older() {
        let (ars, mut ers) = example();
        ers["status"] = json!({"currentReplicas": 0, "pendingEphemeralRunners": 0,
                               "runningEphemeralRunners": 0, "failedEphemeralRunners": 0});
        let controller = |version: &str| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "arc-gha-rs-controller", "namespace": "arc-systems",
                                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                           "app.kubernetes.io/version": version}},
                   "spec": {"replicas": 1}})
        };
        let said = |items: &[Value]| -> Vec<String> {
            status(&plan(&[], None), items).rows[0]
                .reasons
                .iter()
                .filter(|r| r.code() == "CrdsLookOlder")
                .map(|r| r.to_string())
                .collect()
        };
        let base = [ars.clone(), ers.clone(), controller("0.14.2")];
        let older = said(&base);
        assert_eq!(older.len(), 1, "{older:?}");
        assert!(
            older[0].starts_with("no ARC CustomResourceDefinition was read, controller Deployment arc-systems/arc-gha-rs-controller runs ARC 0.14.2"),
            "{}",
            older[0]
        );
        // A phase written, a 0.13 controller, or no controller: nothing said.
        let mut phased = ers.clone();
        phased["status"]["phase"] = json!("Running");
        for items in [
            vec![ars.clone(), phased, controller("0.14.2")],
            vec![ars.clone(), ers.clone(), controller("0.13.1")],
            vec![ars.clone(), ers.clone()],
        ] {
            assert!(said(&items).is_empty(), "{items:?}");
        }
    }

    /// `-o json` items say what each row is and what judged it: the 0.14.2 example's set with
    /// its scale set, release and both hashes; a scale set without a set as itself.
    #[test]
    fn json_items_carry_the_kind_the_scale_set_the_release_and_the_hashes() {
        let text = include_str!("../../examples/scale-set-dump.yaml");
        let docs = crate::manifest::parse(text, "example.yaml").unwrap();
        let items: Vec<Value> = match docs[0].value.get("items") {
            Some(Value::Array(items)) => items.clone(),
            _ => docs.iter().map(|d| d.value.clone()).collect(),
        };
        let mut lonely = items[0].clone();
        lonely["metadata"]["name"] = json!("lonely");
        lonely["metadata"]["uid"] = json!("u-lonely");
        lonely["metadata"]["annotations"]
            .as_object_mut()
            .unwrap()
            .remove("runner-scale-set-id");
        let mut all = items.clone();
        all.push(lonely);
        let s = status(&plan(&[], None), &all);
        let json = serde_json::to_value(&s.rows).unwrap();
        let set = json
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "arc-runner-set-x7k2p")
            .unwrap();
        assert_eq!(set["kind"], "EphemeralRunnerSet", "{set:#}");
        assert_eq!(set["scaleSet"], "arc-runner-set", "{set:#}");
        assert_eq!(set["release"], "0.14.2", "{set:#}");
        assert_eq!(set["runnerSpecHash"], "84cffb96c6", "{set:#}");
        assert!(set["desiredRunnerSpecHash"].is_string(), "{set:#}");
        let row = json
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "lonely")
            .unwrap();
        assert_eq!(row["state"], "Registering", "{row:#}");
        assert_eq!(row["kind"], "AutoscalingRunnerSet", "{row:#}");
        assert_eq!(row["scaleSet"], "lonely", "{row:#}");
    }

    /// With `-n`, the fleet's listener images are those of the namespace's scale sets only.
    #[test]
    fn the_listener_images_of_a_fleet_listing_are_its_namespaces() {
        let listener = |ns: &str, image: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
                   "metadata": {"name": format!("{ns}-l"), "namespace": "arc-systems"},
                   "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "s",
                            "ephemeralRunnerSetName": "s", "image": image}})
        };
        let text = json!({"apiVersion": "v1", "kind": "List", "items": [
            listener("team-a", "c:0.14.2"), listener("team-b", "c:0.13.1")]})
        .to_string();
        let objects = input::read(&["-".into()], &mut text.as_bytes()).objects;
        let around = Surroundings::from_objects(&objects);
        let census = Census::new(Layout::arc(), false);
        let of = |ns: Option<&str>| FleetFacts::read(&[], &census, &around, ns).listener_images;
        assert_eq!(
            of(Some("team-a")),
            std::collections::BTreeSet::from(["c:0.14.2".to_string()])
        );
        assert_eq!(of(None).len(), 2);
    }

    #[test]
    fn a_dump_without_runners_does_not_judge_the_sets_counters() {
        let (ars, mut ers) = example();
        ers["status"]["currentReplicas"] = json!(1);
        ers["status"]["pendingEphemeralRunners"] = json!(0);
        ers["status"]["runningEphemeralRunners"] = json!(1);
        ers["status"]["failedEphemeralRunners"] = json!(0);
        let codes = |s: &Snapshot| -> Vec<String> {
            s.rows[0]
                .reasons
                .iter()
                .map(|r| r.code().to_string())
                .collect()
        };
        let s = status(&plan(&[], None), &[ars.clone(), ers.clone()]);
        assert!(
            !codes(&s).contains(&"CountersDisagree".to_string()),
            "{:?}",
            codes(&s)
        );
        // A runner of the namespace (of another set) in the dump: the set's runners are known,
        // and it has none.
        let ns = ers["metadata"]["namespace"].clone();
        let other = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": "elsewhere", "namespace": ns}, "status": {"phase": "Running"}});
        let s = status(&plan(&[], None), &[ars, ers, other]);
        assert!(
            codes(&s).contains(&"CountersDisagree".to_string()),
            "{:?}",
            codes(&s)
        );
    }

    #[test]
    fn a_dumps_runner_pods_count_for_their_namespace_only() {
        let (ars, ers) = example();
        let ns = ers["metadata"]["namespace"].clone();
        let owner = json!([{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "name": ers["metadata"]["name"], "uid": ers["metadata"]["uid"], "controller": true}]);
        let runner = |name: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
                "metadata": {"name": name, "namespace": ns, "ownerReferences": owner},
                "spec": ers["spec"]["ephemeralRunnerSpec"], "status": {"phase": "Running"}})
        };
        let pod = |name: &str, labelled: bool| {
            let labels = if labelled {
                json!({"actions-ephemeral-runner": "True"})
            } else {
                json!({})
            };
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": ns, "labels": labels},
                "status": {"phase": "Running"}})
        };
        let missing = |items: &[Value]| -> bool {
            status(&plan(&[], None), items).rows[0]
                .reasons
                .iter()
                .any(|r| r.code() == "RunnerPodsMissing")
        };
        let base = [ars.clone(), ers.clone(), runner("a"), runner("b")];
        // No runner Pod in the dump: not judged.
        assert!(!missing(&base));
        // One runner's Pod: the other's is missing.
        let mut with_one = base.to_vec();
        with_one.push(pod("a", true));
        assert!(missing(&with_one));
        // Both: nothing missing; an unlabelled Pod is not a runner's.
        let mut with_both = with_one.clone();
        with_both.push(pod("b", true));
        assert!(!missing(&with_both));
        let mut unlabelled = base.to_vec();
        unlabelled.push(pod("a", false));
        assert!(!missing(&unlabelled));
    }

    /// ARC up to 0.14: a listener whose hash annotations are not its scale set's is
    /// ListenerHashStale (ARC makes it again: ListenerDown); one made from the scale set as it is
    /// says nothing.
    #[test]
    fn a_listener_made_from_another_spec_of_its_scale_set_is_said_under_its_release() {
        let text = include_str!("../../examples/scale-set-dump.yaml");
        let docs = crate::manifest::parse(text, "example.yaml").unwrap();
        let items: Vec<Value> = match docs[0].value.get("items") {
            Some(Value::Array(items)) => items.clone(),
            _ => docs.iter().map(|d| d.value.clone()).collect(),
        };
        let (mut ars, ers) = (items[0].clone(), items[1].clone());
        assert_eq!(ars["kind"], "AutoscalingRunnerSet");
        ars["metadata"]["annotations"]["runner-scale-set-id"] = json!("3");
        let ns = ers["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        let release = crate::core::release::release("0.14.2").unwrap();
        let hash =
            crate::core::spec_hash::listener_spec_hash(release, &ars["spec"].to_string()).unwrap();
        let values = ars["metadata"]["annotations"]["actions.github.com/values-hash"].clone();
        // ARC's own name of the listener (`scaleSetListenerName`, 0.13.1 on).
        let own = crate::core::status::listener::scale_set_listener_name(
            "arc-runner-set",
            &ns,
            ars["spec"]["runnerGroup"].as_str().unwrap_or(""),
            ars["spec"]["githubConfigUrl"].as_str().unwrap(),
            true,
        );
        let listener = |hash: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingListener",
                "metadata": {"name": own, "namespace": "arc-systems",
                    "annotations": {"actions.github.com/runner-spec-hash": hash,
                                    "actions.github.com/values-hash": values}},
                "spec": {"autoscalingRunnerSetNamespace": ns, "autoscalingRunnerSetName": "arc-runner-set",
                         "ephemeralRunnerSetName": ers["metadata"]["name"]}})
        };
        let codes = |l: Value| -> Vec<String> {
            let s = status(&plan(&[], None), &[ars.clone(), ers.clone(), l]);
            s.rows[0]
                .reasons
                .iter()
                .map(|r| r.code().to_string())
                .collect()
        };
        assert!(!codes(listener(&hash)).contains(&"ListenerHashStale".to_string()));
        let stale = codes(listener("5d8f9c7b6"));
        assert!(
            stale.contains(&"ListenerHashStale".to_string()),
            "{stale:?}"
        );
    }

    #[test]
    fn a_name_not_in_the_census_is_reported_in_its_namespace() {
        let mut p = plan(&["a", "b"], None);
        p.namespace = Some("ci".into());
        let mut census = Census::new(p.layout, false);
        let (_, mut ers) = example();
        ers["metadata"]["namespace"] = json!("ci");
        ers["metadata"]["name"] = json!("a");
        census.upsert_set(SetFacts::from_json(&ers.to_string()).unwrap());
        assert_eq!(
            missing_names(&p, &census, &[]),
            ["EphemeralRunnerSet ci/b not found"]
        );
    }

    /// Issue 33 and 31: status judges each set by diff's rule, `--arc-version`, else the release
    /// of the controller Deployment that reconciles its namespace (in a dump as in the cluster),
    /// else its chart label; where that release's version check refuses the scale set's
    /// `app.kubernetes.io/version`, the set is VersionRejected.
    #[test]
    fn a_set_is_judged_by_the_flag_else_its_controller_and_the_version_check_rejects_it() {
        let text = include_str!("../../examples/scale-set-dump.yaml");
        let docs = crate::manifest::parse(text, "example.yaml").unwrap();
        let items: Vec<Value> = match docs[0].value.get("items") {
            Some(Value::Array(items)) => items[..2].to_vec(),
            _ => docs[..2].iter().map(|d| d.value.clone()).collect(),
        };
        assert_eq!(
            items[0]["metadata"]["labels"]["app.kubernetes.io/version"],
            "0.14.2"
        );
        let controller = |version: &str, args: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": format!("arc-{version}"), "namespace": "arc-systems",
                                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller",
                                           "app.kubernetes.io/version": version}},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [
                       {"name": "manager", "image": "c", "args": args}]}}}})
        };
        let judged = |flag: Option<&str>, extra: &[Value]| {
            let mut p = plan(&[], None);
            p.arc_release = flag.map(|v| Target::parse(v).unwrap());
            let s = status(&p, &[items.clone(), extra.to_vec()].concat());
            assert!(s.errors.is_empty(), "{:?}", s.errors);
            let row = s.rows[0].clone();
            (
                row.state,
                row.ids.release.clone().unwrap_or_default(),
                row.reasons,
            )
        };
        // The chart label alone: 0.14.2 replaces the set.
        let (state, release, _) = judged(None, &[]);
        assert_eq!((state, release.as_str()), (State::Replacing, "0.14.2"));
        // A 0.14.0 controller judges it, not the label (the same hash here).
        let (state, release, _) = judged(None, &[controller("0.14.0", json!([]))]);
        assert_eq!((state, release.as_str()), (State::Replacing, "0.14.0"));
        // A 0.13.1 controller deletes the scale set; the replacement is never reached.
        let (state, release, reasons) = judged(None, &[controller("0.13.1", json!([]))]);
        assert_eq!(
            (state, release.as_str()),
            (State::VersionRejected, "0.13.1")
        );
        let codes: Vec<&str> = reasons.iter().map(|r| r.code()).collect();
        assert_eq!(codes[0], "DeletedByVersionCheck", "{codes:?}");
        assert!(!codes.contains(&"ReplacementPending"), "{codes:?}");
        assert!(
            reasons[0].to_string().starts_with(
                "controller Deployment arc-systems/arc-0.13.1 runs ARC 0.13.1, whose version check deletes this scale set"
            ),
            "{}",
            reasons[0]
        );
        // One watching the namespace alone wins over one watching all; one watching another
        // namespace does not judge it.
        let single = controller("0.14.1", json!(["--watch-single-namespace=arc-runners"]));
        let (state, release, _) = judged(None, &[controller("0.13.1", json!([])), single]);
        assert_eq!((state, release.as_str()), (State::Replacing, "0.14.1"));
        let elsewhere = controller("0.13.1", json!(["--watch-single-namespace=other"]));
        let (state, release, _) = judged(None, &[elsewhere]);
        assert_eq!((state, release.as_str()), (State::Replacing, "0.14.2"));
        // --arc-version wins over the controller, both ways.
        let (state, release, reasons) = judged(Some("0.13.1"), &[]);
        assert_eq!(
            (state, release.as_str()),
            (State::VersionRejected, "0.13.1")
        );
        assert!(
            reasons[0]
                .to_string()
                .starts_with("ARC 0.13.1 (--arc-version)")
        );
        let (state, release, _) = judged(Some("0.14.0"), &[controller("0.13.1", json!([]))]);
        assert_eq!((state, release.as_str()), (State::Replacing, "0.14.0"));
        // A scale set being deleted is not checked: ARC handles the deletion first.
        let mut deleting = items.clone();
        deleting[0]["metadata"]["deletionTimestamp"] = json!("2026-09-02T00:00:00Z");
        let s = status(
            &Plan {
                arc_release: Target::parse("0.13.1"),
                ..plan(&[], None)
            },
            &deleting,
        );
        assert_ne!(
            s.rows[0].state,
            State::VersionRejected,
            "{:?}",
            s.rows[0].reasons
        );
        // A scale set without a set is rejected too.
        let s = status(
            &Plan {
                arc_release: Target::parse("0.11.0"),
                ..plan(&[], None)
            },
            &items[..1],
        );
        assert_eq!(
            s.rows[0].state,
            State::VersionRejected,
            "{:?}",
            s.rows[0].reasons
        );
        assert_eq!(s.rows[0].ids.kind, "AutoscalingRunnerSet");
    }
}
