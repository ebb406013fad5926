//! The pure core: what kubectl-arc shares with ARC's Go controller.
//!
//! Everything here takes data and returns data: no I/O, no clock, no tokio. Each shared rule names
//! the Go function it mirrors, and differential tests compare it with the Go oracle (tests/oracle).

pub mod arc;
pub mod bump;
pub mod defaulting;
pub mod desired;
pub mod drift;
pub mod equality;
pub mod fleet;
pub mod gotime;
pub mod gourl;
pub mod goyaml;
pub mod impact;
pub mod json;
pub mod layout;
pub mod legacy_hash;
pub mod manifest;
pub mod marshal;
pub mod migrate;
pub mod names;
pub mod next;
pub mod object;
pub mod owner;
pub mod pairing;
pub mod quantity;
pub mod reason;
pub mod recycle_loop;
pub mod release;
pub mod repair;
pub mod replacement;
pub mod revision;
pub mod runners;
pub mod selector;
pub mod spec_hash;
pub mod status;
pub mod upgrade;
pub mod value;
pub mod written;

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
