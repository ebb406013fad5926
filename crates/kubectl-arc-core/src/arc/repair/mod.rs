//! `repair`'s rules: which of the fixes ARC users run by hand is safe on one object, from what was
//! read of it. Pure core; the write itself is guarded by the cluster layer (a delete with the
//! object's uid and resourceVersion as preconditions, so a runner that got a job after it was
//! read is refused by the API server, 409). The listener's rules are in [`listener`], the
//! finalizers' in [`finalizer`].

use serde::Serialize;

pub mod finalizer;
pub mod listener;

/// The annotation that names the request of the run that wrote an object (`--request-id`).
pub const ANNOTATION_REPAIR_ID: &str = "kubectl-arc/repair-id";
/// The annotation that says why: the `status` reason the repair fixes, then `--reason`.
pub const ANNOTATION_REPAIR_REASON: &str = "kubectl-arc/repair-reason";

/// What `repair` may do to one object for one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Write it: what was read that makes it safe.
    Act { evidence: String },
    /// Not provably safe: what was read, and why.
    Refuse { evidence: String, why: String },
}

/// The repair annotations written on every object `repair` writes: `request_id`, and the
/// `status` reason with `--reason` after it.
pub fn repair_annotations(request_id: &str, reason: &str, text: Option<&str>) -> serde_json::Value {
    let why = match text {
        Some(t) if !t.is_empty() => format!("{reason}: {t}"),
        _ => reason.to_string(),
    };
    serde_json::json!({ ANNOTATION_REPAIR_ID: request_id, ANNOTATION_REPAIR_REASON: why })
}

/// An EphemeralRunner as `repair` reads it, and its Pod.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunnerSeen {
    pub name: String,
    /// `status.phase`.
    pub phase: Option<String>,
    /// `status.jobId` (written by the listener of 0.13.0 on when a job starts).
    pub job_id: Option<String>,
    /// `status.jobRequestId` (the only job field 0.9.0 to 0.12.1's listener writes).
    pub job_request_id: i64,
    /// `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `status.failures`: how many Pods of it failed.
    pub failures: usize,
    /// The phase of the Pod named like it (`None`: no Pod).
    pub pod_phase: Option<String>,
}

impl RunnerSeen {
    /// A job is assigned: `status.jobId` set or `status.jobRequestId > 0` (ARC's `HasJob()` reads
    /// `JobID`; 0.9.0 to 0.12.1 record only the request id).
    pub fn has_job(&self) -> bool {
        self.job_id.as_deref().is_some_and(|j| !j.is_empty()) || self.job_request_id > 0
    }
}

/// What `repair` may do to one runner for `RunnersFailed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunnerDecision {
    /// Not in phase Failed: not this repair's.
    NotFailed,
    /// Delete it: in phase Failed, no job, no Pod that runs.
    Delete { evidence: String },
    /// In phase Failed but not provably safe to delete.
    Refuse { evidence: String, why: String },
}

/// `RunnersFailed`'s repair of one runner: a runner in phase Failed holds a place of its set's
/// `spec.replicas` (`scaleTotal()` counts it), and ARC never deletes it; deleting it lets ARC
/// create a runner in its place. Never a runner with a job (`status.jobId`, or
/// `status.jobRequestId` from 0.9.0 to 0.12.1's listener), never one whose Pod is there and not
/// terminated (Pending, Running, or a phase not known), never one already being deleted.
pub fn failed_runner(r: &RunnerSeen) -> RunnerDecision {
    if r.phase.as_deref() != Some("Failed") {
        return RunnerDecision::NotFailed;
    }
    let pod = match r.pod_phase.as_deref() {
        None => "no Pod".to_string(),
        Some(p) => format!("its Pod in phase {p}"),
    };
    let evidence = format!(
        "status.phase Failed, {} failed Pod(s) in status.failures, {}, {pod}",
        r.failures,
        match (&r.job_id, r.job_request_id) {
            (Some(j), _) if !j.is_empty() => format!("status.jobId {j}"),
            (_, id) if id > 0 => format!("status.jobRequestId {id}"),
            _ => "no status.jobId nor status.jobRequestId".to_string(),
        }
    );
    let refuse = |why: &str| RunnerDecision::Refuse {
        evidence: evidence.clone(),
        why: why.to_string(),
    };
    if r.deleting {
        return refuse("already being deleted (metadata.deletionTimestamp)");
    }
    if r.has_job() {
        return refuse("a job is assigned to it: its job would be lost");
    }
    match r.pod_phase.as_deref() {
        None | Some("Succeeded" | "Failed") => RunnerDecision::Delete { evidence },
        Some(_) => refuse("its Pod has not terminated: it may still run a job"),
    }
}

/// What a selector like the usual cleanup CronJob's (every EphemeralRunner with a past failure,
/// `status.failures` not empty, or in phase Failed) takes that this repair does not: the runners
/// it would delete besides, and how many of them have a job.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobBesides {
    pub runners: Vec<String>,
    pub with_a_job: usize,
}

