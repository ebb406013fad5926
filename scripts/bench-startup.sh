#!/usr/bin/env bash
# Startup cost of kubectl-arc: what a user pays for `--help` and for each TAB, against `true`.
#
#   scripts/bench-startup.sh [RUNS]      (default RUNS=200; not part of scripts/test.sh)
#
# Builds the release binary (linking kubectl_complete-arc to it) and times, with hyperfine
# (installed from Debian's packages when missing and running as root) or else a `date +%s%N` loop:
#   true                                 the cost of starting any process
#   kubectl-arc --help                   clap's help, no I/O
#   kubectl-arc version
#   kubectl_complete-arc diff -o ''      a completion request as kubectl makes it (no cluster)
#   env COMPLETE=bash kubectl-arc -- ... a completion request as the bash script makes it
# and, when the test bed's environment is sourced (KUBECTL_ARC_TEST_KUBECONFIG), a completion of
# live scale-set names against the real API server; with KUBECTL_ARC_TEST_KUBECTL, the whole
# `kubectl __complete arc ...` round trip kubectl's shell completion makes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-200}

cargo build --release --locked --quiet --bin kubectl-arc
bin="$root/target/release"
# kubectl's completer is the same executable under its name, as `completion install` links it.
"$bin/kubectl-arc" completion install --dir "$bin" >/dev/null 2>&1
# kubectl finds plugins on PATH; so do the scripts.
export PATH="$bin:$PATH"
export NO_COLOR=1

if ! command -v hyperfine >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bench-startup: installing hyperfine from Debian's packages" >&2
  { apt-get update -qq && apt-get install -y -qq hyperfine; } >/dev/null 2>&1 || true
fi

names=()
commands=()
add() { names+=("$1"); commands+=("$2"); }
add "true" "true"
add "kubectl-arc --help" "kubectl-arc --help"
add "kubectl-arc version" "kubectl-arc version"
add "kubectl_complete-arc diff -o ''" "kubectl_complete-arc diff -o ''"
add "env COMPLETE=bash kubectl-arc -- kubectl-arc diff -o '' (bash script)" \
  "env COMPLETE=bash _CLAP_COMPLETE_INDEX=3 kubectl-arc -- kubectl-arc diff -o ''"
if [ -n "${KUBECTL_ARC_TEST_KUBECONFIG:-}" ]; then
  add "kubectl_complete-arc diff -n default '' (live names)" \
    "kubectl_complete-arc diff --kubeconfig $KUBECTL_ARC_TEST_KUBECONFIG -n default ''"
  if [ -n "${KUBECTL_ARC_TEST_KUBECTL:-}" ]; then
    add "kubectl __complete arc diff -o '' (kubectl's TAB)" \
      "$KUBECTL_ARC_TEST_KUBECTL __complete arc diff -o ''"
    add "kubectl __complete arc diff -n default '' (live names)" \
      "$KUBECTL_ARC_TEST_KUBECTL __complete arc diff --kubeconfig $KUBECTL_ARC_TEST_KUBECONFIG -n default ''"
  fi
else
  echo "bench-startup: source a test bed's env (scripts/testbed.sh up) to time live-name completion too" >&2
fi

echo "kubectl-arc startup, release build, $(nproc) cores, $runs runs each"
if command -v hyperfine >/dev/null 2>&1; then
  json=$(mktemp)
  trap 'rm -f "$json"' EXIT
  args=(--shell=none --warmup 10 --runs "$runs" --export-json "$json" --style none)
  for i in "${!commands[@]}"; do
    args+=(--command-name "${names[$i]}" "${commands[$i]}")
  done
  # (hyperfine's warnings about outliers go to stderr; a busy machine shows in min versus median)
  hyperfine "${args[@]}" >/dev/null 2>&1
  # Medians: on a busy machine a few slow runs move the mean, not the median.
  python3 - "$json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["median"]
print(f"| {'command':<62} | {'median ms':>9} | {'mean ms':>9} | {'min ms':>8} | {'x true':>6} |")
print(f"|{'-' * 64}|{'-' * 10}:|{'-' * 10}:|{'-' * 9}:|{'-' * 7}:|")
for r in results:
    print(f"| {r['command']:<62} | {r['median'] * 1e3:9.2f} | {r['mean'] * 1e3:9.2f} | {r['min'] * 1e3:8.2f} | {r['median'] / base:6.1f} |")
PY
else
  printf '| %-60s | %9s | %9s | %9s |\n' command "mean ms" "median ms" "min ms"
  printf '|%s|\n' "--------------------------------------------------------------|-----------|-----------|-----------"
  for i in "${!commands[@]}"; do
    for _ in $(seq 1 10); do eval "${commands[$i]}" >/dev/null 2>&1 || true; done
    samples=$(for _ in $(seq 1 "$runs"); do
      t0=$(date +%s%N); eval "${commands[$i]}" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      echo $(( t1 - t0 ))
    done | sort -n)
    printf '%s\n' "$samples" | awk -v name="${names[$i]}" '
      { v[NR] = $1; s += $1 }
      END { printf "| %-60s | %9.2f | %9.2f | %9.2f |\n", name, s / NR / 1e6, v[int((NR + 1) / 2)] / 1e6, v[1] / 1e6 }'
  done
  echo "(a date +%s%N loop: each figure includes the shell's fork and exec, as for \`true\`)"
fi
