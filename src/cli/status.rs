//! `kubectl arc status`: arguments → the EphemeralRunnerSets and runners in scope, streamed into a
//! per-set census → a verdict per set → a renderer.
//!
//! Reads EphemeralRunnerSets and EphemeralRunners from the cluster (paginated, page by page, on a
//! worker thread so that the next page is fetched meanwhile) or from files (`-f`); writes nothing.
//! `--watch` and `--wait` keep the census live from two watches. Exit status: 0, or with `--wait`
//! 1 on timeout; 2 on errors (no CRD, Forbidden, bad selector, unknown name).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use clap::Args;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::{ColorChoice, EXIT_DRIFT, EXIT_ERROR, EXIT_OK, KubeFlags, Terminal, parse_duration};
use crate::cluster;
use crate::cluster::watch::{Event, Scope, Watcher, list_pages};
use crate::core::arc;
use crate::core::layout::Layout;
use crate::core::pairing;
use crate::core::selector::Selector;
use crate::core::status::{
    Census, DesiredSpec, RunnerFacts, SetFacts, SetKey, SetStatus, State, StatusReason, Unobserved,
};
use crate::input;
use crate::render::emit::{self, Output};
use crate::render::status::{
    StatusReport, TableOptions, Widths, visible, write_json_line, write_reasons, write_rows,
    write_table, write_yaml_document,
};

#[derive(Debug, Args)]
#[command(
    long_about = "Show where each EphemeralRunnerSet stands in ARC's revision handshake: \
spec.actionableRevision (requested) against status.appliedActionableRevision (acknowledged), its \
runners as ARC's controller sorts them (idle, busy, pending, failed), and how many run an older spec \
(not Semantic-equal to the set's spec.ephemeralRunnerSpec).\n\n\
States: Synced (applied >= spec, and no idle or pending runner on an older spec; busy runners finish \
their job first and are only counted), Pending (spec > applied: a cleanup is requested), Stale \
(the revisions agree, yet idle or pending runners run an older spec), Legacy (the \
actions.github.com/integrity-hash annotation is still set: run `kubectl arc migrate`), Invalid \
(applied > spec, or a field ARC's Go types cannot decode).\n\n\
`-o wide` and `status NAME` say why a set is not Synced: which runners hold the cleanup back \
(busy with a job, never registered with runnerId 0, phase Outdated) and when spec.actionableRevision \
was last written (from managedFields).\n\n\
Lists are paginated and streamed, so memory stays bounded by the number of sets, not runners. \
`-f` reads a `kubectl get -o yaml` dump instead of the cluster.\n\n\
Exit status: 0; with --wait, 0 once every selected set is Synced and 1 on timeout; 2 on errors \
(ARC's CRDs missing, Forbidden, a bad selector, an unknown name).",
    after_help = "Examples:\n  \
# Every scale set in the current namespace\n  kubectl arc status\n\n  \
# Across the cluster, with the reasons\n  kubectl arc status -A -o wide\n\n  \
# Why is this one stuck?\n  kubectl arc status -n arc-runners arc-runner-set\n\n  \
# Block until a requested cleanup has completed, like kubectl rollout status\n  \
kubectl arc status -n arc-runners arc-runner-set --wait --timeout 10m\n\n  \
# Follow changes\n  kubectl arc status -A --watch\n\n  \
# Offline, from a dump\n  kubectl get ephemeralrunnersets,ephemeralrunners -A -o yaml > dump.yaml\n  \
kubectl arc status -f dump.yaml"
)]
pub struct StatusArgs {
    /// EphemeralRunnerSet names (default: every one in scope).
    pub names: Vec<String>,
    /// Every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector on EphemeralRunnerSets (e.g. app=runners,tier!=gpu).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// A dump (file, directory or - for stdin, repeatable) of EphemeralRunnerSets and their
    /// EphemeralRunners, instead of the cluster.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC.
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "table", value_parser = emit::OutputParser { formats: &["wide", "json", "yaml", "name", "jsonpath", "custom-columns"], defaults: &["table"] })]
    pub output: Output,
    /// Tables without their header line.
    #[arg(long)]
    pub no_headers: bool,
    /// After the first listing, print each set again whenever its row changes (JSON: one row per
    /// line; YAML: one document per row).
    #[arg(short = 'w', long, conflicts_with_all = ["wait", "files"])]
    pub watch: bool,
    /// Block until every selected set is Synced (exit 0), like `kubectl rollout status`.
    #[arg(long, conflicts_with = "files")]
    pub wait: bool,
    /// With --wait: give up after this long (exit 1), e.g. 30s, 10m. Default: wait forever.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "wait")]
    pub timeout: Option<Duration>,
    /// When to colour the table (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The k8s.io/api layout of the ARC controller's build (v0.35, v0.36 or v0.37).
    #[arg(long, value_name = "VERSION", default_value = "v0.36")]
    pub layout: String,
}

