//! `kubectl arc bump`: arguments → the EphemeralRunnerSets to bump → one guarded write each →
//! a report (and, with `--wait`, the acknowledgements).
//!
//! Like `kubectl rollout restart`: it requests a new runner-spec revision
//! (`nextActionableRevision`, max(spec, applied) + 1) so ARC's controller recycles idle and pending
//! runners. Every write goes through [`guarded_patch`]: a merge patch with the resourceVersion it
//! was decided on, `fieldValidation=Strict`, re-read and re-decided on 409, read back. The request
//! id written with the revision lets a retry recognise its own write, so one request never bumps
//! twice. Exit status: 0; 1 when `--wait` times out; 2 on errors and refusals.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;
use serde_json::Value;

use super::{ColorChoice, Env, KubeFlags, Shell, parse_duration};
use crate::cluster;
use crate::cluster::preflight::{
    Permission, crd_refusal, denied_permissions, ers_crd_revision_fields,
};
use crate::cluster::ratelimit::RateLimiter;
use crate::cluster::watch::{Event, Scope, Watcher};
use crate::cluster::write::{
    Backoff, Breaker, Decision, DryRun, Outcome, WriteError, WriteOptions, guarded_patch, read,
};
use crate::core::arc;
use crate::core::revision::Revisions;
use crate::core::status::{
    ANNOTATION_INTEGRITY_HASH_NOTE, BumpDecision, BumpRequest, check_bump, decide_bump,
};
use crate::render::bump::{BumpItem, BumpReport, BumpResult, WaitTimeout, write_bump_table};
use crate::render::emit::{self, Output};

/// The field manager of kubectl-arc's writes (as it appears in managedFields).
pub const FIELD_MANAGER: &str = "kubectl-arc";

#[derive(Debug, Args)]
#[command(
    long_about = "Request a new runner-spec revision on EphemeralRunnerSets, like `kubectl rollout restart`: \
ARC's EphemeralRunnerSet controller then removes idle and pending runners (busy ones finish their job \
first) and acknowledges the revision in status.appliedActionableRevision.\n\n\
NAME is an EphemeralRunnerSet, or the AutoscalingRunnerSet of the same name (the set must be owned by \
it). The new revision is max(spec.actionableRevision, status.appliedActionableRevision) + 1, written as \
a JSON merge patch carrying the resourceVersion it was computed from, with strict field validation; a \
conflict re-reads and recomputes (client-go's default backoff: 4 retries from 10ms, factor 5), so a \
revision never goes down and one request never bumps twice. The request id is recorded in annotation \
kubectl-arc/bump-id (and kubectl-arc/recent-bumps), --reason in kubectl-arc/bump-reason.\n\n\
Refuses, writing nothing, when the installed CRD lacks the revision fields (the API server would \
drop the write) and when a set's phase is Outdated (a runner version too old for GitHub: a new \
revision would not be acted on; updating the runner image in the AutoscalingRunnerSet clears it).\n\n\
Exit status: 0; 1 when --wait times out; 2 on errors and refusals (the other sets are still bumped).",
    after_help = "Examples:\n  \
# Recycle the idle runners of one scale set\n  kubectl arc bump -n arc-runners arc-runner-set --reason \"new node pool\"\n\n  \
# Every scale set with a label, across namespaces, and wait for ARC to acknowledge\n  \
kubectl arc bump -A -l team=platform --wait --timeout 10m\n\n  \
# What would be written, validated by the API server\n  kubectl arc bump -n arc-runners --all --dry-run=server -o yaml"
)]
pub struct BumpArgs {
    /// EphemeralRunnerSet (or AutoscalingRunnerSet) names.
    #[arg(conflicts_with_all = ["all", "selector"])]
    pub names: Vec<String>,
    /// Every EphemeralRunnerSet in the namespace (or, with -A, the cluster).
    #[arg(long, conflicts_with = "selector")]
    pub all: bool,
    /// EphemeralRunnerSets matching this label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Every namespace (with --all or -l).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Why: recorded in annotation kubectl-arc/bump-reason.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// none: write; client: decide and report only; server: the API server validates and persists
    /// nothing. kubectl's rule: `--dry-run` alone is `--dry-run=client`, and a value needs `=`.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,
    /// Wait until ARC acknowledges: status.appliedActionableRevision >= the new revision.
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up after this long (exit 1), e.g. 30s, 10m. Default: wait forever.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "wait")]
    pub timeout: Option<Duration>,
    /// Output format.
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "table", value_parser = emit::OutputParser { formats: TABLE_FORMATS, defaults: &["table"] })]
    pub output: Output,
    /// Tables without their header line.
    #[arg(long)]
    pub no_headers: bool,
    /// When to colour the table (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Finish an interrupted request: reuse the request id an earlier run printed, and sets that
    /// run already bumped are not bumped again (each set records the ids of its recent bumps).
    #[arg(long, value_name = "ID", value_parser = parse_request_id)]
    pub request_id: Option<String>,
    /// Client-side sets written per second (0: unlimited), so `--all -A` on a large cluster does
    /// not flood the API server.
    #[arg(long, default_value_t = 50.0, value_parser = super::parse_qps)]
    pub qps: f64,
    /// Client-side burst.
    #[arg(long, default_value_t = 100)]
    pub burst: u32,
}

