//! The flags several commands share, declared once (cargo's `command_prelude.rs` is the model):
//! kubectl's global flags, the scope (`-A`, `-l`), the contexts of a fleet (`--contexts`,
//! `--all-contexts`, `--parallel`), the release that judges (`--layout`, `--arc-version`), the
//! output format (`-o`) and the dry run (`--dry-run`), each a clap argument struct a command
//! flattens where its `--help` lists it, with the checks that go with it.
//!
//! A flag's help says what it does in that command, so each command gives its own text (and, for
//! the contexts, what they cannot be used with) through a small trait its marker type implements;
//! what every command says alike is written here.

use std::marker::PhantomData;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use clap::builder::{EnumValueParser, TypedValueParser};

use crate::cluster::ConnectOptions;
use crate::core::go::params::DryRun;
use crate::core::layout::Layout;
use crate::core::upgrade::Target;
use crate::render::emit::{self, Output};

// -A and -l: which namespaces, and which objects in them (diff, status, migrate, upgrade-plan;
// bump lists -l first, repair has no -l, so each declares its own and checks it with
// [`checked_scope`]). Plain comments on the flattened structs: clap makes a flattened struct's doc
// comment the command's help.
#[derive(Debug, Args)]
pub(crate) struct Scope<H: ScopeHelp> {
    #[arg(short = 'A', long, help = H::ALL_NAMESPACES)]
    pub(crate) all_namespaces: bool,
    #[arg(short = 'l', long, value_name = "SELECTOR", help = H::SELECTOR)]
    pub(crate) selector: Option<String>,
    #[arg(skip)]
    help: PhantomData<H>,
}

/// What `-A` and `-l` say in one command's help (without the final period, as clap writes a
/// one-paragraph doc comment).
pub(crate) trait ScopeHelp {
    const ALL_NAMESPACES: &'static str;
    const SELECTOR: &'static str;
}

impl<H: ScopeHelp> Scope<H> {
    /// [`checked_scope`] of these flags; `what` names the objects (`"EphemeralRunnerSet name"`).
    pub(crate) fn checked(
        &self,
        kube: &KubeFlags,
        what: &'static str,
        names: &[String],
    ) -> anyhow::Result<crate::ops::Scope> {
        checked_scope(
            kube,
            self.all_namespaces,
            what,
            names,
            self.selector.as_deref(),
        )
    }
}

// --contexts and --all-contexts: the kubeconfig contexts a command runs in, one after the other
// (bump, migrate) or all at once ([`Fleet`]).
#[derive(Debug, Args)]
pub(crate) struct Contexts<H: ContextsHelp> {
    #[arg(long, value_name = "PATTERN", value_delimiter = ',', help = H::CONTEXTS, conflicts_with_all = H::CONTEXTS_CONFLICT_WITH)]
    pub(crate) contexts: Vec<String>,
    #[arg(long, help = H::ALL_CONTEXTS, conflicts_with_all = H::ALL_CONTEXTS_CONFLICT_WITH)]
    pub(crate) all_contexts: bool,
    #[arg(skip)]
    help: PhantomData<H>,
}

/// What `--contexts` and `--all-contexts` say in one command's help, and the flags of that
/// command each cannot be used with (a dump, `--local`).
pub(crate) trait ContextsHelp {
    const CONTEXTS: &'static str;
    const CONTEXTS_CONFLICT_WITH: &'static [&'static str];
    const ALL_CONTEXTS: &'static str;
    const ALL_CONTEXTS_CONFLICT_WITH: &'static [&'static str];
}

impl<H: ContextsHelp> Contexts<H> {
    /// [`contexts_of`] these flags: one context's flags, or several contexts.
    pub(crate) fn of(&self, kube: &KubeFlags) -> anyhow::Result<SelectedContexts> {
        contexts_of(kube, &self.contexts, self.all_contexts)
    }
}

// The contexts of a command that reads them all at once (diff, status, upgrade-plan), at most
// --parallel at a time; `selected` is set by [`Fleet::resolve`] before the command runs.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("fleet").args(["contexts", "all_contexts"])))]
pub(crate) struct Fleet<H: ContextsHelp> {
    #[command(flatten)]
    pub(crate) contexts: Contexts<H>,
    /// With --contexts or --all-contexts: read at most N contexts at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..), requires = "fleet")]
    pub(crate) parallel: u16,
    /// Not a flag: the contexts `--contexts`/`--all-contexts` selected, when more than one
    /// ([`Fleet::resolve`]).
    #[arg(skip)]
    pub(crate) selected: Vec<String>,
}

