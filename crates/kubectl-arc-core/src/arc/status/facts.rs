//! What status reads of an EphemeralRunnerSet and of a runner: facts from the one [`Object`] (or
//! an object's JSON text).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::arc::{
    ANNOTATION_ACTIONABLE_REVISION, ANNOTATION_INTEGRITY_HASH, ANNOTATION_RUNNER_SPEC_HASH,
};
use crate::object::Object;
use crate::revision::{RevisionError, Revisions};
use crate::runners::{self, RunnerState};

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
    /// `metadata.deletionTimestamp` and `metadata.finalizers`, when being deleted.
    pub deletion: Option<super::Deletion>,
    /// The runner counts of its status, when all four are integers (`None` before ARC wrote
    /// them: `currentReplicas` is required once a status exists).
    pub counters: Option<Counters>,
    /// ARC wrote a status (`status.currentReplicas` is there: `updateStatus` writes it every
    /// time), whatever a dump says of the runners.
    pub status_written: bool,
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
    /// What a failed runner's status says, or a deleting one's finalizers (`None` otherwise).
    pub extra: Option<RunnerExtra>,
}

/// What status keeps of a failed runner, or of one being deleted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunnerExtra {
    /// `metadata.creationTimestamp`.
    pub created: Option<String>,
    /// `status.reason`, `status.message`, and how many entries `status.failures` has.
    pub reason: Option<String>,
    pub message: Option<String>,
    pub failures: usize,
    /// The latest time among `status.failures` (ARC's `LastFailure()`), when there is one.
    pub last_failure: Option<String>,
    pub deletion: Option<super::Deletion>,
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
    #[serde(default)]
    finalizers: Option<Vec<String>>,
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

impl<'a> ObjectText<'a> {
    /// The parts of `object` as [`ObjectText`] reads them from the whole text: its metadata read
    /// from the metadata text (`None` when Go would not decode it: the caller reads the whole
    /// text for the error), `spec` and `status` as they are.
    fn of(object: &'a Object) -> Option<ObjectText<'a>> {
        let metadata = match &object.metadata {
            None => MetaText::default(),
            Some(raw) => serde_json::from_str(raw.get()).ok()?,
        };
        Some(ObjectText {
            metadata,
            spec: object.spec.as_deref(),
            status: object.status.as_deref(),
        })
    }
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
    #[serde(default)]
    current_replicas: Value,
    #[serde(default)]
    pending_ephemeral_runners: Value,
    #[serde(default)]
    running_ephemeral_runners: Value,
    #[serde(default)]
    failed_ephemeral_runners: Value,
}

/// The runner counts an EphemeralRunnerSet's status holds, as ARC's `updateStatus` writes them:
/// `currentReplicas` is `scaleTotal()` (pending + running + failed), and the pending, running and
/// failed runners of `newEphemeralRunnersByStates` (phase Running counts as running, any phase
/// other than Running, Succeeded, Failed and Outdated as pending; deleting runners not at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    pub current: i64,
    pub pending: i64,
    pub running: i64,
    pub failed: i64,
}

impl Counters {
    /// What ARC's `updateStatus` writes for runners counted so.
    pub fn of(pending: usize, running: usize, failed: usize) -> Counters {
        let (pending, running, failed) = (pending as i64, running as i64, failed as i64);
        Counters {
            current: pending + running + failed,
            pending,
            running,
            failed,
        }
    }
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
        Ok(SetFacts::from_parts(obj))
    }

    /// [`SetFacts::from_json`] of the one [`Object`], read from its parts: its metadata text, its
    /// `spec` and `status` as they are, never the whole object written out and read again. The
    /// same facts, and the same error for an object whose metadata Go would not decode.
    pub fn from_object(object: &Object) -> Result<SetFacts, String> {
        match ObjectText::of(object) {
            Some(obj) => Ok(SetFacts::from_parts(obj)),
            None => SetFacts::from_json(&object.json()),
        }
    }

    fn from_parts(obj: ObjectText<'_>) -> SetFacts {
        let meta = obj.metadata;
        let mut problems = Vec::new();
        let spec_missing = obj.spec.is_none();
        let (spec_revision, replicas, runner_spec) = read_spec(obj.spec, &mut problems);
        let StatusRead {
            applied,
            phase,
            counters,
            status_written,
        } = read_status(obj.status, &mut problems);
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
        let deletion = deleting.then(|| super::Deletion {
            since: meta
                .deletion_timestamp
                .as_ref()
                .and_then(Value::as_str)
                .map(str::to_string),
            finalizers: meta.finalizers.clone().unwrap_or_default(),
        });
        SetFacts {
            deletion,
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
            counters,
            status_written,
            runner_spec,
            revision_writer: revision_writer(meta.managed_fields.as_deref().unwrap_or(&[])),
        }
    }
}