/// One set to bump, resolved.
struct Target {
    namespace: String,
    name: String,
    /// The AutoscalingRunnerSet of the same name (name, uid) that must own it.
    owner: Option<(String, String)>,
}

pub fn run(kube: &KubeFlags, args: BumpArgs, env: &mut Env, shell: &mut Shell<'_>) -> Result<u8> {
    validate(kube, &args)?;
    let bump_id = args
        .request_id
        .clone()
        .unwrap_or_else(|| new_bump_id(env.now()));
    let rt = super::runtime()?;
    rt.block_on(async {
        let conn = cluster::connect(&kube.connect_options()).await?;
        let client = &conn.client;
        let namespace = (!args.all_namespaces).then(|| {
            kube.namespace
                .clone()
                .unwrap_or(conn.default_namespace.clone())
        });
        preflight(client, &args, namespace.as_deref()).await?;
        let (targets, mut items) = targets(client, &args, namespace.as_deref(), shell).await?;
        let written = write_all(client, &args, &bump_id, &targets, shell).await?;
        // A re-run with the request id can finish what the writes left: not a name that was not
        // found, nor a refusal.
        let retryable = written
            .iter()
            .any(|i| i.result == BumpResult::Failed && args.dry_run == DryRun::None);
        items.extend(written);
        items.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let timed_out = if args.wait {
            wait_for_acknowledgement(client, &mut items, args.timeout, shell).await?
        } else {
            None
        };
        let report = BumpReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "BumpReport",
            dry_run: args.dry_run,
            bump_id: bump_id.clone(),
            reason: args.reason.clone(),
            items,
            resumable: retryable,
            timed_out,
        };
        finish(&args, &report, shell)
    })
}

/// What bump checks of its arguments before it contacts anything.
fn validate(kube: &KubeFlags, args: &BumpArgs) -> Result<()> {
    if args.names.is_empty() && !args.all && args.selector.is_none() {
        bail!("name the sets to bump: NAME..., --all or -l SELECTOR");
    }
    super::checked_scope(
        kube,
        args.all_namespaces,
        "EphemeralRunnerSet name",
        &args.names,
        args.selector.as_deref(),
    )?;
    if args.all_namespaces && !args.names.is_empty() {
        bail!("names are looked up in one namespace: use -n NAMESPACE with names, not -A");
    }
    if args.wait && args.dry_run != DryRun::None {
        bail!("--wait waits for a written revision: it cannot be combined with --dry-run");
    }
    Ok(())
}

