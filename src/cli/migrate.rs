//! `kubectl arc migrate`: its arguments, what is checked of them before anything is read or
//! contacted (the [`MigratePlan`]), and one call to [`crate::ops::migrate`]; then the unreadable
//! inputs said, the report (table or [`emit::structured`]), the summary line, and the exit code the
//! report stands for ([`MigrateReport::outcome`](crate::render::migrate::MigrateReport::outcome)).

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use super::args::{
    Contexts, ContextsHelp, Format, FormatHelp, KubeFlags, Scope, ScopeHelp, SelectedContexts,
};
use super::{Env, Shell};
use crate::core::go::params::DryRun;
use crate::core::migrate::UnverifiablePolicy;
use crate::ops::Throttle;
use crate::ops::migrate::{MigratePlan, Source, migrate};
use crate::ops::rollout::{RolloutPlan, roll};
use crate::render::emit;
use crate::render::migrate::write_table;
use crate::render::rollout::write_rollout_table;

/// `--unverifiable`, as clap parses it: the core's [`UnverifiablePolicy`] (the core has no clap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Unverifiable {
    /// Request a new revision (a cleanup that was not needed recycles idle runners once).
    Pending,
    /// Leave the set and its annotation alone.
    Skip,
}

impl From<Unverifiable> for UnverifiablePolicy {
    fn from(u: Unverifiable) -> Self {
        match u {
            Unverifiable::Pending => UnverifiablePolicy::Pending,
            Unverifiable::Skip => UnverifiablePolicy::Skip,
        }
    }
}

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
Exit status: 0 every set decided and written (or would be); 2 some set failed (the others were \
still processed), a name not found, unreadable input, a usage or preflight error. Never 1.",
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
pub(crate) struct MigrateArgs {
    /// EphemeralRunnerSet names (default: every one in scope).
    pub(crate) names: Vec<String>,
    #[command(flatten)]
    pub(crate) scope: Scope<Help>,
    /// A dump of EphemeralRunnerSets and EphemeralRunners to decide on offline (needs --dry-run=client).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// none: write; client: decide and report only; server: the API server validates and persists
    /// nothing. kubectl's rule: `--dry-run` alone is `--dry-run=client`, and a value needs `=`.
    #[arg(long, value_name = "MODE", value_parser = super::args::dry_run_parser(), default_value = "none", num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub(crate) dry_run: DryRun,
    #[command(flatten)]
    pub(crate) format: Format<Help>,
    /// Tables without their header line.
    #[arg(long)]
    pub(crate) no_headers: bool,
    /// Sets whose hash cannot be reproduced exactly: request a revision (pending) or leave them (skip).
    #[arg(long, value_enum, default_value_t = Unverifiable::Pending)]
    pub(crate) unverifiable: Unverifiable,
    /// Proceed although an ARC controller is running (it may race with the writes).
    #[arg(long)]
    pub(crate) force: bool,
    /// Client-side requests per second (0: unlimited).
    #[arg(long, default_value_t = 50.0, value_parser = super::args::parse_qps)]
    pub(crate) qps: f64,
    /// Client-side burst.
    #[arg(long, default_value_t = 100)]
    pub(crate) burst: u32,
    #[command(flatten)]
    pub(crate) contexts: Contexts<Help>,
}

/// The words of migrate's shared flags ([`super::args`]).
#[derive(Debug)]
pub(crate) struct Help;

impl ScopeHelp for Help {
    const ALL_NAMESPACES: &'static str = "Every namespace";
    const SELECTOR: &'static str = "Label selector";
}

impl FormatHelp for Help {
    const OUTPUT: &'static str = "Output format";
    const DEFAULT: &'static [&'static str] = &["table"];
    const FORMATS: &'static [&'static str] = emit::TABLE_FORMATS;
}

impl ContextsHelp for Help {
    const CONTEXTS: &'static str = "Migrate in these kubeconfig contexts one after the other, in the order given (the first is the canary), comma-separated: names, globs (* and ?), !PATTERN to leave some out. Every context is dry-run first; the writes stop at the first context that fails (docs/fleet.md)";
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["all_contexts", "files"];
    const ALL_CONTEXTS: &'static str =
        "Every context of the kubeconfig, in name order, as --contexts does";
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str] = &["files"];
}

pub(crate) fn run(
    kube: &KubeFlags,
    args: MigrateArgs,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let plan = validate(kube, &args)?;
    let kube = match args.contexts.of(kube)? {
        SelectedContexts::Several(contexts) => {
            return run_contexts(kube, &args, &plan, &contexts, env, shell);
        }
        SelectedContexts::One(kube) => *kube,
    };
    let kube = &kube;
    let report = migrate(
        &plan,
        &kube.connect_options(),
        &mut env.stdin,
        env.seed,
        shell,
    )?;
    shell.verdict(report.outcome().code());
    for e in &report.input_errors {
        shell.error(e)?;
    }
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(
        &report,
        &args.format.output,
        resource,
        args.no_headers,
        shell.out(),
    )? {
        write_table(&report, !args.no_headers, shell.out())?;
    }
    shell.status(report.summary_line())?;
    Ok(report.outcome().code())
}