/// What `-o name` calls a set.
const RESOURCE: &str = "ephemeralrunnerset.actions.github.com";

/// What the command was asked to show.
struct Plan {
    layout: &'static Layout,
    /// `None`: all namespaces.
    namespace: Option<String>,
    names: Vec<String>,
    selector: Option<String>,
    parsed_selector: Option<Selector>,
}

impl Plan {
    /// Whether a set event belongs to the selection (names; the selector is applied by the
    /// server).
    fn selects(&self, key: &SetKey) -> bool {
        (self.namespace.is_none() || self.namespace.as_deref() == Some(key.0.as_str()))
            && (self.names.is_empty() || self.names.contains(&key.1))
    }

    fn set_scope(&self) -> Scope {
        Scope {
            namespace: self.namespace.clone(),
            label_selector: self.selector.clone(),
            field_selector: None,
        }
    }

    fn runner_scope(&self) -> Scope {
        Scope {
            namespace: self.namespace.clone(),
            ..Default::default()
        }
    }
}

pub fn run(
    kube: &KubeFlags,
    args: StatusArgs,
    term: Terminal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let layout = super::layout_arg(&args.layout)?;
    let parsed_selector = super::checked_scope(
        kube,
        args.all_namespaces,
        "EphemeralRunnerSet name",
        &args.names,
        args.selector.as_deref(),
    )?;
    if args.all_namespaces && !args.names.is_empty() {
        bail!(
            "names are looked up in one namespace: use -n NAMESPACE with names, not -A/--all-namespaces"
        );
    }
    let opts = TableOptions {
        wide: args.output == Output::Wide,
        no_headers: args.no_headers,
        namespace_column: args.all_namespaces || !args.files.is_empty(),
        color: term.color(args.color),
    };

    if !args.files.is_empty() {
        let plan = Plan {
            layout,
            namespace: None,
            names: args.names.clone(),
            selector: args.selector.clone(),
            parsed_selector,
        };
        let (rows, errors) = from_files(&plan, &args.files, kube);
        return finish(&args, opts, rows, errors, out, err);
    }

    let rt = super::runtime()?;
    rt.block_on(async {
        let conn = cluster::connect(&kube.connect_options()).await?;
        let namespace = if args.all_namespaces {
            None
        } else {
            Some(
                kube.namespace
                    .clone()
                    .unwrap_or(conn.default_namespace.clone()),
            )
        };
        let names = match &namespace {
            Some(ns) if !args.names.is_empty() => {
                resolve_names(&conn.client, ns, &args.names).await?
            }
            _ => args.names.clone(),
        };
        let plan = Plan {
            layout,
            namespace,
            names,
            selector: args.selector.clone(),
            parsed_selector,
        };
        if args.watch || args.wait {
            live(&conn.client, &plan, &args, opts, out, err).await
        } else {
            let gathered = gather(&conn.client, &plan, Census::new(layout, false)).await?;
            let mut census = gathered.census;
            attach_desired(&scale_sets(&conn.client, &plan).await, &mut census);
            if gathered.seen.is_empty()
                && let Some(ns) = plan.namespace.as_deref()
            {
                cluster::check_namespace(&conn.client, ns).await?;
            }
            let errors = missing_names(&plan, &census);
            let rows = census.statuses(now());
            finish(&args, opts, rows, errors, out, err)
        }
    })
}

