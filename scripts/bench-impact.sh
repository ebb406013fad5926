#!/usr/bin/env bash
# Issue 32's benchmark: what the impact forecast costs `diff`, side by side with the release before
# it, on the same machine and the same input.
#
#   scripts/bench-impact.sh              `diff --local -f`: 10,000 scale sets and 50,000
#                                        EphemeralRunners in files, one namespace
#   scripts/bench-impact.sh cluster      `diff -A` against a test bed holding as many
#   BENCH_SETS=1000 BENCH_RUNS=3 scripts/bench-impact.sh [cluster]
#   BASE=<commit> scripts/bench-impact.sh  (default e3281d6: main before the forecast)
#   BASE_BIN=... HEAD_BIN=... scripts/bench-impact.sh [cluster]   binaries already built
#   ALSO_BIN=... ALSO_NAME=main scripts/bench-impact.sh cluster     a third binary in the same runs
#                                        (another build of the forecast, to compare with head)
#
# Builds the release binary of BASE (from `git archive`, in .cache/bench-impact, once) and of the
# work tree, unless BASE_BIN and HEAD_BIN name them. BASE reads the runners and leaves them; the
# work tree forecasts each set's impact from them. Both binaries run BENCH_RUNS times each,
# alternating, under /usr/bin/time; reported: the median wall times, their ratio (target: at most
# 1.2x) and the peak RSS as a multiple of the input (target: under 4x). Not part of the test
# suite: speed is measured here, never asserted.
#
# -f: writes one JSON List of the shipped example's scale set and set, N times, each set with 5 of
# the example's runners (scripts/scale-set-list.py), and times `diff --local -f FILE -o json`.
#
# cluster: starts its own test bed (scripts/testbed.sh, in .cache/bench-impact-tb; stopped on
# exit) and creates on its legacy API server (CRDs without revision fields, as ARC 0.14.2's), with
# bounded parallelism (16 keep-alive connections; statuses through the status subresource, as
# ARC's controllers write them), across BENCH_NAMESPACES (default 20) namespaces, BENCH_SETS
# copies of the shipped example (examples/scale-set-dump.yaml): an AutoscalingRunnerSet labelled
# 0.14.2, its EphemeralRunnerSet <name>-x7k2p owned by it (controller reference with its uid,
# ARC's scale-set labels, the runner-spec hash of the template before the upgrade, so every set
# is replaced) with its counters, and 5 EphemeralRunners owned by the set, each with the set's
# runner spec as ARC copies it (phases cycled: idle, busy with a job, pending, succeeded, failed).
# Then times `diff -A -o json --kubeconfig` of both binaries (exit 1: every set is replaced).
# The input is measured as `kubectl get autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners
# -A -o json` prints it (indented), and compacted. BENCH_KEEP=1 leaves the test bed and its objects
# running; BENCH_REUSE=1 then times them again without creating anything.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ -x /usr/bin/time ] || { echo "bench-impact: /usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 1; }
mode=files
[ "${1:-}" = cluster ] && mode=cluster

base=${BASE:-e3281d6}
sets=${BENCH_SETS:-10000}
per_set=${BENCH_RUNNERS_PER_SET:-5}
runs=${BENCH_RUNS:-5}
cache="$root/.cache/bench-impact"
mkdir -p "$cache"

base_bin=${BASE_BIN:-"$cache/kubectl-arc-$base"}
if [ ! -x "$base_bin" ]; then
  [ -z "${BASE_BIN:-}" ] || { echo "bench-impact: BASE_BIN=$BASE_BIN is not an executable" >&2; exit 1; }
  src="$cache/src-$base"
  rm -rf "$src" && mkdir -p "$src"
  git archive "$base" | tar -x -C "$src"
  # A target directory of its own: cargo names a workspace's package by its path within the
  # workspace, so in the work tree's target directory the base's build and the work tree's would
  # share one fingerprint, and whichever was built last looks fresh to the other (a binary of one
  # commit measured as the other's). Built once, then kept in $cache.
  (cd "$src" && CARGO_TARGET_DIR="$cache/target-base" cargo build --release --quiet --locked)
  cp "$cache/target-base/release/kubectl-arc" "$base_bin"
  rm -rf "$src"
fi
if [ -n "${HEAD_BIN:-}" ]; then
  head_bin=$HEAD_BIN
  [ -x "$head_bin" ] || { echo "bench-impact: HEAD_BIN=$head_bin is not an executable" >&2; exit 1; }
else
  cargo build --release --quiet --locked
  head_bin="$root/target/release/kubectl-arc"
fi
if cmp -s "$base_bin" "$head_bin"; then
  echo "bench-impact: the work tree's binary is the base's ($base_bin): nothing to compare (touch the work tree's sources if an older build made it look fresh)" >&2
  exit 1
