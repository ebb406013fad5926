//! The installation around the scale sets: which ARC release the controller runs, which release
//! the installed CRDs are of, and whether the controller writes fields its CRDs do not have.
//!
//! Pure core: a controller's version and each CRD's schema in, the fields missing out. Helm does
//! not upgrade CRDs (a chart's `crds/` directory is applied on install only), so a controller
//! upgraded with `helm upgrade` runs against the CRDs of its first install (ARC #4147, #4167,
//! #3233). A structural schema prunes what it does not declare: the API server answers 200 and
//! silently drops a field the controller writes (`../shared/arc/README.md`, "Traps").
//!
//! [`CRD_MARKS`] is read from each tag's `charts/gha-runner-scale-set-controller/crds/`: the
//! first release whose CRD declares each field ARC's own types added (and, for 0.13.0, whose only
//! change was its k8s.io/api, a PodSpec field of v0.34). A CRD is "of" the newest release all of
//! whose marks (and every older mark of that CRD) it declares.

use serde::Serialize;
use serde_json::Value;

use crate::release;

/// The four CRDs of ARC's scale-set mode, by resource name.
pub const ARC_CRDS: [&str; 4] = [
    "autoscalingrunnersets.actions.github.com",
    "ephemeralrunnersets.actions.github.com",
    "ephemeralrunners.actions.github.com",
    "autoscalinglisteners.actions.github.com",
];

/// One field a release's CRD added: the release, the CRD's plural, the field's path in
/// `openAPIV3Schema` (`[]` steps into an array's items).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrdMark {
    pub since: &'static str,
    pub plural: &'static str,
    pub path: &'static str,
}

const fn mark(since: &'static str, plural: &'static str, path: &'static str) -> CrdMark {
    CrdMark {
        since,
        plural,
        path,
    }
}

/// What each release's CRDs added, oldest first (compared tag by tag from 0.9.0 to 0.14.2; 0.9.x
/// and 0.10.x have the same CRDs, and so do the patch releases of 0.12, 0.13 and 0.14).
pub const CRD_MARKS: &[CrdMark] = &[
    mark("0.11.0", "autoscalingrunnersets", "spec.listenerMetrics"),
    mark("0.11.0", "autoscalinglisteners", "spec.metrics"),
    mark(
        "0.11.0",
        "ephemeralrunners",
        "spec.spec.containers[].securityContext.appArmorProfile",
    ),
    mark("0.12.0", "autoscalingrunnersets", "spec.vaultConfig"),
    mark("0.12.0", "autoscalinglisteners", "spec.vaultConfig"),
    mark("0.12.0", "ephemeralrunners", "spec.vaultConfig"),
    mark(
        "0.12.0",
        "ephemeralrunnersets",
        "spec.ephemeralRunnerSpec.vaultConfig",
    ),
    mark(
        "0.13.0",
        "ephemeralrunners",
        "spec.spec.containers[].restartPolicyRules",
    ),
    mark(
        "0.14.0",
        "autoscalingrunnersets",
        "spec.ephemeralRunnerSetMetadata",
    ),
    mark(
        "0.14.0",
        "autoscalingrunnersets",
        "spec.autoscalingListener",
    ),
    mark("0.14.0", "autoscalingrunnersets", "status.phase"),
    mark(
        "0.14.0",
        "autoscalinglisteners",
        "spec.serviceAccountMetadata",
    ),
    mark(
        "0.14.0",
        "ephemeralrunners",
        "spec.ephemeralRunnerConfigSecretMetadata",
    ),
    mark(
        "0.14.0",
        "ephemeralrunnersets",
        "spec.ephemeralRunnerMetadata",
    ),
    mark("0.14.0", "ephemeralrunnersets", "status.phase"),
];

/// The fields the next release writes besides 0.14.2's: the revision fields of ARC PR #4638's
/// EphemeralRunnerSet CRD (`../shared/arc/crds/revision/`), the AutoscalingRunnerSet's
/// `status.observedGeneration` (#4636: `Reconcile` keeps the scale set Pending while it is behind
/// `metadata.generation`, so a CRD that prunes it holds every scale set Pending) and the
/// listener's `spec.phase` (#4652: `reconcileOutdated` writes `Stopped`; [`crate::next`]).
pub const NEXT_MARKS: [(&str, &str); 4] = [
    ("ephemeralrunnersets", "spec.actionableRevision"),
    ("ephemeralrunnersets", "status.appliedActionableRevision"),
    ("autoscalingrunnersets", "status.observedGeneration"),
    ("autoscalinglisteners", "spec.phase"),
];

