//! Command-line layer: argument parsing (clap) and the thin commands.
//!
//! Each command turns its arguments into a plan, runs it through the core and the cluster layer and
//! hands a report to a renderer. Output goes only through the writers passed in: data to `out`,
//! diagnostics to `err`.

pub(crate) mod args;
pub(crate) mod bump;
pub mod completion;
pub(crate) mod diff;
pub(crate) mod migrate;
pub(crate) mod repair;
pub(crate) mod status;
pub(crate) mod upgrade_plan;
pub(crate) mod version;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, CommandFactory as _, Parser, Subcommand};

use crate::cluster::ConnectOptions;

pub use crate::report::EXIT_ERROR;
pub(crate) use crate::report::{EXIT_OK, Outcome, name_a_few};

/// See and operate actions-runner-controller's runner-spec revisions.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-arc",
    bin_name = "kubectl arc",
    version,
    about,
    long_about = "kubectl arc: see and operate actions-runner-controller's runner-spec revisions.\n\n\
When an AutoscalingRunnerSet's runner spec changes, ARC rebuilds its runners: every release from \
0.9.0 to 0.14.2 replaces the EphemeralRunnerSet when the set's runner-spec hash changes; the \
integrity-hash and revision eras of ARC's master recycle idle and pending runners in place. \
kubectl arc judges each change by the rule of the ARC release that decides it, as that release's \
controller computes it.",
    after_help = "kubectl's global options go before or after the command (`kubectl arc -n NS status`, \
`kubectl arc status -n NS`); diff, status, bump and migrate read them, version and completion \
take none. `kubectl arc COMMAND --help` says what each command reads and writes."
)]
pub struct Cli {
    /// kubectl's global flags typed before the command; those after it win.
    #[command(flatten)]
    pub(crate) kube: KubeFlags,
    /// None: `kubectl arc` alone prints the help, as `kubectl` alone does.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

// kubectl's global flags: the commands that read a kubeconfig take them (`Connecting`), and so
// does `kubectl arc` itself, before the command. `version` and `completion` read no kubeconfig and
// do not list them. (Plain comments: clap makes a flattened struct's doc comment the command's
// help, which would replace each command's long help.)
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Kubectl options")]
pub(crate) struct KubeFlags {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, value_name = "PATH")]
    pub(crate) kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    pub(crate) context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, value_name = "NAME")]
    pub(crate) cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, value_name = "NAME")]
    pub(crate) user: Option<String>,
    /// The namespace (default: the context's namespace).
    #[arg(short = 'n', long, value_name = "NS")]
    pub(crate) namespace: Option<String>,
    /// Username to impersonate.
    #[arg(long = "as", value_name = "USER")]
    pub(crate) as_user: Option<String>,
    /// Group to impersonate (repeatable).
    #[arg(long = "as-group", value_name = "GROUP")]
    pub(crate) as_group: Vec<String>,
    /// How long to wait for one request to the server (e.g. 10s, 1m; 0 means no limit).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) request_timeout: Option<Duration>,
    /// Log verbosity on stderr (0-9, like kubectl; 6 and up log each request).
    #[arg(short = 'v', long = "v", value_name = "LEVEL", default_value_t = 0)]
    pub(crate) verbosity: u8,
    /// Not a flag: `KUBECONFIG` and the home directory, from the injected [`Env`].
    #[arg(skip)]
    pub(crate) env: crate::cluster::KubeEnv,
}

