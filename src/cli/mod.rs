//! Command-line layer: argument parsing (clap) and the thin commands.
//!
//! Each command turns its arguments into a plan, runs it through the core and the cluster layer and
//! hands a report to a renderer. Output goes only through the writers passed in: data to `out`,
//! diagnostics to `err`. This module parses and dispatches; the flags several commands share are
//! declared once in [`args`], each command's own in its module.

pub(crate) mod args;
pub(crate) mod bump;
pub mod completion;
pub(crate) mod diff;
pub(crate) mod migrate;
pub(crate) mod repair;
pub(crate) mod rollout;
pub(crate) mod status;
pub(crate) mod upgrade_plan;
pub(crate) mod version;

use std::ffi::OsString;
use std::io::Write;

use clap::{CommandFactory as _, Parser, Subcommand};

use args::{Connecting, KubeFlags};

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
            c.args.fleet.resolve(&mut k)?;
            (diff::run(&k, c.args, env, shell), k)
        }
        Command::Status(mut c) => {
            let mut k = kube(c.kube, shell);
            c.args.fleet.resolve(&mut k)?;
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
            c.args.fleet.resolve(&mut k)?;
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
