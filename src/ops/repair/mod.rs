//! `repair`: take `status`'s rows in scope, read the sets, their runners and the runners' Pods;
//! decide each repair with the core's rules ([`crate::core::repair`]); write only what they allow,
//! each write guarded by the object's uid and resourceVersion as read ([`write`]). The runners and
//! the counters here; the listener and the finalizers in [`around`], where status's rows give
//! their reasons.

mod around;
mod write;

use std::collections::BTreeMap;

use anyhow::Result;
use serde_json::Value;

use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::{self, ApiErrorKind, ConnectOptions, write::DryRun};
use crate::core::arc;
use crate::core::repair::{
    RunnerDecision, RunnerSeen, counters_status, counters_to_write, cronjob_besides, failed_runner,
};
use crate::core::status::SetStatus;
use crate::input::Object;
use crate::ops::Scope;
use crate::report::repair::{ObjectRef, Repair, RepairReport, RepairResult, SetRepairs};

/// What to repair, checked.
pub(crate) struct Plan {
    /// NAME... are scale sets (`actions.github.com/scale-set-name`) or sets.
    pub(crate) scope: Scope,
    pub(crate) connect: ConnectOptions,
    pub(crate) dry_run: DryRun,
    /// `-f`: decide from a dump (with `--dry-run=client` only), exactly as from the cluster.
    pub(crate) files: Vec<std::path::PathBuf>,
    /// The namespace of objects in files that name none (kubectl's rule).
    pub(crate) file_namespace: String,
    /// Written in `kubectl-arc/repair-id` on every object written (`--request-id`, else new).
    pub(crate) request_id: String,
    /// `--reason`, written after the status reason in `kubectl-arc/repair-reason`.
    pub(crate) reason: Option<String>,
}

/// What a repair reads: the runners' Pods, the sets and their runners; from a dump, every object
/// of it besides.
struct Read {
    pods: Vec<Object>,
    sets: Vec<Object>,
    runners: Vec<Object>,
    dump: Vec<Object>,
}

/// The runner Pods' label (`newEphemeralRunnerPod`, 0.9.0 to 0.14.2).
const RUNNER_POD_SELECTOR: &str = "actions-ephemeral-runner=True";

/// Read, decide, write.
pub(crate) fn run(plan: &Plan, stdin: &mut dyn std::io::Read) -> Result<RepairReport> {
    let status = crate::ops::status::Request {
        layout: crate::core::layout::Layout::find("v0.36")
            .ok_or_else(|| anyhow::anyhow!("the v0.36 layout is not shipped"))?,
        scope: plan.scope.clone(),
        connect: plan.connect.clone(),
        clock: std::time::SystemTime::now,
        arc_release: None,
    };
    if !plan.files.is_empty() {
        // Both reads of the dump (status's and repair's) see stdin's bytes.
        let mut bytes = Vec::new();
        if plan.files.iter().any(|p| p.as_os_str() == "-") {
            std::io::Read::read_to_end(stdin, &mut bytes)?;
        }
        let read = read_files(plan, &mut bytes.as_slice())?;
        let files = crate::ops::status::Files {
            paths: plan.files.clone(),
            namespace: plan.file_namespace.clone(),
            namespace_given: plan.scope.namespace.is_some(),
        };
        let rows =
            crate::ops::status::from_files(&status.offline(), &files, &mut bytes.as_slice()).rows;
        return crate::ops::runtime()?.block_on(repair(plan, &read, &rows, None));
    }
    crate::ops::runtime()?.block_on(async {
        let (client, status_plan) = status.connect().await?;
        let rows = crate::ops::status::list(&client, &status_plan).await?.rows;
        let read = read_cluster(&client, status_plan.namespace.as_deref()).await?;
        repair(plan, &read, &rows, Some(&client)).await
    })
}

