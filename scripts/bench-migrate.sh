#!/usr/bin/env bash
# Migrate 1,000 EphemeralRunnerSets on the local test bed and report wall time and peak RSS.
#
#   scripts/bench-migrate.sh [N]        (default N=1000; not part of scripts/test.sh)
#
# Starts its own test bed (real etcd + kube-apiserver), creates N sets in one namespace (two in
# three with a stale legacy annotation), runs the release build of `kubectl arc migrate` under
# /usr/bin/time, checks the result, and stops the test bed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
n=${1:-1000}
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time; }
cargo build --release --quiet
scripts/testbed.sh build >/dev/null
run=$(mktemp -d "$root/.cache/testbed/bench.XXXXXX")
trap 'scripts/testbed.sh down "$run" >/dev/null' EXIT
scripts/testbed.sh up "$run" >/dev/null
# shellcheck disable=SC1091
source "$run/env"
export KUBECONFIG=$KUBECTL_ARC_TEST_KUBECONFIG
ns=bench-migrate
server=$(sed -n 's/^    server: //p' "$KUBECONFIG")
curl_api() {
  curl -sS --fail-with-body --cacert "$run/pki/ca.crt" --cert "$run/pki/admin.crt" --key "$run/pki/admin.key" "$@"
}
curl_api -X POST "$server/api/v1/namespaces" -H 'Content-Type: application/json' \
  -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null
echo "creating $n EphemeralRunnerSets..." >&2
t0=$(date +%s%N)
seq 0 $((n - 1)) | xargs -P 8 -I{} sh -c '
  i={}; if [ $((i % 3)) -eq 0 ]; then ann=5bfc9f47dd; else ann=stale0000; fi
  curl -sS --fail-with-body --cacert "$0/pki/ca.crt" --cert "$0/pki/admin.crt" --key "$0/pki/admin.key" \
    -X POST "$1/apis/actions.github.com/v1alpha1/namespaces/$2/ephemeralrunnersets" -H "Content-Type: application/json" \
    -d "{\"apiVersion\":\"actions.github.com/v1alpha1\",\"kind\":\"EphemeralRunnerSet\",\"metadata\":{\"name\":\"set-$i\",\"annotations\":{\"actions.github.com/integrity-hash\":\"$ann\"}},\"spec\":{\"replicas\":0,\"patchID\":0,\"ephemeralRunnerSpec\":{\"githubConfigUrl\":\"https://github.com/o\",\"githubConfigSecret\":\"s\",\"runnerScaleSetId\":1}}}" >/dev/null
' "$run" "$server" "$ns"
echo "created in $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
/usr/bin/time -f '%e s wall, %M KiB peak RSS' target/release/kubectl-arc migrate -n "$ns" --qps 0 -o json \
  >"$run/report.json" 2>"$run/stderr" || { cat "$run/stderr" >&2; exit 1; }
tail -n 2 "$run/stderr"
python3 - "$run/report.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
s = r["summary"]
assert s["sets"] == n and s["failed"] == 0 and s["written"] == n, s
print(f"migrated {n} sets: {s['pending']} pending -> new revision, {s['inSync']} in sync, all annotations removed")
PY
