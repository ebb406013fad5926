//! `repair`'s rule for an object that hangs in deletion on ARC's finalizers (`FinalizersLeft`,
//! `ScaleSetDeleting`): when removing them is safe, from what was read. Pure core; the ops layer
//! writes the removal as a merge patch of `metadata.finalizers` that carries the resourceVersion
//! read (409 when anything wrote the object since).
//!
//! What each finalizer waits for, read at gha-runner-scale-set-0.9.0, 0.14.2 and master 2ee6b3b8
//! (controllers/actions.github.com): on an EphemeralRunner, `EphemeralRunnerReconciler.Reconcile`
//! removes the runner from GitHub (`cleanupRunnerFromService`) and deletes its Pod and secrets
//! (`cleanupResources`); on an EphemeralRunnerSet, `EphemeralRunnerSetReconciler.Reconcile`
//! deletes its runners (`cleanUpEphemeralRunners`); on an AutoscalingRunnerSet,
//! `AutoscalingRunnerSetReconciler.Reconcile` deletes its listener (`cleanupListener`) and its
//! sets (`cleanupEphemeralRunnerSets`, master `cleanupEphemeralRunnerSet`), then
//! `removeFinalizersFromDependentResources`; on an AutoscalingListener,
//! `AutoscalingListenerReconciler.cleanupResources` deletes its Pod first. All four controllers
//! run in the one manager Deployment.

use crate::status::listener::finalizer_controller;

use super::listener::ControllerSeen;
use super::{Decision, RunnerSeen};

/// What the finalizers of an object wait for, as read: how it is named, and how many of it are
/// left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// `its Pod arc-runners/x`, `its EphemeralRunners`, ...
    pub what: String,
    pub left: usize,
}

/// An object that hangs in deletion, and what its finalizers' removal decides.
#[derive(Debug, Clone)]
pub struct Held<'a> {
    /// `AutoscalingRunnerSet`, `EphemeralRunnerSet`, `EphemeralRunner`, `AutoscalingListener`.
    pub kind: &'a str,
    /// `namespace/name`.
    pub name: String,
    /// `metadata.deletionTimestamp`, when set.
    pub deleting_since: Option<String>,
    /// `metadata.finalizers`.
    pub finalizers: Vec<String>,
    /// The controller Deployment that reconciles the namespace (`None`: none).
    pub controller: Option<&'a ControllerSeen>,
    pub guarded: Guarded,
    /// The runners whose fate the removal decides: the runner itself, the set's runners, the
    /// scale set's sets' runners (none for a listener). Their Pods are garbage-collected with
    /// them.
    pub runners: Vec<&'a RunnerSeen>,
}

/// The finalizers of `held` to remove (ARC's: [`finalizer_controller`] knows who removes them)
/// and to keep (any other: who removes it is not known).
pub fn arc_finalizers(held: &Held<'_>) -> (Vec<String>, Vec<String>) {
    held.finalizers
        .iter()
        .cloned()
        .partition(|f| finalizer_controller(f, held.kind).is_some())
}

