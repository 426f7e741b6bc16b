#!/usr/bin/env bash
# Does the speed witness see what slows the target? A C loop of fixed work
# (about 100 ms) runs RUNS times under corepin run as a one-benchmark
# suite; for each run the script prints its time beside its witness (the
# probes' speed before and after, as fractions of the best), then the
# correlation of time with the witness's speed, the CV of all runs against
# the CV of the runs the witness calls full-speed, and the witness's cost
# (its probes' time over the run's time, and BenchmarkWitness).
#
#   bench/speed-witness.sh [RUNS] [ITERATIONS] [OUT]   (default 60 runs of 300 M additions)
#
# With OUT the results folder (run.json, and report.html with the scatter
# of time against witness) is kept under OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-60}
iters=${2:-300000000}
out=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
cat >"$tmp/loop.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	unsigned long n = strtoul(argv[1], 0, 10), x = 0;
	for (unsigned long i = 0; i < n; i++) {
		x += i;
		__asm__ volatile("" : "+r"(x)); /* one addition per step, kept */
	}
	printf("%lu\n", x);
	return 0;
}
C
gcc -O2 -o "$tmp/loop" "$tmp/loop.c"
cat >"$tmp/suite.toml" <<TOML
[[benchmark]]
name = "loop"
cmd = "$tmp/loop"
args = ["$iters"]
TOML
# Others' work on this shared machine may take the target: the runs are
# kept (--allow-sharing), their sharing is in run.json.
"$tmp/corepin" run "$tmp/suite.toml" --runs "$runs" --warmup 1 --allow-sharing --out "${out:-$tmp/out}" -q >"$tmp/folder"
python3 - "$(cat "$tmp/folder")" <<'PY'
import json, statistics, sys, os
run = json.load(open(os.path.join(sys.argv[1], "run.json")))
b = run["benchmarks"][0]
rows = []
print(f"witness: {run['speed']['iterations']} steps, {run['speed']['probe_s']*1e6:.0f} µs at the best rate; threshold {run['speed']['threshold']:.2f}")
print(f"{'run':>4} {'time ms':>8} {'before':>7} {'after':>6} {'steal ms':>8} {'others':>7}")
for r in b["runs"]:
    if r["warmup"] or r.get("error"):
        continue
    sb, sa = r.get("speed_before"), r.get("speed_after")
    if sb is None or sa is None:
        continue
    cost = (r["probe_before"]["wall_s"] + r["probe_after"]["wall_s"]) / r["wall_s"]
    others = r.get("others_share")
    rows.append((r["wall_s"], (sb + sa) / 2, sb, sa, r.get("steal_s") or 0, cost, others))
    print(f"{r['index']:4d} {r['wall_s']*1e3:8.1f} {sb:7.2f} {sa:6.2f} {1e3*(r.get('steal_s') or 0):8.0f} {'?' if others is None else f'{100*others:6.1f}%'}")
t = [x[0] for x in rows]
s = [x[1] for x in rows]
def cv(v): return statistics.stdev(v) / statistics.mean(v)
print(f"\nruns with a witness: {len(rows)}")
print(f"correlation of time with the witness's speed (mean of before, after): {statistics.correlation(t, s):+.2f}")
print(f"correlation of time with 1/speed: {statistics.correlation(t, [1/x for x in s]):+.2f}")
full = [x[0] for x in rows if min(x[2], x[3]) >= 1 - run['speed']['threshold']]
print(f"CV of all runs: {100*cv(t):.1f}% (n={len(t)}, median {1e3*statistics.median(t):.1f} ms)")
if len(full) > 1:
    print(f"CV of the runs the witness calls full-speed: {100*cv(full):.1f}% (n={len(full)}, median {1e3*statistics.median(full):.1f} ms)")
# Others on the target (this machine's own tasks) slow the work between
# the probes; the witness is about the core's speed, so the same figures
# for the runs nobody shared.
alone = [x for x in rows if x[6] is not None and x[6] <= 0.02]
if len(alone) > 2:
    ta, sa_ = [x[0] for x in alone], [x[1] for x in alone]
    fa = [x[0] for x in alone if min(x[2], x[3]) >= 1 - run['speed']['threshold']]
    print(f"not shared (others <= 2%): n={len(alone)}, correlation {statistics.correlation(ta, sa_):+.2f}, CV {100*cv(ta):.1f}%" +
          (f", full-speed of them: n={len(fa)}, CV {100*cv(fa):.1f}%" if len(fa) > 1 else ""))
# The core's own speed while a probe ran: its rate over its share of the
# CPU, so that a wait for the CPU (others on the target) is left out.
core = []
for r in b["runs"]:
    if r["warmup"] or r.get("error") or r.get("speed_before") is None or r.get("speed_after") is None:
        continue
    pb, pa = r["probe_before"], r["probe_after"]
    if pb.get("on_cpu") and pa.get("on_cpu"):
        core.append((r["wall_s"], (pb["rate"] / pb["on_cpu"] + pa["rate"] / pa["on_cpu"]) / 2))
if len(core) > 2:
    print(f"correlation of time with the probes' rate per second on the CPU: {statistics.correlation([x[0] for x in core], [x[1] for x in core]):+.2f} (n={len(core)})")
print(f"the probes' time over the run's time: median {100*statistics.median(x[5] for x in rows):.2f}%")
PY
go test ./speed -run '^$' -bench Witness -benchtime 1000x -count 3 | grep Benchmark | awk '{printf "BenchmarkWitness: %.0f µs per probe, %.2f%% of a 100 ms run for two\n", $3/1000, 2*$3/1e6}'
