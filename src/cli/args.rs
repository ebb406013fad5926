//! The flags several commands share, declared once (cargo's `command_prelude.rs` is the model):
//! kubectl's global flags, the scope (`-A`, `-l`), the contexts of a fleet (`--contexts`,
//! `--all-contexts`, `--parallel`), the release that judges (`--layout`, `--arc-version`), the
//! output format (`-o`) and the dry run (`--dry-run`), each a clap argument struct a command
//! flattens where its `--help` lists it, with the checks that go with it.
//!
//! A flag's help says what it does in that command, so each command gives its own text (and, for
//! the contexts, what they cannot be used with) through a small trait its marker type implements;
//! what every command says alike is written here.

use clap::builder::{EnumValueParser, TypedValueParser};

use crate::core::go::params::DryRun;

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
