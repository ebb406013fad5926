//! Guarded writes: every write kubectl-arc makes goes through [`guarded_patch`].
//!
//! Cluster layer. A write is a JSON merge patch that carries the `metadata.resourceVersion` it was
//! decided on (so the API server answers 409 Conflict if anything changed in between), is sent with
//! `fieldValidation=Strict` (so a field the installed CRD lacks fails with 422 instead of being
//! pruned silently), and is read back and verified. On a conflict, or on a failure after which it is
//! not known whether the write landed, the object is read again and the decision is made again;
//! decisions recognise their own completed work, so no request is ever applied twice. Retries
//! follow client-go's `retry.DefaultBackoff` (4 steps from 10ms, factor 5, jitter 0.1).

use std::time::Duration;

use anyhow::Context as _;
use kube::Client;
use kube::api::{Patch, PatchParams};
use serde_json::Value;

use super::{ApiError, ApiErrorKind, arc_path};

/// How a command writes, a plain parameter of the core (so that the reports carry it without
/// naming this layer), named here too where the writes obey it.
pub use crate::core::go::params::DryRun;

/// An object as read for a decision: its exact JSON text and the parsed value.
#[derive(Debug, Clone)]
pub struct ObjectText {
    pub(crate) text: String,
    pub value: Value,
}

impl ObjectText {
    pub(crate) fn resource_version(&self) -> Option<&str> {
        self.value
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
    }
}

/// Checks the stored object after a write; the error says what is not as written.
pub(crate) type Verify = Box<dyn Fn(&Value) -> Result<(), String> + Send>;

/// What to do with the object just read.
pub enum Decision {
    /// Nothing to write (already done, or nothing to do); the reason is for the report.
    Skip(String),
    /// Write this merge patch (without `metadata.resourceVersion`: the guard adds it), then check
    /// the stored object with `verify`.
    Patch { body: Value, verify: Verify },
    /// Refuse, with a reason naming the object and field.
    Refuse(String),
}

/// What a guarded write did.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Nothing was written.
    Skipped { before: ObjectText, reason: String },
    /// Written (or, with a dry run, would have been), verified.
    Written {
        before: ObjectText,
        after: Value,
        patch: Value,
        attempts: u32,
    },
    /// Refused by the decision.
    Refused { before: ObjectText, reason: String },
}

/// A write that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The object does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// Every attempt met a concurrent change.
    #[error(
        "{what}: conflict: the object changed during each of {attempts} attempts (another writer is active); nothing was written by this request, re-run to retry"
    )]
    Conflict { what: String, attempts: u32 },
    /// The stored object is not what was written.
    #[error("{what}: the write did not persist as expected: {reason}")]
    Verify { what: String, reason: String },
    /// A patch was sent and failed without an answer that says whether it was applied (a cut
    /// connection, a crash, a 5xx), and the object could not be read again to find out.
    #[error(
        "{what}: the outcome of the write is unknown: the patch was sent but its answer was lost ({sent}), and the object could not be read again ({reread}); it may have been applied"
    )]
    OutcomeUnknown {
        what: String,
        sent: String,
        reread: String,
    },
    /// A read or the patch failed for good (its `{:#}` carries the causes, as anyhow's does).
    #[error(transparent)]
    Api(#[from] ApiError),
    /// Any other failure, described.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl WriteError {
    /// The API server could not be reached (a refused or cut connection, after the retries), as
    /// opposed to an answer: the next object would most likely meet the same.
    pub(crate) fn server_unreachable(&self) -> bool {
        match self {
            WriteError::OutcomeUnknown { .. } => true,
            WriteError::Api(e) => e.unreachable(),
            _ => false,
        }
    }
}

/// Stops a run of per-object writes once the API server has stopped answering: after `limit`
/// objects in a row found it unreachable (each after its own retries, a few seconds), the rest are
/// not attempted, so a dead server costs seconds, not a few seconds per object of a large run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Breaker {
    limit: u32,
    in_a_row: u32,
}

impl Default for Breaker {
    fn default() -> Self {
        Breaker {
            limit: 3,
            in_a_row: 0,
        }
    }
}

impl Breaker {
    /// Record one object's outcome: whether its write found the server unreachable.
    pub(crate) fn record(&mut self, unreachable: bool) {
        self.in_a_row = if unreachable { self.in_a_row + 1 } else { 0 };
    }

    /// Whether the remaining objects should not be attempted.
    pub(crate) fn open(&self) -> bool {
        self.in_a_row >= self.limit
    }

