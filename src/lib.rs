//! kubectl-arc: make actions-runner-controller's runner-spec revisions visible and safe to operate.
//!
//! Layers:
//! - [`core`]: pure, Go-compatible logic shared with ARC (value model, equalities, legacy hash,
//!   revision rules). No I/O, no tokio.
//! - [`manifest`]: objects from manifest text (pure).
//! - [`cluster`]: the only place that talks to a Kubernetes API server.
//! - [`cli`]: thin commands that turn arguments into a plan, run it and hand a report to a
//!   [`render`]er.

pub mod cli;
pub mod cluster;
pub mod core;
pub mod manifest;
pub mod render;
