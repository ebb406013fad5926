#!/usr/bin/env bash
# Benchmark of `kubectl arc status -A` at scale, against the raw paginated LISTs of the same objects.
#
#   scripts/bench-status.sh            10,000 EphemeralRunnerSets and 50,000 EphemeralRunners
#   BENCH_SETS=1000 BENCH_RUNNERS_PER_SET=5 BENCH_RUNS=3 scripts/bench-status.sh
#
# Starts its own test bed (scripts/testbed.sh, in .cache/bench-status; stopped on exit), creates the
# objects with bounded parallelism (16 keep-alive connections; statuses through the status
# subresource, as ARC's controllers write them), builds the release binary, then times, BENCH_RUNS
# times each and alternating:
#   raw:    curl following limit=500/continue over all EphemeralRunnerSets, then all EphemeralRunners
#   status: kubectl-arc status -A -o json (same page size, same order), under /usr/bin/time -v
# and reports the median wall times, their ratio (target: within 1.3x) and the peak RSS of status
# (target: under 150 MiB). Not part of the test suite; needs python3 and /usr/bin/time.
# BENCH_KEEP=1 leaves the test bed and its objects running; BENCH_REUSE=1 then times them again
# without creating anything.
#
#   scripts/bench-status.sh files      `status -f` of one JSON List of N copies of the shipped
#                                      example's scale set and set, one namespace, N = 1,000, 4,000
#                                      and 10,000 (scripts/scale-set-list.py): time and peak RSS
#                                      side by side (target: 10,000 within 1.2x of ten times 1,000).
#                                      No test bed. BENCH_SIZES="1000 4000" to choose, BENCH_RUNS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "${1:-}" = files ]; then
  [ -x /usr/bin/time ] || { echo "bench-status: /usr/bin/time is needed" >&2; exit 1; }
  cargo build --release --quiet
  bin="$root/target/release/kubectl-arc"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  runs=${BENCH_RUNS:-3}
  echo "| sets | file | status -f (median of $runs) | per 1,000 sets | peak RSS |"
  echo "|--:|--:|--:|--:|--:|"
  for n in ${BENCH_SIZES:-1000 4000 10000}; do
    scripts/scale-set-list.py "$n" >"$work/sets.json"
    size=$(stat -c %s "$work/sets.json")
    for run in $(seq "$runs"); do
      # status exits 0 here (no error); anything else is a failure of the benchmark.
      /usr/bin/time -f '%e %M' -o "$work/time.$run" "$bin" status -f "$work/sets.json" -o json >/dev/null
    done
    cat "$work"/time.* | sort -n | awk -v n="$n" -v size="$size" -v runs="$runs" '
      { t[NR] = $1; m[NR] = $2 }
      END {
        med = t[int((runs + 1) / 2)]; peak = 0
        for (i = 1; i <= NR; i++) if (m[i] > peak) peak = m[i]
        printf "| %d | %.1f MB | %.2f s | %.3f s | %d MiB |\n", n, size / 1e6, med, med * 1000 / n, peak / 1024
      }'
    rm -f "$work"/time.*
  done
  exit 0
fi

sets=${BENCH_SETS:-10000}
per_set=${BENCH_RUNNERS_PER_SET:-5}
runs=${BENCH_RUNS:-5}
namespaces=${BENCH_NAMESPACES:-20}
tb="$root/.cache/bench-status"

[ -x /usr/bin/time ] || { echo "bench-status: /usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-status: python3 is needed" >&2; exit 1; }

