//! The integrity-hash recycle loop: does a desired runner spec survive Go's JSON round trip with
//! the same legacy hash?
//!
//! Pure core. On an integrity-hash-era ARC (PR #4516, before the revision fields of PR #4638) the
//! AutoscalingRunnerSet controller hashes the desired EphemeralRunnerSet spec it builds **in
//! memory** (`newEphemeralRunnerSet`, then `ephemeralRunnerSetIntegrityHash`) and compares that with
//! the set's `actions.github.com/integrity-hash` annotation, while the EphemeralRunnerSet controller
//! hashes the spec **as read back** from the API server, cleans up idle and pending runners when the
//! annotation differs, and writes its own hash. When the spec changes on the way through the API
//! server, the two hashes never agree: each controller overwrites the other's annotation and every
//! flip deletes idle and pending runners, for as long as the template stays as it is.
//!
//! [`round_trip`] follows the spec on that way, step by step:
//! 1. [`marshal`]: `encoding/json.Marshal`, as ARC's client writes the set (`omitempty` drops
//!    `env: []` and `nodeSelector: {}`; `resource.Quantity.MarshalJSON` writes the canonical form,
//!    `1000m` as `1`; `metav1.Time.MarshalJSON` writes whole seconds in UTC);
//! 2. [`decode`]: `sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts`, as controller-runtime
//!    reads it back;
//! 3. [`integrity_hash`]: ARC's `ephemeralRunnerSetIntegrityHash` of both values; they loop exactly
//!    when the two hashes differ.
//!
//! The fields that change are found with [`compare`] (the same walk and path spelling as `diff`:
//! `spec.containers[0].env`), each with the [`Cause`] a renderer turns into a fix.
//!
//! The revision-era ARC compares with `apiequality.Semantic.DeepEqual`, which equates every such
//! change (nil and empty, two notations of one quantity, one instant), so it does not loop.

use crate::desired::{Built, desired_runner_spec_with_id, go_atoi};
use crate::equality::{Reason, compare, identical, push_key};
use crate::layout::{Kind, Layout, TypeId};
use crate::legacy_hash::{Unverifiable, integrity_hash};
use crate::marshal::{MarshalError, marshal};
use crate::quantity::Quantity;
use crate::value::{DecodeError, Value, decode};

/// A desired runner spec's trip through the API server.
#[derive(Debug, Clone)]
pub struct RoundTrip {
    /// The JSON Go writes for the in-memory spec (`encoding/json.Marshal`).
    pub written: String,
    /// ARC's integrity hash of the spec built in memory (what the AutoscalingRunnerSet controller
    /// compares with the annotation). [`Unverifiable`] when the spec holds a set time, whose Go
    /// rendering depends on the controller's process.
    pub hash_in_memory: Result<String, Unverifiable>,
    /// ARC's integrity hash of the spec read back (what the EphemeralRunnerSet controller writes).
    pub hash_read_back: Result<String, Unverifiable>,
    /// Every field that differs between the two values, in the diff's path spelling.
    pub changes: Vec<Change>,
}

impl RoundTrip {
    /// Whether ARC's integrity-hash-era controllers flip the annotation forever, recycling idle
    /// and pending runners each time: the two hashes differ.
    ///
    /// When a hash cannot be reproduced (a set time prints the process's local zone), both are
    /// computed in the same controller process, so they differ exactly when the values do.
    pub fn loops(&self) -> bool {
        match (&self.hash_in_memory, &self.hash_read_back) {
            (Ok(a), Ok(b)) => a != b,
            _ => !self.changes.is_empty(),
        }
    }

    /// The paths of the fields that change in the round trip.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.changes.iter().map(|c| c.path.as_str())
    }
}

/// One field that Go's JSON round trip changes.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// JSON path, as `diff` spells it: `spec.containers[0].resources.limits.cpu`.
    pub path: String,
    /// How the in-memory and read-back values differ ([`crate::equality`]'s classes).
    pub reason: Reason,
    pub cause: Cause,
}

/// Why a field changes in the round trip: what a renderer needs to say how to avoid it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// An empty, non-nil list under `omitempty`: Go leaves it out and it reads back as none
    /// (`env: []`).
    EmptyListOmitted,
    /// An empty, non-nil map under `omitempty` (`nodeSelector: {}`).
    EmptyMapOmitted,
    /// A quantity not held in Go's canonical form: `Quantity.MarshalJSON` writes `written`, which
    /// parses into another representation of the same number (`1000m` is written `1`).
    QuantityRewritten {
        in_memory: Box<Quantity>,
        written: String,
    },
    /// A time `metav1.Time.MarshalJSON` writes otherwise: `written` is the RFC 3339 text in UTC
    /// with whole seconds, or `null` for the zero instant.
    TimeRewritten { written: String },
    /// Any other change.
    Other,
}

