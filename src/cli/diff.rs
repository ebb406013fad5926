//! `kubectl arc diff`: its arguments, checked into a [`Plan`], then [`crate::ops::diff`], then a
//! renderer. Exit codes as `kubectl diff`: 0 no semantic drift, 1 semantic drift, 2 error (other
//! scale sets are still reported).

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::args::{
    ContextsHelp, Fleet, Format, FormatHelp, Judging, JudgingHelp, KubeFlags, Scope, ScopeHelp,
};
use super::{ColorChoice, Env, Shell};
use crate::ops::diff::{Diff, FailOn, Plan};
use crate::render::diff::{TextOptions, write_text};
use crate::render::emit::{self, Output};

#[derive(Debug, Args)]
#[command(
    long_about = "Show the drift between each AutoscalingRunnerSet's desired runner spec and its \
EphemeralRunnerSet's spec.ephemeralRunnerSpec, exactly as ARC's controller computes it.\n\n\
Each scale set is judged by the rule of the ARC release in use (--arc-version, else the controller \
Deployment's, else what the objects say): ARC 0.9.0 to 0.14.2 replace the EphemeralRunnerSet when \
the AutoscalingRunnerSet's RunnerSetSpecHash() differs from the newest set's \
actions.github.com/runner-spec-hash (so 500m -> 0.5 or nodeSelector: {} replace it too); the \
integrity-hash era cleans up when its hash differs; the revision era bumps spec.actionableRevision on \
semantic drift (Go's apiequality.Semantic.DeepEqual). Strict-only differences (an empty list versus \
none, 1 versus 1000m) are what a strict comparison would also have acted on; a revision-era ARC \
does not.\n\n\
The desired side is what -f gives (a Helm render: what would be applied), else the cluster's \
AutoscalingRunnerSets. The live side is the cluster, or --live dumps, or nothing with --local \
(EphemeralRunnerSets given with -f are live objects too). Each AutoscalingRunnerSet is paired with its \
EphemeralRunnerSet as ARC's controller pairs them: by controller owner reference (ARC up to 0.14 names \
its sets <name>-xxxxx), else by ARC's scale-set labels, else by name. A render carries no \
runner-scale-set-id: it is taken from the EphemeralRunnerSet, else from the live AutoscalingRunnerSet. \
A scale set without an EphemeralRunnerSet is new: nothing to recycle. A scale set whose \
app.kubernetes.io/version the release does not allow is deleted by its controller (the version check).\n\n\
For each scale set replaced, recycled or deleted, or whose listener is made again, the impact on the \
work running now: the runners ARC deletes at once, the busy ones that finish their job first (and \
their jobs), whether job pickup pauses and whether new jobs wait for running ones, read from the \
set's EphemeralRunners and the controller's --update-strategy (docs/diff.md, Impact).\n\n\
Reads AutoscalingRunnerSets, EphemeralRunnerSets and EphemeralRunners from the files and, unless \
--local or --live, the cluster (and the controller Deployment); writes nothing.\n\n\
Exit status: 0 nothing recycled, 1 the release recycles idle or pending runners of some scale set \
or deletes it (with --fail-on jobs: only where work in flight is hit), 2 an error (other scale sets \
are still reported).",
    after_help = "Examples:\n  \
# Drift of every scale set in the current namespace\n  kubectl arc diff\n\n  \
# Would applying this Helm render make ARC recycle my idle runners? (helm template cannot look up\n  \
# the controller's ServiceAccount, so it is named)\n  \
chart=oci://ghcr.io/actions/actions-runner-controller-charts/gha-runner-scale-set\n  \
helm template arc-runners $chart -n arc-runners -f values.yaml \\\n    \
--set controllerServiceAccount.namespace=arc-systems \\\n    \
--set controllerServiceAccount.name=arc-gha-rs-controller | kubectl arc diff -f -\n\n  \
# The same against a dump instead of the cluster\n  \
kubectl get autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners \\\n    -n arc-runners -o yaml > live.yaml\n  \
kubectl arc diff -f render.yaml --live live.yaml\n\n  \
# Offline, from a dump of both kinds\n  kubectl arc diff -f dump.yaml\n\n  \
# Machine-readable, across all namespaces\n  kubectl arc diff -A -o json\n\n  \
# Would this render recycle runners in any production cluster? (exit 2 if a context failed)\n  \
helm template arc-runners $chart -n arc-runners -f values.yaml \\\n    \
--set controllerServiceAccount.namespace=arc-systems \\\n    \
--set controllerServiceAccount.name=arc-gha-rs-controller \\\n    \
| kubectl arc diff -f - --contexts 'prod-*'"
)]
pub(crate) struct DiffArgs {
    /// AutoscalingRunnerSet names (default: every one in scope).
    pub(crate) names: Vec<String>,
    #[command(flatten)]
    pub(crate) scope: Scope<Help>,
    /// What would be applied: a manifest file, directory or - for stdin (repeatable), e.g. a Helm
    /// render. Its AutoscalingRunnerSets are the desired side; EphemeralRunnerSets in it are live.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// The live objects from a dump (`kubectl get ... -o yaml`) instead of the cluster: a file,
    /// directory or - (repeatable). Objects not in it are absent.
    #[arg(long, value_name = "FILE")]
    pub(crate) live: Vec<PathBuf>,
    /// Never contact the cluster: the live side is only what the files give.
    #[arg(long)]
    pub(crate) local: bool,
    /// A live side (--live dumps, or the cluster's namespace) without any AutoscalingRunnerSet or
    /// EphemeralRunnerSet is meant (nothing deployed yet): by default it is an error, since a
    /// wrong namespace or context would make every scale set new.
    #[arg(long)]
    pub(crate) allow_empty_live: bool,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
    /// When the exit status is 1: recycle (a scale set's runners are replaced or recycled), jobs
    /// (only when work in flight is hit: new jobs held back by running ones, as
    /// --update-strategy=eventual or the later eras' deferral hold them), never. Errors exit 2
    /// whatever it says.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Recycle)]
    pub(crate) fail_on: FailOn,
    /// With -o github: a ::notice for each scale set with strict-only differences too (by default
    /// they are counted in the summary line only).
    #[arg(long)]
    pub(crate) show_strict: bool,
    /// With -o github: attach the annotations to this file (e.g. the values file a pull request
    /// changes) instead of the render's path.
    #[arg(long, value_name = "FILE")]
    pub(crate) annotate_file: Option<String>,
    /// Without headers: no header line with -o custom-columns, and no `--- current`/`+++ desired`
    /// lines before each unified diff of the text output.
    #[arg(long)]
    pub(crate) no_headers: bool,
    /// Lines of context around each change in the text diff.
    #[arg(short = 'U', long = "unified", value_name = "N", default_value_t = 3)]
    pub(crate) unified: usize,
    /// When to colour the text output (NO_COLOR is honoured for auto).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    #[command(flatten)]
    pub(crate) judging: Judging<Help>,
    #[command(flatten)]
    pub(crate) fleet: Fleet<Help>,
}

