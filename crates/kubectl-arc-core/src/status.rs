//! `status`'s verdict on each EphemeralRunnerSet: where it stands in the revision handshake, how its
//! runners are spread over the states ARC's controller sees, and why it is not Synced.
//!
//! Pure core: objects in (as JSON text), verdicts out; the caller hands in the clock. Runner states
//! mirror `newEphemeralRunnersByStates` ([`RunnerState`]) and staleness is Semantic inequality with
//! the set's `spec.ephemeralRunnerSpec` ([`runners::is_stale`]); the cleanup rules quoted in the
//! reasons are those of `cleanUpEphemeralRunners` in ARC's
//! controllers/actions.github.com/ephemeralrunnerset_controller.go.
//!
//! A [`Census`] aggregates runners per set as they stream in, so a list of 50,000 runners never has
//! to be held: a runner whose spec is byte-for-byte the set's is not stale without decoding, and the
//! verdict for any other spec is decoded once per set and distinct spec. In live mode (watch) it
//! keeps one small record per runner, so that a change or deletion can be taken back.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::arc::{
    ANNOTATION_ACTIONABLE_REVISION, ANNOTATION_INTEGRITY_HASH, ANNOTATION_RUNNER_SPEC_HASH,
};
use crate::gotime;
use crate::layout::Layout;
use crate::revision::{Handshake, RevisionError, Revisions};
use crate::runners::{self, RunnerCounts, RunnerState};
use crate::value::decode;

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
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who last wrote `spec.actionableRevision`, from the set's managedFields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldWriter {
    /// The field manager that owns the field.
    pub manager: String,
    /// The time of that manager's latest write to the set (RFC 3339), when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

/// What status reads of one EphemeralRunnerSet.
#[derive(Debug, Clone, PartialEq)]
pub struct SetFacts {
    pub namespace: String,
    pub name: String,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub creation_timestamp: Option<String>,
    pub labels: BTreeMap<String, String>,
    /// The two revision fields, or why they are not what ARC's Go types accept.
    pub revisions: Result<Revisions, String>,
    /// The object has no `spec` at all: Go would decode it, but ARC never writes one like that.
    pub spec_missing: bool,
    /// The `actions.github.com/integrity-hash` annotation is present.
    pub legacy_annotation: bool,
    /// Its value, to count how often it changes while watched (a recycle loop flips it).
    pub integrity_hash: Option<String>,
    /// Made by ARC up to 0.14: the `actions.github.com/runner-spec-hash` annotation or label.
    pub spec_hash_era: bool,
    /// The `actions.github.com/runner-spec-hash` annotation's value.
    pub runner_spec_hash: Option<String>,
    /// `spec.replicas` (ARC scales a set it drains to 0).
    pub replicas: Option<i64>,
    /// `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// The controller owner reference: (apiVersion, kind, name, uid).
    pub controller: Option<(String, String, String, String)>,
    /// `status.phase` (Running, Outdated).
    pub phase: Option<String>,
    /// The exact JSON text of `spec.ephemeralRunnerSpec` (`None` when absent).
    pub runner_spec: Option<String>,
    pub revision_writer: Option<FieldWriter>,
}

/// What status reads of one EphemeralRunner.
#[derive(Debug, Clone, PartialEq)]
pub struct RunnerFacts<'a> {
    pub namespace: Cow<'a, str>,
    pub name: Cow<'a, str>,
    /// The EphemeralRunnerSet that controls it (its owner reference).
    pub set: Option<String>,
    pub state: RunnerState,
    /// `status.runnerId` (0: never registered with GitHub).
    pub runner_id: i64,
    /// The exact JSON text of `spec`.
    pub spec: Option<&'a str>,
    /// `actions.github.com/actionable-revision`: the set's revision when the runner was created.
    pub created_for_revision: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MetaText<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default)]
    creation_timestamp: Option<String>,
    #[serde(default)]
    deletion_timestamp: Option<Value>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    #[serde(borrow, default)]
    annotations: Option<HashMap<Cow<'a, str>, Cow<'a, str>>>,
    #[serde(default)]
    owner_references: Option<Value>,
    #[serde(borrow, default)]
    managed_fields: Option<Vec<ManagedFieldsText<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ManagedFieldsText<'a> {
    #[serde(default)]
    manager: Option<String>,
    #[serde(default)]
    time: Option<String>,
    #[serde(default)]
    subresource: Option<String>,
    #[serde(borrow, default, rename = "fieldsV1")]
    fields_v1: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ObjectText<'a> {
    #[serde(borrow, default)]
    metadata: MetaText<'a>,
    #[serde(borrow, default)]
    spec: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetSpecText<'a> {
    #[serde(default)]
    actionable_revision: Value,
    #[serde(default)]
    replicas: Value,
    #[serde(borrow, default)]
    ephemeral_runner_spec: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SetStatusText {
    #[serde(default)]
    applied_actionable_revision: Value,
    #[serde(default)]
    phase: Value,
}

/// Which manager owns `f:spec` → `f:actionableRevision` (Server-Side Apply field sets).
#[derive(Deserialize)]
struct FieldsSpec {
    #[serde(rename = "f:spec", default)]
    spec: Option<FieldsRevision>,
}

#[derive(Deserialize)]
struct FieldsRevision {
    #[serde(rename = "f:actionableRevision", default)]
    revision: Option<serde::de::IgnoredAny>,
}

impl SetFacts {
    /// Read an EphemeralRunnerSet from its JSON text. Only a document that is not a JSON object
    /// is an error; a malformed field makes the set Invalid instead.
    pub fn from_json(text: &str) -> Result<SetFacts, String> {
        let obj: ObjectText = serde_json::from_str(text)
            .map_err(|e| format!("not an EphemeralRunnerSet object: {e}"))?;
        let meta = obj.metadata;
        let mut problems = Vec::new();
        let spec_missing = obj.spec.is_none();
        let mut replicas = None;
        let (spec_revision, runner_spec) = match obj.spec {
            None => {
                problems.push(RevisionError::MissingSpec.to_string());
                (Value::Null, None)
            }
            Some(raw) => match serde_json::from_str::<SetSpecText>(raw.get()) {
                Ok(s) => {
                    replicas = s.replicas.as_i64();
                    (
                        s.actionable_revision,
                        s.ephemeral_runner_spec.map(|r| r.get().to_string()),
                    )
                }
                Err(e) => {
                    problems.push(format!("spec is not an EphemeralRunnerSetSpec: {e}"));
                    (Value::Null, None)
                }
            },
        };
        let (applied, phase) = match obj.status {
            None => (Value::Null, None),
            Some(raw) => match serde_json::from_str::<SetStatusText>(raw.get()) {
                Ok(s) => (
                    s.applied_actionable_revision,
                    match s.phase {
                        Value::Null => None,
                        Value::String(p) => Some(p),
                        other => {
                            problems.push(format!("status.phase is {other}, not a string"));
                            None
                        }
                    },
                ),
                Err(e) => {
                    problems.push(format!("status is not an EphemeralRunnerSetStatus: {e}"));
                    (Value::Null, None)
                }
            },
        };
        let revisions = Revisions::from_object(&serde_json::json!({
            "spec": {"actionableRevision": spec_revision},
            "status": {"appliedActionableRevision": applied},
        }))
        .map_err(|e| e.to_string());
        let revisions = match (revisions, problems.is_empty()) {
            (Ok(r), true) => Ok(r),
            (Ok(_), false) => Err(problems.join("; ")),
            (Err(e), _) => {
                problems.insert(0, e);
                Err(problems.join("; "))
            }
        };
        let integrity_hash = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(ANNOTATION_INTEGRITY_HASH))
            .map(|v| v.to_string());
        let legacy_annotation = integrity_hash.is_some();
        let runner_spec_hash = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(ANNOTATION_RUNNER_SPEC_HASH))
            .map(|v| v.to_string());
        let spec_hash_era = runner_spec_hash.is_some()
            || meta
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key(ANNOTATION_RUNNER_SPEC_HASH));
        let deleting = meta
            .deletion_timestamp
            .as_ref()
            .is_some_and(|t| !t.is_null());
        let controller = meta
            .owner_references
            .as_ref()
            .and_then(Value::as_array)
            .and_then(|refs| {
                refs.iter()
                    .find(|r| r.get("controller") == Some(&Value::Bool(true)))
            })
            .map(|r| {
                let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                (s("apiVersion"), s("kind"), s("name"), s("uid"))
            });
        Ok(SetFacts {
            integrity_hash,
            spec_hash_era,
            runner_spec_hash,
            replicas,
            deleting,
            controller,
            namespace: meta.namespace.map(Cow::into_owned).unwrap_or_default(),
            name: meta.name.map(Cow::into_owned).unwrap_or_default(),
            uid: meta.uid,
            resource_version: meta.resource_version,
            creation_timestamp: meta.creation_timestamp,
            labels: meta.labels.unwrap_or_default(),
            revisions,
            spec_missing,
            legacy_annotation,
            phase,
            runner_spec,
            revision_writer: revision_writer(meta.managed_fields.as_deref().unwrap_or(&[])),
        })
    }
}