/// The position of a release among [`release::releases`], for ordering; `None` when unknown.
fn rank(version: &str) -> Option<usize> {
    let r = release::release(version)?;
    release::releases()
        .iter()
        .position(|x| x.version == r.version)
}

/// The `v1alpha1` schema of a CRD object (`spec.versions[].schema.openAPIV3Schema`).
pub fn crd_schema(crd: &Value) -> Option<&Value> {
    crd.pointer("/spec/versions")?
        .as_array()?
        .iter()
        .find(|v| v.get("name").and_then(Value::as_str) == Some("v1alpha1"))?
        .pointer("/schema/openAPIV3Schema")
}

/// Whether `schema` declares `path` (dots between properties, `name[]` an array's items).
pub fn declares(schema: &Value, path: &str) -> bool {
    let mut node = schema;
    for step in path.split('.') {
        let (name, items) = match step.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (step, false),
        };
        let Some(next) = node.get("properties").and_then(|p| p.get(name)) else {
            return false;
        };
        node = next;
        if items {
            let Some(next) = node.get("items") else {
                return false;
            };
            node = next;
        }
    }
    true
}

/// One installed CRD as status judges it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdFacts {
    /// `ephemeralrunnersets.actions.github.com`
    pub name: String,
    /// The newest release whose marks of this CRD it declares ("0.10.1" when it declares none:
    /// the CRDs of 0.9.0 to 0.10.1 are the same).
    pub release: &'static str,
    /// The marks of this CRD it lacks, oldest first.
    #[serde(skip)]
    pub missing: Vec<CrdMark>,
    /// The EphemeralRunnerSet CRD declares `spec.actionableRevision` (ARC PR #4638: the
    /// revision era, written by no release up to 0.14.2).
    #[serde(skip)]
    pub revision_fields: bool,
    /// The fields of [`NEXT_MARKS`] of this CRD it lacks.
    #[serde(skip)]
    pub next_missing: Vec<&'static str>,
}

impl CrdFacts {
    /// Judge a CRD object (`None` when it is not one of ARC's or has no `v1alpha1` schema).
    pub fn from_crd(crd: &Value) -> Option<CrdFacts> {
        let name = crd.pointer("/metadata/name")?.as_str()?;
        let plural = name.strip_suffix(".actions.github.com")?;
        if !ARC_CRDS.contains(&name) {
            return None;
        }
        let schema = crd_schema(crd)?;
        let marks: Vec<CrdMark> = CRD_MARKS
            .iter()
            .copied()
            .filter(|m| m.plural == plural)
            .collect();
        let missing: Vec<CrdMark> = marks
            .iter()
            .copied()
            .filter(|m| !declares(schema, m.path))
            .collect();
        // The newest release up to which every mark is declared.
        let release = match missing.first() {
            None => release::releases().last().map_or("0.14.2", |r| r.version),
            Some(first) => {
                let before = rank(first.since).unwrap_or(0);
                release::releases()[..before]
                    .last()
                    .map_or("0.9.0", |r| r.version)
            }
        };
        let next_missing = (NEXT_MARKS.iter())
            .filter(|(p, path)| *p == plural && !declares(schema, path))
            .map(|(_, path)| *path)
            .collect();
        Some(CrdFacts {
            name: name.to_string(),
            release,
            missing,
            revision_fields: plural == "ephemeralrunnersets"
                && declares(schema, "spec.actionableRevision"),
            next_missing,
        })
    }
}

impl CrdFacts {
    /// [`CrdFacts::from_crd`] of the one [`crate::object::Object`], read from its `metadata` and
    /// `spec` ([`crate::object::Object::parts_value`]: the CRD's name and its versions' schemas,
    /// all `from_crd` reads) instead of its whole text written out and read again.
    pub fn from_object(crd: &crate::object::Object) -> Option<CrdFacts> {
        CrdFacts::from_crd(&crd.parts_value(&["metadata", "spec"]))
    }
}

/// A controller Deployment as status judges it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllerFacts {
    /// `namespace/name`
    pub name: String,
    /// The release it runs (its `app.kubernetes.io/version` label, else its image's tag).
    pub version: Option<String>,
    /// Its `--watch-single-namespace` (the chart's `flags.watchSingleNamespace`): the only
    /// namespace whose scale sets it reconciles; `None`: every namespace.
    pub watch_namespace: Option<String>,
    /// The image it gives the listeners it makes: its `manager` container's
    /// `CONTROLLER_MANAGER_CONTAINER_IMAGE` (ARC's main.go, 0.9.0 to 0.14.2: the listener image,
    /// which the chart sets to the manager's own image), else that container's image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_image: Option<String>,
    /// The tag of its `manager` (or first) container's image: a build of ARC's master
    /// ([`crate::next::next_build`]) where the chart's label says a release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_tag: Option<String>,
}