impl KubeFlags {
    pub(crate) fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            cluster: self.cluster.clone(),
            user: self.user.clone(),
            impersonate: self.as_user.clone(),
            impersonate_groups: self.as_group.clone(),
            request_timeout: self.request_timeout.filter(|d| !d.is_zero()),
            env: self.env.clone(),
        }
    }

    /// These flags (typed after the command) over `before` (typed before it): a flag given after
    /// wins, `--as-group`s add up.
    pub(crate) fn over(self, before: &KubeFlags) -> KubeFlags {
        let before = before.clone();
        KubeFlags {
            kubeconfig: self.kubeconfig.or(before.kubeconfig),
            context: self.context.or(before.context),
            cluster: self.cluster.or(before.cluster),
            user: self.user.or(before.user),
            namespace: self.namespace.or(before.namespace),
            as_user: self.as_user.or(before.as_user),
            as_group: before.as_group.into_iter().chain(self.as_group).collect(),
            request_timeout: self.request_timeout.or(before.request_timeout),
            verbosity: if self.verbosity != 0 {
                self.verbosity
            } else {
                before.verbosity
            },
            env: before.env,
        }
    }
}

// A command that reads a kubeconfig: its own arguments, then kubectl's global flags. (A plain
// comment, as for `KubeFlags`.)
#[derive(Debug, Args)]
pub(crate) struct Connecting<A: Args> {
    #[command(flatten)]
    pub(crate) args: A,
    #[command(flatten)]
    pub(crate) kube: KubeFlags,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    // `about` rather than doc comments on the variants: a doc comment would also reset the
    // long help (`long_about`) each command's arguments struct declares.
    #[command(
        about = "Show the drift between AutoscalingRunnerSets and their EphemeralRunnerSets, as ARC sees it"
    )]
    Diff(Connecting<diff::DiffArgs>),
    #[command(
        about = "Show spec versus applied revisions of EphemeralRunnerSets, and why a set is stuck"
    )]
    Status(Connecting<status::StatusArgs>),
    #[command(about = "Request a new runner-spec revision, like `kubectl rollout restart`")]
    Bump(Connecting<bump::BumpArgs>),
    #[command(
        about = "Turn pending legacy integrity-hash cleanups into pending revisions during an upgrade"
    )]
    Migrate(Connecting<migrate::MigrateArgs>),
    #[command(
        about = "Plan an ARC upgrade: its steps in the order that loses no scale set, and what each does to them"
    )]
    UpgradePlan(Connecting<upgrade_plan::UpgradePlanArgs>),
    #[command(
        about = "Run the fixes ARC users run by hand (failed runners, ghost counters), only where no job can be lost"
    )]
    Repair(Connecting<repair::RepairArgs>),
    #[command(about = "Print the version and the supported k8s.io/api layouts")]
    Version(version::VersionArgs),
    #[command(
        about = "Print a shell completion script (bash, zsh, fish, powershell, elvish), or install kubectl's completer"
    )]
    Completion(completion::CompletionArgs),
}

pub use crate::shell::{ColorChoice, Env, Shell, Terminal};

/// The `-v`/`--v` level in `args`, read before parsing so logging is set up first (kubectl's
/// spellings: `-v 6`, `-v=6`, `-v6`, `--v 6`, `--v=6`). Unparsable values are left to clap.
pub fn verbosity_from_args(args: &[OsString]) -> u8 {
    // A completion request answers on stdout only: its stderr is the user's terminal.
    if args
        .get(1)
        .is_some_and(|a| a == completion::KUBECTL_COMPLETE_ARG)
    {
        return 0;
    }
    let mut level = 0;
    let mut it = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        let value = match a.as_str() {
            "-v" | "--v" => it.next(),
            _ => a
                .strip_prefix("--v=")
                .or_else(|| a.strip_prefix("-v="))
                .or_else(|| {
                    a.strip_prefix("-v")
                        .filter(|v| v.chars().all(|c| c.is_ascii_digit()) && !v.is_empty())
                })
                .map(str::to_string),
        };
        if let Some(n) = value.and_then(|v| v.parse().ok()) {
            level = n;
        }
    }
    level
}

/// The longest duration Go's `time.Duration` holds (int64 nanoseconds, about 292 years): kubectl
/// refuses longer ones, and a deadline must stay within what the clock can add.
pub(crate) const MAX_DURATION: Duration = Duration::new(9_223_372_036, 854_775_807);

