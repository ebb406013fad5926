//! `migrate`'s decision for one EphemeralRunnerSet: turn a pending legacy cleanup into a pending
//! revision before the revision-era controller reconciles.
//!
//! Pure core. A legacy cleanup is pending when the `actions.github.com/integrity-hash` annotation
//! differs from ARC's hash of the spec as stored (the integrity-hash era ERS controller compares
//! exactly that, `ephemeralRunnerSetIntegrityHash`). The annotation may come from a controller built
//! against another k8s.io/api, so the spec is "in sync" when the annotation equals its hash under
//! any shipped layout. The runners are the ground truth: a non-deleting idle or pending runner whose
//! spec is not Semantic-equal to the set's is stale, whatever the hash says.
//!
//! The patch sets `spec.actionableRevision` to `nextActionableRevision` (max(spec, applied) + 1) for
//! a pending set, and removes the legacy annotation in every decided case.

use serde::Serialize;
use serde_json::{Value, json};

use crate::arc::ANNOTATION_INTEGRITY_HASH;
use crate::layout::Layout;
use crate::legacy_hash::integrity_hash;
use crate::revision::{RevisionError, Revisions};
use crate::runners::RunnerCounts;
use crate::value::decode;

/// What migrate concludes for a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub enum Verdict {
    /// A legacy cleanup was pending: a new revision is requested.
    Pending,
    /// The annotation matches the spec and no runner is stale.
    InSync,
    /// The hash cannot be reproduced exactly (and no runner proves staleness).
    Unverifiable,
    /// No legacy annotation: nothing to migrate.
    NoLegacyAnnotation,
}

/// Which signal decided, as facts; the English is written by [`crate::render::reason`], and the
/// report carries [`MigrateReason::code`] beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrateReason {
    /// No integrity-hash annotation.
    NoLegacyAnnotation,
    /// Idle or pending runners on an older spec (the ground truth, whatever the hash says).
    StaleRunners { count: usize },
    /// The annotation equals ARC's `ephemeralRunnerSetIntegrityHash` of the spec under the layout
    /// of this k8s.io/api, and no runner is stale.
    HashMatches { k8s_api: String },
    /// The annotation matches no hash of the current spec: a legacy cleanup was pending.
    HashMismatch { annotation: String },
    /// The hash cannot be reproduced exactly (why, per layout); what the policy did with it.
    HashUnverifiable {
        problems: Vec<LayoutProblem>,
        policy: UnverifiablePolicy,
    },
}

impl MigrateReason {
    /// The stable UpperCamelCase code.
    pub fn code(&self) -> &'static str {
        match self {
            MigrateReason::NoLegacyAnnotation => "NoLegacyAnnotation",
            MigrateReason::StaleRunners { .. } => "StaleRunners",
            MigrateReason::HashMatches { .. } => "HashMatches",
            MigrateReason::HashMismatch { .. } => "HashMismatch",
            MigrateReason::HashUnverifiable { .. } => "HashUnverifiable",
        }
    }
}

/// Why the hash could not be computed under one layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutProblem {
    pub k8s_api: String,
    pub error: String,
}

/// Which signal decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub verdict: Verdict,
    /// Which signal decided.
    pub reason: MigrateReason,
    pub revisions: Revisions,
    /// `spec.actionableRevision` after the write (equal to `revisions.spec` when left alone).
    pub to_revision: i64,
}

impl Serialize for Revisions {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        json!({"spec": self.spec, "applied": self.applied}).serialize(s)
    }
}

/// How to treat sets whose hash cannot be reproduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnverifiablePolicy {
    /// Request a new revision (a cleanup that was not needed recycles idle runners once).
    #[default]
    Pending,
    /// Leave the set and its annotation alone.
    Skip,
}

/// What the hash alone says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashVerdict {
    /// The annotation equals the hash under this layout.
    Matches(String),
    /// Every layout computed a hash, and none matches.
    Mismatch,
    /// No layout matches, and some could not compute the hash (why).
    Unverifiable(Vec<LayoutProblem>),
}

/// Compare the annotation with the spec's hash under every shipped layout.
pub fn hash_verdict(annotation: &str, runner_spec_json: &str) -> HashVerdict {
    let mut problems = Vec::new();
    for layout in Layout::shipped() {
        let problem = |error: String| LayoutProblem {
            k8s_api: layout.k8s_api.clone(),
            error,
        };
        match decode(layout, layout.ephemeral_runner_spec, runner_spec_json) {
            Err(e) => problems.push(problem(e.to_string())),
            Ok(v) => match integrity_hash(layout, &v) {
                Ok(h) if h == annotation => return HashVerdict::Matches(layout.k8s_api.clone()),
                Ok(_) => {}
                Err(e) => problems.push(problem(e.0)),
            },
        }
    }
    if problems.is_empty() {
        HashVerdict::Mismatch
    } else {
        HashVerdict::Unverifiable(problems)
    }
}

