//! The runners of one set, counted by state with a few names each.

use super::{Backoff, Deletion, FailedRunner, RunnerExtra};
use crate::runners::{RunnerCounts, RunnerState};

/// At most this many runner names are kept per reason.
const EXAMPLES: usize = 3;

/// A count of runners with a few of their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Examples {
    pub count: usize,
    pub names: Vec<String>,
}

impl Examples {
    pub(super) fn add(&mut self, name: &str) {
        self.count += 1;
        if self.names.len() < EXAMPLES {
            self.names.push(name.to_string());
        }
    }
}

/// The runners of one set, as far as status needs them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub counts: RunnerCounts,
    /// Busy runners on an older spec: ARC lets them finish their job.
    pub busy_stale: Examples,
    /// Idle or pending runners on an older spec: a cleanup removes them.
    pub stale_idle_or_pending: Examples,
    /// Idle or pending runners with `status.runnerId` 0 (ARC #4653).
    pub unregistered: Examples,
    /// Runners in phase Outdated.
    pub outdated: Examples,
    /// The same, by the revision each was made for (`actions.github.com/actionable-revision`,
    /// [`crate::next::runner_revision`]): the next release holds the set Outdated only for those
    /// not older than the applied revision ([`Tally::current_outdated`]).
    pub outdated_by_revision: std::collections::BTreeMap<i64, Examples>,
    /// Runners being deleted.
    pub deleting: Examples,
    /// Runners whose spec cannot be decoded with ARC's Go types (and the first error).
    pub undecodable: Examples,
    pub first_decode_error: Option<String>,
    /// Runners in phase Failed, and the oldest of them (by creationTimestamp, then name).
    pub failed: Examples,
    pub oldest_failed: Option<FailedRunner>,
    /// Runners being deleted with finalizers left, and the first one's deletion.
    pub held: Examples,
    pub first_held: Option<Deletion>,
    /// Runners in phase Running whose Pod is not there and no failure is recorded (when the Pods
    /// were read).
    pub pod_missing: Examples,
    /// Runners in phase Running or Pending whose Pod is not there and whose `status.failures`
    /// records failed Pods: in ARC's failure back-off; the first one's.
    pub backing_off: Examples,
    pub first_backoff: Option<Backoff>,
    /// Runners (pending, or counted running) whose Pod cannot be scheduled, the first one's
    /// reason, and how many of them are in phase Running.
    pub unschedulable: Examples,
    pub first_unschedulable: Option<String>,
    pub unschedulable_running: usize,
}

impl Tally {
    /// An Outdated runner made for `revision` ([`Tally::outdated_by_revision`]).
    pub(super) fn add_outdated_revision(&mut self, name: &str, revision: i64) {
        self.outdated_by_revision
            .entry(revision)
            .or_default()
            .add(name);
    }

    /// The Outdated runners split as the next release's `newEphemeralRunnersByStates` splits them
    /// against the applied revision (#4644): those that hold the set Outdated, and the
    /// `staleOutdated` ones it deletes ([`crate::next::stale_outdated`]).
    pub fn current_outdated(&self, applied: i64) -> (Examples, Examples) {
        let (mut current, mut stale) = (Examples::default(), Examples::default());
        for (revision, runners) in &self.outdated_by_revision {
            let to = if crate::next::stale_outdated(*revision, applied) {
                &mut stale
            } else {
                &mut current
            };
            to.count += runners.count;
            for name in &runners.names {
                if to.names.len() < EXAMPLES {
                    to.names.push(name.clone());
                }
            }
        }
        (current, stale)
    }

    /// A runner against its Pod (`None`: no Pod of its name; `Some(why)`: there, `why` its
    /// Unschedulable message when it cannot be scheduled), as ARC's EphemeralRunner controller
    /// sees it (`Reconcile`, 0.14.2): a runner that is not done and has no Pod waits out its
    /// failure back-off when `status.failures` records any, else gets its Pod made again; a Pod
    /// with no container status yet leaves the runner's phase as it was (`cs == nil`), so a Pod
    /// made again after its node was lost can be Pending while the runner stays Running.
    pub(super) fn add_pod(
        &mut self,
        name: &str,
        state: RunnerState,
        pod: Option<&Option<String>>,
        extra: Option<&RunnerExtra>,
    ) {
        let failures = extra.map_or(0, |e| e.failures);
        // Only 0.12.0 on back off (`failedRunnerBackoff`), and only they record when each Pod
        // failed (`Failures map[string]metav1.Time`); 0.9.0 to 0.11.0 record `true` per Pod
        // (`map[string]bool`) and make the Pod again at once. So a failure with a time is the
        // back-off, whichever release wrote it; without one the Pod is simply missing.
        let timed = extra.is_some_and(|e| e.last_failure.is_some());
        match (state, pod) {
            (RunnerState::Idle | RunnerState::Busy | RunnerState::Pending, None)
                if failures > 0 && timed =>
            {
                self.backing_off.add(name);
                self.first_backoff.get_or_insert_with(|| {
                    let e = extra.cloned().unwrap_or_default();
                    Backoff {
                        name: name.to_string(),
                        failures,
                        last_failure: e.last_failure,
                        reason: e.reason,
                        message: e.message,
                    }
                });
            }
            (RunnerState::Idle | RunnerState::Busy, None) => self.pod_missing.add(name),
            (RunnerState::Idle | RunnerState::Busy | RunnerState::Pending, Some(Some(why))) => {
                self.unschedulable.add(name);
                if state != RunnerState::Pending {
                    self.unschedulable_running += 1;
                }
                self.first_unschedulable.get_or_insert_with(|| why.clone());
            }
            _ => {}
        }
    }

    pub(super) fn add(
        &mut self,
        name: &str,
        state: RunnerState,
        runner_id: i64,
        stale: Result<bool, String>,
        extra: Option<&RunnerExtra>,
    ) {
        let stale_flag = match &stale {
            Ok(s) => *s,
            Err(e) => {
                if state != RunnerState::Deleting {
                    self.undecodable.add(name);
                    self.first_decode_error.get_or_insert_with(|| e.clone());
                }
                false
            }
        };
        self.counts.add(state, stale_flag);
        if stale_flag && state == RunnerState::Busy {
            self.busy_stale.add(name);
        }
        if stale_flag && state.cleanup_removes() {
            self.stale_idle_or_pending.add(name);
        }
        if state.cleanup_removes() && runner_id == 0 {
            self.unregistered.add(name);
        }
        match state {
            RunnerState::Outdated => self.outdated.add(name),
            RunnerState::Deleting => self.deleting.add(name),
            RunnerState::Failed => {
                self.failed.add(name);
                let extra = extra.cloned().unwrap_or_default();
                let older = match &self.oldest_failed {
                    None => true,
                    // RFC 3339 times of the API server compare as text; a missing one last.
                    Some(o) => match (&extra.created, &o.created) {
                        (Some(a), Some(b)) => (a.as_str(), name) < (b.as_str(), o.name.as_str()),
                        (Some(_), None) => true,
                        (None, Some(_)) => false,
                        (None, None) => name < o.name.as_str(),
                    },
                };
                if older {
                    self.oldest_failed = Some(FailedRunner {
                        name: name.to_string(),
                        created: extra.created,
                        reason: extra.reason,
                        message: extra.message,
                        failures: extra.failures,
                    });
                }
            }
            _ => {}
        }
        if let Some(d) = extra
            .and_then(|e| e.deletion.as_ref())
            .filter(|d| !d.finalizers.is_empty())
        {
            self.held.add(name);
            self.first_held.get_or_insert_with(|| d.clone());
        }
    }
}
