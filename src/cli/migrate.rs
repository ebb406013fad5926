//! `kubectl arc migrate`: during an upgrade from the integrity-hash era to the revision era, turn
//! every pending legacy cleanup into a pending revision, and remove the legacy annotations.
//!
//! Plan: preflight (CRD fields, permissions, no running controller) → list EphemeralRunnerSets and
//! their runners → decide each set (core::migrate) → one guarded merge patch per decided set →
//! rows and a summary. Exit 0 all succeeded, 1 some object failed, 2 usage or preflight errors.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context as _, Result, bail};
use clap::Args;
use serde_json::Value;

use super::{EXIT_ERROR, Env, KubeFlags, Shell};
use crate::cluster::preflight::{self, Permission};
use crate::cluster::ratelimit::RateLimiter;
use crate::cluster::write::{
    Breaker, Decision as WriteDecision, DryRun, ObjectText, Outcome, WriteOptions, guarded_patch,
};
use crate::cluster::{self};
use crate::core::arc::{self, ANNOTATION_INTEGRITY_HASH};
use crate::core::json::find_raw;
use crate::core::layout::Layout;
use crate::core::migrate::{Decision, UnverifiablePolicy, decide};
use crate::core::runners::{RunnerCounts, RunnerState, is_stale, owner_set};
use crate::core::selector::Selector;
use crate::core::value::{Value as GoValue, decode};
use crate::input;
use crate::render::emit::{self, Output};
use crate::render::migrate::{MigrateReport, MigrateRow, write_table};

/// The field manager of migrate's writes.
pub const FIELD_MANAGER: &str = "kubectl-arc-migrate";

#[derive(Debug, Args)]
#[command(
    long_about = "Turn pending legacy cleanups into pending revisions, before the revision-era ARC \
controller reconciles.\n\n\
An integrity-hash-era EphemeralRunnerSet whose actions.github.com/integrity-hash annotation differs \
from ARC's hash of its spec (or that has idle or pending runners on an older spec) had a cleanup \
pending. The revision-era controller would forget it: both revision fields read 0. migrate sets \
spec.actionableRevision to max(spec, applied) + 1 on each such set, and removes the legacy \
annotation from every set it decides, in one merge patch guarded by the object's resourceVersion. \
Re-running is a no-op; nothing ever lowers a revision.\n\n\
Reads EphemeralRunnerSets, EphemeralRunners, the EphemeralRunnerSet CRD and Deployments; patches \
EphemeralRunnerSets. Refuses (exit 2, nothing written) when the installed CRD lacks the revision \
fields, when the caller lacks a permission, or while an ARC controller runs (--force overrides the \
last).\n\n\
Exit status: 0 every set succeeded, 1 some set failed (the others were still processed), 2 usage \
or preflight error.",
    after_help = "Examples:\n  \
# The upgrade runbook: new CRDs, stop the old controller, migrate, start the new one\n  \
kubectl apply --server-side -f <new ARC CRDs>\n  \
kubectl -n arc-systems scale deployment/arc-gha-rs-controller --replicas=0\n  \
kubectl arc migrate -A\n  \
kubectl -n arc-systems scale deployment/arc-gha-rs-controller --replicas=1\n\n  \
# See what would change, asking the API server to validate the writes\n  \
kubectl arc migrate -A --dry-run=server\n\n  \
# Offline, on a dump\n  \
kubectl get ephemeralrunnersets,ephemeralrunners -A -o yaml > dump.yaml\n  \
kubectl arc migrate --dry-run=client -f dump.yaml"
)]
pub struct MigrateArgs {
    /// EphemeralRunnerSet names (default: every one in scope).
    pub names: Vec<String>,
    /// Every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// A dump of EphemeralRunnerSets and EphemeralRunners to decide on offline (needs --dry-run=client).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// none: write; client: decide and report only; server: the API server validates and persists
    /// nothing. kubectl's rule: `--dry-run` alone is `--dry-run=client`, and a value needs `=`.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,
    /// Output format.
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "table", value_parser = emit::OutputParser { formats: super::bump::TABLE_FORMATS, defaults: &["table"] })]
    pub output: Output,
    /// Tables without their header line.
    #[arg(long)]
    pub no_headers: bool,
    /// Sets whose hash cannot be reproduced exactly: request a revision (pending) or leave them (skip).
    #[arg(long, value_enum, default_value_t = UnverifiablePolicy::Pending)]
    pub unverifiable: UnverifiablePolicy,
    /// Proceed although an ARC controller is running (it may race with the writes).
    #[arg(long)]
    pub force: bool,
    /// Client-side requests per second (0: unlimited).
    #[arg(long, default_value_t = 50.0, value_parser = super::parse_qps)]
    pub qps: f64,
    /// Client-side burst.
    #[arg(long, default_value_t = 100)]
    pub burst: u32,
}

