//! `kubectl arc status`: its arguments, checked into a [`Request`], then [`crate::ops::status`]
//! (one listing, a dump, or `--watch`/`--wait` following the census), then a renderer. Exit
//! status: 0, or with `--wait` 1 on timeout; 2 on errors (no CRD, Forbidden, bad selector,
//! unknown name).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use super::args::{
    ContextsHelp, Fleet, Format, FormatHelp, Judging, JudgingHelp, KubeFlags, Scope, ScopeHelp,
    parse_duration,
};
use super::{ColorChoice, Env, Outcome, Shell};
use crate::ops::status::follow::Follow;
use crate::ops::status::{Files, Request, Snapshot};
use crate::render::emit::Output;
use crate::render::follow::{FleetShown, Printer, ShowOptions, write_status};
use crate::render::status::TableOptions;

#[derive(Debug, Args)]
#[command(
    long_about = "Show where each EphemeralRunnerSet stands in ARC's revision handshake: \
spec.actionableRevision (requested) against status.appliedActionableRevision (acknowledged), its \
runners as ARC's controller sorts them (idle, busy, pending, failed), and how many run an older spec \
(not Semantic-equal to the set's spec.ephemeralRunnerSpec).\n\n\
States: Synced (applied >= spec, and no idle or pending runner on an older spec; busy runners finish \
their job first and are only counted), Pending (spec > applied: a cleanup is requested), Stale \
(the revisions agree, yet idle or pending runners run an older spec), Propagating (the \
AutoscalingRunnerSet's runner spec has not reached its set yet), Legacy (the \
actions.github.com/integrity-hash annotation is still set: run `kubectl arc migrate`), RecycleLoop \
(still under the integrity hash, with a template that makes ARC recycle its runners forever), \
SpecHash (made by ARC 0.14 or older, its scale set not known), Outdated \
(status.phase Outdated: ARC creates no runners until the runner spec changes), Deleting (being \
deleted: replaced, or its scale set is going), Invalid (applied > spec, a field ARC's Go types \
cannot decode, or a scale set ARC cannot build a set for), Registering (an AutoscalingRunnerSet \
without a set, not registered with GitHub yet), Creating (registered, its set not created yet), \
and with --watch Deleted (the set is gone).\n\n\
Where the revisions are settled or on their way (Synced, Stale, Pending), what stops the scale set \
from scaling shows instead: ListenerDown (no AutoscalingListener serves the scale set, or its Pod \
is missing or starting: ARC makes them), ListenerFailing (the listener's Pod crashes, cannot pull \
its image or cannot be scheduled, or it serves a set that is gone: a person must act), \
RunnersFailed (failed EphemeralRunners count toward spec.replicas, so ARC creates fewer runners: \
delete them), RunnersNotRunning (runners ARC counts running run no Pod: it is missing, in failure \
back-off, or made again and cannot be scheduled; ARC and the scheduler act by themselves). Listeners are read in every namespace, their Pods where the listeners are; a read \
the role does not allow is said once as a warning.\n\n\
ARC 0.9 to 0.14 (sets with actions.github.com/runner-spec-hash) have no revision; their sets read: \
Synced (the release's RunnerSetSpecHash() of the AutoscalingRunnerSet equals the newest set's \
annotation), Replacing (they differ: ARC replaces the set, has not acted yet or, with \
--update-strategy=eventual, waits for running jobs), Draining (an old set ARC has not deleted yet), \
SpecHash (the AutoscalingRunnerSet is not known). The release is diff's: --arc-version, else the \
controller Deployment's that reconciles the namespace, else the scale set's app.kubernetes.io/version, \
else the set's own, else the newest.\n\n\
Whatever the rest says, VersionRejected (the release that judges the scale set, --arc-version or the \
running controller's, does not allow its app.kubernetes.io/version: ARC's version check deletes the \
scale set with its sets and runners; --wait fails at once).\n\n\
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
# Several clusters in one table, failed contexts as rows (exit 2 if any failed)\n  \
kubectl arc status -A --contexts 'prod-*,!prod-canary' -o wide\n\n  \
# Block until every set of every production cluster is Synced\n  \
kubectl arc status -A --contexts 'prod-*' --wait --timeout 10m\n\n  \
# Offline, from a dump (the scale sets name the release and the listener's scale set)\n  kubectl get autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners -A -o yaml > dump.yaml\n  \
kubectl arc status -f dump.yaml\n\n  \
# Before upgrading the controller: what ARC 0.13.1 would do to each set (VersionRejected: deleted)\n  \
kubectl arc status -A --arc-version 0.13.1"
)]
pub(crate) struct StatusArgs {
    /// EphemeralRunnerSet names (default: every one in scope).
    pub(crate) names: Vec<String>,
    #[command(flatten)]
    pub(crate) scope: Scope<Help>,
    /// A dump (file, directory or - for stdin, repeatable) of EphemeralRunnerSets and their
    /// EphemeralRunners, instead of the cluster.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
    /// Tables without their header line.
    #[arg(long)]
    pub(crate) no_headers: bool,
    /// After the first listing, print each set again whenever its row changes (JSON: one row per
    /// line; YAML: one document per row).
    #[arg(short = 'w', long, conflicts_with_all = ["wait", "files"])]
    pub(crate) watch: bool,
    /// Block until every selected set is Synced (exit 0), like `kubectl rollout status`.
    #[arg(long, conflicts_with = "files")]
    pub(crate) wait: bool,
    /// With --wait: give up after this long (exit 1), e.g. 30s, 10m. Default: wait forever.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "wait")]
    pub(crate) timeout: Option<Duration>,
    /// When to colour the table (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    #[command(flatten)]
    pub(crate) judging: Judging<Help>,
    #[command(flatten)]
    pub(crate) fleet: Fleet<Help>,
}

