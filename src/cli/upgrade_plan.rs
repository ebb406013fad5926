//! `kubectl arc upgrade-plan`: its arguments, checked into a plan, then
//! [`crate::ops::upgrade`], then a renderer. Read-only. Exit codes as `diff`: 0 nothing is lost,
//! 1 some scale set is replaced, deleted or its running work hit, 2 an error.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::args::{ContextsHelp, Fleet, Format, FormatHelp, KubeFlags, Scope, ScopeHelp};
use super::{Env, Shell};
use crate::ops::upgrade::Plan;
use crate::render::emit::{self, Output};

#[derive(Debug, Args)]
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
    #[command(flatten)]
    pub(crate) scope: Scope<Help>,
    /// Read the installation from a dump instead of the cluster (repeatable; - for stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) fleet: Fleet<Help>,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
}

/// The words of upgrade-plan's shared flags ([`super::args`]).
#[derive(Debug)]
pub(crate) struct Help;

impl ScopeHelp for Help {
    const ALL_NAMESPACES: &'static str = "Plan for the scale sets of every namespace";
    const SELECTOR: &'static str = "Only the scale sets matching this label selector";
}

impl ContextsHelp for Help {
    const CONTEXTS: &'static str = "Plan in these kubeconfig contexts, comma-separated: names, globs (* and ?), !PATTERN to leave some out (docs/fleet.md)";
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["all_contexts", "files"];
    const ALL_CONTEXTS: &'static str = "Plan in every context of the kubeconfig, in name order";
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["files"];
}

impl FormatHelp for Help {
    const OUTPUT: &'static str = "Output format: text (default), json, yaml";
    const DEFAULT: &'static [&'static str] = &["text"];
    const FORMATS: &'static [&'static str] = &["json", "yaml"];
}

/// Check the arguments, plan, write the plan; the exit code.
pub(crate) fn run(
    kube: &KubeFlags,
    args: UpgradePlanArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let plan = validate(kube, &args)?;
    if args.fleet.is_several() {
        let list = crate::ops::upgrade::run_fleet(&plan, &args.fleet.fleet())?;
        for c in &list.contexts {
            if let Some(e) = &c.error {
                shell.error(format_args!("context {}: {}", c.name, e.message))?;
            }
        }
        let code = list.outcome().code();
        shell.verdict(code);
        match &args.format.output {
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
    match &args.format.output {
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
    let to = super::args::arc_version_arg(&args.to)
        .map_err(|e| anyhow::anyhow!("{}", e.to_string().replacen("--arc-version", "--to", 1)))?;
    let scope = args
        .scope
        .checked(kube, "AutoscalingRunnerSet name", &args.names)?;
    let connect = kube.connect_options();
    let file_namespace = scope.file_namespace(&connect);
    let read = crate::ops::diff::Plan {
        layout: super::args::layout_arg("v0.36")?,
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
