//! Shell completion: `kubectl arc completion SHELL`, the call-back those scripts make on each TAB
//! (`COMPLETE=SHELL kubectl-arc -- WORDS...`), and kubectl's own plugin completion
//! (`kubectl_complete-arc WORDS...`, answered in cobra's `__complete` protocol).
//!
//! Command layer. One engine serves every shell: clap_complete's dynamic engine walks the clap
//! definition, so subcommands, flags and `-o`/`--dry-run` values of commands added later complete
//! with no work here. The values only the cluster knows (namespaces, AutoscalingRunnerSet and
//! EphemeralRunnerSet names) come from the cluster layer on a separate thread under a deadline:
//! a slow or unreachable API server yields no names, never a hung shell.
//!
//! kubectl's side of the protocol is `pluginCompletion` in kubernetes/kubectl
//! `pkg/cmd/plugin/plugin_completion.go`: it runs `kubectl_complete-arc` with the words typed after
//! `kubectl arc` (the last one being completed, empty for a new word), with the shell's stdin and
//! stderr, and reads one candidate a line (`value<TAB>description`), then an optional `:<directive>`
//! line holding cobra's `ShellCompDirective` bits. `completion install|uninstall` puts kubectl's
//! completer on PATH ([`install`]).

pub(crate) mod install;

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use anyhow::Result;
use clap::{Arg, Args, CommandFactory as _, FromArgMatches as _, ValueEnum};
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate, PathCompleter};
use clap_complete::env::{EnvCompleter, Shells};

use super::args::{KubeFlags, parse_duration};
use super::{Cli, EXIT_ERROR, EXIT_OK};
use crate::cluster::{self, ConnectOptions, names};
use crate::core::arc;
use crate::core::layout::Layout;
use crate::shell::Env;

/// The plugin's executable; the shell scripts register completion for it and call it back.
pub(crate) const BIN: &str = "kubectl-arc";
/// The executable kubectl 1.26+ looks up on PATH to complete `kubectl arc ...`.
pub(crate) const KUBECTL_COMPLETER: &str = "kubectl_complete-arc";
/// The hidden argument that makes `kubectl-arc` answer like `kubectl_complete-arc`.
pub(crate) const KUBECTL_COMPLETE_ARG: &str = "__complete";
/// The environment variable through which the shell scripts ask for candidates.
pub const ENV_VAR: &str = "COMPLETE";
/// Overrides [`DEFAULT_TIMEOUT`] (kubectl's duration syntax: `500ms`, `2s`).
pub(crate) const TIMEOUT_ENV: &str = "KUBECTL_ARC_COMPLETION_TIMEOUT";
/// How long a TAB waits for the API server before it completes without live names.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// Cobra's `ShellCompDirective` bits (spf13/cobra `completions.go`), as kubectl relays them.
pub(crate) mod directive {
    /// An error occurred; the shell ignores the candidates.
    pub(crate) const ERROR: u32 = 1;
    /// No space after a single candidate (a directory, a `--flag=` prefix).
    pub(crate) const NO_SPACE: u32 = 2;
    /// No file completion when there are no candidates.
    pub(crate) const NO_FILE_COMP: u32 = 4;
    /// The candidates are file extensions to filter file completion by.
    pub(crate) const FILTER_FILE_EXT: u32 = 8;
    /// Let the shell do its default (file) completion.
    pub(crate) const DEFAULT: u32 = 0;
}

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true,
    long_about = "Print a shell completion script for kubectl-arc, or install kubectl's plugin \
completer.\n\n\
bash, zsh, fish, powershell and elvish: the script registers completion for the kubectl-arc \
command. On each TAB the shell runs `COMPLETE=<shell> kubectl-arc -- <words>`, and kubectl-arc \
answers with subcommands, flags, flag values (-o formats, --dry-run modes, kubeconfig contexts) and \
the live namespaces and scale-set names of the current context.\n\n\
install: for `kubectl arc <TAB>`, kubectl 1.26+ runs kubectl_complete-arc from PATH with the words \
typed after `kubectl arc`. kubectl-arc answers as kubectl_complete-arc when run under that name, so \
`completion install` puts a link of that name next to it: in krew's bin directory when run from \
krew (KREW_ROOT, else ~/.krew), else next to the executable, or in --dir. `completion uninstall` \
removes it (before `kubectl krew uninstall arc`).\n\n\
kubectl: the same as a small script (`exec kubectl-arc __complete \"$@\"`), for a PATH where a link \
cannot go.\n\n\
Reads nothing to print a script. While completing, reads the kubeconfig and lists namespaces, \
AutoscalingRunnerSets and EphemeralRunnerSets with a 2s deadline (KUBECTL_ARC_COMPLETION_TIMEOUT \
changes it; --request-timeout on the line being completed shortens it); never writes.",
    after_help = "Examples:\n  \
# bash, in this shell (add the line to ~/.bashrc to keep it)\n  \
source <(kubectl arc completion bash)\n\n  \
# zsh, in ~/.zshrc after compinit\n  \
source <(kubectl arc completion zsh)\n\n  \
# fish\n  \
kubectl arc completion fish > ~/.config/fish/completions/kubectl-arc.fish\n\n  \
# PowerShell, in $PROFILE\n  \
kubectl arc completion powershell | Out-String | Invoke-Expression\n\n  \
# `kubectl arc <TAB>` through kubectl's own completion (krew installs included)\n  \
kubectl arc completion install"
)]
pub(crate) struct CompletionArgs {
    /// The shell to print the script for, or `kubectl` for kubectl's plugin completer.
    #[arg(value_enum, required = true)]
    pub(crate) shell: Option<Shell>,
    #[command(subcommand)]
    pub(crate) action: Option<CompletionAction>,
}