/// kubectl's duration syntax: Go's `time.ParseDuration` (`30s`, `2m`, `1h30m`, `250ms`, `1.5h`;
/// units `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), or bare seconds as `--request-timeout` takes them
/// (`5`). Empty, negative, unknown units and anything beyond [`MAX_DURATION`] are errors, never a
/// panic: every number goes through `Duration::try_from_secs_f64` and checked additions.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    const EXAMPLES: &str = "examples: 30s, 2m, 1h30m, 250ms";
    // clap's message already quotes the value: these say what is wrong with it.
    let too_long = || "too long: at most 2562047h (Go's time.Duration, as in kubectl)".to_string();
    if s.is_empty() {
        return Err(format!("empty: not a duration ({EXAMPLES})"));
    }
    if s.starts_with('-') {
        return Err("a duration cannot be negative".to_string());
    }
    let body = s.strip_prefix('+').unwrap_or(s);
    let is_number = |c: char| c.is_ascii_digit() || c == '.';
    let amount = |number: &str, seconds_per_unit: f64| -> Result<Duration, String> {
        let n: f64 = number
            .parse()
            .map_err(|_| format!("not a duration ({EXAMPLES})"))?;
        Duration::try_from_secs_f64(n * seconds_per_unit).map_err(|_| too_long())
    };
    let total = if !body.is_empty() && body.chars().all(is_number) {
        // Bare seconds, as client-go reads --request-timeout.
        amount(body, 1.0)?
    } else {
        let mut total = Duration::ZERO;
        let mut rest = body;
        loop {
            let (number, tail) = rest.split_at(rest.find(|c| !is_number(c)).unwrap_or(rest.len()));
            let (unit, tail) = tail.split_at(tail.find(is_number).unwrap_or(tail.len()));
            if number.is_empty() {
                return Err(format!("not a duration ({EXAMPLES})"));
            }
            let seconds_per_unit = match unit {
                "h" => 3600.0,
                "m" => 60.0,
                "s" => 1.0,
                "ms" => 1e-3,
                "us" | "µs" | "μs" => 1e-6,
                "ns" => 1e-9,
                _ => {
                    return Err(format!(
                        "unknown unit {unit:?} (use h, m, s, ms, us or ns; {EXAMPLES})"
                    ));
                }
            };
            total = total
                .checked_add(amount(number, seconds_per_unit)?)
                .ok_or_else(too_long)?;
            if tail.is_empty() {
                break total;
            }
            rest = tail;
        }
    };
    if total > MAX_DURATION {
        return Err(too_long());
    }
    Ok(total)
}

/// `--qps`: client-side requests per second, `0` for no limit. Negative, NaN, infinite and values
/// so small that one request would wait beyond [`MAX_DURATION`] are refused.
pub(crate) fn parse_qps(s: &str) -> Result<f64, String> {
    let qps: f64 = s
        .trim()
        .parse()
        .map_err(|_| "not a number (e.g. 50, 0.5; 0 for no limit)".to_string())?;
    if !qps.is_finite() || qps < 0.0 {
        return Err("requests per second must be a finite number >= 0 (0 for no limit)".into());
    }
    if qps > 0.0 && qps < 1.0 / MAX_DURATION.as_secs_f64() {
        return Err("too small: one request would wait for centuries".into());
    }
    Ok(qps)
}

/// Parse `args` and run the command in `env`, writing data to `out` and diagnostics to `err`
/// through one [`Shell`]. Returns the process exit code.
///
/// A reader of `out` that goes away (`kubectl arc ... -o json | head -3`) ends the run quietly
/// with the exit code of the report being written (0 when none was said: help, completion, a
/// watch), so `| head -1` under `pipefail` keeps diff's 1: no message, whichever write met the
/// closed pipe (a renderer, a `--watch` row) and whatever error type it was wrapped in on the way up. A closed `err` only
/// loses the diagnostics: the run goes on and its exit code still tells how it went.
pub fn main<I, T>(
    args: I,
    term: Terminal,
    mut env: Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut out = PipeWatch::new(out);
    let mut err = PipeWatch::new(err);
    err.discard_when_closed = true;
    let mut shell = Shell::new(&mut out, &mut err, term);
    let result = run(args, &mut env, &mut shell);
    let verdict = shell.said_verdict();
    drop(shell); // (which clears a progress line)
    // Decided by the writer, not by the error's chain: a connection to the API server that broke
    // while a request was written also carries EPIPE, and is an error like any other. The code
    // is the report's, said before it was written (0 for a help text or a watch).
    if out.closed {
        return verdict.unwrap_or(EXIT_OK);
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ =
                Shell::new(&mut out, &mut err, Terminal::default()).error(format_args!("{e:#}"));
            EXIT_ERROR
        }
    }
}

