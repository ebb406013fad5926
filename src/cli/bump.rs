//! `kubectl arc bump`: its arguments, what is checked of them before anything is read or
//! contacted (the [`BumpPlan`]), and one call to [`crate::ops::bump`]; then the report (table or
//! [`emit::structured`]), an error line per refused or failed set, the notes, the hint to finish
//! an interrupted request, and the exit code the report stands for ([`BumpReport::outcome`]).

use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use super::args::{
    Contexts, ContextsHelp, Format, FormatHelp, KubeFlags, SelectedContexts, checked_scope,
    parse_duration,
};
use super::{ColorChoice, Env, Shell};
use crate::core::go::params::DryRun;
use crate::ops::Throttle;
use crate::ops::bump::{BumpPlan, bump};
use crate::ops::rollout::{RolloutPlan, roll};
use crate::render::bump::write_bump_table;
use crate::render::emit;
use crate::render::rollout::write_rollout_table;
use crate::report::bump::{BumpReport, WaitTimeout};

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
Sets of ARC 0.9 to 0.14 (actions.github.com/runner-spec-hash) have no revision: bump writes \
kubectl-arc/restarted-at (an RFC 3339 time), and --reason in kubectl-arc/bump-reason, into their \
AutoscalingRunnerSet's spec.template.metadata.annotations with the same guard, as `kubectl rollout restart` does, which \
makes ARC replace the set (idle and pending runners at once, busy ones after their job). Helm or a \
GitOps tool takes the annotation out again on its next sync: another replacement.\n\n\
Exit status: 0; 1 when --wait times out; 2 on errors and refusals (the other sets are still bumped).",
    after_help = "Examples:\n  \
# Recycle the idle runners of one scale set\n  kubectl arc bump -n arc-runners arc-runner-set --reason \"new node pool\"\n\n  \
# Every scale set with a label, across namespaces, and wait for ARC to acknowledge\n  \
kubectl arc bump -A -l team=platform --wait --timeout 10m\n\n  \
# What would be written, validated by the API server\n  kubectl arc bump -n arc-runners --all --dry-run=server -o yaml\n\n  \
# A canary cluster first, then the others one by one, each acknowledged before the next\n  \
kubectl arc bump -A --all --contexts staging,'prod-*' --wait --timeout 10m"
)]
pub(crate) struct BumpArgs {
    /// EphemeralRunnerSet (or AutoscalingRunnerSet) names.
    #[arg(conflicts_with_all = ["all", "selector"])]
    pub(crate) names: Vec<String>,
    /// Every EphemeralRunnerSet in the namespace (or, with -A, the cluster).
    #[arg(long, conflicts_with = "selector")]
    pub(crate) all: bool,
    /// EphemeralRunnerSets matching this label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub(crate) selector: Option<String>,
    /// Every namespace (with --all or -l).
    #[arg(short = 'A', long)]
    pub(crate) all_namespaces: bool,
    /// Why: recorded in annotation kubectl-arc/bump-reason.
    #[arg(long, value_name = "TEXT")]
    pub(crate) reason: Option<String>,
    /// none: write; client: decide and report only; server: the API server validates and persists
    /// nothing. kubectl's rule: `--dry-run` alone is `--dry-run=client`, and a value needs `=`.
    #[arg(long, value_name = "MODE", value_parser = super::args::dry_run_parser(), default_value = "none", num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub(crate) dry_run: DryRun,
    /// Wait until ARC acknowledges: status.appliedActionableRevision >= the new revision.
    #[arg(long)]
    pub(crate) wait: bool,
    /// With --wait: give up after this long (exit 1), e.g. 30s, 10m. Default: wait forever.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "wait")]
    pub(crate) timeout: Option<Duration>,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
    /// Tables without their header line.
    #[arg(long)]
    pub(crate) no_headers: bool,
    /// When to colour the table (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    /// Finish an interrupted request: reuse the request id an earlier run printed, and sets that
    /// run already bumped are not bumped again (each set records the ids of its recent bumps).
    #[arg(long, value_name = "ID", value_parser = parse_request_id)]
    pub(crate) request_id: Option<String>,
    /// Client-side sets written per second (0: unlimited), so `--all -A` on a large cluster does
    /// not flood the API server.
    #[arg(long, default_value_t = 50.0, value_parser = super::args::parse_qps)]
    pub(crate) qps: f64,
    /// Client-side burst.
    #[arg(long, default_value_t = 100)]
    pub(crate) burst: u32,
    #[command(flatten)]
    pub(crate) contexts: Contexts<Help>,
}

/// The words of bump's shared flags ([`super::args`]). Its `-l` comes before `-A` in its help and
/// `-l` conflicts with names and `--all`, so it declares both itself.
#[derive(Debug)]
pub(crate) struct Help;

impl FormatHelp for Help {
    const OUTPUT: &'static str = "Output format";
    const DEFAULT: &'static [&'static str] = &["table"];
    const FORMATS: &'static [&'static str] = emit::TABLE_FORMATS;
}

