//! The runners of one set, counted by state with a few names each.

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
    /// Runners being deleted.
    pub deleting: Examples,
    /// Runners whose spec cannot be decoded with ARC's Go types (and the first error).
    pub undecodable: Examples,
    pub first_decode_error: Option<String>,
}

impl Tally {
    pub(super) fn add(
        &mut self,
        name: &str,
        state: RunnerState,
        runner_id: i64,
        stale: Result<bool, String>,
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
            _ => {}
        }
    }
}
