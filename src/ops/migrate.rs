//! `migrate`'s operation: during an upgrade from the integrity-hash era to the revision era, turn
//! every pending legacy cleanup into a pending revision, and remove the legacy annotations.
//!
//! One pipeline over an [`ArcApi`]: list EphemeralRunnerSets and their runners → decide each set
//! (core::migrate) → one guarded merge patch per decided set → a [`MigrateReport`]. On a cluster,
//! a preflight comes first (CRD fields, permissions, no running controller). Offline, the source
//! is a dump (`-f`, [`Dump`]) and the run is `--dry-run=client`: the same pipeline, the same
//! rows, nothing written. The report's
//! [`MigrateReport::outcome`] is the exit code: 0 every set succeeded, 2 some set failed (the
//! others were still processed); a refusal before any write is an error (2, nothing written).

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use anyhow::{Result, bail};
use serde_json::Value;

use super::{Gate, Throttle};
use crate::cluster::api::{ArcApi, Resource, object_text};
use crate::cluster::dump::Dump;
use crate::cluster::preflight::{self, Permission};
use crate::cluster::watch::Scope as Query;
use crate::cluster::write::{
    Decision as WriteDecision, DryRun, Guarded, ObjectText, Outcome, WriteOptions,
};
use crate::cluster::{self, ConnectOptions};
use crate::core::arc::{self, ANNOTATION_INTEGRITY_HASH};
use crate::core::json::find_raw;
use crate::core::layout::Layout;
use crate::core::migrate::{Decision, UnverifiablePolicy, decide};
use crate::core::runners::{RunnerCounts, RunnerState, is_stale};
use crate::core::value::{Value as GoValue, decode};
use crate::input::Object;
use crate::report::migrate::{MigrateReport, MigrateResult, MigrateRow};
use crate::shell::Shell;

/// The field manager of migrate's writes.
pub(crate) const FIELD_MANAGER: &str = "kubectl-arc-migrate";

/// A migration, as the command's checked arguments describe it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MigratePlan {
    /// EphemeralRunnerSet names (none: every one in scope), `-n` (also the namespace of a dump's
    /// objects without one), `-A` and `-l`.
    pub(crate) scope: super::Scope,
    /// The cluster, or a dump read offline.
    pub(crate) source: Source,
    /// Always `Client` for a dump.
    pub(crate) dry_run: DryRun,
    /// `--unverifiable`: what to do with a set whose hash cannot be reproduced exactly.
    pub(crate) unverifiable: UnverifiablePolicy,
    /// `--force`: proceed while an ARC controller runs.
    pub(crate) force: bool,
    /// `--qps`, `--burst`: the requests sent per second.
    pub(crate) throttle: Throttle,
}

/// Where the sets come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// The cluster the kubeconfig names: read, decided and written.
    Cluster,
    /// `-f`: files, directories or `-` (stdin), decided offline.
    Dump(Vec<PathBuf>),
}

