//! `repair`'s guarded writes, shared by every repair: a delete is preceded by a merge patch of
//! the repair annotations at the resourceVersion read, then sent with the object's uid and the
//! resourceVersion that patch answered as preconditions; a finalizer removal is one merge patch of
//! `metadata.finalizers` and the annotations at the resourceVersion read. Either is checked
//! against the API server's answer. A 409 (the object changed since it was read) or a 403 (the
//! role lacks the verb) is `Refused`, never retried or forced.

use serde_json::Value;

use crate::cluster::{self, ApiError, ApiErrorKind, write::DryRun};
use crate::core::repair::repair_annotations;
use crate::input::Object;
use crate::report::repair::RepairResult;

/// How this run writes: through `client` (none: a dump), `--dry-run`, and what it records on
/// every object it writes.
pub(super) struct Writer<'a> {
    pub(super) client: Option<&'a kube::Client>,
    pub(super) dry_run: DryRun,
    pub(super) request_id: &'a str,
    /// `--reason`.
    pub(super) reason: Option<&'a str>,
}

/// A write's result, and why it was refused or how it failed.
pub(super) type Outcome = (RepairResult, Option<String>);

impl Writer<'_> {
    /// The client to send with and whether the API server only checks (`--dry-run=server`);
    /// `None`: decided only (`--dry-run=client`, or a dump).
    fn sends(&self) -> Option<(&kube::Client, bool)> {
        let client = self.client.filter(|_| self.dry_run != DryRun::Client)?;
        Some((client, self.dry_run == DryRun::Server))
    }

    fn annotations(&self, code: &str) -> Value {
        repair_annotations(self.request_id, code, self.reason)
    }

    /// How the delete of `o` is written, for the report.
    pub(super) fn describe_delete(&self, o: &Object, plural: &str) -> String {
        format!(
            "merge patch of metadata.annotations {} and {} at resourceVersion {}, then DELETE {plural} {}/{} with preconditions uid {} and the resourceVersion the patch answered",
            crate::core::repair::ANNOTATION_REPAIR_ID,
            crate::core::repair::ANNOTATION_REPAIR_REASON,
            o.meta.resource_version.as_deref().unwrap_or("(none)"),
            o.namespace(),
            o.name(),
            o.meta.uid.as_deref().unwrap_or("(none)")
        )
    }

    /// Annotate `o` (the repair of `code`), then delete it, each guarded.
    pub(super) async fn delete(&self, code: &str, o: &Object, plural: &str) -> Outcome {
        let (Some(uid), Some(rv)) = (&o.meta.uid, &o.meta.resource_version) else {
            return refused("no uid or resourceVersion was read: the delete cannot be guarded");
        };
        let Some((client, server)) = self.sends() else {
            return (RepairResult::WouldWrite, None);
        };
        let metadata = serde_json::json!({ "annotations": self.annotations(code) });
        let after = match patch_checked((client, server), o, plural, rv, metadata).await {
            Ok(after) => after,
            Err(outcome) => return outcome,
        };
        // The API server's dry run persists nothing: the object is still at the version read.
        let answered = after
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .filter(|_| !server)
            .unwrap_or(rv);
        let deleted = cluster::delete_if_unchanged(
            client,
            plural,
            o.namespace(),
            o.name(),
            (uid, answered),
            server,
        )
        .await;
        match deleted {
            Ok(()) if server => (RepairResult::WouldWrite, None),
            Ok(()) => (RepairResult::Written, None),
            Err(e) => api_refusal(e, "delete", plural),
        }
    }

    /// Set `o`'s finalizers to `keep` (those of ARC's the repair removes left out) with the
    /// repair annotations, in one patch at the resourceVersion read.
    pub(super) async fn set_finalizers(
        &self,
        code: &str,
        o: &Object,
        plural: &str,
        keep: &[String],
    ) -> Outcome {
        let Some(rv) = &o.meta.resource_version else {
            return refused("no resourceVersion was read: the patch cannot be guarded");
        };
        let Some((client, server)) = self.sends() else {
            return (RepairResult::WouldWrite, None);
        };
        let metadata = serde_json::json!({
            "annotations": self.annotations(code),
            "finalizers": keep,
        });
        match patch_checked((client, server), o, plural, rv, metadata).await {
            Ok(_) if server => (RepairResult::WouldWrite, None),
            Ok(_) => (RepairResult::Written, None),
            Err(outcome) => outcome,
        }
    }
}

