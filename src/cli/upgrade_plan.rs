//! `kubectl arc upgrade-plan`: its arguments, checked into a plan, then
//! [`crate::ops::upgrade`], then a renderer. Read-only. Exit codes as `diff`: 0 nothing is lost,
//! 1 some scale set is replaced, deleted or its running work hit, 2 an error.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Env, KubeFlags, Shell};
use crate::ops::upgrade::Plan;
use crate::render::emit::{self, Output};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("fleet").args(["contexts", "all_contexts"])))]
#[command(
    long_about = "Plan an upgrade of ARC to the release --to: every step in the order that loses no \
scale set, and what the new controller does to each scale set.\n\n\
An ARC upgrade has three parts Helm does not order: ARC's CRDs (Helm never upgrades them), the \
controller chart, and one gha-runner-scale-set chart per scale set, which sets the \
AutoscalingRunnerSet's app.kubernetes.io/version label. Every release's controller deletes a scale \
set whose label its version check does not allow (0.9.0 to 0.11.0: the label must be its own \
version exactly; 0.12.0 on: the same major.minor), with its sets, its runners and its scale-set \
registration. So the plan picks the order: the controller first when the new release allows every \
label as it is; the charts first when the running release allows the new label; else the controller \
stopped while the charts relabel the scale sets.\n\n\
For each scale set: kept, replaced (the new release's RunnerSetSpecHash() of the unchanged \
AutoscalingRunnerSet differs from its set's runner-spec-hash, or a change already pending), its \
listener made again, or deleted, with the runners and jobs it hits (as `diff` forecasts them) and \
what each wrong order would do. Then the fields the new release writes that the installed CRDs \
would prune.\n\n\
Reads the controller Deployment (its release and arguments), ARC's four CRDs, every \
AutoscalingRunnerSet in scope with its EphemeralRunnerSets, EphemeralRunners and listener, from the \
cluster or from a dump (-f); writes nothing. Without a controller Deployment the running release \
is taken from the scale sets' labels, and the plan says so.\n\n\
--to next plans the upgrade to ARC's master after 0.14.2: it gets the EphemeralRunnerSet named like \
its AutoscalingRunnerSet, so a 0.14 set (<name>-xxxxx) is left running beside a new one, and a last \
step deletes it once its jobs are done.\n\n\
Exit status: 0 nothing is lost, 1 some scale set is replaced, deleted or has its listener made \
again or its set left behind, 2 an error.",
    after_help = "Examples:\n  \
# The plan for every scale set of the cluster\n  kubectl arc upgrade-plan --to 0.14.2 -A\n\n  \
# From a dump, offline\n  \
kubectl get deployments,autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners -A -o yaml > dump.yaml\n  \
kubectl get crd -o yaml > crds.yaml  # the dump keeps only ARC's four\n  \
kubectl arc upgrade-plan --to 0.14.2 -f dump.yaml -f crds.yaml\n\n  \
# The steps only, for a runbook\n  kubectl arc upgrade-plan --to 0.14.2 -A -o json | jq -r '.steps[].commands[]'"
)]
pub(crate) struct UpgradePlanArgs {
    /// AutoscalingRunnerSet names (default: every one in scope).
    pub(crate) names: Vec<String>,
    /// The ARC release to upgrade to (0.9.0 to 0.14.2), or next (ARC's master after 0.14.2).
    #[arg(long, value_name = "RELEASE", required = true)]
    pub(crate) to: String,
    /// Plan for the scale sets of every namespace.
    #[arg(short = 'A', long)]
    pub(crate) all_namespaces: bool,
    /// Only the scale sets matching this label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub(crate) selector: Option<String>,
    /// Read the installation from a dump instead of the cluster (repeatable; - for stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Plan in these kubeconfig contexts, comma-separated: names, globs (* and ?), !PATTERN to
    /// leave some out (docs/fleet.md).
    #[arg(long, value_name = "PATTERN", value_delimiter = ',', conflicts_with_all = ["all_contexts", "files"])]
    pub(crate) contexts: Vec<String>,
    /// Plan in every context of the kubeconfig, in name order.
    #[arg(long, conflicts_with = "files")]
    pub(crate) all_contexts: bool,
    /// With --contexts or --all-contexts: read at most N contexts at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..), requires = "fleet")]
    pub(crate) parallel: u16,
    /// Not a flag: the contexts `--contexts`/`--all-contexts` selected, when more than one.
    #[arg(skip)]
    pub(crate) selected: Vec<String>,
    /// Output format: text (default), json, yaml.
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "text", value_parser = emit::OutputParser { formats: &["json", "yaml"], defaults: &["text"] })]
    pub(crate) output: Output,
}

/// `--contexts`/`--all-contexts` resolved against the kubeconfig: one context selected is
/// `--context NAME`, several are kept for the fleet run.
pub(crate) fn resolve_contexts(kube: &mut KubeFlags, args: &mut UpgradePlanArgs) -> Result<()> {
    super::resolve_selection(
        kube,
        &mut args.contexts,
        &mut args.all_contexts,
        &mut args.selected,
    )
}

/// Check the arguments, plan, write the plan; the exit code.
pub(crate) fn run(
    kube: &KubeFlags,
    args: UpgradePlanArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let plan = validate(kube, &args)?;
    if args.selected.len() > 1 {
        let fleet = crate::ops::fleet::Fleet {
            contexts: args.selected.clone(),
            parallel: usize::from(args.parallel),
        };
        let list = crate::ops::upgrade::run_fleet(&plan, &fleet)?;
        for c in &list.contexts {
            if let Some(e) = &c.error {
                shell.error(format_args!("context {}: {}", c.name, e.message))?;
            }
        }
        let code = list.outcome().code();
        shell.verdict(code);
        match &args.output {
            Output::Default => crate::render::upgrade::write_fleet_text(&list, false, shell.out())?,
            other => {
                emit::structured(
                    &list,
                    other,
                    "autoscalingrunnerset.actions.github.com",
                    false,
                    shell.out(),
                )?;
            }
        }
        return Ok(code);
    }
    let report = crate::ops::upgrade::run(&plan, &mut env.stdin)?;
    for e in &report.errors {
        shell.error(e)?;
    }
    let code = report.outcome().code();
    shell.verdict(code);
    match &args.output {
        Output::Default => crate::render::upgrade::write_text(&report, shell.out())?,
        other => {
            emit::structured(
                &report,
                other,
                "autoscalingrunnerset.actions.github.com",
                false,
                shell.out(),
            )?;
        }
    }
    Ok(code)
}

/// Everything checked before anything is read: the release, the scope, the files.
fn validate(kube: &KubeFlags, args: &UpgradePlanArgs) -> Result<Plan> {
    let to = super::arc_version_arg(&args.to)
        .map_err(|e| anyhow::anyhow!("{}", e.to_string().replacen("--arc-version", "--to", 1)))?;
    let scope = super::checked_scope(
        kube,
        args.all_namespaces,
        "AutoscalingRunnerSet name",
        &args.names,
        args.selector.as_deref(),
    )?;
    let connect = kube.connect_options();
    let file_namespace = scope.file_namespace(&connect);
    let read = crate::ops::diff::Plan {
        layout: super::layout_arg("v0.36")?,
        scope,
        file_namespace,
        files: Vec::new(),
        live: args.files.clone(),
        local: !args.files.is_empty(),
        arc_version: None,
        allow_empty_live: false,
        arc_release: None,
        connect,
        keep_specs: false,
        fail_on: crate::ops::diff::FailOn::Recycle,
    };
    Ok(Plan { to, read })
}