/// The words of status's shared flags ([`super::args`]).
#[derive(Debug)]
pub(crate) struct Help;

impl ScopeHelp for Help {
    const ALL_NAMESPACES: &'static str = "Every namespace";
    const SELECTOR: &'static str =
        "Label selector on EphemeralRunnerSets (e.g. app=runners,tier!=gpu)";
}

impl FormatHelp for Help {
    const OUTPUT: &'static str =
        "Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC";
    const DEFAULT: &'static [&'static str] = &["table"];
    const FORMATS: &'static [&'static str] =
        &["wide", "json", "yaml", "name", "jsonpath", "custom-columns"];
}

impl JudgingHelp for Help {
    const ARC_VERSION: &'static str = "The ARC release whose rule judges every set (0.9.0 to 0.14.2, or next: ARC's master after 0.14.2), as diff takes it: its RunnerSetSpecHash() and its version check; next adds its observed generation, Outdated lifecycle and staleOutdated runners. By default the release of the controller Deployment that reconciles the namespace (next when its image is a canary/dev build over the revision CRDs), else the scale set's app.kubernetes.io/version";
}

impl ContextsHelp for Help {
    const CONTEXTS: &'static str = "Read these kubeconfig contexts, comma-separated: names, globs (* and ?), !PATTERN to leave some out; one table with a CONTEXT column (docs/fleet.md)";
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["all_contexts", "files"];
    const ALL_CONTEXTS: &'static str = "Read every context of the kubeconfig, in name order";
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["files"];
}

pub(crate) fn run(
    kube: &KubeFlags,
    args: StatusArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let request = validate(kube, &args, env)?;
    if args.fleet.is_several() {
        let contexts = args.fleet.selected.clone();
        if args.watch || args.wait {
            return follow_fleet(&args, request, contexts, shell);
        }
        return run_fleet(&args, request, contexts, shell);
    }
    let show = ShowOptions {
        output: args.format.output.clone(),
        table: TableOptions {
            wide: args.format.output == Output::Wide,
            no_headers: args.no_headers,
            namespace_column: args.scope.all_namespaces || !args.files.is_empty(),
            color: shell.color(args.color),
        },
        no_headers: args.no_headers,
        explain: !args.names.is_empty(),
        wait: args.wait,
    };
    let outcome = if !args.files.is_empty() {
        let files = Files {
            paths: args.files.clone(),
            namespace: request.scope.file_namespace(&request.connect),
            namespace_given: kube.namespace.is_some(),
        };
        let snapshot = crate::ops::status::from_files(&request.offline(), &files, &mut env.stdin);
        finish(&show, snapshot, shell)?
    } else {
        super::runtime()?.block_on(async {
            let (client, plan) = request.connect().await?;
            if args.watch || args.wait {
                let mut printer = Printer::new(&show);
                let mut follow = Follow::new(args.wait, &mut printer);
                crate::ops::status::follow(&client, &plan, &mut follow, args.timeout, shell).await
            } else {
                finish(
                    &show,
                    crate::ops::status::list(&client, &plan).await?,
                    shell,
                )
            }
        })?
    };
    Ok(outcome.code())
}

/// `--contexts`/`--all-contexts`: the contexts chosen from the kubeconfig (a pattern that matches
/// nothing is a usage error), read concurrently, shown as one report; errors after it on stderr.
fn run_fleet(
    args: &StatusArgs,
    request: Request,
    contexts: Vec<String>,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let fleet = crate::ops::fleet::Fleet {
        contexts,
        parallel: usize::from(args.fleet.parallel),
    };
    let show = ShowOptions {
        output: args.format.output.clone(),
        table: TableOptions {
            wide: args.format.output == Output::Wide,
            no_headers: args.no_headers,
            namespace_column: true,
            color: shell.color(args.color),
        },
        no_headers: args.no_headers,
        explain: !args.names.is_empty(),
        wait: false,
    };
    let run = super::runtime()?.block_on(crate::ops::fleet::list(&request, &fleet));
    shell.verdict(run.outcome.code());
    crate::render::fleet::write_fleet_status(&show, &run.report, shell)?;
    for w in &run.warnings {
        shell.warn(w)?;
    }
    for e in &run.errors {
        shell.error(e)?;
    }
    Ok(run.outcome.code())
}