/// The manager owning `spec.actionableRevision` (the latest, if several co-own it through Apply).
fn revision_writer(entries: &[ManagedFieldsText<'_>]) -> Option<FieldWriter> {
    entries
        .iter()
        .filter(|m| m.subresource.as_deref().unwrap_or("").is_empty())
        .filter(|m| {
            m.fields_v1
                .and_then(|f| serde_json::from_str::<FieldsSpec>(f.get()).ok())
                .and_then(|f| f.spec)
                .is_some_and(|s| s.revision.is_some())
        })
        .max_by(|a, b| a.time.cmp(&b.time))
        .map(|m| FieldWriter {
            manager: m
                .manager
                .clone()
                .unwrap_or_else(|| "(unnamed manager)".into()),
            time: m.time.clone(),
        })
}

impl<'a> RunnerFacts<'a> {
    /// Read an EphemeralRunner from its JSON text, borrowing its spec.
    pub fn from_json(text: &'a str) -> Result<RunnerFacts<'a>, String> {
        let obj: ObjectText<'a> = serde_json::from_str(text)
            .map_err(|e| format!("not an EphemeralRunner object: {e}"))?;
        let status: Value = match obj.status {
            Some(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            None => Value::Null,
        };
        // The fields RunnerState::of, owner_set and runner_id read, in the object's shape.
        let view = serde_json::json!({
            "metadata": {
                "deletionTimestamp": obj.metadata.deletion_timestamp,
                "ownerReferences": obj.metadata.owner_references,
            },
            "status": status,
        });
        let created_for_revision = obj
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(ANNOTATION_ACTIONABLE_REVISION))
            .map(|v| v.to_string());
        Ok(RunnerFacts {
            namespace: obj.metadata.namespace.unwrap_or(Cow::Borrowed("")),
            name: obj.metadata.name.unwrap_or(Cow::Borrowed("")),
            set: runners::owner_set(&view).map(str::to_string),
            state: RunnerState::of(&view),
            runner_id: runners::runner_id(&view),
            spec: obj.spec.map(RawValue::get),
            created_for_revision,
        })
    }
}

/// At most this many runner names are kept per reason.
const EXAMPLES: usize = 3;

/// A count of runners with a few of their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Examples {
    pub count: usize,
    pub names: Vec<String>,
}

impl Examples {
    fn add(&mut self, name: &str) {
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
    fn add(&mut self, name: &str, state: RunnerState, runner_id: i64, stale: Result<bool, String>) {
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

/// `metadata.generation` of an AutoscalingRunnerSet ahead of its `status.observedGeneration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unobserved {
    pub generation: i64,
    pub observed: i64,
}

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
    /// ARC up to 0.14, and the hash cannot be computed (the release, and why).
    SpecHashUnknown { release: String, error: String },
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
            StatusReason::RecycleLoop { .. } => "RecycleLoop",
            StatusReason::LegacyAnnotation => "LegacyAnnotation",
            StatusReason::RevisionNotAcknowledged { .. } => "RevisionNotAcknowledged",
            StatusReason::RevisionWrittenBy { .. } => "RevisionWrittenBy",
            StatusReason::StaleRunners { .. } => "StaleRunners",
            StatusReason::AwaitingCleanup { .. } => "AwaitingCleanup",
            StatusReason::RunnersBusy { .. } => "RunnersBusy",
            StatusReason::RunnersUnregistered { .. } => "RunnersUnregistered",
            StatusReason::RunnersOutdated { .. } => "RunnersOutdated",
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
            StatusReason::SpecHashUnknown { .. } => "SpecHashUnknown",
        }
    }
}

/// What holds back runners of a set: busy ones on an older spec, unregistered, Outdated or
/// deleting ones, each with the runners named (the cleanup rules of `cleanUpEphemeralRunners`).
fn blockers(tally: &Tally, reasons: &mut Vec<StatusReason>) {
    let named = |group: &Examples| (group.count > 0).then(|| group.clone());
    reasons.extend(named(&tally.busy_stale).map(|runners| StatusReason::RunnersBusy { runners }));
    reasons.extend(
        named(&tally.unregistered).map(|runners| StatusReason::RunnersUnregistered { runners }),
    );
    reasons.extend(named(&tally.outdated).map(|runners| StatusReason::RunnersOutdated { runners }));
    reasons.extend(named(&tally.deleting).map(|runners| StatusReason::RunnersDeleting { runners }));
}

/// Why a set is Invalid: revisions that are not ARC's, a runner spec ARC cannot decode, or an
/// applied revision ahead of the requested one.
fn invalid_reason(facts: &SetFacts, spec_error: Option<&str>) -> Option<StatusReason> {
    match (&facts.revisions, spec_error) {
        (Err(e), _) if facts.spec_missing => Some(StatusReason::SpecMissing { error: e.clone() }),
        (Err(e), _) => Some(StatusReason::SetUndecodable { error: e.clone() }),
        (Ok(_), Some(e)) => Some(StatusReason::RunnerSpecUndecodable {
            error: e.to_string(),
        }),
        (Ok(r), None) if r.handshake() == Handshake::AppliedAhead => {
            Some(StatusReason::AppliedAhead {
                spec: r.spec,
                applied: r.applied,
                next: r.next(),
            })
        }
        _ => None,
    }
}