# Build first: a build failure should not cost the object creation.
cargo build --release --quiet
bin="$root/target/release/kubectl-arc"
work=$(mktemp -d)
cleanup() {
  rm -rf "$work"
  [ "${BENCH_KEEP:-0}" = 1 ] || scripts/testbed.sh down "$tb" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

reuse=0
if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$tb/pids" ] && [ -f "$tb/created" ]; then
  reuse=1
  echo "bench-status: reusing the test bed and objects in $tb" >&2
else
  scripts/testbed.sh up "$tb" >/dev/null
fi
url=$(cat "$tb/revision.url")
kubeconfig="$tb/revision-admin.kubeconfig"

if [ "$reuse" = 0 ]; then
echo "bench-status: creating $sets EphemeralRunnerSets and $((sets * per_set)) EphemeralRunners in $namespaces namespaces" >&2
t0=$SECONDS
python3 - "$url" "$tb/pki" "$sets" "$per_set" "$namespaces" <<'PY'
import http.client, json, ssl, sys, threading, queue
url, pki, sets, per_set, nss = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
host, port = url.removeprefix("https://").split(":")
ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
ctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
G = "/apis/actions.github.com/v1alpha1/namespaces"

def runner_spec(image):
    # A runner spec the size of gha-runner-scale-set's default (kubernetes mode off, no dind).
    return {
        "githubConfigUrl": "https://github.com/my-org/my-repo",
        "githubConfigSecret": "github-app-secret",
        "runnerScaleSetId": 42,
        "metadata": {"labels": {"app.kubernetes.io/component": "runner", "team": "platform"}},
        "spec": {
            "restartPolicy": "Never",
            "serviceAccountName": "arc-runner",
            "containers": [{
                "name": "runner", "image": image, "command": ["/home/runner/run.sh"],
                "env": [{"name": "ACTIONS_RUNNER_REQUIRE_JOB_CONTAINER", "value": "false"},
                        {"name": "RUNNER_WAIT_FOR_DOCKER_IN_SECONDS", "value": "120"},
                        {"name": "DOCKER_HOST", "value": "unix:///var/run/docker.sock"}],
                "resources": {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}},
                "volumeMounts": [{"name": "work", "mountPath": "/home/runner/_work"}],
            }],
            "volumes": [{"name": "work", "emptyDir": {}}],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "runners", "operator": "Exists", "effect": "NoSchedule"}],
        },
    }

local = threading.local()
def call(method, path, body, ctype="application/json"):
    for attempt in range(5):
        try:
            if not hasattr(local, "c"):
                local.c = http.client.HTTPSConnection(host, int(port), context=ctx, timeout=60)
            local.c.request(method, path, body=json.dumps(body), headers={"Content-Type": ctype})
            r = local.c.getresponse()
            data = r.read()
            if r.status >= 300:
                raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
            return json.loads(data)
        except (http.client.HTTPException, OSError):
            local.__dict__.pop("c", None)
    raise SystemExit(f"{method} {path}: gave up")

for n in range(nss):
    call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"bench-{n}"}})

