//! `repair`'s rules for a scale set's listener: when deleting the AutoscalingListener (or its
//! Pod) makes ARC make it again, as ARC's own controllers do, and when it would stop job pickup
//! instead. Pure core; the ops layer writes the delete with the object's uid and resourceVersion
//! as preconditions.
//!
//! Read at gha-runner-scale-set-0.9.0, 0.12.1, 0.14.2 and master 2ee6b3b8,
//! controllers/actions.github.com/autoscalingrunnerset_controller.go and
//! autoscalinglistener_controller.go.

use crate::impact::UpdateStrategy;
use crate::status::StatusReason;
use crate::status::install::{ControllerFacts, image_tag};
use crate::status::listener::{ListenerFacts, PodFacts, PodProblem};

use super::Decision;

/// A controller Deployment as the listener repairs judge it: what status reads of it
/// ([`ControllerFacts`]), its ready replicas and its `--update-strategy`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerSeen {
    pub facts: ControllerFacts,
    /// `status.readyReplicas`.
    pub ready: i64,
    /// The manager's `--update-strategy` as `main.go` reads it
    /// ([`crate::impact::parse_manager_args`]); `None` when its arguments do not parse (then it
    /// does not start).
    pub strategy: Option<UpdateStrategy>,
}

impl ControllerSeen {
    /// From a Deployment's JSON text; `None` when it is not ARC's controller.
    pub fn from_deployment(text: &str) -> Option<ControllerSeen> {
        ControllerSeen::from_value(&serde_json::from_str(text).ok()?)
    }

    /// [`ControllerSeen::from_deployment`] of the one [`crate::object::Object`], from its parts.
    pub fn from_object(object: &crate::object::Object) -> Option<ControllerSeen> {
        ControllerSeen::from_value(&object.read_parts::<serde_json::Value>().ok()?)
    }

    fn from_value(d: &serde_json::Value) -> Option<ControllerSeen> {
        let facts = ControllerFacts::from_deployment_value(d)?;
        let containers = d.pointer("/spec/template/spec/containers")?.as_array()?;
        let manager = (containers.iter())
            .find(|c| c["name"] == "manager")
            .or(containers.first());
        let args: Vec<String> = (manager.and_then(|c| c["args"].as_array()).into_iter())
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        let strategy = crate::impact::parse_manager_args(facts.version.as_deref(), &args)
            .ok()
            .map(|f| f.strategy());
        Some(ControllerSeen {
            ready: d
                .pointer("/status/readyReplicas")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0),
            strategy,
            facts,
        })
    }

    /// It runs (at least one ready replica) and its manager's arguments parse.
    pub fn runs(&self) -> bool {
        self.ready >= 1 && self.strategy.is_some()
    }

    /// How it is, for the evidence.
    pub fn said(&self) -> String {
        format!(
            "controller Deployment {} ({} ready)",
            self.facts.name, self.ready
        )
    }
}

/// What a listener repair reads besides the reason: the listener as read now, the controller
/// Deployment that makes its scale set's listener (`None`: none reconciles the namespace), and
/// the running and pending counts of the scale set's newest set (`status.runningEphemeralRunners`
/// + `pendingEphemeralRunners`, what `drainingJobs` reads).
#[derive(Debug, Clone, Copy)]
pub struct ListenerContext<'a> {
    pub listener: &'a ListenerFacts,
    pub controller: Option<&'a ControllerSeen>,
    pub running_and_pending: i64,
}

/// Whether a deleted listener is made again at once, by a controller that runs: refused when
/// none reconciles its scale set's namespace, none of its replicas is ready, the listener is
/// already being deleted (ARC is doing it), or the controller runs with
/// `--update-strategy=eventual` while runners run or are pending: ARC up to 0.14.2 makes no
/// listener while `drainingJobs` holds (`AutoscalingRunnerSetReconciler.Reconcile`,
/// gha-runner-scale-set-0.9.0 to 0.14.2: `if !listenerFound { if r.drainingJobs(...) { return } }`;
/// master 2ee6b3b8 creates it at once, but the rule keeps to the releases).
fn recreated(cx: &ListenerContext<'_>) -> Result<String, String> {
    if cx.listener.deletion.is_some() {
        return Err(
            "already being deleted (metadata.deletionTimestamp): ARC is doing it".to_string(),
        );
    }
    let Some(c) = cx.controller else {
        return Err("no controller Deployment is known to make it (none reconciles its scale set's namespace, or several do and none is in the listener's namespace): no running controller would make it again, job pickup would stop".to_string());
    };
    if !c.runs() {
        return Err(format!(
            "{} is not running: no running controller would make it again, job pickup would stop",
            c.said()
        ));
    }
    if c.strategy == Some(UpdateStrategy::Eventual) && cx.running_and_pending > 0 {
        return Err(format!(
            "{} runs with --update-strategy=eventual and the set has {} running or pending runners: ARC makes no listener until they finish (drainingJobs), job pickup would stop",
            c.facts.name, cx.running_and_pending
        ));
    }
    Ok(c.said())
}

