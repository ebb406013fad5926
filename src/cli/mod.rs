//! Command-line layer: argument parsing (clap) and the thin commands.
//!
//! Each command turns its arguments into a plan, runs it through the core and the cluster layer and
//! hands a report to a renderer. Output goes only through the writers passed in.

use std::ffi::OsString;
use std::io::Write;

use clap::{Parser, Subcommand};

/// Exit code: success, or nothing to report (like `kubectl diff` with no differences).
pub const EXIT_OK: u8 = 0;
/// Exit code: drift found / some objects failed (like `kubectl diff` with differences).
pub const EXIT_DRIFT: u8 = 1;
/// Exit code: usage or runtime error.
pub const EXIT_ERROR: u8 = 2;

/// kubectl-arc: see and operate actions-runner-controller's runner-spec revisions.
#[derive(Debug, Parser)]
#[command(name = "kubectl-arc", bin_name = "kubectl arc", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the version and the supported ARC and k8s.io/api layouts.
    Version,
}

/// Parse `args` and run the command, writing data to `out` and diagnostics to `err`.
/// Returns the process exit code.
pub fn main<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let rendered = e.render();
            let target: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = write!(target, "{}", rendered.ansi());
            return code;
        }
    };
    let result = match cli.command {
        Command::Version => writeln!(out, "kubectl-arc {}", env!("CARGO_PKG_VERSION")),
    };
    match result {
        Ok(()) => EXIT_OK,
        // A closed pipe (`kubectl arc ... | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            EXIT_ERROR
        }
    }
}