/// One set to migrate, with what the runners say.
struct Candidate {
    namespace: String,
    name: String,
    object: ObjectText,
    runners: RunnerCounts,
    error: Option<String>,
}

pub fn run(
    kube: &KubeFlags,
    args: MigrateArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let selector = super::checked_scope(
        kube,
        args.all_namespaces,
        "EphemeralRunnerSet name",
        &args.names,
        args.selector.as_deref(),
    )?;
    let mut input_errors = Vec::new();
    let rows = if !args.files.is_empty() {
        if args.dry_run != DryRun::Client {
            bail!("-f works offline only: add --dry-run=client (a dump cannot be written back)");
        }
        let (candidates, errors) =
            candidates_from_files(kube, &args, selector.as_ref(), &mut env.stdin);
        for e in &errors {
            shell.error(e)?;
        }
        input_errors = errors;
        candidates
            .into_iter()
            .map(|c| offline_row(c, args.unverifiable))
            .collect()
    } else {
        let rt = super::runtime()?;
        match rt.block_on(migrate_cluster(kube, &args, shell))? {
            Ok(rows) => rows,
            Err(refusal) => {
                shell.error(refusal)?;
                return Ok(EXIT_ERROR);
            }
        }
    };
    let report = MigrateReport::new(args.dry_run, rows, input_errors);
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(
        &report,
        &args.output,
        resource,
        args.no_headers,
        shell.out(),
    )? {
        write_table(&report, !args.no_headers, shell.out())?;
    }
    shell.status(report.summary_line())?;
    // The one exit-code rule (README): an object that could not be processed is an error (2).
    Ok(report.outcome().code())
}

/// Read a dump through the one input layer: EphemeralRunnerSets and their EphemeralRunners.
/// Files that cannot be read are returned as errors; the others are still used.
fn candidates_from_files(
    kube: &KubeFlags,
    args: &MigrateArgs,
    selector: Option<&Selector>,
    stdin: &mut dyn std::io::Read,
) -> (Vec<Candidate>, Vec<String>) {
    let inputs = input::read(&args.files, stdin);
    let mut objects = inputs.objects;
    let namespace = kube.namespace.clone().unwrap_or_else(|| {
        cluster::context_namespace(&kube.connect_options()).unwrap_or_else(|| "default".into())
    });
    input::resolve_namespaces(&mut objects, &namespace, kube.namespace.is_some());
    let (sets, runners): (Vec<_>, Vec<_>) = objects
        .into_iter()
        .filter(|o| {
            o.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET) || o.is_arc(arc::KIND_EPHEMERAL_RUNNER)
        })
        .partition(|o| o.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET));
    let mut out = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for obj in sets {
        let (ns, name) = obj.key();
        if !args.names.is_empty() && !args.names.contains(&name) {
            continue;
        }
        if selector.is_some_and(|s| !s.matches(&obj.meta.labels)) {
            continue;
        }
        let text = obj.json();
        let value = serde_json::from_str(&text).unwrap_or(Value::Null);
        index.insert((ns.clone(), name.clone()), out.len());
        out.push(Candidate {
            namespace: ns,
            name,
            object: ObjectText { text, value },
            runners: RunnerCounts::default(),
            error: obj
                .problem
                .as_ref()
                .map(|p| format!("{}: {p}", obj.describe())),
        });
    }
    let layout = Layout::arc();
    // A set's spec is decoded for its runners only (a dump without runners needs none).
    let mut specs: Vec<Option<Option<GoValue>>> = vec![None; out.len()];
    for r in runners {
        let value: Value = serde_json::from_str(&r.json()).unwrap_or(Value::Null);
        let Some(owner) = owner_set(&value) else {
            continue;
        };
        let Some(&i) = index.get(&(r.namespace().to_string(), owner.to_string())) else {
            continue;
        };
        if let Some(p) = &r.problem {
            // Its spec may be read otherwise than kubectl reads it: the set cannot be decided.
            out[i].error.get_or_insert(format!("{}: {p}", r.describe()));
            continue;
        }
        let spec = specs[i].get_or_insert_with(|| set_spec(layout, &out[i].object));
        count_runner(layout, spec.as_ref(), &value, &mut out[i]);
    }
    (out, inputs.errors)
}