/// The tag a listener made now would run: the controller's listener image
/// (`newAutoScalingListener` takes `r.DefaultRunnerScaleSetListenerImage`, main.go's
/// `CONTROLLER_MANAGER_CONTAINER_IMAGE`), else the controller's version.
fn next_listener_tag(c: &ControllerSeen) -> Option<String> {
    c.facts
        .listener_image
        .as_deref()
        .and_then(image_tag)
        .map(str::to_string)
        .or_else(|| c.facts.version.clone())
}

fn same_version(a: &str, b: &str) -> bool {
    a.strip_prefix('v').unwrap_or(a) == b.strip_prefix('v').unwrap_or(b)
}

/// `DeleteListener` for one of the listener reasons status gave the listener:
///
/// - `ListenerHashStale`: the very delete `AutoscalingRunnerSetReconciler.Reconcile` makes when
///   the listener's `runner-spec-hash` or `values-hash` annotation is not its scale set's
///   (0.9.0 to 0.14.2, "RunnerScaleSetListener is out of date"), on its next reconcile of the
///   scale set; that reconcile comes only on an event (`Watches` with
///   `ResourceVersionChangedPredicate`), so `repair` makes it when a controller that runs would
///   make the listener again.
/// - `ListenerForOtherSet`: the listener scales another set than the newest. Up to 0.14.2 ARC
///   never compares `spec.ephemeralRunnerSetName` (ARC #4561: `arc_recreates` false), and
///   `createAutoScalingListenerForRunnerSet` makes the new one for `latestRunnerSet`; master
///   2ee6b3b8 deletes it itself (`cmp.Equal(listener.Spec, desired.Spec)`). Deleted in both cases
///   under the same rule: the same delete ARC makes, or would make.
/// - `ListenerVersionMismatch`: only when the listener made again runs an image whose tag is the
///   scale set's chart version ([`next_listener_tag`]); else the charts disagree and a new
///   listener would too.
pub fn delete_listener(reason: &StatusReason, cx: &ListenerContext<'_>) -> Option<Decision> {
    let l = cx.listener;
    let evidence = match reason {
        StatusReason::ListenerHashStale { release, .. } => format!(
            "AutoscalingListener {}/{}: metadata.annotations {} {} / values-hash {} are not its scale set's under ARC {release}",
            l.namespace,
            l.name,
            crate::arc::ANNOTATION_RUNNER_SPEC_HASH,
            l.spec_hash.as_deref().unwrap_or("(none)"),
            l.values_hash.as_deref().unwrap_or("(none)")
        ),
        StatusReason::ListenerForOtherSet {
            points_at, newest, ..
        } => format!(
            "AutoscalingListener {}/{}: spec.ephemeralRunnerSetName {points_at}, the newest set is {newest}",
            l.namespace, l.name
        ),
        StatusReason::ListenerVersionMismatch {
            image,
            chart_version,
            ..
        } => format!(
            "AutoscalingListener {}/{}: spec.image {image}, metadata.labels app.kubernetes.io/version {chart_version}",
            l.namespace, l.name
        ),
        _ => return None,
    };
    let refuse = |why: String| Decision::Refuse {
        evidence: evidence.clone(),
        why,
    };
    let controller = match recreated(cx) {
        Ok(c) => c,
        Err(why) => return Some(refuse(why)),
    };
    if let StatusReason::ListenerVersionMismatch { chart_version, .. } = reason {
        let next = cx.controller.and_then(next_listener_tag);
        if !next
            .as_deref()
            .is_some_and(|t| same_version(t, chart_version))
        {
            return Some(refuse(format!(
                "the listener ARC makes again would run {} (the controller's listener image), not {chart_version}: upgrade both charts together",
                next.as_deref().unwrap_or("an unknown version")
            )));
        }
    }
    Some(Decision::Act {
        evidence: format!("{evidence}; {controller} makes it again"),
    })
}