/// Nothing is written unless the installed CRD has the revision fields (else the write would be
/// pruned) and the caller may do what the bump needs (named, verb and resource, if not).
async fn preflight(client: &kube::Client, args: &BumpArgs, namespace: Option<&str>) -> Result<()> {
    if let Some(fields) = ers_crd_revision_fields(client).await?
        && let Some(refusal) = crd_refusal(&fields)
    {
        bail!("refusing to bump, nothing was written: {refusal}");
    }
    let mut needed = vec![Permission::arc("get", arc::EPHEMERAL_RUNNER_SETS)];
    if args.dry_run != DryRun::Client {
        needed.push(Permission::arc("patch", arc::EPHEMERAL_RUNNER_SETS));
    }
    if args.names.is_empty() {
        needed.push(Permission::arc("list", arc::EPHEMERAL_RUNNER_SETS));
    }
    if args.wait {
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
async fn targets(
    client: &kube::Client,
    args: &BumpArgs,
    namespace: Option<&str>,
    shell: &mut Shell<'_>,
) -> Result<(Vec<Target>, Vec<BumpItem>)> {
    let mut items = Vec::new();
    let mut targets = Vec::new();
    if args.names.is_empty() {
        cluster::list_each(
            client,
            arc::EPHEMERAL_RUNNER_SETS,
            namespace,
            args.selector.as_deref(),
            |o| {
                targets.push(Target {
                    namespace: o.metadata.namespace.unwrap_or_default(),
                    name: o.metadata.name.unwrap_or_default(),
                    owner: None,
                });
                Ok(())
            },
        )
        .await?;
        if targets.is_empty() {
            if let Some(ns) = namespace {
                cluster::check_namespace(client, ns).await?;
            }
            shell.status("No EphemeralRunnerSets found.")?;
        }
    } else {
        let ns = namespace.unwrap_or_default();
        for name in &args.names {
            match resolve(client, ns, name).await? {
                Ok(t) => targets.push(t),
                Err(message) => items.push(failed(ns, name, BumpResult::Failed, message)),
            }
        }
    }
    Ok((targets, items))
}

/// One guarded write per set, throttled, with progress on a terminal (as migrate shows it).
async fn write_all(
    client: &kube::Client,
    args: &BumpArgs,
    bump_id: &str,
    targets: &[Target],
    shell: &mut Shell<'_>,
) -> Result<Vec<BumpItem>> {
    let mut items = Vec::with_capacity(targets.len());
    let mut limiter = RateLimiter::new(args.qps, args.burst);
    let mut breaker = Breaker::default();
    let total = targets.len();
    for (n, t) in targets.iter().enumerate() {
        if total >= 20 {
            shell.progress(format_args!(
                "bumping {}/{total} EphemeralRunnerSets",
                n + 1
            ))?;
        }
        if breaker.open() {
            items.push(failed(
                &t.namespace,
                &t.name,
                BumpResult::Failed,
                breaker.reason(),
            ));
            continue;
        }
        limiter.acquire().await;
        let (item, unreachable) = bump_one(client, t, args, bump_id).await;
        breaker.record(unreachable);
        items.push(item);
    }
    shell.clear_progress();
    Ok(items)
}

/// The report, an error line per set that was refused or failed, the hint to finish the request,
/// and the exit code (the README's one rule).
fn finish(args: &BumpArgs, report: &BumpReport, shell: &mut Shell<'_>) -> Result<u8> {
    if let Some(timeout) = &report.timed_out {
        let mut left: Vec<String> = timeout
            .left
            .iter()
            .map(|(ns, name, rev)| format!("{ns}/{name} (revision {rev})"))
            .collect();
        left.sort();
        shell.error(format_args!(
            "timed out waiting for ARC to acknowledge {}/{} EphemeralRunnerSets: {}; see `kubectl arc status -n NAMESPACE NAME` for what holds the cleanup back",
            left.len(),
            timeout.waited_for,
            super::name_a_few(&left, 3)
        ))?;
    }
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(report, &args.output, resource, args.no_headers, shell.out())?
        && !report.items.is_empty()
    {
        let color = shell.color(args.color);
        write_bump_table(report, color, !args.no_headers, shell.out())?;
    }
    for item in &report.items {
        match item.result {
            BumpResult::Refused | BumpResult::Failed => {
                shell.error(format_args!(
                    "EphemeralRunnerSet {}/{}: {}",
                    item.namespace,
                    item.name,
                    item.message.as_deref().unwrap_or("failed")
                ))?;
            }
            _ => {
                if let Some(note) = &item.message {
                    shell.note(format_args!(
                        "EphemeralRunnerSet {}/{}: {note}",
                        item.namespace, item.name
                    ))?;
                }
            }
        }
    }
    if report.resumable {
        shell.hint(format_args!(
            "to finish this request without bumping any set twice, run the same command again with --request-id {}",
            report.bump_id
        ))?;
    }
    Ok(report.outcome().code())
}

/// `--request-id`: what the recent-bumps annotation can hold (`id=revision,...`).
fn parse_request_id(s: &str) -> std::result::Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{s:?} is not a request id: 1 to 64 letters, digits, '-', '_' or '.' (use the id an earlier run printed)"
        ))
    }
}

