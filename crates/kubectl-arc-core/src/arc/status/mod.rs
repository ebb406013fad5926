//! `status`'s verdict on each EphemeralRunnerSet: where it stands in the revision handshake, how its
//! runners are spread over the states ARC's controller sees, and why it is not Synced.
//!
//! Pure core: objects in (as JSON text), verdicts out; the caller hands in the clock. Runner states
//! mirror `newEphemeralRunnersByStates` ([`crate::runners::RunnerState`]) and staleness is Semantic
//! inequality with the set's `spec.ephemeralRunnerSpec` ([`crate::runners::is_stale`]); the cleanup rules quoted in the
//! reasons are those of `cleanUpEphemeralRunners` in ARC's
//! controllers/actions.github.com/ephemeralrunnerset_controller.go.
//!
//! A [`Census`] aggregates runners per set as they stream in, so a list of 50,000 runners never has
//! to be held: a runner whose spec is byte-for-byte the set's is not stale without decoding, and the
//! verdict for any other spec is decoded once per set and distinct spec. In live mode (watch) it
//! keeps one small record per runner, so that a change or deletion can be taken back.
//!
//! Split by what each part decides: [`facts`] reads a set and a runner from their JSON text,
//! [`tally`] counts a set's runners by state, [`classify`] gives one set its state and reasons,
//! [`census`] keeps sets and runners as they stream in; a row ([`SetStatus`]), its [`State`] and
//! [`StatusReason`]s are here. `bump`'s decision is [`crate::bump`].

use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::gotime;
use crate::runners::RunnerCounts;

pub mod census;
pub mod classify;
pub mod facts;
#[cfg(test)]
mod hash_era_tests;
pub mod install;
pub mod listener;
#[cfg(test)]
mod listener_tests;
pub mod tally;
#[cfg(test)]
mod tests;
pub mod wait;

pub use census::*;
pub use classify::*;
pub use facts::*;
pub use listener::{
    Deletion, ListenerFacts, ListenerView, PodFacts, PodProblem, PodView, ScaleSetFacts,
};
pub use tally::*;

