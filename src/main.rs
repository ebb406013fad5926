//! The `kubectl-arc` binary: parse arguments, run, and turn the outcome into an exit code.
//! Everything else lives in the library; this file only wires the process's streams in.

use std::io::IsTerminal;
use std::process::ExitCode;

/// mimalloc instead of musl's malloc in the static Linux release binaries (the musl targets of
/// the release workflow): with musl's own allocator `diff -f` of 10,000 sets took 1.5 times as
/// long (docs/benchmarks.md, "The allocator of the release binaries"). Other builds keep the
/// platform's: glibc's malloc is within 10% of mimalloc here and keeps 13 MB less at 1,000 sets.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Logs go to stderr, at kubectl's levels: 1-3 what kubectl-arc decides and writes, 4-5 its
/// reads, 6 a line per HTTP request as kubectl writes it (`GET URL 200 OK in 12 milliseconds`),
/// 7 the request headers too, 8 and 9 the response headers and request bodies
/// (`kubectl_arc::cluster::http_log`); never a credential. 10 and up: everything, the libraries'
/// own traces included (kube's HTTP spans, hyper, rustls).
fn init_logging(level: u8, color: bool) {
    use tracing_subscriber::filter::LevelFilter;
    let (ours, http, libraries) = match level {
        0 => return,
        1..=3 => (LevelFilter::INFO, LevelFilter::OFF, LevelFilter::ERROR),
        4..=5 => (LevelFilter::DEBUG, LevelFilter::OFF, LevelFilter::ERROR),
        6 => (LevelFilter::DEBUG, LevelFilter::INFO, LevelFilter::ERROR),
        7 => (LevelFilter::DEBUG, LevelFilter::DEBUG, LevelFilter::ERROR),
        8..=9 => (LevelFilter::TRACE, LevelFilter::TRACE, LevelFilter::ERROR),
        _ => (LevelFilter::TRACE, LevelFilter::TRACE, LevelFilter::TRACE),
    };
    // kube's own trace layer reports failed requests as span-decorated errors; our request log
    // and error messages say it once, so below 10 it is silent.
    let kube_spans = if level >= 10 {
        LevelFilter::TRACE
    } else {
        LevelFilter::OFF
    };
    let filter = tracing_subscriber::filter::Targets::new()
        .with_target("kubectl_arc", ours)
        .with_target(kubectl_arc::cluster::http_log::TARGET, http)
        .with_target("kube_client::client::builder", kube_spans)
        .with_default(libraries);
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(color)
                .with_target(true),
        )
        .with(filter)
        .init();
}

/// Started as `kubectl_complete-arc` (a link to or a copy of this executable, which
/// `kubectl arc completion install` makes): kubectl's plugin completion, with the words typed after
/// `kubectl arc`.
fn kubectl_completer(words: &[std::ffi::OsString], env: &kubectl_arc::shell::Env) -> ExitCode {
    let stdout = std::io::stdout();
    match kubectl_arc::cli::completion::kubectl_plugin(words, env, &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away ends the run quietly, as for kubectl-arc itself.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        // kubectl ignores the output of a failed completer.
        Err(_) => ExitCode::from(kubectl_arc::cli::EXIT_ERROR),
    }
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let env = kubectl_arc::shell::Env::from_process();
    if args
        .first()
        .is_some_and(|a| kubectl_arc::cli::completion::invoked_as_kubectl_completer(a))
    {
        return kubectl_completer(&args[1..], &env);
    }
    if env.var_os(kubectl_arc::cli::completion::ENV_VAR).is_some() {
        // SAFETY: no other thread exists yet. A completion request must not reach the child
        // processes of the run (kubeconfig exec plugins); the library reads it from `env`.
        unsafe { std::env::remove_var(kubectl_arc::cli::completion::ENV_VAR) };
    }
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let term = kubectl_arc::shell::Terminal {
        stdout_is_tty: stdout.is_terminal(),
        stderr_is_tty: stderr.is_terminal(),
        no_color: env.var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    init_logging(
        kubectl_arc::cli::verbosity_from_args(&args),
        stderr.is_terminal() && !term.no_color,
    );
    let code = kubectl_arc::cli::main(args, term, env, &mut stdout.lock(), &mut stderr.lock());
    ExitCode::from(code)
}
