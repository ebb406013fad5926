//! EphemeralRunners as ARC's EphemeralRunnerSet controller sees them, and which are stale.
//!
//! Pure core. [`RunnerState`] mirrors `newEphemeralRunnersByStates`
//! (ARC controllers/actions.github.com/ephemeralrunnerset_controller.go): deleting when
//! `deletionTimestamp` is set, else by `status.phase` (Running, Succeeded, Failed, Outdated), and
//! pending for `Pending` or no phase yet; a Running runner is idle while it has no job ([`has_job`]:
//! `status.jobId` from ARC 0.13.0, `status.jobRequestId` up to 0.12.1).
//! A runner is stale when its spec is not Semantic-equal to its set's runner spec, where the
//! runner's `proxySecretRef` is ignored: ARC's `createEphemeralRunners` sets it on each runner of a
//! set with a proxy, and never on the set.

use serde::Serialize;
use serde_json::Value;

use crate::equality;
use crate::layout::{Kind, Layout};
use crate::value::{DecodeError, Value as GoValue, decode};

/// The state of one runner, as the set's controller sorts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub enum RunnerState {
    Deleting,
    /// Running without a job.
    Idle,
    /// Running a job: finishes it before any cleanup.
    Busy,
    /// Phase Pending or no phase yet.
    Pending,
    /// Phase Succeeded.
    Finished,
    Failed,
    Outdated,
}

impl RunnerState {
    /// Mirrors `newEphemeralRunnersByStates` for one runner object.
    pub fn of(runner: &Value) -> RunnerState {
        if runner
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null())
        {
            return RunnerState::Deleting;
        }
        match runner.pointer("/status/phase").and_then(Value::as_str) {
            Some("Running") => {
                if has_job(runner) {
                    RunnerState::Busy
                } else {
                    RunnerState::Idle
                }
            }
            Some("Succeeded") => RunnerState::Finished,
            Some("Failed") => RunnerState::Failed,
            Some("Outdated") => RunnerState::Outdated,
            _ => RunnerState::Pending,
        }
    }

    /// [`RunnerState::of`] of the one [`crate::object::Object`], read from its `metadata` and
    /// `status` ([`crate::object::Object::parts_value`]: all `of` reads; the runner spec is not
    /// read) instead of its whole text written out and read again.
    pub fn of_object(runner: &crate::object::Object) -> RunnerState {
        RunnerState::of(&runner.parts_value(&["metadata", "status"]))
    }

    /// A cleanup removes these (idle and pending runners are recreated from the new spec).
    pub fn cleanup_removes(self) -> bool {
        matches!(self, RunnerState::Idle | RunnerState::Pending)
    }
}

/// Whether a runner is busy with a job, by the rule of the listener release that wrote its job:
/// ARC 0.9.0 to 0.12.1's listener (`Worker.HandleJobStarted`) writes `status.jobRequestId` and no
/// `jobId`, and their EphemeralRunnerSet controller calls a runner busy when `jobRequestId > 0`
/// (`deleteIdleEphemeralRunners`); from 0.13.0 the listener writes `jobId` beside it and the
/// controller asks `HasJob()` (`jobId` not empty). A runner whose job a 0.12 listener recorded is
/// running that job after an upgrade too, so either field says busy.
pub fn has_job(runner: &Value) -> bool {
    let job_id = runner.pointer("/status/jobId").and_then(Value::as_str);
    let request = runner
        .pointer("/status/jobRequestId")
        .and_then(Value::as_i64);
    job_id.is_some_and(|j| !j.is_empty()) || request.is_some_and(|r| r > 0)
}

/// The EphemeralRunnerSet a runner belongs to: its controller owner reference
/// ([`crate::owner::controller_of`]), when that is an EphemeralRunnerSet, as ARC's index of a set's
/// runners finds it.
pub fn owner_set(runner: &Value) -> Option<&str> {
    crate::owner::controller_of(runner)
        .filter(|c| c.is_arc("EphemeralRunnerSet"))?
        .name()
}