/// The reasons that follow a state: what blocks the cleanup, and the Outdated phase's meaning.
fn follow_up_reasons(
    state: State,
    tally: &Tally,
    outdated_phase: bool,
    reasons: &mut Vec<StatusReason>,
) {
    match state {
        State::Pending => {
            if tally.stale_idle_or_pending.count > 0 {
                reasons.push(StatusReason::AwaitingCleanup {
                    runners: tally.stale_idle_or_pending.clone(),
                });
            }
            blockers(tally, reasons);
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
            if tally.busy_stale.count == 0
                && tally.unregistered.count == 0
                && tally.outdated.count == 0
                && tally.deleting.count == 0
                && !outdated_phase
            {
                reasons.push(StatusReason::WaitingForController);
            }
        }
        State::Stale | State::Invalid | State::Legacy | State::RecycleLoop => {
            blockers(tally, reasons);
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
        }
        State::Outdated => {
            blockers(tally, reasons);
            reasons.push(StatusReason::OutdatedExplanation);
        }
        State::Deleting
        | State::SpecHash
        | State::Propagating
        | State::Deleted
        | State::Registering
        | State::Creating
        | State::Replacing
        | State::Draining => {}
        State::Synced => {
            if tally.busy_stale.count > 0 {
                reasons.push(StatusReason::RunnersBusy {
                    runners: tally.busy_stale.clone(),
                });
            }
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
        }
    }
}

/// Why a set is Propagating: what differs, and why ARC may not have written it yet.
fn propagation_reasons(
    waiting: &Waiting,
    tally: &Tally,
    outdated_phase: bool,
    reasons: &mut Vec<StatusReason>,
) {
    reasons.push(StatusReason::SpecNotPropagated {
        scale_set: waiting.scale_set.clone(),
        paths: waiting.paths.clone(),
        more: waiting.more,
    });
    if let Some(u) = waiting.unobserved {
        reasons.push(StatusReason::ObservedGenerationBehind {
            generation: u.generation,
            observed: u.observed,
        });
    }
    let c = &tally.counts;
    if c.busy + c.pending > 0 {
        reasons.push(StatusReason::SpecChangeDeferred {
            busy: c.busy,
            pending: c.pending,
        });
    }
    if outdated_phase {
        reasons.push(StatusReason::Outdated);
    }
}

/// The verdict on one set. `spec_error` is a failure to decode the set's runner spec (found when
/// a runner's spec had to be compared with it); `now` is the clock in Unix seconds.
pub fn classify(
    facts: &SetFacts,
    tally: &Tally,
    spec_error: Option<&str>,
    propagation: Option<&Propagation>,
    recycle_loop: Option<&RecycleLoop>,
    replacement: Option<&Replacement>,
    now: Option<i64>,
) -> SetStatus {
    let created = facts.creation_timestamp.as_deref().and_then(unix_seconds);
    let mut reasons = Vec::new();
    let (spec_revision, applied_revision) = match &facts.revisions {
        // ARC 0.14 and older have no revisions: 0/0 would read as a handshake.
        Ok(_) if facts.spec_hash_era => (None, None),
        Ok(r) => (Some(r.spec), Some(r.applied)),
        Err(_) => (None, None),
    };
    let written = facts
        .revision_writer
        .as_ref()
        .map(|w| StatusReason::RevisionWrittenBy {
            manager: w.manager.clone(),
            ago_seconds: match (w.time.as_deref().and_then(unix_seconds), now) {
                (Some(t), Some(now)) => Some(now - t),
                _ => None,
            },
        });
    let c = &tally.counts;
    let outdated_phase = facts.phase.as_deref() == Some("Outdated");

    let invalid = invalid_reason(facts, spec_error);
    let state = if facts.deleting {
        reasons.push(if facts.spec_hash_era {
            StatusReason::Replaced
        } else {
            StatusReason::Deleting
        });
        State::Deleting
    } else if facts.spec_hash_era {
        match replacement {
            Some(Replacement::Judged {
                scale_set,
                release,
                desired: Ok(desired),
            }) => {
                let current = facts.runner_spec_hash.clone().unwrap_or_default();
                if *desired == current {
                    reasons.push(StatusReason::SpecHashMatches {
                        release: release.clone(),
                        hash: current,
                    });
                    State::Synced
                } else {
                    reasons.push(StatusReason::ReplacementPending {
                        scale_set: scale_set.clone(),
                        release: release.clone(),
                        current,
                        desired: desired.clone(),
                    });
                    if facts.replicas == Some(0) && c.busy + c.pending > 0 {
                        reasons.push(StatusReason::ReplacementWaitsForJobs {
                            busy: c.busy,
                            pending: c.pending,
                        });
                    }
                    State::Replacing
                }
            }
            Some(Replacement::Judged {
                release,
                desired: Err(error),
                ..
            }) => {
                reasons.push(StatusReason::SpecHashUnknown {
                    release: release.clone(),
                    error: error.clone(),
                });
                State::SpecHash
            }
            Some(Replacement::Old { newest }) => {
                reasons.push(StatusReason::OldSet {
                    newest: newest.clone(),
                });
                State::Draining
            }
            None => {
                reasons.push(StatusReason::SpecHash);
                State::SpecHash
            }
        }
    } else if let Some(why) = invalid {
        reasons.push(why);
        State::Invalid
    } else if let Some(Propagation::Waiting(waiting)) = propagation {
        propagation_reasons(waiting, tally, outdated_phase, &mut reasons);
        State::Propagating
    } else if outdated_phase
        && facts
            .revisions
            .as_ref()
            .is_ok_and(|r| r.handshake() != Handshake::Pending)
    {
        // An Outdated phase counts as a verdict on the current spec only once the revision is
        // acknowledged (`ephemeralRunnerSetOutdatedForAppliedRevision`); a pending revision is
        // the cure in progress.
        reasons.push(StatusReason::Outdated);
        State::Outdated
    } else if let Some(l) = recycle_loop.filter(|_| facts.legacy_annotation) {
        reasons.push(StatusReason::RecycleLoop {
            scale_set: l.scale_set.clone(),
            paths: l.paths.clone(),
            flips: l.flips,
        });
        State::RecycleLoop
    } else if facts.legacy_annotation {
        reasons.push(StatusReason::LegacyAnnotation);
        State::Legacy
    } else {
        let r = facts.revisions.clone().expect("checked above");
        match r.handshake() {
            Handshake::Pending => {
                reasons.push(StatusReason::RevisionNotAcknowledged {
                    spec: r.spec,
                    applied: r.applied,
                });
                reasons.extend(written);
                State::Pending
            }
            _ if c.stale_idle_or_pending > 0 => {
                reasons.push(StatusReason::StaleRunners {
                    runners: tally.stale_idle_or_pending.clone(),
                    revision: r.spec,
                    set: facts.name.clone(),
                });
                State::Stale
            }
            _ => State::Synced,
        }
    };
    follow_up_reasons(state, tally, outdated_phase, &mut reasons);
    if tally.undecodable.count > 0 {
        reasons.push(StatusReason::RunnersUndecodable {
            runners: tally.undecodable.clone(),
            error: tally.first_decode_error.clone().unwrap_or_default(),
        });
    }
    SetStatus {
        namespace: facts.namespace.clone(),
        name: facts.name.clone(),
        spec_revision,
        applied_revision,
        state,
        runners: tally.counts,
        reasons,
        phase: facts.phase.clone(),
        spec_revision_written_by: facts.revision_writer.clone(),
        creation_timestamp: facts.creation_timestamp.clone(),
        age_seconds: match (created, now) {
            (Some(c), Some(n)) => Some(n - c),
            _ => None,
        },
    }
}

