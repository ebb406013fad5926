#!/usr/bin/env bash
# Issue 32's benchmark: what the impact forecast costs `diff -f`, side by side with the release
# before it, on the same machine and the same input.
#
#   scripts/bench-impact.sh              10,000 scale sets and 50,000 EphemeralRunners, one namespace
#   BENCH_SETS=1000 BENCH_RUNS=3 scripts/bench-impact.sh
#   BASE=<commit> scripts/bench-impact.sh  (default e3281d6: main before the forecast)
#
# Builds the release binary of BASE (from `git archive`, in .cache/bench-impact, once) and of the
# work tree, writes one JSON List of the shipped example's scale set and set, N times, each set
# with 5 of the example's runners (scripts/scale-set-list.py), and times `diff --local -f FILE -o
# json` of both binaries BENCH_RUNS times each, alternating, under /usr/bin/time. BASE reads the
# runners and leaves them; the work tree forecasts each set's impact from them. Reports the
# median wall times, their ratio (target: at most 1.2x) and the peak RSS as a multiple of the file
# (target: under 4x). Not part of the test suite: speed is measured here, never asserted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ -x /usr/bin/time ] || { echo "bench-impact: /usr/bin/time is needed (Debian: apt-get install time)" >&2; exit 1; }

base=${BASE:-e3281d6}
sets=${BENCH_SETS:-10000}
per_set=${BENCH_RUNNERS_PER_SET:-5}
runs=${BENCH_RUNS:-5}
cache="$root/.cache/bench-impact"
mkdir -p "$cache"

base_bin="$cache/kubectl-arc-$base"
if [ ! -x "$base_bin" ]; then
  src="$cache/src-$base"
  rm -rf "$src" && mkdir -p "$src"
  git archive "$base" | tar -x -C "$src"
  # The same target directory: the dependencies are built once for both.
  (cd "$src" && CARGO_TARGET_DIR="$root/target" cargo build --release --quiet --locked)
  cp "$root/target/release/kubectl-arc" "$base_bin"
  rm -rf "$src"
fi
cargo build --release --quiet --locked
head_bin="$root/target/release/kubectl-arc"

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
print(f"| work tree (forecast) | {hw:.2f} | {hm / 2**20:,.0f} | {hm / size:.1f} |")
print(f"forecast / before: {hw / bw:.2f}x wall (target <= 1.2x), peak {hm / size:.1f}x the input (target < 4x)")
print(f"the forecast's totals: {json.dumps(totals)}")
PY