/// The words of diff's shared flags ([`super::args`]).
#[derive(Debug)]
pub(crate) struct Help;

impl ScopeHelp for Help {
    const ALL_NAMESPACES: &'static str = "Every namespace";
    const SELECTOR: &'static str = "Label selector (e.g. app=runners,tier!=gpu)";
}

impl FormatHelp for Help {
    const OUTPUT: &'static str = "Output format";
    const DEFAULT: &'static [&'static str] = &["text"];
    const FORMATS: &'static [&'static str] = &[
        "json",
        "yaml",
        "github",
        "name",
        "jsonpath",
        "custom-columns",
    ];
}

impl JudgingHelp for Help {
    const ARC_VERSION: &'static str = "The ARC release whose rule judges every scale set (0.9.0 to 0.14.2, or next: ARC's master after 0.14.2; an upgrade to it: which sets it replaces by itself). By default the controller Deployment's app.kubernetes.io/version (next when its image is a canary/dev build over the revision CRDs), else the release whose runner-spec hash the objects carry, else their own label";
}

impl ContextsHelp for Help {
    const CONTEXTS: &'static str = "Compare in these kubeconfig contexts, comma-separated: names, globs (* and ?), !PATTERN to leave some out; each context's part after a `# context NAME` line (docs/fleet.md)";
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["all_contexts", "local", "live"];
    const ALL_CONTEXTS: &'static str = "Compare in every context of the kubeconfig, in name order";
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["local", "live"];
}

