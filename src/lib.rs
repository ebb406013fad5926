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

// The crate's API is what the binaries, the test suites, the benchmarks and the fuzz targets use;
// everything else is `pub(crate)`, so the compiler reports dead code. Its documentation is read
// with `cargo doc --document-private-items`, where these links resolve.
#![allow(rustdoc::private_intra_doc_links)]

pub mod cli;
pub mod cluster;
pub use kubectl_arc_core as core;
pub(crate) mod input;
pub use kubectl_arc_core::manifest;
pub(crate) mod ops;
pub mod render;
pub mod report;
pub mod shell;