/// Where a set stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum State {
    /// applied >= spec, and no idle or pending runner runs an older spec (busy ones finish first).
    Synced,
    /// spec > applied: a cleanup is requested and not acknowledged yet.
    Pending,
    /// The revisions agree, yet idle or pending runners run an older spec.
    Stale,
    /// Still carries the integrity-hash annotation: `kubectl arc migrate` has not run.
    Legacy,
    /// applied > spec, or a field ARC's Go types cannot decode.
    Invalid,
    /// `status.phase` is Outdated: ARC creates no runners until the runner spec changes.
    Outdated,
    /// Being deleted (a deletionTimestamp): ARC up to 0.14 replaced it, or its scale set is going.
    Deleting,
    /// Made by ARC up to 0.14 (`actions.github.com/runner-spec-hash`): a runner-spec change
    /// replaces the whole set; there is no revision to acknowledge, bump or migrate.
    SpecHash,
    /// The AutoscalingRunnerSet's desired runner spec differs from the set's under Semantic
    /// equality: ARC's controller has not written the new spec yet.
    Propagating,
    /// Gone: `--watch` prints a set's row one last time when it is deleted.
    Deleted,
    /// ARC up to 0.14: the AutoscalingRunnerSet's `RunnerSetSpecHash()` differs from the newest
    /// set's `runner-spec-hash`: ARC replaces the set (has not acted yet, or waits for running
    /// jobs under `--update-strategy=eventual`).
    Replacing,
    /// ARC up to 0.14: an old set (not the newest of its scale set) scaled to 0 with runners left.
    Draining,
    /// Still under the integrity-hash mechanism, and its AutoscalingRunnerSet's template does not
    /// survive Go's JSON round trip: ARC's two controllers recycle its runners forever.
    RecycleLoop,
    /// An AutoscalingRunnerSet without an EphemeralRunnerSet, not registered with GitHub yet (no
    /// `runner-scale-set-id`): ARC creates the set once its listener has registered it.
    Registering,
    /// An AutoscalingRunnerSet registered with GitHub whose EphemeralRunnerSet ARC's controller
    /// has not created yet.
    Creating,
    /// The revisions are settled or on their way, but the scale set has no working listener and
    /// ARC makes one by itself: it has none (ARC creates it, or waits for running jobs first), its
    /// Pod is missing or starting, or it serves another set and ARC compares the whole spec.
    ListenerDown,
    /// The scale set's listener cannot work until a person acts: its Pod crashes, its image
    /// cannot be pulled, its container cannot be made or it cannot be scheduled, or (ARC up to
    /// 0.14) it serves a set that is not the newest or does not exist.
    ListenerFailing,
    /// Failed EphemeralRunners count toward the set's replicas (`scaleTotal`): ARC creates fewer
    /// runners than asked until they are deleted.
    RunnersFailed,
    /// Runners ARC counts running (phase Running) run no Pod: their Pod is missing, in failure
    /// back-off, or made again and unschedulable; ARC's EphemeralRunner controller makes the Pod
    /// again by itself (after its back-off), the scheduler places it when a node fits.
    RunnersNotRunning,
    /// The release that judges the scale set (the controller Deployment that reconciles its
    /// namespace, or `--arc-version`) does not allow its `app.kubernetes.io/version`: its
    /// controller deletes the scale set with its sets and runners (the version check of
    /// `AutoscalingRunnerSetReconciler.Reconcile`, [`StatusReason::DeletedByVersionCheck`]).
    VersionRejected,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Synced => "Synced",
            State::Pending => "Pending",
            State::Stale => "Stale",
            State::Legacy => "Legacy",
            State::Invalid => "Invalid",
            State::Outdated => "Outdated",
            State::Deleting => "Deleting",
            State::SpecHash => "SpecHash",
            State::Propagating => "Propagating",
            State::Deleted => "Deleted",
            State::RecycleLoop => "RecycleLoop",
            State::Registering => "Registering",
            State::Creating => "Creating",
            State::Replacing => "Replacing",
            State::Draining => "Draining",
            State::ListenerDown => "ListenerDown",
            State::ListenerFailing => "ListenerFailing",
            State::RunnersFailed => "RunnersFailed",
            State::RunnersNotRunning => "RunnersNotRunning",
            State::VersionRejected => "VersionRejected",
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set's row: what `status` prints and `-o json` carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetStatus {
    pub namespace: String,
    pub name: String,
    /// `spec.actionableRevision` (`null` when it is not an integer).
    pub spec_revision: Option<i64>,
    /// `status.appliedActionableRevision` (`null` when it is not an integer).
    pub applied_revision: Option<i64>,
    pub state: State,
    pub runners: RunnerCounts,
    /// Why the set is not Synced (and, for a Synced set, busy runners still on an older spec).
    /// Serialized as `{"reason": code, "message": English}` ([`crate::render::reason`]).
    pub reasons: Vec<StatusReason>,
    /// `status.phase`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_revision_written_by: Option<FieldWriter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    /// Seconds since creation, when the clock and the timestamp are known (table only).
    #[serde(skip)]
    pub age_seconds: Option<i64>,
    /// What the row is, and the hashes that judge it, where known.
    #[serde(flatten)]
    pub ids: RowIds,
}

/// What a row is (an EphemeralRunnerSet, or an AutoscalingRunnerSet without one), its scale set,
/// and the hashes that judge it, where known (`-o json|yaml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowIds {
    /// `EphemeralRunnerSet`, or `AutoscalingRunnerSet` for a scale set without a set
    /// (Registering, Creating, and the like).
    pub kind: &'static str,
    /// The AutoscalingRunnerSet's name (same namespace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_set: Option<String>,
    /// ARC up to 0.14: the release whose `RunnerSetSpecHash()` judged the set; `next` when the
    /// next release judged it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Where the next release was stated (`--arc-version next`, or the controller Deployment
    /// recognised as running it, and why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release_from: Option<String>,
    /// The set's `actions.github.com/runner-spec-hash` annotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_spec_hash: Option<String>,
    /// That release's `RunnerSetSpecHash()` of the AutoscalingRunnerSet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desired_runner_spec_hash: Option<String>,
    /// The set's `actions.github.com/integrity-hash` annotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity_hash: Option<String>,
}

impl Default for RowIds {
    fn default() -> RowIds {
        RowIds {
            kind: crate::arc::KIND_EPHEMERAL_RUNNER_SET,
            scale_set: None,
            release: None,
            release_from: None,
            runner_spec_hash: None,
            desired_runner_spec_hash: None,
            integrity_hash: None,
        }
    }
}

