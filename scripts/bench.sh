#!/usr/bin/env bash
# Side-by-side benchmarks: Go (tests/oracle/bench_test.go and bench_files_test.go, on the libraries
# ARC pins) and Rust (benches/core.rs), on this machine, over the same inputs: the realistic runner
# spec (tests/oracle/testdata/realistic-spec.json), the dump (realistic-dump.yaml), and files of
# 1,000 scale sets made from it (YAML and JSON, as `kubectl get -o yaml|json` prints them, written
# once by Go into a temporary directory that both sides read). Prints a table of medians and
# ratios (Go/Rust).
#
#   scripts/bench.sh                       # 5 rounds, ~1 s per benchmark and side: ~1 min + build
#   COUNT=9 BENCHTIME=2s scripts/bench.sh
#
# Each round runs `go test -run '^$' -bench . -benchmem -count 1` (as a prebuilt test binary), then
# `cargo bench --bench core`, so both sides see the same machine load; medians are over rounds.
# Not part of scripts/test.sh: speed is measured here and reported as ratios, never asserted.
# Needs Go, Rust and python3 only (no test bed, no oracle binary). Use an otherwise idle machine:
# on a busy one Go suffers more than Rust (its garbage collector wants the other core).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

count=${COUNT:-5}
benchtime=${BENCHTIME:-1s}
case "$benchtime" in
  *ms) benchtime_ms=${benchtime%ms} ;;
  *s) benchtime_ms=$(( ${benchtime%s} * 1000 )) ;;
  *) echo "bench: BENCHTIME is like 500ms or 2s" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Build both first, so that no compiler runs while the other side is measured.