/// Attach to each set in the census what its AutoscalingRunnerSet wants, found as ARC finds it
/// (owner reference, labels, name; the newest set when several), so that a change ARC has not
/// written yet shows as Propagating.
fn attach_desired(scale_sets: &[input::Object], census: &mut Census) {
    let chosen: Vec<(SetKey, DesiredSpec)> = {
        let inputs = census.pairing_inputs();
        let sets: Vec<_> = inputs.iter().map(|(_, s)| *s).collect();
        scale_sets
            .iter()
            .filter(|a| a.problem.is_none())
            .filter_map(|a| {
                let p = pairing::pair(
                    pairing::ScaleSet {
                        namespace: a.namespace(),
                        name: a.name(),
                        uid: a.meta.uid.as_deref(),
                    },
                    &sets,
                )?;
                let (key, _) = &inputs[p.chosen];
                let facts = census.facts(key)?;
                let id = a
                    .meta
                    .annotations
                    .get(arc::ANNOTATION_RUNNER_SCALE_SET_ID)
                    .cloned()
                    .or_else(|| runner_scale_set_id(facts.runner_spec.as_deref()?));
                Some((
                    key.clone(),
                    DesiredSpec {
                        scale_set: format!("{}/{}", a.namespace(), a.name()),
                        spec_json: a.spec.as_ref()?.get().to_string(),
                        scale_set_id: id,
                        unobserved: unobserved(a),
                    },
                ))
            })
            .collect()
    };
    for (key, desired) in chosen {
        census.set_desired(&key, Some(desired));
    }
}

/// Names as a user gives them: an EphemeralRunnerSet's, or its AutoscalingRunnerSet's (ARC up to
/// 0.14 names its sets `<scale set>-xxxxx`), which stands for the sets ARC made for it, found as
/// ARC finds them. A name that is neither stays, and is reported as not found.
async fn resolve_names(
    client: &kube::Client,
    namespace: &str,
    names: &[String],
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut sets: Option<Vec<input::Object>> = None;
    for name in names {
        if cluster::get(client, arc::EPHEMERAL_RUNNER_SETS, namespace, name)
            .await?
            .is_some()
        {
            out.push(name.clone());
            continue;
        }
        let Some(scale_set) = cluster::get_object(
            client,
            arc::KIND_AUTOSCALING_RUNNER_SET,
            arc::AUTOSCALING_RUNNER_SETS,
            namespace,
            name,
        )
        .await?
        else {
            out.push(name.clone());
            continue;
        };
        if sets.is_none() {
            sets = Some(
                cluster::list_objects(
                    client,
                    arc::KIND_EPHEMERAL_RUNNER_SET,
                    arc::EPHEMERAL_RUNNER_SETS,
                    Some(namespace),
                    None,
                )
                .await?,
            );
        }
        let sets = sets.as_deref().unwrap_or_default();
        let inputs: Vec<_> = sets.iter().map(input::Object::pairing_set).collect();
        let scale_set = pairing::ScaleSet {
            namespace,
            name,
            uid: scale_set.meta.uid.as_deref(),
        };
        match pairing::pair(scale_set, &inputs) {
            Some(p) => out.extend(
                std::iter::once(p.chosen)
                    .chain(p.replaced)
                    .map(|i| sets[i].name().to_string()),
            ),
            None => out.push(name.clone()),
        }
    }
    Ok(out)
}

/// `runnerScaleSetId` of a runner spec, when set.
fn runner_scale_set_id(runner_spec: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Id {
        #[serde(rename = "runnerScaleSetId")]
        id: Option<serde_json::Number>,
    }
    let Id { id } = serde_json::from_str(runner_spec).ok()?;
    id.filter(|n| n.as_i64().is_some_and(|n| n != 0))
        .map(|n| n.to_string())
}

/// `metadata.generation` ahead of `status.observedGeneration`, where the object has both.
fn unobserved(scale_set: &input::Object) -> Option<Unobserved> {
    #[derive(Deserialize)]
    struct Status {
        #[serde(rename = "observedGeneration")]
        observed: Option<i64>,
    }
    let observed = serde_json::from_str::<Status>(scale_set.status.as_ref()?.get())
        .ok()?
        .observed?;
    let generation = scale_set.meta.generation?;
    (generation > observed).then_some(Unobserved {
        generation,
        observed,
    })
}