impl SetStatus {
    /// What `status --wait` waits for: Synced, or a set being deleted (ARC replaced it; its
    /// successor is the one that must settle).
    pub fn settled(&self) -> bool {
        matches!(self.state, State::Synced | State::Deleting)
    }
}

/// Seconds since the Unix epoch of an RFC 3339 time.
pub fn unix_seconds(rfc3339: &str) -> Option<i64> {
    gotime::parse_rfc3339(rfc3339)
        .ok()
        .map(|(s, _)| s - gotime::UNIX_TO_INTERNAL)
}

/// Mirrors k8s.io/apimachinery `duration.HumanDuration`, as kubectl prints AGE.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let seconds = seconds.max(0);
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let d = (hours / 24) % 365;
        return if d == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{d}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// `metadata.generation` of an AutoscalingRunnerSet ahead of its `status.observedGeneration`
/// (the next release's rule, [`crate::arc::next`]).
pub use crate::arc::next::Unobserved;

/// Why a set is in its state, as facts: the rules decide which apply, and
/// [`crate::render::reason`] writes each as English (`status NAME`, `-o wide`) and as
/// `{"reason": code, "message": English}` in `-o json|yaml`. Consumers branch on
/// [`StatusReason::code`], which is stable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusReason {
    /// The set has a deletionTimestamp: its AutoscalingRunnerSet is being removed, or ARC is
    /// replacing the set.
    Deleting,
    /// A set made by ARC 0.14 or older is being deleted: ARC replaced it after a runner-spec change.
    Replaced,
    /// Made by ARC 0.14 or older ([`ANNOTATION_RUNNER_SPEC_HASH`]): no revision to acknowledge.
    SpecHash,
    /// The set has no `spec` at all (the error stands alone: Go would decode the object).
    SpecMissing { error: String },
    /// A revision or status field ARC's Go types cannot decode.
    SetUndecodable { error: String },
    /// `spec.ephemeralRunnerSpec` cannot be decoded with ARC's Go types.
    RunnerSpecUndecodable { error: String },
    /// `status.appliedActionableRevision` > `spec.actionableRevision` ([`Handshake::AppliedAhead`]);
    /// `next` is `nextActionableRevision` (max + 1).
    AppliedAhead { spec: i64, applied: i64, next: i64 },
    /// The AutoscalingRunnerSet's desired runner spec differs from the set's under Semantic
    /// equality: the first paths that differ, and how many more.
    SpecNotPropagated {
        scale_set: String,
        paths: Vec<String>,
        more: usize,
    },
    /// The AutoscalingRunnerSet's controller has not observed its latest generation.
    ObservedGenerationBehind { generation: i64, observed: i64 },
    /// ARC's AutoscalingRunnerSet controller defers a spec change while runners are busy or pending.
    SpecChangeDeferred { busy: usize, pending: usize },
    /// `status.phase` is Outdated, said in one line.
    Outdated,
    /// `status.phase` is Outdated: what ARC does meanwhile, and what clears it.
    OutdatedExplanation,
    /// The next release (#4652/#4660): the scale set is switched off by the Outdated lifecycle
    /// (its set or, `scale_set_outdated`, its AutoscalingRunnerSet in phase Outdated; its
    /// listener's `spec.phase` Stopped when `listener_stopped`), and only a change of the runner
    /// spec or its metadata leaves it (`outdatedRunnerSpecCorrected`). Said in place of
    /// [`StatusReason::Outdated`] and [`StatusReason::OutdatedExplanation`].
    SwitchedOff {
        scale_set_outdated: bool,
        listener_stopped: bool,
    },
    /// The integrity-hash recycle loop of the set's scale set ([`RecycleLoop`]).
    RecycleLoop {
        scale_set: String,
        paths: Vec<String>,
        flips: usize,
    },
    /// The integrity-hash annotation is still set: `kubectl arc migrate` has not run.
    LegacyAnnotation,
    /// spec > applied: revision `spec` is requested and not acknowledged.
    RevisionNotAcknowledged { spec: i64, applied: i64 },
    /// Who last wrote `spec.actionableRevision` (managedFields), and how long ago when known.
    RevisionWrittenBy {
        manager: String,
        ago_seconds: Option<i64>,
    },
    /// Idle or pending runners on an older spec although revision `revision` is acknowledged:
    /// `kubectl arc bump SET` requests a new cleanup.
    StaleRunners {
        runners: Examples,
        revision: i64,
        set: String,
    },
    /// Idle or pending runners on an older spec, which the requested cleanup removes.
    AwaitingCleanup { runners: Examples },
    /// Busy runners on an older spec: `cleanUpEphemeralRunners` lets them finish their job.
    RunnersBusy { runners: Examples },
    /// Idle or pending runners with `status.runnerId` 0: removing them can stall the cleanup
    /// (ARC #4653).
    RunnersUnregistered { runners: Examples },
    /// Runners in phase Outdated (exit code 7).
    RunnersOutdated { runners: Examples },
    /// The next release (#4644): Outdated runners made for a revision older than `applied`
    /// (`staleOutdated`): ARC deletes them, and they do not hold the set Outdated.
    RunnersStaleOutdated { runners: Examples, applied: i64 },
    /// Runners with a deletionTimestamp.
    RunnersDeleting { runners: Examples },
    /// A cleanup is requested and no runner blocks it: ARC's EphemeralRunnerSet controller has
    /// not acted.
    WaitingForController,
    /// Runners whose spec ARC's Go types cannot decode, with the first error.
    RunnersUndecodable { runners: Examples, error: String },
    /// The set was deleted (`--watch` prints its row one last time).
    Deleted,
    /// No EphemeralRunnerSet, and no `runner-scale-set-id` on the AutoscalingRunnerSet: its
    /// listener has not registered the scale set with GitHub.
    NotRegistered,
    /// No EphemeralRunnerSet yet, although the scale set is registered.
    SetNotCreated,
    /// ARC cannot build the scale set's EphemeralRunnerSet (`newEphemeralRunnerSet` fails or
    /// panics): it never creates it. ARC's reason.
    CannotBuild { error: String },
    /// ARC up to 0.14 (Replacing): release `release` hashes the AutoscalingRunnerSet to `desired`,
    /// the newest set carries `current`: ARC replaces the set.
    ReplacementPending {
        scale_set: String,
        release: String,
        current: String,
        desired: String,
    },
    /// Replacing, the set already scaled to 0 with running or pending runners left: ARC's
    /// `--update-strategy=eventual` waits for them before it creates the new set.
    ReplacementWaitsForJobs { busy: usize, pending: usize },
    /// ARC up to 0.14 (Synced): the AutoscalingRunnerSet's hash equals the set's annotation.
    SpecHashMatches { release: String, hash: String },
    /// Draining: an old set of the scale set, whose newest set is `newest`; ARC deletes it (its
    /// busy runners finish their job first).
    OldSet { newest: String },
    /// The next release judges the scale set (`namespace/name`) and this set of ARC up to 0.14 is
    /// not named like it: `AutoscalingRunnerSetReconciler.Reconcile` (2ee6b3b8, ARC #4516) gets
    /// the set by the scale set's own name and creates it, and leaves this one running (the row
    /// is [`State::SpecHash`]: nothing settles it by itself).
    LeftBehindByNext { scale_set: String },
    /// ARC up to 0.14, and the hash cannot be computed (the release, and why).
    SpecHashUnknown { release: String, error: String },
    /// An AutoscalingRunnerSet without a set is being deleted.
    ScaleSetDeleting,
    /// An AutoscalingRunnerSet without a set in phase Outdated: ARC 0.14 deleted its listener
    /// and sets and makes none until its spec or labels change.
    ScaleSetOutdated { scale_set: String },
    /// The scale set should have a listener (registered, not Outdated, not being deleted) and
    /// none serves it; `running`/`pending`: the runners ARC waits for first under
    /// `--update-strategy=eventual` (`drainingJobs`).
    NoListener {
        scale_set: String,
        running: usize,
        pending: usize,
    },
    /// The listener's `spec.ephemeralRunnerSetName` is not the newest set (`newest`); `exists`:
    /// whether a set of that name is there; `arc_recreates`: ARC after 0.14 compares the whole
    /// listener spec and makes it again.
    ListenerForOtherSet {
        listener: String,
        points_at: String,
        exists: bool,
        newest: String,
        arc_recreates: bool,
    },
    /// The listener's image (the controller's) is another version than the chart that made its
    /// scale set (its `app.kubernetes.io/version`).
    ListenerVersionMismatch {
        listener: String,
        image: String,
        chart_version: String,
    },
    /// ARC up to 0.14: the listener's `runner-spec-hash` or `values-hash` annotation is not its
    /// scale set's (`ListenerSpecHash()` under `release`): ARC deletes it and makes it again.
    ListenerHashStale { listener: String, release: String },
    /// ARC up to 0.14: the scale set's chart label names `release`, by which it is judged, but
    /// its newest set was made by `other` (its own label), whose `RunnerSetSpecHash()` of the
    /// scale set differs: if the controller still runs `other`, it `other_replaces` the set.
    ReleaseDisagrees {
        scale_set: String,
        release: String,
        other: String,
        other_hash: String,
        other_replaces: bool,
    },
    /// The listener has no Pod of its name: the listener controller creates it.
    ListenerPodMissing { listener: String },
    /// The listener's Pod is not running, as its status says.
    ListenerPodNotRunning { pod: String, problem: PodProblem },
    /// An object past its deletionTimestamp with finalizers left, each with the controller that
    /// removes it when known (`more`: further objects of the kind held the same way).
    FinalizersLeft {
        kind: String,
        name: String,
        more: usize,
        since: Option<String>,
        finalizers: Vec<(String, Option<&'static str>)>,
    },
    /// EphemeralRunners in phase Failed: how many, the oldest, and how many of `replicas` they
    /// hold (`scaleTotal` counts them, so ARC creates that many fewer runners).
    RunnersFailed {
        runners: Examples,
        oldest: Option<FailedRunner>,
        held: usize,
        replicas: i64,
    },
    /// The scale set is registered with GitHub from another kubeconfig context too (the same
    /// `githubConfigUrl` and scale-set name, or the same `runner-scale-set-id`): both listeners
    /// claim one message session ([`crate::fleet::duplicate_registrations`]; ARC #3351, #3209,
    /// #3382). Said only by a fleet run (`--contexts`); changes no state.
    DuplicateRegistration {
        /// This context's AutoscalingRunnerSet, `namespace/name`.
        scale_set: String,
        other_context: String,
        other_scale_set: String,
        by: crate::fleet::SameBy,
    },
    /// The controller Deployment `controller` runs ARC `version`, whose CRDs declare fields the
    /// installed ones lack ([`install::missing_for`]): the API server drops what it writes there.
    CrdsBehindController {
        controller: String,
        version: String,
        missing: Vec<install::MissingField>,
    },
    /// The runner counts in the set's status are not those of the runners listed, counted as
    /// ARC's `updateStatus` counts them.
    CountersDisagree { written: Counters, listed: Counters },
    /// Runners in phase Running (counted running by ARC) whose Pod is not there, with no
    /// failure recorded: ARC's EphemeralRunner controller makes the Pod again on its next
    /// reconcile of the runner.
    RunnerPodsMissing { runners: Examples },
    /// Runners whose Pod cannot be scheduled (`PodScheduled` False, Unschedulable), and the first
    /// one's message; `running`: how many of them ARC counts running (phase Running: their Pod was
    /// made again after the one that ran was lost, with its node).
    RunnersUnschedulable {
        runners: Examples,
        why: String,
        running: usize,
    },
    /// Runners without a Pod whose `status.failures` records failed Pods: ARC's EphemeralRunner
    /// controller (0.12.0 to 0.14.2) waits `failedRunnerBackoff[failures]` after the last failure
    /// before it makes the Pod again, and deletes the runner after more than `maxFailures`.
    RunnersBackingOff {
        runners: Examples,
        /// The first one's failure back-off.
        first: Backoff,
        /// Seconds from now until its wait ends (negative: ended that long ago), when the clock
        /// and its last failure are known.
        remaining: Option<i64>,
    },
    /// The scale set's listener runs another image than the controller Deployment that makes its
    /// listeners (the listener's `spec.image` tag, else its `app.kubernetes.io/version`, against
    /// the controller's listener image, else its own version): it was made by an older controller,
    /// and ARC 0.14 does not make a listener again for a new image.
    ListenerBehindController {
        listener: String,
        listener_version: String,
        controller: String,
        controller_version: String,
    },
    /// No CRD could be read, a controller of 0.14.0 or later watches the namespace, and no status
    /// ARC wrote in it has `status.phase` (0.14 writes one on every reconcile; CRDs older than
    /// 0.14.0 prune it).
    CrdsLookOlder { controller: String, version: String },
    /// A listener of the scale set that is not the one ARC finds (`scaleSetListenerName` in the
    /// controller's namespace): ARC never deletes or updates it.
    ListenerOrphaned { listener: String, expected: String },
    /// The release that judges the scale set does not allow its `app.kubernetes.io/version`
    /// ([`crate::release::ArcRelease::version_check`]): its controller deletes the scale set (the
    /// row is [`State::VersionRejected`]).
    DeletedByVersionCheck {
        /// The controller Deployment that reconciles the scale set's namespace and runs
        /// `release`, `namespace/name`; `None`: `--arc-version` named the release.
        controller: Option<String>,
        release: String,
        /// The label (`None`: none).
        label: Option<String>,
        rule: String,
    },
}

