//! kubectl-arc: make actions-runner-controller's runner-spec revisions visible and safe to operate.
//!
//! Layers:
//! - [`core`]: pure, Go-compatible logic shared with ARC (value model, equalities, legacy hash,
//!   revision rules). No I/O, no tokio.
//! - [`manifest`]: objects from manifest text (pure).
//! - [`input`]: one way in for every command: files, directories, stdin and cluster objects as
//!   one object type with a structured origin, and kubectl's namespace rules.
//! - [`cluster`]: the only place that talks to a Kubernetes API server.
//! - [`shell`]: the process as the library sees it: a cargo-style [`shell::Shell`] for output and
//!   an [`shell::Env`] with the environment, stdin and clock `main` hands in.
//! - [`ops`]: what each command does, from a checked plan to a typed report.
//! - [`cli`]: thin commands that turn arguments into a plan, run it and hand a report to a
//!   [`render`]er.

pub mod cli;
pub mod cluster;
pub mod core;
pub mod input;
pub mod manifest;
pub mod ops;
pub mod render;
pub mod shell;