/// The row of an AutoscalingRunnerSet for which ARC's `listEphemeralRunnerSets` finds no set (a
/// scale set just installed): Invalid when ARC cannot build its set (the checks of
/// [`crate::desired::check_builds`], as for an existing one), else Registering until the
/// `runner-scale-set-id` annotation is there, then Creating until the set is. `spec_json` is the
/// scale set's `spec` (`None`: absent); `now` the clock in Unix seconds.
pub fn scale_set_without_set(
    layout: &Layout,
    key: SetKey,
    spec_json: Option<&str>,
    scale_set_id: Option<&str>,
    creation_timestamp: Option<String>,
    now: Option<i64>,
) -> SetStatus {
    let built = match spec_json {
        Some(spec) => {
            crate::desired::check_builds(layout, spec, scale_set_id).map_err(|e| e.to_string())
        }
        None => Err("spec is missing: there is no runner template to build a set from".into()),
    };
    let (state, reason) = match (built, scale_set_id) {
        (Err(error), _) => (State::Invalid, StatusReason::CannotBuild { error }),
        (Ok(()), None) => (State::Registering, StatusReason::NotRegistered),
        (Ok(()), Some(_)) => (State::Creating, StatusReason::SetNotCreated),
    };
    let age_seconds = match (now, creation_timestamp.as_deref().and_then(unix_seconds)) {
        (Some(now), Some(created)) => Some(now - created),
        _ => None,
    };
    SetStatus {
        namespace: key.0,
        name: key.1,
        spec_revision: None,
        applied_revision: None,
        state,
        runners: RunnerCounts::default(),
        reasons: vec![reason],
        phase: None,
        spec_revision_written_by: None,
        creation_timestamp,
        age_seconds,
    }
}

/// Namespace and name of an EphemeralRunnerSet.
pub type SetKey = (String, String);

/// What a set's AutoscalingRunnerSet wants of it, for the Propagating state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesiredSpec {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// Its `spec` JSON text.
    pub spec_json: String,
    /// The runner scale set id (its annotation, else the set's `runnerScaleSetId`).
    pub scale_set_id: Option<String>,
    /// `metadata.generation` > `status.observedGeneration`, when the object has both: said as a
    /// reason.
    pub unobserved: Option<Unobserved>,
}

/// The integrity-hash recycle loop of a set's scale set (see [`crate::recycle_loop`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecycleLoop {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// The fields Go's round trip changes.
    pub paths: Vec<String>,
    /// How often the set's integrity-hash annotation changed while watched.
    pub flips: usize,
}

/// A set of ARC up to 0.14 as its scale set sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replacement {
    /// The newest set: release `release`'s `RunnerSetSpecHash()` of the AutoscalingRunnerSet (or
    /// why it cannot be computed), compared with the set's annotation.
    Judged {
        scale_set: String,
        release: String,
        desired: Result<String, String>,
    },
    /// An old set, not the newest of its scale set (`newest`).
    Old { newest: String },
}

/// Whether the desired runner spec has reached the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Propagation {
    /// Semantic-equal: ARC has written it (or nothing changed).
    Reached,
    /// Not yet.
    Waiting(Waiting),
}

/// A desired runner spec that has not reached the set: the semantic differences, and why ARC may
/// not have acted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// The first paths that differ (at most 3).
    pub paths: Vec<String>,
    /// How many more paths differ.
    pub more: usize,
    pub unobserved: Option<Unobserved>,
}

