//! `bump`'s operation: the EphemeralRunnerSets to bump → one guarded write each → a
//! [`BumpReport`] (and, with `--wait`, the acknowledgements).
//!
//! Like `kubectl rollout restart`: it requests a new runner-spec revision
//! (`nextActionableRevision`, max(spec, applied) + 1) so ARC's controller recycles idle and pending
//! runners. Every write goes through the ARC API's guarded patch
//! ([`crate::cluster::write::guarded_patch`] on a cluster): a merge patch with the resourceVersion
//! it was decided on, `fieldValidation=Strict`, re-read and re-decided on 409, read back. The request
//! id written with the revision lets a retry recognise its own write, so one request never bumps
//! twice. The report's [`BumpReport::outcome`] is the exit code: 0; 1 when `--wait` times out; 2 on
//! errors and refusals.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::Value;

use super::{Gate, Throttle};
use crate::cluster::api::{ArcApi, Resource, object_text};
use crate::cluster::preflight::{
    Permission, crd_refusal, denied_permissions, ers_crd_revision_fields,
};
use crate::cluster::watch::{Event, Scope};
use crate::cluster::write::{
    Backoff, Decision, DryRun, Guarded, Outcome, WriteError, WriteOptions,
};
use crate::cluster::{self, ConnectOptions};
use crate::core::arc;
use crate::core::bump::{BumpDecision, BumpReason, BumpRequest, check_bump, decide_bump};
use crate::core::revision::Revisions;
use crate::report::bump::{BumpItem, BumpReport, BumpResult, WaitTimeout};
use crate::shell::Shell;

/// The field manager of kubectl-arc's writes (as it appears in managedFields).
pub(crate) const FIELD_MANAGER: &str = "kubectl-arc";

/// A bump, as the command's checked arguments describe it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BumpPlan {
    /// EphemeralRunnerSet (or AutoscalingRunnerSet) names (none with `--all` or `-l`), `-n` (the
    /// namespace of the names), `-A` (with `--all` or `-l`) and `-l`.
    pub(crate) scope: super::Scope,
    /// `--reason`, recorded in annotation kubectl-arc/bump-reason.
    pub(crate) reason: Option<String>,
    pub(crate) dry_run: DryRun,
    /// `--wait`: until ARC acknowledges, at most `timeout` (none: forever).
    pub(crate) wait: bool,
    pub(crate) timeout: Option<Duration>,
    /// `--request-id`: finish an earlier request; `None`, a new one.
    pub(crate) request_id: Option<String>,
    /// `--qps`, `--burst`: the sets written per second.
    pub(crate) throttle: Throttle,
}

impl BumpPlan {
    /// The request id the bump writes: `--request-id`, or a new one made from `seed`.
    pub(crate) fn request_id_or(&self, seed: u64) -> String {
        crate::ops::request_id(self.request_id.as_deref(), seed)
    }
}

/// One set to bump, resolved.
struct Target {
    namespace: String,
    name: String,
    /// The AutoscalingRunnerSet of the same name (name, uid) that must own it.
    owner: Option<(String, String)>,
    /// A set of ARC up to 0.14: bumped as `kubectl rollout restart` does, in its scale set.
    restart: Option<Restart>,
}

/// A set of ARC up to 0.14 (`actions.github.com/runner-spec-hash`): there is no revision, so the
/// bump writes [`ANNOTATION_RESTARTED_AT`] into its AutoscalingRunnerSet's
/// `spec.template.metadata.annotations`, which changes `RunnerSetSpecHash()`: ARC replaces the set.
#[derive(Debug, Clone)]
struct Restart {
    /// The AutoscalingRunnerSet (the set's controller owner).
    scale_set: String,
    /// The set's `status.pendingEphemeralRunners` and `runningEphemeralRunners` (idle and busy).
    pending: i64,
    running: i64,
    /// The release that made the set (its `app.kubernetes.io/version` label).
    version: Option<String>,
}

/// The pod-template annotation a hash-era bump writes, as `kubectl rollout restart` writes
/// `kubectl.kubernetes.io/restartedAt` (an RFC 3339 time). In kubectl-arc's own namespace, beside
/// its other annotations: the runner pods inherit it, and it should say which tool wrote it, not
/// claim kubectl did.
pub(crate) const ANNOTATION_RESTARTED_AT: &str = "kubectl-arc/restarted-at";