/// The cluster's objects in scope.
async fn read_cluster(api: &impl ArcApi, ns: Option<&str>) -> Result<Read> {
    // The Pods first: a Pod made between the two reads cannot make a runner look Pod-less.
    let pods = api
        .list(Resource::PODS, ns, Some(RUNNER_POD_SELECTOR))
        .await?;
    let sets = api.list(Resource::EPHEMERAL_RUNNER_SETS, ns, None).await?;
    let runners = api.list(Resource::EPHEMERAL_RUNNERS, ns, None).await?;
    Ok(Read {
        pods,
        sets,
        runners,
        dump: Vec::new(),
    })
}

/// A dump's objects in scope (`-n`: that namespace only), read as `kubectl get -o yaml` writes
/// them; an unreadable file is an error.
fn read_files(plan: &Plan, stdin: &mut dyn std::io::Read) -> Result<Read> {
    let mut inputs = crate::input::read(&plan.files, stdin);
    if let Some(e) = inputs.errors.first() {
        anyhow::bail!("{e}");
    }
    let explicit = plan.scope.namespace.is_some();
    crate::input::resolve_namespaces(&mut inputs.objects, &plan.file_namespace, explicit);
    let in_scope = |o: &&Object| {
        plan.scope.all_namespaces || !explicit || o.namespace() == plan.file_namespace
    };
    let of = |kind: &str| -> Vec<Object> {
        (inputs.objects.iter())
            .filter(|o| o.kind == kind)
            .filter(in_scope)
            .cloned()
            .collect()
    };
    let pods = (of("Pod").into_iter())
        .filter(|p| {
            p.meta
                .labels
                .get("actions-ephemeral-runner")
                .map(String::as_str)
                == Some("True")
        })
        .collect();
    Ok(Read {
        pods,
        sets: of(arc::KIND_EPHEMERAL_RUNNER_SET),
        runners: of(arc::KIND_EPHEMERAL_RUNNER),
        dump: inputs.objects.iter().filter(in_scope).cloned().collect(),
    })
}

/// Decide every repair of what was read and of status's `rows`; write through `client` (none: a
/// dump, `--dry-run=client`).
async fn repair(
    plan: &Plan,
    read: &Read,
    rows: &[SetStatus],
    client: Option<&kube::Client>,
) -> Result<RepairReport> {
    let writer = write::Writer {
        client,
        dry_run: plan.dry_run,
        request_id: &plan.request_id,
        reason: plan.reason.as_deref(),
    };
    let pod_phase: BTreeMap<(String, String), Option<String>> = (read.pods.iter())
        .map(|p| (p.key(), status_str(p, "phase")))
        .collect();
    let mut by_set: BTreeMap<(String, String), Vec<&Object>> = BTreeMap::new();
    for r in &read.runners {
        if let Some(owner) = r.owner(arc::KIND_EPHEMERAL_RUNNER_SET) {
            let key = (r.namespace().to_string(), owner.name.clone());
            by_set.entry(key).or_default().push(r);
        }
    }
    let mut items = Vec::new();
    for set in read.sets.iter().filter(|s| selected(&plan.scope, s)) {
        let runners = by_set
            .get(&set.key())
            .map(Vec::as_slice)
            .unwrap_or_default();
        // Each runner's status read once, for both repairs.
        let values: Vec<Value> = runners.iter().map(|r| runner_value(r)).collect();
        let seen: Vec<RunnerSeen> = (runners.iter().zip(&values))
            .map(|(r, v)| seen(r, v, pod_phase.get(&r.key()).cloned().flatten()))
            .collect();
        let mut repairs = Vec::new();
        for (runner, s) in runners.iter().zip(&seen) {
            if let Some(repair) = failed_runner_repair(&writer, runner, s).await {
                repairs.push(repair);
            }
        }
        // A dump without any runner of the namespace says nothing of its counts (as status).
        let listed = (read.runners.iter()).any(|r| r.namespace() == set.namespace());
        // The runners this run deletes (or would) are gone when the counts are written.
        let gone: Vec<&str> = (repairs.iter())
            .filter(|r| matches!(r.result, RepairResult::Written | RepairResult::WouldWrite))
            .map(|r| r.object.name.as_str())
            .collect();
        let left: Vec<&Value> = (runners.iter().zip(&values))
            .filter(|(r, _)| !gone.contains(&r.name()))
            .map(|(_, v)| v)
            .collect();
        if (plan.files.is_empty() || listed)
            && let Some(repair) = counters_repair(client, plan.dry_run, set, &left).await
        {
            repairs.push(repair);
        }
        if repairs.is_empty() {
            continue;
        }
        let besides = cronjob_besides(&seen);
        items.push(SetRepairs {
            namespace: set.namespace().to_string(),
            name: set.name().to_string(),
            scale_set: set
                .meta
                .labels
                .get(crate::core::pairing::LABEL_SCALE_SET_NAME)
                .cloned(),
            repairs,
            cron_job_would_also_delete: (!besides.runners.is_empty()).then_some(besides),
        });
    }
    let source = around::Source {
        client,
        dump: &read.dump,
    };
    for (key, scale_set, repair) in around::repairs(&writer, &source, read, rows).await {
        match items
            .iter_mut()
            .find(|i| (&i.namespace, &i.name) == (&key.0, &key.1))
        {
            Some(item) => item.repairs.push(repair),
            None => items.push(SetRepairs {
                namespace: key.0,
                name: key.1,
                scale_set,
                repairs: vec![repair],
                cron_job_would_also_delete: None,
            }),
        }
    }
    items.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    Ok(RepairReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "RepairReport",
        request_id: plan.request_id.clone(),
        dry_run: plan.dry_run,
        items,
    })
}