/// What a set's `spec` says: the revision asked for, `replicas` and the runner spec's JSON text. A
/// missing spec, or one that is not an `EphemeralRunnerSetSpec`, is a problem (the set is Invalid).
fn read_spec(
    spec: Option<&RawValue>,
    problems: &mut Vec<String>,
) -> (Value, Option<i64>, Option<String>) {
    match spec {
        None => {
            problems.push(RevisionError::MissingSpec.to_string());
            (Value::Null, None, None)
        }
        Some(raw) => match serde_json::from_str::<SetSpecText>(raw.get()) {
            Ok(s) => (
                s.actionable_revision,
                s.replicas.as_i64(),
                s.ephemeral_runner_spec.map(|r| r.get().to_string()),
            ),
            Err(e) => {
                problems.push(format!("spec is not an EphemeralRunnerSetSpec: {e}"));
                (Value::Null, None, None)
            }
        },
    }
}

/// What a set's `status` says, for [`read_status`].
struct StatusRead {
    /// `status.appliedActionableRevision` as written (`null` when absent).
    applied: Value,
    phase: Option<String>,
    counters: Option<Counters>,
    /// Whether `status.currentReplicas` is written (ARC writes it on every reconcile).
    status_written: bool,
}

/// Read a set's `status`: the revision applied, the phase and the runner counts ARC wrote. A
/// status that is not an `EphemeralRunnerSetStatus`, or a phase that is not a string, is a problem.
fn read_status(status: Option<&RawValue>, problems: &mut Vec<String>) -> StatusRead {
    let none = StatusRead {
        applied: Value::Null,
        phase: None,
        counters: None,
        status_written: false,
    };
    let Some(raw) = status else {
        return none;
    };
    let s = match serde_json::from_str::<SetStatusText>(raw.get()) {
        Ok(s) => s,
        Err(e) => {
            problems.push(format!("status is not an EphemeralRunnerSetStatus: {e}"));
            return none;
        }
    };
    let counters = match (
        s.current_replicas.as_i64(),
        s.pending_ephemeral_runners.as_i64(),
        s.running_ephemeral_runners.as_i64(),
        s.failed_ephemeral_runners.as_i64(),
    ) {
        // Go's encoding/json omits none of them (no omitempty): a status ARC wrote has all four.
        (Some(current), Some(pending), Some(running), Some(failed)) => Some(Counters {
            current,
            pending,
            running,
            failed,
        }),
        _ => None,
    };
    let phase = match s.phase {
        Value::Null => None,
        Value::String(p) => Some(p),
        other => {
            problems.push(format!("status.phase is {other}, not a string"));
            None
        }
    };
    StatusRead {
        applied: s.applied_actionable_revision,
        phase,
        counters,
        status_written: s.current_replicas.is_i64(),
    }
}