impl Restart {
    /// A restart of `set` (its JSON), when ARC up to 0.14 made it and it has a scale set.
    fn of(set: &Value) -> Option<Restart> {
        let has = |field: &str| {
            set.pointer(&format!("/metadata/{field}"))
                .and_then(|m| m.get(arc::ANNOTATION_RUNNER_SPEC_HASH))
                .is_some()
        };
        if !(has("annotations") || has("labels")) {
            return None;
        }
        let owner = crate::core::owner::controller_of(set)
            .filter(|c| c.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET))?
            .name()?
            .to_string();
        let count = |f: &str| {
            set.pointer(&format!("/status/{f}"))
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        Some(Restart {
            scale_set: owner,
            pending: count("pendingEphemeralRunners"),
            running: count("runningEphemeralRunners"),
            version: set
                .pointer("/metadata/labels/app.kubernetes.io~1version")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }
}

/// Bump the sets of `plan` on the cluster `connect` names. `seed` makes a new request id.
/// Sets that are refused or fail are items of the report; the error is for what stops the whole
/// run (no connection, a refusal before any write, a list that fails).
pub(crate) fn bump(
    plan: &BumpPlan,
    connect: &ConnectOptions,
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<BumpReport> {
    let bump_id = plan.request_id_or(seed);
    super::runtime()?.block_on(async {
        let conn = cluster::connect(connect).await?;
        let client = &conn.client;
        let namespace = plan.scope.listed_namespace(&conn.default_namespace);
        preflight(client, plan, namespace.as_deref(), &[]).await?;
        let (targets, mut items) = targets(client, plan, namespace.as_deref(), shell).await?;
        // What the writes need, now that it is known which rule each set is bumped by: the
        // revision in the set, or (ARC up to 0.14) the restart in its AutoscalingRunnerSet.
        if plan.dry_run != DryRun::Client {
            let mut writes = Vec::new();
            if targets.iter().any(|t| t.restart.is_none()) {
                writes.push(Permission::arc("patch", arc::EPHEMERAL_RUNNER_SETS));
            }
            if targets.iter().any(|t| t.restart.is_some()) {
                writes.push(Permission::arc("get", arc::AUTOSCALING_RUNNER_SETS));
                writes.push(Permission::arc("patch", arc::AUTOSCALING_RUNNER_SETS));
            }
            preflight(client, plan, namespace.as_deref(), &writes).await?;
        }
        // The revision fields matter only to sets that have a revision to bump.
        if targets.iter().any(|t| t.restart.is_none())
            && let Some(fields) = ers_crd_revision_fields(client).await?
            && let Some(refusal) = crd_refusal(&fields)
        {
            bail!("refusing to bump, nothing was written: {refusal}");
        }
        if targets.iter().any(|t| t.restart.is_some()) {
            shell.warn(format_args!(
                "sets of ARC 0.14 or older are bumped as `kubectl rollout restart` does, by writing {ANNOTATION_RESTARTED_AT} into their AutoscalingRunnerSet's pod template: Helm or a GitOps tool that manages the AutoscalingRunnerSet takes the annotation out again on its next sync, which is itself another replacement of the set"
            ))?;
        }
        let written = super::write_each(
            &targets,
            plan.throttle,
            "bumping",
            shell,
            async |t, gate| bump_one(client, t, plan, &bump_id, gate).await,
        )
        .await?;
        // A re-run with the request id can finish what the writes left: not a name that was not
        // found, nor a refusal.
        let resumable =
            plan.dry_run == DryRun::None && written.iter().any(|i| i.result == BumpResult::Failed);
        items.extend(written);
        items.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        attach_impacts(client, &targets, &mut items).await;
        let timed_out = if plan.wait {
            let started = tokio::time::Instant::now();
            let revisions = wait_for_acknowledgement(client, &mut items, plan.timeout, shell).await?;
            let left = plan.timeout.map(|t| t.saturating_sub(started.elapsed()));
            let replaced = wait_for_replacement(client, &mut items, left, shell).await?;
            match (revisions, replaced) {
                (Some(mut a), Some(b)) => {
                    a.waited_for += b.waited_for;
                    a.left.extend(b.left);
                    Some(a)
                }
                (a, b) => a.or(b),
            }
        } else {
            None
        };
        Ok(BumpReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "BumpReport",
            dry_run: plan.dry_run,
            bump_id,
            reason: plan.reason.clone(),
            items,
            resumable,
            timed_out,
        })
    })
}

/// What each bump (made or that would be) does to the set's running work
/// ([`crate::core::impact`]): a revision is the set's own cleanup (idle, pending and terminated
/// runners deleted, busy ones finish first); a restart (ARC up to 0.14) replaces the set, by the
/// strategy of the controller that reconciles it. The runners are listed once per namespace; a
/// caller who may not list them gets `runnersKnown: false`.
async fn attach_impacts(client: &kube::Client, targets: &[Target], items: &mut [BumpItem]) {
    use crate::core::impact::{Change, Counters, SetFacts};
    use crate::core::release::Mechanism;
    use crate::ops::impact::{Concerned, Controllers, Runners};
    let bumped = |i: &BumpItem| matches!(i.result, BumpResult::Bumped | BumpResult::WouldBump);
    if !items.iter().any(bumped) {
        return;
    }
    let controllers = if targets.iter().any(|t| t.restart.is_some()) {
        Controllers::read(client).await
    } else {
        Controllers::default()
    };
    let mut runners = Runners::default();
    let namespaces: std::collections::BTreeSet<String> = (items.iter())
        .filter(|i| bumped(i))
        .map(|i| i.namespace.clone())
        .collect();
    runners.list(client, &namespaces, false).await;
    for item in items.iter_mut().filter(|i| bumped(i)) {
        let Some(t) =
            (targets.iter()).find(|t| t.namespace == item.namespace && t.name == item.name)
        else {
            continue;
        };
        let (change, mechanism, counters, version) = match &t.restart {
            Some(r) => (
                Change::NewSet,
                Mechanism::RunnerSpecHash,
                Counters {
                    running: r.running,
                    pending: r.pending,
                },
                r.version.as_deref(),
            ),
            None => (
                Change::Cleanup,
                Mechanism::ActionableRevision,
                Counters::default(),
                None,
            ),
        };
        let set = SetFacts {
            name: t.name.clone(),
            counters,
            empty: false,
        };
        let concerned = Concerned {
            namespace: &t.namespace,
            set: &set,
            mechanism,
            version,
            listener_restart: t.restart.is_some(),
        };
        item.impact = Some(concerned.forecast(change, &runners, &controllers));
    }
}

/// Nothing is written unless the installed CRD has the revision fields (else the write would be
/// pruned) and the caller may do what the bump needs (named, verb and resource, if not): first
/// the reads (`writes` empty), then, once the sets are known, the `writes` their rule needs.
async fn preflight(
    client: &kube::Client,
    plan: &BumpPlan,
    namespace: Option<&str>,
    writes: &[Permission],
) -> Result<()> {
    let mut needed = vec![Permission::arc("get", arc::EPHEMERAL_RUNNER_SETS)];
    if !writes.is_empty() {
        needed = writes.to_vec();
    } else if plan.scope.names.is_empty() {
        needed.push(Permission::arc("list", arc::EPHEMERAL_RUNNER_SETS));
    }
    if plan.wait && writes.is_empty() {
        needed.push(Permission::arc("watch", arc::EPHEMERAL_RUNNER_SETS));
    }
    let denied = denied_permissions(client, namespace, &needed).await?;
    if !denied.is_empty() {
        bail!(
            "forbidden: this user may not {} {}: nothing was written (ask for RBAC permission to {})",
            denied.join(", "),
            match namespace {
                Some(ns) => format!("in namespace {ns}"),
                None => "in all namespaces".into(),
            },
            denied.join(", ")
        );
    }
    Ok(())
}

/// The sets to bump (by name, found as ARC finds them, or listed), and the failed items of names
/// that resolve to nothing to bump.
async fn targets<A: ArcApi>(
    api: &A,
    plan: &BumpPlan,
    namespace: Option<&str>,
    shell: &mut Shell<'_>,
) -> Result<(Vec<Target>, Vec<BumpItem>)> {
    let mut items = Vec::new();
    let mut targets = Vec::new();
    let mut listed: Vec<(Target, String, bool)> = Vec::new();
    if plan.scope.names.is_empty() {
        let query = Scope {
            namespace: namespace.map(str::to_string),
            label_selector: plan.scope.selector_text().map(str::to_string),
            field_selector: None,
        };
        api.list_each(Resource::EPHEMERAL_RUNNER_SETS, &query, |o| {
            // The one object model; its metadata and status for the restart rule.
            let json = o.parts_value(&["metadata", "status"]);
            listed.push((
                Target {
                    namespace: o.namespace().to_string(),
                    name: o.name().to_string(),
                    owner: None,
                    restart: Restart::of(&json),
                },
                o.meta.creation_timestamp.clone().unwrap_or_default(),
                o.meta.deletion_timestamp.is_some(),
            ));
            Ok::<_, anyhow::Error>(())
        })
        .await?;
        // One restart per scale set of ARC up to 0.14: of its newest set, not one being deleted.
        let mut newest: HashMap<(String, String), usize> = HashMap::new();
        for (i, (t, created, deleting)) in listed.iter().enumerate() {
            if let Some(r) = &t.restart {
                if *deleting {
                    continue;
                }
                let key = (t.namespace.clone(), r.scale_set.clone());
                match newest.get(&key) {
                    Some(&j) if listed[j].1 >= *created => {}
                    _ => {
                        newest.insert(key, i);
                    }
                }
            }
        }
        let keep: std::collections::HashSet<usize> = newest.into_values().collect();
        for (i, (t, _, _)) in listed.into_iter().enumerate() {
            if t.restart.is_none() || keep.contains(&i) {
                targets.push(t);
            }
        }
        if targets.is_empty() {
            if let Some(ns) = namespace {
                api.check_namespace(ns).await?;
            }
            shell.status("No EphemeralRunnerSets found.")?;
        }
    } else {
        let ns = namespace.unwrap_or_default();
        for name in &plan.scope.names {
            match resolve(api, ns, name).await? {
                Ok(t) => targets.push(t),
                Err((code, message)) => {
                    // A set bump's rules refuse (made by ARC 0.14 or older) is Refused, as
                    // docs/bump.md says; a name that is not there failed.
                    let result = if code == SPEC_HASH {
                        BumpResult::Refused
                    } else {
                        BumpResult::Failed
                    };
                    let mut item = failed(ns, name, result, message);
                    item.reason = Some(code);
                    items.push(item);
                }
            }
        }
    }
    Ok((targets, items))
}

/// Item codes beside [`crate::core::bump::BumpReason`]'s: what the cluster said of a set.
const SPEC_HASH: &str = "SpecHash";
const NOT_FOUND: &str = "NotFound";

fn failed(ns: &str, name: &str, result: BumpResult, message: String) -> BumpItem {
    BumpItem {
        namespace: ns.to_string(),
        name: name.to_string(),
        spec_revision: None,
        applied_revision: None,
        new_spec_revision: None,
        result,
        reason: None,
        message: Some(message),
        attempts: None,
        acknowledged: None,
        restarted_at: None,
        scale_set: None,
        impact: None,
    }
}

/// NAME as an EphemeralRunnerSet, owned by the AutoscalingRunnerSet of that name when one exists.
/// `Ok(Err((code, why)))` when there is nothing to bump.
async fn resolve<A: ArcApi>(
    api: &A,
    ns: &str,
    name: &str,
) -> Result<Result<Target, (&'static str, String)>> {
    let ers = (api.get(Resource::EPHEMERAL_RUNNER_SETS, ns, name).await?).map(|o| object_text(&o));
    let ars = api.get(Resource::AUTOSCALING_RUNNER_SETS, ns, name).await?;
    if let Some(ers) = &ers
        && let Some(why) = spec_hash_era(&ers.value, ns, name)
    {
        return Ok(match Restart::of(&ers.value) {
            Some(restart) => Ok(Target {
                namespace: ns.to_string(),
                name: name.to_string(),
                owner: None,
                restart: Some(restart),
            }),
            None => Err((SPEC_HASH, why)),
        });
    }
    if ers.is_none()
        && let Some(ars) = &ars
    {
        // ARC up to 0.14 names the set `<scale set>-xxxxx`: find it as ARC does.
        let sets = api
            .list(Resource::EPHEMERAL_RUNNER_SETS, Some(ns), None)
            .await?;
        let inputs: Vec<_> = sets.iter().map(crate::input::Object::pairing_set).collect();
        let scale_set = crate::core::pairing::ScaleSet {
            namespace: ns,
            name,
            uid: ars.meta.uid.as_deref(),
        };
        if let Some(p) = crate::core::pairing::pair(scale_set, &inputs) {
            let set = &sets[p.chosen];
            // Its metadata and status: all the restart rule reads.
            let json = set.parts_value(&["metadata", "status"]);
            if spec_hash_era(&json, ns, set.name()).is_some() {
                return Ok(match Restart::of(&json) {
                    Some(restart) => Ok(Target {
                        namespace: ns.to_string(),
                        name: set.name().to_string(),
                        owner: None,
                        restart: Some(restart),
                    }),
                    None => Err((SPEC_HASH, spec_hash_refusal(ns, set.name()))),
                });
            }
            return Ok(Ok(Target {
                namespace: ns.to_string(),
                name: set.name().to_string(),
                owner: Some((name.to_string(), ars.meta.uid.clone().unwrap_or_default())),
                restart: None,
            }));
        }
    }
    match (ers, ars) {
        (Some(_), ars) => Ok(Ok(Target {
            namespace: ns.to_string(),
            name: name.to_string(),
            owner: ars.map(|a| (name.to_string(), a.meta.uid.unwrap_or_default())),
            restart: None,
        })),
        (None, Some(_)) => Ok(Err((
            "NoEphemeralRunnerSet",
            format!(
                "the AutoscalingRunnerSet {ns}/{name} has no EphemeralRunnerSet: ARC has not created it yet \
                 (is the controller running?), so there is nothing to bump"
            ),
        ))),
        (None, None) => {
            api.check_namespace(ns).await?;
            Ok(Err((
                NOT_FOUND,
                format!(
                    "no EphemeralRunnerSet or AutoscalingRunnerSet named {name} in namespace {ns}"
                ),
            )))
        }
    }
}

/// Why a set made by ARC 0.14 or older cannot be bumped, and what to do instead.
fn spec_hash_refusal(ns: &str, name: &str) -> String {
    format!(
        "EphemeralRunnerSet {ns}/{name} was made by ARC 0.14 or older ({}) and has no controller owner reference to an AutoscalingRunnerSet: there is no revision to bump and no scale set whose template a restart would change",
        arc::ANNOTATION_RUNNER_SPEC_HASH
    )
}

/// The refusal for a set read as it is, if ARC 0.14 or older made it.
fn spec_hash_era(ers: &serde_json::Value, ns: &str, name: &str) -> Option<String> {
    let has = |field: &str| {
        ers.pointer(&format!("/metadata/{field}"))
            .and_then(|m| m.get(arc::ANNOTATION_RUNNER_SPEC_HASH))
            .is_some()
    };
    (has("annotations") || has("labels")).then(|| spec_hash_refusal(ns, name))
}

/// The guarded write for one set, through the run's gate.
async fn bump_one<A: ArcApi>(
    api: &A,
    t: &Target,
    plan: &BumpPlan,
    bump_id: &str,
    gate: &mut Gate,
) -> BumpItem {
    if let Some(restart) = &t.restart {
        return restart_one(api, t, restart, plan, bump_id, gate).await;
    }
    let request = BumpRequest {
        id: bump_id,
        reason: plan.reason.as_deref(),
        owner: t.owner.as_ref().map(|(n, u)| (n.as_str(), u.as_str())),
    };
    let opts = WriteOptions {
        dry_run: plan.dry_run,
        field_manager: FIELD_MANAGER.into(),
        backoff: Backoff::default(),
        jitter_seed: u64::from_str_radix(bump_id, 16).unwrap_or(0),
    };
    let write = api.guarded_patch(
        Resource::EPHEMERAL_RUNNER_SETS,
        &t.namespace,
        &t.name,
        &opts,
        |obj| {
            let decision = decide_bump(&obj.value, &request);
            let verdict = match &decision {
                BumpDecision::Write { before, new, .. } => format!(
                    "revision {new} (spec {}, applied {})",
                    before.spec, before.applied
                ),
                BumpDecision::AlreadyDone { revision, .. } => {
                    format!("already wrote revision {revision}")
                }
                BumpDecision::Refuse { reason, .. } => format!("refuse: {reason}"),
            };
            tracing::info!(
                "EphemeralRunnerSet {}/{} at resourceVersion {}: {verdict}",
                t.namespace,
                t.name,
                obj.resource_version().unwrap_or("?")
            );
            let write = match &decision {
                BumpDecision::Write { new, patch, .. } => {
                    let (id, new) = (bump_id.to_string(), *new);
                    Decision::Patch {
                        body: patch.clone(),
                        verify: Box::new(move |stored: &Value| check_bump(stored, &id, new)),
                    }
                }
                BumpDecision::AlreadyDone { revision, .. } => {
                    Decision::Skip(format!("this request already wrote revision {revision}"))
                }
                BumpDecision::Refuse { reason, .. } => Decision::Refuse(reason.to_string()),
            };
            (decision, write)
        },
    );
    match gate.write(write).await {
        Ok(written) => bumped(t, plan.dry_run, bump_id, written),
        Err(not_attempted) => {
            let mut item = failed(&t.namespace, &t.name, BumpResult::Failed, not_attempted);
            item.reason = Some("NotAttempted");
            item
        }
    }
}

/// A set of ARC up to 0.14, bumped as `kubectl rollout restart` does: a guarded JSON merge patch
/// (the resourceVersion it read, `fieldValidation=Strict`, read back) of
/// [`ANNOTATION_RESTARTED_AT`] into the AutoscalingRunnerSet's pod template.
async fn restart_one<A: ArcApi>(
    api: &A,
    t: &Target,
    restart: &Restart,
    plan: &BumpPlan,
    bump_id: &str,
    gate: &mut Gate,
) -> BumpItem {
    let opts = WriteOptions {
        dry_run: plan.dry_run,
        field_manager: FIELD_MANAGER.into(),
        backoff: Backoff::default(),
        jitter_seed: u64::from_str_radix(bump_id, 16).unwrap_or(0),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let stamp = crate::core::gotime::format_rfc3339_utc(
        now.as_secs() as i64 + crate::core::gotime::UNIX_TO_INTERNAL,
        now.subsec_nanos(),
    );
    let scale_set = &restart.scale_set;
    if plan.dry_run == DryRun::Client {
        let mut item = restarted(t, restart, &stamp, BumpResult::WouldBump);
        item.attempts = Some(0);
        return item;
    }
    // `--reason` goes beside the restart, into the pod template (the runners' Pods carry it, as
    // a revision's set carries it); a bump without one clears a reason left by an earlier bump.
    let write = api.guarded_patch(
        Resource::AUTOSCALING_RUNNER_SETS,
        &t.namespace,
        scale_set,
        &opts,
        |obj| {
            tracing::info!(
                "AutoscalingRunnerSet {}/{scale_set} at resourceVersion {}: {ANNOTATION_RESTARTED_AT}={stamp}",
                t.namespace,
                obj.resource_version().unwrap_or("?")
            );
            let write = restart_patch(&stamp, plan.reason.as_deref());
            ((), write)
        },
    );
    match gate.write(write).await.map(|w| w.outcome) {
        Ok(Ok(Outcome::Written { attempts, .. })) => {
            let result = if plan.dry_run == DryRun::None {
                BumpResult::Bumped
            } else {
                BumpResult::WouldBump
            };
            let mut item = restarted(t, restart, &stamp, result);
            item.attempts = Some(attempts);
            item
        }
        Ok(Ok(Outcome::Skipped { reason, .. } | Outcome::Refused { reason, .. })) => {
            let mut item = failed(&t.namespace, &t.name, BumpResult::Refused, reason);
            item.reason = Some(SPEC_HASH);
            item
        }
        Ok(Err(e)) => {
            let mut item = failed(&t.namespace, &t.name, BumpResult::Failed, e.to_string());
            item.reason = Some(match &e {
                WriteError::Conflict { .. } => "Conflict",
                WriteError::NotFound(_) => NOT_FOUND,
                WriteError::OutcomeUnknown { .. } => "OutcomeUnknown",
                _ => "WriteFailed",
            });
            item
        }
        Err(not_attempted) => {
            let mut item = failed(&t.namespace, &t.name, BumpResult::Failed, not_attempted);
            item.reason = Some("NotAttempted");
            item
        }
    }
}

/// The restart's JSON merge patch of the pod template's annotations, and the check of what the
/// server stored: `kubectl-arc/restarted-at` and `kubectl-arc/bump-reason` (null: removed).
fn restart_patch(stamp: &str, reason: Option<&str>) -> Decision {
    let (want, want_reason) = (stamp.to_string(), reason.map(str::to_string));
    Decision::Patch {
        body: serde_json::json!({"spec": {"template": {"metadata": {"annotations": {
            ANNOTATION_RESTARTED_AT: stamp,
            crate::core::bump::ANNOTATION_BUMP_REASON: reason,
        }}}}}),
        verify: Box::new(move |stored: &Value| {
            let annotations = stored.pointer("/spec/template/metadata/annotations");
            let got = |key: &str| {
                annotations
                    .and_then(|a| a.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            let checks = [
                (
                    ANNOTATION_RESTARTED_AT,
                    got(ANNOTATION_RESTARTED_AT),
                    Some(want.clone()),
                ),
                (
                    crate::core::bump::ANNOTATION_BUMP_REASON,
                    got(crate::core::bump::ANNOTATION_BUMP_REASON),
                    want_reason.clone(),
                ),
            ];
            for (key, got, want) in checks {
                if got != want {
                    return Err(format!(
                        "spec.template.metadata.annotations[{key:?}] is {got:?}, expected {want:?}"
                    ));
                }
            }
            Ok(())
        }),
    }
}

/// `--wait` for sets of ARC up to 0.14: until each restarted scale set's newest set is another
/// than the one bumped (ARC replaced it), polling once a second.
async fn wait_for_replacement(
    api: &impl ArcApi,
    items: &mut [BumpItem],
    timeout: Option<Duration>,
    shell: &mut Shell<'_>,
) -> Result<Option<WaitTimeout>> {
    let mut waiting: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].result == BumpResult::Bumped && items[i].restarted_at.is_some())
        .collect();
    if waiting.is_empty() {
        return Ok(None);
    }
    let total = waiting.len();
    shell.status(format_args!(
        "Waiting for ARC to replace {total} EphemeralRunnerSet{}...",
        if total == 1 { "" } else { "s" }
    ))?;
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    loop {
        let mut still = Vec::new();
        for &i in &waiting {
            let item = &items[i];
            let ns = item.namespace.clone();
            let scale_set = item.scale_set.clone().unwrap_or_default();
            let sets = (api.list(Resource::EPHEMERAL_RUNNER_SETS, Some(&ns), None)).await?;
            let inputs: Vec<_> = sets.iter().map(crate::input::Object::pairing_set).collect();
            let scale = crate::core::pairing::ScaleSet {
                namespace: &ns,
                name: &scale_set,
                uid: None,
            };
            let newest = crate::core::pairing::pair(scale, &inputs)
                .map(|p| sets[p.chosen].name().to_string());
            match newest {
                Some(n) if n != item.name => {
                    shell.status(format_args!(
                        "EphemeralRunnerSet {ns}/{}: replaced by {ns}/{n}",
                        item.name
                    ))?;
                    items[i].acknowledged = Some(true);
                }
                _ => still.push(i),
            }
        }
        waiting = still;
        if waiting.is_empty() {
            return Ok(None);
        }
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            for &i in &waiting {
                items[i].acknowledged = Some(false);
            }
            return Ok(Some(WaitTimeout {
                waited_for: total,
                left: waiting
                    .iter()
                    .map(|&i| (items[i].namespace.clone(), items[i].name.clone(), None))
                    .collect(),
            }));
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The item of a restart written (or that would be).
fn restarted(t: &Target, restart: &Restart, stamp: &str, result: BumpResult) -> BumpItem {
    let verb = if result == BumpResult::Bumped {
        "wrote"
    } else {
        "would write"
    };
    let mut item = failed(
        &t.namespace,
        &t.name,
        result,
        format!(
            "{verb} {ANNOTATION_RESTARTED_AT}={stamp} into AutoscalingRunnerSet {}/{}'s spec.template.metadata.annotations: ARC (0.14 or older) replaces EphemeralRunnerSet {}/{} with a new set",
            t.namespace, restart.scale_set, t.namespace, t.name
        ),
    );
    item.reason = Some(RESTARTED);
    item.restarted_at = Some(stamp.to_string());
    item.scale_set = Some(restart.scale_set.clone());
    item
}

/// The code of a hash-era bump's item.
const RESTARTED: &str = "Restarted";

/// The item of a set from what its guarded write did and the decision it last made.
fn bumped(t: &Target, dry_run: DryRun, bump_id: &str, written: Guarded<BumpDecision>) -> BumpItem {
    let mut item = failed(&t.namespace, &t.name, BumpResult::Failed, String::new());
    item.message = None;
    let set_before = |item: &mut BumpItem, before: Option<Revisions>| {
        item.spec_revision = before.map(|r| r.spec);
        item.applied_revision = before.map(|r| r.applied);
    };
    match (written.outcome, written.decision) {
        (
            Ok(Outcome::Written {
                attempts, before, ..
            }),
            Some(BumpDecision::Write { before: r, new, .. }),
        ) => {
            set_before(&mut item, Some(r));
            item.new_spec_revision = Some(new);
            item.attempts = Some(attempts);
            item.result = if dry_run == DryRun::None {
                BumpResult::Bumped
            } else {
                BumpResult::WouldBump
            };
            if before
                .value
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(arc::ANNOTATION_INTEGRITY_HASH))
                .is_some()
            {
                let note = BumpReason::LegacyAnnotation;
                item.reason = Some(note.code());
                item.message = Some(note.to_string());
            }
        }
        (Ok(Outcome::Skipped { .. }), Some(BumpDecision::AlreadyDone { before, revision })) => {
            // A retry found this request's own write: it counts once.
            set_before(&mut item, Some(before));
            item.spec_revision = None;
            item.new_spec_revision = Some(revision);
            item.result = BumpResult::Bumped;
            item.reason = Some("AlreadyBumped");
            item.message = Some(format!(
                "request {bump_id} already wrote revision {revision} (an earlier attempt or run): not bumped again"
            ));
        }
        (Ok(Outcome::Refused { reason, .. }), decision) => {
            if let Some(BumpDecision::Refuse { before, reason }) = decision {
                item.reason = Some(reason.code());
                set_before(&mut item, before);
            }
            item.result = BumpResult::Refused;
            item.message = Some(format!("refused, nothing was written: {reason}"));
        }
        (Ok(_), _) => {
            item.reason = Some("Internal");
            item.message = Some("internal error: the write and its decision disagree".into());
        }
        (Err(e), decision) => {
            if let Some(BumpDecision::Write { before, .. }) = decision {
                set_before(&mut item, Some(before));
            }
            item.reason = Some(match &e {
                WriteError::NotFound(_) => NOT_FOUND,
                WriteError::Conflict { .. } => "Conflict",
                WriteError::OutcomeUnknown { .. } => "OutcomeUnknown",
                _ => "WriteFailed",
            });
            item.message = Some(match e {
                WriteError::NotFound(what) => format!("{what} not found (deleted meanwhile?)"),
                other => format!("{other:#}"),
            });
        }
    }
    item
}

/// Wait until each bumped set's applied revision reaches its new one. Returns what was left on
/// timeout.
///
/// On a terminal one line counts the acknowledged sets as they come; in a log each
/// acknowledgement is a line of its own. A timeout names a few of the sets left and counts the rest.
async fn wait_for_acknowledgement(
    api: &impl ArcApi,
    items: &mut [BumpItem],
    timeout: Option<Duration>,
    shell: &mut Shell<'_>,
) -> Result<Option<WaitTimeout>> {
    let mut acks = Acknowledgements::of(items);
    if acks.waiting.is_empty() {
        return Ok(None);
    }
    let total = acks.total;
    shell.status(acks.announcement())?;
    shell.progress(format_args!("acknowledged 0/{total} EphemeralRunnerSets"))?;
    // An empty resourceVersion starts with the current state of every object, then changes.
    let mut watch = api.watch(Resource::EPHEMERAL_RUNNER_SETS, acks.scope(), String::new())?;
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    let far = tokio::time::Instant::now() + Duration::from_secs(86400 * 365);
    let mut timed_out = false;
    while !acks.waiting.is_empty() {
        tokio::select! {
            event = watch.next() => match event? {
                Event::Applied(o) => {
                    if let Some(((ns, name), rev, applied)) = acks.applied(&value_of(&o)) {
                        let done = acks.acknowledged.len();
                        if shell.shows_progress() {
                            shell.progress(format_args!("acknowledged {done}/{total} EphemeralRunnerSets"))?;
                        } else {
                            shell.status(format_args!(
                                "EphemeralRunnerSet {ns}/{name}: revision {rev} acknowledged (applied {applied}); {done}/{total}"
                            ))?;
                        }
                    }
                }
                Event::Deleted(o) => acks.deleted(&value_of(&o)),
                Event::Relist => watch.resume_from(String::new()),
                Event::Reconnecting(why) => shell.status(why)?,
                // Nothing more will come (a dump's watch): what is not acknowledged never will be.
                Event::End => break,
            },
            _ = tokio::time::sleep_until(deadline.unwrap_or(far)), if deadline.is_some() => {
                timed_out = true;
                break;
            }
        }
    }
    shell.clear_progress();
    Ok(acks.record(items, timed_out))
}

/// `bump --wait`'s account: the bumped sets still waited for (with the revision ARC is to
/// acknowledge), and those acknowledged or deleted so far.
#[derive(Debug)]
struct Acknowledgements {
    waiting: HashMap<(String, String), i64>,
    total: usize,
    acknowledged: Vec<(String, String)>,
    deleted: Vec<(String, String)>,
}

impl Acknowledgements {
    /// The sets a bump wrote a new revision to.
    fn of(items: &[BumpItem]) -> Self {
        let waiting: HashMap<(String, String), i64> = items
            .iter()
            .filter(|i| i.result == BumpResult::Bumped)
            .filter_map(|i| Some(((i.namespace.clone(), i.name.clone()), i.new_spec_revision?)))
            .collect();
        Acknowledgements {
            total: waiting.len(),
            waiting,
            acknowledged: Vec::new(),
            deleted: Vec::new(),
        }
    }

    /// What to watch: one namespace when they share it, one name when there is one set.
    fn scope(&self) -> Scope {
        let namespaces: std::collections::BTreeSet<&String> =
            self.waiting.keys().map(|k| &k.0).collect();
        Scope {
            namespace: (namespaces.len() == 1).then(|| namespaces.first().unwrap().to_string()),
            label_selector: None,
            field_selector: (self.total == 1)
                .then(|| format!("metadata.name={}", self.waiting.keys().next().unwrap().1)),
        }
    }

    /// The line that says what is waited for.
    fn announcement(&self) -> String {
        match self.waiting.iter().next() {
            Some(((ns, name), rev)) if self.total == 1 => format!(
                "Waiting for ARC to acknowledge revision {rev} of EphemeralRunnerSet {ns}/{name}..."
            ),
            _ => format!(
                "Waiting for ARC to acknowledge the new revisions of {} EphemeralRunnerSets...",
                self.total
            ),
        }
    }

    /// A set as the watch saw it: when its applied revision reached the one waited for, it is
    /// acknowledged (its key, the revision and the applied one).
    fn applied(&mut self, v: &Value) -> Option<((String, String), i64, i64)> {
        let key = key_of(v);
        let rev = *self.waiting.get(&key)?;
        let r = Revisions::from_object(v).ok()?;
        if r.applied < rev {
            return None;
        }
        self.waiting.remove(&key);
        self.acknowledged.push(key.clone());
        Some((key, rev, r.applied))
    }

    /// A set deleted while waited for.
    fn deleted(&mut self, v: &Value) {
        let key = key_of(v);
        if self.waiting.remove(&key).is_some() {
            self.deleted.push(key);
        }
    }

    /// Onto the items: whether each bumped set was acknowledged (a restart is not waited for),
    /// a deleted one failed; and, when the wait timed out, what it still waited for.
    fn record(self, items: &mut [BumpItem], timed_out: bool) -> Option<WaitTimeout> {
        for item in items.iter_mut() {
            let key = (item.namespace.clone(), item.name.clone());
            if item.result == BumpResult::Bumped && item.restarted_at.is_none() {
                item.acknowledged = Some(self.acknowledged.contains(&key));
            }
            if self.deleted.contains(&key) {
                item.result = BumpResult::Failed;
                item.reason = Some("Deleted");
                item.message =
                    Some("deleted while waiting for ARC to acknowledge the revision".into());
            }
        }
        timed_out.then(|| WaitTimeout {
            waited_for: self.total,
            left: self
                .waiting
                .into_iter()
                .map(|((ns, name), rev)| (ns, name, Some(rev)))
                .collect(),
        })
    }
}

/// An event's object as the JSON value the acknowledgements read (its metadata, spec and status:
/// [`key_of`] and [`Revisions::from_object`] read nothing else).
fn value_of(o: &crate::input::Object) -> Value {
    o.parts_value(&["metadata", "spec", "status"])
}

/// `namespace/name` of a watched object.
fn key_of(v: &Value) -> (String, String) {
    let field = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (field("/metadata/namespace"), field("/metadata/name"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::write::ObjectText;
    use serde_json::json;

    fn target() -> Target {
        Target {
            namespace: "ci".into(),
            name: "runners".into(),
            owner: Some(("runners".into(), "u-1".into())),
            restart: None,
        }
    }

    fn ers(spec: i64, applied: i64, annotations: Value) -> Value {
        json!({
            "metadata": {"name": "runners", "namespace": "ci", "resourceVersion": "9",
                         "annotations": annotations,
                         "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
                                              "name": "runners", "uid": "u-1", "controller": true}]},
            "spec": {"actionableRevision": spec},
            "status": {"appliedActionableRevision": applied}
        })
    }

    fn object(v: &Value) -> ObjectText {
        ObjectText {
            text: v.to_string(),
            value: v.clone(),
        }
    }

    const REQUEST: BumpRequest<'static> = BumpRequest {
        id: "00000000000000aa",
        reason: None,
        owner: Some(("runners", "u-1")),
    };

    /// The item of a set whose write did `outcome`, decided on `v` as the write guard decides.
    fn item_of(v: &Value, dry_run: DryRun, outcome: impl Fn(ObjectText) -> Outcome) -> BumpItem {
        let decision = decide_bump(v, &REQUEST);
        let written = Guarded {
            decision: Some(decision),
            outcome: Ok(outcome(object(v))),
        };
        bumped(&target(), dry_run, REQUEST.id, written)
    }

    fn bump_item(name: &str, result: BumpResult, new: Option<i64>) -> BumpItem {
        BumpItem {
            namespace: "ci".into(),
            name: name.into(),
            spec_revision: Some(1),
            applied_revision: Some(1),
            new_spec_revision: new,
            result,
            reason: None,
            message: None,
            attempts: None,
            acknowledged: None,
            restarted_at: None,
            scale_set: None,
            impact: None,
        }
    }

    /// `--wait` waits for the sets written a new revision, each until its applied revision
    /// reaches it; a deleted one fails; the rest time out with their revisions.
    #[test]
    fn acknowledgements_follow_the_applied_revision() {
        let mut items = vec![
            bump_item("a", BumpResult::Bumped, Some(3)),
            bump_item("b", BumpResult::Bumped, Some(5)),
            bump_item("c", BumpResult::Bumped, Some(2)),
            bump_item("d", BumpResult::WouldBump, Some(2)),
            bump_item("e", BumpResult::Bumped, None),
        ];
        let mut acks = Acknowledgements::of(&items);
        assert_eq!(acks.total, 3);
        let scope = acks.scope();
        assert_eq!(scope.namespace.as_deref(), Some("ci"));
        assert_eq!(scope.field_selector, None, "three sets: no name to select");
        assert_eq!(
            acks.announcement(),
            "Waiting for ARC to acknowledge the new revisions of 3 EphemeralRunnerSets..."
        );
        let set = |name: &str, applied: i64| {
            json!({"metadata": {"namespace": "ci", "name": name},
                   "spec": {"actionableRevision": 5}, "status": {"appliedActionableRevision": applied}})
        };
        assert_eq!(acks.applied(&set("a", 2)), None, "not yet");
        assert_eq!(acks.applied(&set("d", 9)), None, "not waited for");
        assert_eq!(
            acks.applied(&set("a", 3)),
            Some((("ci".into(), "a".into()), 3, 3)),
            "reaching the revision is acknowledging it"
        );
        assert_eq!(acks.applied(&set("a", 4)), None, "acknowledged once");
        acks.deleted(&set("a", 4));
        assert!(
            acks.deleted.is_empty(),
            "an acknowledged set is not waited for"
        );
        acks.deleted(&set("c", 0));
        acks.deleted(&set("d", 0));
        let timeout = acks.record(&mut items, true).expect("timed out");
        assert_eq!(timeout.waited_for, 3);
        assert_eq!(timeout.left, [("ci".to_string(), "b".to_string(), Some(5))]);
        let got: Vec<_> = items
            .iter()
            .map(|i| (i.name.as_str(), i.result, i.acknowledged, i.reason))
            .collect();
        assert_eq!(
            got,
            [
                ("a", BumpResult::Bumped, Some(true), None),
                ("b", BumpResult::Bumped, Some(false), None),
                ("c", BumpResult::Failed, Some(false), Some("Deleted")),
                ("d", BumpResult::WouldBump, None, None),
                ("e", BumpResult::Bumped, Some(false), None),
            ]
        );
        // One set: its name is watched, and named in the announcement.
        let one = Acknowledgements::of(&items[..1]);
        assert_eq!(
            one.scope().field_selector.as_deref(),
            Some("metadata.name=a")
        );
        assert_eq!(
            one.announcement(),
            "Waiting for ARC to acknowledge revision 3 of EphemeralRunnerSet ci/a..."
        );
        assert!(one.record(&mut items[..1], false).is_none());
    }

    fn written(before: ObjectText) -> Outcome {
        Outcome::Written {
            before,
            after: json!({}),
            patch: json!({}),
            attempts: 2,
        }
    }

    #[test]
    fn a_written_bump_is_bumped_with_its_revisions_or_would_be_in_a_dry_run() {
        let v = ers(2, 5, json!({}));
        let item = item_of(&v, DryRun::None, written);
        assert_eq!(item.result, BumpResult::Bumped);
        assert_eq!(
            (
                item.spec_revision,
                item.applied_revision,
                item.new_spec_revision
            ),
            (Some(2), Some(5), Some(6)),
            "max(spec, applied) + 1"
        );
        assert_eq!(
            (item.attempts, item.reason, item.message),
            (Some(2), None, None)
        );
        for dry_run in [DryRun::Server, DryRun::Client] {
            assert_eq!(item_of(&v, dry_run, written).result, BumpResult::WouldBump);
        }
        // Still carrying the legacy annotation: bumped, with a note.
        let legacy = ers(0, 0, json!({arc::ANNOTATION_INTEGRITY_HASH: "x"}));
        let item = item_of(&legacy, DryRun::None, written);
        assert_eq!(item.result, BumpResult::Bumped);
        assert_eq!(item.reason, Some("LegacyAnnotation"));
    }

    #[test]
    fn a_retry_that_finds_its_own_write_counts_once() {
        // What this request's first attempt stored: the revision and the request id.
        let first = decide_bump(&ers(2, 2, json!({})), &REQUEST);
        let BumpDecision::Write { patch, new, .. } = first else {
            panic!("{first:?}")
        };
        let stored = crate::cluster::write::json_merge(&ers(2, 2, json!({})), &patch);
        assert_eq!(check_bump(&stored, REQUEST.id, new), Ok(()));
        let item = item_of(&stored, DryRun::None, |before| Outcome::Skipped {
            before,
            reason: String::new(),
        });
        assert_eq!(item.result, BumpResult::Bumped);
        assert_eq!(item.reason, Some("AlreadyBumped"));
        assert_eq!(item.new_spec_revision, Some(new));
        assert!(item.message.unwrap().contains("already wrote revision 3"));
    }

    #[test]
    fn refusals_and_failures_are_items_with_their_codes() {
        let refuse = |v: &Value| {
            item_of(v, DryRun::None, |before| Outcome::Refused {
                before,
                reason: "r".into(),
            })
        };
        let mut outdated = ers(1, 1, json!({}));
        outdated["status"]["phase"] = json!("Outdated");
        let item = refuse(&outdated);
        assert_eq!(
            (item.result, item.reason),
            (BumpResult::Refused, Some("Outdated"))
        );
        assert_eq!(item.spec_revision, Some(1));
        let mut foreign = ers(1, 1, json!({}));
        foreign["metadata"]["ownerReferences"][0]["uid"] = json!("u-2");
        assert_eq!(refuse(&foreign).reason, Some("OwnerMismatch"));
        let mut invalid = ers(1, 1, json!({}));
        invalid["spec"]["actionableRevision"] = json!("one");
        let item = refuse(&invalid);
        assert_eq!(
            (item.reason, item.spec_revision),
            (Some("InvalidRevision"), None)
        );

        let failed = |e: WriteError| {
            let v = ers(1, 1, json!({}));
            let written = Guarded {
                decision: Some(decide_bump(&v, &REQUEST)),
                outcome: Err(e),
            };
            bumped(&target(), DryRun::None, REQUEST.id, written)
        };
        let item = failed(WriteError::Conflict {
            what: "ephemeralrunnersets ci/runners".into(),
            attempts: 5,
        });
        assert_eq!(
            (item.result, item.reason),
            (BumpResult::Failed, Some("Conflict"))
        );
        assert_eq!(
            item.spec_revision,
            Some(1),
            "the revisions it was decided on"
        );
        let item = failed(WriteError::NotFound(
            "ephemeralrunnersets ci/runners".into(),
        ));
        assert_eq!(item.reason, Some("NotFound"));
        assert!(item.message.unwrap().contains("deleted meanwhile"));
        let item = failed(WriteError::OutcomeUnknown {
            what: "w".into(),
            sent: "cut".into(),
            reread: "refused".into(),
        });
        assert_eq!(item.reason, Some("OutcomeUnknown"));
        // A write whose outcome disagrees with its decision is an internal error, never a success.
        let v = ers(1, 1, json!({}));
        let written = Guarded {
            decision: Some(decide_bump(&v, &REQUEST)),
            outcome: Ok(Outcome::Skipped {
                before: object(&v),
                reason: String::new(),
            }),
        };
        let item = bumped(&target(), DryRun::None, REQUEST.id, written);
        assert_eq!(
            (item.result, item.reason),
            (BumpResult::Failed, Some("Internal"))
        );
    }

    #[test]
    fn a_set_of_the_spec_hash_era_is_refused_by_annotation_or_label() {
        let hash = arc::ANNOTATION_RUNNER_SPEC_HASH;
        assert_eq!(spec_hash_era(&ers(0, 0, json!({})), "ci", "runners"), None);
        for field in ["annotations", "labels"] {
            let mut v = ers(0, 0, json!({}));
            v["metadata"][field] = json!({hash: "abc"});
            let why = spec_hash_era(&v, "ci", "runners").unwrap();
            assert!(
                why.starts_with("EphemeralRunnerSet ci/runners was made by ARC 0.14 or older"),
                "{why}"
            );
        }
    }
}
