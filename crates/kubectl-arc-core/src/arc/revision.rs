//! The revision handshake of ARC PR #4638: `spec.actionableRevision` (the writer's intent) and
//! `status.appliedActionableRevision` (the acknowledgement) on an EphemeralRunnerSet.
//!
//! Pure core. Mirrors `nextActionableRevision` in ARC's revision-era controller helpers: spec + 1
//! when spec > applied, else applied + 1, that is max(spec, applied) + 1. Both fields are Go
//! `int64`s; an object from before the upgrade decodes both as 0.

use serde_json::Value;

/// The two revision fields of one EphemeralRunnerSet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Revisions {
    /// `spec.actionableRevision`
    pub spec: i64,
    /// `status.appliedActionableRevision`
    pub applied: i64,
}

/// Where a set stands in the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake {
    /// applied >= spec: every requested cleanup has completed.
    Acknowledged,
    /// spec > applied: a cleanup is pending.
    Pending,
    /// applied > spec: should never happen (a lowered spec, or a status written by hand).
    AppliedAhead,
}

/// A revision field that is not what ARC's Go types accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevisionError {
    /// Not a JSON integer within int64.
    #[error("{field} is {found}, not an integer (Go int64)")]
    NotAnInteger { field: &'static str, found: String },
    /// Negative: ARC only ever counts up from 0.
    #[error("{field} is {value}: revisions are never negative")]
    Negative { field: &'static str, value: i64 },
    /// No `spec` at all (or `spec: null`): ARC always writes one (its `patchID` is required), so
    /// the object is truncated or was not written by ARC.
    #[error(
        "spec is missing: an EphemeralRunnerSet always has one (spec.patchID is required), so this object is incomplete"
    )]
    MissingSpec,
    /// `spec` is not a JSON object: Go's decoder rejects the whole object.
    #[error("spec is {found}, not an object (EphemeralRunnerSetSpec)")]
    SpecNotAnObject { found: &'static str },
}

impl Revisions {
    /// Read both fields from an EphemeralRunnerSet object's JSON (absent or null is 0, as Go
    /// decodes it). The object must have a `spec` object: one without is refused rather than read
    /// as revision 0.
    pub fn from_object(ers: &Value) -> Result<Revisions, RevisionError> {
        match ers.get("spec") {
            None | Some(Value::Null) => return Err(RevisionError::MissingSpec),
            Some(Value::Object(_)) => {}
            Some(other) => {
                return Err(RevisionError::SpecNotAnObject {
                    found: json_kind(other),
                });
            }
        }
        Ok(Revisions {
            spec: field(ers, "/spec/actionableRevision", "spec.actionableRevision")?,
            applied: field(
                ers,
                "/status/appliedActionableRevision",
                "status.appliedActionableRevision",
            )?,
        })
    }

    /// Mirrors ARC's `nextActionableRevision`: the revision a new request must carry.
    pub fn next(self) -> i64 {
        if self.spec > self.applied {
            self.spec.saturating_add(1)
        } else {
            self.applied.saturating_add(1)
        }
    }

    pub fn handshake(self) -> Handshake {
        use std::cmp::Ordering::*;
        match self.spec.cmp(&self.applied) {
            Greater => Handshake::Pending,
            Equal => Handshake::Acknowledged,
            Less => Handshake::AppliedAhead,
        }
    }
}

/// "a string", "an array", ... for messages.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn field(obj: &Value, pointer: &str, name: &'static str) -> Result<i64, RevisionError> {
    match obj.pointer(pointer) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(v) if v < 0 => Err(RevisionError::Negative {
                field: name,
                value: v,
            }),
            Some(v) => Ok(v),
            None => Err(RevisionError::NotAnInteger {
                field: name,
                found: n.to_string(),
            }),
        },
        Some(other) => Err(RevisionError::NotAnInteger {
            field: name,
            found: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn next_is_max_plus_one() {
        let r = |spec, applied| Revisions { spec, applied };
        assert_eq!(r(0, 0).next(), 1);
        assert_eq!(r(5, 3).next(), 6);
        assert_eq!(r(3, 3).next(), 4);
        assert_eq!(r(2, 7).next(), 8);
        assert_eq!(r(5, 3).handshake(), Handshake::Pending);
        assert_eq!(r(3, 3).handshake(), Handshake::Acknowledged);
        assert_eq!(r(2, 7).handshake(), Handshake::AppliedAhead);
    }

    #[test]
    fn fields_decode_like_go_int64() {
        let ok = Revisions::from_object(&json!({"spec": {"actionableRevision": 4}, "status": {}}));
        assert_eq!(
            ok,
            Ok(Revisions {
                spec: 4,
                applied: 0
            })
        );
        assert_eq!(
            Revisions::from_object(&json!({"spec": {}})),
            Ok(Revisions::default())
        );
        assert_eq!(
            Revisions::from_object(&json!({})),
            Err(RevisionError::MissingSpec)
        );
        assert_eq!(
            Revisions::from_object(&json!({"spec": null})),
            Err(RevisionError::MissingSpec)
        );
        assert_eq!(
            Revisions::from_object(&json!({"spec": "x"})),
            Err(RevisionError::SpecNotAnObject { found: "a string" })
        );
        assert!(matches!(
            Revisions::from_object(&json!({"spec": {"actionableRevision": "five"}})),
            Err(RevisionError::NotAnInteger { .. })
        ));
        assert!(matches!(
            Revisions::from_object(&json!({"spec": {"actionableRevision": 1.5}})),
            Err(RevisionError::NotAnInteger { .. })
        ));
        assert!(matches!(
            Revisions::from_object(
                &json!({"spec": {}, "status": {"appliedActionableRevision": -1}})
            ),
            Err(RevisionError::Negative { .. })
        ));
        assert!(matches!(
            Revisions::from_object(
                &json!({"spec": {"actionableRevision": 9223372036854775808u64}})
            ),
            Err(RevisionError::NotAnInteger { .. })
        ));
    }
}
