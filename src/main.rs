//! The `kubectl-arc` binary: parse arguments, run, and turn the outcome into an exit code.
//! Everything else lives in the library; this file only wires stdout and stderr in.

use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = kubectl_arc::cli::main(std::env::args_os(), &mut stdout.lock(), &mut stderr.lock());
    ExitCode::from(code)
}
