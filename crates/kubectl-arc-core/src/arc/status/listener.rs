//! What stands around a set's revision handshake and stops it from scaling: its scale set's
//! AutoscalingListener and the listener's Pod, and objects that hang in deletion on a finalizer.
//!
//! Pure core: the facts are read from the objects' JSON text; the rules name the ARC functions
//! they mirror (ARC gha-runner-scale-set-0.14.2 and master 2ee6b3b8,
//! controllers/actions.github.com/autoscalingrunnerset_controller.go and
//! autoscalinglistener_controller.go).

use crate::object::Object;
use serde::Deserialize;
use serde_json::Value;

use super::StatusReason;
use super::facts::SetFacts;
use super::install::{ControllerFacts, image_tag, version_numbers};

/// The label ARC puts on a listener and its Pod (`LabelKeyKubernetesComponent`).
pub const LABEL_COMPONENT: &str = "app.kubernetes.io/component";
/// Its value on a listener and its Pod (`newAutoScalingListener`).
pub const COMPONENT_LISTENER: &str = "runner-scale-set-listener";
/// The listener Pod's container (`autoscalingListenerContainerName`).
pub const LISTENER_CONTAINER: &str = "listener";
/// The plural of AutoscalingListener.
pub const AUTOSCALING_LISTENERS: &str = "autoscalinglisteners";
/// Kind of the listener.
pub const KIND_AUTOSCALING_LISTENER: &str = "AutoscalingListener";

/// An object's deletion: since when, and the finalizers left on it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Deletion {
    /// `metadata.deletionTimestamp` (RFC 3339).
    pub since: Option<String>,
    /// `metadata.finalizers`.
    pub finalizers: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    deletion_timestamp: Option<String>,
    #[serde(default)]
    finalizers: Option<Vec<String>>,
    #[serde(default)]
    labels: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    annotations: Option<std::collections::BTreeMap<String, String>>,
}

impl Meta {
    fn deletion(&self) -> Option<Deletion> {
        self.deletion_timestamp.as_ref().map(|t| Deletion {
            since: Some(t.clone()),
            finalizers: self.finalizers.clone().unwrap_or_default(),
        })
    }
}

/// The deletion of an object of any kind, from its JSON text (`None`: not being deleted, or not
/// an object).
pub fn deletion_of(text: &str) -> Option<Deletion> {
    serde_json::from_str::<MetaOnly>(text)
        .ok()?
        .metadata
        .deletion()
}

/// [`deletion_of`] the one [`Object`], from its metadata text.
pub fn deletion_of_object(object: &Object) -> Option<Deletion> {
    object.read_parts::<MetaOnly>().ok()?.metadata.deletion()
}

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(default)]
    metadata: Meta,
}

#[derive(Deserialize)]
struct PodText {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    status: Option<Value>,
}