/// `kubectl arc completion install|uninstall`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum CompletionAction {
    /// Put kubectl_complete-arc on PATH, for `kubectl arc <TAB>` (kubectl 1.26+).
    Install(install::InstallArgs),
    /// Remove what `completion install` put on PATH.
    Uninstall(install::InstallArgs),
}

/// A completion script `kubectl arc completion` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
    /// The `kubectl_complete-arc` script kubectl runs for `kubectl arc <TAB>`.
    Kubectl,
}

impl Shell {
    /// Every script, with its file name under `completions/` (each shell's usual name).
    pub const SCRIPTS: [(Shell, &'static str); 6] = [
        (Shell::Bash, "kubectl-arc.bash"),
        (Shell::Zsh, "_kubectl-arc"),
        (Shell::Fish, "kubectl-arc.fish"),
        (Shell::Powershell, "_kubectl-arc.ps1"),
        (Shell::Elvish, "kubectl-arc.elv"),
        (Shell::Kubectl, KUBECTL_COMPLETER),
    ];

    fn env_completer(self) -> Option<&'static dyn EnvCompleter> {
        Some(match self {
            Shell::Bash => &clap_complete::env::Bash,
            Shell::Zsh => &clap_complete::env::Zsh,
            Shell::Fish => &clap_complete::env::Fish,
            Shell::Powershell => &clap_complete::env::Powershell,
            Shell::Elvish => &clap_complete::env::Elvish,
            Shell::Kubectl => return None,
        })
    }
}

pub(crate) fn run(args: CompletionArgs, env: &Env, ui: &mut crate::shell::Shell) -> Result<u8> {
    use self::install::{Action, run as install};
    match (args.action, args.shell) {
        (Some(CompletionAction::Install(a)), _) => install(Action::Install, a, env, ui),
        (Some(CompletionAction::Uninstall(a)), _) => install(Action::Uninstall, a, env, ui),
        (None, Some(shell)) => {
            write_script(shell, ui.out())?;
            Ok(EXIT_OK)
        }
        // clap requires one of the two.
        (None, None) => Ok(EXIT_ERROR),
    }
}

/// Whether the process was started as kubectl's plugin completer (`argv[0]` is
/// `kubectl_complete-arc`, a link to or a copy of `kubectl-arc`), so its arguments are the words
/// typed after `kubectl arc`.
pub fn invoked_as_kubectl_completer(arg0: &OsStr) -> bool {
    Path::new(arg0)
        .file_stem()
        .is_some_and(|stem| stem == KUBECTL_COMPLETER)
}

/// The `kubectl_complete-arc` script: kubectl passes the words, kubectl-arc answers.
pub(crate) const KUBECTL_SCRIPT: &str = "#!/bin/sh
# kubectl's shell completion for the kubectl-arc plugin (kubectl 1.26+ runs kubectl_complete-arc
# from PATH with the words typed after `kubectl arc`). Generated by `kubectl arc completion kubectl`.
exec kubectl-arc __complete \"$@\"
";

