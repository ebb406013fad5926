//! Running kubectl-arc from a test: the real binary (`exe`) or in-process (`in_process`), each
//! returning (exit code, stdout, stderr), and reading what they print.

use serde_json::Value;

/// Run the real `kubectl-arc` binary with `NO_COLOR=1`; (exit code or -1, stdout, stderr). A
/// command that lists Deployments runs while no other test's controller exists
/// ([`super::controller`]).
pub fn exe(args: &[&str]) -> (i32, String, String) {
    let _no_controller = super::controller::lists_deployments(args)
        .then(super::controller::shared)
        .flatten();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run kubectl-arc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// [`exe`] on a blocking thread, for async tests.
pub async fn exe_async(args: Vec<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || exe(&refs(&args)))
        .await
        .unwrap()
}

/// Run the CLI in-process (`argv[0]` is "kubectl-arc"); (exit code, stdout, stderr).
pub fn in_process(args: &[&str]) -> (u8, String, String) {
    let _no_controller = super::controller::lists_deployments(args)
        .then(super::controller::shared)
        .flatten();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut argv = vec!["kubectl-arc"];
    argv.extend_from_slice(args);
    let code = kubectl_arc::cli::main(
        argv,
        Default::default(),
        Default::default(),
        &mut out,
        &mut err,
    );
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// [`in_process`] with stderr a terminal (stdout a pipe), as a user at a terminal who redirects
/// the report: progress lines are shown.
pub fn in_process_tty(args: &[&str]) -> (u8, String, String) {
    let _no_controller = super::controller::lists_deployments(args)
        .then(super::controller::shared)
        .flatten();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut argv = vec!["kubectl-arc"];
    argv.extend_from_slice(args);
    let term = kubectl_arc::shell::Terminal {
        stdout_is_tty: false,
        stderr_is_tty: true,
        no_color: true,
    };
    let code = kubectl_arc::cli::main(argv, term, Default::default(), &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// [`in_process`] on a blocking thread, for async tests.
pub async fn in_process_async(args: Vec<String>) -> (u8, String, String) {
    tokio::task::spawn_blocking(move || in_process(&refs(&args)))
        .await
        .unwrap()
}

/// Owned arguments, to move into a blocking task.
pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// A JSON report printed on stdout; panics with the text when it is not JSON.
pub fn report(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The values of a shell-completion answer: the first tab-separated field of each line (the last
/// line is cobra's `:N` directive).
pub fn completion_values(output: &str) -> Vec<&str> {
    output
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect()
}