/// The controller of ARC that removes a finalizer of ARC's, by the finalizer's name (the
/// constants of ARC's controllers; `actions.github.com/cleanup-protection` is the Helm chart's,
/// removed by `removeFinalizersFromDependentResources` of the AutoscalingRunnerSet controller).
/// `kind` tells the EphemeralRunnerSet's finalizer from the runner's: ARC gives both the same
/// name (`ephemeralRunnerSetFinalizerName`, `ephemeralRunnerFinalizerName`).
pub fn finalizer_controller(finalizer: &str, kind: &str) -> Option<&'static str> {
    Some(match finalizer {
        "autoscalingrunnerset.actions.github.com/finalizer"
        | "actions.github.com/cleanup-protection" => "the AutoscalingRunnerSet controller",
        "autoscalinglistener.actions.github.com/finalizer" => "the AutoscalingListener controller",
        "ephemeralrunner.actions.github.com/finalizer" if kind == "EphemeralRunnerSet" => {
            "the EphemeralRunnerSet controller"
        }
        "ephemeralrunner.actions.github.com/finalizer"
        | "ephemeralrunner.actions.github.com/runner-registration-finalizer" => {
            "the EphemeralRunner controller"
        }
        _ => return None,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListenerSpecText {
    #[serde(default)]
    autoscaling_runner_set_namespace: Option<String>,
    #[serde(default)]
    autoscaling_runner_set_name: Option<String>,
    #[serde(default)]
    ephemeral_runner_set_name: Option<String>,
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    phase: Option<String>,
}
#[derive(Deserialize)]
struct ListenerText {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    spec: Option<ListenerSpecText>,
}

/// What status reads of an AutoscalingListener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerFacts {
    pub namespace: String,
    pub name: String,
    /// `spec.autoscalingRunnerSetNamespace` and `spec.autoscalingRunnerSetName`: the scale set
    /// the listener serves (`newAutoScalingListener`; the listener controller reads its scale set
    /// by them).
    pub scale_set: (String, String),
    /// `spec.ephemeralRunnerSetName`: the set it scales.
    pub ephemeral_runner_set: String,
    /// `spec.image`: the controller's listener image (its `--listener-image`, by default its
    /// own image).
    pub image: Option<String>,
    /// `app.kubernetes.io/version`: copied from the scale set's label, the version of the
    /// gha-runner-scale-set chart that made it (`newAutoScalingListener`).
    pub chart_version: Option<String>,
    pub deletion: Option<Deletion>,
    /// Its `actions.github.com/runner-spec-hash` and `actions.github.com/values-hash` annotations:
    /// its scale set's `ListenerSpecHash()` and values hash when ARC (up to 0.14) made it.
    pub spec_hash: Option<String>,
    pub values_hash: Option<String>,
    /// `spec.phase`: `Stopped` when the next release's `reconcileOutdated` switched the scale
    /// set off (ARC #4652); absent before it, or where the CRD lacks the field.
    pub phase: Option<String>,
}

impl ListenerFacts {
    /// Read an AutoscalingListener from its JSON text.
    pub fn from_json(text: &str) -> Result<ListenerFacts, String> {
        let o: ListenerText = serde_json::from_str(text)
            .map_err(|e| format!("not an AutoscalingListener object: {e}"))?;
        Ok(ListenerFacts::from_view(o))
    }

    /// [`ListenerFacts::from_json`] of the one [`Object`], read from its parts
    /// ([`Object::read_parts`]); the whole text only for the error of one Go would not decode.
    pub fn from_object(object: &Object) -> Result<ListenerFacts, String> {
        match object.read_parts::<ListenerText>() {
            Ok(o) => Ok(ListenerFacts::from_view(o)),
            Err(_) => ListenerFacts::from_json(&object.json()),
        }
    }

    fn from_view(o: ListenerText) -> ListenerFacts {
        let spec = o.spec.unwrap_or(ListenerSpecText {
            autoscaling_runner_set_namespace: None,
            autoscaling_runner_set_name: None,
            ephemeral_runner_set_name: None,
            image: None,
            phase: None,
        });
        let annotation = |k: &str| {
            o.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(k))
                .cloned()
        };
        ListenerFacts {
            phase: spec.phase.clone(),
            spec_hash: annotation(crate::arc::ANNOTATION_RUNNER_SPEC_HASH),
            values_hash: annotation(crate::replacement::ANNOTATION_VALUES_HASH),
            chart_version: o
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("app.kubernetes.io/version"))
                .filter(|v| !v.is_empty())
                .cloned(),
            deletion: o.metadata.deletion(),
            namespace: o.metadata.namespace.unwrap_or_default(),
            name: o.metadata.name.unwrap_or_default(),
            scale_set: (
                spec.autoscaling_runner_set_namespace.unwrap_or_default(),
                spec.autoscaling_runner_set_name.unwrap_or_default(),
            ),
            ephemeral_runner_set: spec.ephemeral_runner_set_name.unwrap_or_default(),
            image: spec.image,
        }
    }
}

/// What status reads of a Pod: its phase and the state of one container, as a kubelet writes
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFacts {
    pub namespace: String,
    pub name: String,
    /// `status.phase`.
    pub phase: Option<String>,
    /// `status.reason` (`Evicted`), and `status.message`.
    pub reason: Option<String>,
    pub message: Option<String>,
    /// The container's `state.waiting.reason` and `.message` (`CrashLoopBackOff`, `ImagePullBackOff`).
    pub waiting: Option<(String, Option<String>)>,
    /// The container's `state.terminated.reason`, or `lastState.terminated.reason`.
    pub terminated: Option<String>,
    /// The container's `state.running` is set.
    pub running: bool,
    /// The container's `restartCount`.
    pub restarts: i64,
    /// `status.conditions` PodScheduled False: its reason and message (`Unschedulable`).
    pub unschedulable: Option<String>,
    pub deletion: Option<Deletion>,
}

impl PodFacts {
    /// Read a Pod from its JSON text; `container` is the container to look at (the listener's),
    /// else the first.
    pub fn from_json(text: &str, container: &str) -> Result<PodFacts, String> {
        let o: PodText =
            serde_json::from_str(text).map_err(|e| format!("not a Pod object: {e}"))?;
        Ok(PodFacts::from_view(o, container))
    }