def one_set(i):
    ns, name = f"bench-{i % nss}", f"rs-{i}"
    pending = i % 3 == 0
    ers = call("POST", f"{G}/{ns}/ephemeralrunnersets", {
        "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/component": "runner-set"}},
        "spec": {"replicas": per_set, "patchID": 1, "actionableRevision": 3 if pending else 2,
                 "ephemeralRunnerSpec": runner_spec("ghcr.io/actions/actions-runner:2.330.0")}})
    call("PATCH", f"{G}/{ns}/ephemeralrunnersets/{name}/status",
         {"status": {"currentReplicas": per_set, "appliedActionableRevision": 2, "phase": "Running"}},
         "application/merge-patch+json")
    owner = [{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet", "name": name,
              "uid": ers["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    for j in range(per_set):
        old = i % 10 == 0 and j == 0
        spec = runner_spec("ghcr.io/actions/actions-runner:2.329.0" if old else "ghcr.io/actions/actions-runner:2.330.0")
        rname = f"{name}-r{j}"
        call("POST", f"{G}/{ns}/ephemeralrunners", {
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": rname, "ownerReferences": owner,
                         "annotations": {"actions.github.com/actionable-revision": "2"}},
            "spec": spec})
        if j % 5 == 3:
            continue  # pending: no status yet
        status = {"phase": "Running", "runnerId": i * 10 + j + 1, "ready": True, "runnerName": rname}
        if j % 5 == 2:
            status.update({"jobId": f"job-{i}", "jobRepositoryName": "my-org/my-repo", "workflowRunId": i})
        call("PATCH", f"{G}/{ns}/ephemeralrunners/{rname}/status", {"status": status}, "application/merge-patch+json")

q = queue.Queue()
for i in range(sets):
    q.put(i)
errors = []
def worker():
    while True:
        try:
            i = q.get_nowait()
        except queue.Empty:
            return
        try:
            one_set(i)
        except BaseException as e:
            errors.append(e)
            return
threads = [threading.Thread(target=worker) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
if errors:
    raise SystemExit(f"creation failed: {errors[0]}")
PY
echo "$sets $per_set" >"$tb/created"
echo "bench-status: created in $((SECONDS - t0))s" >&2
fi

# The raw LISTs: the same requests status makes (limit=500, following continue, one keep-alive TLS
# connection), bodies read and discarded; only the continue token is taken from each page's tail.
# Prints the wall time in seconds and the number of pages.
raw_lists() {
  python3 - "$url" "$tb/pki" <<'PY'
import http.client, re, ssl, sys, time
url, pki = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
host, port = url.removeprefix("https://").split(":")
ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
ctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
c = http.client.HTTPSConnection(host, int(port), context=ctx)
pages = 0
for plural in ["ephemeralrunnersets", "ephemeralrunners"]:
    token = ""
    while True:
        path = f"/apis/actions.github.com/v1alpha1/{plural}?limit=500" + (f"&continue={token}" if token else "")
        c.request("GET", path, headers={"Accept": "application/json", "User-Agent": "bench-status"})
        r = c.getresponse()
        body = r.read()
        assert r.status == 200, (r.status, body[:200])
        pages += 1
        m = re.search(rb'"continue":\s*"([^"]*)"', body[-2048:])
        token = m.group(1).decode() if m else ""
        if not token:
            break
print(f"{time.monotonic() - t0:.2f} {pages}")
PY
}

raw_times=() status_times=() rss=() cpu=()
time_status() {
  /usr/bin/time -v -o "$work/time" "$bin" --kubeconfig "$kubeconfig" status -A -o json >"$work/status.json"
  status_times+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time")")
  rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")")
  cpu+=("$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.2f", u + s}' "$work/time")")
}
time_raw() {
  read -r raw_time pages < <(raw_lists)
  raw_times+=("$raw_time")
}
for r in $(seq 1 "$runs"); do
  # Alternate the order, so that a load change on the machine does not favour one side.
  if [ $((r % 2)) = 1 ]; then time_raw; time_status; else time_status; time_raw; fi
  echo "bench-status: run $r: raw LISTs ${raw_times[-1]}s, status ${status_times[-1]}s (CPU ${cpu[-1]}s), peak RSS $((rss[-1] / 1024)) MiB" >&2
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
raw=$(median "${raw_times[@]}")
st=$(median "${status_times[@]}")
peak=$(printf '%s\n' "${rss[@]}" | sort -n | tail -n 1)
rows=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["items"]))' "$work/status.json")
states=$(python3 -c 'import json,sys,collections; r=json.load(open(sys.argv[1])); print(dict(collections.Counter(i["state"] for i in r["items"])))' "$work/status.json")
echo "objects:        $sets EphemeralRunnerSets, $((sets * per_set)) EphemeralRunners ($pages pages of 500)"
echo "status rows:    $rows $states"
echo "raw LISTs:      ${raw}s (median of $runs)"
echo "status -A:      ${st}s (median of $runs; its own CPU time $(median "${cpu[@]}")s)"
echo "ratio:          $(awk -v a="$st" -v b="$raw" 'BEGIN {printf "%.2f", a / b}')x (target within 1.3x)"
echo "peak RSS:       $((peak / 1024)) MiB (target under 150 MiB)"