fn run(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    env: &mut Env,
    shell: &mut Shell<'_>,
) -> anyhow::Result<u8> {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if let Some(code) = completion::intercept(&args, env, shell) {
        return Ok(code);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let rendered = if shell.color(ColorChoice::Auto) {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            let target = if e.use_stderr() {
                shell.err()
            } else {
                shell.out()
            };
            let _ = write!(target, "{rendered}");
            return Ok(code);
        }
    };
    let Some(command) = cli.command else {
        // `kubectl arc` alone: the help, as `kubectl` alone prints it (exit 0).
        let help = Cli::command().render_long_help();
        if shell.color(ColorChoice::Auto) {
            write!(shell.out(), "{}", help.ansi())?;
        } else {
            write!(shell.out(), "{help}")?;
        }
        return Ok(EXIT_OK);
    };
    // kubectl's flags after the command over those before it, the environment's KUBECONFIG and
    // home, and `-v` for the shell (no progress line under log lines).
    let kube = |flags: KubeFlags, shell: &mut Shell<'_>| {
        let mut kube = flags.over(&cli.kube);
        kube.env = crate::cluster::KubeEnv::from_env(env);
        shell.set_verbosity(kube.verbosity);
        kube
    };
    let (result, flags) = match command {
        Command::Diff(mut c) => {
            let mut k = kube(c.kube, shell);
            diff::resolve_contexts(&mut k, &mut c.args)?;
            (diff::run(&k, c.args, env, shell), k)
        }
        Command::Status(mut c) => {
            let mut k = kube(c.kube, shell);
            status::resolve_contexts(&mut k, &mut c.args)?;
            (status::run(&k, c.args, env, shell), k)
        }
        Command::Bump(c) => {
            let k = kube(c.kube, shell);
            (bump::run(&k, c.args, env, shell), k)
        }
        Command::Migrate(c) => {
            let k = kube(c.kube, shell);
            (migrate::run(&k, c.args, env, shell), k)
        }
        Command::UpgradePlan(mut c) => {
            let mut k = kube(c.kube, shell);
            upgrade_plan::resolve_contexts(&mut k, &mut c.args)?;
            (upgrade_plan::run(&k, c.args, env, shell), k)
        }
        Command::Repair(c) => {
            let k = kube(c.kube, shell);
            (repair::run(&k, c.args, env, shell), k)
        }
        Command::Version(args) => return version::run(args, shell.out()),
        Command::Completion(args) => return completion::run(args, env, shell),
    };
    result.map_err(|e| with_server(e, &flags.connect_options()))
}

/// A request that met no answer names the server and what to check, as kubectl does ("The
/// connection to the server HOST was refused - did you specify the right host or port?").
fn with_server(e: anyhow::Error, connect: &crate::cluster::ConnectOptions) -> anyhow::Error {
    let unreachable = e.chain().any(|c| {
        c.downcast_ref::<crate::cluster::ApiError>()
            .is_some_and(crate::cluster::ApiError::unreachable)
    });
    if !unreachable {
        return e;
    }
    let Some(server) = crate::cluster::server_of(connect) else {
        return e;
    };
    let causes = format!("{e:#}");
    let hint = if causes.contains("Connection refused") {
        format!(
            "the connection to the server {server} was refused - did you specify the right host or port? (the server of the kubeconfig's cluster: check --context, --kubeconfig and KUBECONFIG)"
        )
    } else {
        format!(
            "unable to connect to the server {server} - is it up and reachable from here? (the server of the kubeconfig's cluster: check --context, --kubeconfig, KUBECONFIG and --request-timeout)"
        )
    };
    e.context(hint)
}