/// The version two versions name, as numbers (`v0.14.2` and `0.14.2` alike; `None` when it is
/// not a dotted version of numbers, such as `canary` or a digest).
pub fn version_numbers(version: &str) -> Option<Vec<u64>> {
    let v = version.strip_prefix('v').unwrap_or(version);
    v.split('.').map(|p| p.parse::<u64>().ok()).collect()
}

/// Versions ordered as versions (`0.9.3` < `0.13.1`); what is not a version after every version,
/// as text.
pub fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    match (version_numbers(a), version_numbers(b)) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// The tag of an image reference (`ghcr.io/actions/gha-runner-scale-set-controller:0.14.2`), not a
/// digest nor a registry's port; `None` without one.
pub fn image_tag(image: &str) -> Option<&str> {
    let name = image.split('@').next()?;
    let (_, tag) = name.rsplit_once(':')?;
    (!tag.contains('/')).then_some(tag)
}

impl ControllerFacts {
    /// Whether it reconciles the scale sets of `namespace` (and so makes their listeners).
    pub fn watches(&self, namespace: &str) -> bool {
        self.watch_namespace
            .as_deref()
            .is_none_or(|w| w == namespace)
    }
}

/// The controller Deployment whose release judges the scale sets of `namespace`, in the order
/// `diff` reads a controller's update strategy: the first one watching that namespace alone
/// (`--watch-single-namespace`, which ARC's `main.go` makes the manager's only namespace), else
/// the first one watching every namespace; `None` when none reconciles it.
pub fn reconciler_of<'a>(
    controllers: &'a [ControllerFacts],
    namespace: &str,
) -> Option<&'a ControllerFacts> {
    (controllers.iter())
        .find(|c| c.watch_namespace.as_deref() == Some(namespace))
        .or_else(|| controllers.iter().find(|c| c.watch_namespace.is_none()))
}