/// A runner's failure back-off as ARC's EphemeralRunner controller computes it (0.12.0 to 0.14.2,
/// `Reconcile`: `failedRunnerBackoff[len(Status.Failures)]` after `Status.LastFailure()`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Backoff {
    pub name: String,
    /// How many entries `status.failures` has.
    pub failures: usize,
    /// `LastFailure()`: the latest time of `status.failures` (RFC 3339).
    pub last_failure: Option<String>,
    /// `status.reason` and `status.message` (the failed Pod's, `deletePodAsFailed`).
    pub reason: Option<String>,
    pub message: Option<String>,
}

/// ARC's `failedRunnerBackoff` (0.12.0 to 0.14.2, controllers/actions.github.com/
/// ephemeralrunner_controller.go), in seconds: the wait after the last failure, by failure count.
pub const FAILED_RUNNER_BACKOFF: [i64; 6] = [0, 5, 10, 20, 40, 80];

/// ARC's `maxFailures` (0.12.0 to 0.14.2): a runner with more failures is deleted.
pub const MAX_FAILURES: usize = 5;

impl Backoff {
    /// The wait after the last failure (`None`: more than [`MAX_FAILURES`], ARC deletes the
    /// runner instead).
    pub fn wait_seconds(&self) -> Option<i64> {
        FAILED_RUNNER_BACKOFF.get(self.failures).copied()
    }