impl<H: ContextsHelp> Fleet<H> {
    /// `--contexts`/`--all-contexts` resolved against the kubeconfig before the command runs: one
    /// context selected is `--context NAME` (the one-context run, byte for byte, its errors
    /// naming that context's server); several are kept in `selected` for the fleet run.
    pub(crate) fn resolve(&mut self, kube: &mut KubeFlags) -> anyhow::Result<()> {
        resolve_selection(
            kube,
            &mut self.contexts.contexts,
            &mut self.contexts.all_contexts,
            &mut self.selected,
        )
    }

    /// Several contexts were selected: the run is the fleet's.
    pub(crate) fn is_several(&self) -> bool {
        self.selected.len() > 1
    }

    /// The contexts selected, read at most `--parallel` at once.
    pub(crate) fn fleet(&self) -> crate::ops::fleet::Fleet {
        crate::ops::fleet::Fleet {
            contexts: self.selected.clone(),
            parallel: usize::from(self.parallel),
        }
    }
}

// --layout and --arc-version: the controller's build and the ARC release that judge (diff,
// status).
#[derive(Debug, Args)]
pub(crate) struct Judging<H: JudgingHelp> {
    /// The k8s.io/api layout of the ARC controller's build (v0.35, v0.36 or v0.37).
    #[arg(long, value_name = "VERSION", default_value = "v0.36")]
    pub(crate) layout: String,
    #[arg(long, value_name = "VERSION", help = H::ARC_VERSION)]
    pub(crate) arc_version: Option<String>,
    #[arg(skip)]
    help: PhantomData<H>,
}

/// What `--arc-version` says in one command's help.
pub(crate) trait JudgingHelp {
    const ARC_VERSION: &'static str;
}

impl<H: JudgingHelp> Judging<H> {
    /// `--layout`, checked ([`layout_arg`]).
    pub(crate) fn layout(&self) -> anyhow::Result<&'static Layout> {
        layout_arg(&self.layout)
    }

    /// `--arc-version`, checked ([`arc_version_arg`]); `None` when not given.
    pub(crate) fn target(&self) -> anyhow::Result<Option<Target>> {
        self.arc_version.as_deref().map(arc_version_arg).transpose()
    }
}

// -o: the output format, its formats and its default one command's own.
#[derive(Debug, Args)]
pub(crate) struct Format<H: FormatHelp> {
    #[arg(short = 'o', long, value_name = "FORMAT", help = H::OUTPUT, default_value = H::DEFAULT[0], value_parser = emit::OutputParser { formats: H::FORMATS, defaults: H::DEFAULT })]
    pub(crate) output: Output,
    #[arg(skip)]
    help: PhantomData<H>,
}

/// What `-o` says in one command's help, the format it writes without one (`table`, `text`), and
/// the formats it writes.
pub(crate) trait FormatHelp {
    const OUTPUT: &'static str;
    const DEFAULT: &'static [&'static str];
    const FORMATS: &'static [&'static str];
}

/// `--dry-run`'s values as the command line reads them, each with its help; read into the core's
/// [`DryRun`] by [`dry_run_parser`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DryRunMode {
    /// Write.
    None,
    /// Decide and report, send nothing.
    Client,
    /// Send with `dryRun=All`: the API server validates and answers, and persists nothing.
    Server,
}

/// `--dry-run=MODE` read into the core's [`DryRun`] (which names no clap).
pub(crate) fn dry_run_parser() -> impl TypedValueParser<Value = DryRun> {
    EnumValueParser::<DryRunMode>::new().map(|mode| match mode {
        DryRunMode::None => DryRun::None,
        DryRunMode::Client => DryRun::Client,
        DryRunMode::Server => DryRun::Server,
    })
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
pub(crate) enum SelectedContexts {
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
) -> anyhow::Result<SelectedContexts> {
    Ok(match selected_contexts(kube, patterns, all)? {
        Some(contexts) if contexts.len() > 1 => SelectedContexts::Several(contexts),
        Some(mut one) => SelectedContexts::One(Box::new(KubeFlags {
            context: one.pop(),
            ..kube.clone()
        })),
        None => SelectedContexts::One(Box::new(kube.clone())),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
