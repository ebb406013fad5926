//! Operations: what each command does, apart from its arguments and its output.
//!
//! A command (`crate::cli`) is its clap arguments, a `validate` step that turns them into a plan
//! before anything is read or contacted (kubectl's Options/Complete/Validate), and one call to its
//! operation here. An operation takes the plan, the sources it reads (stdin from the injected
//! [`crate::shell::Env`], the cluster through [`crate::cluster`]) and a
//! [`crate::shell::Shell`] for progress and warnings only, and returns a typed report. The
//! command hands the report to [`crate::render::emit`] and turns its
//! [`crate::cli::Outcome`] into the exit code: one rule for every command.

pub mod diff;
pub mod status;