    /// Seconds from `now` until the wait ends (negative: it ended that long ago).
    pub fn remaining(&self, now: Option<i64>) -> Option<i64> {
        let last = unix_seconds(self.last_failure.as_deref()?)?;
        Some(last + self.wait_seconds()? - now?)
    }
}

impl StatusReason {
    /// The state a reason of the set's surroundings puts a set in whose own handshake is Synced,
    /// Stale or Pending (`None`: it changes no state).
    pub fn escalation(&self) -> Option<State> {
        match self {
            StatusReason::NoListener { .. }
            | StatusReason::ListenerPodMissing { .. }
            | StatusReason::ListenerHashStale { .. } => Some(State::ListenerDown),
            StatusReason::ListenerForOtherSet { arc_recreates, .. } => Some(if *arc_recreates {
                State::ListenerDown
            } else {
                State::ListenerFailing
            }),
            StatusReason::ListenerPodNotRunning { problem, .. } => {
                Some(if problem.needs_person() {
                    State::ListenerFailing
                } else {
                    State::ListenerDown
                })
            }
            StatusReason::RunnersFailed { held, .. } if *held > 0 => Some(State::RunnersFailed),
            StatusReason::RunnerPodsMissing { .. } | StatusReason::RunnersBackingOff { .. } => {
                Some(State::RunnersNotRunning)
            }
            StatusReason::RunnersUnschedulable { running, .. } if *running > 0 => {
                Some(State::RunnersNotRunning)
            }
            _ => None,
        }
    }
}