    /// Why an object was not attempted.
    pub(crate) fn reason(&self) -> String {
        format!(
            "not attempted: the API server did not answer for the {} objects before this one (each after its retries); nothing was written, run again when it is back",
            self.in_a_row
        )
    }
}

/// client-go `retry.DefaultBackoff`: Steps 4, Duration 10ms, Factor 5.0, Jitter 0.1.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub(crate) steps: u32,
    pub(crate) initial: Duration,
    pub(crate) factor: f64,
    pub(crate) jitter: f64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            steps: 4,
            initial: Duration::from_millis(10),
            factor: 5.0,
            jitter: 0.1,
        }
    }
}

impl Backoff {
    fn delay(&self, attempt: u32, seed: u64) -> Duration {
        let base = self.initial.as_secs_f64() * self.factor.powi(attempt as i32);
        // A cheap, seeded jitter in [0, jitter): no clock-derived randomness needed.
        let mut z = seed
            .wrapping_add(attempt as u64)
            .wrapping_mul(0x9E3779B97F4A7C15);
        z ^= z >> 31;
        let frac = (z % 1000) as f64 / 1000.0;
        Duration::from_secs_f64(base * (1.0 + self.jitter * frac))
    }
}

/// Options of a guarded write.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub dry_run: DryRun,
    pub field_manager: String,
    pub backoff: Backoff,
    /// Seeds the jitter (a per-request value, so concurrent writers spread out).
    pub jitter_seed: u64,
}

/// Read an ARC object's exact JSON; `None` when it does not exist. JSON that does not parse is
/// reported as kube reports a response that does not decode.
pub(crate) async fn read(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
) -> Result<Option<ObjectText>, ApiError> {
    let failed = |e| ApiError::new(e, "get", plural, Some(namespace), Some(name));
    let req = kube::core::Request::new(arc_path(plural, Some(namespace)))
        .get(name, &kube::api::GetParams::default())
        .map_err(|e| failed(kube::Error::BuildRequest(e)))?;
    match super::retry::read_with_retry(super::retry::ReadRetry::default(), || {
        client.request_text(req.clone())
    })
    .await
    {
        Ok(text) => {
            let value =
                serde_json::from_str(&text).map_err(|e| failed(kube::Error::SerdeError(e)))?;
            Ok(Some(ObjectText { text, value }))
        }
        Err(e) => match failed(e) {
            e if e.kind() == ApiErrorKind::NotFound => Ok(None),
            e => Err(e),
        },
    }
}

/// A guarded write's outcome, with the caller's own decision (`D`) made on the read the last
/// attempt was based on: what the caller reports is what the write did, never a decision made on
/// an earlier read.
#[derive(Debug)]
pub struct Guarded<D> {
    /// `None` when no read succeeded (nothing was decided).
    pub decision: Option<D>,
    pub outcome: Result<Outcome, WriteError>,
}

/// Read, decide, and write with a resourceVersion precondition, retrying as described above.
/// `decide` returns the caller's decision and the write it asks for; the last one made comes back
/// with the outcome.
pub async fn guarded_patch<D>(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    opts: &WriteOptions,
    mut decide: impl FnMut(&ObjectText) -> (D, Decision),
) -> Guarded<D> {
    let mut decision = None;
    let outcome = patch_with_precondition(client, plural, namespace, name, opts, |object| {
        let (d, write) = decide(object);
        decision = Some(d);
        write
    })
    .await;
    Guarded { decision, outcome }
}