/// A request id unique to this invocation: hashed from the process, the time and a random key.
fn new_bump_id(now: std::time::SystemTime) -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(d) = now.duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    format!("{:016x}", h.finish())
}

fn failed(ns: &str, name: &str, result: BumpResult, message: String) -> BumpItem {
    BumpItem {
        namespace: ns.to_string(),
        name: name.to_string(),
        spec_revision: None,
        applied_revision: None,
        new_spec_revision: None,
        result,
        message: Some(message),
        attempts: None,
        acknowledged: None,
    }
}

/// NAME as an EphemeralRunnerSet, owned by the AutoscalingRunnerSet of that name when one exists.
/// `Ok(Err(why))` when there is nothing to bump.
async fn resolve(client: &kube::Client, ns: &str, name: &str) -> Result<Result<Target, String>> {
    let ers = read(client, arc::EPHEMERAL_RUNNER_SETS, ns, name).await?;
    let ars = cluster::get(client, arc::AUTOSCALING_RUNNER_SETS, ns, name).await?;
    if let Some(ers) = &ers
        && let Some(why) = spec_hash_era(&ers.value, ns, name)
    {
        return Ok(Err(why));
    }
    if ers.is_none()
        && let Some(ars) = &ars
    {
        // ARC up to 0.14 names the set `<scale set>-xxxxx`: find it as ARC does.
        let sets = cluster::list_objects(
            client,
            arc::KIND_EPHEMERAL_RUNNER_SET,
            arc::EPHEMERAL_RUNNER_SETS,
            Some(ns),
            None,
        )
        .await?;
        let inputs: Vec<_> = sets.iter().map(crate::input::Object::pairing_set).collect();
        let scale_set = crate::core::pairing::ScaleSet {
            namespace: ns,
            name,
            uid: ars.metadata.uid.as_deref(),
        };
        if let Some(p) = crate::core::pairing::pair(scale_set, &inputs) {
            let set = &sets[p.chosen];
            if set
                .meta
                .annotations
                .contains_key(arc::ANNOTATION_RUNNER_SPEC_HASH)
                || set
                    .meta
                    .labels
                    .contains_key(arc::ANNOTATION_RUNNER_SPEC_HASH)
            {
                return Ok(Err(spec_hash_refusal(ns, set.name())));
            }
            return Ok(Ok(Target {
                namespace: ns.to_string(),
                name: set.name().to_string(),
                owner: Some((
                    name.to_string(),
                    ars.metadata.uid.clone().unwrap_or_default(),
                )),
            }));
        }
    }
    match (ers, ars) {
        (Some(_), ars) => Ok(Ok(Target {
            namespace: ns.to_string(),
            name: name.to_string(),
            owner: ars.map(|a| (name.to_string(), a.metadata.uid.unwrap_or_default())),
        })),
        (None, Some(_)) => Ok(Err(format!(
            "the AutoscalingRunnerSet {ns}/{name} has no EphemeralRunnerSet: ARC has not created it yet \
             (is the controller running?), so there is nothing to bump"
        ))),
        (None, None) => {
            cluster::check_namespace(client, ns).await?;
            Ok(Err(format!(
                "no EphemeralRunnerSet or AutoscalingRunnerSet named {name} in namespace {ns}"
            )))
        }
    }
}