/// ARC's `EphemeralRunnerStatus.LastFailure()`: the latest of `status.failures` (a map of Pod
/// UID to `metav1.Time`), compared as times; `None` for none.
fn last_failure(failures: Option<&serde_json::Map<String, Value>>) -> Option<String> {
    failures?
        .values()
        .filter_map(Value::as_str)
        .filter_map(|t| Some((super::unix_seconds(t)?, t)))
        .max_by_key(|(seconds, _)| *seconds)
        .map(|(_, t)| t.to_string())
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
        Ok(RunnerFacts::from_parts(obj))
    }

    /// [`RunnerFacts::from_json`] of the one [`Object`], from its parts (as
    /// [`SetFacts::from_object`]), borrowing its spec. An object whose metadata Go would not
    /// decode gives the error `from_json` gives.
    pub fn from_object(object: &'a Object) -> Result<RunnerFacts<'a>, String> {
        match ObjectText::of(object) {
            Some(obj) => Ok(RunnerFacts::from_parts(obj)),
            None => Err(RunnerFacts::from_json(&object.json())
                .err()
                .unwrap_or_else(|| {
                    "not an EphemeralRunner object: its metadata does not decode".to_string()
                })),
        }
    }

    fn from_parts(obj: ObjectText<'a>) -> RunnerFacts<'a> {
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
        let state = RunnerState::of(&view);
        let deleting = obj
            .metadata
            .deletion_timestamp
            .as_ref()
            .is_some_and(|t| !t.is_null());
        let failures = status.get("failures").and_then(Value::as_object);
        // A runner with failed Pods may be in ARC's failure back-off: its failures are kept too.
        let failed_pods = failures.is_some_and(|f| !f.is_empty());
        let extra = (state == RunnerState::Failed || deleting || failed_pods).then(|| {
            let text = |p: &str| {
                status
                    .pointer(p)
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            RunnerExtra {
                created: obj.metadata.creation_timestamp.clone(),
                reason: text("/reason").filter(|r| !r.is_empty()),
                message: text("/message").filter(|m| !m.is_empty()),
                failures: failures.map_or(0, |f| f.len()),
                last_failure: last_failure(failures),
                deletion: deleting.then(|| super::Deletion {
                    since: obj
                        .metadata
                        .deletion_timestamp
                        .as_ref()
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    finalizers: obj.metadata.finalizers.clone().unwrap_or_default(),
                }),
            }
        });
        RunnerFacts {
            extra,
            namespace: obj.metadata.namespace.unwrap_or(Cow::Borrowed("")),
            name: obj.metadata.name.unwrap_or(Cow::Borrowed("")),
            set: runners::owner_set(&view).map(str::to_string),
            state,
            runner_id: runners::runner_id(&view),
            spec: obj.spec.map(RawValue::get),
            created_for_revision,
        }
    }
}

#[cfg(test)]
mod from_object_tests {
    use super::*;
    use crate::object::Origin;
    use serde_json::json;

    fn object(value: &Value) -> Object {
        Object::from_manifest(value, Origin::Cluster, None)
    }

    /// Sets and runners shaped as ARC writes them, and as it never would: each read from the
    /// object's parts gives what its whole text gives, errors included.
    fn cases() -> Vec<Value> {
        let meta = json!({
            "name": "s", "namespace": "ns", "uid": "u", "resourceVersion": "7",
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"actions.github.com/scale-set-name": "a"},
            "annotations": {ANNOTATION_INTEGRITY_HASH: "h", ANNOTATION_ACTIONABLE_REVISION: "3"},
            "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1",
                "kind": "AutoscalingRunnerSet", "name": "a", "uid": "x", "controller": true}],
            "finalizers": ["f"],
            "managedFields": [{"manager": "m", "time": "2026-01-01T00:00:01Z",
                "fieldsV1": {"f:spec": {"f:actionableRevision": {}}}}],
        });
        vec![
            json!({"metadata": meta, "spec": {"actionableRevision": 4, "replicas": 2,
                "ephemeralRunnerSpec": {"githubConfigUrl": "u"}},
                "status": {"appliedActionableRevision": 3, "phase": "Running",
                "currentReplicas": 1, "pendingEphemeralRunners": 1,
                "runningEphemeralRunners": 0, "failedEphemeralRunners": 0,
                "failures": {"p": "2026-01-01T00:00:02Z"}, "reason": "r"}}),
            json!({"metadata": {"name": "d", "deletionTimestamp": "2026-01-01T00:00:00Z"}}),
            json!({"metadata": {"name": "bad"}, "spec": {"actionableRevision": "x"},
                "status": {"phase": 3}}),
            json!({"metadata": {"name": 3}}),
            json!({"metadata": {"annotations": {"a": 1}}, "spec": []}),
            json!({"metadata": "x"}),
            json!({}),
        ]
    }

    #[test]
    fn set_facts_from_the_parts_are_the_facts_of_the_text() {
        for case in cases() {
            let o = object(&case);
            assert_eq!(
                SetFacts::from_object(&o),
                SetFacts::from_json(&o.json()),
                "{case}"
            );
        }
    }

    #[test]
    fn runner_facts_from_the_parts_are_the_facts_of_the_text() {
        for case in cases() {
            let o = object(&case);
            let text = o.json();
            assert_eq!(
                RunnerFacts::from_object(&o),
                RunnerFacts::from_json(&text),
                "{case}"
            );
        }
    }
}