/// Decide for one set from its object, the exact JSON of its `spec.ephemeralRunnerSpec` and the
/// counts of its runners (stale ones computed against the set's spec).
pub fn decide(
    ers: &Value,
    runner_spec_json: &str,
    runners: &RunnerCounts,
    policy: UnverifiablePolicy,
) -> Result<Decision, RevisionError> {
    let revisions = Revisions::from_object(ers)?;
    let annotation = ers
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ANNOTATION_INTEGRITY_HASH))
        .and_then(Value::as_str);
    let Some(annotation) = annotation else {
        return Ok(Decision {
            verdict: Verdict::NoLegacyAnnotation,
            reason: MigrateReason::NoLegacyAnnotation,
            revisions,
            to_revision: revisions.spec,
        });
    };
    let pending = |reason: MigrateReason| Decision {
        verdict: Verdict::Pending,
        reason,
        revisions,
        to_revision: revisions.next(),
    };
    if runners.stale_idle_or_pending > 0 {
        return Ok(pending(MigrateReason::StaleRunners {
            count: runners.stale_idle_or_pending,
        }));
    }
    Ok(match hash_verdict(annotation, runner_spec_json) {
        HashVerdict::Matches(layout) => Decision {
            verdict: Verdict::InSync,
            reason: MigrateReason::HashMatches { k8s_api: layout },
            revisions,
            to_revision: revisions.spec,
        },
        HashVerdict::Mismatch => pending(MigrateReason::HashMismatch {
            annotation: annotation.to_string(),
        }),
        HashVerdict::Unverifiable(problems) => Decision {
            verdict: Verdict::Unverifiable,
            reason: MigrateReason::HashUnverifiable { problems, policy },
            revisions,
            to_revision: match policy {
                UnverifiablePolicy::Pending => revisions.next(),
                UnverifiablePolicy::Skip => revisions.spec,
            },
        },
    })
}

impl Decision {
    /// The merge patch (without the resourceVersion the write guard adds): the new revision when
    /// there is one, and the legacy annotation removed. `None` when nothing is to be written.
    pub fn patch(&self) -> Option<Value> {
        match self.verdict {
            Verdict::NoLegacyAnnotation => None,
            Verdict::Unverifiable if self.to_revision == self.revisions.spec => None,
            _ => {
                let mut p = json!({"metadata": {"annotations": {ANNOTATION_INTEGRITY_HASH: null}}});
                if self.to_revision != self.revisions.spec {
                    p["spec"] = json!({"actionableRevision": self.to_revision});
                }
                Some(p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ers(annotation: Option<&str>, spec_rev: i64, applied: i64) -> Value {
        let mut v = json!({
            "metadata": {"name": "s", "annotations": {}},
            "spec": {"actionableRevision": spec_rev},
            "status": {"appliedActionableRevision": applied}
        });
        if let Some(a) = annotation {
            v["metadata"]["annotations"][ANNOTATION_INTEGRITY_HASH] = json!(a);
        }
        v
    }

    #[test]
    fn hash_match_mismatch_and_stale_runners() {
        let none = RunnerCounts::default();
        // 9755cd855 is ARC's hash of the empty spec at k8s.io/api v0.36.2.
        let d = decide(
            &ers(Some("9755cd855"), 0, 0),
            "{}",
            &none,
            UnverifiablePolicy::Pending,
        )
        .unwrap();
        assert_eq!(d.verdict, Verdict::InSync);
        assert_eq!(d.to_revision, 0);
        assert_eq!(
            d.patch(),
            Some(json!({"metadata": {"annotations": {ANNOTATION_INTEGRITY_HASH: null}}}))
        );

        let d = decide(
            &ers(Some("bogus"), 2, 5),
            "{}",
            &none,
            UnverifiablePolicy::Pending,
        )
        .unwrap();
        assert_eq!(d.verdict, Verdict::Pending);
        assert_eq!(d.to_revision, 6, "max(spec, applied) + 1");
        assert_eq!(d.patch().unwrap()["spec"]["actionableRevision"], json!(6));

        let stale = RunnerCounts {
            idle: 1,
            stale: 1,
            stale_idle_or_pending: 1,
            ..Default::default()
        };
        let d = decide(
            &ers(Some("9755cd855"), 0, 0),
            "{}",
            &stale,
            UnverifiablePolicy::Pending,
        )
        .unwrap();
        assert_eq!(
            d.verdict,
            Verdict::Pending,
            "the runners are the ground truth"
        );

        let d = decide(&ers(None, 3, 3), "{}", &none, UnverifiablePolicy::Pending).unwrap();
        assert_eq!(d.verdict, Verdict::NoLegacyAnnotation);
        assert_eq!(d.patch(), None);
    }

    #[test]
    fn unverifiable_follows_the_policy() {
        let spec = r#"{"metadata":{"creationTimestamp":"2026-01-01T00:00:00Z"}}"#;
        let none = RunnerCounts::default();
        let d = decide(
            &ers(Some("x"), 1, 1),
            spec,
            &none,
            UnverifiablePolicy::Pending,
        )
        .unwrap();
        assert_eq!((d.verdict, d.to_revision), (Verdict::Unverifiable, 2));
        let d = decide(&ers(Some("x"), 1, 1), spec, &none, UnverifiablePolicy::Skip).unwrap();
        assert_eq!((d.verdict, d.to_revision), (Verdict::Unverifiable, 1));
        assert_eq!(d.patch(), None);
    }
}