/// `--watch`/`--wait` with several contexts: one follow per context, all at once; rows as they
/// change with their CONTEXT; `--wait`'s last rows in one table once every context is done.
fn follow_fleet(
    args: &StatusArgs,
    request: Request,
    contexts: Vec<String>,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let show = ShowOptions {
        output: args.format.output.clone(),
        table: TableOptions {
            wide: args.format.output == Output::Wide,
            no_headers: args.no_headers,
            namespace_column: true,
            color: shell.color(args.color),
        },
        no_headers: args.no_headers,
        explain: false,
        wait: args.wait,
    };
    let shared = std::cell::RefCell::new(FleetShown::default());
    let mut printers: Vec<Printer<'_>> = contexts
        .iter()
        .map(|c| Printer::in_context(&show, c, &shared))
        .collect();
    let rt = super::runtime()?;
    let (outcome, ended) = {
        let shells = shell.for_contexts(&contexts);
        let lanes = (contexts.iter().zip(printers.iter_mut()).zip(shells))
            .map(
                |((context, printer), shell)| crate::ops::fleet_follow::Lane {
                    context: context.clone(),
                    sink: printer,
                    shell,
                },
            )
            .collect();
        rt.block_on(crate::ops::fleet_follow::follow(
            &request,
            args.wait,
            args.timeout,
            lanes,
        ))
    };
    drop(printers);
    if args.wait {
        let rows = std::mem::take(&mut shared.borrow_mut().ended);
        let report = crate::ops::fleet_follow::waited_report(rows, ended);
        let show = ShowOptions {
            wait: false,
            ..show
        };
        crate::render::fleet::write_fleet_status(&show, &report, shell)?;
    }
    Ok(outcome.code())
}

/// Everything status checks before it reads a file or contacts the cluster.
fn validate(kube: &KubeFlags, args: &StatusArgs, env: &Env) -> Result<Request> {
    let layout = args.judging.layout()?;
    let scope = args
        .scope
        .checked(kube, "EphemeralRunnerSet name", &args.names)?;
    if args.scope.all_namespaces && !args.names.is_empty() {
        bail!(
            "names are looked up in one namespace: use -n NAMESPACE with names, not -A/--all-namespaces"
        );
    }
    let arc_release = args.judging.target()?;
    Ok(Request {
        layout,
        scope,
        connect: kube.connect_options(),
        clock: env.clock,
        arc_release,
    })
}

/// Render the rows; report errors on stderr.
fn finish(show: &ShowOptions, snapshot: Snapshot, shell: &mut Shell<'_>) -> Result<Outcome> {
    let outcome = snapshot.outcome();
    shell.verdict(outcome.code());
    // "No EphemeralRunnerSets found." is for an empty result, not for one whose errors say why.
    if !snapshot.rows.is_empty() || snapshot.errors.is_empty() {
        write_status(show, snapshot.rows, &snapshot.chains, shell)?;
    }
    for w in &snapshot.warnings {
        shell.warn(w)?;
    }
    for e in &snapshot.errors {
        shell.error(e)?;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use crate::core::status::State;

    /// Issue 20: `status --help` lists 5 of the 10 states. Every state a row can have is named
    /// in the help (a new state does not compile until it is added to the match below).
    #[test]
    fn status_help_lists_every_state() {
        let all = [
            State::Synced,
            State::Pending,
            State::Stale,
            State::Legacy,
            State::Invalid,
            State::Outdated,
            State::Deleting,
            State::SpecHash,
            State::Propagating,
            State::Deleted,
            State::RecycleLoop,
            State::Registering,
            State::Creating,
            State::Replacing,
            State::Draining,
            State::ListenerDown,
            State::ListenerFailing,
            State::RunnersFailed,
            State::RunnersNotRunning,
            State::VersionRejected,
        ];
        for state in all {
            match state {
                State::Synced
                | State::Pending
                | State::Stale
                | State::Legacy
                | State::Invalid
                | State::Outdated
                | State::Deleting
                | State::SpecHash
                | State::Propagating
                | State::Deleted
                | State::RecycleLoop
                | State::Registering
                | State::Creating
                | State::Replacing
                | State::Draining
                | State::ListenerDown
                | State::ListenerFailing
                | State::RunnersFailed
                | State::RunnersNotRunning
                | State::VersionRejected => {}
            }
        }
        let mut cli = crate::cli::Cli::command();
        let status = cli.find_subcommand_mut("status").expect("status");
        // As wrapped for a terminal: a state and its "(" may be on two lines.
        let help = status.render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for state in all {
            assert!(
                help.contains(&format!("{} (", state.as_str())),
                "status --help does not name {state}:\n{help}"
            );
        }
    }
}