/// Why the round trip cannot be made: ARC itself would fail to write or to read the set (an
/// error, not a loop).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoundTripError {
    /// Go's `json.Marshal` fails on the in-memory spec.
    #[error("Go's json.Marshal fails on the runner spec: {0}")]
    Marshal(#[from] MarshalError),
    /// What Go writes does not decode again (a time whose UTC year leaves 0000-9999).
    #[error("the runner spec Go writes does not read back: {0}")]
    ReadBack(#[from] DecodeError),
}

/// Why the desired spec of an AutoscalingRunnerSet cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecycleLoopError {
    /// The AutoscalingRunnerSet's spec does not decode into ARC's Go types.
    #[error("AutoscalingRunnerSet spec does not decode into ARC's Go types: {0}")]
    Decode(DecodeError),
    #[error(transparent)]
    RoundTrip(#[from] RoundTripError),
}

/// Follow the desired `EphemeralRunnerSpec` value `desired` (as [`crate::desired`] builds
/// it) through `encoding/json.Marshal` and the controller-runtime decoder, hash both sides with
/// ARC's `ephemeralRunnerSetIntegrityHash`, and name what changes.
pub fn round_trip(layout: &Layout, desired: &Value) -> Result<RoundTrip, RoundTripError> {
    round_trip_hashed(layout, desired, integrity_hash(layout, desired))
}

/// [`round_trip`] of `desired`, whose [`integrity_hash`] is `hash_in_memory`.
fn round_trip_hashed(
    layout: &Layout,
    desired: &Value,
    hash_in_memory: Result<String, Unverifiable>,
) -> Result<RoundTrip, RoundTripError> {
    let ty = layout.ephemeral_runner_spec;
    let written = marshal(layout, ty, desired)?;
    let read_back = decode(layout, ty, &written)?;
    let comparison = compare(layout, ty, desired, &read_back);
    let changes: Vec<Change> = comparison
        .differences
        .into_iter()
        .map(|d| {
            let cause = cause_at(layout, ty, desired, &read_back, &d.path);
            Change {
                path: d.path,
                reason: d.reason,
                cause,
            }
        })
        .collect();
    // Identical values print the same spew text: one hash serves both (the common case).
    let hash_read_back = if changes.is_empty() {
        hash_in_memory.clone()
    } else {
        integrity_hash(layout, &read_back)
    };
    Ok(RoundTrip {
        hash_in_memory,
        hash_read_back,
        written,
        changes,
    })
}

/// [`round_trip`] of the runner spec ARC builds from an AutoscalingRunnerSet's `spec` JSON
/// (`newEphemeralRunnerSet`).
///
/// The verdict and the paths are properties of the template: `runnerScaleSetId` (from the
/// `runner-scale-set-id` annotation) is an int, which every round trip keeps, so a missing or
/// malformed annotation (a `helm template` output has none) is taken as 0. Only the two hashes
/// depend on it.
pub fn round_trip_of_autoscaling_runner_set(
    layout: &Layout,
    ars_spec_json: &str,
    scale_set_id_annotation: Option<&str>,
) -> Result<RoundTrip, RecycleLoopError> {
    let id = scale_set_id_annotation.and_then(go_atoi).unwrap_or(0);
    let desired =
        desired_runner_spec_with_id(layout, ars_spec_json, id).map_err(RecycleLoopError::Decode)?;
    Ok(round_trip(layout, &desired)?)
}

/// [`round_trip_of_autoscaling_runner_set`] of a runner spec built already
/// ([`crate::desired::build_once`], which reads the id alike).
pub fn round_trip_of_built(
    layout: &Layout,
    built: &Result<Built, DecodeError>,
) -> Result<RoundTrip, RecycleLoopError> {
    match built {
        Ok(b) => Ok(round_trip(layout, &b.value)?),
        Err(e) => Err(RecycleLoopError::Decode(e.clone())),
    }
}

/// [`round_trip`]s remembered by the value each was made of, for one layout: a fleet's scale sets
/// often share a runner template, and a round trip is a function of the value alone. A value is
/// looked up by its in-memory [`integrity_hash`], then compared [`identical`], so a hit is the very
/// same value; one whose hash cannot be reproduced ([`Unverifiable`]) is never remembered, nor an
/// error. The first [`RoundTrips::KEPT`] distinct values are remembered, no more: a fleet whose
/// every template differs pays for a few copies, not for one per scale set. Shared between
/// threads.
#[derive(Debug, Default)]
pub struct RoundTrips {
    made: std::sync::Mutex<Made>,
}

/// The round trips made, by in-memory hash.
type Made = std::collections::HashMap<String, Vec<(Value, std::sync::Arc<RoundTrip>)>>;

impl RoundTrips {
    /// How many distinct values are remembered at most.
    pub const KEPT: usize = 64;

    /// [`round_trip`] of `desired`, made once per distinct value (and shared, not copied).
    pub fn round_trip(
        &self,
        layout: &Layout,
        desired: &Value,
    ) -> Result<std::sync::Arc<RoundTrip>, RoundTripError> {
        let hash = integrity_hash(layout, desired);
        let Ok(key) = &hash else {
            return round_trip_hashed(layout, desired, hash).map(std::sync::Arc::new);
        };
        let hit = self.made().get(key).and_then(|same_hash| {
            (same_hash.iter())
                .find(|(value, _)| identical(value, desired))
                .map(|(_, trip)| trip.clone())
        });
        if let Some(trip) = hit {
            return Ok(trip);
        }
        let trip = std::sync::Arc::new(round_trip_hashed(layout, desired, Ok(key.clone()))?);
        let mut made = self.made();
        if made.values().map(Vec::len).sum::<usize>() < Self::KEPT {
            (made.entry(key.clone()).or_default()).push((desired.clone(), trip.clone()));
        }
        Ok(trip)
    }

    /// The remembered round trips (a panic elsewhere leaves them whole: each entry is pushed
    /// complete).
    fn made(&self) -> std::sync::MutexGuard<'_, Made> {
        self.made
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// [`round_trip_of_built`], made once per distinct value.
    pub fn of_built(
        &self,
        layout: &Layout,
        built: &Result<Built, DecodeError>,
    ) -> Result<std::sync::Arc<RoundTrip>, RecycleLoopError> {
        match built {
            Ok(b) => Ok(self.round_trip(layout, &b.value)?),
            Err(e) => Err(RecycleLoopError::Decode(e.clone())),
        }
    }
}

/// Classify the change at `path` from the two values found there.
fn cause_at(layout: &Layout, ty: TypeId, a: &Value, b: &Value, path: &str) -> Cause {
    let (Some((ty, a)), Some((_, b))) = (
        value_at(layout, ty, a, &mut String::new(), path),
        value_at(layout, ty, b, &mut String::new(), path),
    ) else {
        return Cause::Other;
    };
    let (mut a, mut b) = (a, b);
    while let (Value::Ptr(Some(x)), Value::Ptr(Some(y))) = (a, b) {
        (a, b) = (x, y);
    }
    match (a, b) {
        (Value::Slice(Some(items)), Value::Slice(None)) if items.is_empty() => {
            Cause::EmptyListOmitted
        }
        (Value::Map(Some(entries)), Value::Map(None)) if entries.is_empty() => {
            Cause::EmptyMapOmitted
        }
        (Value::Quantity(q), Value::Quantity(_)) => Cause::QuantityRewritten {
            in_memory: q.clone(),
            written: q.canonical_string(),
        },
        (Value::Time(_), Value::Time(_)) => {
            let written = marshal(layout, ty, a).unwrap_or_default();
            Cause::TimeRewritten {
                written: written.trim_matches('"').to_string(),
            }
        }
        _ => Cause::Other,
    }
}

/// The value of type `ty` at `target` (spelled as [`compare`] spells paths) inside `v`, whose
/// own path is `here`; the outermost one when a pointer or an inline struct shares the path.
pub fn value_at<'v>(
    layout: &Layout,
    ty: TypeId,
    v: &'v Value,
    here: &mut String,
    target: &str,
) -> Option<(TypeId, &'v Value)> {
    if here == target {
        return Some((ty, v));
    }
    let leads_to_target = here.is_empty()
        || (target.starts_with(here.as_str())
            && matches!(target.as_bytes().get(here.len()), Some(b'.' | b'[')));
    if !leads_to_target {
        return None;
    }
    let t = layout.ty(ty);
    let len = here.len();
    let found = match (v, &t.kind) {
        (Value::Ptr(Some(inner)), Kind::Ptr(e)) => value_at(layout, *e, inner, here, target),
        (Value::Struct(values), Kind::Struct(fields)) => {
            fields.iter().zip(values.iter()).find_map(|(f, fv)| {
                if !f.inline {
                    if !here.is_empty() {
                        here.push('.');
                    }
                    here.push_str(&f.json);
                }
                let found = value_at(layout, f.ty, fv, here, target);
                here.truncate(len);
                found
            })
        }
        (Value::Slice(Some(items)), Kind::Slice(e) | Kind::Array(e, _)) => {
            items.iter().enumerate().find_map(|(i, item)| {
                here.push_str(&format!("[{i}]"));
                let found = value_at(layout, *e, item, here, target);
                here.truncate(len);
                found
            })
        }
        (Value::Map(Some(entries)), Kind::Map(_, e)) => entries.iter().find_map(|(k, item)| {
            push_key(here, k);
            let found = value_at(layout, *e, item, here, target);
            here.truncate(len);
            found
        }),
        _ => None,
    };
    here.truncate(len);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round trip of a runner spec given as the JSON ARC's controller decoded.
    fn trip(json: &str) -> RoundTrip {
        let l = Layout::arc();
        let v = decode(l, l.ephemeral_runner_spec, json).unwrap();
        round_trip(l, &v).unwrap()
    }

    fn container(extra: &str) -> String {
        format!(
            r#"{{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s","runnerScaleSetId":3,
            "spec":{{"containers":[{{"name":"runner","image":"img"{extra}}}]}}}}"#
        )
    }

    fn pod(extra: &str) -> String {
        format!(
            r#"{{"githubConfigUrl":"https://github.com/o","runnerScaleSetId":3,
            "spec":{{"containers":[{{"name":"runner","image":"img"}}]{extra}}}}}"#
        )
    }

    fn limits_cpu(q: &str) -> String {
        container(&format!(r#","resources":{{"limits":{{"cpu":{q}}}}}"#))
    }

    fn assert_loops(json: &str, paths: &[&str]) -> RoundTrip {
        let t = trip(json);
        assert!(t.loops(), "{json} should loop: {t:?}");
        assert_eq!(t.paths().collect::<Vec<_>>(), paths, "{json}");
        assert_ne!(t.hash_in_memory, t.hash_read_back);
        t
    }

    fn assert_no_loop(json: &str) {
        let t = trip(json);
        assert!(!t.loops(), "{json} should not loop: {t:?}");
        assert!(t.changes.is_empty(), "{json}: {:?}", t.changes);
        assert_eq!(t.hash_in_memory, t.hash_read_back);
    }

    /// Remembered round trips are the round trips: each value of a corpus (loops, quantities,
    /// times, lists omitted, and values differing in a bit only) twice, interleaved; one made per
    /// distinct value, every answer the one `round_trip` gives.
    #[test]
    fn remembered_round_trips_are_the_round_trips() {
        let l = Layout::arc();
        let corpus = [
            container(""),
            container(r#","env":[]"#),
            container(r#","env":null"#),
            limits_cpu(r#""1000m""#),
            limits_cpu(r#""1""#),
            limits_cpu(r#""1.0""#),
            pod(r#","nodeSelector":{}"#),
            pod(r#","nodeSelector":{"a":"b"}"#),
            pod(r#","tolerations":[]"#),
            container(r#","args":["a"]"#),
            container(r#","args":["b"]"#),
        ];
        let values: Vec<Value> = (corpus.iter())
            .map(|j| decode(l, l.ephemeral_runner_spec, j).unwrap())
            .collect();
        // `env: null` decodes as no `env` at all: one value.
        let distinct = (0..values.len())
            .filter(|&i| !values[..i].iter().any(|v| identical(v, &values[i])))
            .count();
        assert_eq!(distinct, values.len() - 1);
        let trips = RoundTrips::default();
        for v in values.iter().chain(values.iter().rev()) {
            let remembered = trips.round_trip(l, v).unwrap();
            let made = round_trip(l, v).unwrap();
            assert_eq!(format!("{remembered:?}"), format!("{made:?}"));
        }
        let kept: usize = trips.made().values().map(Vec::len).sum();
        assert_eq!(kept, distinct, "one per distinct value");
        // No more than KEPT distinct values are kept; the others are still made right.
        let many = RoundTrips::default();
        for i in 0..RoundTrips::KEPT + 5 {
            let v = decode(
                l,
                l.ephemeral_runner_spec,
                &container(&format!(r#","args":["{i}"]"#)),
            );
            let v = v.unwrap();
            let (remembered, made) = (many.round_trip(l, &v).unwrap(), round_trip(l, &v).unwrap());
            assert_eq!(format!("{remembered:?}"), format!("{made:?}"));
        }
        let kept: usize = many.made().values().map(Vec::len).sum();
        assert_eq!(kept, RoundTrips::KEPT);
        // A value under the same hash that is not the same value is not taken for it.
        let (a, b) = (&values[1], &values[9]);
        let key = integrity_hash(l, a).unwrap();
        let fresh = RoundTrips::default();
        let mut planted = round_trip(l, b).unwrap();
        planted.written = "planted".to_string();
        fresh.made().insert(key, vec![(b.clone(), planted.into())]);
        assert_eq!(
            fresh.round_trip(l, a).unwrap().written,
            round_trip(l, a).unwrap().written
        );
    }

    #[test]
    fn identical_tells_floats_by_their_bits() {
        let (zero, minus_zero) = (Value::Float(0.0), Value::Float(-0.0));
        assert_eq!(zero, minus_zero, "== equates them");
        assert!(!identical(&zero, &minus_zero));
        let nan = Value::Float(f64::NAN);
        assert!(identical(&nan, &nan));
        let nested = |f: f64| {
            Value::Slice(Some(
                vec![Value::Ptr(Some(Box::new(Value::Float(f))))].into(),
            ))
        };
        assert!(!identical(&nested(0.0), &nested(-0.0)));
        assert!(identical(&nested(1.5), &nested(1.5)));
        assert!(!identical(
            &Value::Slice(None),
            &Value::Slice(Some(Box::default()))
        ));
        assert!(!identical(
            &Value::Map(None),
            &Value::Map(Some(Default::default()))
        ));
    }

    #[test]
    fn empty_lists_and_maps_under_omitempty_loop() {
        for key in ["env", "args"] {
            let t = assert_loops(
                &container(&format!(r#","{key}":[]"#)),
                &[&format!("spec.containers[0].{key}")],
            );
            assert_eq!(t.changes[0].cause, Cause::EmptyListOmitted);
            assert_eq!(t.changes[0].reason, Reason::NilVsEmpty);
        }
        for key in ["tolerations", "imagePullSecrets", "schedulingGates"] {
            let t = assert_loops(&pod(&format!(r#","{key}":[]"#)), &[&format!("spec.{key}")]);
            assert_eq!(t.changes[0].cause, Cause::EmptyListOmitted);
        }
        let t = assert_loops(&pod(r#","nodeSelector":{}"#), &["spec.nodeSelector"]);
        assert_eq!(t.changes[0].cause, Cause::EmptyMapOmitted);
    }

    #[test]
    fn non_canonical_quantities_loop() {
        for (written, canonical) in [
            (r#""1000m""#, "1"),
            (r#""0.5""#, "500m"),
            ("0.5", "500m"),
            (r#""1.5Gi""#, "1536Mi"),
            (r#""1024Mi""#, "1Gi"),
            (r#""4000m""#, "4"),
            // YAML's `cpu: 1e3` is the JSON number 1000 (sigs.k8s.io/yaml), written `1k`.
            ("1000", "1k"),
        ] {
            let t = assert_loops(
                &limits_cpu(written),
                &["spec.containers[0].resources.limits.cpu"],
            );
            assert_eq!(t.changes[0].reason, Reason::QuantityNotation);
            match &t.changes[0].cause {
                Cause::QuantityRewritten { written: w, .. } => assert_eq!(w, canonical),
                other => panic!("{written}: {other:?}"),
            }
        }
    }

    #[test]
    fn quantities_go_keeps_as_written_do_not_loop() {
        // `8Gi` is not cached but is canonical; `8192Mi` is written `8Gi`, which parses into the
        // same int64 amount. A string and a number with the same text parse alike. Go caches
        // `1e3` as written (the fast path keeps an exponent that is a multiple of 3), and
        // `MarshalJSON` writes the cached string.
        for q in [
            r#""8Gi""#,
            r#""8192Mi""#,
            r#""4""#,
            "4",
            r#""500m""#,
            r#""1""#,
            r#""1e3""#,
            "1e3",
        ] {
            assert_no_loop(&limits_cpu(q));
        }
    }

    #[test]
    fn pointers_to_empty_structs_and_modes_do_not_loop() {
        assert_no_loop(&container(r#","securityContext":{}"#));
        assert_no_loop(&pod(r#","securityContext":{}"#));
        // 0644 in a YAML manifest is the JSON number 420; modes are plain ints.
        assert_no_loop(&pod(
            r#","volumes":[{"name":"cfg","configMap":{"name":"c","defaultMode":420,"items":[{"key":"k","path":"p","mode":256}]}}]"#,
        ));
        // Empty lists without omitempty are written as [] and read back as empty.
        assert_no_loop(
            r#"{"spec":{"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}}"#,
        );
        assert_no_loop(&container(r#","env":null,"resources":{}"#));
        assert_no_loop(include_str!(
            "../../../../tests/oracle/testdata/realistic-spec.json"
        ));
    }

    #[test]
    fn a_resource_field_ref_without_divisor_loops() {
        // The absent (non-pointer) divisor is the zero Quantity with an empty Format; Go writes
        // it as "0", which reads back with Format DecimalSI and `s` "0".
        let t = assert_loops(
            &container(
                r#","env":[{"name":"CPU","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}}]"#,
            ),
            &["spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"],
        );
        assert!(
            matches!(&t.changes[0].cause, Cause::QuantityRewritten { written, .. } if written == "0")
        );
        assert_no_loop(&container(
            r#","env":[{"name":"CPU","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}}}]"#,
        ));
    }

    #[test]
    fn times_are_written_in_whole_seconds() {
        // A set time prints the local zone in Go's hash: not reproducible, so the verdict comes
        // from the values.
        let t = trip(r#"{"metadata":{"creationTimestamp":"2024-01-01T00:00:00.5Z"}}"#);
        assert!(t.hash_in_memory.is_err());
        assert!(t.loops());
        assert_eq!(
            t.paths().collect::<Vec<_>>(),
            ["metadata.creationTimestamp"]
        );
        assert_eq!(
            t.changes[0].cause,
            Cause::TimeRewritten {
                written: "2024-01-01T00:00:00Z".into()
            }
        );
        let t = trip(r#"{"metadata":{"creationTimestamp":"2024-01-01T01:00:00+01:00"}}"#);
        assert!(!t.loops(), "{t:?}");
        // The zero instant written as a string decodes with the local zone; Go leaves it out.
        let t = trip(r#"{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}}"#);
        assert!(t.loops());
        assert_eq!(t.changes[0].reason, Reason::SameInstant);
        // A UTC year beyond 9999 is written, but does not parse again.
        let l = Layout::arc();
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"metadata":{"creationTimestamp":"9999-12-31T23:30:00-01:00"}}"#,
        )
        .unwrap();
        assert!(matches!(
            round_trip(l, &v),
            Err(RoundTripError::ReadBack(_))
        ));
    }

    #[test]
    fn several_changes_are_all_named_in_diff_order() {
        let t = assert_loops(
            &pod(
                r#","nodeSelector":{},"initContainers":[{"name":"init","args":[],"resources":{"requests":{"memory":"1024Mi"}}}]"#,
            ),
            &[
                "spec.initContainers[0].args",
                "spec.initContainers[0].resources.requests.memory",
                "spec.nodeSelector",
            ],
        );
        assert_eq!(t.changes.len(), 3);
    }

    #[test]
    fn from_an_autoscaling_runner_set_without_its_annotation() {
        let l = Layout::arc();
        let ars = r#"{"githubConfigUrl":"https://github.com/o","githubConfigSecret":"s",
            "template":{"spec":{"containers":[{"name":"runner","image":"img","env":[]}]}}}"#;
        let without = round_trip_of_autoscaling_runner_set(l, ars, None).unwrap();
        let with = round_trip_of_autoscaling_runner_set(l, ars, Some("7")).unwrap();
        assert!(without.loops() && with.loops());
        assert_eq!(
            without.paths().collect::<Vec<_>>(),
            with.paths().collect::<Vec<_>>()
        );
        assert_ne!(without.hash_in_memory, with.hash_in_memory);
        assert!(matches!(
            round_trip_of_autoscaling_runner_set(l, r#"{"template":1}"#, Some("7")),
            Err(RecycleLoopError::Decode(_))
        ));
    }
}