/// Compare what the AutoscalingRunnerSet wants with the set's runner spec, as ARC's controller
/// does (`apiequality.Semantic.DeepEqual` of `newEphemeralRunnerSet`'s spec and the stored one).
/// `None` when the comparison cannot be made (the desired spec does not build): the set's own
/// state stands.
pub fn propagation(
    layout: &Layout,
    desired: &DesiredSpec,
    runner_spec: Option<&str>,
) -> Option<Propagation> {
    let d = crate::drift::drift(
        layout,
        &desired.spec_json,
        desired.scale_set_id.as_deref(),
        runner_spec,
    )
    .ok()?;
    if !d.semantic_drift() {
        return Some(Propagation::Reached);
    }
    let paths: Vec<String> = d
        .comparison
        .differences
        .iter()
        .filter(|x| !x.reason.semantic_equal())
        .map(|x| x.path.clone())
        .collect();
    Some(Propagation::Waiting(Waiting {
        scale_set: desired.scale_set.clone(),
        more: paths.len().saturating_sub(3),
        paths: paths.into_iter().take(3).collect(),
        unobserved: desired.unobserved,
    }))
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// One set in the census.
#[derive(Debug)]
struct SetEntry {
    facts: SetFacts,
    /// Staleness per distinct runner spec (by hash of its text).
    stale_by_spec: HashMap<u64, Result<bool, String>>,
    /// The set's runner spec failed to decode (found lazily).
    spec_error: Option<String>,
    /// Streaming mode: runners added so far.
    tally: Tally,
    /// What its AutoscalingRunnerSet wants, when known.
    desired: Option<DesiredSpec>,
    /// How often the integrity-hash annotation changed (live mode).
    flips: usize,
    /// ARC up to 0.14: what its scale set says of the set.
    replacement: Option<Replacement>,
}

/// Live mode: one small record per runner, so events can be taken back.
#[derive(Debug, Clone)]
struct RunnerRecord {
    state: RunnerState,
    runner_id: i64,
    spec_hash: u64,
}

#[derive(Debug, Default)]
struct LiveRunners {
    /// Runners by their set, by runner name.
    by_set: HashMap<SetKey, BTreeMap<String, RunnerRecord>>,
    /// Runner (namespace, name) → its set.
    owner: HashMap<(String, String), SetKey>,
    /// Distinct runner spec texts per set, with how many runners use each.
    specs: HashMap<(SetKey, u64), (String, usize)>,
}

/// Per-set aggregation of runners, bounded by the number of sets (streaming) or by one small record
/// per runner (live).
#[derive(Debug)]
pub struct Census {
    layout: &'static Layout,
    sets: HashMap<SetKey, SetEntry>,
    live: Option<LiveRunners>,
}

impl Census {
    /// `live`: keep a record per runner so that runner changes and deletions can be applied.
    pub fn new(layout: &'static Layout, live: bool) -> Census {
        Census {
            layout,
            sets: HashMap::new(),
            live: live.then(LiveRunners::default),
        }
    }

    pub fn contains(&self, key: &SetKey) -> bool {
        self.sets.contains_key(key)
    }

    pub fn keys(&self) -> impl Iterator<Item = &SetKey> {
        self.sets.keys()
    }

    pub fn facts(&self, key: &SetKey) -> Option<&SetFacts> {
        self.sets.get(key).map(|e| &e.facts)
    }

    /// Add or replace a set. Returns its key.
    pub fn upsert_set(&mut self, facts: SetFacts) -> SetKey {
        let key = (facts.namespace.clone(), facts.name.clone());
        match self.sets.get_mut(&key) {
            Some(entry) => {
                if entry.facts.runner_spec != facts.runner_spec {
                    entry.stale_by_spec.clear();
                    entry.spec_error = None;
                }
                if entry.facts.integrity_hash.is_some()
                    && facts.integrity_hash.is_some()
                    && entry.facts.integrity_hash != facts.integrity_hash
                {
                    entry.flips += 1;
                }
                entry.facts = facts;
            }
            None => {
                self.sets.insert(
                    key.clone(),
                    SetEntry {
                        facts,
                        stale_by_spec: HashMap::new(),
                        spec_error: None,
                        tally: Tally::default(),
                        desired: None,
                        flips: 0,
                        replacement: None,
                    },
                );
            }
        }
        key
    }

    /// What the pairing rule needs of every set in the census.
    pub fn pairing_inputs(&self) -> Vec<(SetKey, crate::pairing::RunnerSet<'_>)> {
        self.sets
            .iter()
            .map(|(key, e)| {
                let f = &e.facts;
                (
                    key.clone(),
                    crate::pairing::RunnerSet {
                        namespace: &f.namespace,
                        name: &f.name,
                        owner: f
                            .controller
                            .as_ref()
                            .map(|(a, k, n, u)| (a.as_str(), k.as_str(), n.as_str(), u.as_str())),
                        label_name: f
                            .labels
                            .get(crate::pairing::LABEL_SCALE_SET_NAME)
                            .map(String::as_str),
                        label_namespace: f
                            .labels
                            .get(crate::pairing::LABEL_SCALE_SET_NAMESPACE)
                            .map(String::as_str),
                        creation_timestamp: f.creation_timestamp.as_deref(),
                        deleting: f.deleting,
                    },
                )
            })
            .collect()
    }

    /// Record what the set's AutoscalingRunnerSet wants (`None`: unknown). Returns whether the
    /// set is in the census.
    pub fn set_desired(&mut self, key: &SetKey, desired: Option<DesiredSpec>) -> bool {
        match self.sets.get_mut(key) {
            Some(entry) => {
                entry.desired = desired;
                true
            }
            None => false,
        }
    }

    /// Record what the set's scale set says of a set of ARC up to 0.14 (`None`: unknown).
    pub fn set_replacement(&mut self, key: &SetKey, replacement: Option<Replacement>) {
        if let Some(entry) = self.sets.get_mut(key) {
            entry.replacement = replacement;
        }
    }

    pub fn remove_set(&mut self, key: &SetKey) {
        self.sets.remove(key);
    }

    /// Add a runner (streaming), or add or replace it (live). Returns the key of its set when the
    /// set is in the census; runners of other sets are ignored in streaming mode.
    pub fn add_runner(&mut self, runner: &RunnerFacts<'_>) -> Option<SetKey> {
        let layout = self.layout;
        let set_key = runner
            .set
            .as_ref()
            .map(|s| (runner.namespace.to_string(), s.clone()));
        let spec = runner.spec.unwrap_or("{}");
        let hash = text_hash(spec);
        match &mut self.live {
            None => {
                let key = set_key?;
                let entry = self.sets.get_mut(&key)?;
                let stale = entry.staleness(layout, hash, spec);
                entry
                    .tally
                    .add(&runner.name, runner.state, runner.runner_id, stale);
                Some(key)
            }
            Some(live) => {
                let runner_key = (runner.namespace.to_string(), runner.name.to_string());
                let previous = live.remove(&runner_key);
                let Some(key) = set_key else {
                    return previous.filter(|k| self.sets.contains_key(k));
                };
                live.owner.insert(runner_key.clone(), key.clone());
                live.by_set.entry(key.clone()).or_default().insert(
                    runner_key.1,
                    RunnerRecord {
                        state: runner.state,
                        runner_id: runner.runner_id,
                        spec_hash: hash,
                    },
                );
                live.specs
                    .entry((key.clone(), hash))
                    .or_insert_with(|| (spec.to_string(), 0))
                    .1 += 1;
                Some(key)
            }
        }
    }

    /// Live mode: forget a runner. Returns the key of the set it belonged to.
    pub fn remove_runner(&mut self, namespace: &str, name: &str) -> Option<SetKey> {
        let live = self.live.as_mut()?;
        live.remove(&(namespace.to_string(), name.to_string()))
    }

    /// Live mode: forget every runner (before a relist).
    pub fn clear_runners(&mut self) {
        if let Some(live) = &mut self.live {
            *live = LiveRunners::default();
        }
        for e in self.sets.values_mut() {
            e.tally = Tally::default();
        }
    }

    /// The verdict on one set.
    pub fn status(&mut self, key: &SetKey, now: Option<i64>) -> Option<SetStatus> {
        let layout = self.layout;
        let entry = self.sets.get_mut(key)?;
        if let Some(live) = &self.live {
            let mut tally = Tally::default();
            if let Some(runners) = live.by_set.get(key) {
                for (name, r) in runners {
                    let spec = live
                        .specs
                        .get(&(key.clone(), r.spec_hash))
                        .map(|(t, _)| t.as_str())
                        .unwrap_or("{}");
                    let stale = entry.staleness(layout, r.spec_hash, spec);
                    tally.add(name, r.state, r.runner_id, stale);
                }
            }
            entry.tally = tally;
        }
        let propagation = entry
            .desired
            .as_ref()
            .and_then(|d| propagation(layout, d, entry.facts.runner_spec.as_deref()));
        // The loop is a property of the template: checked only for sets the integrity hash decides.
        let recycle_loop = entry
            .desired
            .as_ref()
            .filter(|_| entry.facts.legacy_annotation)
            .and_then(|d| {
                let t = crate::recycle_loop::round_trip_of_autoscaling_runner_set(
                    layout,
                    &d.spec_json,
                    d.scale_set_id.as_deref(),
                )
                .ok()?;
                t.loops().then(|| RecycleLoop {
                    scale_set: d.scale_set.clone(),
                    paths: t.paths().map(str::to_string).collect(),
                    flips: entry.flips,
                })
            });
        Some(classify(
            &entry.facts,
            &entry.tally,
            entry.spec_error.as_deref(),
            propagation.as_ref(),
            recycle_loop.as_ref(),
            entry.replacement.as_ref(),
            now,
        ))
    }

    /// Every verdict, sorted by namespace and name.
    pub fn statuses(&mut self, now: Option<i64>) -> Vec<SetStatus> {
        let mut keys: Vec<SetKey> = self.sets.keys().cloned().collect();
        keys.sort();
        keys.iter().filter_map(|k| self.status(k, now)).collect()
    }
}

impl LiveRunners {
    fn remove(&mut self, runner_key: &(String, String)) -> Option<SetKey> {
        let set = self.owner.remove(runner_key)?;
        if let Some(runners) = self.by_set.get_mut(&set) {
            if let Some(r) = runners.remove(&runner_key.1) {
                let spec_key = (set.clone(), r.spec_hash);
                if let Some(slot) = self.specs.get_mut(&spec_key) {
                    slot.1 -= 1;
                    if slot.1 == 0 {
                        self.specs.remove(&spec_key);
                    }
                }
            }
            if runners.is_empty() {
                self.by_set.remove(&set);
            }
        }
        Some(set)
    }
}

impl SetEntry {
    /// Whether a runner spec is stale against this set's, cached per distinct spec text.
    fn staleness(&mut self, layout: &Layout, hash: u64, runner_spec: &str) -> Result<bool, String> {
        let set_spec = self.facts.runner_spec.as_deref().unwrap_or("{}");
        if set_spec == runner_spec {
            // Identical bytes decode to identical values: Semantic equality is reflexive.
            return Ok(false);
        }
        if let Some(hit) = self.stale_by_spec.get(&hash) {
            return hit.clone();
        }
        let result = match decode(layout, layout.ephemeral_runner_spec, set_spec) {
            Err(e) => {
                self.spec_error = Some(e.to_string());
                // Not the runner's fault; the set is Invalid and the runner not counted stale.
                Ok(false)
            }
            Ok(set_value) => {
                runners::is_stale(layout, &set_value, runner_spec).map_err(|e| e.to_string())
            }
        };
        self.stale_by_spec.insert(hash, result.clone());
        result
    }
}

/// Annotation recording the id of the latest `kubectl arc bump` request on a set.
pub const ANNOTATION_BUMP_ID: &str = "kubectl-arc/bump-id";
/// Annotation recording `--reason` of the latest bump (removed when that bump gave none).
pub const ANNOTATION_BUMP_REASON: &str = "kubectl-arc/bump-reason";
/// Annotation listing the latest bump requests as `id=revision`, newest last, so that a retry
/// after an unknown outcome recognises its own write even if another bump came after it.
pub const ANNOTATION_RECENT_BUMPS: &str = "kubectl-arc/recent-bumps";
/// How many requests [`ANNOTATION_RECENT_BUMPS`] remembers.
pub const RECENT_BUMPS: usize = 16;

/// One bump request, as the decision sees it.
#[derive(Debug, Clone, Copy)]
pub struct BumpRequest<'a> {
    /// Unique per invocation: written with the revision, recognised on retries.
    pub id: &'a str,
    pub reason: Option<&'a str>,
    /// When NAME also names an AutoscalingRunnerSet: its name and uid, which the set's controller
    /// owner reference must carry.
    pub owner: Option<(&'a str, &'a str)>,
}