/// The bash registration. clap_complete's passes bash's words as bash split them, and bash splits
/// at every character of `COMP_WORDBREAKS`, `=` among them: `--output=js` reached kubectl-arc as
/// `--output`, `=`, `js`, and a reply replaced `js` with `--output=json`. This one joins a word
/// split at `=` again before asking (what bash-completion's `_get_comp_words_by_ref -n =` does,
/// and cobra's scripts through it), and takes the `--flag=` the shell keeps off each reply. It
/// also keeps bash's trailing space unless the one reply ends in `=`, `/` or `:` (clap's looked at
/// the first reply only, so `-o <TAB>`, whose list holds `jsonpath=`, lost its space).
const BASH_SCRIPT: &str = r#"_clap_complete_kubectl_arc() {
    local IFS=$'\013'
    local _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE}
    # Join the words bash split at `=`: `--output`, `=`, `js` is the one word `--output=js`.
    local words=() i cword=0 joined=false
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        local w=${COMP_WORDS[i]}
        if [[ $i -eq $COMP_CWORD && "${BASH_VERSINFO[0]}" -ge 4 && $w != "=" ]]; then
            w=$2
        fi
        if [[ ${#words[@]} -gt 0 && ( $w == "=" || $joined == true ) ]]; then
            words[${#words[@]}-1]+=$w
            [[ $w == "=" ]] && joined=true || joined=false
        else
            words+=("$w")
            joined=false
        fi
        if [[ $i -eq $COMP_CWORD ]]; then
            cword=$((${#words[@]} - 1))
            break
        fi
    done
    local cur=${words[cword]}
    COMPREPLY=( $(         _CLAP_IFS="$IFS"         _CLAP_COMPLETE_INDEX="$cword"         _CLAP_COMPLETE_COMP_TYPE="$_CLAP_COMPLETE_COMP_TYPE"         _CLAP_COMPLETE_SPACE=false         COMPLETE="bash"         "kubectl-arc" -- "${words[@]}"     ) )
    if [[ $? != 0 ]]; then
        unset COMPREPLY
        return
    fi
    # Where bash split at `=`, it replaces only what follows it: reply with the value alone (not
    # where COMP_WORDBREAKS has no `=` and the word is whole).
    if [[ $cur == -*=* && ${COMP_WORDS[COMP_CWORD]} != -*=* ]]; then
        local prefix=${cur%%=*}=
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}
        done
    fi
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} =~ [=/:]$ ]]; then
        compopt -o nospace 2> /dev/null
    else
        compopt +o nospace 2> /dev/null
    fi
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _clap_complete_kubectl_arc kubectl-arc
else
    complete -o nospace -o bashdefault -F _clap_complete_kubectl_arc kubectl-arc
fi
"#;

/// The registration script of `shell`: ours for bash ([`BASH_SCRIPT`]), clap_complete's for the
/// others.
fn write_registration(shell: &dyn EnvCompleter, out: &mut dyn Write) -> io::Result<()> {
    if shell.name() == "bash" {
        return out.write_all(BASH_SCRIPT.as_bytes());
    }
    shell.write_registration(ENV_VAR, BIN, BIN, BIN, out)
}

/// Write the completion script for `shell`.
pub fn write_script(shell: Shell, out: &mut dyn Write) -> io::Result<()> {
    let Some(completer) = shell.env_completer() else {
        return out.write_all(KUBECTL_SCRIPT.as_bytes());
    };
    let mut script = Vec::new();
    write_registration(completer, &mut script)?;
    let script = String::from_utf8_lossy(&script);
    let script = script.trim_start_matches('\n');
    let header = format!(
        "# Completion for kubectl-arc. Generated by `kubectl arc completion {}`: on each TAB the\n\
         # shell asks kubectl-arc itself (COMPLETE={0}), so regenerate this after an upgrade.\n",
        completer.name()
    );
    // zsh's autoloader wants `#compdef` on the first line.
    match script.strip_prefix("#compdef") {
        Some(rest) => {
            let (first, rest) = rest.split_once('\n').unwrap_or((rest, ""));
            write!(out, "#compdef{first}\n{header}{rest}")
        }
        None => write!(out, "{header}{script}"),
    }
}

/// Answer a completion request if `args` (the process's arguments, `args[0]` being the program)
/// is one: `COMPLETE=<shell>` in the environment (the shell scripts), or `__complete` as the first
/// argument (`kubectl_complete-arc`'s protocol). Returns the exit code when it was one.
///
/// The binary's `main` takes `COMPLETE` out of the process environment before anything runs, so
/// the kubeconfig's exec plugins do not see the request; `env` still has it.
pub(crate) fn intercept(args: &[OsString], env: &Env, ui: &mut crate::shell::Shell) -> Option<u8> {
    if args.get(1).is_some_and(|a| a == KUBECTL_COMPLETE_ARG) {
        return Some(match kubectl_plugin(&args[2..], env, ui.out()) {
            Ok(()) => EXIT_OK,
            Err(_) => EXIT_ERROR,
        });
    }
    let shell = env.var_os(ENV_VAR)?;
    if shell.is_empty() || shell == "0" {
        return None;
    }
    let name = Path::new(shell)
        .file_stem()
        .unwrap_or(shell)
        .to_string_lossy()
        .into_owned();
    let shells = Shells::builtins();
    let Some(completer) = shells.completer(&name) else {
        let _ = ui.error(format_args!(
            "{ENV_VAR}={name}: unknown shell (supported: bash, elvish, fish, powershell, zsh)"
        ));
        return Some(EXIT_ERROR);
    };
    let words: Vec<OsString> = match args.iter().position(|a| a == "--") {
        Some(i) => args[i + 1..].to_vec(),
        None => Vec::new(),
    };
    let result = if words.is_empty() {
        write_registration(completer, ui.out())
    } else {
        let current = env
            .var("_CLAP_COMPLETE_INDEX")
            .and_then(|i| i.parse().ok())
            .unwrap_or(words.len() - 1);
        let requests = Arc::new(Requests::from_words(&words, current, env));
        let mut cmd = command(&requests);
        completer.write_complete(&mut cmd, words, env.cwd.as_deref(), ui.out())
    };
    Some(match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            let _ = ui.error(format_args!("completion failed: {e}"));
            EXIT_ERROR
        }
    })
}

/// kubectl's plugin completion: `words` are those typed after `kubectl arc`, the last being the one
/// to complete (empty for a new word). Writes one `value<TAB>description` line per candidate and a
/// final `:<directive>` line.
pub fn kubectl_plugin(words: &[OsString], env: &Env, out: &mut dyn Write) -> io::Result<()> {
    let mut args = vec![OsString::from(BIN)];
    args.extend(words.iter().cloned());
    if words.is_empty() {
        args.push(OsString::new());
    }
    let current = args.len() - 1;
    let typed = args[current].clone();
    let requests = Arc::new(Requests::from_words(&args, current, env));
    let mut cmd = command(&requests);
    let candidates =
        match clap_complete::engine::complete(&mut cmd, args, current, env.cwd.as_deref()) {
            Ok(c) => c,
            Err(_) => return writeln!(out, ":{}", directive::ERROR),
        };
    match *requests.path.lock().unwrap_or_else(|e| e.into_inner()) {
        // As kubectl's own -f: the shell completes files, filtered by extension.
        Some(PathKind::Manifests) => {
            for ext in ["yaml", "yml", "json"] {
                writeln!(out, "{ext}")?;
            }
            return writeln!(out, ":{}", directive::FILTER_FILE_EXT);
        }
        Some(PathKind::Any) => return writeln!(out, ":{}", directive::DEFAULT),
        None => {}
    }
    let typed = typed.to_string_lossy();
    // `--flag=prefix` (or `-f=prefix`): cobra completes the value alone (`checkIfFlagCompletion`
    // in spf13/cobra `completions.go`), and the shell keeps `--flag=` (bash breaks words at `=`),
    // so `--dry-run=none` would become `--dry-run=--dry-run=none`.
    let flag_with_equal = typed
        .starts_with('-')
        .then(|| typed.find('='))
        .flatten()
        .map(|i| &typed[..=i]);
    // Like cobra: flags are offered once the word starts with `-` and holds no `=`.
    let offer_flags = typed.starts_with('-') && flag_with_equal.is_none();
    let mut no_space = false;
    let mut any = false;
    for c in candidates {
        let candidate = c.get_value().to_string_lossy();
        let value = match flag_with_equal {
            Some(flag) => match candidate.strip_prefix(flag) {
                Some(value) => value,
                None => continue,
            },
            None => &candidate,
        };
        if !offer_flags && value.starts_with('-') {
            continue;
        }
        any = true;
        no_space |= value.ends_with('=') || value.ends_with('/');
        match c.get_help().map(|h| h.to_string()) {
            Some(help) if !help.is_empty() => {
                let first = help.lines().next().unwrap_or_default();
                writeln!(out, "{value}\t{first}")?;
            }
            _ => writeln!(out, "{value}")?,
        }
    }
    let mut bits = directive::NO_FILE_COMP;
    if any && no_space {
        bits |= directive::NO_SPACE;
    }
    writeln!(out, ":{bits}")
}

/// Which ARC resource each command's NAME arguments name. A command listed here completes its
/// positional arguments with the live names of that resource in the namespace in scope.
type Named = &'static [(&'static str, &'static str)];
const SCALE_SETS: Named = &[(arc::AUTOSCALING_RUNNER_SETS, "AutoscalingRunnerSet")];
const SETS: Named = &[(arc::EPHEMERAL_RUNNER_SETS, "EphemeralRunnerSet")];
/// status and bump take a set's name or its scale set's (ARC up to 0.14 names its sets
/// `<scale set>-xxxxx`): both are offered.
const SETS_AND_SCALE_SETS: Named = &[
    (arc::EPHEMERAL_RUNNER_SETS, "EphemeralRunnerSet"),
    (arc::AUTOSCALING_RUNNER_SETS, "AutoscalingRunnerSet"),
];
const NAMED_RESOURCES: &[(&str, Named)] = &[
    ("diff", SCALE_SETS),
    ("status", SETS_AND_SCALE_SETS),
    ("bump", SETS_AND_SCALE_SETS),
    ("migrate", SETS),
    ("upgrade-plan", SCALE_SETS),
];

/// What kind of path a request completes (kubectl's protocol leaves paths to the shell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKind {
    /// Manifests (`-f`): `.yaml`, `.yml` and `.json` files.
    Manifests,
    /// Any file (`--kubeconfig`).
    Any,
}

/// One completion request: what the words already typed say (kubectl's global flags, the names
/// already given) and what the engine asked for.
struct Requests {
    kube: Option<KubeFlags>,
    /// Positional values already typed (not offered again).
    typed_names: Vec<String>,
    /// `-A` is on the line: names come from every namespace.
    all_namespaces: bool,
    /// The deadline for the API server.
    timeout: Duration,
    /// Set when the engine completes a path argument.
    path: Mutex<Option<PathKind>>,
    /// `KUBECONFIG` and the home directory, also when the line's flags did not parse.
    env: cluster::KubeEnv,
}

impl Requests {
    /// Read the flags out of `args` (`args[0]` the program), leaving out the word being completed.
    fn from_words(args: &[OsString], current: usize, env: &Env) -> Requests {
        let typed = args
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != current)
            .map(|(_, a)| a.clone());
        let matches = Cli::command()
            .ignore_errors(true)
            .try_get_matches_from(typed)
            .ok();
        // kubectl's flags before the command, and after it for the commands that take them.
        let kube = matches.as_ref().and_then(|m| {
            let before = KubeFlags::from_arg_matches(m).ok()?;
            let after = m
                .subcommand()
                .filter(|(name, _)| takes_kube_flags(name))
                .and_then(|(_, sub)| KubeFlags::from_arg_matches(sub).ok());
            let mut kube = match after {
                Some(after) => after.over(&before),
                None => before,
            };
            kube.env = crate::cluster::KubeEnv::from_env(env);
            Some(kube)
        });
        let all_namespaces = matches
            .as_ref()
            .and_then(|m| m.subcommand())
            .and_then(|(_, sub)| sub.try_get_one::<bool>("all_namespaces").ok().flatten())
            .copied()
            .unwrap_or(false);
        let typed_names = matches
            .as_ref()
            .and_then(|m| m.subcommand())
            .and_then(|(_, sub)| sub.try_get_many::<String>("names").ok().flatten())
            .map(|names| names.cloned().collect())
            .unwrap_or_default();
        let timeout = env
            .var(TIMEOUT_ENV)
            .and_then(|t| parse_duration(t).ok())
            .filter(|t| !t.is_zero())
            .unwrap_or(DEFAULT_TIMEOUT);
        Requests {
            kube,
            typed_names,
            all_namespaces,
            timeout,
            path: Mutex::new(None),
            env: crate::cluster::KubeEnv::from_env(env),
        }
    }

    fn connect_options(&self) -> ConnectOptions {
        let mut opts = self
            .kube
            .as_ref()
            .map(KubeFlags::connect_options)
            .unwrap_or_else(|| ConnectOptions {
                env: self.env.clone(),
                ..ConnectOptions::default()
            });
        opts.request_timeout = Some(self.deadline());
        opts
    }

    /// The completion deadline, shortened by a `--request-timeout` typed on the line.
    fn deadline(&self) -> Duration {
        self.kube
            .as_ref()
            .and_then(|k| k.request_timeout)
            .filter(|t| !t.is_zero())
            .map_or(self.timeout, |t| t.min(self.timeout))
    }

    fn namespace(&self) -> Option<String> {
        self.kube.as_ref().and_then(|k| k.namespace.clone())
    }

    /// Ask the API server on another thread; `None` when it fails or misses the deadline. The
    /// thread is left behind on a timeout: the process exits right after answering.
    fn ask(&self, query: Query) -> Option<Answer> {
        let opts = self.connect_options();
        let namespace = self.namespace();
        let all_namespaces = self.all_namespaces;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("completion-lookup".into())
            .spawn(move || {
                let answer = super::runtime().and_then(|rt| {
                    rt.block_on(async move {
                        let conn = cluster::connect(&opts).await?;
                        Ok(match query {
                            Query::Namespaces => {
                                Answer::Namespaces(names::namespaces(&conn.client).await?)
                            }
                            Query::Names(resources) => {
                                let ns = namespace.unwrap_or(conn.default_namespace);
                                let scope = (!all_namespaces).then_some(ns.as_str());
                                let mut all = Vec::new();
                                for &(plural, kind) in resources {
                                    let names =
                                        names::arc_object_names(&conn.client, plural, scope)
                                            .await?;
                                    all.extend(names.into_iter().map(|(ns, n)| (kind, ns, n)));
                                }
                                Answer::Names(all)
                            }
                        })
                    })
                });
                let _ = tx.send(answer);
            })
            .ok()?;
        rx.recv_timeout(self.deadline()).ok()?.ok()
    }
}

