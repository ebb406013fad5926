//! `kubectl arc repair`: its arguments, checked into a plan, then [`crate::ops::repair`], then a
//! renderer. Exit codes: 0 every repair done, would be done, or refused as unsafe; 2 a write
//! failed or an error.

use anyhow::Result;
use clap::Args;

use super::Shell;
use super::args::{Format, FormatHelp, KubeFlags, checked_scope};
use crate::core::go::params::DryRun;
use crate::ops::repair::Plan;
use crate::render::emit::{self, Output};

#[derive(Debug, Args)]
#[command(
    long_about = "Run the fixes ARC users run by hand, only where they are safe, each guarded so that \
no job is lost.\n\n\
RunnersFailed: EphemeralRunners in phase Failed hold places of their \
set's spec.replicas (ARC's scaleTotal() counts them) and ARC leaves them until their set is deleted. \
repair deletes each \
one that has no job (status.jobId, or status.jobRequestId from ARC 0.9 to 0.12.1's listener), whose \
Pod is gone or terminated, and that is not already being deleted; anything else is refused with the \
reason. Each delete carries the runner's uid and resourceVersion as read as preconditions: a runner \
that got a job after it was read makes the API server answer 409 and is refused, never deleted. It \
also says what a cleanup CronJob selecting runners with a past failure would have deleted besides.\n\n\
CountersDisagree: a set's status counts that are not those of its runners (ARC #4595) are written \
as ARC's updateStatus counts the runners listed, through the status subresource, at the \
resourceVersion read.\n\n\
The listener (ListenerHashStale, ListenerForOtherSet, ListenerVersionMismatch): the \
AutoscalingListener is deleted so that ARC makes it again, as ARC's own reconcile does, only where \
a controller Deployment with a ready replica reconciles the namespace and would make it again at \
once (not while --update-strategy=eventual waits for running jobs), and, for a version mismatch, \
only when the listener made again would run the chart's version. ListenerPodNotRunning: a listener \
Pod in CrashLoopBackOff is deleted so that a new one starts without the kubelet's back-off; an image \
that cannot be pulled, a config error or a Pod that cannot be scheduled is refused.\n\n\
FinalizersLeft, ScaleSetDeleting: ARC's finalizers of an object already being deleted are removed \
when no controller that would remove them runs, or what they wait for is gone; never from a runner \
with a job or a live Pod, nor from a set or scale set whose runners have one.\n\n\
Only where status gives the reason now. Every object written is annotated kubectl-arc/repair-id \
(--request-id) and kubectl-arc/repair-reason (the reason, and --reason); a delete is an annotation \
patch at the resourceVersion read, then a delete with the uid and the resourceVersion that answered.\n\n\
Reads what status reads, and the objects it names, from the cluster or from a dump (-f, with \
--dry-run=client: the same decisions, nothing sent); writes deletes of EphemeralRunners, \
AutoscalingListeners and listener Pods, patches of their metadata and of ephemeralrunnersets/status \
(none with --dry-run=client; the API server's dry run with --dry-run=server).\n\n\
Exit status: 0 every repair written, would be, or refused as unsafe; 2 a write failed or an error.",
    after_help = "Examples:\n  \
# Review the repairs of a dump before anyone touches the cluster\n  \
kubectl get ephemeralrunnersets,ephemeralrunners,pods -n arc-runners -o yaml > dump.yaml\n  \
kubectl arc repair -f dump.yaml --dry-run=client\n\n  \
# What would be repaired, checked by the API server, nothing written\n  \
kubectl arc repair -A --dry-run=server\n\n  \
# Repair one scale set's sets\n  kubectl arc repair -n arc-runners arc-runner-set"
)]
pub(crate) struct RepairArgs {
    /// Scale sets (actions.github.com/scale-set-name) or EphemeralRunnerSets (default: every one in scope).
    pub(crate) names: Vec<String>,
    /// Repair in every namespace.
    #[arg(short = 'A', long)]
    pub(crate) all_namespaces: bool,
    /// Decide without writing (client), or let the API server check each write and persist nothing (server).
    #[arg(long, value_name = "MODE", value_parser = super::args::dry_run_parser(), default_value = "none", num_args = 0..=1,
          default_missing_value = "client")]
    pub(crate) dry_run: DryRun,
    /// Decide from a dump instead of the cluster (with --dry-run=client; repeatable; - for stdin).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<std::path::PathBuf>,
    /// Why: written after the status reason in annotation kubectl-arc/repair-reason.
    #[arg(long, value_name = "TEXT")]
    pub(crate) reason: Option<String>,
    /// The request id written in annotation kubectl-arc/repair-id on every object written (default: a new one).
    #[arg(long, value_name = "ID", value_parser = super::bump::parse_request_id)]
    pub(crate) request_id: Option<String>,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
}

/// The words of repair's `-o` ([`super::args`]); its `-A` stands alone (no `-l`).
#[derive(Debug)]
pub(crate) struct Help;

impl FormatHelp for Help {
    const OUTPUT: &'static str = "Output format: text (default), json, yaml";
    const DEFAULT: &'static [&'static str] = &["text"];
    const FORMATS: &'static [&'static str] = &["json", "yaml"];
}

pub(crate) fn run(
    kube: &KubeFlags,
    args: RepairArgs,
    env: &mut super::Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let scope = checked_scope(kube, args.all_namespaces, "name", &args.names, None)?;
    if !args.files.is_empty() && args.dry_run != DryRun::Client {
        anyhow::bail!(
            "-f decides from a dump: add --dry-run=client (a dump cannot be written back)"
        );
    }
    let connect = kube.connect_options();
    let plan = Plan {
        file_namespace: scope.file_namespace(&connect),
        scope,
        connect,
        dry_run: args.dry_run,
        files: args.files.clone(),
        request_id: crate::ops::request_id(args.request_id.as_deref(), env.seed),
        reason: args.reason.clone(),
    };
    let report = crate::ops::repair::run(&plan, &mut env.stdin)?;
    let code = report.outcome().code();
    shell.verdict(code);
    match &args.format.output {
        Output::Default => crate::render::repair::write_text(&report, shell.out())?,
        other => {
            emit::structured(
                &report,
                other,
                "ephemeralrunner.actions.github.com",
                false,
                shell.out(),
            )?;
        }
    }
    Ok(code)
}