/// Why a set made by ARC 0.14 or older cannot be bumped, and what to do instead.
fn spec_hash_refusal(ns: &str, name: &str) -> String {
    format!(
        "EphemeralRunnerSet {ns}/{name} was made by ARC 0.14 or older ({}): that release replaces the whole set on a runner-spec change and has no revision to bump. To recycle its runners, change the AutoscalingRunnerSet's template (any change replaces the set), or upgrade ARC",
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

/// `-o` for bump and migrate: a table, and kubectl's structured formats.
pub(crate) const TABLE_FORMATS: &[&str] = &["json", "yaml", "name", "jsonpath", "custom-columns"];

/// The guarded write for one set.
/// Also says whether the write found the API server unreachable.
async fn bump_one(
    client: &kube::Client,
    t: &Target,
    args: &BumpArgs,
    bump_id: &str,
) -> (BumpItem, bool) {
    let mut item = failed(&t.namespace, &t.name, BumpResult::Failed, String::new());
    item.message = None;
    let request = BumpRequest {
        id: bump_id,
        reason: args.reason.as_deref(),
        owner: t.owner.as_ref().map(|(n, u)| (n.as_str(), u.as_str())),
    };
    let opts = WriteOptions {
        dry_run: args.dry_run,
        field_manager: FIELD_MANAGER.into(),
        backoff: Backoff::default(),
        jitter_seed: u64::from_str_radix(bump_id, 16).unwrap_or(0),
    };
    let mut last: Option<BumpDecision> = None;
    let mut unreachable = false;
    let outcome = guarded_patch(
        client,
        arc::EPHEMERAL_RUNNER_SETS,
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
            last = Some(decision.clone());
            match decision {
                BumpDecision::Write { new, patch, .. } => {
                    let id = bump_id.to_string();
                    Decision::Patch {
                        body: patch,
                        verify: Box::new(move |stored: &Value| check_bump(stored, &id, new)),
                    }
                }
                BumpDecision::AlreadyDone { revision, .. } => {
                    Decision::Skip(format!("this request already wrote revision {revision}"))
                }
                BumpDecision::Refuse { reason, .. } => Decision::Refuse(reason),
            }
        },
    )
    .await;
    let set_before = |item: &mut BumpItem, before: Option<Revisions>| {
        item.spec_revision = before.map(|r| r.spec);
        item.applied_revision = before.map(|r| r.applied);
    };
    match (outcome, last) {
        (
            Ok(Outcome::Written {
                attempts, before, ..
            }),
            Some(BumpDecision::Write { before: r, new, .. }),
        ) => {
            set_before(&mut item, Some(r));
            item.new_spec_revision = Some(new);
            item.attempts = Some(attempts);
            item.result = if args.dry_run == DryRun::None {
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
                item.message = Some(ANNOTATION_INTEGRITY_HASH_NOTE.into());
            }
        }
        (Ok(Outcome::Skipped { .. }), Some(BumpDecision::AlreadyDone { before, revision })) => {
            // A retry found this request's own write: it counts once.
            set_before(&mut item, Some(before));
            item.spec_revision = None;
            item.new_spec_revision = Some(revision);
            item.result = BumpResult::Bumped;
            item.message = Some(format!(
                "request {bump_id} already wrote revision {revision} (an earlier attempt or run): not bumped again"
            ));
        }
        (Ok(Outcome::Refused { reason, .. }), decision) => {
            if let Some(BumpDecision::Refuse { before, .. }) = decision {
                set_before(&mut item, before);
            }
            item.result = BumpResult::Refused;
            item.message = Some(format!("refused, nothing was written: {reason}"));
        }
        (Ok(_), _) => {
            item.message = Some("internal error: the write and its decision disagree".into());
        }
        (Err(e), decision) => {
            if let Some(BumpDecision::Write { before, .. }) = decision {
                set_before(&mut item, Some(before));
            }
            unreachable = e.server_unreachable();
            item.message = Some(match e {
                WriteError::NotFound(what) => format!("{what} not found (deleted meanwhile?)"),
                other => format!("{other:#}"),
            });
        }
    }
    (item, unreachable)
}

/// Wait until each bumped set's applied revision reaches its new one. Returns what was left on
/// timeout.
///
/// On a terminal one line counts the acknowledged sets as they come; in a log each
/// acknowledgement is a line of its own. A timeout names a few of the sets left and counts the rest.
async fn wait_for_acknowledgement(
    client: &kube::Client,
    items: &mut [BumpItem],
    timeout: Option<Duration>,
    shell: &mut Shell<'_>,
) -> Result<Option<WaitTimeout>> {
    let mut waiting: HashMap<(String, String), i64> = items
        .iter()
        .filter(|i| i.result == BumpResult::Bumped)
        .filter_map(|i| Some(((i.namespace.clone(), i.name.clone()), i.new_spec_revision?)))
        .collect();
    if waiting.is_empty() {
        return Ok(None);
    }
    let total = waiting.len();
    let namespaces: std::collections::BTreeSet<&String> = waiting.keys().map(|k| &k.0).collect();
    let scope = Scope {
        namespace: (namespaces.len() == 1).then(|| namespaces.first().unwrap().to_string()),
        label_selector: None,
        field_selector: (total == 1)
            .then(|| format!("metadata.name={}", waiting.keys().next().unwrap().1)),
    };
    match waiting.iter().next() {
        Some(((ns, name), rev)) if total == 1 => shell.status(format_args!(
            "Waiting for ARC to acknowledge revision {rev} of EphemeralRunnerSet {ns}/{name}..."
        ))?,
        _ => shell.status(format_args!(
            "Waiting for ARC to acknowledge the new revisions of {total} EphemeralRunnerSets..."
        ))?,
    }
    shell.progress(format_args!("acknowledged 0/{total} EphemeralRunnerSets"))?;
    // An empty resourceVersion starts with the current state of every object, then changes.
    let mut watch = Watcher::new(
        client.clone(),
        arc::EPHEMERAL_RUNNER_SETS,
        scope,
        String::new(),
    );
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    let far = tokio::time::Instant::now() + Duration::from_secs(86400 * 365);
    let mut acknowledged = Vec::new();
    let mut timed_out = false;
    let mut deleted = Vec::new();
    let key_of = |v: &Value| {
        let field = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        (field("/metadata/namespace"), field("/metadata/name"))
    };
    while !waiting.is_empty() {
        tokio::select! {
            event = watch.next() => match event? {
                Event::Applied(v) => {
                    let key = key_of(&v);
                    if let Some(&rev) = waiting.get(&key)
                        && let Ok(r) = Revisions::from_object(&v)
                        && r.applied >= rev
                    {
                        waiting.remove(&key);
                        acknowledged.push(key);
                        let (ns, name) = acknowledged.last().unwrap();
                        let done = acknowledged.len();
                        if shell.shows_progress() {
                            shell.progress(format_args!("acknowledged {done}/{total} EphemeralRunnerSets"))?;
                        } else {
                            shell.status(format_args!(
                                "EphemeralRunnerSet {ns}/{name}: revision {rev} acknowledged (applied {}); {done}/{total}",
                                r.applied
                            ))?;
                        }
                    }
                }
                Event::Deleted(v) => {
                    let key = key_of(&v);
                    if waiting.remove(&key).is_some() {
                        deleted.push(key);
                    }
                }
                Event::Relist => watch.resume_from(String::new()),
                Event::Reconnecting(why) => shell.status(why)?,
            },
            _ = tokio::time::sleep_until(deadline.unwrap_or(far)), if deadline.is_some() => {
                timed_out = true;
                break;
            }
        }
    }
    shell.clear_progress();
    for item in items.iter_mut() {
        let key = (item.namespace.clone(), item.name.clone());
        if item.result == BumpResult::Bumped {
            item.acknowledged = Some(acknowledged.contains(&key));
        }
        if deleted.contains(&key) {
            item.result = BumpResult::Failed;
            item.message = Some("deleted while waiting for ARC to acknowledge the revision".into());
        }
    }
    Ok(timed_out.then(|| WaitTimeout {
        waited_for: total,
        left: waiting
            .into_iter()
            .map(|((ns, name), rev)| (ns, name, rev))
            .collect(),
    }))
}