/// What a bump does to the set it read.
#[derive(Debug, Clone, PartialEq)]
pub enum BumpDecision {
    /// Write `patch` (a JSON merge patch), moving `spec.actionableRevision` from `before` to `new`.
    Write {
        before: Revisions,
        new: i64,
        patch: Value,
    },
    /// This request's write is already stored (a retry after an unknown outcome).
    AlreadyDone { before: Revisions, revision: i64 },
    /// Refuse, and why.
    Refuse {
        before: Option<Revisions>,
        reason: BumpReason,
    },
}

/// The owner reference a bump found on a set, each field as far as it is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub uid: Option<String>,
}

/// Why `bump` refuses a set, or what it notes of one it bumped, as facts; the English is written by
/// [`crate::render::reason`], and the report carries [`BumpReason::code`] beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BumpReason {
    /// A revision field is not what ARC's Go types accept.
    InvalidRevision { error: RevisionError },
    /// The set's controller owner reference does not name the AutoscalingRunnerSet of the same
    /// name (`scale_set`, `uid`); `found` is the one it names, if any.
    OwnerMismatch {
        scale_set: String,
        uid: String,
        found: Option<OwnerRef>,
    },
    /// `status.phase` is Outdated: ARC would not act on a new revision.
    Outdated,
    /// Bumped, and it still carries the integrity-hash annotation (state Legacy): a note.
    LegacyAnnotation,
}

impl BumpReason {
    /// The stable UpperCamelCase code.
    pub fn code(&self) -> &'static str {
        match self {
            BumpReason::InvalidRevision { .. } => "InvalidRevision",
            BumpReason::OwnerMismatch { .. } => "OwnerMismatch",
            BumpReason::Outdated => "Outdated",
            BumpReason::LegacyAnnotation => "LegacyAnnotation",
        }
    }
}

fn annotation<'v>(ers: &'v Value, key: &str) -> Option<&'v str> {
    ers.pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

/// The `id=revision` entries of [`ANNOTATION_RECENT_BUMPS`].
fn recent_bumps(ers: &Value) -> Vec<(String, i64)> {
    annotation(ers, ANNOTATION_RECENT_BUMPS)
        .unwrap_or("")
        .split(',')
        .filter_map(|e| {
            let (id, rev) = e.trim().split_once('=')?;
            Some((id.to_string(), rev.parse().ok()?))
        })
        .collect()
}

/// The revision this request wrote, if the set records it.
pub fn recorded_bump(ers: &Value, id: &str) -> Option<i64> {
    recent_bumps(ers)
        .into_iter()
        .rev()
        .find(|(i, _)| i == id)
        .map(|(_, r)| r)
}

/// The bump decision for the set as just read: `nextActionableRevision` (max(spec, applied) + 1),
/// written together with the request id, unless this request already wrote it, the set is in
/// phase Outdated (a new revision would not be acted on), its revision fields are not integers,
/// or it is not owned by the AutoscalingRunnerSet of the same name.
pub fn decide_bump(ers: &Value, request: &BumpRequest<'_>) -> BumpDecision {
    let revisions = match Revisions::from_object(ers) {
        Ok(r) => r,
        Err(e) => {
            return BumpDecision::Refuse {
                before: None,
                reason: BumpReason::InvalidRevision { error: e },
            };
        }
    };
    if let Some(revision) = recorded_bump(ers, request.id) {
        return BumpDecision::AlreadyDone {
            before: revisions,
            revision,
        };
    }
    if let Some((ars, uid)) = request.owner {
        let owner = ers
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .and_then(|refs| {
                refs.iter().find(|o| {
                    o.get("controller").and_then(Value::as_bool) == Some(true)
                        || o.get("kind").and_then(Value::as_str) == Some("AutoscalingRunnerSet")
                })
            });
        let matches = owner.is_some_and(|o| {
            o.get("kind").and_then(Value::as_str) == Some("AutoscalingRunnerSet")
                && o.get("name").and_then(Value::as_str) == Some(ars)
                && o.get("uid").and_then(Value::as_str) == Some(uid)
        });
        if !matches {
            let field = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
            return BumpDecision::Refuse {
                before: Some(revisions),
                reason: BumpReason::OwnerMismatch {
                    scale_set: ars.to_string(),
                    uid: uid.to_string(),
                    found: owner.map(|o| OwnerRef {
                        kind: field(o, "kind"),
                        name: field(o, "name"),
                        uid: field(o, "uid"),
                    }),
                },
            };
        }
    }
    if ers.pointer("/status/phase").and_then(Value::as_str) == Some("Outdated") {
        return BumpDecision::Refuse {
            before: Some(revisions),
            reason: BumpReason::Outdated,
        };
    }
    let new = revisions.next();
    let mut recent = recent_bumps(ers);
    recent.push((request.id.to_string(), new));
    let skip = recent.len().saturating_sub(RECENT_BUMPS);
    let recent: Vec<String> = recent[skip..]
        .iter()
        .map(|(i, r)| format!("{i}={r}"))
        .collect();
    let patch = serde_json::json!({
        "metadata": {"annotations": {
            ANNOTATION_BUMP_ID: request.id,
            ANNOTATION_BUMP_REASON: request.reason,
            ANNOTATION_RECENT_BUMPS: recent.join(","),
        }},
        "spec": {"actionableRevision": new},
    });
    BumpDecision::Write {
        before: revisions,
        new,
        patch,
    }
}

