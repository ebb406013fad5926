//! `kubectl arc diff`: arguments → a plan of scale-set pairs → drift per pair → a renderer.
//!
//! Reads AutoscalingRunnerSets and EphemeralRunnerSets from files (`-f`) and/or the cluster; writes
//! nothing anywhere. Exit codes as `kubectl diff`: 0 no semantic drift, 1 semantic drift, 2 error
//! (other scale sets are still reported).

use std::collections::BTreeMap;
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use clap::{Args, ValueEnum};

use super::{ColorChoice, EXIT_DRIFT, EXIT_ERROR, EXIT_OK, KubeFlags, Terminal};
use crate::cluster::{self, RawObject};
use crate::core::arc;
use crate::core::drift::drift;
use crate::core::layout::Layout;
use crate::core::recycle_loop::round_trip_of_autoscaling_runner_set;
use crate::core::revision::RevisionError;
use crate::core::selector::Selector;
use crate::manifest::{self, ManifestObject};
use crate::render::diff::{DiffReport, ScaleSetDiff, TextOptions, write_text};

#[derive(Debug, Args)]
#[command(
    long_about = "Show the drift between each AutoscalingRunnerSet's desired runner spec and its \
EphemeralRunnerSet's spec.ephemeralRunnerSpec, exactly as ARC's controller computes it.\n\n\
Semantic drift (Go's apiequality.Semantic.DeepEqual says the specs differ) makes ARC bump \
spec.actionableRevision and recycle idle and pending runners. Strict-only differences (an empty list \
versus none, 1 versus 1000m) are what a strict comparison would also have acted on; ARC does not.\n\n\
Reads AutoscalingRunnerSets and EphemeralRunnerSets from the cluster or from files (-f); writes nothing. \
With files that hold both kinds (a `kubectl get -o yaml` dump) no cluster is contacted.\n\n\
Exit status: 0 no semantic drift, 1 semantic drift, 2 an error (other scale sets are still reported).",
    after_help = "Examples:\n  \
# Drift of every scale set in the current namespace\n  kubectl arc diff\n\n  \
# Would applying this Helm output make ARC recycle my idle runners?\n  \
helm template arc-runners actions-runner-controller/gha-runner-scale-set -f values.yaml | kubectl arc diff -f -\n\n  \
# Offline, from a dump of both kinds\n  kubectl get autoscalingrunnersets,ephemeralrunnersets -A -o yaml > dump.yaml\n  kubectl arc diff -f dump.yaml\n\n  \
# Machine-readable, across all namespaces\n  kubectl arc diff -A -o json"
)]
pub struct DiffArgs {
    /// AutoscalingRunnerSet names (default: every one in scope).
    pub names: Vec<String>,
    /// Every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector (e.g. app=runners,tier!=gpu).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Manifest file, directory or - for stdin (repeatable): AutoscalingRunnerSets and, optionally,
    /// their EphemeralRunnerSets. Multi-document YAML, JSON and List kinds.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = DiffOutput::Text)]
    pub output: DiffOutput,
    /// Lines of context around each change in the text diff.
    #[arg(short = 'U', long = "unified", value_name = "N", default_value_t = 3)]
    pub unified: usize,
    /// When to colour the text output (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The k8s.io/api layout of the ARC controller's build (v0.35, v0.36 or v0.37).
    #[arg(long, value_name = "VERSION", default_value = "v0.36")]
    pub layout: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffOutput {
    Text,
    Json,
    Yaml,
    /// GitHub Actions workflow commands: pull-request annotations.
    Github,
}

/// The ARS side of a pair.
struct ArsSide {
    from: String,
    scale_set_id: Option<String>,
    spec_json: Option<String>,
}

/// The ERS side of a pair.
struct ErsSide {
    from: String,
    runner_spec_json: Option<String>,
}

/// One scale set to compare, by namespace and name.
#[derive(Default)]
struct Pair {
    ars: Option<ArsSide>,
    ers: Option<ErsSide>,
    /// A problem found while gathering (unknown kind, unreadable object).
    error: Option<String>,
}

type Plan = BTreeMap<(String, String), Pair>;

pub fn run(
    kube: &KubeFlags,
    args: DiffArgs,
    term: Terminal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let layout = super::layout_arg(&args.layout)?;
    let selector = super::checked_scope(
        kube,
        args.all_namespaces,
        "AutoscalingRunnerSet name",
        &args.names,
        args.selector.as_deref(),
    )?;

    let mut plan = Plan::new();
    let mut gather_errors = Vec::new();
    if !args.files.is_empty() {
        let objects = read_files(&args.files, &mut gather_errors)?;
        let default_ns = kube.namespace.clone().unwrap_or_else(|| "default".into());
        plan_from_files(
            objects,
            &default_ns,
            &args.names,
            selector.as_ref(),
            &mut plan,
        );
    }
    if !args.files.is_empty() && plan.is_empty() && gather_errors.is_empty() {
        bail!(
            "no AutoscalingRunnerSet or EphemeralRunnerSet (actions.github.com/v1alpha1) in {}",
            args.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let needs_cluster = args.files.is_empty()
        || plan
            .values()
            .any(|p| p.error.is_none() && (p.ars.is_none() || p.ers.is_none()));
    if needs_cluster {
        let rt = super::runtime()?;
        rt.block_on(complete_from_cluster(kube, &args, &mut plan))?;
    }
    for e in &gather_errors {
        writeln!(err, "error: {e}")?;
    }

    let items: Vec<ScaleSetDiff> = plan
        .into_iter()
        .map(|((ns, name), pair)| compare_pair(layout, ns, name, pair))
        .collect();
    if items.is_empty() && gather_errors.is_empty() {
        writeln!(err, "No AutoscalingRunnerSets found.")?;
    }
    let report = DiffReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "DiffReport",
        layout: layout.k8s_api.clone(),
        items,
    };
    match args.output {
        DiffOutput::Text => write_text(
            &report,
            TextOptions {
                context: args.unified,
                color: term.color(args.color),
            },
            out,
        )?,
        DiffOutput::Json => {
            serde_json::to_writer_pretty(&mut *out, &report)?;
            writeln!(out)?;
        }
        DiffOutput::Yaml => write!(out, "{}", serde_saphyr::to_string(&report)?)?,
        DiffOutput::Github => crate::render::github::write_diff(&report, out)?,
    }
    let failed = !gather_errors.is_empty() || report.items.iter().any(|i| i.error.is_some());
    Ok(if failed {
        EXIT_ERROR
    } else if report.items.iter().any(|i| i.semantic_drift == Some(true)) {
        EXIT_DRIFT
    } else {
        EXIT_OK
    })
}

/// Read every file, directory (its .yaml, .yml and .json files, sorted) or stdin (`-`).
/// Unreadable files are recorded and the rest still read.
fn read_files(paths: &[PathBuf], errors: &mut Vec<String>) -> Result<Vec<ManifestObject>> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read standard input")?;
            parse_into(&text, "<stdin>", &mut out, errors);
            continue;
        }
        let files = if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read directory {}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("yaml" | "yml" | "json")
                    )
                })
                .collect();
            entries.sort();
            entries
        } else {
            vec![path.clone()]
        };
        for file in files {
            match read_text(&file) {
                Ok(text) => parse_into(&text, &file.display().to_string(), &mut out, errors),
                Err(e) => errors.push(format!("{e:#}")),
            }
        }
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text (invalid byte at offset {}): is this a manifest?",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