/// `status.runnerId` (0: never registered with GitHub, which can stall a cleanup, ARC #4653).
pub fn runner_id(runner: &Value) -> i64 {
    runner
        .pointer("/status/runnerId")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Whether the runner's spec differs from the set's runner spec under Semantic equality, with
/// `proxySecretRef` ignored. `set_spec` is the set's decoded `spec.ephemeralRunnerSpec`.
pub fn is_stale(
    layout: &Layout,
    set_spec: &GoValue,
    runner_spec_json: &str,
) -> Result<bool, DecodeError> {
    let mut runner = decode(layout, layout.ephemeral_runner_spec, runner_spec_json)?;
    let Kind::Struct(fields) = &layout.ty(layout.ephemeral_runner_spec).kind else {
        unreachable!("EphemeralRunnerSpec is a struct")
    };
    if let Some(i) = fields.iter().position(|f| f.name == "ProxySecretRef") {
        let set_value = set_spec.fields().expect("struct")[i].clone();
        runner.fields_mut().expect("struct")[i] = set_value;
    }
    Ok(!equality::semantic_equal(
        layout,
        layout.ephemeral_runner_spec,
        set_spec,
        &runner,
    ))
}

/// Runner counts of one set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunnerCounts {
    pub idle: usize,
    pub busy: usize,
    pub pending: usize,
    pub failed: usize,
    pub finished: usize,
    pub outdated: usize,
    pub deleting: usize,
    /// Non-deleting runners whose spec is not Semantic-equal to the set's.
    pub stale: usize,
    /// Stale runners that a cleanup would remove (idle or pending).
    #[serde(rename = "staleIdleOrPending")]
    pub stale_idle_or_pending: usize,
}

impl RunnerCounts {
    pub fn add(&mut self, state: RunnerState, stale: bool) {
        match state {
            RunnerState::Idle => self.idle += 1,
            RunnerState::Busy => self.busy += 1,
            RunnerState::Pending => self.pending += 1,
            RunnerState::Failed => self.failed += 1,
            RunnerState::Finished => self.finished += 1,
            RunnerState::Outdated => self.outdated += 1,
            RunnerState::Deleting => self.deleting += 1,
        }
        if stale && state != RunnerState::Deleting {
            self.stale += 1;
            if state.cleanup_removes() {
                self.stale_idle_or_pending += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_state_from_the_parts_is_the_state_of_the_text() {
        use crate::object::{Object, Origin};
        let cases = [
            json!({}),
            json!({"metadata": {"name": "r"}, "spec": {"image": "i"},
                "status": {"phase": "Running"}}),
            json!({"status": {"phase": "Running", "jobId": "42"}}),
            json!({"status": {"phase": "Running", "jobRequestId": 7}}),
            json!({"status": {"phase": "Running", "jobRequestId": 0, "jobId": ""}}),
            json!({"status": {"phase": "Succeeded"}}),
            json!({"status": {"phase": "Failed"}}),
            json!({"status": {"phase": "Outdated"}}),
            json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"},
                "status": {"phase": "Running"}}),
            json!({"metadata": {"deletionTimestamp": null}, "status": {"phase": 3}}),
            json!({"metadata": "x", "status": "Running"}),
        ];
        let mut states = std::collections::BTreeSet::new();
        for case in cases {
            let o = Object::from_manifest(&case, Origin::Cluster, None);
            let text: Value = serde_json::from_str(&o.json()).unwrap();
            let state = RunnerState::of_object(&o);
            assert_eq!(state, RunnerState::of(&text), "{case}");
            states.insert(format!("{state:?}"));
        }
        assert_eq!(states.len(), 7, "the cases reach every state: {states:?}");
    }

    #[test]
    fn states_follow_the_set_controller() {
        let r = |v: Value| RunnerState::of(&v);
        assert_eq!(r(json!({})), RunnerState::Pending);
        assert_eq!(
            r(json!({"status": {"phase": "Pending"}})),
            RunnerState::Pending
        );
        assert_eq!(
            r(json!({"status": {"phase": "Running"}})),
            RunnerState::Idle
        );
        assert_eq!(
            r(json!({"status": {"phase": "Running", "jobId": "42"}})),
            RunnerState::Busy
        );
        // ARC 0.9.0 to 0.12.1's listener records a job as jobRequestId alone.
        assert_eq!(
            r(json!({"status": {"phase": "Running", "jobRequestId": 7}})),
            RunnerState::Busy
        );
        assert_eq!(
            r(json!({"status": {"phase": "Running", "jobRequestId": 0, "jobId": ""}})),
            RunnerState::Idle
        );
        assert_eq!(
            r(json!({"status": {"phase": "Outdated"}})),
            RunnerState::Outdated
        );
        assert_eq!(
            r(
                json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}, "status": {"phase": "Running"}})
            ),
            RunnerState::Deleting
        );
    }

    #[test]
    fn proxy_secret_ref_is_not_staleness() {
        let l = Layout::arc();
        let set = decode(l, l.ephemeral_runner_spec, r#"{"proxy":{"http":{"url":"http://p"}},"spec":{"containers":[{"name":"r","image":"a"}]}}"#).unwrap();
        let runner = r#"{"proxy":{"http":{"url":"http://p"}},"proxySecretRef":"set-runner-proxy","spec":{"containers":[{"name":"r","image":"a"}]}}"#;
        assert!(!is_stale(l, &set, runner).unwrap());
        let changed = r#"{"proxy":{"http":{"url":"http://p"}},"proxySecretRef":"x","spec":{"containers":[{"name":"r","image":"b"}]}}"#;
        assert!(is_stale(l, &set, changed).unwrap());
    }
}