/// A writer that notes when its reader has gone away (`EPIPE`), so [`main`] can end quietly
/// whatever became of the error on its way up (a `serde_json::Error`, a `fmt::Error`, a message).
/// With `discard_when_closed` (stderr), writes after that succeed and go nowhere.
struct PipeWatch<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
    discard_when_closed: bool,
}

impl<'a> PipeWatch<'a> {
    fn new(inner: &'a mut dyn Write) -> Self {
        PipeWatch {
            inner,
            closed: false,
            discard_when_closed: false,
        }
    }

    fn watch<R>(
        &mut self,
        discarded: R,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<R>,
    ) -> std::io::Result<R> {
        if self.closed && self.discard_when_closed {
            return Ok(discarded);
        }
        match write(&mut *self.inner) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                if self.discard_when_closed {
                    Ok(discarded)
                } else {
                    Err(e)
                }
            }
            other => other,
        }
    }
}

impl Write for PipeWatch<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.watch(buf.len(), |w| w.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.watch((), |w| w.write_all(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.watch((), |w| w.flush())
    }
}

/// What every command checks of its scope before it reads anything: `-A` excludes `-n`, the
/// namespace and each object name (`what`: "EphemeralRunnerSet name") are valid Kubernetes
/// names, and the label selector parses. The scope every operation takes.
pub(crate) fn checked_scope(
    kube: &KubeFlags,
    all_namespaces: bool,
    what: &'static str,
    names: &[String],
    selector: Option<&str>,
) -> anyhow::Result<crate::ops::Scope> {
    use anyhow::Context as _;
    if all_namespaces && kube.namespace.is_some() {
        anyhow::bail!("-A/--all-namespaces and -n/--namespace cannot be used together");
    }
    if let Some(ns) = &kube.namespace {
        crate::core::names::check_namespace(ns)?;
    }
    for name in names {
        crate::core::names::check_object_name(what, name)?;
    }
    let selector = selector
        .map(|s| crate::core::selector::Selector::parse(s).map(|parsed| (s.to_string(), parsed)))
        .transpose()
        .context("-l/--selector")?;
    Ok(crate::ops::Scope {
        namespace: kube.namespace.clone(),
        all_namespaces,
        names: names.to_vec(),
        selector,
    })
}

/// `--contexts PATTERN,...` / `--all-contexts` (`patterns` empty) against the kubeconfig's
/// contexts (read, not contacted), `None` when neither is given. A pattern that matches nothing,
/// or `--context`, `--cluster` or `--user` beside them, is a usage error.
pub(crate) fn selected_contexts(
    kube: &KubeFlags,
    patterns: &[String],
    all: bool,
) -> anyhow::Result<Option<Vec<String>>> {
    if !all && patterns.is_empty() {
        return Ok(None);
    }
    if let Some(c) = &kube.context {
        anyhow::bail!(
            "--context {c} and --contexts/--all-contexts cannot be used together: name it among --contexts"
        );
    }
    if kube.cluster.is_some() || kube.user.is_some() {
        anyhow::bail!(
            "--cluster and --user name one context's cluster or user: they cannot be used with --contexts/--all-contexts"
        );
    }
    Ok(Some(crate::ops::fleet::select(
        &kube.connect_options(),
        patterns,
    )?))
}

/// `--contexts`/`--all-contexts` resolved before a reading command (status, diff) runs: one
/// context selected is `--context NAME` (the one-context run, byte for byte, its errors naming
/// that context's server); several are kept in `selected` for the fleet run.
pub(crate) fn resolve_selection(
    kube: &mut KubeFlags,
    patterns: &mut Vec<String>,
    all: &mut bool,
    selected: &mut Vec<String>,
) -> anyhow::Result<()> {
    let Some(mut contexts) = selected_contexts(kube, patterns, *all)? else {
        return Ok(());
    };
    if contexts.len() == 1 {
        kube.context = contexts.pop();
        patterns.clear();
        *all = false;
    } else {
        *selected = contexts;
    }
    Ok(())
}

/// What `--contexts`/`--all-contexts` leave a command with.
pub(crate) enum Contexts {
    /// No pattern, or one context selected: the flags to run with (that context as `--context`,
    /// so the run is `--context NAME`'s byte for byte).
    One(Box<KubeFlags>),
    /// Several contexts, in the order they were selected.
    Several(Vec<String>),
}

/// [`selected_contexts`], as one context's flags or several contexts.
pub(crate) fn contexts_of(
    kube: &KubeFlags,
    patterns: &[String],
    all: bool,
) -> anyhow::Result<Contexts> {
    Ok(match selected_contexts(kube, patterns, all)? {
        Some(contexts) if contexts.len() > 1 => Contexts::Several(contexts),
        Some(mut one) => Contexts::One(Box::new(KubeFlags {
            context: one.pop(),
            ..kube.clone()
        })),
        None => Contexts::One(Box::new(kube.clone())),
    })
}

/// Where a run over several contexts ended, after each context's own lines: nothing written
/// anywhere because the dry run failed somewhere, or the context the writes stopped at and those
/// they did not reach.
pub(crate) fn say_rollout<R: crate::report::rollout::ContextReport>(
    rollout: &crate::report::rollout::Rollout<R>,
    shell: &mut Shell<'_>,
) -> std::io::Result<()> {
    use crate::report::rollout::{Phase, StageResult};
    match rollout.phase {
        Phase::CheckFailed => {
            let failed: Vec<String> = rollout
                .stages
                .iter()
                .filter(|s| s.result != StageResult::Succeeded)
                .map(|s| s.context.clone())
                .collect();
            shell.error(format_args!(
                "nothing was written in any context: the dry run before the writes failed in {}",
                name_a_few(&failed, 5)
            ))
        }
        Phase::Written => match rollout.stopped_at() {
            Some(stopped) if !rollout.not_reached().is_empty() => shell.error(format_args!(
                "stopped at context {}: nothing was written in {} (not reached)",
                stopped.context,
                name_a_few(&rollout.not_reached(), 5)
            )),
            _ => Ok(()),
        },
        Phase::DryRun => Ok(()),
    }
}

/// `--layout`: one of the shipped k8s.io/api layouts.
pub(crate) fn layout_arg(name: &str) -> anyhow::Result<&'static crate::core::layout::Layout> {
    use crate::core::layout::Layout;
    Layout::find(name).ok_or_else(|| {
        anyhow::anyhow!(
            "--layout {name}: unknown k8s.io/api layout (supported: {})",
            Layout::shipped_versions().collect::<Vec<_>>().join(", ")
        )
    })
}