fn parse_into(text: &str, source: &str, out: &mut Vec<ManifestObject>, errors: &mut Vec<String>) {
    match manifest::parse(text, source) {
        Ok(objs) => out.extend(objs),
        Err(e) => errors.push(e.to_string()),
    }
}

fn plan_from_files(
    objects: Vec<ManifestObject>,
    default_ns: &str,
    names: &[String],
    selector: Option<&Selector>,
    plan: &mut Plan,
) {
    for obj in objects {
        let group = obj.api_version().split('/').next().unwrap_or("");
        if group != arc::GROUP {
            continue; // helm template output holds ConfigMaps, Roles and more: not ours.
        }
        let Some(name) = obj.name().map(str::to_string) else {
            let pair = plan
                .entry((
                    default_ns.to_string(),
                    format!("<unnamed in {}>", obj.source),
                ))
                .or_default();
            pair.error = Some(format!(
                "{}: {} has no metadata.name",
                obj.source,
                obj.kind()
            ));
            continue;
        };
        if !names.is_empty() && !names.contains(&name) {
            continue;
        }
        let ns = obj.namespace().unwrap_or(default_ns).to_string();
        let labels = labels_of(&obj.value);
        if selector.is_some_and(|s| !s.matches(&labels)) {
            continue;
        }
        let key = (ns.clone(), name.clone());
        if let Some(problem) = &obj.problem
            && matches!(obj.kind(), "AutoscalingRunnerSet" | "EphemeralRunnerSet")
        {
            plan.entry(key).or_default().error = Some(format!("{}: {problem}", obj.source));
            continue;
        }
        match obj.kind() {
            "AutoscalingRunnerSet" if obj.api_version() == arc::API_VERSION => {
                let Some(spec) = obj.value.get("spec").filter(|s| !s.is_null()) else {
                    plan.entry(key).or_default().error = Some(format!(
                        "AutoscalingRunnerSet {ns}/{name} ({}): {SPEC_MISSING_ARS}",
                        obj.source
                    ));
                    continue;
                };
                let spec = Some(manifest::go_json(spec));
                let id = obj
                    .value
                    .pointer("/metadata/annotations")
                    .and_then(|a| a.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
                plan.entry(key).or_default().ars = Some(ArsSide {
                    from: format!("AutoscalingRunnerSet {ns}/{name} ({})", obj.source),
                    scale_set_id: id,
                    spec_json: spec,
                });
            }
            "EphemeralRunnerSet" if obj.api_version() == arc::API_VERSION => {
                if obj.value.get("spec").is_none_or(|s| s.is_null()) {
                    plan.entry(key).or_default().error = Some(format!(
                        "EphemeralRunnerSet {ns}/{name} ({}): {}",
                        obj.source,
                        RevisionError::MissingSpec
                    ));
                    continue;
                }
                let spec = obj
                    .value
                    .pointer("/spec/ephemeralRunnerSpec")
                    .map(manifest::go_json);
                plan.entry(key).or_default().ers = Some(ErsSide {
                    from: format!("EphemeralRunnerSet {ns}/{name} ({})", obj.source),
                    runner_spec_json: spec,
                });
            }
            "EphemeralRunner" | "AutoscalingListener" => {}
            "AutoscalingRunnerSet" | "EphemeralRunnerSet" => {
                plan.entry(key).or_default().error = Some(format!(
                    "{}: {} {ns}/{name}: apiVersion {:?} is not served by ARC (use {})",
                    obj.source,
                    obj.kind(),
                    obj.api_version(),
                    arc::API_VERSION
                ));
            }
            other => {
                plan.entry(key).or_default().error = Some(format!(
                    "{}: {ns}/{name}: unknown kind {other:?} in {} (expected AutoscalingRunnerSet or EphemeralRunnerSet)",
                    obj.source,
                    obj.api_version(),
                ));
            }
        }
    }
}

fn labels_of(v: &serde_json::Value) -> BTreeMap<String, String> {
    v.pointer("/metadata/labels")
        .and_then(|l| l.as_object())
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// An AutoscalingRunnerSet without `spec` (or with `spec: null`) has no runner template: Go would
/// decode it as the zero spec, but no real scale set looks like that, so it is reported instead.
const SPEC_MISSING_ARS: &str = "spec is missing: an AutoscalingRunnerSet without one has no runner template to compare (is this the whole object?)";

fn ars_side(o: &RawObject, ns: &str, name: &str) -> Result<ArsSide, String> {
    if o.spec.as_ref().is_none_or(|s| s.get() == "null") {
        return Err(format!(
            "AutoscalingRunnerSet {ns}/{name}: {SPEC_MISSING_ARS}"
        ));
    }
    Ok(ArsSide {
        from: format!("AutoscalingRunnerSet {ns}/{name}"),
        scale_set_id: o
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
            .cloned(),
        spec_json: o.spec.as_ref().map(|s| s.get().to_string()),
    })
}

fn ers_side(o: &RawObject, ns: &str, name: &str) -> Result<ErsSide, String> {
    #[derive(serde::Deserialize)]
    struct Spec<'a> {
        #[serde(rename = "ephemeralRunnerSpec", borrow, default)]
        runner_spec: Option<&'a serde_json::value::RawValue>,
    }
    let runner_spec_json = match &o.spec {
        None => {
            return Err(format!(
                "EphemeralRunnerSet {ns}/{name}: {}",
                RevisionError::MissingSpec
            ));
        }
        Some(raw) => serde_json::from_str::<Spec>(raw.get())
            .map_err(|e| format!("EphemeralRunnerSet {ns}/{name}: spec is not an object: {e}"))?
            .runner_spec
            .map(|r| r.get().to_string()),
    };
    Ok(ErsSide {
        from: format!("EphemeralRunnerSet {ns}/{name}"),
        runner_spec_json,
    })
}

/// Fill the plan from the cluster: list the ARSs in scope (when no files were given), and fetch
/// each missing side by namespace and name.
async fn complete_from_cluster(kube: &KubeFlags, args: &DiffArgs, plan: &mut Plan) -> Result<()> {
    let conn = cluster::connect(&kube.connect_options()).await?;
    let client = &conn.client;
    let namespace = kube
        .namespace
        .clone()
        .unwrap_or(conn.default_namespace.clone());
    if args.files.is_empty() {
        if args.names.is_empty() {
            let scope = (!args.all_namespaces).then_some(namespace.as_str());
            let mut found = Vec::new();
            cluster::list_each(
                client,
                arc::AUTOSCALING_RUNNER_SETS,
                scope,
                args.selector.as_deref(),
                |o| {
                    found.push(o);
                    Ok(())
                },
            )
            .await?;
            if found.is_empty()
                && let Some(ns) = scope
            {
                cluster::check_namespace(client, ns).await?;
            }
            for o in found {
                let ns = o.metadata.namespace.clone().unwrap_or_default();
                let name = o.metadata.name.clone().unwrap_or_default();
                let pair = plan.entry((ns.clone(), name.clone())).or_default();
                match ars_side(&o, &ns, &name) {
                    Ok(side) => pair.ars = Some(side),
                    Err(e) => pair.error = Some(e),
                }
            }
        } else {
            for name in &args.names {
                let pair = plan.entry((namespace.clone(), name.clone())).or_default();
                match cluster::get(client, arc::AUTOSCALING_RUNNER_SETS, &namespace, name).await? {
                    Some(o) => match ars_side(&o, &namespace, name) {
                        Ok(side) => pair.ars = Some(side),
                        Err(e) => pair.error = Some(e),
                    },
                    None => {
                        cluster::check_namespace(client, &namespace).await?;
                        pair.error =
                            Some(format!("AutoscalingRunnerSet {namespace}/{name} not found"))
                    }
                }
            }
        }
    }
    for ((ns, name), pair) in plan.iter_mut() {
        if pair.error.is_some() {
            continue;
        }
        if pair.ers.is_none() {
            match cluster::get(client, arc::EPHEMERAL_RUNNER_SETS, ns, name).await? {
                Some(o) => match ers_side(&o, ns, name) {
                    Ok(side) => pair.ers = Some(side),
                    Err(e) => pair.error = Some(e),
                },
                None => {
                    pair.error = Some(format!(
                        "EphemeralRunnerSet {ns}/{name} not found: ARC has not created it yet (is the controller running, and has the listener registered the scale set?)"
                    ))
                }
            }
        }
        if pair.ars.is_none() && pair.error.is_none() {
            match cluster::get(client, arc::AUTOSCALING_RUNNER_SETS, ns, name).await? {
                Some(o) => match ars_side(&o, ns, name) {
                    Ok(side) => pair.ars = Some(side),
                    Err(e) => pair.error = Some(e),
                },
                None => {
                    pair.error = Some(format!(
                        "AutoscalingRunnerSet {ns}/{name} not found: the EphemeralRunnerSet has no desired spec to compare with"
                    ))
                }
            }
        }
    }
    Ok(())
}

fn compare_pair(layout: &Layout, namespace: String, name: String, pair: Pair) -> ScaleSetDiff {
    let desired_from = pair
        .ars
        .as_ref()
        .map(|a| a.from.clone())
        .unwrap_or_default();
    let current_from = pair
        .ers
        .as_ref()
        .map(|e| e.from.clone())
        .unwrap_or_default();
    // A property of the template: checked whenever there is one, even when the drift is not.
    let recycle_loop = pair.ars.as_ref().and_then(|a| {
        let spec = a.spec_json.as_deref()?;
        Some(round_trip_of_autoscaling_runner_set(
            layout,
            spec,
            a.scale_set_id.as_deref(),
        ))
    });
    let (ars, ers) = match (pair.error, pair.ars, pair.ers) {
        (None, Some(ars), Some(ers)) => (ars, ers),
        (error, ars, _) => {
            let error = error.unwrap_or_else(|| match ars {
                None => format!("AutoscalingRunnerSet {namespace}/{name} not found"),
                Some(_) => format!("EphemeralRunnerSet {namespace}/{name} not found"),
            });
            return ScaleSetDiff::failed(namespace, name, desired_from, current_from, error)
                .with_legacy_recycle_loop(recycle_loop);
        }
    };
    let spec = ars.spec_json.unwrap_or_else(|| "{}".into());
    let result = drift(
        layout,
        &spec,
        ars.scale_set_id.as_deref(),
        ers.runner_spec_json.as_deref(),
    );
    ScaleSetDiff::from_drift(layout, namespace, name, desired_from, current_from, result)
        .with_legacy_recycle_loop(recycle_loop)
}
