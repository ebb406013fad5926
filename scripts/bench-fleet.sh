#!/usr/bin/env bash
# Benchmark of `kubectl arc status --all-contexts` over a fleet of 21 kubeconfig contexts: the test
# bed's two API servers, each listed ten times under different names, plus one dead context (a
# 127.0.0.1 port nobody listens on), every run with --request-timeout 2s; and the 20 live ones
# alone (`--contexts 'rev-*,legacy-*'`). Against: each live server
# alone (`--context`), the dead context alone, and their sum (what a shell loop over the contexts
# costs). Reports the medians and the ratio of the fleet run to the slowest single context (the
# issue's target: at most 1.5x the slowest single context plus the dead one's time, not the sum).
#
#   scripts/testbed.sh up /tmp/tb && source <(grep ^export /tmp/tb/env)
#   scripts/bench-fleet.sh                      # 5 rounds, --parallel 8 (the default)
#   BENCH_RUNS=9 BENCH_PARALLEL=4 BENCH_SCOPE="-n default" scripts/bench-fleet.sh
#
# KUBECTL_ARC names the binary (default: target/release/kubectl-arc, built when missing). The
# scope is `-A` by default: whatever the other tests left on the two servers is listed. Not part of
# the test suite: speed is measured here, never asserted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
: "${KUBECTL_ARC_TEST_KUBECONFIG:?start the test bed first: scripts/testbed.sh up DIR; source <(grep ^export DIR/env)}"
: "${KUBECTL_ARC_TEST_LEGACY_KUBECONFIG:?}"
bin=${KUBECTL_ARC:-$root/target/release/kubectl-arc}
[ -x "$bin" ] || cargo build --release --quiet --bin kubectl-arc
runs=${BENCH_RUNS:-5}
parallel=${BENCH_PARALLEL:-8}
read -r -a scope <<<"${BENCH_SCOPE:--A}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# BENCH_SETS EphemeralRunnerSets (default 200) in namespace bench-fleet of each server, so that a
# context has something to list; applied with the test bed's kubectl (idempotent, left in place).
sets=${BENCH_SETS:-200}
kubectl=${KUBECTL_ARC_TEST_KUBECTL:-kubectl}
python3 - "$sets" >"$work/sets.json" <<'PY'
import json, sys
n = int(sys.argv[1])
items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench-fleet"}}]
for i in range(n):
    items.append({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "metadata": {"name": f"set-{i:04d}", "namespace": "bench-fleet"},
        "spec": {"replicas": 0, "patchID": 0, "ephemeralRunnerSpec": {
            "githubConfigUrl": "https://github.com/bench-org", "githubConfigSecret": "gh-secret",
            "runnerScaleSetId": i + 1,
            "spec": {"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.328.0"}]}}},
    })
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
PY
for file in "$KUBECTL_ARC_TEST_KUBECONFIG" "$KUBECTL_ARC_TEST_LEGACY_KUBECONFIG"; do
  "$kubectl" --kubeconfig "$file" apply -f "$work/sets.json" >/dev/null
done

# The value of `key:` in a test bed kubeconfig (scripts/testbed.sh writes one entry of each).
field() { sed -n "s/^ *$2: *//p" "$1" | head -1; }
dead_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
kc=$work/fleet.kubeconfig
{
  echo "apiVersion: v1"
  echo "kind: Config"
  echo "clusters:"
  for side in rev:$KUBECTL_ARC_TEST_KUBECONFIG legacy:$KUBECTL_ARC_TEST_LEGACY_KUBECONFIG; do
    name=${side%%:*} file=${side#*:}
    echo "- name: $name"
    echo "  cluster: {server: \"$(field "$file" server)\", certificate-authority: \"$(field "$file" certificate-authority)\"}"
  done
  echo "- name: dead"
  echo "  cluster: {server: \"https://127.0.0.1:$dead_port\"}"
  echo "users:"
  echo "- name: admin"
  echo "  user: {client-certificate: \"$(field "$KUBECTL_ARC_TEST_KUBECONFIG" client-certificate)\", client-key: \"$(field "$KUBECTL_ARC_TEST_KUBECONFIG" client-key)\"}"
  echo "contexts:"
  for i in $(seq -w 1 10); do
    echo "- {name: rev-$i, context: {cluster: rev, user: admin, namespace: default}}"
    echo "- {name: legacy-$i, context: {cluster: legacy, user: admin, namespace: default}}"
  done
  echo "- {name: dead, context: {cluster: dead, user: admin, namespace: default}}"
  echo "current-context: rev-01"
} >"$kc"

# Milliseconds of one run of kubectl-arc (its exit code is not the benchmark's business: the fleet
# run exits 2 for the dead context).
ms() {
  local start end
  start=$(date +%s%N)
  "$bin" status --kubeconfig "$kc" --request-timeout 2s "${scope[@]}" -o json "$@" >"$work/out" 2>"$work/err" || true
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$work/rev" ; : >"$work/legacy" ; : >"$work/dead" ; : >"$work/live" ; : >"$work/fleet"
for _ in $(seq "$runs"); do
  ms --context rev-01 >>"$work/rev"
  ms --context legacy-01 >>"$work/legacy"
  ms --context dead >>"$work/dead"
  ms --contexts 'rev-*,legacy-*' --parallel "$parallel" >>"$work/live"
  ms --all-contexts --parallel "$parallel" >>"$work/fleet"
done
contexts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["contexts"]))' "$work/out")
[ "$contexts" = 21 ] || { echo "bench-fleet: the fleet run reported $contexts contexts, not 21" >&2; cat "$work/err" >&2; exit 1; }
rev=$(median <"$work/rev"); legacy=$(median <"$work/legacy"); dead=$(median <"$work/dead")
live=$(median <"$work/live"); fleet=$(median <"$work/fleet")
slowest=$(( rev > legacy ? rev : legacy ))
sum=$(( 10 * rev + 10 * legacy + dead ))
echo "| run (scope ${scope[*]}, median of $runs) | ms |"
echo "|---|--:|"
echo "| one context, revision-era server | $rev |"
echo "| one context, legacy server | $legacy |"
echo "| the dead context alone (refused, retried) | $dead |"
echo "| sum of the 21 contexts one after the other | $sum |"
echo "| \`status --contexts 'rev-*,legacy-*' --parallel $parallel\` (the 20 live contexts) | $live |"
echo "| \`status --all-contexts --parallel $parallel\` (21 contexts, one dead) | $fleet |"
awk -v f="$fleet" -v l="$live" -v s="$slowest" -v d="$dead" -v sum="$sum" 'BEGIN {
  printf "20 live / slowest live context: %.2fx; 21 with the dead one / (slowest + dead): %.2fx; 21 / sum: %.2fx\n", l / s, f / (s + d), f / sum }'