/// `--arc-version VERSION`: a release of the table (`0.14.2`, `v0.14.2`,
/// `gha-runner-scale-set-0.14.2`) or `next` (ARC's master after 0.14.2); anything else is a usage
/// error listing what is known.
pub(crate) fn arc_version_arg(version: &str) -> anyhow::Result<crate::core::upgrade::Target> {
    crate::core::upgrade::Target::parse(version).ok_or_else(|| {
        let known: Vec<&str> = crate::core::release::releases()
            .iter()
            .map(|r| r.version)
            .collect();
        anyhow::anyhow!(
            "--arc-version {version:?}: not an ARC release kubectl-arc knows (known: {}, and next: ARC's master after 0.14.2)",
            known.join(", ")
        )
    })
}

/// A single-threaded runtime for the commands that talk to a cluster.
pub(crate) use crate::ops::runtime;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::EXIT_DRIFT;

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn verbosity_spellings() {
        let v = |args: &[&str]| {
            let a: Vec<OsString> = std::iter::once("kubectl-arc")
                .chain(args.iter().copied())
                .map(Into::into)
                .collect();
            verbosity_from_args(&a)
        };
        assert_eq!(v(&["diff"]), 0);
        assert_eq!(v(&["diff", "-v", "6"]), 6);
        assert_eq!(v(&["-v=9", "diff"]), 9);
        assert_eq!(v(&["diff", "-v4"]), 4);
        assert_eq!(v(&["diff", "--v=2"]), 2);
        assert_eq!(v(&["diff", "--", "-v=9"]), 0);
    }

    #[test]
    fn durations_like_kubectl() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("5").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
        // Go's time.ParseDuration spellings.
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert_eq!(
            parse_duration("2m3.5s").unwrap(),
            Duration::from_millis(123_500)
        );
        assert_eq!(
            parse_duration("1500us").unwrap(),
            Duration::from_micros(1500)
        );
        assert_eq!(parse_duration("7µs").unwrap(), Duration::from_micros(7));
        assert_eq!(parse_duration("10ns").unwrap(), Duration::from_nanos(10));
        assert_eq!(parse_duration("+5s").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(
            parse_duration("2562047h").unwrap(),
            Duration::from_secs(2562047 * 3600)
        );
    }

    /// Issue 14: `--request-timeout 99999999999999999999s` panicked in `Duration::from_secs_f64`.
    #[test]
    fn hostile_durations_are_errors_not_panics() {
        for s in [
            "99999999999999999999s",
            "99999999999999999999",
            "2562048h",
            "9223372037s",
            "1h2562047h",
            &"9".repeat(400),
            &format!("{}s", "9".repeat(400)),
            "-1s",
            "-0",
            "",
            "s",
            ".",
            ".s",
            "1..5s",
            "NaN",
            "nan",
            "inf",
            "infs",
            "1e9s",
            "5 s",
            "5\0s",
            "\u{0}",
        ] {
            let e = parse_duration(s).expect_err(s);
            assert!(!e.is_empty(), "{s:?}");
        }
        assert!(parse_duration("-1s").unwrap_err().contains("negative"));
        assert!(
            parse_duration("99999999999999999999s")
                .unwrap_err()
                .contains("too long")
        );
        assert!(parse_duration("").unwrap_err().contains("empty"));
    }

    #[test]
    fn qps_values() {
        assert_eq!(parse_qps("50").unwrap(), 50.0);
        assert_eq!(parse_qps("0").unwrap(), 0.0);
        assert_eq!(parse_qps("0.5").unwrap(), 0.5);
        for s in ["-1", "NaN", "inf", "-inf", "1e-300", "", "fast", "1e999"] {
            assert!(parse_qps(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn the_worst_outcome_decides_the_code() {
        let all = [Outcome::Clean, Outcome::Failed, Outcome::Drift];
        assert_eq!(all.iter().max().map(|o| o.code()), Some(EXIT_ERROR));
        assert_eq!(Outcome::default().code(), EXIT_OK);
        assert_eq!(Outcome::Drift.max(Outcome::Clean).code(), EXIT_DRIFT);
    }

    /// A reader that went away: every write fails with EPIPE.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_stdout_ends_quietly_and_a_closed_stderr_keeps_the_code() {
        let run = |args: &[&str], out: &mut dyn Write, err: &mut dyn Write| {
            let argv = std::iter::once("kubectl-arc").chain(args.iter().copied());
            main(argv, Terminal::default(), Env::default(), out, err)
        };
        let mut err = Vec::new();
        for args in [&["version", "-o", "json"][..], &[], &["completion", "zsh"]] {
            assert_eq!(run(args, &mut ClosedPipe, &mut err), EXIT_OK, "{args:?}");
        }
        assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
        let mut out = Vec::new();
        assert_eq!(
            run(&["diff", "--bogus"], &mut out, &mut ClosedPipe),
            EXIT_ERROR
        );
        assert_eq!(run(&["version"], &mut out, &mut ClosedPipe), EXIT_OK);
    }
}