/// The scale sets in scope, for [`attach_desired`]. A caller who may not list them still gets the
/// sets' own states.
async fn scale_sets(client: &kube::Client, plan: &Plan) -> Vec<input::Object> {
    cluster::list_objects(
        client,
        arc::KIND_AUTOSCALING_RUNNER_SET,
        arc::AUTOSCALING_RUNNER_SETS,
        plan.namespace.as_deref(),
        None,
    )
    .await
    .unwrap_or_default()
}

/// The clock, in Unix seconds (for AGE and "last written ... ago").
fn now() -> Option<i64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs() as i64)
}

fn missing_names(plan: &Plan, census: &Census) -> Vec<String> {
    let ns = plan.namespace.clone().unwrap_or_default();
    plan.names
        .iter()
        .filter(|n| !census.contains(&(ns.clone(), (*n).clone())))
        .map(|n| format!("EphemeralRunnerSet {ns}/{n} not found"))
        .collect()
}

/// Render the rows; report errors on stderr. Exit 2 if there were errors.
fn finish(
    args: &StatusArgs,
    opts: TableOptions,
    rows: Vec<SetStatus>,
    errors: Vec<String>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    // "No EphemeralRunnerSets found." is for an empty result, not for one whose errors say why.
    if !rows.is_empty() || errors.is_empty() {
        render(args, opts, rows, out, err)?;
    }
    for e in &errors {
        writeln!(err, "error: {e}")?;
    }
    Ok(if errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERROR
    })
}