    /// [`PodFacts::from_json`] of the one [`Object`], read from its parts
    /// ([`Object::read_parts`]); the whole text only for the error of one Go would not decode.
    pub fn from_object(object: &Object, container: &str) -> Result<PodFacts, String> {
        match object.read_parts::<PodText>() {
            Ok(o) => Ok(PodFacts::from_view(o, container)),
            Err(_) => PodFacts::from_json(&object.json(), container),
        }
    }

    fn from_view(o: PodText, container: &str) -> PodFacts {
        let status = o.status.unwrap_or(Value::Null);
        let s = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        let statuses = status
            .get("containerStatuses")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let c = statuses
            .iter()
            .find(|c| c.get("name").and_then(Value::as_str) == Some(container))
            .or_else(|| statuses.first())
            .cloned()
            .unwrap_or(Value::Null);
        let unschedulable = status
            .get("conditions")
            .and_then(Value::as_array)
            .and_then(|cs| {
                cs.iter().find(|c| {
                    c.get("type").and_then(Value::as_str) == Some("PodScheduled")
                        && c.get("status").and_then(Value::as_str) == Some("False")
                })
            })
            .map(|c| {
                let reason = s(c, "/reason").unwrap_or_else(|| "Unschedulable".into());
                match s(c, "/message") {
                    Some(m) => format!("{reason}: {m}"),
                    None => reason,
                }
            });
        PodFacts {
            deletion: o.metadata.deletion(),
            namespace: o.metadata.namespace.unwrap_or_default(),
            name: o.metadata.name.unwrap_or_default(),
            phase: s(&status, "/phase"),
            reason: s(&status, "/reason"),
            message: s(&status, "/message"),
            waiting: s(&c, "/state/waiting/reason").map(|r| (r, s(&c, "/state/waiting/message"))),
            terminated: s(&c, "/state/terminated/reason")
                .or_else(|| s(&c, "/lastState/terminated/reason")),
            running: c.pointer("/state/running").is_some_and(Value::is_object),
            restarts: c.get("restartCount").and_then(Value::as_i64).unwrap_or(0),
            unschedulable,
        }
    }
}

/// Why a listener Pod is not running, as a kubelet says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodProblem {
    /// The container restarts and the kubelet backs off (`CrashLoopBackOff`).
    CrashLoop { restarts: i64, last: Option<String> },
    /// The image cannot be pulled (`ImagePullBackOff`, `ErrImagePull`, `InvalidImageName`).
    ImagePull {
        reason: String,
        message: Option<String>,
    },
    /// The container cannot be created from its config (`CreateContainerConfigError`, ...).
    ContainerError {
        reason: String,
        message: Option<String>,
    },
    /// Not scheduled (`PodScheduled` False).
    Unschedulable { why: String },
    /// Phase Pending otherwise (`ContainerCreating`, no status yet).
    Pending { reason: Option<String> },
    /// Phase Failed or Succeeded, or evicted: the listener controller deletes it and makes another
    /// (`Reconcile`: `Evicted`, a terminated container).
    Ended {
        phase: String,
        reason: Option<String>,
    },
}

impl PodProblem {
    /// Only a person can end it (a crash, an image or a config to fix; a Pod that cannot be
    /// scheduled): the kubelet and ARC retry forever.
    pub fn needs_person(&self) -> bool {
        matches!(
            self,
            PodProblem::CrashLoop { .. }
                | PodProblem::ImagePull { .. }
                | PodProblem::ContainerError { .. }
                | PodProblem::Unschedulable { .. }
        )
    }
}

