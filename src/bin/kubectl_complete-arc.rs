//! `kubectl_complete-arc`: the executable kubectl 1.26+ runs from PATH to complete `kubectl arc ...`.
//!
//! kubectl passes the words typed after `kubectl arc` (the last one being completed, empty for a new
//! word) and reads one candidate a line, then a `:<directive>` line (cobra's protocol). The answer
//! is the same as `kubectl-arc __complete WORDS...`; see `kubectl_arc::cli::completion`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let words: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let env = kubectl_arc::shell::Env::from_process();
    let stdout = std::io::stdout();
    match kubectl_arc::cli::completion::kubectl_plugin(&words, &env, &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away ends the run quietly, as for kubectl-arc itself.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        // kubectl ignores the output of a failed completer.
        Err(_) => ExitCode::from(kubectl_arc::cli::EXIT_ERROR),
    }
}