/// [`CronJobBesides`] over a set's runners.
pub fn cronjob_besides(runners: &[RunnerSeen]) -> CronJobBesides {
    let mut besides = CronJobBesides::default();
    for r in runners {
        let taken = r.failures > 0 || r.phase.as_deref() == Some("Failed");
        if taken && !matches!(failed_runner(r), RunnerDecision::Delete { .. }) {
            besides.runners.push(r.name.clone());
            besides.with_a_job += usize::from(r.has_job());
        }
    }
    besides
}

/// `CountersDisagree`'s repair: the counts ARC's `updateStatus` writes for the runners listed
/// (`newEphemeralRunnersByStates`, [`crate::runners::RunnerState::of`]: pending, running = idle +
/// busy, failed; `currentReplicas` their sum), the very comparison `status` makes. `None` when
/// the set's status already says so (nothing to write).
pub fn counters_to_write<'a>(
    written: crate::status::Counters,
    runners: impl IntoIterator<Item = &'a serde_json::Value>,
) -> Option<crate::status::Counters> {
    use crate::runners::{RunnerCounts, RunnerState};
    let mut c = RunnerCounts::default();
    for r in runners {
        c.add(RunnerState::of(r), false);
    }
    let listed = crate::status::Counters::of(c.pending, c.idle + c.busy, c.failed);
    (listed != written).then_some(listed)
}

/// The status fields the counters repair writes, as ARC's `updateStatus` names them.
pub fn counters_status(c: &crate::status::Counters) -> serde_json::Value {
    serde_json::json!({
        "currentReplicas": c.current,
        "pendingEphemeralRunners": c.pending,
        "runningEphemeralRunners": c.running,
        "failedEphemeralRunners": c.failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(name: &str) -> RunnerSeen {
        RunnerSeen {
            name: name.into(),
            phase: Some("Failed".into()),
            failures: 6,
            ..RunnerSeen::default()
        }
    }

    #[test]
    fn a_failed_runner_without_a_job_or_a_live_pod_is_deleted() {
        assert!(matches!(
            failed_runner(&failed("a")),
            RunnerDecision::Delete { .. }
        ));
        let ended = RunnerSeen {
            pod_phase: Some("Failed".into()),
            ..failed("b")
        };
        assert!(matches!(
            failed_runner(&ended),
            RunnerDecision::Delete { .. }
        ));
    }

    #[test]
    fn a_job_a_live_pod_or_a_deletion_refuses() {
        for r in [
            RunnerSeen {
                job_id: Some("7e1c".into()),
                ..failed("job")
            },
            RunnerSeen {
                job_request_id: 902,
                ..failed("old-listener")
            },
            RunnerSeen {
                pod_phase: Some("Running".into()),
                ..failed("pod")
            },
            RunnerSeen {
                pod_phase: Some("Unknown".into()),
                ..failed("unknown-pod")
            },
            RunnerSeen {
                deleting: true,
                ..failed("deleting")
            },
        ] {
            assert!(
                matches!(failed_runner(&r), RunnerDecision::Refuse { .. }),
                "{r:?}"
            );
        }
        let running = RunnerSeen {
            phase: Some("Running".into()),
            ..RunnerSeen::default()
        };
        assert_eq!(failed_runner(&running), RunnerDecision::NotFailed);
    }

    #[test]
    fn the_cronjob_would_also_take_runners_with_a_past_failure_and_with_a_job() {
        let runners = [
            failed("deleted"),
            RunnerSeen {
                job_id: Some("x".into()),
                ..failed("failed-with-job")
            },
            RunnerSeen {
                name: "busy-once-failed".into(),
                phase: Some("Running".into()),
                failures: 1,
                job_id: Some("y".into()),
                ..RunnerSeen::default()
            },
            RunnerSeen {
                name: "idle".into(),
                phase: Some("Running".into()),
                ..RunnerSeen::default()
            },
        ];
        let b = cronjob_besides(&runners);
        assert_eq!(b.runners, ["failed-with-job", "busy-once-failed"]);
        assert_eq!(b.with_a_job, 2);
    }

    #[test]
    fn counters_are_written_as_arc_counts_the_runners_listed() {
        use crate::status::Counters;
        let runners = [
            serde_json::json!({"status": {"phase": "Running"}}),
            serde_json::json!({"status": {"phase": "Running", "jobId": "x"}}),
            serde_json::json!({"status": {"phase": "Pending"}}),
            serde_json::json!({"status": {}}),
            serde_json::json!({"status": {"phase": "Failed"}}),
            serde_json::json!({"status": {"phase": "Succeeded"}}),
            serde_json::json!({"metadata": {"deletionTimestamp": "2026-12-02T10:00:00Z"}, "status": {"phase": "Running"}}),
        ];
        let ghost = Counters::of(0, 7, 0);
        let want = Counters::of(2, 2, 1);
        assert_eq!(counters_to_write(ghost, &runners), Some(want));
        assert_eq!(counters_to_write(want, &runners), None);
        assert_eq!(
            counters_status(&want),
            serde_json::json!({"currentReplicas": 5, "pendingEphemeralRunners": 2,
                "runningEphemeralRunners": 2, "failedEphemeralRunners": 1})
        );
    }
}