/// Why a Pod is not running, or `None` when its container runs (phase Running, `state.running`).
/// The waiting reasons are the kubelet's (k8s.io/kubernetes pkg/kubelet/images and
/// kuberuntime: `ErrImagePull`, `ImagePullBackOff`, `InvalidImageName`, `CrashLoopBackOff`,
/// `CreateContainerConfigError`, `CreateContainerError`); the ended cases are those on which
/// `AutoscalingListenerReconciler.Reconcile` deletes the Pod.
pub fn pod_problem(pod: &PodFacts) -> Option<PodProblem> {
    if let Some((reason, message)) = &pod.waiting {
        match reason.as_str() {
            "CrashLoopBackOff" => {
                return Some(PodProblem::CrashLoop {
                    restarts: pod.restarts,
                    last: pod.terminated.clone(),
                });
            }
            "ImagePullBackOff" | "ErrImagePull" | "InvalidImageName" | "ErrImageNeverPull" => {
                return Some(PodProblem::ImagePull {
                    reason: reason.clone(),
                    message: message.clone(),
                });
            }
            "CreateContainerConfigError" | "CreateContainerError" | "RunContainerError" => {
                return Some(PodProblem::ContainerError {
                    reason: reason.clone(),
                    message: message.clone(),
                });
            }
            _ => {}
        }
    }
    let phase = pod.phase.as_deref().unwrap_or("Pending");
    if pod.reason.as_deref() == Some("Evicted") || matches!(phase, "Failed" | "Succeeded") {
        return Some(PodProblem::Ended {
            phase: phase.to_string(),
            reason: pod.reason.clone().or_else(|| pod.terminated.clone()),
        });
    }
    if phase == "Running" && pod.running {
        return None;
    }
    if let Some(why) = &pod.unschedulable {
        return Some(PodProblem::Unschedulable { why: why.clone() });
    }
    Some(PodProblem::Pending {
        reason: pod.waiting.as_ref().map(|(r, _)| r.clone()),
    })
}

/// What status knows of a scale set for its listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleSetFacts {
    /// `namespace/name`.
    pub key: (String, String),
    /// The `runner-scale-set-id` annotation is a number > 0 (`Reconcile`'s `strconv.Atoi`
    /// check: until then ARC registers the scale set and makes no listener).
    pub registered: bool,
    /// `status.phase` is Outdated.
    pub outdated: bool,
    pub deletion: Option<Deletion>,
}

impl ScaleSetFacts {
    /// From the scale set's name, its `runner-scale-set-id` annotation, `status.phase` and
    /// deletion.
    pub fn new(
        key: (String, String),
        scale_set_id: Option<&str>,
        phase: Option<&str>,
        deletion: Option<Deletion>,
    ) -> ScaleSetFacts {
        ScaleSetFacts {
            key,
            registered: scale_set_id
                .and_then(crate::desired::go_atoi)
                .is_some_and(|id| id > 0),
            outdated: phase == Some("Outdated"),
            deletion,
        }
    }
}

/// What status could read of a scale set's listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenerView {
    /// Listeners could not be read, or nothing says that an ARC controller makes listeners for
    /// the scale set's namespace: nothing is said.
    Unknown,
    /// Listeners were read and none serves this scale set.
    Absent,
    /// The listener, and its Pod as far as known.
    Found {
        listener: Box<ListenerFacts>,
        pod: PodView,
    },
}

/// What status could read of a listener's Pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodView {
    /// Pods in the listener's namespace could not be read.
    Unknown,
    /// Read, and there is none of the listener's name.
    Absent,
    Found(Box<PodFacts>),
}

/// The listener reasons of a scale set's newest set (`latest`), as ARC's
/// `AutoscalingRunnerSetReconciler.Reconcile` decides when a listener must exist: the scale set
/// is not being deleted, is registered (`runner-scale-set-id` > 0), neither it nor its newest set
/// is Outdated (then ARC removes the listener, `cleanUpResources`/`cleanupListener`), and the set
/// is not being deleted. `sets` are the names of the scale set's sets in its namespace;
/// `running`/`pending` its runners in phase Running and Pending (what `drainingJobs` counts:
/// with `--update-strategy=eventual` ARC waits for them before it creates the listener again).
/// `stale_under`: the release (up to 0.14) under which the listener's hash annotations are not
/// its scale set's ([`crate::replacement::listener_restart`]), when the caller found so.
pub fn listener_reasons(
    scale_set: &ScaleSetFacts,
    latest: &SetFacts,
    sets: &[String],
    view: &ListenerView,
    running: usize,
    pending: usize,
    stale_under: Option<&str>,
) -> Vec<StatusReason> {
    let expected = scale_set.deletion.is_none()
        && scale_set.registered
        && !scale_set.outdated
        && !latest.deleting
        && latest.phase.as_deref() != Some("Outdated");
    let scale_set_name = format!("{}/{}", scale_set.key.0, scale_set.key.1);
    let mut out = Vec::new();
    match view {
        ListenerView::Unknown => {}
        ListenerView::Absent => {
            if expected {
                out.push(StatusReason::NoListener {
                    scale_set: scale_set_name,
                    running,
                    pending,
                });
            }
        }
        ListenerView::Found { listener, pod } => {
            let name = format!("{}/{}", listener.namespace, listener.name);
            if let Some(d) = listener
                .deletion
                .as_ref()
                .filter(|d| !d.finalizers.is_empty())
            {
                out.push(finalizers_left(KIND_AUTOSCALING_LISTENER, &name, d));
            }
            if !expected || listener.deletion.is_some() {
                return out;
            }
            if listener.ephemeral_runner_set != latest.name {
                out.push(StatusReason::ListenerForOtherSet {
                    listener: name.clone(),
                    points_at: listener.ephemeral_runner_set.clone(),
                    exists: sets.contains(&listener.ephemeral_runner_set),
                    newest: latest.name.clone(),
                    // ARC up to 0.14 deletes a listener only when its hashes change (then it
                    // makes it again by itself, as during a replacement); later releases
                    // compare the whole listener spec and make it again.
                    arc_recreates: !latest.spec_hash_era || stale_under.is_some(),
                });
            }
            if let Some(release) = stale_under {
                out.push(StatusReason::ListenerHashStale {
                    listener: name.clone(),
                    release: release.to_string(),
                });
            }
            if let Some((image, chart)) = version_mismatch(listener) {
                out.push(StatusReason::ListenerVersionMismatch {
                    listener: name.clone(),
                    image,
                    chart_version: chart,
                });
            }
            match pod {
                PodView::Unknown => {}
                PodView::Absent => out.push(StatusReason::ListenerPodMissing { listener: name }),
                PodView::Found(p) => {
                    if let Some(problem) = pod_problem(p) {
                        out.push(StatusReason::ListenerPodNotRunning {
                            pod: format!("{}/{}", p.namespace, p.name),
                            problem,
                        });
                    }
                }
            }
        }
    }
    out
}