/// Whether command `name` takes kubectl's global flags (`version` and `completion` do not).
fn takes_kube_flags(name: &str) -> bool {
    Cli::command()
        .find_subcommand(name)
        .is_some_and(|c| c.get_arguments().any(|a| a.get_id() == "kubeconfig"))
}

enum Query {
    Namespaces,
    Names(Named),
}

enum Answer {
    Namespaces(Vec<String>),
    /// Kind, namespace and name.
    Names(Vec<(&'static str, String, String)>),
}

/// The command line with completers attached to the arguments whose values clap cannot know.
fn command(requests: &Arc<Requests>) -> clap::Command {
    let mut cmd = Cli::command();
    cmd.build();
    attach(cmd, None, requests)
}

fn attach(cmd: clap::Command, name: Option<&str>, requests: &Arc<Requests>) -> clap::Command {
    let resource = name.and_then(|n| NAMED_RESOURCES.iter().find(|(c, _)| *c == n));
    let cmd = cmd.mut_args(|arg| match completer_for(&arg, resource, requests) {
        Some(c) => arg.add(c),
        None => arg,
    });
    cmd.mut_subcommands(|sub| {
        let name = sub.get_name().to_string();
        attach(sub, Some(&name), requests)
    })
}

fn completer_for(
    arg: &Arg,
    resource: Option<&(&str, Named)>,
    requests: &Arc<Requests>,
) -> Option<ArgValueCompleter> {
    let r = Arc::clone(requests);
    let id = arg.get_id().as_str();
    Some(match id {
        "namespace" => ArgValueCompleter::new(move |current: &OsStr| namespaces(&r, current)),
        "context" | "cluster" | "user" => {
            let id = id.to_string();
            ArgValueCompleter::new(move |current: &OsStr| kubeconfig_names(&r, &id, current))
        }
        "layout" => ArgValueCompleter::new(layouts),
        "arc_version" | "to" => ArgValueCompleter::new(releases_and_next),
        "contexts" => ArgValueCompleter::new(move |current: &OsStr| context_patterns(&r, current)),
        _ if arg.is_positional() => {
            let &(_, named) = resource?;
            ArgValueCompleter::new(move |current: &OsStr| arc_names(&r, named, current))
        }
        _ if matches!(
            arg.get_value_hint(),
            clap::ValueHint::AnyPath | clap::ValueHint::FilePath
        ) =>
        {
            let kind = if id == "files" {
                PathKind::Manifests
            } else {
                PathKind::Any
            };
            ArgValueCompleter::new(move |current: &OsStr| {
                *r.path.lock().unwrap_or_else(|e| e.into_inner()) = Some(kind);
                let mut paths = PathCompleter::any();
                if kind == PathKind::Manifests {
                    paths = paths.stdio();
                }
                clap_complete::engine::ValueCompleter::complete(&paths, current)
            })
        }
        _ => return None,
    })
}

fn starts_with(candidate: &str, current: &OsStr) -> bool {
    current
        .to_str()
        .is_some_and(|prefix| candidate.starts_with(prefix))
}

fn namespaces(requests: &Requests, current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(Answer::Namespaces(list)) = requests.ask(Query::Namespaces) else {
        return Vec::new();
    };
    list.into_iter()
        .filter(|ns| starts_with(ns, current))
        .map(CompletionCandidate::new)
        .collect()
}

fn arc_names(requests: &Requests, named: Named, current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(Answer::Names(list)) = requests.ask(Query::Names(named)) else {
        return Vec::new();
    };
    // With -A a name can live in several namespaces, and (status, bump) be a set's and a scale
    // set's: offered once, naming the kinds and the namespaces.
    type Seen = (Vec<&'static str>, Vec<String>);
    let mut seen: std::collections::BTreeMap<String, Seen> = Default::default();
    for (kind, ns, name) in list {
        if starts_with(&name, current) && !requests.typed_names.contains(&name) {
            let (kinds, namespaces) = seen.entry(name).or_default();
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
            if !namespaces.contains(&ns) {
                namespaces.push(ns);
            }
        }
    }
    seen.into_iter()
        .map(|(name, (kinds, namespaces))| {
            let help = format!("{} in {}", kinds.join(" and "), few_namespaces(&namespaces));
            CompletionCandidate::new(name).help(Some(help.into()))
        })
        .collect()
}

/// The ARC releases kubectl-arc knows, newest first.
fn arc_versions(current: &OsStr) -> Vec<CompletionCandidate> {
    crate::core::release::releases()
        .iter()
        .rev()
        .filter(|r| starts_with(r.version, current))
        .map(|r| {
            let help = format!(
                "gha-runner-scale-set {} (k8s.io/api {})",
                r.version, r.k8s_api
            );
            CompletionCandidate::new(r.version).help(Some(help.into()))
        })
        .collect()
}

/// `--arc-version` and `upgrade-plan --to`: `next`, then the releases known, newest first.
fn releases_and_next(current: &OsStr) -> Vec<CompletionCandidate> {
    let next = starts_with("next", current).then(|| {
        CompletionCandidate::new("next").help(Some("ARC's master after 0.14.2 (no tag yet)".into()))
    });
    next.into_iter().chain(arc_versions(current)).collect()
}

/// `a`, `a, b, c`, or `a, b, c and 4 more`: a description stays one short line.
fn few_namespaces(namespaces: &[String]) -> String {
    const FEW: usize = 3;
    if namespaces.len() <= FEW {
        return namespaces.join(", ");
    }
    format!(
        "{} and {} more",
        namespaces[..FEW].join(", "),
        namespaces.len() - FEW
    )
}

fn kubeconfig_names(requests: &Requests, id: &str, current: &OsStr) -> Vec<CompletionCandidate> {
    let Ok(names) = names::kubeconfig_names(&requests.connect_options()) else {
        return Vec::new();
    };
    let list = match id {
        "context" => names.contexts,
        "cluster" => names.clusters,
        _ => names.users,
    };
    list.into_iter()
        .filter(|n| starts_with(n, current))
        .map(CompletionCandidate::new)
        .collect()
}

/// `--contexts`: the kubeconfig's context names for the pattern being typed, after a leading `!`
/// (an exclusion). clap's engine splits the value at its commas (`value_delimiter`) and hands
/// only the last pattern here, putting back what was typed before it.
fn context_patterns(requests: &Requests, current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(text) = current.to_str() else {
        return Vec::new();
    };
    let Ok(names) = names::kubeconfig_names(&requests.connect_options()) else {
        return Vec::new();
    };
    let (bang, prefix) = match text.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", text),
    };
    names
        .contexts
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(|n| CompletionCandidate::new(format!("{bang}{n}")))
        .collect()
}

/// `--layout`: the shipped k8s.io/api layouts, by minor version (`--layout` accepts both).
fn layouts(current: &OsStr) -> Vec<CompletionCandidate> {
    Layout::shipped_versions()
        .enumerate()
        .filter_map(|(i, full)| {
            let minor = full.rsplit_once('.').map_or(full, |(m, _)| m);
            let help = if i == 0 {
                format!("k8s.io/api {full} (ARC's pin)")
            } else {
                format!("k8s.io/api {full}")
            };
            starts_with(minor, current)
                .then(|| CompletionCandidate::new(minor).help(Some(help.into())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(words: &[&str]) -> String {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        let mut out = Vec::new();
        kubectl_plugin(&words, &Env::default(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn values(output: &str) -> Vec<&str> {
        output
            .lines()
            .map(|l| l.split('\t').next().unwrap())
            .collect()
    }

    #[test]
    fn subcommands_with_descriptions_and_no_file_completion() {
        let out = complete(&[""]);
        let v = values(&out);
        for sub in ["diff", "migrate", "version", "completion"] {
            assert!(v.contains(&sub), "{sub} missing in\n{out}");
        }
        assert!(out.contains("diff\tShow the drift"), "{out}");
        assert!(
            !v.iter().any(|c| c.starts_with('-')),
            "no flags for an empty word:\n{out}"
        );
        assert_eq!(out.lines().last(), Some(":4"));
        assert_eq!(values(&complete(&["mi"])), ["migrate", ":4"]);
    }

    #[test]
    fn flags_once_the_word_starts_with_a_dash() {
        let out = complete(&["diff", "--"]);
        let v = values(&out);
        for flag in [
            "--output",
            "--namespace",
            "--kubeconfig",
            "--context",
            "--all-namespaces",
        ] {
            assert!(v.contains(&flag), "{flag} missing in\n{out}");
        }
        let v2 = complete(&["migrate", "--dr"]);
        assert_eq!(values(&v2), ["--dry-run", ":4"]);
    }

    #[test]
    fn flag_values_output_formats_and_dry_run_modes() {
        let v = complete(&["diff", "-o", ""]);
        // jsonpath= and custom-columns= take their value after the `=`: no space (`:6`).
        assert_eq!(
            values(&v),
            [
                "text",
                "json",
                "yaml",
                "github",
                "name",
                "jsonpath=",
                "custom-columns=",
                ":6"
            ]
        );
        // cobra's protocol: after `--flag=` the value alone (issue 14: bash made
        // `--dry-run=--dry-run=none` of `--dry-run=none`).
        let v = complete(&["migrate", "--dry-run="]);
        assert_eq!(values(&v), ["none", "client", "server", ":4"]);
        let v = complete(&["bump", "--dry-run=s"]);
        assert_eq!(values(&v), ["server", ":4"]);
        let v = complete(&["diff", "--output="]);
        assert_eq!(
            values(&v),
            [
                "text",
                "json",
                "yaml",
                "github",
                "name",
                "jsonpath=",
                "custom-columns=",
                ":6"
            ]
        );
        assert!(v.contains("github\tGitHub Actions"), "{v}");
        let v = complete(&["diff", "-o=j"]);
        assert_eq!(values(&v), ["json", "jsonpath=", ":6"]);
        let v = complete(&["status", "--color=n"]);
        assert_eq!(values(&v), ["never", ":4"]);
        let v = complete(&["diff", "--layout=v0.37"]);
        assert_eq!(values(&v), ["v0.37", ":4"]);
        // Issue 30: --arc-version offers the releases known, newest first.
        let v = complete(&["diff", "--arc-version", "0.14"]);
        assert_eq!(values(&v), ["0.14.2", "0.14.1", "0.14.0", ":4"]);
        assert!(
            v.contains("0.14.2\tgha-runner-scale-set 0.14.2 (k8s.io/api v0.35.2)"),
            "{v}"
        );
        let v = complete(&["diff", "--arc-version="]);
        assert_eq!(values(&v).len(), 16, "{v}");
        // Issue 33: and next, as upgrade-plan's --to.
        let v = complete(&["diff", "--arc-version", "n"]);
        assert_eq!(values(&v), ["next", ":4"]);
        // Issue 33: upgrade-plan's --to offers the same.
        let v = complete(&["upgrade-plan", "--to", "0.13"]);
        assert_eq!(values(&v), ["0.13.1", "0.13.0", ":4"]);
        let v = complete(&["upgrade-plan", "--to", "n"]);
        assert_eq!(values(&v), ["next", ":4"]);
        // Issue 31: status takes it as diff does.
        let v = complete(&["status", "--arc-version", "0.13"]);
        assert_eq!(values(&v), ["0.13.1", "0.13.0", ":4"]);
        let v = complete(&["status", "--arc-version", "ne"]);
        assert_eq!(values(&v), ["next", ":4"]);
        let v = complete(&["migrate", "-o", "j"]);
        assert_eq!(values(&v), ["json", "jsonpath=", ":6"]);
        let v = complete(&["completion", ""]);
        assert_eq!(
            values(&v),
            [
                "install",
                "uninstall",
                "bash",
                "zsh",
                "fish",
                "powershell",
                "elvish",
                "kubectl",
                ":4"
            ]
        );
        let v = complete(&["diff", "--layout", "v0.3"]);
        assert_eq!(values(&v), ["v0.36", "v0.35", "v0.37", ":4"]);
    }

    #[test]
    fn manifests_are_left_to_the_shell_filtered_by_extension_like_kubectl_f() {
        assert_eq!(complete(&["diff", "-f", ""]), "yaml\nyml\njson\n:8\n");
        assert_eq!(
            complete(&["migrate", "--filename="]),
            "yaml\nyml\njson\n:8\n"
        );
        assert_eq!(complete(&["diff", "--kubeconfig", ""]), ":0\n");
        assert_eq!(complete(&["diff", "--kubeconfig="]), ":0\n");
    }

    #[test]
    fn no_cluster_means_no_names() {
        let dir = std::env::temp_dir();
        let missing = dir.join("kubectl-arc-no-such-kubeconfig");
        let out = complete(&["diff", "--kubeconfig", missing.to_str().unwrap(), ""]);
        assert_eq!(out, ":4\n");
    }

    #[test]
    fn typed_flags_are_read_leniently() {
        let args: Vec<OsString> = [
            "kubectl-arc",
            "diff",
            "--context",
            "prod",
            "-n",
            "arc",
            "a",
            "ru",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let r = Requests::from_words(&args, 7, &Env::default());
        let kube = r.kube.as_ref().expect("flags");
        assert_eq!(kube.context.as_deref(), Some("prod"));
        assert_eq!(kube.namespace.as_deref(), Some("arc"));
        assert_eq!(r.typed_names, ["a"]);
        assert!(!r.all_namespaces);
        let args: Vec<OsString> = ["kubectl-arc", "status", "-A", ""]
            .iter()
            .map(OsString::from)
            .collect();
        assert!(Requests::from_words(&args, 3, &Env::default()).all_namespaces);
        // Incomplete lines still yield what was typed.
        let args: Vec<OsString> = ["kubectl-arc", "-n", "x", "diff", "-o"]
            .iter()
            .map(OsString::from)
            .collect();
        let r = Requests::from_words(&args, 5, &Env::default());
        assert_eq!(r.namespace().as_deref(), Some("x"));
    }

    #[test]
    fn a_name_in_several_namespaces_is_described_once() {
        let ns = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(few_namespaces(&ns(&["a"])), "a");
        assert_eq!(few_namespaces(&ns(&["a", "b", "c"])), "a, b, c");
        assert_eq!(
            few_namespaces(&ns(&["a", "b", "c", "d", "e"])),
            "a, b, c and 2 more"
        );
    }

    #[test]
    fn every_script_is_generated() {
        for (shell, _) in Shell::SCRIPTS {
            let mut out = Vec::new();
            write_script(shell, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("kubectl-arc"), "{shell:?}: {text}");
        }
        let mut zsh = Vec::new();
        write_script(Shell::Zsh, &mut zsh).unwrap();
        assert!(zsh.starts_with(b"#compdef kubectl-arc\n"));
    }
}
