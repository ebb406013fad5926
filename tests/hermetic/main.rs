//! The hermetic tests: they need neither Go nor an API server, so a plain `cargo test` runs them on
//! any machine with Rust (unit tests live beside the code in `src/`). The tests that need the test
//! bed or the Go oracle are in `tests/testsuite/`.

mod bad_input;
mod broken_pipe;
mod cli_transcripts;
mod completion_install;
mod defaults;
mod docs;
mod equality_table;
mod fleet;
mod fleet_writes;
mod function_length;
mod guarded_write;
mod hostile_flags;
mod issue20;
mod issue32;
mod issue33;
mod kubeconfig;
mod layers;