/// ARC's `scaleSetListenerName` (controllers/actions.github.com/resourcebuilder.go): the scale
/// set's name, then the first 8 characters of `hash.FNVHashString` of its namespace (0.9.0 to
/// 0.13.0), or of `namespace@runnerGroup@githubConfigUrl` (`hashSuffix`, 0.13.1 to 0.14.2), then
/// `-listener`.
pub fn scale_set_listener_name(
    name: &str,
    namespace: &str,
    runner_group: &str,
    config_url: &str,
    since_0_13_1: bool,
) -> String {
    let hashed = if since_0_13_1 {
        crate::legacy_hash::fnv_hash_string(&format!("{namespace}@{runner_group}@{config_url}"))
    } else {
        crate::legacy_hash::fnv_hash_string(namespace)
    };
    let suffix: String = hashed.chars().take(8).collect();
    format!("{name}-{suffix}-listener")
}

/// Where ARC looks for a scale set's listener (`Reconcile`: `r.Get` of `scaleSetListenerName` in
/// `r.ControllerNamespace`): the controller's namespace when the controller is known, and the
/// name under its release's rule (both rules when no release is known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnListener {
    pub namespace: Option<String>,
    pub names: Vec<String>,
}

impl OwnListener {
    /// Of the scale set `(namespace, name)` with `spec.runnerGroup` and `spec.githubConfigUrl`,
    /// made by `controller` (the one that reconciles the namespace, when known), else by the
    /// release of the scale set's `app.kubernetes.io/version` label.
    pub fn of(
        scale_set: (&str, &str),
        runner_group: &str,
        config_url: &str,
        controller: Option<&ControllerFacts>,
        label_version: Option<&str>,
    ) -> OwnListener {
        let release = controller
            .and_then(|c| c.version.as_deref())
            .and_then(version_numbers)
            .or_else(|| label_version.and_then(version_numbers));
        let (ns, name) = scale_set;
        let rule = |since| scale_set_listener_name(name, ns, runner_group, config_url, since);
        let names = match release {
            Some(v) => vec![rule(v >= vec![0, 13, 1])],
            None => vec![rule(true), rule(false)],
        };
        OwnListener {
            namespace: controller
                .and_then(|c| c.name.split_once('/'))
                .map(|(n, _)| n.to_string()),
            names,
        }
    }

    /// Whether ARC finds this listener as the scale set's.
    pub fn is(&self, listener: &ListenerFacts) -> bool {
        self.names.contains(&listener.name)
            && self
                .namespace
                .as_deref()
                .is_none_or(|n| n == listener.namespace)
    }

    /// How the listener ARC looks for is named, `namespace/name` when the namespace is known.
    pub fn expected(&self) -> String {
        let names = self.names.join(" or ");
        match &self.namespace {
            Some(ns) => format!("{ns}/{names}"),
            None => names,
        }
    }
}