/// `DeleteListenerPod` for `ListenerPodNotRunning`: only a crash loop, where the kubelet's
/// back-off holds the container (a Pod made again starts at once). The listener Pod's
/// `restartPolicy` is `Never` unless the listener template sets another
/// (`newScaleSetListenerPod`, 0.9.0 to 2ee6b3b8), so a crash loop is a template's
/// `Always`/`OnFailure`; `AutoscalingListenerReconciler.Reconcile` leaves a waiting container as
/// it is (0.12.1 to 2ee6b3b8: only `cs.State.Terminated` or `Evicted` deletes the Pod; 0.9.0:
/// phase Failed) and makes a Pod when there is none ("Creating a listener pod"). An image that
/// cannot be pulled, a container that cannot be created or a Pod that cannot be scheduled would
/// meet a new Pod the same way; an ended Pod ARC deletes itself.
pub fn delete_listener_pod(
    problem: &PodProblem,
    pod: &PodFacts,
    cx: &ListenerContext<'_>,
) -> Decision {
    let evidence = format!(
        "Pod {}/{}: {}",
        pod.namespace,
        pod.name,
        match problem {
            PodProblem::CrashLoop { restarts, last } => format!(
                "container listener state.waiting.reason CrashLoopBackOff, restartCount {restarts}, last terminated {}",
                last.as_deref().unwrap_or("(not said)")
            ),
            PodProblem::ImagePull { reason, .. } | PodProblem::ContainerError { reason, .. } =>
                format!("container listener state.waiting.reason {reason}"),
            PodProblem::Unschedulable { why } => format!("condition PodScheduled False ({why})"),
            PodProblem::Pending { reason } => format!(
                "status.phase Pending ({})",
                reason.as_deref().unwrap_or("no reason")
            ),
            PodProblem::Ended { phase, reason } => format!(
                "status.phase {phase} ({})",
                reason.as_deref().unwrap_or("no reason")
            ),
        }
    );
    let refuse = |why: &str| Decision::Refuse {
        evidence: evidence.clone(),
        why: why.to_string(),
    };
    match problem {
        PodProblem::CrashLoop { .. } => {}
        PodProblem::ImagePull { .. } => {
            return refuse("a new Pod would meet the same image pull error: fix the image");
        }
        PodProblem::ContainerError { .. } => {
            return refuse(
                "a new Pod would meet the same container config error: fix the listener template",
            );
        }
        PodProblem::Unschedulable { .. } => {
            return refuse(
                "a new Pod would meet the same scheduling constraints: free room or fix the template",
            );
        }
        PodProblem::Pending { .. } => {
            return refuse("the kubelet is still starting it: not held by a back-off");
        }
        PodProblem::Ended { .. } => {
            return refuse(
                "ARC's listener controller deletes an ended Pod itself and makes another",
            );
        }
    }
    if pod.deletion.is_some() {
        return refuse("already being deleted (metadata.deletionTimestamp): ARC is doing it");
    }
    // The listener controller (the same manager) makes the Pod again.
    match recreated(&ListenerContext {
        running_and_pending: 0,
        ..*cx
    }) {
        Ok(c) => Decision::Act {
            evidence: format!("{evidence}; {c} makes a new Pod, which starts without a back-off"),
        },
        Err(why) => Decision::Refuse { evidence, why },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn controller(ready: i64, strategy: UpdateStrategy, image: &str) -> ControllerSeen {
        ControllerSeen {
            facts: ControllerFacts {
                name: "arc-systems/arc-gha-rs-controller".into(),
                version: Some("0.14.2".into()),
                watch_namespace: None,
                listener_image: Some(image.into()),
                image_tag: None,
            },
            ready,
            strategy: Some(strategy),
        }
    }

    fn listener() -> ListenerFacts {
        ListenerFacts {
            namespace: "arc-systems".into(),
            name: "set-1-listener".into(),
            scale_set: ("arc-runners".into(), "set".into()),
            ephemeral_runner_set: "set-old".into(),
            image: Some("ghcr.io/actions/gha-runner-scale-set-controller:0.14.2".into()),
            chart_version: Some("0.13.0".into()),
            deletion: None,
            spec_hash: Some("a".into()),
            values_hash: None,
            phase: None,
        }
    }

    fn other_set() -> StatusReason {
        StatusReason::ListenerForOtherSet {
            listener: "arc-systems/set-1-listener".into(),
            points_at: "set-old".into(),
            exists: false,
            newest: "set-new".into(),
            arc_recreates: false,
        }
    }

    fn acts(d: &Option<Decision>) -> bool {
        matches!(d, Some(Decision::Act { .. }))
    }

    #[test]
    fn a_listener_is_deleted_only_when_a_running_controller_makes_it_again() {
        let l = listener();
        let image = "ghcr.io/actions/gha-runner-scale-set-controller:0.14.2";
        let running = controller(1, UpdateStrategy::Immediate, image);
        let cx = |c, n| ListenerContext {
            listener: &l,
            controller: c,
            running_and_pending: n,
        };
        assert!(acts(&delete_listener(&other_set(), &cx(Some(&running), 3))));
        assert!(!acts(&delete_listener(&other_set(), &cx(None, 0))));
        let stopped = controller(0, UpdateStrategy::Immediate, image);
        assert!(!acts(&delete_listener(
            &other_set(),
            &cx(Some(&stopped), 0)
        )));
        let eventual = controller(1, UpdateStrategy::Eventual, image);
        assert!(!acts(&delete_listener(
            &other_set(),
            &cx(Some(&eventual), 2)
        )));
        assert!(acts(&delete_listener(
            &other_set(),
            &cx(Some(&eventual), 0)
        )));
        let deleting = ListenerFacts {
            deletion: Some(Default::default()),
            ..listener()
        };
        let d = delete_listener(
            &other_set(),
            &ListenerContext {
                listener: &deleting,
                controller: Some(&running),
                running_and_pending: 0,
            },
        );
        assert!(!acts(&d));
    }

    #[test]
    fn a_version_mismatch_is_repaired_only_when_the_new_listener_runs_the_chart_version() {
        let l = listener();
        let reason = StatusReason::ListenerVersionMismatch {
            listener: "arc-systems/set-1-listener".into(),
            image: l.image.clone().unwrap(),
            chart_version: "0.13.0".into(),
        };
        let upgraded = controller(1, UpdateStrategy::Immediate, "x/controller:0.14.2");
        let d = delete_listener(
            &reason,
            &ListenerContext {
                listener: &l,
                controller: Some(&upgraded),
                running_and_pending: 0,
            },
        );
        let Some(Decision::Refuse { why, .. }) = d else {
            panic!("{d:?}")
        };
        assert!(why.contains("upgrade both charts together"), "{why}");
        let matching = controller(1, UpdateStrategy::Immediate, "x/controller:v0.13.0");
        let d = delete_listener(
            &reason,
            &ListenerContext {
                listener: &l,
                controller: Some(&matching),
                running_and_pending: 0,
            },
        );
        assert!(acts(&d));
    }

    #[test]
    fn only_a_crash_loop_deletes_the_listener_pod() {
        let l = listener();
        let c = controller(1, UpdateStrategy::Eventual, "x:0.14.2");
        let cx = ListenerContext {
            listener: &l,
            controller: Some(&c),
            running_and_pending: 4,
        };
        let pod = PodFacts {
            namespace: "arc-systems".into(),
            name: "set-1-listener".into(),
            phase: Some("Running".into()),
            reason: None,
            message: None,
            waiting: Some(("CrashLoopBackOff".into(), None)),
            terminated: Some("Error".into()),
            running: false,
            restarts: 5,
            unschedulable: None,
            deletion: None,
        };
        let crash = PodProblem::CrashLoop {
            restarts: 5,
            last: Some("Error".into()),
        };
        assert!(matches!(
            delete_listener_pod(&crash, &pod, &cx),
            Decision::Act { .. }
        ));
        for p in [
            PodProblem::ImagePull {
                reason: "ImagePullBackOff".into(),
                message: None,
            },
            PodProblem::ContainerError {
                reason: "CreateContainerConfigError".into(),
                message: None,
            },
            PodProblem::Unschedulable { why: "x".into() },
            PodProblem::Pending { reason: None },
            PodProblem::Ended {
                phase: "Failed".into(),
                reason: None,
            },
        ] {
            assert!(
                matches!(delete_listener_pod(&p, &pod, &cx), Decision::Refuse { .. }),
                "{p:?}"
            );
        }
        let none = ListenerContext {
            controller: None,
            ..cx
        };
        assert!(matches!(
            delete_listener_pod(&crash, &pod, &none),
            Decision::Refuse { .. }
        ));
    }
}