/// `RemoveFinalizer`: ARC's finalizers of an object already being deleted, when the controller
/// that removes them does not run (none reconciles the namespace, or none of its replicas is
/// ready) or what they wait for is gone; never when a runner whose fate it decides has a job
/// (`status.jobId`, `status.jobRequestId` > 0: [`RunnerSeen::has_job`]) or a Pod that has not
/// terminated: the runner and its Pod would be deleted in the middle of the job.
pub fn remove_finalizers(held: &Held<'_>) -> Decision {
    let (remove, keep) = arc_finalizers(held);
    let controller = match held.controller {
        None => "no controller Deployment reconciles the namespace".to_string(),
        Some(c) if c.runs() => format!("{} runs", c.said()),
        Some(c) => format!("{} does not run", c.said()),
    };
    let evidence = format!(
        "{} {}: metadata.deletionTimestamp {}, metadata.finalizers [{}]; {controller}; {}: {} left",
        held.kind,
        held.name,
        held.deleting_since.as_deref().unwrap_or("(none)"),
        held.finalizers.join(", "),
        held.guarded.what,
        held.guarded.left
    );
    let refuse = |why: String| Decision::Refuse {
        evidence: evidence.clone(),
        why,
    };
    if held.deleting_since.is_none() {
        return refuse(
            "not being deleted: a finalizer is removed only from an object already being deleted"
                .into(),
        );
    }
    if remove.is_empty() {
        return refuse(format!(
            "none of its finalizers is ARC's ({}): who removes them is not known",
            keep.join(", ")
        ));
    }
    if let Some(r) = held.runners.iter().find(|r| r.has_job()) {
        return refuse(format!(
            "EphemeralRunner {} has a job: it would be deleted in the middle of it",
            r.name
        ));
    }
    if let Some(r) = (held.runners.iter())
        .find(|r| !matches!(r.pod_phase.as_deref(), None | Some("Succeeded" | "Failed")))
    {
        return refuse(format!(
            "the Pod of EphemeralRunner {} has not terminated: it may still run a job",
            r.name
        ));
    }
    let runs = held.controller.is_some_and(ControllerSeen::runs);
    if runs && held.guarded.left > 0 {
        return refuse(format!(
            "the controller runs and {} are still there: ARC removes the finalizers once they are gone",
            held.guarded.what
        ));
    }
    let kept = match keep.as_slice() {
        [] => String::new(),
        k => format!("; kept (not ARC's): {}", k.join(", ")),
    };
    Decision::Act {
        evidence: format!(
            "{evidence}; removes {}{kept} (removed by {})",
            remove.join(", "),
            finalizer_controller(&remove[0], held.kind).unwrap_or("ARC")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impact::UpdateStrategy;
    use crate::status::install::ControllerFacts;

    fn controller(ready: i64) -> ControllerSeen {
        ControllerSeen {
            facts: ControllerFacts {
                name: "arc-systems/c".into(),
                version: Some("0.14.2".into()),
                watch_namespace: None,
                listener_image: None,
                image_tag: None,
            },
            ready,
            strategy: Some(UpdateStrategy::Immediate),
        }
    }

    fn held<'a>(
        c: Option<&'a ControllerSeen>,
        left: usize,
        runners: Vec<&'a RunnerSeen>,
    ) -> Held<'a> {
        Held {
            kind: "EphemeralRunnerSet",
            name: "arc-runners/set".into(),
            deleting_since: Some("2026-12-02T10:00:00Z".into()),
            finalizers: vec![
                "ephemeralrunner.actions.github.com/finalizer".into(),
                "example.com/other".into(),
            ],
            controller: c,
            guarded: Guarded {
                what: "its EphemeralRunners".into(),
                left,
            },
            runners,
        }
    }

    fn removes(d: &Decision) -> bool {
        matches!(d, Decision::Act { .. })
    }

    #[test]
    fn removed_when_the_controller_is_gone_or_what_it_guards_is_gone() {
        let idle = RunnerSeen {
            name: "idle".into(),
            ..RunnerSeen::default()
        };
        let (up, down) = (controller(1), controller(0));
        assert!(removes(&remove_finalizers(&held(None, 1, vec![&idle]))));
        assert!(removes(&remove_finalizers(&held(
            Some(&down),
            1,
            vec![&idle]
        ))));
        assert!(removes(&remove_finalizers(&held(Some(&up), 0, vec![]))));
        assert!(!removes(&remove_finalizers(&held(
            Some(&up),
            1,
            vec![&idle]
        ))));
        let h = held(None, 0, vec![]);
        assert_eq!(
            arc_finalizers(&h),
            (
                vec!["ephemeralrunner.actions.github.com/finalizer".to_string()],
                vec!["example.com/other".to_string()]
            )
        );
    }

    #[test]
    fn never_with_a_runner_that_has_a_job_or_a_live_pod_nor_when_not_deleting() {
        let busy = RunnerSeen {
            name: "busy".into(),
            job_id: Some("j".into()),
            ..RunnerSeen::default()
        };
        let old = RunnerSeen {
            name: "old".into(),
            job_request_id: 4,
            ..RunnerSeen::default()
        };
        let live = RunnerSeen {
            name: "live".into(),
            pod_phase: Some("Running".into()),
            ..RunnerSeen::default()
        };
        for r in [&busy, &old, &live] {
            assert!(
                !removes(&remove_finalizers(&held(None, 0, vec![r]))),
                "{r:?}"
            );
        }
        let not_deleting = Held {
            deleting_since: None,
            ..held(None, 0, vec![])
        };
        assert!(!removes(&remove_finalizers(&not_deleting)));
        let foreign = Held {
            finalizers: vec!["example.com/other".into()],
            ..held(None, 0, vec![])
        };
        assert!(!removes(&remove_finalizers(&foreign)));
    }
}