fn render(
    args: &StatusArgs,
    opts: TableOptions,
    rows: Vec<SetStatus>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    // Thousands of rows: one buffered stream, not a write per line.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    match args.output {
        Output::Default | Output::Wide => {
            if rows.is_empty() {
                writeln!(err, "No EphemeralRunnerSets found.")?;
                return Ok(());
            }
            write_table(&rows, opts, &mut out)?;
            if !args.names.is_empty() && args.output == Output::Default {
                write_reasons(&rows, opts.color, &mut out)?;
            }
        }
        _ => {
            emit::structured(
                &StatusReport::new(rows),
                &args.output,
                RESOURCE,
                args.no_headers,
                &mut out,
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A list page: only its items, each kept as text.
#[derive(Deserialize)]
struct PageItems<'a> {
    #[serde(borrow, default)]
    items: Vec<&'a RawValue>,
}

/// What a listing produced.
struct Gathered {
    census: Census,
    /// The sets seen by this listing.
    seen: HashSet<SetKey>,
    /// Where watches can start.
    sets_version: String,
    runners_version: String,
}

/// The worker thread: sets first (their pages arrive on `sets`), then runners, into the census.
fn consume(
    mut census: Census,
    mut sets: mpsc::Receiver<String>,
    mut runners: mpsc::Receiver<String>,
) -> Result<(Census, HashSet<SetKey>)> {
    let mut seen = HashSet::new();
    while let Some(page) = sets.blocking_recv() {
        let page: PageItems =
            serde_json::from_str(&page).context("the server sent an invalid list page")?;
        for item in page.items {
            let facts = SetFacts::from_json(item.get())
                .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet in the list: {e}"))?;
            seen.insert(census.upsert_set(facts));
        }
    }
    while let Some(page) = runners.blocking_recv() {
        let page: PageItems =
            serde_json::from_str(&page).context("the server sent an invalid list page")?;
        for item in page.items {
            // A runner that is not an object cannot belong to any set: skip it.
            if let Ok(runner) = RunnerFacts::from_json(item.get()) {
                census.add_runner(&runner);
            }
        }
    }
    Ok((census, seen))
}

/// List the selected sets and then the runners in scope into `census`, page by page.
async fn gather(client: &kube::Client, plan: &Plan, census: Census) -> Result<Gathered> {
    gather_parts(client, plan, census, true, true).await
}

async fn gather_parts(
    client: &kube::Client,
    plan: &Plan,
    census: Census,
    list_sets: bool,
    list_runners: bool,
) -> Result<Gathered> {
    let (sets_tx, sets_rx) = mpsc::channel::<String>(1);
    let (runners_tx, runners_rx) = mpsc::channel::<String>(1);
    let worker = std::thread::Builder::new()
        .name("status-census".into())
        .spawn(move || consume(census, sets_rx, runners_rx))
        .context("cannot start a worker thread")?;
    let fetched: Result<(String, String)> = async {
        let mut sets_version = String::new();
        if list_sets {
            let ns = plan.namespace.clone();
            if plan.names.is_empty() {
                sets_version = list_pages(
                    client,
                    arc::EPHEMERAL_RUNNER_SETS,
                    &plan.set_scope(),
                    &sets_tx,
                )
                .await?;
            } else {
                for name in &plan.names {
                    let scope = Scope {
                        namespace: ns.clone(),
                        label_selector: plan.selector.clone(),
                        field_selector: Some(format!("metadata.name={name}")),
                    };
                    sets_version =
                        list_pages(client, arc::EPHEMERAL_RUNNER_SETS, &scope, &sets_tx).await?;
                }
            }
        }
        drop(sets_tx);
        let mut runners_version = String::new();
        if list_runners {
            runners_version = list_pages(
                client,
                arc::EPHEMERAL_RUNNERS,
                &plan.runner_scope(),
                &runners_tx,
            )
            .await?;
        }
        drop(runners_tx);
        Ok((sets_version, runners_version))
    }
    .await;
    let worked = worker
        .join()
        .map_err(|_| anyhow::anyhow!("the census worker thread panicked"))?;
    let (sets_version, runners_version) = fetched?;
    let (census, seen) = worked?;
    Ok(Gathered {
        census,
        seen,
        sets_version,
        runners_version,
    })
}

/// `--watch` and `--wait`: list, then keep the census current from two watches.
async fn live(
    client: &kube::Client,
    plan: &Plan,
    args: &StatusArgs,
    opts: TableOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let deadline = args.timeout.map(|t| tokio::time::Instant::now() + t);
    let gathered = gather(client, plan, Census::new(plan.layout, true)).await?;
    let mut census = gathered.census;
    attach_desired(&scale_sets(client, plan).await, &mut census);
    let missing = missing_names(plan, &census);
    if !missing.is_empty() {
        for e in &missing {
            writeln!(err, "error: {e}")?;
        }
        return Ok(EXIT_ERROR);
    }
    let mut shown = Shown::new(args, opts);
    if let Some(code) = shown.start(plan, census.statuses(now()), out, err)? {
        return Ok(code);
    }
    let mut sets_watch = Watcher::new(
        client.clone(),
        arc::EPHEMERAL_RUNNER_SETS,
        plan.set_scope(),
        gathered.sets_version,
    );
    let mut runners_watch = Watcher::new(
        client.clone(),
        arc::EPHEMERAL_RUNNERS,
        plan.runner_scope(),
        gathered.runners_version,
    );
    let mut dirty: HashSet<SetKey> = HashSet::new();
    let mut flush_at: Option<tokio::time::Instant> = None;
    let far = || tokio::time::Instant::now() + Duration::from_secs(86400 * 365);
    // Events are folded in as they come; rows are printed at most every 100 ms.
    let soon = || tokio::time::Instant::now() + Duration::from_millis(100);
    loop {
        let flush_deadline = flush_at.unwrap_or_else(far);
        let timeout_deadline = deadline.unwrap_or_else(far);
        tokio::select! {
            event = sets_watch.next() => {
                match event? {
                    Event::Applied(v) => {
                        let facts = SetFacts::from_json(&v.to_string())
                            .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet event: {e}"))?;
                        let key = (facts.namespace.clone(), facts.name.clone());
                        if plan.selects(&key) {
                            census.upsert_set(facts);
                            dirty.insert(key);
                        }
                    }
                    Event::Deleted(v) => {
                        if let Ok(facts) = SetFacts::from_json(&v.to_string()) {
                            let key = (facts.namespace, facts.name);
                            census.remove_set(&key);
                            shown.deleted(plan, &key, out)?;
                        }
                    }
                    Event::Relist => {
                        let g = gather_parts(client, plan, census, true, false).await?;
                        census = g.census;
                        let gone: Vec<SetKey> =
                            census.keys().filter(|k| !g.seen.contains(*k)).cloned().collect();
                        for k in gone {
                            census.remove_set(&k);
                            shown.rows.remove(&k);
                        }
                        dirty.extend(g.seen);
                        sets_watch.resume_from(g.sets_version);
                    }
                    Event::Reconnecting(why) => writeln!(err, "{why}")?,
                }
                flush_at.get_or_insert_with(soon);
            }
            event = runners_watch.next() => {
                match event? {
                    Event::Applied(v) => {
                        if let Ok(runner) = RunnerFacts::from_json(&v.to_string())
                            && let Some(key) = census.add_runner(&runner)
                        {
                            dirty.insert(key);
                        }
                    }
                    Event::Deleted(v) => {
                        let field = |f: &str| v.pointer(f).and_then(|s| s.as_str()).unwrap_or("");
                        if let Some(key) = census.remove_runner(field("/metadata/namespace"), field("/metadata/name")) {
                            dirty.insert(key);
                        }
                    }
                    Event::Relist => {
                        census.clear_runners();
                        let g = gather_parts(client, plan, census, false, true).await?;
                        census = g.census;
                        dirty.extend(census.keys().cloned().collect::<Vec<_>>());
                        runners_watch.resume_from(g.runners_version);
                    }
                    Event::Reconnecting(why) => writeln!(err, "{why}")?,
                }
                flush_at.get_or_insert_with(soon);
            }
            _ = tokio::time::sleep_until(flush_deadline), if flush_at.is_some() => {
                flush_at = None;
                if let Some(code) = shown.flush(&mut census, &mut dirty, out, err)? {
                    return Ok(code);
                }
            }
            _ = tokio::time::sleep_until(timeout_deadline), if deadline.is_some() => {
                return shown.timed_out(out, err);
            }
        }
    }
}

/// What `--watch` and `--wait` have shown, and how they print what changed.
struct Shown<'a> {
    args: &'a StatusArgs,
    opts: TableOptions,
    rows: HashMap<SetKey, SetStatus>,
    widths: Widths,
}

impl<'a> Shown<'a> {
    fn new(args: &'a StatusArgs, opts: TableOptions) -> Shown<'a> {
        Shown {
            args,
            opts,
            rows: HashMap::new(),
            widths: Widths::default(),
        }
    }

    fn sorted(&self) -> Vec<SetStatus> {
        let mut rows: Vec<SetStatus> = self.rows.values().cloned().collect();
        rows.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        rows
    }

    /// The first rows: a table (`--watch`), or progress lines and maybe the end already
    /// (`--wait`: everything settled, or something waiting cannot change).
    fn start(
        &mut self,
        plan: &Plan,
        rows: Vec<SetStatus>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<Option<u8>> {
        let args = self.args;
        if args.wait {
            if rows.is_empty() {
                bail!(
                    "no EphemeralRunnerSets match{}: nothing to wait for",
                    match &plan.namespace {
                        Some(ns) => format!(" in namespace {ns}"),
                        None => String::new(),
                    }
                );
            }
            for r in &rows {
                progress(r, err)?;
            }
        } else if rows.is_empty() && args.output.is_human() {
            writeln!(err, "No EphemeralRunnerSets found; watching.")?;
        } else {
            self.print(&rows, out)?;
        }
        for r in rows {
            self.rows.insert((r.namespace.clone(), r.name.clone()), r);
        }
        if args.wait {
            return self.verdict(out, err);
        }
        Ok(None)
    }

    /// Rows printed under the first ones, in the output's format.
    fn print(&mut self, rows: &[SetStatus], out: &mut dyn Write) -> Result<()> {
        match &self.args.output {
            Output::Default | Output::Wide => write_rows(rows, self.opts, &mut self.widths, out)?,
            Output::Json => rows.iter().try_for_each(|r| write_json_line(r, out))?,
            Output::Yaml => rows.iter().try_for_each(|r| write_yaml_document(r, out))?,
            // One line per row, as the other formats print an item.
            other => {
                for r in rows {
                    emit::structured(r, other, RESOURCE, true, out)?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    /// A set was deleted: `--watch` prints its row one last time as Deleted, as `kubectl get -w`
    /// prints a deleted object; `--wait` fails when it waited for that set by name.
    fn deleted(&mut self, plan: &Plan, key: &SetKey, out: &mut dyn Write) -> Result<()> {
        let last = self.rows.remove(key);
        if self.args.wait {
            if plan.names.contains(&key.1) {
                bail!(
                    "EphemeralRunnerSet {}/{} was deleted while waiting for it",
                    key.0,
                    key.1
                );
            }
            return Ok(());
        }
        if let Some(mut row) = last {
            row.state = State::Deleted;
            row.reasons = vec![StatusReason::Deleted];
            self.print(&[row], out)?;
        }
        Ok(())
    }

    /// Print what changed of the dirty sets (only what the output shows), and for `--wait` decide
    /// whether it is over.
    fn flush(
        &mut self,
        census: &mut Census,
        dirty: &mut HashSet<SetKey>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<Option<u8>> {
        let (args, opts) = (self.args, self.opts);
        let table = args.output.is_human();
        let mut changed = Vec::new();
        let mut keys: Vec<SetKey> = dirty.drain().collect();
        keys.sort();
        for key in keys {
            let Some(row) = census.status(&key, now()) else {
                continue;
            };
            let unchanged = self.rows.get(&key).is_some_and(|b| {
                if args.wait {
                    progress_line(b) == progress_line(&row)
                } else if table {
                    visible(b, opts) == visible(&row, opts)
                } else {
                    same_row(b, &row)
                }
            });
            if !unchanged {
                if args.wait {
                    progress(&row, err)?;
                } else {
                    changed.push(row.clone());
                }
            }
            self.rows.insert(key, row);
        }
        if args.wait {
            return self.verdict(out, err);
        }
        if !changed.is_empty() {
            self.print(&changed, out)?;
        }
        Ok(None)
    }

    /// `--wait`: over when every set has settled (exit 0), or when waiting cannot help (exit 1).
    fn verdict(&self, out: &mut dyn Write, err: &mut dyn Write) -> Result<Option<u8>> {
        let rows = self.sorted();
        if rows.iter().all(settled) {
            render(self.args, self.opts, rows, out, err)?;
            return Ok(Some(EXIT_OK));
        }
        if let Some(stuck) = cannot_progress(&rows) {
            render(self.args, self.opts, rows, out, err)?;
            writeln!(err, "error: {stuck}")?;
            return Ok(Some(EXIT_DRIFT));
        }
        Ok(None)
    }

    /// `--timeout` passed: the table, and the sets still waited for (a few named).
    fn timed_out(self, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
        let rows = self.sorted();
        let waiting: Vec<String> = rows
            .iter()
            .filter(|r| !settled(r))
            .map(|r| {
                format!(
                    "{}/{} is {}{}",
                    r.namespace,
                    r.name,
                    r.state,
                    r.reasons
                        .first()
                        .map(|x| format!(" ({x})"))
                        .unwrap_or_default()
                )
            })
            .collect();
        render(self.args, self.opts, rows, out, err)?;
        writeln!(
            err,
            "error: timed out after {} waiting for every EphemeralRunnerSet to be Synced: {}",
            format_duration(self.args.timeout.unwrap_or_default()),
            super::name_a_few(&waiting, 3)
        )?;
        Ok(EXIT_DRIFT)
    }
}

/// What `--wait` waits for: Synced, or a set being deleted (ARC replaced it; its successor is the
/// one that must settle).
fn settled(row: &SetStatus) -> bool {
    matches!(row.state, State::Synced | State::Deleting)
}

/// The sets whose state waiting cannot change (only a person can), said with their reasons: `--wait`
/// fails at once on them instead of waiting for its timeout (or forever).
fn cannot_progress(rows: &[SetStatus]) -> Option<String> {
    let stuck: Vec<String> = rows
        .iter()
        .filter(|r| {
            matches!(
                r.state,
                State::Outdated
                    | State::Invalid
                    | State::Legacy
                    | State::SpecHash
                    | State::RecycleLoop
            )
        })
        .map(|r| {
            format!(
                "{}/{} is {}{}",
                r.namespace,
                r.name,
                r.state,
                r.reasons
                    .first()
                    .map(|x| format!(" ({x})"))
                    .unwrap_or_default()
            )
        })
        .collect();
    (!stuck.is_empty()).then(|| format!("waiting cannot help: {}", super::name_a_few(&stuck, 3)))
}

/// Whether two rows print the same (AGE aside).
fn same_row(a: &SetStatus, b: &SetStatus) -> bool {
    a.spec_revision == b.spec_revision
        && a.applied_revision == b.applied_revision
        && a.state == b.state
        && a.runners == b.runners
        && a.reasons == b.reasons
        && a.phase == b.phase
}

/// A `--wait` progress line on stderr.
fn progress(row: &SetStatus, err: &mut dyn Write) -> Result<()> {
    writeln!(err, "{}", progress_line(row))?;
    Ok(())
}

/// The progress line of a set: printed again only when it changes.
fn progress_line(row: &SetStatus) -> String {
    let revisions = format!(
        "spec revision {}, applied {}",
        row.spec_revision
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into()),
        row.applied_revision
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into())
    );
    if row.state == State::Synced {
        format!(
            "EphemeralRunnerSet {}/{} is Synced ({revisions})",
            row.namespace, row.name
        )
    } else {
        format!(
            "Waiting for EphemeralRunnerSet {}/{}: {} ({revisions}){}",
            row.namespace,
            row.name,
            row.state,
            row.reasons
                .first()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        )
    }
}

fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s.fract() == 0.0 && (s as u64).is_multiple_of(60) {
        format!("{}m", s as u64 / 60)
    } else if s.fract() == 0.0 {
        format!("{}s", s as u64)
    } else {
        format!("{s:.1}s")
    }
}

/// `-f`: the census from a dump, read through the one input layer. Returns the rows and the
/// problems found (files that cannot be read, objects kubectl would refuse).
fn from_files(plan: &Plan, paths: &[PathBuf], kube: &KubeFlags) -> (Vec<SetStatus>, Vec<String>) {
    let inputs = input::read(paths, &mut std::io::stdin());
    let mut errors = inputs.errors;
    let mut objects = inputs.objects;
    let namespace = kube.namespace.clone().unwrap_or_else(|| {
        cluster::context_namespace(&kube.connect_options()).unwrap_or_else(|| "default".into())
    });
    input::resolve_namespaces(&mut objects, &namespace, kube.namespace.is_some());
    let mut census = Census::new(plan.layout, false);
    let mut runners = Vec::new();
    let mut scale_sets = Vec::new();
    for obj in objects {
        if obj.is_arc(arc::KIND_AUTOSCALING_RUNNER_SET) {
            scale_sets.push(obj);
            continue;
        }
        let set = obj.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET);
        if !set && !obj.is_arc(arc::KIND_EPHEMERAL_RUNNER) {
            continue;
        }
        if let Some(problem) = &obj.problem {
            errors.push(format!("{}: {problem}", obj.describe()));
            continue;
        }
        if set {
            match SetFacts::from_json(&obj.json()) {
                Ok(facts) => {
                    let selected = (plan.names.is_empty() || plan.names.contains(&facts.name))
                        && plan
                            .parsed_selector
                            .as_ref()
                            .is_none_or(|s| s.matches(&facts.labels));
                    if selected {
                        census.upsert_set(facts);
                    }
                }
                Err(e) => errors.push(format!("{}: {e}", obj.describe())),
            }
        } else {
            runners.push(obj.json());
        }
    }
    for text in &runners {
        if let Ok(r) = RunnerFacts::from_json(text) {
            census.add_runner(&r);
        }
    }
    attach_desired(&scale_sets, &mut census);
    for name in &plan.names {
        if !census.keys().any(|k| &k.1 == name) {
            errors.push(format!("EphemeralRunnerSet {name} not found in the files"));
        }
    }
    (census.statuses(now()), errors)
}
