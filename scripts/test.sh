#!/usr/bin/env bash
# Every test of kubectl-arc, from a fresh clone: the README's test command, and what .ci/run calls.
#
# Builds (or reuses, from .cache/) a real etcd and kube-apiserver and the Go oracle from the Go module
# proxy, starts the test bed on 127.0.0.1, runs the lints and every Rust and Go test against it, and
# always stops the test bed again. A test bed that cannot start fails the run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

t0=$SECONDS
scripts/testbed.sh build
echo "test: build step took $((SECONDS - t0))s" >&2

mkdir -p .cache/testbed
run=$(mktemp -d "$root/.cache/testbed/run.XXXXXX")
trap 'scripts/testbed.sh down "$run"' EXIT INT TERM
t1=$SECONDS
scripts/testbed.sh up "$run" >/dev/null
echo "test: test bed up in $((SECONDS - t1))s" >&2
# shellcheck disable=SC1091
source "$run/env"

# Release, workflows and the GitHub Action (issue 24; docs/release.md): actionlint, zizmor, krew and
# validate-krew-manifest built or installed once into .cache/tools (scripts/tools.sh), and this
# machine's release archive for the testsuite's release_krew and github_action tests, packed by
# scripts/release-local.sh from the test build's own binary (the one `cargo test` below uses): the
# packing, the manifest and krew's install are what those tests check, and the release workflow
# builds the `dist` profile itself on every platform.
t2=$SECONDS
eval "$(scripts/tools.sh)"
# One debug build of everything: the test build. A separate `cargo build --bin` would resolve the
# dependencies' features without the dev-dependencies (tokio, futures, indexmap, hyper, ...) and so
# build nearly the whole dependency tree a second time; `--no-run` builds the binary the tests run,
# and the same one is packed below.
cargo test --all-targets --features testbed --locked --no-run
export KUBECTL_ARC_RELEASE_BIN_DIR="$root/target/debug"
scripts/release-local.sh "$root/.cache/release" >/dev/null
echo "test: release tools and archive in $((SECONDS - t2))s" >&2

t3=$SECONDS
cargo fmt --all -- --check
cargo clippy --all-targets --features testbed --locked -- -D warnings
# The fuzz targets are their own crate (running them needs nightly: scripts/fuzz.sh); checking them
# here keeps the library API they use compiling. The Go mirror's targets first, against the core
# crate alone (no kube, tokio or rustls: the check fails if they reach for the CLI crate), then the
# two that render diff's report. In the main target directory, where clippy has just checked the
# same dependencies with the same features (fuzz/Cargo.toml's feature pins), so only the fuzz crate,
# the two workspace crates and libfuzzer-sys are checked here.
CARGO_TARGET_DIR="$root/target" cargo check --manifest-path fuzz/Cargo.toml --locked --no-default-features
CARGO_TARGET_DIR="$root/target" cargo check --manifest-path fuzz/Cargo.toml --locked --no-default-features --features cli
echo "test: fmt, clippy and the fuzz check in $((SECONDS - t3))s" >&2
# The hermetic tests (what a plain `cargo test` runs) and the test suite of record, which needs the
# test bed started above and the Go oracle (tests/testsuite, built only with --features testbed).
t4=$SECONDS
cargo test --all-targets --features testbed --locked
echo "test: cargo test in $((SECONDS - t4))s" >&2

t5=$SECONDS
if [ -f tests/oracle/go.mod ]; then
  (
    cd tests/oracle
    test -z "$(gofmt -l .)" || { gofmt -l . >&2; echo "test: gofmt reports unformatted Go files" >&2; exit 1; }
    # Every layout is vetted; the Go self-test runs on ARC's pin (go.mod), against the recorded
    # outputs of ARC's own code. The other layouts are checked from the Rust tests.
    # -trimpath as scripts/testbed.sh builds the oracles, so vet and test reuse those builds'
    # compiled packages from Go's build cache instead of compiling k8s.io/api once more per layout.
    for mod in go.mod go.v*.mod; do
      go vet -trimpath -modfile="$mod" ./...
    done
    go test -trimpath ./...
  )
fi
(
  # The test bed's CRD fix-up (testbed/crdgen): what it does to controller-gen's output.
  cd testbed/crdgen
  test -z "$(gofmt -l .)" || { gofmt -l . >&2; echo "test: gofmt reports unformatted Go files" >&2; exit 1; }
  go vet -trimpath ./...
  go test -trimpath ./...
)
echo "test: the Go checks in $((SECONDS - t5))s" >&2
echo "test: all done in $((SECONDS - t0))s" >&2