impl ContextsHelp for Help {
    const CONTEXTS: &'static str = "Bump in these kubeconfig contexts one after the other, in the order given (the first is the canary), comma-separated: names, globs (* and ?), !PATTERN to leave some out. Every context is dry-run first; the writes stop at the first context that fails (docs/fleet.md)";
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["all_contexts"];
    const ALL_CONTEXTS: &'static str =
        "Every context of the kubeconfig, in name order, as --contexts does";
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &[];
}

pub(crate) fn run(
    kube: &KubeFlags,
    args: BumpArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let plan = validate(kube, &args)?;
    let kube = match args.contexts.of(kube)? {
        SelectedContexts::Several(contexts) => {
            return run_contexts(kube, &args, &plan, &contexts, env.seed, shell);
        }
        SelectedContexts::One(kube) => *kube,
    };
    let kube = &kube;
    let report = bump(&plan, &kube.connect_options(), env.seed, shell)?;
    shell.verdict(report.outcome().code());
    if let Some(timeout) = &report.timed_out {
        shell.error(timed_out(timeout, None))?;
    }
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(
        &report,
        &args.format.output,
        resource,
        args.no_headers,
        shell.out(),
    )? && !report.items.is_empty()
    {
        let color = shell.color(args.color);
        write_bump_table(&report, color, !args.no_headers, shell.out())?;
    }
    say(&report, shell)?;
    Ok(report.outcome().code())
}

/// `--contexts`: the bump carried through the contexts one after the other
/// ([`crate::ops::rollout`]), with one request id; then one table, each context's error lines and
/// notes under its name, and where the run stopped.
fn run_contexts(
    kube: &KubeFlags,
    args: &BumpArgs,
    plan: &BumpPlan,
    contexts: &[String],
    seed: u64,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let id = plan.request_id_or(seed);
    let connect = kube.connect_options();
    let rollout = roll(
        &RolloutPlan {
            contexts,
            connect: &connect,
            dry_run: plan.dry_run,
        },
        shell,
        |connect, dry_run, shell| {
            let one = BumpPlan {
                dry_run,
                request_id: Some(id.clone()),
                wait: plan.wait && dry_run == DryRun::None,
                ..plan.clone()
            };
            bump(&one, connect, seed, shell)
        },
    )?;
    shell.verdict(rollout.outcome().code());
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(
        &rollout.document(Some(&id)),
        &args.format.output,
        resource,
        args.no_headers,
        shell.out(),
    )? {
        let color = shell.color(args.color);
        write_rollout_table(&rollout, color, !args.no_headers, shell.out())?;
    }
    let mut resumable = false;
    for stage in &rollout.stages {
        shell.set_context(Some(&stage.context));
        if let Some(e) = &stage.error {
            shell.error(&e.message)?;
        }
        if let Some(report) = &stage.report {
            if let Some(timeout) = &report.timed_out {
                shell.error(timed_out(timeout, Some(&stage.context)))?;
            }
            say_items(report, shell)?;
            resumable |= report.resumable;
        }
        shell.set_context(None);
    }
    super::rollout::say_rollout(&rollout, shell)?;
    if resumable || rollout.stopped_at().is_some() {
        shell.hint(format_args!(
            "to finish this request without bumping any set twice, run the same command again with --request-id {id}"
        ))?;
    }
    Ok(rollout.outcome().code())
}