fi
also_bin=${ALSO_BIN:-}
[ -z "$also_bin" ] || [ -x "$also_bin" ] || { echo "bench-impact: ALSO_BIN=$also_bin is not an executable" >&2; exit 1; }

if [ "$mode" = cluster ]; then
  namespaces=${BENCH_NAMESPACES:-20}
  tb="$root/.cache/bench-impact-tb"
  command -v python3 >/dev/null || { echo "bench-impact: python3 is needed" >&2; exit 1; }
  work=$(mktemp -d)
  cleanup() {
    rm -rf "$work"
    [ "${BENCH_KEEP:-0}" = 1 ] || scripts/testbed.sh down "$tb" >/dev/null 2>&1 || true
  }
  trap cleanup EXIT INT TERM

  reuse=0
  if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$tb/pids" ] && [ -f "$tb/created" ]; then
    reuse=1
    echo "bench-impact: reusing the test bed and objects in $tb ($(cat "$tb/created"))" >&2
  else
    scripts/testbed.sh up "$tb" >/dev/null
  fi
  url=$(cat "$tb/legacy.url")
  kubeconfig="$tb/legacy-admin.kubeconfig"

  if [ "$reuse" = 0 ]; then
    echo "bench-impact: creating $sets scale sets, their sets and $((sets * per_set)) EphemeralRunners in $namespaces namespaces" >&2
    t0=$SECONDS
    python3 - "$url" "$tb/pki" "$sets" "$per_set" "$namespaces" "$root/examples/scale-set-dump.yaml" <<'PY'
import copy, http.client, json, queue, ssl, sys, threading
import yaml
url, pki, sets, per_set, nss, example = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
host, port = url.removeprefix("https://").split(":")
ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
ctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
G = "/apis/actions.github.com/v1alpha1/namespaces"

# The shipped example's scale set (0.14.2, the runner image moved to 2.329.0) and its set (the
# runner-spec hash of the template before: 84cffb96c6, not the scale set's 595bdbd674), as ARC
# 0.14.2 wrote them; what the API server assigns is dropped.
items = yaml.safe_load(open(example))["items"]
def bare(obj):
    obj = copy.deepcopy(obj)
    for k in ("namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "generateName"):
        obj["metadata"].pop(k, None)
    return obj, obj.pop("status", None)
ars_t, ars_status = bare(items[0])
ers_t, _ = bare(items[1])
OLD = items[0]["metadata"]["name"]
assert ars_t["metadata"]["labels"]["app.kubernetes.io/version"] == "0.14.2"
assert "runner-scale-set-id" in ars_t["metadata"]["annotations"]

# The runners' statuses, cycled, as the EphemeralRunner controller and a 0.13+ listener write them.
def runner_status(k, rname, rid, run):
    kind = k % 5
    if kind == 1:
        return {"phase": "Running", "ready": True, "runnerId": rid, "runnerName": rname,
                "jobRequestId": rid, "jobId": f"job-{rid}", "jobRepositoryName": "acme/api",
                "jobWorkflowRef": "acme/api/.github/workflows/ci.yaml@refs/heads/main",
                "workflowRunId": run, "jobDisplayName": "build"}
    if kind == 2:
        return {"phase": "Pending", "runnerId": rid}
    if kind == 3:
        return {"phase": "Succeeded", "runnerId": rid, "runnerName": rname}
    if kind == 4:
        return {"phase": "Failed", "runnerId": rid, "reason": "TooManyPodFailures"}
    return {"phase": "Running", "ready": True, "runnerId": rid, "runnerName": rname}
def set_counters(n):
    kinds = [k % 5 for k in range(n)]
    return {"currentReplicas": n, "runningEphemeralRunners": kinds.count(0) + kinds.count(1),
            "pendingEphemeralRunners": kinds.count(2), "failedEphemeralRunners": kinds.count(4),
            "phase": ""}

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
MERGE = "application/merge-patch+json"

for n in range(nss):
    call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"bench-{n}"}})

def renamed(template, name, ns):
    obj = copy.deepcopy(template)
    meta = obj["metadata"]
    for key in ("annotations", "labels"):
        for k, v in (meta.get(key) or {}).items():
            if v == OLD:
                meta[key][k] = name
    if "actions.github.com/scale-set-namespace" in meta.get("labels", {}):
        meta["labels"]["actions.github.com/scale-set-namespace"] = ns
    return obj

