//! The `kubectl-arc` binary: parse arguments, run, and turn the outcome into an exit code.
//! Everything else lives in the library; this file only wires the process's streams in.

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let term = kubectl_arc::cli::Terminal {
        stdout_is_tty: stdout.is_terminal(),
        stderr_is_tty: stderr.is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    let code = kubectl_arc::cli::main(
        std::env::args_os(),
        term,
        &mut stdout.lock(),
        &mut stderr.lock(),
    );
    ExitCode::from(code)
}
