//! What status reads around the sets, each only where the caller's rights allow: the
//! AutoscalingListeners and their Pods, ARC's controller Deployments and its CRDs, from any source
//! ([`Surroundings::read`]: the cluster, or a dump, which says nothing of what it does not hold);
//! a read the role does not allow is a warning ([`unreadable`]), never a failure.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use crate::cluster::api::Lent;
use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::{self};
use crate::core::status::install::{
    ARC_CRDS, CONTROLLER_SELECTORS, ControllerFacts, CrdFacts, controller_target, install_reasons,
    reconciler_of,
};
use crate::core::status::listener::{
    COMPONENT_LISTENER, LABEL_COMPONENT, LISTENER_CONTAINER, OwnListener, behind_controller,
    controller_of, orphaned_listeners,
};
use crate::core::status::{Census, ListenerFacts, ListenerView, PodFacts, PodView, SetKey};
use crate::core::upgrade::Target;
use crate::input;

use super::{Plan, phase_of};

/// What status reads around the sets, each only where the caller's rights allow: the
/// AutoscalingListeners (in every namespace: ARC makes them in its controller's namespace) and the
/// listeners' Pods (in the namespaces the listeners are in, by the label ARC gives them).
#[derive(Debug, Default)]
pub(crate) struct Surroundings {
    /// `None`: not readable.
    pub(super) listeners: Option<Vec<ListenerFacts>>,
    /// The listener Pods of each namespace whose Pods could be read.
    pub(super) pods: HashMap<String, Vec<PodFacts>>,
    /// ARC's controller Deployments with replicas (`None`: not readable), and ARC's CRDs as
    /// installed (empty when not read).
    pub(super) controllers: Option<Vec<ControllerFacts>>,
    pub(super) crds: Vec<CrdFacts>,
    /// `--arc-version` (not read: the plan's), which judges every set instead of its controller.
    pub(super) arc_release: Option<Target>,
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
    pub(crate) async fn read(api: &impl ArcApi, plan: &Plan) -> Surroundings {
        let mut out = Surroundings {
            arc_release: plan.arc_release,
            ..Surroundings::default()
        };
        let listeners = Resource::AUTOSCALING_LISTENERS;
        match api.list(listeners, None, None).await {
            // A dump that holds no listener says nothing of them.
            Ok(_) if (api.answers_for(listeners, None)).is_some_and(|held| held.is_empty()) => {}
            Ok(objects) => {
                out.listeners = Some(
                    objects
                        .iter()
                        .filter(|o| o.problem.is_none())
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
        // Where a dump holds no listener Pod, the listener Pods are not known.
        let known = api.answers_for(Resource::PODS, Some(&selector));
        let mut refused: Vec<(String, cluster::ApiError)> = Vec::new();
        for ns in namespaces {
            if known.as_ref().is_some_and(|held| !held.contains(&ns)) {
                continue;
            }
            match api.list(Resource::PODS, Some(&ns), Some(&selector)).await {
                Ok(pods) => {
                    out.pods.insert(
                        ns,
                        pods.iter()
                            .filter(|p| p.problem.is_none())
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
        out.read_installation(api).await;
        out
    }

    /// Read ARC's controller Deployments (by the chart's labels, in every namespace) and ARC's
    /// four CRDs: whether the controller's release writes fields its CRDs lack.
    async fn read_installation(&mut self, api: &impl ArcApi) {
        // A dump that holds no Deployment says nothing of the controllers (one that holds any is
        // taken to hold them all: they are looked for in every namespace).
        let deployments = api.answers_for(Resource::DEPLOYMENTS, None);
        if deployments.is_some_and(|held| held.is_empty()) {
            return;
        }
        let mut names = HashSet::new();
        let mut controllers = Vec::new();
        for selector in CONTROLLER_SELECTORS {
            match api.list(Resource::DEPLOYMENTS, None, Some(selector)).await {
                Ok(found) => {
                    for d in found.iter().filter(|d| d.problem.is_none()) {
                        if let Some(c) = ControllerFacts::from_object(d)
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
            match api
                .get(Resource::CUSTOM_RESOURCE_DEFINITIONS, "", name)
                .await
            {
                Ok(Some(crd)) if crd.problem.is_none() => self.crds.extend(crd_facts(&crd)),
                Ok(Some(_)) => {}
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
    pub(super) fn behind_controller(
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
    pub(super) fn stated(&self, namespace: &str) -> crate::ops::release::Stated {
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
    pub(super) fn next(&self, namespace: &str) -> Option<String> {
        self.stated(namespace).next()
    }

    /// [`StatusReason::DeletedByVersionCheck`]: the release that judges the scale set
    /// (`--arc-version`, else that of the controller Deployment that reconciles its namespace:
    /// never its own label) does not allow its `app.kubernetes.io/version`; `--arc-version next`
    /// takes the next release's `build.Version` as [`crate::core::upgrade::NEXT_VERSION`]. A
    /// scale set being deleted is not checked (`Reconcile` handles the deletion first).
    pub(super) fn version_check(
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
    pub(super) fn crds_look_older(
        &self,
        scale_sets: &[Lent<'_>],
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
    pub(super) fn installation_reasons(&self) -> Vec<crate::core::status::StatusReason> {
        install_reasons(self.controllers.as_deref().unwrap_or_default(), &self.crds)
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
    pub(super) fn orphans(
        &self,
        scale_set: &input::Object,
    ) -> Vec<crate::core::status::StatusReason> {
        let key = scale_set.key();
        orphaned_listeners(self.serving(&key), &self.own_listener(scale_set))
    }

    /// What is known of the listener of `scale_set`: the one ARC finds by its name
    /// ([`OwnListener`]), however the others are named.
    pub(super) fn view(&self, scale_set: &input::Object) -> ListenerView {
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
    CrdFacts::from_object(crd)
}

/// The warning of a read the caller may not make (or that failed otherwise): the resource, the
/// verb, and what is skipped for it.
pub(super) fn unreadable(e: &cluster::ApiError, verb: &str, what: &str, skipped: &str) -> String {
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