/// Migrate the sets of `plan`: on the cluster `connect` names, or offline on a dump (`stdin` is
/// read for `-`). A set that cannot be decided or written is a failed row of the report, and a
/// dump's unreadable input one of its `input_errors`; the error is for what stops the whole run
/// (no connection, a preflight refusal, a list that fails).
pub(crate) fn migrate(
    plan: &MigratePlan,
    connect: &ConnectOptions,
    stdin: &mut dyn Read,
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<MigrateReport> {
    match &plan.source {
        Source::Dump(files) => {
            let namespace = plan.scope.file_namespace(connect);
            let explicit = plan.scope.namespace.is_some();
            let (dump, errors) = Dump::read(
                files,
                stdin,
                &namespace,
                explicit,
                &[Resource::EPHEMERAL_RUNNER_SETS, Resource::EPHEMERAL_RUNNERS],
            );
            // Every namespace of the dump: an object in another than an explicit `-n` is its
            // row's error (kubectl's rule, `input::resolve_namespaces`).
            let rows = super::runtime()?.block_on(async {
                let candidates = read_candidates(&dump, plan, None).await?;
                rows_of(&dump, plan, None, &candidates, seed, shell).await
            })?;
            Ok(MigrateReport::new(plan.dry_run, rows, errors))
        }
        Source::Cluster => {
            let rows = super::runtime()?.block_on(migrate_cluster(plan, connect, seed, shell))?;
            Ok(MigrateReport::new(plan.dry_run, rows, Vec::new()))
        }
    }
}

/// One set to migrate, with what the runners say.
struct Candidate {
    namespace: String,
    name: String,
    /// The set as listed (its JSON text, not a value tree: a tree is made for the moment the set
    /// is decided, so 10,000 candidates do not hold 10,000 trees).
    object: Object,
    runners: RunnerCounts,
    error: Option<String>,
}

impl Candidate {
    /// The set carries the integrity-hash annotation: something to migrate.
    fn legacy(&self) -> bool {
        self.object
            .meta
            .annotations
            .contains_key(ANNOTATION_INTEGRITY_HASH)
    }
}

/// Preflight, then decide and write each set. A refusal is an error: nothing was written.
async fn migrate_cluster(
    plan: &MigratePlan,
    connect: &ConnectOptions,
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<Vec<MigrateRow>> {
    let conn = cluster::connect(connect).await?;
    let client = &conn.client;
    let namespace = plan.scope.listed_namespace(&conn.default_namespace);
    let scope = namespace.as_deref();
    // An installed CRD without the revision fields is a cluster of ARC up to 0.14 (the
    // runner-spec hash) or of the integrity-hash era: only the latter has anything to migrate.
    // Read once: the preflight below judges the same answer.
    let crd_fields = preflight::ers_crd_revision_fields(client).await?;
    let crd_refusal = crd_fields.as_ref().and_then(preflight::crd_refusal);
    let candidates = if let Some(refusal) = crd_refusal {
        let candidates = read_candidates(client, plan, scope).await?;
        if candidates.iter().any(|c| c.legacy() || c.error.is_some()) {
            bail!(refusal);
        }
        shell.status(
            "nothing to migrate: no EphemeralRunnerSet in scope carries the actions.github.com/integrity-hash annotation \
             (sets of ARC up to 0.14 are replaced on a runner-spec-hash change and have no revision to migrate to)",
        )?;
        candidates
    } else {
        preflight_checks(client, plan, scope, crd_fields, shell).await?;
        read_candidates(client, plan, scope).await?
    };
    rows_of(client, plan, scope, &candidates, seed, shell).await
}

/// Decide and write each candidate, and a failed row (exit 2) for each name asked for and not
/// found, as kubectl fails on one.
async fn rows_of<A: ArcApi>(
    api: &A,
    plan: &MigratePlan,
    scope: Option<&str>,
    candidates: &[Candidate],
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<Vec<MigrateRow>> {
    let mut rows = decide_and_write(api, plan, candidates, seed, shell).await?;
    for missing in plan
        .scope
        .names
        .iter()
        .filter(|n| !candidates.iter().any(|c| &c.name == *n))
    {
        let (ns, error) = match (&plan.source, scope) {
            (Source::Dump(_), _) => (
                plan.scope.namespace.as_deref().unwrap_or("*"),
                format!("EphemeralRunnerSet {missing} not found in the files"),
            ),
            (Source::Cluster, ns) => {
                let ns = ns.unwrap_or("*");
                (ns, format!("EphemeralRunnerSet {ns}/{missing} not found"))
            }
        };
        rows.push(MigrateRow {
            namespace: ns.to_string(),
            name: missing.clone(),
            decision: None,
            reason: None,
            message: None,
            spec_revision: 0,
            applied_revision: 0,
            new_spec_revision: 0,
            stale_runners: 0,
            stale_idle_or_pending_runners: 0,
            result: MigrateResult::Failed,
            attempts: 0,
            error: Some(error),
            runner_spec_hash_era: false,
        });
    }
    Ok(rows)
}

/// Preflight: nothing is written unless all of these pass (the CRD has the revision fields, the
/// caller may do what migrate does, no ARC controller runs). A server-side dry run says what the
/// real run would refuse.
async fn preflight_checks(
    client: &kube::Client,
    plan: &MigratePlan,
    scope: Option<&str>,
    crd_fields: Option<preflight::CrdRevisionFields>,
    shell: &mut Shell<'_>,
) -> Result<()> {
    // Preflight: nothing is written unless all of these pass.
    match crd_fields {
        Some(fields) => {
            if let Some(refusal) = preflight::crd_refusal(&fields) {
                bail!(refusal);
            }
        }
        None => shell.warn(format_args!(
            "cannot read the CRD {} (no permission): relying on strict field validation and read-back",
            preflight::ERS_CRD
        ))?,
    }
    let mut needed = vec![
        Permission::arc("get", arc::EPHEMERAL_RUNNER_SETS),
        Permission::arc("list", arc::EPHEMERAL_RUNNER_SETS),
        Permission::arc("list", arc::EPHEMERAL_RUNNERS),
    ];
    if plan.dry_run != DryRun::Client {
        needed.push(Permission::arc("patch", arc::EPHEMERAL_RUNNER_SETS));
    }
    let denied = preflight::denied_permissions(client, scope, &needed).await?;
    if !denied.is_empty() {
        bail!(
            "forbidden: this user may not {} {}; migrate needs them (the kubectl-arc-migrate ClusterRole of deploy/rbac.yaml, docs/least-privilege.md)",
            denied.join(", "),
            scope.map_or("in all namespaces".to_string(), |ns| format!(
                "in namespace {ns}"
            ))
        );
    }
    if plan.dry_run == DryRun::Server {
        // The real run refuses while a controller runs: say so now, not after the dry run passed.
        match preflight::running_arc_controllers(client).await? {
            Some(running) if !running.is_empty() && !plan.force => shell.warn(format_args!(
                "ARC controller Deployment(s) {} are running: the real run will refuse until they are scaled to 0 (or pass --force)",
                running.join(", ")
            ))?,
            None if !plan.force => shell.warn(
                "cannot check whether an ARC controller is running (no permission to list Deployments): the real run will refuse unless you grant it or pass --force"
            )?,
            _ => {}
        }
    }
    if plan.dry_run == DryRun::None {
        match preflight::running_arc_controllers(client).await? {
            Some(running) if !running.is_empty() && !plan.force => {
                bail!(
                    "ARC controller Deployment(s) {} are running: a controller reconciling during the migration races with it \
                     (an integrity-hash-era one rewrites the annotation; a revision-era one acts on revisions the migration has not written yet). \
                     Scale them to 0 first, or pass --force to proceed anyway",
                    running.join(", ")
                );
            }
            Some(running) if !running.is_empty() => shell.warn(format_args!(
                "--force: proceeding while ARC controller(s) {} run; a controller that reconciles meanwhile may race with these writes",
                running.join(", ")
            ))?,
            None if !plan.force => {
                bail!(
                    "cannot check whether an ARC controller is running (no permission to list Deployments): grant it, or pass --force"
                );
            }
            _ => {}
        }
    }

    Ok(())
}

/// The sets in scope (`None`: every namespace) and their runners, listed page by page as the one
/// [`Object`] every source gives.
async fn read_candidates<A: ArcApi>(
    api: &A,
    plan: &MigratePlan,
    scope: Option<&str>,
) -> Result<Vec<Candidate>> {
    let mut limiter = plan.throttle.limiter();
    let selector = plan.scope.selector_text();
    limiter.acquire().await;
    let query = Query {
        namespace: scope.map(str::to_string),
        label_selector: selector.map(str::to_string),
        field_selector: None,
    };
    let (mut listed, mut candidates) = (0, Vec::new());
    api.list_each(Resource::EPHEMERAL_RUNNER_SETS, &query, |set| {
        listed += 1;
        candidates.extend(candidate_of(plan, &set));
        Ok::<_, anyhow::Error>(())
    })
    .await?;
    if listed == 0
        && let Some(ns) = scope
    {
        api.check_namespace(ns).await?;
    }
    limiter.acquire().await;
    // Page by page: 50,000 runners are counted, never held.
    let mut counter = RunnerCounter::new(&candidates);
    let runners = Query {
        namespace: scope.map(str::to_string),
        ..Query::default()
    };
    api.list_each(Resource::EPHEMERAL_RUNNERS, &runners, |runner| {
        counter.count(&mut candidates, &runner);
        Ok::<_, anyhow::Error>(())
    })
    .await?;
    Ok(candidates)
}

/// A listed set as a candidate when the scope selects it (its names and its selector), from the
/// one object model: its JSON as the source gave it (the runner spec is hashed as written).
fn candidate_of(plan: &MigratePlan, obj: &Object) -> Option<Candidate> {
    let named = plan.scope.names.is_empty() || plan.scope.names.iter().any(|n| n == obj.name());
    let selected = plan
        .scope
        .selector()
        .is_none_or(|s| s.matches(&obj.meta.labels));
    let (namespace, name) = obj.key();
    (named && selected).then(|| Candidate {
        namespace,
        name,
        object: obj.clone(),
        runners: RunnerCounts::default(),
        error: (obj.problem.as_ref()).map(|p| format!("{}: {p}", obj.describe())),
    })
}

/// Counts each runner on its set (the controller owner reference: [`crate::core::owner`]), the
/// set's runner spec decoded once, on the first runner of a set that carries the legacy
/// annotation. A runner kubectl would read otherwise, or whose spec does not decode, makes its
/// set undecidable.
struct RunnerCounter {
    index: HashMap<(String, String), usize>,
    specs: Vec<Option<Option<GoValue>>>,
}

impl RunnerCounter {
    fn new(candidates: &[Candidate]) -> RunnerCounter {
        RunnerCounter {
            index: candidates
                .iter()
                .enumerate()
                .map(|(i, c)| ((c.namespace.clone(), c.name.clone()), i))
                .collect(),
            specs: vec![None; candidates.len()],
        }
    }

    fn count(&mut self, candidates: &mut [Candidate], r: &Object) {
        let Some(owner) = r.owner(arc::KIND_EPHEMERAL_RUNNER_SET) else {
            return;
        };
        let Some(&i) = (self.index).get(&(r.namespace().to_string(), owner.name.clone())) else {
            return;
        };
        let c = &mut candidates[i];
        if !c.legacy() {
            return;
        }
        if let Some(p) = &r.problem {
            // Its spec may be read otherwise than kubectl reads it: the set cannot be decided.
            c.error.get_or_insert(format!("{}: {p}", r.describe()));
            return;
        }
        let layout = Layout::arc();
        let spec = self.specs[i].get_or_insert_with(|| set_spec(layout, &c.object));
        count_runner(layout, spec.as_ref(), r, c);
    }
}

/// Decide and write, one set at a time, each write guarded by the resourceVersion it was decided
/// on.
async fn decide_and_write<A: ArcApi>(
    api: &A,
    plan: &MigratePlan,
    candidates: &[Candidate],
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<Vec<MigrateRow>> {
    let opts = WriteOptions {
        dry_run: plan.dry_run,
        field_manager: FIELD_MANAGER.into(),
        backoff: Default::default(),
        jitter_seed: seed,
    };
    let each = async |c: &Candidate, gate: &mut Gate| migrate_one(api, plan, &opts, c, gate).await;
    super::write_each(candidates, plan.throttle, "migrating", shell, each).await
}

/// Decide one set, and write what the decision asks through the run's gate, decided again on the
/// object as read before each attempt.
async fn migrate_one<A: ArcApi>(
    api: &A,
    plan: &MigratePlan,
    opts: &WriteOptions,
    c: &Candidate,
    gate: &mut Gate,
) -> MigrateRow {
    if let Some(e) = &c.error {
        return row(c, None, MigrateResult::Failed, Some(e.clone()));
    }
    let first = match decide_object(c, &object_text(&c.object), plan.unverifiable) {
        Ok(d) => d,
        Err(e) => return row(c, None, MigrateResult::Failed, Some(e)),
    };
    if first.patch().is_none() || plan.dry_run == DryRun::Client {
        let result = if first.patch().is_some() {
            MigrateResult::WouldWrite
        } else {
            MigrateResult::Unchanged
        };
        return row(c, Some(&first), result, None);
    }
    let write = api.guarded_patch(
        Resource::EPHEMERAL_RUNNER_SETS,
        &c.namespace,
        &c.name,
        opts,
        |fresh| {
            let d = match decide_object(c, fresh, plan.unverifiable) {
                Ok(d) => d,
                Err(e) => return (None, WriteDecision::Refuse(e)),
            };
            let write = match d.patch() {
                None => WriteDecision::Skip(d.reason.to_string()),
                Some(body) => {
                    let want = d.to_revision;
                    WriteDecision::Patch {
                        body,
                        verify: Box::new(move |after: &Value| verify_migrated(after, want)),
                    }
                }
            };
            (Some(d), write)
        },
    );
    written_row(c, first, plan.dry_run, gate.write(write).await)
}

/// The row of a set whose write went to the gate, from what happened to it (`Err`: not
/// attempted, the breaker's reason; else what the guarded write did) and the decision made on the
/// read the write was based on (`first`, the decision on the listed object, when no fresh read
/// was decided: the refusal says why).
fn written_row(
    c: &Candidate,
    first: Decision,
    dry_run: DryRun,
    sent: Result<Guarded<Option<Decision>>, String>,
) -> MigrateRow {
    let (d, outcome) = match sent {
        Err(not_attempted) => {
            return row(c, Some(&first), MigrateResult::Failed, Some(not_attempted));
        }
        Ok(Guarded { decision, outcome }) => (decision.flatten().unwrap_or(first), outcome),
    };
    let d = &d;
    match outcome {
        Ok(Outcome::Written { attempts, .. }) => MigrateRow {
            attempts,
            ..row(
                c,
                Some(d),
                if dry_run == DryRun::None {
                    MigrateResult::Written
                } else {
                    MigrateResult::WouldWrite
                },
                None,
            )
        },
        Ok(Outcome::Skipped { .. }) => row(c, Some(d), MigrateResult::Unchanged, None),
        Ok(Outcome::Refused { reason, .. }) => row(c, Some(d), MigrateResult::Failed, Some(reason)),
        Err(e) => row(c, Some(d), MigrateResult::Failed, Some(e.to_string())),
    }
}

/// The set's decoded runner spec (`None` when it does not decode: the row reports the error).
fn set_spec(layout: &Layout, ers: &Object) -> Option<GoValue> {
    let raw = ers.spec_field("ephemeralRunnerSpec").ok().flatten();
    let raw = raw.map_or("{}", |r| r.get());
    decode(layout, layout.ephemeral_runner_spec, raw).ok()
}

fn count_runner(layout: &Layout, spec: Option<&GoValue>, runner: &Object, c: &mut Candidate) {
    let state = RunnerState::of_object(runner);
    let stale = match (spec, &runner.spec) {
        (Some(spec), Some(rs)) => match is_stale(layout, spec, rs.get()) {
            Ok(s) => s,
            Err(e) => {
                c.error.get_or_insert(format!(
                    "EphemeralRunner {}/{}: spec does not decode: {e}",
                    runner.namespace(),
                    runner.name()
                ));
                false
            }
        },
        _ => false,
    };
    c.runners.add(state, stale);
}

fn row(
    c: &Candidate,
    d: Option<&Decision>,
    result: MigrateResult,
    error: Option<String>,
) -> MigrateRow {
    let revisions = d.map(|d| d.revisions).unwrap_or_default();
    MigrateRow {
        namespace: c.namespace.clone(),
        name: c.name.clone(),
        decision: d.map(|d| d.verdict),
        reason: d.map(|d| d.reason.code()),
        message: d.map(|d| d.reason.to_string()),
        spec_revision: revisions.spec,
        applied_revision: revisions.applied,
        new_spec_revision: d.map(|d| d.to_revision).unwrap_or(revisions.spec),
        stale_runners: c.runners.stale,
        stale_idle_or_pending_runners: c.runners.stale_idle_or_pending,
        result,
        attempts: 0,
        error,
        runner_spec_hash_era: (c.object.meta.annotations)
            .contains_key(crate::core::arc::ANNOTATION_RUNNER_SPEC_HASH),
    }
}

/// Decide for one set as it was read.
fn decide_object(
    c: &Candidate,
    object: &ObjectText,
    policy: UnverifiablePolicy,
) -> Result<Decision, String> {
    let raw = find_raw(&object.text, &["spec", "ephemeralRunnerSpec"]).unwrap_or("{}");
    decide(&object.value, raw, &c.runners, policy)
        .map_err(|e| format!("EphemeralRunnerSet {}/{}: {e}", c.namespace, c.name))
}

/// The stored set has the revision we wrote (or a later one, never lower) and no legacy annotation.
fn verify_migrated(after: &Value, want: i64) -> Result<(), String> {
    let got = after
        .pointer("/spec/actionableRevision")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if got < want {
        return Err(format!(
            "spec.actionableRevision is {got}, expected {want} (was the field pruned by an old CRD?)"
        ));
    }
    if after
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ANNOTATION_INTEGRITY_HASH))
        .is_some()
    {
        return Err(format!(
            "the {ANNOTATION_INTEGRITY_HASH} annotation is still there"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::write::WriteError;
    use crate::core::migrate::Verdict;
    use crate::shell::Terminal;
    use serde_json::json;

    fn runner_spec(image: &str) -> Value {
        json!({
            "githubConfigUrl": "https://github.com/o",
            "githubConfigSecret": "s",
            "runnerScaleSetId": 1,
            "spec": {"containers": [{"name": "runner", "image": image}]}
        })
    }

    /// ARC's hash of `runner_spec(image)`, by our core (checked against Go elsewhere).
    fn hash_of(image: &str) -> String {
        let l = Layout::arc();
        let v = decode(l, l.ephemeral_runner_spec, &runner_spec(image).to_string()).unwrap();
        crate::core::legacy_hash::integrity_hash(l, &v).unwrap()
    }

    fn set(name: &str, annotation: Option<&str>, spec: i64, applied: i64, image: &str) -> Value {
        let mut v = json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "metadata": {"name": name, "namespace": "ci", "resourceVersion": "7"},
            "spec": {"replicas": 1, "actionableRevision": spec, "ephemeralRunnerSpec": runner_spec(image)},
            "status": {"appliedActionableRevision": applied}
        });
        if let Some(a) = annotation {
            v["metadata"]["annotations"] = json!({ANNOTATION_INTEGRITY_HASH: a});
        }
        v
    }

    fn runner(owner: &str, name: &str, image: &str, phase: &str, job: &str) -> Value {
        json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": name, "namespace": "ci", "ownerReferences": [
                {"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet", "name": owner, "uid": "u", "controller": true}
            ]},
            "spec": runner_spec(image),
            "status": {"phase": phase, "jobId": job}
        })
    }

    fn plan() -> MigratePlan {
        MigratePlan {
            scope: crate::ops::Scope {
                namespace: Some("ci".into()),
                ..Default::default()
            },
            source: Source::Dump(vec!["-".into()]),
            dry_run: DryRun::Client,
            unverifiable: UnverifiablePolicy::Pending,
            force: false,
            throttle: Throttle { qps: 0.0, burst: 1 },
        }
    }

    /// Offline migrate of a dump given on stdin: the report.
    fn offline(plan: &MigratePlan, items: Vec<Value>) -> MigrateReport {
        let dump = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut shell = Shell::new(&mut out, &mut err, Terminal::default());
        migrate(
            plan,
            &ConnectOptions::default(),
            &mut dump.as_bytes(),
            0,
            &mut shell,
        )
        .unwrap()
    }

    type Row = (
        String,
        Option<Verdict>,
        Option<&'static str>,
        i64,
        i64,
        MigrateResult,
        usize,
    );

    fn rows(report: &MigrateReport) -> Vec<Row> {
        report
            .items
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.decision,
                    r.reason,
                    r.spec_revision,
                    r.new_spec_revision,
                    r.result,
                    r.stale_idle_or_pending_runners,
                )
            })
            .collect()
    }

    /// What migrate decides for each kind of set, from the set and the runners listed beside it.
    #[test]
    fn each_set_is_decided_from_its_annotation_and_its_runners() {
        let good = hash_of("img:2");
        let items = vec![
            set("in-sync", Some(&good), 0, 0, "img:2"),
            set("pending", Some("7b4dd5c9f8"), 0, 0, "img:2"),
            set("applied-ahead", Some("7b4dd5c9f8"), 2, 5, "img:2"),
            set("no-annotation", None, 3, 3, "img:2"),
            set("stale-runner", Some(&good), 4, 4, "img:2"),
            runner("stale-runner", "stale-runner-a", "img:1", "Running", ""),
            // A busy runner on an old spec finishes its job: it does not make the set pending.
            set("busy-only", Some(&good), 0, 0, "img:2"),
            runner("busy-only", "busy-only-a", "img:1", "Running", "1234"),
            // A runner of no set in the dump is ignored.
            runner("elsewhere", "elsewhere-a", "img:1", "Running", ""),
        ];
        let report = offline(&plan(), items);
        let want = |n: &str, v, r, from, to, result, stale| {
            (n.to_string(), Some(v), Some(r), from, to, result, stale)
        };
        use MigrateResult::{Unchanged, WouldWrite};
        assert_eq!(
            rows(&report),
            vec![
                want(
                    "in-sync",
                    Verdict::InSync,
                    "HashMatches",
                    0,
                    0,
                    WouldWrite,
                    0
                ),
                want(
                    "pending",
                    Verdict::Pending,
                    "HashMismatch",
                    0,
                    1,
                    WouldWrite,
                    0
                ),
                want(
                    "applied-ahead",
                    Verdict::Pending,
                    "HashMismatch",
                    2,
                    6,
                    WouldWrite,
                    0
                ),
                want(
                    "no-annotation",
                    Verdict::NoLegacyAnnotation,
                    "NoLegacyAnnotation",
                    3,
                    3,
                    Unchanged,
                    0
                ),
                want(
                    "stale-runner",
                    Verdict::Pending,
                    "StaleRunners",
                    4,
                    5,
                    WouldWrite,
                    1
                ),
                want(
                    "busy-only",
                    Verdict::InSync,
                    "HashMatches",
                    0,
                    0,
                    WouldWrite,
                    0
                ),
            ]
        );
        assert_eq!(
            report.items[5].stale_runners, 1,
            "busy and stale, not cleaned up"
        );
        assert_eq!(report.outcome(), crate::report::Outcome::Clean);
    }

    #[test]
    fn names_selectors_and_the_unverifiable_policy_choose_and_decide() {
        let mut p = plan();
        p.scope.names = vec!["pending".into()];
        let items = vec![
            set("in-sync", Some(&hash_of("img:2")), 0, 0, "img:2"),
            set("pending", Some("7b4dd5c9f8"), 0, 0, "img:2"),
        ];
        let names: Vec<String> = offline(&p, items)
            .items
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["pending"]);

        // A set time prints Go's local zone in the hash: it cannot be reproduced.
        let mut odd = set("odd", Some("7b4dd5c9f8"), 1, 1, "img:2");
        odd["spec"]["ephemeralRunnerSpec"]["metadata"] =
            json!({"creationTimestamp": "2026-01-01T00:00:00Z"});
        let mut p = plan();
        let verdict = |p: &MigratePlan| {
            let r = &offline(p, vec![odd.clone()]).items[0];
            (r.decision, r.reason, r.new_spec_revision, r.result)
        };
        let unverifiable = (Some(Verdict::Unverifiable), Some("HashUnverifiable"));
        assert_eq!(
            verdict(&p),
            (unverifiable.0, unverifiable.1, 2, MigrateResult::WouldWrite)
        );
        p.unverifiable = UnverifiablePolicy::Skip;
        assert_eq!(
            verdict(&p),
            (unverifiable.0, unverifiable.1, 1, MigrateResult::Unchanged)
        );
    }

    #[test]
    fn a_set_that_cannot_be_decided_fails_its_row_and_the_run() {
        let mut bad = set("bad", Some("7b4dd5c9f8"), 0, 0, "img:2");
        bad["spec"]["actionableRevision"] = json!("two");
        let items = vec![bad, set("pending", Some("7b4dd5c9f8"), 0, 0, "img:2")];
        let report = offline(&plan(), items);
        assert_eq!(report.items[0].result, MigrateResult::Failed);
        let error = report.items[0].error.as_deref().unwrap();
        assert!(error.starts_with("EphemeralRunnerSet ci/bad: "), "{error}");
        assert_eq!(
            report.items[1].result,
            MigrateResult::WouldWrite,
            "the others are decided"
        );
        assert_eq!(report.outcome(), crate::report::Outcome::Failed);
    }

    /// One pipeline: a dump is listed and decided as a cluster is; a runner is its set's by its
    /// controller reference of ARC's group alone (the core's owner rule); a name the dump lacks
    /// is a failed row.
    #[test]
    fn a_dump_goes_through_the_clusters_pipeline() {
        let mut foreign = runner("s", "s-foreign", "img:1", "Running", "");
        foreign["metadata"]["ownerReferences"][0]["apiVersion"] = json!("example.com/v1");
        let mut unmarked = runner("s", "s-unmarked", "img:1", "Running", "");
        unmarked["metadata"]["ownerReferences"][0]["controller"] = json!(false);
        let items = vec![
            set("s", Some(&hash_of("img:2")), 4, 4, "img:2"),
            foreign,
            unmarked,
            runner("s", "s-own", "img:1", "Running", ""),
        ];
        let mut p = plan();
        p.scope.names = vec!["s".into(), "absent".into()];
        let report = offline(&p, items);
        assert_eq!(report.items.len(), 2);
        let s = &report.items[0];
        assert_eq!(
            (s.reason, s.stale_runners, s.result),
            (Some("StaleRunners"), 1, MigrateResult::WouldWrite),
            "only s-own is the set's"
        );
        let missing = &report.items[1];
        assert_eq!(
            (
                missing.namespace.as_str(),
                missing.name.as_str(),
                missing.result
            ),
            ("ci", "absent", MigrateResult::Failed)
        );
        assert_eq!(
            missing.error.as_deref(),
            Some("EphemeralRunnerSet absent not found in the files")
        );
        assert_eq!(report.outcome(), crate::report::Outcome::Failed);
    }

    /// A set as the cluster lists it: through the cluster layer's one object model.
    fn candidate(v: &Value) -> Candidate {
        let object = crate::cluster::tests::listed(Resource::EPHEMERAL_RUNNER_SETS, v);
        let plan = plan();
        candidate_of(&plan, &object).unwrap()
    }

    /// A listed set is decided on its own spec text, and each result of its write makes its row.
    #[test]
    fn a_listed_sets_write_outcome_makes_its_row() {
        let c = candidate(&set("pending", Some("7b4dd5c9f8"), 2, 5, "img:2"));
        assert_eq!((c.namespace.as_str(), c.name.as_str()), ("ci", "pending"));
        let listed = object_text(&c.object);
        assert_eq!(listed.resource_version(), Some("7"));
        let d = decide_object(&c, &listed, UnverifiablePolicy::Pending).unwrap();
        assert_eq!((d.verdict, d.to_revision), (Verdict::Pending, 6));
        assert_eq!(
            d.patch(),
            Some(
                json!({"metadata": {"annotations": {ANNOTATION_INTEGRITY_HASH: null}}, "spec": {"actionableRevision": 6}})
            )
        );
        let sent = |outcome: Result<Outcome, WriteError>| {
            Ok(Guarded {
                decision: Some(Some(d.clone())),
                outcome,
            })
        };
        let written = || {
            sent(Ok(Outcome::Written {
                before: object_text(&c.object),
                after: json!({}),
                patch: json!({}),
                attempts: 3,
            }))
        };
        let r = written_row(&c, d.clone(), DryRun::None, written());
        assert_eq!(
            (r.result, r.attempts, r.new_spec_revision),
            (MigrateResult::Written, 3, 6)
        );
        let r = written_row(&c, d.clone(), DryRun::Server, written());
        assert_eq!(r.result, MigrateResult::WouldWrite);
        let skipped = sent(Ok(Outcome::Skipped {
            before: object_text(&c.object),
            reason: "done".into(),
        }));
        assert_eq!(
            written_row(&c, d.clone(), DryRun::None, skipped).result,
            MigrateResult::Unchanged
        );
        let refused = sent(Ok(Outcome::Refused {
            before: object_text(&c.object),
            reason: "no".into(),
        }));
        let r = written_row(&c, d.clone(), DryRun::None, refused);
        assert_eq!(
            (r.result, r.error.as_deref()),
            (MigrateResult::Failed, Some("no"))
        );
        let conflict = sent(Err(WriteError::Conflict {
            what: "ephemeralrunnersets ci/pending".into(),
            attempts: 5,
        }));
        let r = written_row(&c, d.clone(), DryRun::None, conflict);
        assert_eq!(r.result, MigrateResult::Failed);
        assert!(r.error.unwrap().contains("conflict"));
        let r = written_row(
            &c,
            d.clone(),
            DryRun::None,
            Err("not attempted: gone".into()),
        );
        assert_eq!(
            (r.result, r.error.as_deref()),
            (MigrateResult::Failed, Some("not attempted: gone"))
        );
        // The row reports the decision the write was based on, not the first one: a fresh read
        // that found the work done (here: revision 9) is what the row says.
        let mut fresh = d.clone();
        fresh.to_revision = 9;
        let r = written_row(
            &c,
            d.clone(),
            DryRun::None,
            Ok(Guarded {
                decision: Some(Some(fresh)),
                outcome: Ok(Outcome::Written {
                    before: object_text(&c.object),
                    after: json!({}),
                    patch: json!({}),
                    attempts: 2,
                }),
            }),
        );
        assert_eq!(r.new_spec_revision, 9);
    }

    #[test]
    fn the_stored_set_is_verified_for_the_revision_and_the_annotation() {
        let migrated = json!({"metadata": {"annotations": {}}, "spec": {"actionableRevision": 6}});
        assert_eq!(verify_migrated(&migrated, 6), Ok(()));
        assert_eq!(
            verify_migrated(&migrated, 5),
            Ok(()),
            "a later revision is fine"
        );
        let pruned = json!({"spec": {}});
        assert!(verify_migrated(&pruned, 6).unwrap_err().contains("pruned"));
        let kept = json!({"metadata": {"annotations": {ANNOTATION_INTEGRITY_HASH: "x"}}, "spec": {"actionableRevision": 6}});
        assert!(
            verify_migrated(&kept, 6)
                .unwrap_err()
                .contains("still there")
        );
    }
}