/// NAME... select a set by its name or its scale set's; none: every set in scope.
fn selected(scope: &Scope, set: &Object) -> bool {
    let scale_set = set
        .meta
        .labels
        .get(crate::core::pairing::LABEL_SCALE_SET_NAME);
    (scope.names.is_empty())
        || (scope.names.iter()).any(|n| n == set.name() || Some(n) == scale_set)
}

/// A string of an object's `status`.
fn status_str(o: &Object, field: &str) -> Option<String> {
    let status: Value = serde_json::from_str(o.status.as_ref()?.get()).ok()?;
    status.get(field)?.as_str().map(str::to_string)
}

/// A runner as the rules read it (`value`: its [`runner_value`]).
fn seen(r: &Object, value: &Value, pod_phase: Option<String>) -> RunnerSeen {
    let status = &value["status"];
    RunnerSeen {
        name: r.name().to_string(),
        phase: status
            .get("phase")
            .and_then(Value::as_str)
            .map(str::to_string),
        job_id: status
            .get("jobId")
            .and_then(Value::as_str)
            .map(str::to_string),
        job_request_id: status
            .get("jobRequestId")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        deleting: r.meta.deletion_timestamp.is_some(),
        failures: status
            .get("failures")
            .and_then(Value::as_object)
            .map_or(0, |f| f.len()),
        pod_phase,
    }
}

/// `RunnersFailed` on one runner: decided by [`failed_runner`], written by [`write::Writer::delete`]
/// (the repair annotations at the resourceVersion read, then a delete with the runner's uid and
/// the resourceVersion that answered).
async fn failed_runner_repair(
    writer: &write::Writer<'_>,
    runner: &Object,
    seen: &RunnerSeen,
) -> Option<Repair> {
    let mut repair = Repair {
        repair: "RunnersFailed",
        action: "DeleteRunner",
        object: ObjectRef {
            kind: arc::KIND_EPHEMERAL_RUNNER,
            namespace: runner.namespace().to_string(),
            name: runner.name().to_string(),
        },
        evidence: String::new(),
        write: None,
        result: RepairResult::Refused,
        why: None,
    };
    match failed_runner(seen) {
        RunnerDecision::NotFailed => return None,
        RunnerDecision::Refuse { evidence, why } => {
            repair.evidence = evidence;
            repair.why = Some(why);
        }
        RunnerDecision::Delete { evidence } => {
            repair.evidence = evidence;
            repair.write = Some(writer.describe_delete(runner, arc::EPHEMERAL_RUNNERS));
            (repair.result, repair.why) = writer
                .delete(repair.repair, runner, arc::EPHEMERAL_RUNNERS)
                .await;
        }
    }
    Some(repair)
}

