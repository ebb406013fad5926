//! The pure core: what kubectl-arc shares with ARC's Go controller.
//!
//! Everything here takes data and returns data: no I/O, no clock, no tokio. Each shared rule names
//! the Go function it mirrors, and differential tests compare it with the Go oracle (tests/oracle).
//!
//! Two halves, one folder each:
//! - [`go`], the Go mirror: what Go's libraries and Kubernetes' apimachinery do to ARC's objects
//!   (values and encoding/json, go-yaml's reader, quantities, go-spew with FNV, net/url, time,
//!   the three equalities, the type layout, the API server's defaulting, manifests from files).
//!   It knows nothing of ARC's rules.
//! - [`arc`], ARC's rules over the mirror: its names, its releases and their hashes, replacement,
//!   revisions, pairing, the desired set, status, impact, repair, upgrade, migrate, bump.
//!
//! The rules import the mirror, never the reverse, and no circle forms among the modules of
//! either half (tests/hermetic/layers.rs).

pub mod arc;
pub mod go;

// Every module keeps the path it had before the two halves were folders (`kubectl_arc_core::json`,
// `kubectl_arc_core::status`), so the command crate, the benches and the fuzz targets name them as
// before.
pub use arc::{
    bump, desired, drift, fleet, impact, migrate, next, object, owner, pairing, reason,
    recycle_loop, release, repair, replacement, revision, runners, spec_hash, status, upgrade,
};
pub use go::{
    equality, gotime, gourl, goyaml, json, layout, legacy_hash, manifest, marshal, names, quantity,
    selector, value, written,
};

/// [`go::defaulting`], the API server's structural defaulting, with the AutoscalingRunnerSet CRDs
/// kubectl-arc ships for ARC's releases ([`arc::shipped`]) beside it, where they were before the
/// halves were folders.
pub mod defaulting {
    pub use crate::arc::shipped::{shipped, shipped_text};
    pub use crate::go::defaulting::*;
}

/// Test support: the generators' draws, a fixed sequence from `seed` (xorshift64): each call
/// gives a number below `n`.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// Test support: a file of the Go outputs recorded in `../shared/reference/verified/` (beside the
/// repository in this project's CI, absent from a clone made elsewhere). `None`, said on stderr,
/// when absent, so that a plain `cargo test` passes anywhere; under `CI=true` a missing file is a
/// failure. The same cases are checked against the live Go oracle by the test suite.
#[cfg(test)]
pub fn recorded_go_output(name: &str) -> Option<String> {
    let path = format!(
        "{}/../../../shared/reference/verified/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{path}: {e}: under CI=true ../shared/ must sit beside the repository")
        }
        Err(e) => {
            eprintln!(
                "note: {path}: {e}; the comparison with the recorded Go output is not made here"
            );
            None
        }
    }
}
