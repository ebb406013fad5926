//! Every flag of every command, fed hostile values: huge, negative, empty, NaN, very long, invalid
//! UTF-8 and (in-process, as no argv can carry one) NUL. Each must end in a clear error, exit 2,
//! never a panic or a backtrace (issue 14: `--request-timeout 99999999999999999999s` panicked).
//!
//! The flags come from clap's definition (`Cli::command()`), so a flag added later is fed the same
//! values with no change here. Nothing can reach a cluster: `KUBECONFIG` and `HOME` point nowhere,
//! and stdin is empty.

use std::ffi::{OsStr, OsString};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::{Arg, ArgAction, CommandFactory as _};
use kubectl_arc::cli::{Cli, EXIT_ERROR, Terminal};

/// Values no flag should take quietly. None of them is `-` (stdin) or a valid choice.
fn hostile_values() -> Vec<OsString> {
    vec![
        "99999999999999999999".into(),
        "99999999999999999999s".into(),
        "-99999999999999999999".into(),
        "-1".into(),
        "1e400".into(),
        "NaN".into(),
        "".into(),
        "x".repeat(10_000).into(),
        not_unicode(),
    ]
}

/// A value no `String` can hold: invalid UTF-8 (Unix), an unpaired surrogate (Windows).
fn not_unicode() -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt as _;
        OsString::from_vec(vec![0xff, 0xfe, b'-', b'x'])
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::OsStringExt as _;
        OsString::from_wide(&[0xD800, u16::from(b'-'), u16::from(b'x')])
    }
}

/// Flags that end a run successfully by design.
fn exits_zero_by_design(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

/// The spellings that hand `value` to `arg`: `--flag=VALUE` for every flag (a flag that takes no
/// value must refuse it), `--flag VALUE` and `-f VALUE` for those that take one, and a bare
/// argument for a positional.
fn spellings(arg: &Arg, value: &OsStr) -> Vec<Vec<OsString>> {
    if arg.is_positional() {
        return vec![vec![value.to_owned()]];
    }
    let takes_value = arg.get_action().takes_values();
    let mut out = Vec::new();
    if let Some(long) = arg.get_long() {
        let mut joined = OsString::from(format!("--{long}="));
        joined.push(value);
        out.push(vec![joined]);
        if takes_value {
            out.push(vec![format!("--{long}").into(), value.to_owned()]);
        }
    }
    if let (Some(short), true) = (arg.get_short(), takes_value) {
        out.push(vec![format!("-{short}").into(), value.to_owned()]);
    }
    out
}

/// Every command line that feeds one hostile value to one argument: the arguments of each
/// command, and those of `kubectl arc` itself followed by each command that reads them.
fn hostile_command_lines(values: &[OsString]) -> Vec<Vec<OsString>> {
    let mut cli = Cli::command();
    cli.build();
    let commands: Vec<&clap::Command> = cli
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    assert!(commands.len() >= 6, "the commands: {commands:?}");
    let mut lines = Vec::new();
    for value in values {
        for arg in cli.get_arguments().filter(|a| !exits_zero_by_design(a)) {
            for spelling in spellings(arg, value) {
                for command in &commands {
                    if command.get_arguments().any(|a| a.get_id() == arg.get_id()) {
                        let mut line = spelling.clone();
                        line.push(command.get_name().into());
                        lines.push(line);
                    }
                }
            }
        }
        for command in &commands {
            for arg in command.get_arguments().filter(|a| !exits_zero_by_design(a)) {
                for spelling in spellings(arg, value) {
                    let mut line: Vec<OsString> = vec![command.get_name().into()];
                    line.extend(spelling);
                    lines.push(line);
                }
            }
        }
    }
    lines
}

/// (exit code, stderr) of kubectl-arc with `args`, killed after a minute.
fn run(args: &[OsString]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("KUBECONFIG", "/nonexistent/kubectl-arc-hostile/config")
        .env("HOME", "/nonexistent/kubectl-arc-hostile")
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "1")
        .env_remove("COMPLETE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-arc");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut text).unwrap();
        text
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?}: still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    (status.code(), stderr)
}

fn shown(args: &[OsString]) -> String {
    let line: Vec<String> = args
        .iter()
        .map(|a| {
            let s = a.to_string_lossy();
            if s.len() > 40 {
                format!("{}...({} bytes)", &s[..20], a.len())
            } else {
                format!("{s:?}")
            }
        })
        .collect();
    line.join(" ")
}

#[test]
fn every_flag_of_every_command_refuses_hostile_values_without_panicking() {
    let lines = hostile_command_lines(&hostile_values());
    assert!(lines.len() > 500, "{} command lines", lines.len());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(args) = lines.get(i) else { break };
                    let (code, err) = run(args);
                    let problem = if err.contains("panicked") || err.contains("stack backtrace") {
                        Some("panicked")
                    } else if code != Some(i32::from(EXIT_ERROR)) {
                        Some("exit code is not 2")
                    } else if !err.lines().any(|l| l.starts_with("error: ")) {
                        Some("no clear error message")
                    } else {
                        None
                    };
                    if let Some(problem) = problem {
                        let first: String = err.lines().take(3).collect::<Vec<_>>().join(" / ");
                        failures.lock().unwrap().push(format!(
                            "{}: {problem} (exit {code:?}): {}",
                            shown(args),
                            &first[..first.len().min(300)]
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} command lines:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
}

/// NUL cannot travel through argv (exec refuses it), so these run in-process, where a `String`
/// or a path holding one reaches the parsers and the file system as is.
#[test]
fn nul_bytes_in_every_flag_are_refused_in_process() {
    let values: Vec<OsString> = vec!["\0".into(), "a\0b".into(), "5s\0".into()];
    let lines = hostile_command_lines(&values);
    let cli = Cli::command();
    for args in lines {
        let mut argv: Vec<OsString> = vec!["kubectl-arc".into()];
        argv.extend(args.iter().cloned());
        // Never the developer's kubeconfig: a command that reads one gets a path that is not
        // there, unless the flag under test is --kubeconfig itself.
        let command = args
            .iter()
            .find_map(|a| cli.find_subcommand(a.to_str()?))
            .expect("a command on every line");
        let tests_kubeconfig = args
            .iter()
            .any(|a| a.to_string_lossy().starts_with("--kubeconfig"));
        if command.get_arguments().any(|a| a.get_id() == "kubeconfig") && !tests_kubeconfig {
            argv.push("--kubeconfig=/nonexistent/kubectl-arc-hostile/config".into());
        }
        let mut out = Vec::new();
        let mut err = Vec::new();
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kubectl_arc::cli::main(
                argv.clone(),
                Terminal::default(),
                Default::default(),
                &mut out,
                &mut err,
            )
        }))
        .unwrap_or_else(|_| panic!("{}: panicked", shown(&args)));
        let err = String::from_utf8_lossy(&err);
        assert_eq!(code, EXIT_ERROR, "{}: {err}", shown(&args));
        assert!(
            err.lines().any(|l| l.starts_with("error: ")),
            "{}: {err}",
            shown(&args)
        );
    }
}
