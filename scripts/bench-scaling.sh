#!/usr/bin/env bash
# The scaling rows of scripts/bench.sh (one JSON List of N copies of the shipped example's scale
# set and its set in one namespace; `diff --local -f FILE -o json` and `status -f FILE -o json`),
# for two builds side by side in one run: a change must leave them no worse (issue 31).
#
#   BASE_BIN=/path/to/old/kubectl-arc scripts/bench-scaling.sh      HEAD_BIN: target/release/kubectl-arc
#   RUNS=5 SETS="1000 10000" BASE_BIN=... HEAD_BIN=... scripts/bench-scaling.sh
#
# Each command runs RUNS times per binary, the two binaries alternating so that a change in the
# machine's load hits both alike. Reported: medians of CPU time (user + system, the figure to read
# on a busy machine), wall time and peak RSS (/usr/bin/time -v), and head/base ratios. Speed is
# measured here, never asserted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
base=${BASE_BIN:?BASE_BIN names the binary to compare with}
head=${HEAD_BIN:-target/release/kubectl-arc}
runs=${RUNS:-5}
sets=${SETS:-1000 10000}
for bin in "$base" "$head"; do
  test -x "$bin" || { echo "bench-scaling: $bin is not an executable" >&2; exit 2; }
done
test -x /usr/bin/time || { echo "bench-scaling: needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in $sets; do
  python3 scripts/gen-one-namespace.py "$n" "$work/one-namespace-$n.json"
done
python3 - "$work" "$runs" "$base" "$head" $sets <<'EOF'
import re, statistics, subprocess, sys
work, runs, base, head, sets = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
def run(binary, args):
    p = subprocess.run(["/usr/bin/time", "-v", binary, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"bench-scaling: {binary} {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    field = lambda name: float(re.search(name + r": ([\d.]+)", p.stderr).group(1))
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, mm, ss = m.groups()
    wall = int(h or 0) * 3600 + int(mm) * 60 + float(ss)
    cpu = field(r"User time \(seconds\)") + field(r"System time \(seconds\)")
    return cpu, wall, field(r"Maximum resident set size \(kbytes\)") / 1024
print("| N sets | command | base CPU s | head CPU s | head/base | base wall s | head wall s | base RSS MiB | head RSS MiB |")
print("|--:|---|--:|--:|--:|--:|--:|--:|--:|")
for command in ("diff --local -f", "status -f"):
    for n in sets:
        args = command.split() + [f"{work}/one-namespace-{n}.json", "-o", "json"]
        got = {base: [], head: []}
        for _ in range(runs):
            for binary in (base, head):
                got[binary].append(run(binary, args))
        med = {b: [statistics.median(x) for x in zip(*got[b])] for b in got}
        (bc, bw, br), (hc, hw, hr) = med[base], med[head]
        print(f"| {int(n):,} | `{command}` | {bc:.2f} | {hc:.2f} | {hc / bc:.2f} | {bw:.2f} | {hw:.2f} | {br:,.0f} | {hr:,.0f} |")
EOF