t0=$SECONDS
echo "bench: building (cargo bench --no-run, go test -c)..." >&2
rust_bin=$(cargo bench --bench core --no-run --message-format=json-render-diagnostics 2>"$work/cargo.log" \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "core" and m.get("executable"):
        print(m["executable"])') || { cat "$work/cargo.log" >&2; exit 1; }
test -x "$rust_bin" || { cat "$work/cargo.log" >&2; echo "bench: no benches/core.rs binary" >&2; exit 1; }
(cd tests/oracle && go test -c -o "$work/oracle.test" .) >&2
cargo build --release --bin kubectl-arc 2>>"$work/cargo.log" || { cat "$work/cargo.log" >&2; exit 1; }
echo "bench: built in $((SECONDS - t0))s" >&2
# The files of 1,000 scale sets, written by Go (kubectl's own printers), read by both sides.
export KUBECTL_ARC_BENCH_DIR="$work/files"
mkdir -p "$KUBECTL_ARC_BENCH_DIR"
(cd tests/oracle && "$work/oracle.test" -test.run '^TestWriteBenchFiles$' -test.count 1 >/dev/null)
ls -l "$KUBECTL_ARC_BENCH_DIR" | awk 'NR > 1 {printf "bench: %s: %d bytes\n", $NF, $5}' >&2

t1=$SECONDS
# Rounds alternate Go and Rust (one ~benchtime sample of each benchmark per round), so that a
# change in the machine's load during the run hits both sides alike.
echo "bench: $count rounds of: Go (go test -run '^\$' -bench . -benchmem -benchtime $benchtime)," \
  "then Rust (cargo bench --bench core -- --benchtime-ms $benchtime_ms)" >&2
: >"$work/go.txt"
: >"$work/rust.txt"
for round in $(seq "$count"); do
  (cd tests/oracle && "$work/oracle.test" -test.run '^$' -test.bench . -test.benchmem \
    -test.count 1 -test.benchtime "$benchtime") >>"$work/go.txt"
  "$rust_bin" --bench --count 1 --benchtime-ms "$benchtime_ms" >>"$work/rust.txt"
  echo "bench: round $round/$count done" >&2
done
grep -m1 '^cpu:' "$work/go.txt" >&2 || true
grep -m1 '^#' "$work/rust.txt" >&2 || true
echo "bench: measured in $((SECONDS - t1))s" >&2

python3 - "$work/go.txt" "$work/rust.txt" "$count" "$benchtime" <<'EOF'
import re, statistics, sys

def parse(path):
    """Benchmark lines (Go's format, which benches/core.rs prints too) -> {name: {unit: [values]}}."""
    out = {}
    for line in open(path):
        if not line.startswith("Benchmark"):
            continue
        fields = line.split()
        name = re.sub(r"-\d+$", "", fields[0][len("Benchmark"):])
        per = out.setdefault(name, {})
        for value, unit in zip(fields[2::2], fields[3::2]):
            per.setdefault(unit, []).append(float(value))
    return out

go, rust = parse(sys.argv[1]), parse(sys.argv[2])
count, benchtime = sys.argv[3], sys.argv[4]

def med(side, name, unit):
    values = side.get(name, {}).get(unit)
    return statistics.median(values) if values else None

def num(x):
    if x is None:
        return "-"
    return f"{x:,.0f}" if x >= 100 or x == int(x) else f"{x:,.1f}"

def ratio(a, b):
    if a is None or b is None:
        return "-"
    if b == 0:
        return "inf" if a > 0 else "-"
    return f"{a / b:,.1f}x"

rows = [("SemanticDeepEqual", "Semantic.DeepEqual, no drift"),
        ("Compare", "compare: every difference (Rust only)"),
        ("LegacyHash", "legacy integrity hash"),
        ("Decode", "decode"),
        ("YAMLToJSON", "read a YAML manifest to JSON (5.6 KB)"),
        ("MigrateFilesYAML", "migrate -f: read, decode, legacy hash (1,000 sets, YAML)"),
        ("MigrateFilesJSON", "migrate -f: read, decode, legacy hash (1,000 sets, JSON)"),
        ("DiffFilesYAML", "diff -f: read, build desired, compare (1,000 sets, YAML)"),
        ("DiffFilesJSON", "diff -f: read, build desired, compare (1,000 sets, JSON)"),
        ("DiffFilesJSONText", "diff -f with the text diff of every set (Rust only)")]
names = {n for n, _ in rows}
rows += [(n, n) for n in sorted(set(go) | set(rust)) if n not in names]
header = ["benchmark", "Go ns/op", "Rust ns/op", "speedup (Go/Rust)",
          "Go B/op", "Rust B/op", "Go allocs/op", "Rust allocs/op"]
table = []
for name, label in rows:
    g_ns, r_ns = med(go, name, "ns/op"), med(rust, name, "ns/op")
    if g_ns is None and r_ns is None:
        continue
    g_b, r_b = med(go, name, "B/op"), med(rust, name, "B/op")
    g_a, r_a = med(go, name, "allocs/op"), med(rust, name, "allocs/op")
    table.append([label, num(g_ns), num(r_ns), ratio(g_ns, r_ns),
                  num(g_b), num(r_b), num(g_a), num(r_a)])

print(f"\nMedians of {count} alternating Go/Rust rounds of ~{benchtime} per benchmark, over "
      "tests/oracle/testdata/realistic-spec.json, realistic-dump.yaml and files of 1,000 scale sets "
      "made from it; B/op and allocs/op: Go's -benchmem and the counting allocator of "
      "benches/core.rs.\n")
print("| " + " | ".join(header) + " |")
print("|" + "|".join("---" if i == 0 else "--:" for i in range(len(header))) + "|")
for r in table:
    print("| " + " | ".join(r) + " |")
EOF

# Cost that grows with the work (issue 21, point 5): one JSON List of N copies of the shipped
# example's scale set and its set in one namespace, `diff --local -f FILE -o json` and
# `status -f FILE -o json` as a user runs them, wall time and peak RSS from /usr/bin/time -v
# (medians of the rounds), each time as a multiple of the 1,000-set one and each peak as a
# multiple of the file's size. Linear: 10,000 sets take about ten times 1,000.
if [ -x /usr/bin/time ]; then
  for n in 1000 4000 10000; do
    python3 scripts/gen-one-namespace.py "$n" "$work/one-namespace-$n.json"
  done
  python3 - "$work" "$count" <<'EOF'
import os, re, statistics, subprocess, sys
work, count = sys.argv[1], int(sys.argv[2])
def run(args):
    p = subprocess.run(["/usr/bin/time", "-v", "target/release/kubectl-arc", *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, mm, ss = m.groups()
    wall = int(h or 0) * 3600 + int(mm) * 60 + float(ss)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return wall, rss
print("\n| one namespace, N sets | file MiB | command | wall s | x 1,000 | peak RSS MiB | x file |")
print("|---|--:|---|--:|--:|--:|--:|")
for command in ("diff --local -f", "status -f"):
    base = None
    for n in (1000, 4000, 10000):
        path = f"{work}/one-namespace-{n}.json"
        size = os.path.getsize(path) / 2**20
        walls, rss = zip(*(run(command.split() + [path, "-o", "json"]) for _ in range(count)))
        wall, peak = statistics.median(walls), statistics.median(rss)
        base = base or wall
        print(f"| {n:,} | {size:.0f} | `{command}` | {wall:.2f} | {wall / base:.1f} | {peak:,.0f} | {peak / size:.1f} |")
EOF
fi