/// The set's decoded runner spec (`None` when it does not decode: the row reports the error).
fn set_spec(layout: &Layout, ers: &ObjectText) -> Option<GoValue> {
    let raw = find_raw(&ers.text, &["spec", "ephemeralRunnerSpec"]).unwrap_or("{}");
    decode(layout, layout.ephemeral_runner_spec, raw).ok()
}

fn count_runner(layout: &Layout, spec: Option<&GoValue>, runner: &Value, c: &mut Candidate) {
    let state = RunnerState::of(runner);
    let stale = match (spec, runner.get("spec")) {
        (Some(spec), Some(rs)) => match is_stale(layout, spec, &crate::manifest::go_json(rs)) {
            Ok(s) => s,
            Err(e) => {
                c.error.get_or_insert(format!(
                    "EphemeralRunner {}: spec does not decode: {e}",
                    runner
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
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
    result: &'static str,
    error: Option<String>,
) -> MigrateRow {
    let revisions = d.map(|d| d.revisions).unwrap_or_default();
    MigrateRow {
        namespace: c.namespace.clone(),
        name: c.name.clone(),
        decision: d.map(|d| d.verdict),
        reason: d.map(|d| d.reason.clone()).unwrap_or_default(),
        spec_revision: revisions.spec,
        applied_revision: revisions.applied,
        new_spec_revision: d.map(|d| d.to_revision).unwrap_or(revisions.spec),
        stale_runners: c.runners.stale,
        stale_idle_or_pending_runners: c.runners.stale_idle_or_pending,
        result,
        attempts: 0,
        error,
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

fn offline_row(c: Candidate, policy: UnverifiablePolicy) -> MigrateRow {
    if let Some(e) = c.error.clone() {
        return row(&c, None, "Failed", Some(e));
    }
    match decide_object(&c, &c.object, policy) {
        Ok(d) => {
            let result = if d.patch().is_some() {
                "WouldWrite"
            } else {
                "Unchanged"
            };
            row(&c, Some(&d), result, None)
        }
        Err(e) => row(&c, None, "Failed", Some(e)),
    }
}

/// Preflight, then decide and write each set. The outer error is a runtime failure; the inner one
/// a refusal (exit 2, nothing written).
async fn migrate_cluster(
    kube: &KubeFlags,
    args: &MigrateArgs,
    shell: &mut Shell<'_>,
) -> Result<Result<Vec<MigrateRow>, String>> {
    let conn = cluster::connect(&kube.connect_options()).await?;
    let client = &conn.client;
    let namespace = kube
        .namespace
        .clone()
        .unwrap_or(conn.default_namespace.clone());
    let scope = (!args.all_namespaces).then_some(namespace.as_str());
    if let Err(refusal) = preflight_checks(client, args, scope, shell).await? {
        return Ok(Err(refusal));
    }
    let candidates = read_candidates(client, args, scope).await?;
    let mut rows = decide_and_write(client, args, &candidates, shell).await?;
    // A name asked for and not found is a failed row (exit 2), as kubectl fails on one.
    for missing in args
        .names
        .iter()
        .filter(|n| !candidates.iter().any(|c| &c.name == *n))
    {
        let ns = scope.unwrap_or("*");
        rows.push(MigrateRow {
            namespace: ns.to_string(),
            name: missing.clone(),
            decision: None,
            reason: String::new(),
            spec_revision: 0,
            applied_revision: 0,
            new_spec_revision: 0,
            stale_runners: 0,
            stale_idle_or_pending_runners: 0,
            result: "Failed",
            attempts: 0,
            error: Some(format!("EphemeralRunnerSet {ns}/{missing} not found")),
        });
    }
    Ok(Ok(rows))
}

/// Preflight: nothing is written unless all of these pass (the CRD has the revision fields, the
/// caller may do what migrate does, no ARC controller runs). A server-side dry run says what the
/// real run would refuse.
async fn preflight_checks(
    client: &kube::Client,
    args: &MigrateArgs,
    scope: Option<&str>,
    shell: &mut Shell<'_>,
) -> Result<Result<(), String>> {
    // Preflight: nothing is written unless all of these pass.
    match preflight::ers_crd_revision_fields(client).await? {
        Some(fields) => {
            if let Some(refusal) = preflight::crd_refusal(&fields) {
                return Ok(Err(refusal));
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
    if args.dry_run != DryRun::Client {
        needed.push(Permission::arc("patch", arc::EPHEMERAL_RUNNER_SETS));
    }
    let denied = preflight::denied_permissions(client, scope, &needed).await?;
    if !denied.is_empty() {
        return Ok(Err(format!(
            "forbidden: this user may not {} {}; migrate needs them (see the README's ClusterRole for migrate)",
            denied.join(", "),
            scope.map_or("in all namespaces".to_string(), |ns| format!(
                "in namespace {ns}"
            ))
        )));
    }
    if args.dry_run == DryRun::Server {
        // The real run refuses while a controller runs: say so now, not after the dry run passed.
        match preflight::running_arc_controllers(client).await? {
            Some(running) if !running.is_empty() && !args.force => shell.warn(format_args!(
                "ARC controller Deployment(s) {} are running: the real run will refuse until they are scaled to 0 (or pass --force)",
                running.join(", ")
            ))?,
            None if !args.force => shell.warn(
                "cannot check whether an ARC controller is running (no permission to list Deployments): the real run will refuse unless you grant it or pass --force"
            )?,
            _ => {}
        }
    }
    if args.dry_run == DryRun::None {
        match preflight::running_arc_controllers(client).await? {
            Some(running) if !running.is_empty() && !args.force => {
                return Ok(Err(format!(
                    "ARC controller Deployment(s) {} are running: a controller reconciling during the migration races with it \
                     (an integrity-hash-era one rewrites the annotation; a revision-era one acts on revisions the migration has not written yet). \
                     Scale them to 0 first, or pass --force to proceed anyway",
                    running.join(", ")
                )));
            }
            Some(running) if !running.is_empty() => shell.warn(format_args!(
                "--force: proceeding while ARC controller(s) {} run; a controller that reconciles meanwhile may race with these writes",
                running.join(", ")
            ))?,
            None if !args.force => {
                return Ok(Err(
                    "cannot check whether an ARC controller is running (no permission to list Deployments): grant it, or pass --force"
                        .into(),
                ));
            }
            _ => {}
        }
    }

    Ok(Ok(()))
}

/// Read: the sets in scope, then their runners, page by page.
async fn read_candidates(
    client: &kube::Client,
    args: &MigrateArgs,
    scope: Option<&str>,
) -> Result<Vec<Candidate>> {
    let mut limiter = RateLimiter::new(args.qps, args.burst);
    let selector = args.selector.as_deref();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut raw_sets = Vec::new();
    limiter.acquire().await;
    cluster::list_each(client, arc::EPHEMERAL_RUNNER_SETS, scope, selector, |o| {
        raw_sets.push(o);
        Ok(())
    })
    .await?;
    if raw_sets.is_empty()
        && let Some(ns) = scope
    {
        cluster::check_namespace(client, ns).await?;
    }
    for o in raw_sets {
        let ns = o.metadata.namespace.clone().unwrap_or_default();
        let name = o.metadata.name.clone().unwrap_or_default();
        if !args.names.is_empty() && !args.names.contains(&name) {
            continue;
        }
        let value = serde_json::to_value(&o.metadata)
            .map(|m| {
                let mut v = serde_json::json!({"metadata": m});
                if let Some(spec) = &o.spec {
                    v["spec"] = serde_json::from_str(spec.get()).unwrap_or(Value::Null);
                }
                if let Some(status) = &o.status {
                    v["status"] = serde_json::from_str(status.get()).unwrap_or(Value::Null);
                }
                v
            })
            .context("cannot re-encode object metadata")?;
        let text = match &o.spec {
            Some(spec) => format!("{{\"spec\":{}}}", spec.get()),
            None => "{}".to_string(),
        };
        candidates.push(Candidate {
            namespace: ns,
            name,
            object: ObjectText { text, value },
            runners: RunnerCounts::default(),
            error: None,
        });
    }
    let layout = Layout::arc();
    let index: HashMap<(String, String), usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| ((c.namespace.clone(), c.name.clone()), i))
        .collect();
    // Only sets that carry the legacy annotation need their runners checked.
    let specs: Vec<Option<GoValue>> = candidates
        .iter()
        .map(|c| {
            let legacy = c
                .object
                .value
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(ANNOTATION_INTEGRITY_HASH))
                .is_some();
            if legacy {
                set_spec(layout, &c.object)
            } else {
                None
            }
        })
        .collect();
    limiter.acquire().await;
    cluster::list_each(client, arc::EPHEMERAL_RUNNERS, scope, None, |r| {
        let ns = r.metadata.namespace.clone().unwrap_or_default();
        let owner = r
            .metadata
            .owner_references
            .as_ref()
            .and_then(|refs| refs.iter().find(|o| o.kind == "EphemeralRunnerSet"))
            .map(|o| o.name.clone());
        if let Some(&i) = owner.and_then(|o| index.get(&(ns, o))) {
            if specs[i].is_none() {
                return Ok(());
            }
            let mut value = serde_json::json!({"metadata": r.metadata});
            if let Some(status) = &r.status {
                value["status"] = serde_json::from_str(status.get()).unwrap_or(Value::Null);
            }
            let state = RunnerState::of(&value);
            let stale = match &r.spec {
                Some(spec) => match is_stale(layout, specs[i].as_ref().unwrap(), spec.get()) {
                    Ok(s) => s,
                    Err(e) => {
                        let c = &mut candidates[i];
                        c.error.get_or_insert(format!(
                            "EphemeralRunner {}/{}: spec does not decode: {e}",
                            c.namespace,
                            r.metadata.name.as_deref().unwrap_or("?")
                        ));
                        false
                    }
                },
                None => false,
            };
            candidates[i].runners.add(state, stale);
        }
        Ok(())
    })
    .await?;

    Ok(candidates)
}

/// Decide and write, one set at a time, each write guarded by the resourceVersion it was decided
/// on.
async fn decide_and_write(
    client: &kube::Client,
    args: &MigrateArgs,
    candidates: &[Candidate],
    shell: &mut Shell<'_>,
) -> Result<Vec<MigrateRow>> {
    let mut limiter = RateLimiter::new(args.qps, args.burst);
    let opts = WriteOptions {
        dry_run: args.dry_run,
        field_manager: FIELD_MANAGER.into(),
        backoff: Default::default(),
        jitter_seed: std::process::id() as u64,
    };
    let total = candidates.len();
    let mut rows = Vec::with_capacity(total);
    let mut breaker = Breaker::default();
    for (n, c) in candidates.iter().enumerate() {
        if total >= 20 {
            shell.progress(format_args!(
                "migrating {}/{total} EphemeralRunnerSets",
                n + 1
            ))?;
        }
        if let Some(e) = &c.error {
            rows.push(row(c, None, "Failed", Some(e.clone())));
            continue;
        }
        let first = match decide_object(c, &c.object, args.unverifiable) {
            Ok(d) => d,
            Err(e) => {
                rows.push(row(c, None, "Failed", Some(e)));
                continue;
            }
        };
        if first.patch().is_none() || args.dry_run == DryRun::Client {
            let result = if first.patch().is_some() {
                "WouldWrite"
            } else {
                "Unchanged"
            };
            rows.push(row(c, Some(&first), result, None));
            continue;
        }
        if breaker.open() {
            rows.push(row(c, Some(&first), "Failed", Some(breaker.reason())));
            continue;
        }
        limiter.acquire().await;
        let mut last: Option<Decision> = None;
        let outcome = guarded_patch(
            client,
            arc::EPHEMERAL_RUNNER_SETS,
            &c.namespace,
            &c.name,
            &opts,
            |fresh| {
                let d = match decide_object(c, fresh, args.unverifiable) {
                    Ok(d) => d,
                    Err(e) => return WriteDecision::Refuse(e),
                };
                last = Some(d.clone());
                match d.patch() {
                    None => WriteDecision::Skip(d.reason.clone()),
                    Some(body) => {
                        let want = d.to_revision;
                        WriteDecision::Patch {
                            body,
                            verify: Box::new(move |after: &Value| verify_migrated(after, want)),
                        }
                    }
                }
            },
        )
        .await;
        let d = last.unwrap_or(first);
        breaker.record(outcome.as_ref().is_err_and(|e| e.server_unreachable()));
        rows.push(match outcome {
            Ok(Outcome::Written { attempts, .. }) => MigrateRow {
                attempts,
                ..row(
                    c,
                    Some(&d),
                    if args.dry_run == DryRun::None {
                        "Written"
                    } else {
                        "WouldWrite"
                    },
                    None,
                )
            },
            Ok(Outcome::Skipped { .. }) => row(c, Some(&d), "Unchanged", None),
            Ok(Outcome::Refused { reason, .. }) => row(c, Some(&d), "Failed", Some(reason)),
            Err(e) => row(c, Some(&d), "Failed", Some(e.to_string())),
        });
    }
    shell.clear_progress();
    Ok(rows)
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