/// Check a stored set after this request wrote revision `new`: the revision is there with the
/// request recorded, or a later write (which read ours, being guarded too) moved it further.
pub fn check_bump(ers: &Value, id: &str, new: i64) -> Result<(), String> {
    let spec = ers
        .pointer("/spec/actionableRevision")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if spec > new || (spec == new && recorded_bump(ers, id) == Some(new)) {
        Ok(())
    } else {
        Err(format!(
            "spec.actionableRevision is {spec}, expected {new} written by bump {id} \
             (is the field in the installed CRD? Helm does not upgrade CRDs)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(spec_rev: Value, applied: Value, extra: Value) -> SetFacts {
        let mut obj = json!({
            "metadata": {"name": "runners", "namespace": "arc", "creationTimestamp": "2026-09-01T00:00:00Z"},
            "spec": {"actionableRevision": spec_rev, "ephemeralRunnerSpec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": "a"}]}}},
            "status": {"appliedActionableRevision": applied},
        });
        merge(&mut obj, extra);
        SetFacts::from_json(&obj.to_string()).unwrap()
    }

    fn merge(a: &mut Value, b: Value) {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k).or_insert(Value::Null), v);
                }
            }
            (a, b) => *a = b,
        }
    }

    fn runner(name: &str, image: &str, status: Value) -> String {
        json!({
            "metadata": {"name": name, "namespace": "arc", "ownerReferences": [
                {"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet", "name": "runners", "uid": "u", "controller": true}
            ]},
            "spec": {"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": image}]}},
            "status": status,
        })
        .to_string()
    }

    /// A set still decided by the integrity hash whose scale set's template loops is RecycleLoop,
    /// with the fields named, and the annotation's flips counted while it is watched; the same
    /// template written as Go writes it is not (issue 13).
    #[test]
    fn a_looping_template_on_a_legacy_set_is_a_recycle_loop_and_flips_are_counted() {
        let layout = Layout::arc();
        let legacy = |hash: &str| {
            set(
                json!(0),
                json!(0),
                // As ARC stored it: the template after Go's round trip (no env, cpu 1).
                json!({
                    "metadata": {"annotations": {"actions.github.com/integrity-hash": hash}},
                    "spec": {"ephemeralRunnerSpec": {"runnerScaleSetId": 1, "spec": {"containers": [
                        {"name": "runner", "image": "a", "resources": {"limits": {"cpu": "1"}}}
                    ]}}}
                }),
            )
        };
        let desired = |template: &str| DesiredSpec {
            scale_set: "arc/runners".into(),
            spec_json: format!(
                r#"{{"githubConfigUrl":"https://github.com/o","template":{{"spec":{{"containers":[{{"name":"runner","image":"a"{template}}}]}}}}}}"#
            ),
            scale_set_id: Some("1".into()),
            unobserved: None,
        };
        let key = ("arc".to_string(), "runners".to_string());
        let mut census = Census::new(layout, true);
        census.upsert_set(legacy("aaaa"));
        census.set_desired(
            &key,
            Some(desired(
                r#","env":[],"resources":{"limits":{"cpu":"1000m"}}"#,
            )),
        );
        for hash in ["bbbb", "aaaa", "bbbb"] {
            census.upsert_set(legacy(hash));
        }
        let row = census.status(&key, None).unwrap();
        assert_eq!(row.state, State::RecycleLoop, "{:?}", row.reasons);
        assert_eq!(
            row.reasons[0],
            StatusReason::RecycleLoop {
                scale_set: "arc/runners".into(),
                paths: vec![
                    "spec.containers[0].env".into(),
                    "spec.containers[0].resources.limits.cpu".into()
                ],
                flips: 3,
            }
        );
        // Written as Go writes it: no loop; the set is only Legacy (migrate has not run).
        census.set_desired(
            &key,
            Some(desired(r#","resources":{"limits":{"cpu":"1"}}"#)),
        );
        assert_eq!(census.status(&key, None).unwrap().state, State::Legacy);
    }

    fn census_with(facts: SetFacts, runners: &[String], live: bool) -> SetStatus {
        let mut c = Census::new(Layout::arc(), live);
        let key = c.upsert_set(facts);
        for r in runners {
            c.add_runner(&RunnerFacts::from_json(r).unwrap());
        }
        c.status(&key, unix_seconds("2026-09-01T01:00:00Z"))
            .unwrap()
    }

    #[test]
    fn every_state() {
        let synced = census_with(
            set(json!(2), json!(2), json!({})),
            &[
                runner("r1", "a", json!({"phase": "Running", "runnerId": 5})),
                runner(
                    "r2",
                    "old",
                    json!({"phase": "Running", "jobId": "9", "runnerId": 6}),
                ),
            ],
            false,
        );
        assert_eq!(synced.state, State::Synced);
        assert_eq!(synced.runners.idle, 1);
        assert_eq!(synced.runners.busy, 1);
        assert_eq!(synced.runners.stale, 1, "a busy runner is counted");
        assert_eq!(synced.age_seconds, Some(3600));
        assert_eq!(
            synced.reasons,
            vec![StatusReason::RunnersBusy {
                runners: Examples {
                    count: 1,
                    names: vec!["r2".into()]
                }
            }]
        );

        let pending = census_with(set(json!(3), json!(2), json!({})), &[], false);
        assert_eq!(pending.state, State::Pending);
        assert_eq!(
            pending.reasons[0],
            StatusReason::RevisionNotAcknowledged {
                spec: 3,
                applied: 2
            }
        );

        let stale = census_with(
            set(json!(2), json!(2), json!({})),
            &[runner("r1", "old", json!({"phase": "Pending"}))],
            true,
        );
        assert_eq!(stale.state, State::Stale);
        assert_eq!(stale.runners.stale, 1);
        let codes: Vec<&str> = stale.reasons.iter().map(StatusReason::code).collect();
        assert_eq!(codes, ["StaleRunners", "RunnersUnregistered"]);

        let legacy = census_with(
            set(
                json!(0),
                json!(0),
                json!({"metadata": {"annotations": {"actions.github.com/integrity-hash": "x"}}}),
            ),
            &[],
            false,
        );
        assert_eq!(legacy.state, State::Legacy);

        let ahead = census_with(set(json!(2), json!(5), json!({})), &[], false);
        assert_eq!(ahead.state, State::Invalid);
        assert_eq!(
            ahead.reasons[0],
            StatusReason::AppliedAhead {
                spec: 2,
                applied: 5,
                next: 6
            }
        );

        let wrong_type = census_with(set(json!("five"), json!(1), json!({})), &[], false);
        assert_eq!(wrong_type.state, State::Invalid);
        assert_eq!(wrong_type.spec_revision, None);
        assert!(
            matches!(&wrong_type.reasons[0], StatusReason::SetUndecodable { error } if error.contains("not an integer")),
            "{wrong_type:?}"
        );
    }

    #[test]
    fn live_runners_can_be_taken_back() {
        let mut c = Census::new(Layout::arc(), true);
        let key = c.upsert_set(set(json!(2), json!(2), json!({})));
        c.add_runner(
            &RunnerFacts::from_json(&runner("r1", "old", json!({"phase": "Running"}))).unwrap(),
        );
        assert_eq!(c.status(&key, None).unwrap().state, State::Stale);
        c.add_runner(
            &RunnerFacts::from_json(&runner(
                "r1",
                "old",
                json!({"phase": "Running", "jobId": "1"}),
            ))
            .unwrap(),
        );
        let s = c.status(&key, None).unwrap();
        assert_eq!(
            (s.state, s.runners.busy, s.runners.idle),
            (State::Synced, 1, 0)
        );
        c.remove_runner("arc", "r1");
        assert_eq!(
            c.status(&key, None).unwrap().runners,
            RunnerCounts::default()
        );
    }

    #[test]
    fn revision_writer_comes_from_managed_fields() {
        let f = set(
            json!(4),
            json!(3),
            json!({"metadata": {"managedFields": [
                {"manager": "arc", "operation": "Update", "time": "2026-09-01T00:10:00Z", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                {"manager": "kubectl-arc", "operation": "Update", "time": "2026-09-01T00:50:00Z", "fieldsV1": {"f:spec": {"f:actionableRevision": {}}}},
                {"manager": "ctl", "operation": "Update", "subresource": "status", "time": "2026-09-01T00:55:00Z", "fieldsV1": {"f:status": {}}}
            ]}}),
        );
        assert_eq!(f.revision_writer.as_ref().unwrap().manager, "kubectl-arc");
        let s = census_with(f, &[], false);
        assert!(
            s.reasons.iter().any(|r| *r
                == StatusReason::RevisionWrittenBy {
                    manager: "kubectl-arc".into(),
                    ago_seconds: Some(600)
                }),
            "{s:?}"
        );
    }

    #[test]
    fn ages_like_kubectl() {
        let cases = [
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 60, "3h1m"),
            (47 * 3600, "47h"),
            (49 * 3600, "2d1h"),
            (10 * 86400, "10d"),
            (3 * 365 * 86400, "3y"),
        ];
        for (s, want) in cases {
            assert_eq!(human_duration(s), want, "{s}");
        }
    }

    #[test]
    fn bump_is_max_plus_one_once_per_request() {
        let ers = json!({"metadata": {"annotations": {"kubectl-arc/recent-bumps": "old=3"}}, "spec": {"actionableRevision": 3}, "status": {"appliedActionableRevision": 5}});
        let req = BumpRequest {
            id: "abc",
            reason: Some("new image"),
            owner: None,
        };
        let BumpDecision::Write { new, patch, .. } = decide_bump(&ers, &req) else {
            panic!()
        };
        assert_eq!(new, 6);
        assert_eq!(
            patch["metadata"]["annotations"]["kubectl-arc/recent-bumps"],
            "old=3,abc=6"
        );
        assert_eq!(
            patch["metadata"]["annotations"]["kubectl-arc/bump-reason"],
            "new image"
        );
        let mut written = ers.clone();
        merge(&mut written, patch);
        assert_eq!(check_bump(&written, "abc", 6), Ok(()));
        assert!(check_bump(&ers, "abc", 6).is_err());
        assert_eq!(
            decide_bump(&written, &req),
            BumpDecision::AlreadyDone {
                before: Revisions {
                    spec: 6,
                    applied: 5
                },
                revision: 6
            }
        );
        let outdated = json!({"spec": {"actionableRevision": 1}, "status": {"phase": "Outdated"}});
        assert!(matches!(
            decide_bump(&outdated, &req),
            BumpDecision::Refuse {
                reason: BumpReason::Outdated,
                ..
            }
        ));
        let foreign = json!({"metadata": {"ownerReferences": [{"kind": "AutoscalingRunnerSet", "name": "x", "uid": "1", "controller": true}]}, "spec": {}});
        let owned = BumpRequest {
            owner: Some(("x", "2")),
            ..req
        };
        assert_eq!(
            decide_bump(&foreign, &owned),
            BumpDecision::Refuse {
                before: Some(Revisions::default()),
                reason: BumpReason::OwnerMismatch {
                    scale_set: "x".into(),
                    uid: "2".into(),
                    found: Some(OwnerRef {
                        kind: Some("AutoscalingRunnerSet".into()),
                        name: Some("x".into()),
                        uid: Some("1".into()),
                    }),
                },
            }
        );
        let owned = BumpRequest {
            owner: Some(("x", "1")),
            ..req
        };
        assert!(matches!(
            decide_bump(&foreign, &owned),
            BumpDecision::Write { new: 1, .. }
        ));
    }

    #[test]
    fn recent_bumps_are_bounded() {
        let many: Vec<String> = (0..40).map(|i| format!("id{i}={i}")).collect();
        let ers = json!({"metadata": {"annotations": {"kubectl-arc/recent-bumps": many.join(",")}}, "spec": {"actionableRevision": 39}});
        let req = BumpRequest {
            id: "new",
            reason: None,
            owner: None,
        };
        let BumpDecision::Write { patch, .. } = decide_bump(&ers, &req) else {
            panic!()
        };
        let recent = patch["metadata"]["annotations"]["kubectl-arc/recent-bumps"]
            .as_str()
            .unwrap();
        assert_eq!(recent.split(',').count(), RECENT_BUMPS);
        assert!(recent.ends_with("new=40"));
        assert!(patch["metadata"]["annotations"]["kubectl-arc/bump-reason"].is_null());
    }
}

#[cfg(test)]
mod hash_era_tests {
    use super::*;
    use serde_json::json;

    fn hash_era_set(replicas: i64) -> SetFacts {
        let obj = json!({
            "metadata": {"name": "runners-x7k2p", "namespace": "arc",
                "annotations": {"actions.github.com/runner-spec-hash": "84cffb96c6"}},
            "spec": {"replicas": replicas, "ephemeralRunnerSpec": {"spec": {"containers": []}}},
        });
        SetFacts::from_json(&obj.to_string()).unwrap()
    }

    fn judged(desired: Result<&str, &str>) -> Replacement {
        Replacement::Judged {
            scale_set: "arc/runners".into(),
            release: "0.14.2".into(),
            desired: desired.map(str::to_string).map_err(str::to_string),
        }
    }

    fn state(facts: &SetFacts, tally: &Tally, r: Option<&Replacement>) -> SetStatus {
        classify(facts, tally, None, None, None, r, None)
    }

    #[test]
    fn a_hash_era_set_is_synced_when_the_hashes_agree_and_replacing_when_not() {
        let facts = hash_era_set(1);
        assert_eq!(facts.runner_spec_hash.as_deref(), Some("84cffb96c6"));
        let tally = Tally::default();
        let synced = state(&facts, &tally, Some(&judged(Ok("84cffb96c6"))));
        assert_eq!(synced.state, State::Synced);
        assert_eq!(synced.reasons[0].code(), "SpecHashMatches");
        let replacing = state(&facts, &tally, Some(&judged(Ok("595bdbd674"))));
        assert_eq!(replacing.state, State::Replacing);
        assert_eq!(replacing.reasons.len(), 1);
        assert_eq!(replacing.reasons[0].code(), "ReplacementPending");
        assert_eq!(
            (replacing.spec_revision, replacing.applied_revision),
            (None, None)
        );
    }

    #[test]
    fn a_set_scaled_to_zero_with_runners_waits_for_jobs_under_eventual() {
        let facts = hash_era_set(0);
        let mut tally = Tally::default();
        tally.add("r1", RunnerState::Busy, 3, Ok(true));
        let s = state(&facts, &tally, Some(&judged(Ok("595bdbd674"))));
        assert_eq!(s.state, State::Replacing);
        let codes: Vec<_> = s.reasons.iter().map(StatusReason::code).collect();
        assert_eq!(codes, ["ReplacementPending", "ReplacementWaitsForJobs"]);
    }

    #[test]
    fn an_old_set_is_draining_and_an_unknown_scale_set_stays_spec_hash() {
        let facts = hash_era_set(0);
        let tally = Tally::default();
        let old = Replacement::Old {
            newest: "runners-q9z4m".into(),
        };
        assert_eq!(state(&facts, &tally, Some(&old)).state, State::Draining);
        assert_eq!(state(&facts, &tally, None).state, State::SpecHash);
        let unknown = state(&facts, &tally, Some(&judged(Err("no engine"))));
        assert_eq!(unknown.state, State::SpecHash);
        assert_eq!(unknown.reasons[0].code(), "SpecHashUnknown");
    }
}