/// `CountersDisagree` (ARC #4595): the set's status counts are not those of the runners listed,
/// counted as ARC's `updateStatus` counts them ([`counters_to_write`]); write the listed ones
/// through the status subresource, at the resourceVersion read (409: the controller or anyone
/// wrote the set since, and it is refused), with Strict field validation, and check that the
/// answer holds what was written. Not for a set being deleted or a status without its four counts
/// (as `status` does not judge them).
async fn counters_repair(
    client: Option<&kube::Client>,
    dry_run: DryRun,
    set: &Object,
    runners: &[&Value],
) -> Option<Repair> {
    let facts = crate::core::status::SetFacts::from_object(set).ok()?;
    let written = facts.counters.filter(|_| !facts.deleting)?;
    let listed = counters_to_write(written, runners.iter().copied())?;
    let evidence = format!(
        "status currentReplicas {}, pending {}, running {}, failed {}; the {} runners listed count {}, {}, {}, {}",
        written.current,
        written.pending,
        written.running,
        written.failed,
        runners.len(),
        listed.current,
        listed.pending,
        listed.running,
        listed.failed
    );
    let repair = |result, why: Option<String>| Repair {
        repair: "CountersDisagree",
        action: "PatchStatus",
        object: ObjectRef {
            kind: arc::KIND_EPHEMERAL_RUNNER_SET,
            namespace: set.namespace().to_string(),
            name: set.name().to_string(),
        },
        evidence: evidence.clone(),
        write: Some(format!(
            "merge patch of ephemeralrunnersets/status {}/{} at resourceVersion {} (the status subresource keeps no annotation)",
            set.namespace(),
            set.name(),
            set.meta.resource_version.as_deref().unwrap_or("(none)")
        )),
        result,
        why,
    };
    let Some(rv) = set.meta.resource_version.as_deref() else {
        let why = "no resourceVersion was read: the write cannot be guarded".to_string();
        return Some(repair(RepairResult::Refused, Some(why)));
    };
    let Some(client) = client.filter(|_| dry_run != DryRun::Client) else {
        return Some(repair(RepairResult::WouldWrite, None));
    };
    let server = dry_run == DryRun::Server;
    let status = counters_status(&listed);
    let answer = cluster::patch_status_if_unchanged(
        client,
        arc::EPHEMERAL_RUNNER_SETS,
        set.namespace(),
        set.name(),
        rv,
        status.clone(),
        server,
    )
    .await;
    Some(match answer {
        Ok(after) => {
            let holds = (status.as_object().into_iter().flatten())
                .all(|(k, v)| after.pointer(&format!("/status/{k}")) == Some(v));
            match (holds, server) {
                (false, _) => repair(
                    RepairResult::Failed,
                    Some(format!(
                        "the API server's answer does not hold what was written: {}",
                        after.get("status").unwrap_or(&Value::Null)
                    )),
                ),
                (true, true) => repair(RepairResult::WouldWrite, None),
                (true, false) => repair(RepairResult::Written, None),
            }
        }
        Err(e) if e.kind() == ApiErrorKind::Conflict => repair(
            RepairResult::Refused,
            Some(format!(
                "the set changed since it was read (ARC or another writer wrote it): {e}"
            )),
        ),
        Err(e) if e.kind() == ApiErrorKind::Forbidden => repair(
            RepairResult::Refused,
            Some(format!(
                "the caller may not patch ephemeralrunnersets/status (deploy/rbac.yaml's kubectl-arc-repair role): {e}"
            )),
        ),
        Err(e) => repair(RepairResult::Failed, Some(e.to_string())),
    })
}

/// A runner as [`crate::core::runners::RunnerState::of`] reads it.
fn runner_value(r: &Object) -> Value {
    let status: Value = (r.status.as_ref())
        .and_then(|s| serde_json::from_str(s.get()).ok())
        .unwrap_or(Value::Null);
    let mut v = serde_json::json!({ "status": status });
    if let Some(t) = &r.meta.deletion_timestamp {
        v["metadata"] = serde_json::json!({ "deletionTimestamp": t });
    }
    v
}
