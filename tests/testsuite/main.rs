//! The tests of record that need the real world: the test bed's kube-apiserver and etcd, the real
//! kubectl, and the Go oracle built against the modules ARC pins. One binary (cargo's
//! `tests/testsuite` pattern), built only with `--features testbed`, which the README's test command
//! (`scripts/test.sh`) passes after starting the test bed. A missing test bed or oracle is a failure
//! with instructions, never a skip.
//!
//! The hermetic tests (no Go, no server) live in `tests/hermetic/` and run under a plain
//! `cargo test`.

mod common;

mod bump_cluster;
mod completion_cluster;
mod crds;
mod defaults_cluster;
mod diff_cluster;
mod differential;
mod differential_desired;
mod differential_releases;
mod equality_oracle;
mod faults_cluster;
mod fidelity_config_url;
mod fidelity_fields_v1;
mod fidelity_floats;
mod fidelity_json;
mod fidelity_yaml;
mod fleet_cluster;
mod fleet_writes;
mod github_action;
mod impact_cluster;
mod issue14_cluster;
mod kubectl_plugin;
mod layouts;
mod migrate_cluster;
mod next_cluster;
mod oracle_faithful;
mod rbac_cluster;
mod recycle_loop;
mod release_krew;
mod releases_cluster;
mod render_cluster;
mod repair_cluster;
mod repair_finalizer_cluster;
mod repair_listener_cluster;
mod secrets_cluster;
mod status_cluster;
mod status_edges;
mod status_install;
mod status_listener;
mod testbed;
mod upgrade_plan_cluster;
mod write_guard;