/// `--contexts`: the migration carried through the contexts one after the other
/// ([`crate::ops::rollout`]); then one table, each context's summary under its name, and where
/// the run stopped.
fn run_contexts(
    kube: &KubeFlags,
    args: &MigrateArgs,
    plan: &MigratePlan,
    contexts: &[String],
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> Result<u8> {
    let connect = kube.connect_options();
    let seed = env.seed;
    let stdin = &mut env.stdin;
    let rollout = roll(
        &RolloutPlan {
            contexts,
            connect: &connect,
            dry_run: plan.dry_run,
        },
        shell,
        |connect, dry_run, shell| {
            let one = MigratePlan {
                dry_run,
                ..plan.clone()
            };
            migrate(&one, connect, stdin, seed, shell)
        },
    )?;
    shell.verdict(rollout.outcome().code());
    let resource = "ephemeralrunnerset.actions.github.com";
    if !emit::structured(
        &rollout.document(None),
        &args.format.output,
        resource,
        args.no_headers,
        shell.out(),
    )? {
        write_rollout_table(&rollout, false, !args.no_headers, shell.out())?;
    }
    for stage in &rollout.stages {
        shell.set_context(Some(&stage.context));
        if let Some(e) = &stage.error {
            shell.error(&e.message)?;
        }
        if let Some(report) = &stage.report {
            shell.status(report.summary_line())?;
        }
        shell.set_context(None);
    }
    super::rollout::say_rollout(&rollout, shell)?;
    Ok(rollout.outcome().code())
}

/// What migrate checks of its arguments before it reads or contacts anything.
fn validate(kube: &KubeFlags, args: &MigrateArgs) -> Result<MigratePlan> {
    let scope = args
        .scope
        .checked(kube, "EphemeralRunnerSet name", &args.names)?;
    let source = if args.files.is_empty() {
        Source::Cluster
    } else if args.dry_run != DryRun::Client {
        bail!("-f works offline only: add --dry-run=client (a dump cannot be written back)");
    } else {
        Source::Dump(args.files.clone())
    };
    Ok(MigratePlan {
        scope,
        source,
        dry_run: args.dry_run,
        unverifiable: args.unverifiable.into(),
        force: args.force,
        throttle: Throttle {
            qps: args.qps,
            burst: args.burst,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::core::selector::Selector;
    use clap::Parser as _;

    /// `kubectl arc migrate ARGS...`, parsed and validated.
    fn plan(args: &[&str]) -> Result<MigratePlan> {
        let argv = ["kubectl-arc", "migrate"].iter().chain(args);
        let cli = Cli::try_parse_from(argv).expect("parses");
        let Some(Command::Migrate(c)) = cli.command else {
            unreachable!("migrate")
        };
        validate(&c.kube.over(&cli.kube), &c.args)
    }

    #[test]
    fn a_plan_is_the_checked_arguments() {
        let p = plan(&["-A", "--dry-run=server", "--force", "--qps", "5"]).unwrap();
        assert!(
            p.scope.all_namespaces
                && p.force
                && p.scope.names.is_empty()
                && p.scope.selector.is_none()
        );
        assert_eq!(p.source, Source::Cluster);
        assert_eq!(p.dry_run, DryRun::Server);
        assert_eq!(p.unverifiable, UnverifiablePolicy::Pending);
        assert_eq!(
            p.throttle,
            Throttle {
                qps: 5.0,
                burst: 100
            }
        );
        let p = plan(&[
            "-n",
            "arc",
            "-l",
            "team=ci",
            "--dry-run",
            "-f",
            "dump.yaml",
            "-f",
            "-",
            "set-a",
            "--unverifiable=skip",
        ])
        .unwrap();
        assert_eq!(p.scope.namespace.as_deref(), Some("arc"));
        assert_eq!(p.scope.names, ["set-a"]);
        assert_eq!(
            p.scope.selector,
            Some(("team=ci".to_string(), Selector::parse("team=ci").unwrap()))
        );
        assert_eq!(
            p.source,
            Source::Dump(vec![PathBuf::from("dump.yaml"), PathBuf::from("-")])
        );
        assert_eq!(p.unverifiable, UnverifiablePolicy::Skip);
    }

    #[test]
    fn what_is_refused_before_anything_is_read() {
        let refused = |args: &[&str]| plan(args).unwrap_err().to_string();
        for dry_run in ["--dry-run=none", "--dry-run=server"] {
            assert_eq!(
                refused(&["-f", "dump.yaml", dry_run]),
                "-f works offline only: add --dry-run=client (a dump cannot be written back)"
            );
        }
        assert_eq!(
            refused(&["-f", "dump.yaml"]),
            "-f works offline only: add --dry-run=client (a dump cannot be written back)"
        );
        // The scope is checked first, as before any file is read.
        assert_eq!(
            refused(&["-A", "-n", "arc", "-f", "dump.yaml"]),
            "-A/--all-namespaces and -n/--namespace cannot be used together"
        );
        assert!(refused(&["-l", "=x"]).contains("-l/--selector"));
        assert!(refused(&["Bad_Name"]).contains("Bad_Name"));
    }
}