def one_set(i):
    ns, name = f"bench-{i % nss}", f"{OLD}-{i:05d}"
    ars = renamed(ars_t, name, ns)
    ars["metadata"]["name"] = name
    ars["metadata"]["annotations"]["runner-scale-set-id"] = str(i + 1)
    ars["spec"]["runnerScaleSetName"] = name
    ars = call("POST", f"{G}/{ns}/autoscalingrunnersets", ars)
    call("PATCH", f"{G}/{ns}/autoscalingrunnersets/{name}/status", {"status": ars_status}, MERGE)
    ers = renamed(ers_t, name, ns)
    set_name = f"{name}-x7k2p"
    ers["metadata"]["name"] = set_name
    ers["metadata"]["ownerReferences"] = [{
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet", "name": name,
        "uid": ars["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    ers["spec"]["replicas"] = per_set
    ers["spec"]["ephemeralRunnerSpec"]["runnerScaleSetId"] = i + 1
    ers = call("POST", f"{G}/{ns}/ephemeralrunnersets", ers)
    call("PATCH", f"{G}/{ns}/ephemeralrunnersets/{set_name}/status", {"status": set_counters(per_set)}, MERGE)
    meta = ers["metadata"]
    owner = [{"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet", "name": set_name,
              "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}]
    for k in range(per_set):
        rname = f"{set_name}-runner-{k}"
        rid = i * per_set + k + 1
        # ARC's EphemeralRunnerSet controller: the set's labels and annotations, the patch id,
        # ARC's finalizers, the set's runner spec.
        call("POST", f"{G}/{ns}/ephemeralrunners", {
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": rname, "generateName": f"{set_name}-runner-",
                         "labels": {**meta["labels"], "app.kubernetes.io/component": "runner"},
                         "annotations": {**meta["annotations"], "actions.github.com/patch-id": str(ers["spec"]["patchID"])},
                         "finalizers": ["ephemeralrunner.actions.github.com/finalizer",
                                        "ephemeralrunner.actions.github.com/runner-registration-finalizer"],
                         "ownerReferences": owner},
            "spec": ers["spec"]["ephemeralRunnerSpec"]})
        call("PATCH", f"{G}/{ns}/ephemeralrunners/{rname}/status",
             {"status": runner_status(k, rname, rid, 800 + i)}, MERGE)

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
        if i % 1000 == 999:
            print(f"bench-impact: {i + 1} sets queued so far are done", file=sys.stderr, flush=True)
threads = [threading.Thread(target=worker) for _ in range(16)]
for t in threads: t.start()
for t in threads: t.join()
if errors:
    raise SystemExit(f"creation failed: {errors[0]}")
PY
    created=$((SECONDS - t0))
    # The input as `kubectl get` prints it (indented JSON), and the same objects compacted.
    "$root/.cache/kubectl-cli/bin/kubectl" --kubeconfig "$kubeconfig" get \
      autoscalingrunnersets,ephemeralrunnersets,ephemeralrunners -A -o json >"$work/get.json"
    size=$(stat -c %s "$work/get.json")
    compact=$(python3 -c 'import json,sys; print(len(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")).encode()))' "$work/get.json")
    rm "$work/get.json"
    echo "$sets $per_set $namespaces $size $compact $created" >"$tb/created"
    echo "bench-impact: created in ${created}s" >&2
  fi
  read -r sets per_set namespaces size compact created <"$tb/created"

  for run in $(seq "$runs"); do
    # Alternate the order, so that a load change on the machine does not favour one side.
    order="base head"
    [ $((run % 2)) = 0 ] && order="head base"
    [ -z "$also_bin" ] || order="base also head"
    [ -z "$also_bin" ] || [ $((run % 2)) = 1 ] || order="head also base"
    for side in $order; do
      bin=$base_bin
      [ "$side" = head ] && bin=$head_bin
      [ "$side" = also ] && bin=$also_bin
      # Exit 1: every set is replaced. Anything else is a failure of the benchmark.
      set +e
      /usr/bin/time -f '%e %M %U %S' -o "$work/$side.$run" "$bin" diff -A -o json --kubeconfig "$kubeconfig" >"$work/$side.out"
      code=$?
      set -e
      [ "$code" = 1 ] || { echo "bench-impact: $side exited $code" >&2; tail -n 3 "$work/$side.$run" >&2; exit 1; }
      echo "bench-impact: run $run $side: $(tail -n 1 "$work/$side.$run") (wall s, peak KiB, user s, sys s)" >&2
    done
  done
  python3 - "$work" "$runs" "$size" "$compact" "$sets" "$per_set" "$namespaces" "$base" "${also_bin:+${ALSO_NAME:-also}}" <<'PY'
import json, statistics, sys
work, runs, size, compact = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sets, per_set, nss, base, also = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], sys.argv[9]
def read(side):
    # /usr/bin/time writes "Command exited with non-zero status 1" first: the numbers are last.
    rows = [open(f"{work}/{side}.{r}").read().splitlines()[-1].split() for r in range(1, runs + 1)]
    return (statistics.median(float(r[0]) for r in rows), max(int(r[1]) for r in rows) * 1024,
            statistics.median(float(r[2]) + float(r[3]) for r in rows))
(bw, bm, bc), (hw, hm, hc) = read("base"), read("head")
head = json.load(open(f"{work}/head.out"))
base_out = json.load(open(f"{work}/base.out"))
totals = head.get("impact", {})
known = sum(1 for i in head["items"] if (i.get("impact") or {}).get("runnersKnown") is True)
print(f"diff -A (cluster, legacy CRDs): {sets:,} scale sets and {sets * per_set:,} runners in {nss} namespaces; "
      f"`kubectl get -o json` prints {size / 1e6:.0f} MB ({compact / 1e6:.0f} MB compacted); medians of {runs}")
print("| binary | wall s | CPU s | peak RSS MiB | peak / kubectl get -o json | peak / compacted |")
print("|---|--:|--:|--:|--:|--:|")
print(f"| {base} (no forecast) | {bw:.2f} | {bc:.2f} | {bm / 2**20:,.0f} | {bm / size:.2f} | {bm / compact:.2f} |")
if also:
    aw, am, ac = read("also")
    print(f"| {also} (forecast) | {aw:.2f} | {ac:.2f} | {am / 2**20:,.0f} | {am / size:.2f} | {am / compact:.2f} |")
print(f"| head (forecast) | {hw:.2f} | {hc:.2f} | {hm / 2**20:,.0f} | {hm / size:.2f} | {hm / compact:.2f} |")
if also:
    print(f"{also} / before: {aw / bw:.2f}x wall, {ac / bc:.2f}x CPU")
    if open(f"{work}/also.out").read() != open(f"{work}/head.out").read():
        print(f"note: {also}'s output differs from head's")
print(f"forecast / before: {hw / bw:.2f}x wall (target <= 1.2x), {hc / bc:.2f}x CPU, peak {hm / size:.2f}x the input as kubectl prints it (target < 4x)")
print(f"items: base {len(base_out['items'])}, head {len(head['items'])}, head's items with runnersKnown: {known}")
print(f"the forecast's totals: {json.dumps(totals)}")
PY
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/scale-set-list.py "$sets" "$per_set" >"$work/all.json"
# kubectl-arc reads at most 128 MiB per file (as a dump is made per kind or namespace): the
# List is cut into files of 20,000 objects, each a List, all given with -f.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
items = json.load(open(f"{work}/all.json"))["items"]
for k in range(0, len(items), 20000):
    json.dump({"apiVersion": "v1", "kind": "List", "items": items[k:k + 20000]},
              open(f"{work}/input-{k // 20000:03d}.json", "w"))
PY
rm "$work/all.json"
files=()
for f in "$work"/input-*.json; do files+=(-f "$f"); done
size=$(cat "$work"/input-*.json | wc -c)

for run in $(seq "$runs"); do
  for side in base head; do
    bin=$base_bin
    [ "$side" = head ] && bin=$head_bin
    # Exit 1: every set is replaced. Anything else is a failure of the benchmark.
    set +e
    /usr/bin/time -f '%e %M' -o "$work/$side.$run" "$bin" diff --local "${files[@]}" -o json >"$work/$side.out"
    code=$?
    set -e
    [ "$code" = 1 ] || { echo "bench-impact: $side exited $code" >&2; exit 1; }
  done
done
python3 - "$work" "$runs" "$size" "$sets" "$per_set" "$base" <<'PY'
import json, statistics, sys
work, runs, size, sets, per_set, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
def read(side):
    # /usr/bin/time writes "Command exited with non-zero status 1" first: the numbers are last.
    rows = [open(f"{work}/{side}.{r}").read().splitlines()[-1].split() for r in range(1, runs + 1)]
    return statistics.median(float(w) for w, _ in rows), max(int(m) for _, m in rows) * 1024
(bw, bm), (hw, hm) = read("base"), read("head")
head = json.load(open(f"{work}/head.out"))
totals = head.get("impact", {})
print(f"diff --local -f: {sets:,} scale sets and {sets * per_set:,} runners, one namespace, {size / 1e6:.0f} MB of JSON; medians of {runs}")
print("| binary | wall s | peak RSS MiB | peak / file |")
print("|---|--:|--:|--:|")
print(f"| {base} (no forecast) | {bw:.2f} | {bm / 2**20:,.0f} | {bm / size:.1f} |")
print(f"| head (forecast) | {hw:.2f} | {hm / 2**20:,.0f} | {hm / size:.1f} |")
print(f"forecast / before: {hw / bw:.2f}x wall (target <= 1.2x), peak {hm / size:.1f}x the input (target < 4x)")
print(f"the forecast's totals: {json.dumps(totals)}")
PY