/// The value of the Go `flag` package's string flag `name` among `args`, as `flag.Parse` reads
/// it: `-name=v`, `--name=v`, `-name v` or `--name v`; the last one wins; parsing stops at `--`
/// or the first argument that is not a flag.
pub fn go_flag<'a>(args: &'a [&'a str], name: &str) -> Option<&'a str> {
    let mut found = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            break;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        match body.split_once('=') {
            Some((n, v)) if n == name => found = Some(v),
            None if body == name => {
                found = args.get(i + 1).copied();
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The labels that find ARC's controller Deployment: the gha-runner-scale-set-controller chart
/// sets both `app.kubernetes.io/part-of` and `app.kubernetes.io/name` (the release's name by
/// default) to `gha-rs-controller`.
pub const CONTROLLER_SELECTORS: [&str; 2] = [
    "app.kubernetes.io/part-of=gha-rs-controller",
    "app.kubernetes.io/name=gha-rs-controller",
];

/// Whether labels are those of ARC's controller Deployment ([`CONTROLLER_SELECTORS`]).
pub fn is_controller<'a>(mut labels: impl Iterator<Item = (&'a str, &'a str)>) -> bool {
    labels.any(|(k, v)| {
        (k == "app.kubernetes.io/part-of" || k == "app.kubernetes.io/name")
            && v == "gha-rs-controller"
    })
}

/// The ARC release a controller Deployment runs: the chart's `app.kubernetes.io/version` label,
/// else the tag of its `manager` (or first) container's image (`containers`: name and image).
pub fn controller_version(
    label: Option<&str>,
    containers: &[(&str, Option<&str>)],
) -> Option<String> {
    if let Some(v) = label {
        return Some(v.to_string());
    }
    manager_image_tag(containers)
}

/// The tag of the `manager` (or first) container's image ([`image_tag`]).
pub fn manager_image_tag(containers: &[(&str, Option<&str>)]) -> Option<String> {
    let (_, image) = containers
        .iter()
        .find(|(name, _)| *name == "manager")
        .or(containers.first())?;
    image_tag(image.as_deref()?).map(str::to_string)
}

/// The release a controller runs, as `status` and `diff` judge with it: `next` when its image
/// tag is a build of ARC's master and the installed CRDs are the revision era's
/// ([`crate::next::recognised_as_next`], with why), else its version when a release of the table.
pub fn controller_target(
    version: Option<&str>,
    image_tag: Option<&str>,
    revision_crd: bool,
) -> Option<(crate::arc::target::Target, Option<String>)> {
    if let Some(why) = crate::next::recognised_as_next(image_tag, revision_crd) {
        return Some((crate::arc::target::Target::Next, Some(why)));
    }
    let r = release::release(version?)?;
    Some((crate::arc::target::Target::Release(r), None))
}

impl ControllerFacts {
    /// Read a Deployment object's JSON (`None` when it is not ARC's controller, or has no
    /// replica wanted: `spec.replicas` 0 and none ready).
    pub fn from_deployment(text: &str) -> Option<ControllerFacts> {
        ControllerFacts::from_deployment_value(&serde_json::from_str(text).ok()?)
    }

    /// [`ControllerFacts::from_deployment`] of the one [`Object`] (a Deployment), read from its
    /// parts.
    pub fn from_object(object: &crate::object::Object) -> Option<ControllerFacts> {
        ControllerFacts::from_deployment_value(&object.read_parts::<Value>().ok()?)
    }

    /// [`ControllerFacts::from_deployment`] of a Deployment already read.
    pub fn from_deployment_value(d: &Value) -> Option<ControllerFacts> {
        let meta = d.get("metadata")?;
        let labels = meta.get("labels").and_then(Value::as_object);
        let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        if !is_controller(
            labels
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))),
        ) {
            return None;
        }
        let replicas = d
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        let ready = d
            .pointer("/status/readyReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if replicas <= 0 && ready <= 0 {
            return None;
        }
        let list: Vec<&Value> = d
            .pointer("/spec/template/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        let containers: Vec<(&str, Option<&str>)> = list
            .iter()
            .map(|c| {
                (
                    c.get("name").and_then(Value::as_str).unwrap_or(""),
                    c.get("image").and_then(Value::as_str),
                )
            })
            .collect();
        // The manager's (or the first container's) arguments.
        let manager = list
            .iter()
            .find(|c| c.get("name").and_then(Value::as_str) == Some("manager"))
            .or(list.first());
        let args: Vec<&str> = manager
            .and_then(|c| c.get("args"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let watch_namespace = go_flag(&args, "watch-single-namespace")
            .filter(|ns| !ns.is_empty())
            .map(str::to_string);
        let env_image = manager
            .and_then(|c| c.get("env"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|e| {
                e.get("name").and_then(Value::as_str) == Some("CONTROLLER_MANAGER_CONTAINER_IMAGE")
            })
            .and_then(|e| e.get("value"))
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty());
        let listener_image = env_image
            .or_else(|| manager.and_then(|c| c.get("image")).and_then(Value::as_str))
            .map(str::to_string);
        Some(ControllerFacts {
            name: format!(
                "{}/{}",
                meta.get("namespace").and_then(Value::as_str).unwrap_or(""),
                meta.get("name").and_then(Value::as_str).unwrap_or("")
            ),
            version: controller_version(label("app.kubernetes.io/version"), &containers),
            image_tag: manager_image_tag(&containers),
            watch_namespace,
            listener_image,
        })
    }
}

/// [`super::StatusReason::CrdsBehindController`] for each controller whose release writes fields
/// the installed CRDs lack. A controller recognised as a build of ARC's master
/// ([`crate::next::recognised_as_next`]; its chart label still says 0.14.2) writes 0.14.2's
/// fields and [`NEXT_MARKS`].
pub fn install_reasons(
    controllers: &[ControllerFacts],
    crds: &[CrdFacts],
) -> Vec<super::StatusReason> {
    let revision_crd = crds.iter().any(|c| c.revision_fields);
    controllers
        .iter()
        .filter_map(|c| {
            let next = crate::next::recognised_as_next(c.image_tag.as_deref(), revision_crd);
            let (version, missing) = match next {
                Some(_) => ("next", next_missing_for(crds)),
                None => {
                    let version = c.version.as_deref()?;
                    (version, missing_for(version, crds))
                }
            };
            (!missing.is_empty()).then(|| super::StatusReason::CrdsBehindController {
                controller: c.name.clone(),
                version: version.to_string(),
                missing,
            })
        })
        .collect()
}

/// The fields the next release writes that the installed `crds` lack: 0.14.2's and
/// [`NEXT_MARKS`] (`since: "next"`).
pub fn next_missing_for(crds: &[CrdFacts]) -> Vec<MissingField> {
    let mut missing = missing_for("0.14.2", crds);
    for c in crds {
        missing.extend(c.next_missing.iter().map(|field| MissingField {
            crd: c.name.clone(),
            field: field.to_string(),
            since: "next".to_string(),
        }));
    }
    missing
}

/// [`super::StatusReason::CrdsLookOlder`]: no ARC CRD was read (`crds_read` false: a dump without
/// them, or a caller who may not get them), the controller that reconciles the namespace runs
/// 0.14.0 or later, and of the `written` statuses ARC wrote in it (a set's with its four counts, a
/// scale set's), none has `status.phase`. ARC 0.14's EphemeralRunnerSet controller writes a phase
/// on every `updateStatus` (Running when none, `ephemeralrunnerset_controller.go`) and its
/// AutoscalingRunnerSet controller on each reconcile that reaches `updateStatus`; CRDs older than
/// 0.14.0 do not declare it, and the API server prunes it.
pub fn crds_look_older(
    controller: &ControllerFacts,
    crds_read: bool,
    written: usize,
    with_phase: usize,
) -> Option<super::StatusReason> {
    if crds_read || written == 0 || with_phase > 0 {
        return None;
    }
    let version = controller.version.as_deref()?;
    (version_numbers(version)? >= vec![0, 14, 0]).then(|| super::StatusReason::CrdsLookOlder {
        controller: controller.name.clone(),
        version: version.to_string(),
    })
}

/// A field the controller's release writes that an installed CRD does not declare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingField {
    pub crd: String,
    pub field: String,
    /// The release whose CRD added it.
    pub since: String,
}

/// The fields the release `version` writes that the installed `crds` lack (empty for an unknown
/// release: nothing is claimed of it).
pub fn missing_for(version: &str, crds: &[CrdFacts]) -> Vec<MissingField> {
    let Some(at) = rank(version) else {
        return Vec::new();
    };
    crds.iter()
        .flat_map(|c| {
            c.missing
                .iter()
                .filter(move |m| rank(m.since).is_some_and(|since| since <= at))
                .map(|m| MissingField {
                    crd: c.name.clone(),
                    field: m.path.to_string(),
                    since: m.since.to_string(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A CRD of `plural` declaring exactly `paths`.
    fn crd(plural: &str, paths: &[&str]) -> Value {
        let mut schema = json!({"type": "object"});
        for path in paths {
            let mut node = &mut schema;
            for step in path.split('.') {
                let (name, items) = match step.strip_suffix("[]") {
                    Some(n) => (n, true),
                    None => (step, false),
                };
                node = node
                    .as_object_mut()
                    .unwrap()
                    .entry("properties")
                    .or_insert_with(|| json!({}))
                    .as_object_mut()
                    .unwrap()
                    .entry(name)
                    .or_insert_with(|| json!({"type": "object"}));
                if items {
                    node = node
                        .as_object_mut()
                        .unwrap()
                        .entry("items")
                        .or_insert_with(|| json!({"type": "object"}));
                }
            }
        }
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.actions.github.com")},
            "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": schema}}]}
        })
    }

    fn marks_up_to(plural: &str, version: &str) -> Vec<&'static str> {
        let at = rank(version).unwrap();
        CRD_MARKS
            .iter()
            .filter(|m| m.plural == plural && rank(m.since).unwrap() <= at)
            .map(|m| m.path)
            .collect()
    }

    #[test]
    fn crd_facts_from_the_parts_are_the_facts_of_the_text() {
        use crate::object::{Object, Origin};
        let mut cases = vec![
            crd(
                "ephemeralrunnersets",
                &marks_up_to("ephemeralrunnersets", "0.13.1"),
            ),
            crd("ephemeralrunnersets", &["spec.actionableRevision"]),
            crd("autoscalinglisteners", &[]),
            crd("ephemeralrunners", &["spec.spec"]),
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {}}),
            json!({"metadata": {"name": 3}, "spec": {"versions": "x"}}),
            json!({"metadata": "x", "spec": []}),
            json!({}),
        ];
        let mut other_version = crd("ephemeralrunnersets", &[]);
        other_version["spec"]["versions"][0]["name"] = json!("v1beta1");
        cases.push(other_version);
        let mut read = 0;
        for case in cases {
            let o = Object::from_manifest(&case, Origin::Cluster, None);
            let text: Value = serde_json::from_str(&o.json()).unwrap();
            let facts = CrdFacts::from_object(&o);
            read += usize::from(facts.is_some());
            assert_eq!(facts, CrdFacts::from_crd(&text), "{case}");
        }
        assert_eq!(read, 4, "the cases read four of ARC's CRDs");
    }

    #[test]
    fn every_mark_names_a_known_release_and_one_of_arcs_crds() {
        for m in CRD_MARKS {
            assert!(rank(m.since).is_some(), "{m:?}");
            assert!(
                ARC_CRDS.contains(&format!("{}.actions.github.com", m.plural).as_str()),
                "{m:?}"
            );
        }
        let ranks: Vec<usize> = CRD_MARKS.iter().map(|m| rank(m.since).unwrap()).collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "oldest first");
    }

    #[test]
    fn a_crd_is_of_the_newest_release_whose_marks_it_declares() {
        for (plural, version, want) in [
            ("ephemeralrunnersets", "0.10.1", "0.11.0"),
            ("ephemeralrunnersets", "0.12.1", "0.13.1"),
            ("ephemeralrunnersets", "0.14.0", "0.14.2"),
            ("ephemeralrunners", "0.13.1", "0.13.1"),
            ("ephemeralrunners", "0.12.0", "0.12.1"),
            ("autoscalingrunnersets", "0.11.0", "0.11.0"),
        ] {
            let facts = CrdFacts::from_crd(&crd(plural, &marks_up_to(plural, version))).unwrap();
            assert_eq!(facts.release, want, "{plural} declaring {version}'s marks");
        }
        let none = CrdFacts::from_crd(&crd("ephemeralrunners", &["spec.spec"])).unwrap();
        assert_eq!(none.release, "0.10.1");
        assert_eq!(none.missing.len(), 4);
    }

    #[test]
    fn a_newer_controller_is_told_the_fields_its_crds_drop() {
        let crds = vec![
            CrdFacts::from_crd(&crd(
                "ephemeralrunnersets",
                &marks_up_to("ephemeralrunnersets", "0.13.1"),
            ))
            .unwrap(),
            CrdFacts::from_crd(&crd(
                "autoscalingrunnersets",
                &marks_up_to("autoscalingrunnersets", "0.14.2"),
            ))
            .unwrap(),
        ];
        let missing = missing_for("0.14.2", &crds);
        assert_eq!(
            missing
                .iter()
                .map(|m| (m.crd.as_str(), m.field.as_str(), m.since.as_str()))
                .collect::<Vec<_>>(),
            [
                (
                    "ephemeralrunnersets.actions.github.com",
                    "spec.ephemeralRunnerMetadata",
                    "0.14.0"
                ),
                (
                    "ephemeralrunnersets.actions.github.com",
                    "status.phase",
                    "0.14.0"
                ),
            ]
        );
        // The release the CRDs are of, and older ones, write nothing they lack; an unknown
        // version is not judged.
        assert!(missing_for("0.13.1", &crds).is_empty());
        assert!(missing_for("0.9.0", &crds).is_empty());
        assert!(missing_for("canary", &crds).is_empty());
        assert!(missing_for("v0.14.2", &crds).len() == 2);
    }

    #[test]
    fn the_controller_is_found_by_its_chart_labels_and_versioned_by_label_then_image() {
        let deployment = |labels: Value, replicas: i64, image: &str| {
            json!({"metadata": {"namespace": "arc-systems", "name": "arc-gha-rs-controller", "labels": labels},
                   "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                       {"name": "sidecar", "image": "busybox:1.36"},
                       {"name": "manager", "image": image}]}}}})
            .to_string()
        };
        let chart = json!({"app.kubernetes.io/part-of": "gha-rs-controller", "app.kubernetes.io/version": "0.14.1"});
        let c = ControllerFacts::from_deployment(&deployment(
            chart,
            1,
            "ghcr.io/actions/gha-runner-scale-set-controller:0.13.0",
        ))
        .unwrap();
        assert_eq!(c.name, "arc-systems/arc-gha-rs-controller");
        assert_eq!(c.version.as_deref(), Some("0.14.1"), "the label first");
        let by_name = json!({"app.kubernetes.io/name": "gha-rs-controller"});
        let c = ControllerFacts::from_deployment(&deployment(
            by_name.clone(),
            1,
            "reg:5000/arc/controller:0.13.0@sha256:ab",
        ))
        .unwrap();
        assert_eq!(
            c.version.as_deref(),
            Some("0.13.0"),
            "the manager's tag, not the port"
        );
        let c = ControllerFacts::from_deployment(&deployment(
            by_name.clone(),
            1,
            "reg:5000/arc/controller",
        ))
        .unwrap();
        assert_eq!(c.version, None);
        assert!(
            ControllerFacts::from_deployment(&deployment(by_name, 0, "c:0.14.2")).is_none(),
            "scaled to 0"
        );
        assert!(
            ControllerFacts::from_deployment(&deployment(json!({"app": "web"}), 1, "c:0.14.2"))
                .is_none()
        );
        let crds = vec![
            CrdFacts::from_crd(&crd(
                "ephemeralrunnersets",
                &marks_up_to("ephemeralrunnersets", "0.13.1"),
            ))
            .unwrap(),
        ];
        let two = [
            ControllerFacts {
                name: "a/new".into(),
                version: Some("0.14.0".into()),
                watch_namespace: None,
                listener_image: None,
                image_tag: None,
            },
            ControllerFacts {
                name: "b/old".into(),
                version: Some("0.13.1".into()),
                watch_namespace: None,
                listener_image: None,
                image_tag: None,
            },
            ControllerFacts {
                name: "c/unknown".into(),
                version: None,
                watch_namespace: None,
                listener_image: None,
                image_tag: None,
            },
        ];
        let reasons = install_reasons(&two, &crds);
        assert_eq!(reasons.len(), 1);
        let text = reasons[0].to_string();
        assert!(text.starts_with("controller Deployment a/new runs ARC 0.14.0, but the installed CRDs lack what it writes: ephemeralrunnersets.actions.github.com lacks spec.ephemeralRunnerMetadata (0.14.0), status.phase (0.14.0): "), "{text}");
        assert!(text.contains("Helm does not upgrade CRDs"), "{text}");
    }

    /// A controller recognised as a build of master (its chart label still 0.14.2) over #4638's
    /// CRDs: it writes the ARS's observed generation and the listener's phase, which they lack;
    /// over CRDs declaring those too, nothing is said. A 0.14.2 release over the same CRDs says
    /// nothing either (it writes none of next's fields).
    #[test]
    fn a_master_build_is_judged_by_the_next_release_fields() {
        let with = |plural: &str, extra: &[&str]| {
            let mut paths: Vec<&str> = marks_up_to(plural, "0.14.2");
            paths.extend_from_slice(extra);
            CrdFacts::from_crd(&crd(plural, &paths)).unwrap()
        };
        let revision = [
            "spec.actionableRevision",
            "status.appliedActionableRevision",
        ];
        let pr_4638 = vec![
            with("ephemeralrunnersets", &revision),
            with("autoscalingrunnersets", &[]),
            with("autoscalinglisteners", &[]),
        ];
        let controller = |tag: &str| ControllerFacts {
            name: "arc-systems/c".into(),
            version: Some("0.14.2".into()),
            watch_namespace: None,
            listener_image: None,
            image_tag: Some(tag.into()),
        };
        let reasons = install_reasons(&[controller("canary-2ee6b3b")], &pr_4638);
        let [
            super::super::StatusReason::CrdsBehindController {
                version, missing, ..
            },
        ] = reasons.as_slice()
        else {
            panic!("{reasons:?}")
        };
        assert_eq!(version, "next");
        let fields: Vec<&str> = missing.iter().map(|m| m.field.as_str()).collect();
        assert_eq!(fields, ["status.observedGeneration", "spec.phase"]);
        assert!(install_reasons(&[controller("0.14.2")], &pr_4638).is_empty());
        let next = vec![
            with("ephemeralrunnersets", &revision),
            with("autoscalingrunnersets", &["status.observedGeneration"]),
            with("autoscalinglisteners", &["spec.phase"]),
        ];
        assert!(install_reasons(&[controller("canary-2ee6b3b")], &next).is_empty());
    }

    #[test]
    fn crds_look_older_when_none_was_read_and_no_status_arc_wrote_has_a_phase() {
        let controller = |version: &str| ControllerFacts {
            name: "arc-systems/arc-gha-rs-controller".into(),
            version: Some(version.into()),
            watch_namespace: None,
            listener_image: None,
            image_tag: None,
        };
        let said = crds_look_older(&controller("0.14.2"), false, 3, 0).expect("said");
        let text = said.to_string();
        assert!(text.starts_with("no ARC CustomResourceDefinition was read, controller Deployment arc-systems/arc-gha-rs-controller runs ARC 0.14.2, and no status ARC wrote in this namespace has status.phase"), "{text}");
        assert!(
            text.contains("kubectl get crd ephemeralrunnersets.actions.github.com -o yaml"),
            "{text}"
        );
        // CRDs read (CrdsBehindController judges them), a phase seen, nothing written, a
        // controller before 0.14.0 or of no known version: not said.
        assert!(crds_look_older(&controller("0.14.2"), true, 3, 0).is_none());
        assert!(crds_look_older(&controller("0.14.2"), false, 3, 1).is_none());
        assert!(crds_look_older(&controller("0.14.2"), false, 0, 0).is_none());
        assert!(crds_look_older(&controller("0.13.1"), false, 3, 0).is_none());
        assert!(crds_look_older(&controller("canary"), false, 3, 0).is_none());
        // The scale set's phase is one of 0.14.0's marks.
        assert!(CRD_MARKS.contains(&mark("0.14.0", "autoscalingrunnersets", "status.phase")));
    }

    /// The controller whose release judges a namespace's sets, in `diff`'s order: the one watching
    /// that namespace alone, else the first watching every namespace, else none.
    #[test]
    fn the_reconciler_of_a_namespace_watches_it_alone_else_every_namespace() {
        let c = |name: &str, watch: Option<&str>| ControllerFacts {
            name: name.into(),
            version: Some("0.14.2".into()),
            watch_namespace: watch.map(str::to_string),
            listener_image: None,
            image_tag: None,
        };
        let all = [
            c("a/other", Some("other")),
            c("b/every", None),
            c("c/single", Some("runners")),
            c("d/every", None),
        ];
        let name = |ns| reconciler_of(&all, ns).map(|c| c.name.as_str());
        assert_eq!(name("runners"), Some("c/single"));
        assert_eq!(name("other"), Some("a/other"));
        assert_eq!(name("elsewhere"), Some("b/every"));
        assert_eq!(reconciler_of(&all[..1], "runners").map(|c| &c.name), None);
        assert!(reconciler_of(&[], "runners").is_none());
    }

    #[test]
    fn versions_sort_as_versions() {
        let mut v = vec!["0.13.1", "canary", "0.9.3", "v0.10.0", "0.14.2"];
        v.sort_by(|a, b| version_cmp(a, b));
        assert_eq!(v, ["0.9.3", "v0.10.0", "0.13.1", "0.14.2", "canary"]);
        assert_eq!(image_tag("reg:5000/arc/c:0.14.2@sha256:ab"), Some("0.14.2"));
        assert_eq!(image_tag("reg:5000/arc/c"), None);
    }

    #[test]
    fn the_controllers_watched_namespace_is_read_as_gos_flag_package_reads_it() {
        for (args, want) in [
            (
                vec![
                    "--auto-scaling-runner-set-only",
                    "--watch-single-namespace=arc",
                ],
                Some("arc"),
            ),
            (vec!["-watch-single-namespace", "arc"], Some("arc")),
            (
                vec!["--watch-single-namespace=a", "--watch-single-namespace=b"],
                Some("b"),
            ),
            (vec!["--log-level=debug"], None),
            (vec!["run", "--watch-single-namespace=arc"], None),
            (vec!["--", "--watch-single-namespace=arc"], None),
        ] {
            assert_eq!(go_flag(&args, "watch-single-namespace"), want, "{args:?}");
        }
        let d = json!({"metadata": {"namespace": "arc-systems", "name": "c",
                "labels": {"app.kubernetes.io/part-of": "gha-rs-controller"}},
            "spec": {"template": {"spec": {"containers": [{"name": "manager", "image": "c:0.14.2",
                "args": ["--auto-scaling-runner-set-only", "--watch-single-namespace=team-a"]}]}}}});
        let c = ControllerFacts::from_deployment(&d.to_string()).unwrap();
        assert_eq!(c.watch_namespace.as_deref(), Some("team-a"));
        assert!(c.watches("team-a") && !c.watches("team-b"));
        let all = ControllerFacts {
            watch_namespace: None,
            ..c
        };
        assert!(all.watches("team-b"));
    }

    #[test]
    fn an_array_step_goes_into_items_and_a_missing_step_is_not_declared() {
        let c = crd(
            "ephemeralrunners",
            &["spec.spec.containers[].restartPolicyRules"],
        );
        let schema = crd_schema(&c).unwrap();
        assert!(declares(
            schema,
            "spec.spec.containers[].restartPolicyRules"
        ));
        assert!(!declares(schema, "spec.spec.containers.restartPolicyRules"));
        assert!(!declares(schema, "spec.spec.initContainers[]"));
        assert!(CrdFacts::from_crd(&json!({"metadata": {"name": "pods.example.com"}})).is_none());
    }
}