pub(crate) fn run(
    kube: &KubeFlags,
    args: DiffArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let plan = validate(kube, &args)?;
    if args.fleet.is_several() {
        return run_fleet(&args, &plan, env, shell);
    }
    let diff = match crate::ops::diff::run(&plan, &mut env.stdin) {
        Ok(diff) => diff,
        Err(e) if matches!(args.format.output, Output::Github) => {
            // The workflow step shows why the check failed, not only its exit code.
            let error = crate::render::github::InputError::of(&format!("{e:#}"), &inputs(&args));
            let report = crate::ops::diff::empty_report(&plan);
            let opts = github_options(&args);
            crate::render::github::write_diff(&report, &[error], &opts, shell.out())?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    for e in &diff.errors {
        shell.error(e)?;
    }
    if diff.report.items.is_empty() && diff.errors.is_empty() {
        shell.status("No AutoscalingRunnerSets found.")?;
    }
    let code = diff.outcome().code();
    shell.verdict(code);
    write(&args, &diff, shell)?;
    if env.exits_after_run {
        // Freeing a thousand reports' trees one node at a time took a fifth of a 1,000-set run
        // (measured with perf); the process ends now and the system takes the memory back at once.
        std::mem::forget(diff);
    }
    Ok(code)
}

/// `--contexts`/`--all-contexts` with several contexts: the files read once, every context
/// compared, one report; a context's failure on stderr after it (exit 2 if any failed).
fn run_fleet(args: &DiffArgs, plan: &Plan, env: &mut Env, shell: &mut Shell<'_>) -> Result<u8> {
    if matches!(args.format.output, Output::Github) {
        bail!(
            "-o github annotates the files of one change: it cannot be used with --contexts/--all-contexts (give --context NAME, or -o json)"
        );
    }
    let run = crate::ops::fleet_diff::run(plan, &args.fleet.fleet(), &mut env.stdin)?;
    shell.verdict(run.outcome.code());
    let text = TextOptions {
        context: args.unified,
        color: shell.color(args.color),
        headers: !args.no_headers,
    };
    crate::render::fleet::write_fleet_diff(
        &run.report,
        &args.format.output,
        text,
        args.no_headers,
        shell.out(),
    )?;
    for e in &run.errors {
        shell.error(e)?;
    }
    Ok(run.outcome.code())
}

/// Everything diff checks before it reads a file or contacts the cluster, and the plan it makes:
/// the namespace of objects that name none is `-n`, else the kubeconfig context's, else `default`.
fn validate(kube: &KubeFlags, args: &DiffArgs) -> Result<Plan> {
    let layout = args.judging.layout()?;
    let scope = args
        .scope
        .checked(kube, "AutoscalingRunnerSet name", &args.names)?;
    if args.local && args.files.is_empty() && args.live.is_empty() {
        bail!(
            "--local compares only what files give: give the objects with -f FILE (a render, or a dump of both kinds) and/or --live FILE"
        );
    }
    let reads_stdin = |paths: &[PathBuf]| paths.iter().any(|p| p.as_os_str() == "-");
    if reads_stdin(&args.files) && reads_stdin(&args.live) {
        bail!("-f - and --live - cannot both read standard input");
    }
    let arc_release = args.judging.target()?;
    let connect = kube.connect_options();
    let file_namespace = scope.file_namespace(&connect);
    Ok(Plan {
        layout,
        scope,
        file_namespace,
        files: args.files.clone(),
        live: args.live.clone(),
        local: args.local,
        arc_version: args.judging.arc_version.clone(),
        allow_empty_live: args.allow_empty_live,
        arc_release,
        connect,
        keep_specs: args.format.output == Output::Default,
        fail_on: args.fail_on,
    })
}

/// The report in the chosen format.
fn write(args: &DiffArgs, diff: &Diff, shell: &mut Shell<'_>) -> Result<()> {
    let report = &diff.report;
    match &args.format.output {
        Output::Github => {
            let inputs = inputs(args);
            let errors: Vec<_> = (diff.errors.iter())
                .map(|e| crate::render::github::InputError::of(e, &inputs))
                .collect();
            crate::render::github::write_diff(report, &errors, &github_options(args), shell.out())?
        }
        Output::Default => {
            let opts = TextOptions {
                context: args.unified,
                color: shell.color(args.color),
                headers: !args.no_headers,
            };
            write_text(report, opts, shell.out())?
        }
        other => {
            let resource = "autoscalingrunnerset.actions.github.com";
            emit::structured(report, other, resource, args.no_headers, shell.out())?;
        }
    }
    Ok(())
}

fn github_options(args: &DiffArgs) -> crate::render::github::GithubOptions {
    crate::render::github::GithubOptions {
        show_strict: args.show_strict,
        file: args.annotate_file.clone(),
    }
}

/// The inputs as given, for attaching a message about one of them to its file.
fn inputs(args: &DiffArgs) -> Vec<String> {
    (args.files.iter().chain(&args.live))
        .map(|p| p.display().to_string())
        .collect()
}