/// [`StatusReason::ListenerOrphaned`] of every listener that serves the scale set
/// (`spec.autoscalingRunnerSetNamespace`/`Name`) and is not the one ARC finds, nor being deleted:
/// ARC's AutoscalingRunnerSet controller reads, updates and deletes its listener only by name
/// (`Reconcile`, `cleanUpResources`), so another one is never touched.
pub fn orphaned_listeners<'a>(
    serving: impl Iterator<Item = &'a ListenerFacts>,
    own: &OwnListener,
) -> Vec<StatusReason> {
    serving
        .filter(|l| l.deletion.is_none() && !own.is(l))
        .map(|l| StatusReason::ListenerOrphaned {
            listener: format!("{}/{}", l.namespace, l.name),
            expected: own.expected(),
        })
        .collect()
}

/// The controller Deployment that makes the listeners of the scale sets of `namespace`: of those
/// that reconcile it ([`ControllerFacts::watches`]), the one in the listener's namespace (ARC makes
/// a listener in its controller's namespace, `newAutoScalingListener`), else the only one.
pub fn controller_of<'a>(
    controllers: &'a [ControllerFacts],
    namespace: &str,
    listener_namespace: Option<&str>,
) -> Option<&'a ControllerFacts> {
    let watching: Vec<&ControllerFacts> = controllers
        .iter()
        .filter(|c| c.watches(namespace))
        .collect();
    let home = watching.iter().copied().find(|c| {
        listener_namespace.is_some_and(|ns| c.name.split_once('/').map(|(n, _)| n) == Some(ns))
    });
    home.or_else(|| (watching.len() == 1).then(|| watching[0]))
}

/// [`StatusReason::ListenerBehindController`]: the listener's version (its `spec.image` tag,
/// else its `app.kubernetes.io/version`) is older than the version of the image the controller
/// that makes its scale set's listener gives listeners (`newAutoScalingListener`, 0.14.2: `image`
/// is the controller's `DefaultRunnerScaleSetListenerImage`, its `CONTROLLER_MANAGER_CONTAINER_IMAGE`;
/// else the controller's `app.kubernetes.io/version` label). Read from the Deployment itself, not
/// from the release that judges the set. ARC up to 0.14 deletes a listener only when its hash
/// annotations change (`Reconcile`: `ListenerSpecHash()` and the values hash), so a controller
/// upgraded alone keeps the listener an older one made.
pub fn behind_controller(
    listener: &ListenerFacts,
    controller: &ControllerFacts,
) -> Option<StatusReason> {
    let listener_version = listener
        .image
        .as_deref()
        .and_then(image_tag)
        .filter(|t| version_numbers(t).is_some())
        .or(listener.chart_version.as_deref())?;
    let controller_version = controller
        .listener_image
        .as_deref()
        .and_then(image_tag)
        .filter(|t| version_numbers(t).is_some())
        .or(controller.version.as_deref())?;
    let (l, c) = (
        version_numbers(listener_version)?,
        version_numbers(controller_version)?,
    );
    (l < c).then(|| StatusReason::ListenerBehindController {
        listener: format!("{}/{}", listener.namespace, listener.name),
        listener_version: listener_version.to_string(),
        controller: controller.name.clone(),
        controller_version: controller_version.to_string(),
    })
}

/// The listener's image tag and its chart version when both are versions and they differ: the
/// two Helm charts (controller and scale set) were not upgraded together (ARC #4572, #4513).
fn version_mismatch(listener: &ListenerFacts) -> Option<(String, String)> {
    let image = listener.image.as_deref()?;
    let tag = image_tag(image)?;
    let chart = listener.chart_version.as_deref()?;
    let version = |v: &str| v.strip_prefix('v').unwrap_or(v).to_string();
    let is_version = |v: &str| v.starts_with(|c: char| c.is_ascii_digit());
    (is_version(&version(tag)) && is_version(&version(chart)) && version(tag) != version(chart))
        .then(|| (image.to_string(), chart.to_string()))
}

/// [`StatusReason::FinalizersLeft`] of one object.
pub fn finalizers_left(kind: &str, name: &str, deletion: &Deletion) -> StatusReason {
    StatusReason::FinalizersLeft {
        kind: kind.to_string(),
        name: name.to_string(),
        more: 0,
        since: deletion.since.clone(),
        finalizers: deletion
            .finalizers
            .iter()
            .map(|f| (f.clone(), finalizer_controller(f, kind)))
            .collect(),
    }
}