/// The oldest failed runner of a set, as its status says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRunner {
    pub name: String,
    /// `metadata.creationTimestamp`.
    pub created: Option<String>,
    /// `status.reason` and `status.message`.
    pub reason: Option<String>,
    pub message: Option<String>,
    /// How many pod failures `status.failures` records.
    pub failures: usize,
}

impl StatusReason {
    /// The stable UpperCamelCase code, as Kubernetes writes a condition's reason.
    pub fn code(&self) -> &'static str {
        match self {
            StatusReason::Deleting => "Deleting",
            StatusReason::Replaced => "Replaced",
            StatusReason::SpecHash => "SpecHash",
            StatusReason::SpecMissing { .. } => "SpecMissing",
            StatusReason::SetUndecodable { .. } => "SetUndecodable",
            StatusReason::RunnerSpecUndecodable { .. } => "RunnerSpecUndecodable",
            StatusReason::AppliedAhead { .. } => "AppliedAhead",
            StatusReason::SpecNotPropagated { .. } => "SpecNotPropagated",
            StatusReason::ObservedGenerationBehind { .. } => "ObservedGenerationBehind",
            StatusReason::SpecChangeDeferred { .. } => "SpecChangeDeferred",
            StatusReason::Outdated => "Outdated",
            StatusReason::OutdatedExplanation => "OutdatedExplanation",
            StatusReason::SwitchedOff { .. } => "SwitchedOff",
            StatusReason::RecycleLoop { .. } => "RecycleLoop",
            StatusReason::LegacyAnnotation => "LegacyAnnotation",
            StatusReason::RevisionNotAcknowledged { .. } => "RevisionNotAcknowledged",
            StatusReason::RevisionWrittenBy { .. } => "RevisionWrittenBy",
            StatusReason::StaleRunners { .. } => "StaleRunners",
            StatusReason::AwaitingCleanup { .. } => "AwaitingCleanup",
            StatusReason::RunnersBusy { .. } => "RunnersBusy",
            StatusReason::RunnersUnregistered { .. } => "RunnersUnregistered",
            StatusReason::RunnersOutdated { .. } => "RunnersOutdated",
            StatusReason::RunnersStaleOutdated { .. } => "RunnersStaleOutdated",
            StatusReason::RunnersDeleting { .. } => "RunnersDeleting",
            StatusReason::WaitingForController => "WaitingForController",
            StatusReason::RunnersUndecodable { .. } => "RunnersUndecodable",
            StatusReason::Deleted => "Deleted",
            StatusReason::NotRegistered => "NotRegistered",
            StatusReason::SetNotCreated => "SetNotCreated",
            StatusReason::CannotBuild { .. } => "CannotBuild",
            StatusReason::ReplacementPending { .. } => "ReplacementPending",
            StatusReason::ReplacementWaitsForJobs { .. } => "ReplacementWaitsForJobs",
            StatusReason::SpecHashMatches { .. } => "SpecHashMatches",
            StatusReason::OldSet { .. } => "OldSet",
            StatusReason::LeftBehindByNext { .. } => "LeftBehindByNext",
            StatusReason::SpecHashUnknown { .. } => "SpecHashUnknown",
            StatusReason::ScaleSetDeleting => "ScaleSetDeleting",
            StatusReason::ScaleSetOutdated { .. } => "ScaleSetOutdated",
            StatusReason::NoListener { .. } => "NoListener",
            StatusReason::ListenerForOtherSet { .. } => "ListenerForOtherSet",
            StatusReason::ListenerVersionMismatch { .. } => "ListenerVersionMismatch",
            StatusReason::ListenerHashStale { .. } => "ListenerHashStale",
            StatusReason::ReleaseDisagrees { .. } => "ReleaseDisagrees",
            StatusReason::ListenerPodMissing { .. } => "ListenerPodMissing",
            StatusReason::ListenerPodNotRunning { .. } => "ListenerPodNotRunning",
            StatusReason::FinalizersLeft { .. } => "FinalizersLeft",
            StatusReason::RunnersFailed { .. } => "RunnersFailed",
            StatusReason::DuplicateRegistration { .. } => "DuplicateRegistration",
            StatusReason::CrdsBehindController { .. } => "CrdsBehindController",
            StatusReason::CountersDisagree { .. } => "CountersDisagree",
            StatusReason::RunnerPodsMissing { .. } => "RunnerPodsMissing",
            StatusReason::RunnersUnschedulable { .. } => "RunnersUnschedulable",
            StatusReason::RunnersBackingOff { .. } => "RunnersBackingOff",
            StatusReason::ListenerBehindController { .. } => "ListenerBehindController",
            StatusReason::CrdsLookOlder { .. } => "CrdsLookOlder",
            StatusReason::ListenerOrphaned { .. } => "ListenerOrphaned",
            StatusReason::DeletedByVersionCheck { .. } => "DeletedByVersionCheck",
        }
    }
}
