//! The status operation: the EphemeralRunnerSets and runners in scope, streamed into a per-set
//! census → a verdict per set (`crate::core::status`) → rows for a renderer.
//!
//! Reads EphemeralRunnerSets and EphemeralRunners from the cluster (paginated, page by page, on a
//! worker thread so that the next page is fetched meanwhile) or from files (`-f`); writes nothing.
//! `--watch` and `--wait` keep the census live from two watches ([`follow`]).

mod files;
pub(crate) mod follow;
mod gather;
mod judge;
mod names;
mod surroundings;
#[cfg(test)]
mod tests;

pub(crate) use files::from_files;
pub(crate) use follow::follow;
pub(crate) use names::missing_names;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

use anyhow::Result;
use serde::Deserialize;

use crate::cluster::api::ArcApi;
use crate::cluster::api::Lent;
use crate::cluster::watch::Scope;
use crate::cluster::{self, ConnectOptions};
use crate::core::arc;
use crate::core::layout::Layout;
use crate::core::selector::Selector;
use crate::core::status::{Census, SetKey, SetStatus};
use crate::core::upgrade::Target;
use crate::input;
use crate::report::Outcome;
use crate::report::status::Chain;
use gather::{census_pairs, gather, paired_outside, runner_pods, scale_sets, without_sets};
use judge::{chains, rejudge, scale_set_row};
use names::resolve_names;
use surroundings::Surroundings;

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
        scale_sets: &[Lent<'_>],
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

/// One listing of the sets in scope, with what their scale sets want, from any source of ARC's
/// objects ([`ArcApi`]: the API server, or a dump).
pub(crate) async fn list(client: &impl ArcApi, plan: &Plan) -> Result<Snapshot> {
    listing(client, plan, false).await
}

/// [`list`], with what a fleet run compares across contexts ([`FleetFacts`]).
pub(crate) async fn list_for_fleet(client: &impl ArcApi, plan: &Plan) -> Result<Snapshot> {
    listing(client, plan, true).await
}

async fn listing(client: &impl ArcApi, plan: &Plan, for_fleet: bool) -> Result<Snapshot> {
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
    let without = paired_outside(client, plan, without).await;
    if gathered.seen.is_empty()
        && without.is_empty()
        && let Some(ns) = plan.namespace.as_deref()
    {
        client.check_namespace(ns).await?;
    }
    // The controllers first: the release that judges each set is the one its controller runs.
    let around = Surroundings::read(client, plan).await;
    let waiting: Vec<SetStatus> = (without.into_iter())
        .map(|a| scale_set_row(plan, a, &around))
        .collect();
    let mut errors = gathered.errors;
    errors.extend(missing_names(
        plan,
        &census,
        &waiting,
        client.not_found_in(),
    ));
    rejudge(&scale_sets, &mut census, &around);
    let fleet = match for_fleet {
        true => FleetFacts::read(&scale_sets, &census, &around, plan.namespace.as_deref()),
        false => FleetFacts::default(),
    };
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

/// `status.phase` of an object, when a string.
pub(super) fn phase_of(object: &input::Object) -> Option<String> {
    crate::ops::release::phase_in(object.status.as_deref())
}

/// The sets' rows and the rows of scale sets without a set, in one order (namespace, name).
pub(super) fn with_rows(mut rows: Vec<SetStatus>, more: Vec<SetStatus>) -> Vec<SetStatus> {
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