async fn patch_with_precondition(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    opts: &WriteOptions,
    mut decide: impl FnMut(&ObjectText) -> Decision,
) -> Result<Outcome, WriteError> {
    let what = format!("{plural} {namespace}/{name}");
    let request = kube::core::Request::new(arc_path(plural, Some(namespace)));
    let mut tries = Tries::default();
    loop {
        let before = read_before(client, plural, namespace, name, &what, &mut tries).await?;
        let (mut body, verify) = match decide(&before) {
            Decision::Skip(reason) => return Ok(Outcome::Skipped { before, reason }),
            Decision::Refuse(reason) => return Ok(Outcome::Refused { before, reason }),
            Decision::Patch { body, verify } => (body, verify),
        };
        with_precondition(&mut body, &before, &what)?;
        if opts.dry_run == DryRun::Client {
            return client_dry_run(before, body, &verify, &what, tries.attempts + 1);
        }
        let req = request
            .patch(name, &patch_params(opts), &Patch::Merge(&body))
            .context("cannot build a patch request")?;
        tries.attempts += 1;
        tracing::info!(
            target: "kubectl_arc::write",
            dry_run = ?opts.dry_run,
            attempt = tries.attempts,
            "patch {what}: {body}"
        );
        match client.request_text(req).await {
            Ok(text) => {
                let after: Value = serde_json::from_str(&text)
                    .with_context(|| format!("{what}: the server sent invalid JSON"))?;
                verified(&verify, &after, &what, "")?;
                if opts.dry_run == DryRun::None {
                    read_back(client, plural, namespace, name, &what, &after, &verify).await?;
                }
                return Ok(Outcome::Written {
                    before,
                    after,
                    patch: body,
                    attempts: tries.attempts,
                });
            }
            Err(e) => {
                let e = ApiError::new(e, "patch", plural, Some(namespace), Some(name));
                let wait = tries.after_failure(e, opts, &what)?;
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// `--dry-run=client`: what the merge patch `body` would make of `before`, verified as the stored
/// object would be; nothing is sent. The outcome counts `attempts`.
pub(crate) fn client_dry_run(
    before: ObjectText,
    body: Value,
    verify: &Verify,
    what: &str,
    attempts: u32,
) -> Result<Outcome, WriteError> {
    let after = json_merge(&before.value, &body);
    verified(verify, &after, what, "")?;
    Ok(Outcome::Written {
        before,
        after,
        patch: body,
        attempts,
    })
}

/// The count of a guarded write's attempts, and whether the last one's outcome is unknown.
#[derive(Debug, Default)]
struct Tries {
    /// Patches sent.
    attempts: u32,
    /// 409 Conflicts met.
    conflicts: u32,
    /// Set while a sent patch may have been applied without our knowing (its answer was lost);
    /// cleared by a read, which the next decision makes on.
    unknown: Option<String>,
}

/// What to do after a patch failed.
#[derive(Debug, PartialEq, Eq)]
enum Retry {
    /// Read again and decide again, after the backoff's delay of this step.
    After(u32),
    /// Every attempt met a concurrent change.
    Conflicted,
    /// The answer was lost and no attempt is left to find out.
    Unknown,
    /// A failure that retrying does not mend.
    Fail,
}

impl Tries {
    /// The rule after a failed patch: a 409 reads and decides again, up to the backoff's steps
    /// of conflicts; a 429, 5xx or no answer reads again too (up to the steps of attempts), and
    /// the outcome is unknown until that read, except for a 429 (certainly not applied); anything
    /// else fails.
    fn next(&mut self, kind: ApiErrorKind, too_many_requests: bool, steps: u32) -> Retry {
        match kind {
            ApiErrorKind::Conflict => {
                self.conflicts += 1;
                if self.conflicts > steps {
                    Retry::Conflicted
                } else {
                    Retry::After(self.conflicts - 1)
                }
            }
            ApiErrorKind::Transient if self.attempts <= steps => Retry::After(self.attempts - 1),
            ApiErrorKind::Transient if !too_many_requests => Retry::Unknown,
            _ => Retry::Fail,
        }
    }

    /// [`Tries::next`] for a failed patch: how long to wait before reading again, or the error.
    fn after_failure(
        &mut self,
        e: ApiError,
        opts: &WriteOptions,
        what: &str,
    ) -> Result<Duration, WriteError> {
        if e.kind() == ApiErrorKind::Conflict {
            tracing::info!(target: "kubectl_arc::write", "{what}: 409 Conflict, reading it again and deciding again");
        }
        let step = match self.next(e.kind(), e.too_many_requests(), opts.backoff.steps) {
            Retry::After(step) => step,
            Retry::Conflicted => {
                return Err(WriteError::Conflict {
                    what: what.to_string(),
                    attempts: self.conflicts,
                });
            }
            Retry::Unknown => {
                return Err(WriteError::OutcomeUnknown {
                    what: what.to_string(),
                    sent: e.kube_error().to_string(),
                    reread: "no attempts left".into(),
                });
            }
            Retry::Fail => return Err(e.into()),
        };
        if e.kind() != ApiErrorKind::Conflict {
            // 429, 5xx and no answer: the outcome may be unknown (a 429 was certainly not
            // applied): read again; the decision sees whether the write landed.
            let sent = e.kube_error();
            tracing::warn!(target: "kubectl_arc::write", "{what}: outcome unknown ({sent}), reading it again");
            if !e.too_many_requests() {
                self.unknown = Some(sent.to_string());
            }
        }
        Ok(opts.backoff.delay(step, opts.jitter_seed))
    }
}

/// The read a decision is made on. `read` has already retried transient failures with backoff
/// (retry.rs); retrying it again here would multiply the attempts and the time a dead server
/// costs. A failed read after a patch whose answer was lost leaves its outcome unknown.
async fn read_before(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    what: &str,
    tries: &mut Tries,
) -> Result<ObjectText, WriteError> {
    let unknown = tries.unknown.take();
    match read(client, plural, namespace, name).await {
        Ok(Some(o)) => Ok(o),
        Ok(None) => Err(WriteError::NotFound(what.to_string())),
        Err(e) => Err(match unknown {
            Some(sent) => WriteError::OutcomeUnknown {
                what: what.to_string(),
                sent,
                reread: format!("{e:#}"),
            },
            None => e.into(),
        }),
    }
}

/// The precondition: the patch carries the resourceVersion its decision was made on.
fn with_precondition(body: &mut Value, before: &ObjectText, what: &str) -> Result<(), WriteError> {
    let rv = before
        .resource_version()
        .ok_or_else(|| anyhow::anyhow!("{what}: the server sent no metadata.resourceVersion"))?;
    body["metadata"]["resourceVersion"] = Value::String(rv.to_string());
    Ok(())
}

/// A merge patch with strict field validation (and the server's dry run when asked).
fn patch_params(opts: &WriteOptions) -> PatchParams {
    let params = PatchParams {
        field_manager: Some(opts.field_manager.clone()),
        ..Default::default()
    }
    .validation_strict();
    if opts.dry_run == DryRun::Server {
        params.dry_run()
    } else {
        params
    }
}

/// `verify` on `object`, its complaint a [`WriteError::Verify`] (prefixed by `context`).
fn verified(verify: &Verify, object: &Value, what: &str, context: &str) -> Result<(), WriteError> {
    verify(object).map_err(|reason| WriteError::Verify {
        what: what.to_string(),
        reason: format!("{context}{reason}"),
    })
}

/// Read back what was stored, as a second reader would see it. A read at another
/// resourceVersion than the one our write made shows a later write (another bump, the
/// controller): ours persisted, and whether the later one kept our value is not ours to check (a
/// racing restart writes its own stamp). A read back that fails (the server went away after it
/// answered the patch) leaves the write as the patch's verified answer says: written.
async fn read_back(
    client: &Client,
    plural: &str,
    namespace: &str,
    name: &str,
    what: &str,
    after: &Value,
    verify: &Verify,
) -> Result<(), WriteError> {
    let stored = match read(client, plural, namespace, name).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return Err(WriteError::NotFound(what.to_string())),
        // The API server answered the patch with the object as stored, and that answer holds
        // what was written (`verified` above): the write is known to have landed. A read back
        // that finds no server (it went away since) cannot unsay that.
        Err(e) => {
            tracing::info!(
                target: "kubectl_arc::write",
                "{what}: written (the API server's answer holds it); the read back failed: {e}"
            );
            return Ok(());
        }
    };
    let written = after
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str);
    if written.is_none() || stored.resource_version() == written {
        verified(verify, &stored.value, what, "read back: ")
    } else {
        tracing::info!(
            target: "kubectl_arc::write",
            "{what}: written at resourceVersion {}, read back at {} (a later write)",
            written.unwrap_or("?"),
            stored.resource_version().unwrap_or("?")
        );
        Ok(())
    }
}

/// RFC 7386 JSON merge patch, for client-side dry runs.
pub(crate) fn json_merge(target: &Value, patch: &Value) -> Value {
    match patch {
        Value::Object(p) => {
            let mut out = match target {
                Value::Object(t) => t.clone(),
                _ => serde_json::Map::new(),
            };
            for (k, v) in p {
                if v.is_null() {
                    out.shift_remove(k);
                } else {
                    let merged = json_merge(out.get(k).unwrap_or(&Value::Null), v);
                    out.insert(k.clone(), merged);
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn breaker_opens_after_three_unreachable_in_a_row() {
        let mut b = Breaker::default();
        for unreachable in [true, true, false, true, true] {
            b.record(unreachable);
            assert!(!b.open());
        }
        b.record(true);
        assert!(b.open());
        assert!(b.reason().contains("the 3 objects before this one"));
    }

    #[test]
    fn unreachable_means_no_answer() {
        let unknown = WriteError::OutcomeUnknown {
            what: "x".into(),
            sent: "cut".into(),
            reread: "refused".into(),
        };
        assert!(unknown.server_unreachable());
        assert!(!WriteError::NotFound("x".into()).server_unreachable());
        let answered = WriteError::Other(anyhow::anyhow!("cannot get x: forbidden (403)"));
        assert!(!answered.server_unreachable());
        let api = |e| {
            WriteError::Api(ApiError::new(
                e,
                "patch",
                "ephemeralrunnersets",
                Some("ci"),
                Some("x"),
            ))
        };
        let forbidden = kube::Error::Api(Box::new(kube::core::Status {
            code: 403,
            reason: "Forbidden".into(),
            ..Default::default()
        }));
        assert!(!api(forbidden).server_unreachable());
        let unavailable = kube::Error::Api(Box::new(kube::core::Status {
            code: 503,
            ..Default::default()
        }));
        assert!(!api(unavailable).server_unreachable(), "a 503 is an answer");
        let refused = kube::Error::Service(Box::new(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        let refused = api(refused);
        assert!(refused.server_unreachable());
        // bump prints a failed write with `{:#}`: the causes stay in it.
        assert_eq!(
            format!("{refused:#}"),
            "cannot patch ephemeralrunnersets ci/x: ServiceError: connection refused: connection refused"
        );
    }

    #[test]
    fn merge_patch_follows_rfc_7386() {
        let t = json!({"a": 1, "m": {"x": 1, "y": 2}, "keep": true});
        let p = json!({"a": 2, "m": {"x": null, "z": 3}, "new": [1]});
        assert_eq!(
            json_merge(&t, &p),
            json!({"a": 2, "m": {"y": 2, "z": 3}, "keep": true, "new": [1]})
        );
    }

    /// The retry rule of a failed patch, step by step as the write loop meets them.
    #[test]
    fn conflicts_and_lost_answers_retry_within_the_backoff_steps() {
        use ApiErrorKind::{Conflict, Forbidden, Transient};
        // Conflicts: retried with growing steps, the fifth is one too many.
        let mut t = Tries::default();
        let mut steps = Vec::new();
        for attempt in 1..=5 {
            t.attempts = attempt;
            steps.push(t.next(Conflict, false, 4));
        }
        use Retry::{After, Conflicted, Fail, Unknown};
        assert_eq!(steps, [After(0), After(1), After(2), After(3), Conflicted]);
        // Lost answers: retried while attempts are left, then unknown; a 429 is then a plain
        // failure (it was certainly not applied).
        let mut t = Tries::default();
        let mut steps = Vec::new();
        for attempt in 1..=5 {
            t.attempts = attempt;
            steps.push(t.next(Transient, false, 4));
        }
        assert_eq!(steps, [After(0), After(1), After(2), After(3), Unknown]);
        t.attempts = 5;
        assert_eq!(t.next(Transient, true, 4), Fail);
        assert_eq!(t.conflicts, 0, "transient failures are not conflicts");
        // Conflicts count on their own: after three lost answers, a conflict is step 0.
        t.attempts = 3;
        assert_eq!(t.next(Conflict, false, 4), After(0));
        assert_eq!(Tries::default().next(Forbidden, false, 4), Fail);
    }

    #[test]
    fn the_precondition_is_the_read_revision() {
        let before = ObjectText {
            text: String::new(),
            value: json!({"metadata": {"resourceVersion": "42"}}),
        };
        let mut body = json!({"spec": {"x": 1}});
        with_precondition(&mut body, &before, "x").unwrap();
        assert_eq!(
            body,
            json!({"spec": {"x": 1}, "metadata": {"resourceVersion": "42"}})
        );
        let none = ObjectText {
            text: String::new(),
            value: json!({"metadata": {}}),
        };
        let err = with_precondition(&mut body, &none, "ers ci/x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "ers ci/x: the server sent no metadata.resourceVersion"
        );
    }

    #[test]
    fn backoff_grows_like_client_go_default() {
        let b = Backoff::default();
        let d: Vec<u128> = (0..4).map(|i| b.delay(i, 7).as_millis()).collect();
        assert!(d[0] >= 10 && d[0] <= 11, "{d:?}");
        assert!(d[1] >= 50 && d[1] <= 55, "{d:?}");
        assert!(d[2] >= 250 && d[2] <= 275, "{d:?}");
        assert!(d[3] >= 1250 && d[3] <= 1375, "{d:?}");
    }
}
