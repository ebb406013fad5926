#!/usr/bin/env bash
# The release and workflow tools the tests use, built or installed once into .cache/tools/ from the
# package registries (the Go module proxy, PyPI), each pinned; a tool that cannot be had fails loudly.
#
#   scripts/tools.sh            install what is missing, print `export` lines for the test suite
#   scripts/tools.sh env        print the `export` lines only (the tools must be there)
#
# actionlint      github.com/rhysd/actionlint/cmd/actionlint          (Go module proxy)
# zizmor          zizmor, in a virtualenv                               (PyPI)
# krew            sigs.k8s.io/krew/cmd/krew                             (Go module proxy)
# validate-krew-manifest  sigs.k8s.io/krew/cmd/validate-krew-manifest   (Go module proxy)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.32.0
# The newest krew the Go module proxy serves (v0.4.4 and v0.4.5 are not there).
KREW_VERSION=v0.4.3

tools="$root/.cache/tools"
bin="$tools/bin"
mkdir -p "$bin"

# go_tool NAME MODULE/PATH VERSION: `go install` into a directory per version, linked into bin/.
go_tool() {
  local name=$1 pkg=$2 version=$3
  local dir="$tools/go/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    echo "tools: building $name $version from the Go module proxy" >&2
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install "$pkg@$version" >&2 || {
      echo "tools: cannot build $name $version ($pkg)" >&2
      exit 1
    }
  fi
  ln -sfn "$dir/$name" "$bin/$name"
}

install_tools() {
  go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"
  go_tool krew sigs.k8s.io/krew/cmd/krew "$KREW_VERSION"
  go_tool validate-krew-manifest sigs.k8s.io/krew/cmd/validate-krew-manifest "$KREW_VERSION"
  local venv="$tools/zizmor-$ZIZMOR_VERSION"
  if [ ! -x "$venv/bin/zizmor" ]; then
    echo "tools: installing zizmor $ZIZMOR_VERSION from PyPI" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION" >&2 || {
      echo "tools: cannot install zizmor $ZIZMOR_VERSION" >&2
      exit 1
    }
  fi
  ln -sfn "$venv/bin/zizmor" "$bin/zizmor"
}

print_env() {
  local name
  for name in actionlint zizmor krew validate-krew-manifest; do
    [ -x "$bin/$name" ] || { echo "tools: $bin/$name is missing: run scripts/tools.sh" >&2; exit 1; }
  done
  echo "export KUBECTL_ARC_TEST_TOOLS=$bin"
}

case "${1:-install}" in
  install) install_tools; print_env ;;
  env) print_env ;;
  *) echo "usage: scripts/tools.sh [install|env]" >&2; exit 2 ;;
esac
