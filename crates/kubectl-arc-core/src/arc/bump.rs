//! `bump`'s decision on one EphemeralRunnerSet: the next revision, or why not, and the annotations
//! that let a retry recognise its own write.

use serde_json::Value;

use crate::revision::{RevisionError, Revisions};

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
        // The set's controller (crate::owner), as ARC's index of a scale set's sets reads it.
        let owner = crate::owner::controller_of(ers);
        let matches = owner.is_some_and(|o| {
            o.kind() == Some("AutoscalingRunnerSet")
                && o.name() == Some(ars)
                && o.uid() == Some(uid)
        });
        if !matches {
            return BumpDecision::Refuse {
                before: Some(revisions),
                reason: BumpReason::OwnerMismatch {
                    scale_set: ars.to_string(),
                    uid: uid.to_string(),
                    found: owner.map(|o| OwnerRef {
                        kind: o.kind().map(str::to_string),
                        name: o.name().map(str::to_string),
                        uid: o.uid().map(str::to_string),
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