/// What bump checks of its arguments before it contacts anything.
fn validate(kube: &KubeFlags, args: &BumpArgs) -> Result<BumpPlan> {
    if args.names.is_empty() && !args.all && args.selector.is_none() {
        bail!("name the sets to bump: NAME..., --all or -l SELECTOR");
    }
    let scope = checked_scope(
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
    Ok(BumpPlan {
        scope,
        reason: args.reason.clone(),
        dry_run: args.dry_run,
        wait: args.wait,
        timeout: args.timeout,
        request_id: args.request_id.clone(),
        throttle: Throttle {
            qps: args.qps,
            burst: args.burst,
        },
    })
}

/// An error line per set that was refused or failed, a note per set that has one, and the hint
/// to finish the request.
fn say(report: &BumpReport, shell: &mut Shell<'_>) -> Result<()> {
    say_items(report, shell)?;
    if report.resumable {
        shell.hint(format_args!(
            "to finish this request without bumping any set twice, run the same command again with --request-id {}",
            report.bump_id
        ))?;
    }
    Ok(())
}

/// An error line per set that was refused or failed, a note per set that has one.
fn say_items(report: &BumpReport, shell: &mut Shell<'_>) -> Result<()> {
    for item in &report.items {
        let (ns, name) = (&item.namespace, &item.name);
        if item.result.is_error() {
            let why = item.message.as_deref().unwrap_or("failed");
            shell.error(format_args!("EphemeralRunnerSet {ns}/{name}: {why}"))?;
        } else if let Some(note) = &item.message {
            shell.note(format_args!("EphemeralRunnerSet {ns}/{name}: {note}"))?;
        }
        // Said where the bump touches work: a set without runners goes unmentioned.
        if let Some(impact) = item
            .impact
            .as_ref()
            .filter(|i| crate::render::impact::touches(i))
        {
            let clause = crate::render::impact::clause(impact);
            shell.note(format_args!(
                "EphemeralRunnerSet {ns}/{name}: impact: {clause}"
            ))?;
        }
    }
    Ok(())
}

/// `--wait`'s timeout: a few of the sets left, and the count of the rest; where to look names
/// the context when the bump went through several.
fn timed_out(timeout: &WaitTimeout, context: Option<&str>) -> String {
    let mut left: Vec<String> = timeout
        .left
        .iter()
        .map(|(ns, name, rev)| match rev {
            Some(rev) => format!("{ns}/{name} (revision {rev})"),
            None => format!("{ns}/{name} (not replaced yet)"),
        })
        .collect();
    left.sort();
    let revisions = timeout.left.iter().any(|l| l.2.is_some());
    let restarts = timeout.left.iter().any(|l| l.2.is_none());
    let what = match (revisions, restarts) {
        (true, true) => "acknowledge or replace",
        (false, true) => "replace",
        _ => "acknowledge",
    };
    format!(
        "timed out waiting for ARC to {what} {}/{} EphemeralRunnerSets: {}; see `kubectl arc status {}-n NAMESPACE NAME` for what holds the {} back",
        left.len(),
        timeout.waited_for,
        super::name_a_few(&left, 3),
        context
            .map(|c| format!("--context {c} "))
            .unwrap_or_default(),
        if revisions { "cleanup" } else { "replacement" }
    )
}

/// `--request-id`: what the recent-bumps annotation can hold (`id=revision,...`).
pub(super) fn parse_request_id(s: &str) -> std::result::Result<String, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser as _;

    /// `kubectl arc bump ARGS...`, parsed and validated.
    fn plan(args: &[&str]) -> Result<BumpPlan> {
        let argv = ["kubectl-arc", "bump"].iter().chain(args);
        let cli = Cli::try_parse_from(argv).expect("parses");
        let Some(Command::Bump(c)) = cli.command else {
            unreachable!("bump")
        };
        validate(&c.kube.over(&cli.kube), &c.args)
    }

    #[test]
    fn a_plan_is_the_checked_arguments() {
        let p = plan(&["-n", "arc", "a", "b", "--reason", "new pool", "--wait"]).unwrap();
        assert_eq!(p.scope.namespace.as_deref(), Some("arc"));
        assert_eq!(p.scope.names, ["a", "b"]);
        assert_eq!(p.reason.as_deref(), Some("new pool"));
        assert!(p.wait && p.timeout.is_none() && !p.scope.all_namespaces);
        assert_eq!(p.dry_run, DryRun::None);
        assert_eq!(p.request_id, None);
        assert_eq!(
            p.throttle,
            Throttle {
                qps: 50.0,
                burst: 100
            }
        );
        let p = plan(&[
            "-A",
            "-l",
            "team=platform",
            "--dry-run",
            "--request-id",
            "r-1",
        ])
        .unwrap();
        assert!(p.scope.all_namespaces && p.scope.names.is_empty() && p.scope.namespace.is_none());
        assert_eq!(p.scope.selector_text(), Some("team=platform"));
        assert_eq!(p.dry_run, DryRun::Client);
        assert_eq!(p.request_id.as_deref(), Some("r-1"));
        // kubectl's global -n before the command counts too.
        let argv = ["kubectl-arc", "-n", "ci", "bump", "--all"];
        let cli = Cli::try_parse_from(argv).unwrap();
        let Some(Command::Bump(c)) = cli.command else {
            unreachable!("bump")
        };
        let p = validate(&c.kube.over(&cli.kube), &c.args).unwrap();
        assert_eq!(p.scope.namespace.as_deref(), Some("ci"));
    }

    #[test]
    fn what_is_refused_before_anything_is_contacted() {
        let refused = |args: &[&str]| plan(args).unwrap_err().to_string();
        assert_eq!(
            refused(&[]),
            "name the sets to bump: NAME..., --all or -l SELECTOR"
        );
        assert_eq!(
            refused(&["-A", "a"]),
            "names are looked up in one namespace: use -n NAMESPACE with names, not -A"
        );
        assert_eq!(
            refused(&["--all", "--wait", "--dry-run=server"]),
            "--wait waits for a written revision: it cannot be combined with --dry-run"
        );
        assert_eq!(
            refused(&["-A", "-n", "arc", "--all"]),
            "-A/--all-namespaces and -n/--namespace cannot be used together"
        );
        assert!(refused(&["-n", "Not_A_Namespace", "a"]).contains("Not_A_Namespace"));
        assert!(refused(&["-l", "a in (b", "-n", "arc"]).contains("-l/--selector"));
    }
}