/// Merge `metadata` into `o` at `rv` (guarded), and check that the answer holds it: the object
/// as the API server stored it, or the repair's outcome when refused or not held.
async fn patch_checked(
    (client, server): (&kube::Client, bool),
    o: &Object,
    plural: &str,
    rv: &str,
    metadata: Value,
) -> Result<Value, Outcome> {
    let answer = cluster::guarded::patch_metadata_if_unchanged(
        client,
        plural,
        o.namespace(),
        o.name(),
        rv,
        metadata.clone(),
        server,
    )
    .await;
    let after = answer.map_err(|e| api_refusal(e, "patch", plural))?;
    match unheld(&after, &metadata) {
        Some(failed) => Err(failed),
        None => Ok(after),
    }
}

/// How a finalizer removal is written, for the report.
pub(super) fn describe_finalizers(o: &Object, plural: &str, keep: &[String]) -> String {
    format!(
        "merge patch of {plural} {}/{}: metadata.finalizers [{}] and the repair annotations, at resourceVersion {}",
        o.namespace(),
        o.name(),
        keep.join(", "),
        o.meta.resource_version.as_deref().unwrap_or("(none)")
    )
}

fn refused(why: &str) -> Outcome {
    (RepairResult::Refused, Some(why.to_string()))
}

/// `Failed` when the API server's answer does not hold the metadata written (the annotations,
/// and the finalizers when they were written).
fn unheld(after: &Value, metadata: &Value) -> Option<Outcome> {
    let annotations = (metadata["annotations"].as_object().into_iter().flatten()).all(|(k, v)| {
        after
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(k))
            == Some(v)
    });
    let finalizers = metadata.get("finalizers").is_none_or(|want| {
        let got = after
            .pointer("/metadata/finalizers")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        &got == want
    });
    (!(annotations && finalizers)).then(|| {
        (
            RepairResult::Failed,
            Some(format!(
                "the API server's answer does not hold what was written: {}",
                after.get("metadata").unwrap_or(&Value::Null)
            )),
        )
    })
}

/// A write the API server refused: 409 or 404, the object changed since it was read (or is
/// gone); 403, the role lacks `verb` on `plural`; anything else failed.
fn api_refusal(e: ApiError, verb: &str, plural: &str) -> Outcome {
    match e.kind() {
        ApiErrorKind::Conflict | ApiErrorKind::NotFound => (
            RepairResult::Refused,
            Some(format!(
                "it changed since it was read (a job assigned, a status written) or is gone: {e}"
            )),
        ),
        ApiErrorKind::Forbidden => (
            RepairResult::Refused,
            Some(format!(
                "the caller may not {verb} {plural} (deploy/rbac.yaml's kubectl-arc-repair role): {e}"
            )),
        ),
        _ => (RepairResult::Failed, Some(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_what_was_written_fails() {
        let written = serde_json::json!({
            "annotations": {"kubectl-arc/repair-id": "r1", "kubectl-arc/repair-reason": "FinalizersLeft"},
            "finalizers": ["example.com/other"],
        });
        let held = serde_json::json!({"metadata": {
            "annotations": {"kubectl-arc/repair-id": "r1", "kubectl-arc/repair-reason": "FinalizersLeft", "x": "y"},
            "finalizers": ["example.com/other"]}});
        assert!(unheld(&held, &written).is_none());
        let dropped = serde_json::json!({"metadata": {"finalizers": ["example.com/other"]}});
        assert!(matches!(
            unheld(&dropped, &written),
            Some((RepairResult::Failed, _))
        ));
        let kept = serde_json::json!({"metadata": {
            "annotations": {"kubectl-arc/repair-id": "r1", "kubectl-arc/repair-reason": "FinalizersLeft"},
            "finalizers": ["ephemeralrunner.actions.github.com/finalizer", "example.com/other"]}});
        assert!(unheld(&kept, &written).is_some());
        // Every finalizer removed: the answer has none.
        let none =
            serde_json::json!({"annotations": {"kubectl-arc/repair-id": "r1"}, "finalizers": []});
        let gone =
            serde_json::json!({"metadata": {"annotations": {"kubectl-arc/repair-id": "r1"}}});
        assert!(unheld(&gone, &none).is_none());
    }
}
