#!/usr/bin/env bash
# Launch overhead of `corepin exec` against taskset + chrt, and the
# watcher's own cost, measured side by side on this machine.
#
#   bench/launch.sh [RUNS]
#
# The two launchers run in turn (A B A B ...) so that drift on a shared
# machine hits both alike; the script prints each one's median and the
# ratio of medians. Uses hyperfine when it is installed, else a shell loop.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
bin=$(mktemp -d)/corepin
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/corepin
cpu=$(( $(nproc) - 1 ))
a="$bin exec -q --cpu $cpu -- true"
b="taskset -c $cpu chrt -o 0 true"

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 10 --runs "$runs" "$a" "$b"
else
  ns() { local s e; s=$(date +%s%N); $1 >/dev/null 2>&1; e=$(date +%s%N); echo $((e - s)); }
  ta=(); tb=()
  for _ in $(seq 10); do $a >/dev/null 2>&1; $b >/dev/null 2>&1; done
  for _ in $(seq "$runs"); do ta+=("$(ns "$a")"); tb+=("$(ns "$b")"); done
  median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
  ma=$(median "${ta[@]}"); mb=$(median "${tb[@]}")
  printf 'A %-45s median %8.3f ms\n' "$a" "$(echo "$ma/1000000" | bc -l)"
  printf 'B %-45s median %8.3f ms\n' "$b" "$(echo "$mb/1000000" | bc -l)"
  printf 'A/B %.2f\n' "$(echo "$ma/$mb" | bc -l)"
fi

# The watcher's own CPU time per followed thread per second, at 100 ms,
# on a program with 4 busy threads, and where it was allowed to run.
report=$(mktemp)
"$bin" exec -q --cpu "$cpu" --report "$report" -- sh -c 'for i in 1 2 3 4; do (timeout 3 sh -c "while :; do :; done") & done; wait'
python3 - "$report" "$cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); w = r["watch"]; cpu = int(sys.argv[2])
threads = len(w["threads"]); wall = r["child"]["wall_s"]
per = w["watcher_cpu_s"] / threads / wall
print(f"watcher: {w['watcher_cpu_s']*1000:.1f} ms CPU over {wall:.2f} s following {threads} threads "
      f"= {per*1e6:.0f} us per thread per second ({per*100:.3f}% of a core per thread)")
print(f"watcher allowed on CPUs {w['watcher_cpus']}, target CPU {cpu}: "
      + ("never on the target" if cpu not in w["watcher_cpus"] else "ON THE TARGET"))
print(f"residency on target {w['on_target_ratio']:.3f}, re-assertions {w['reasserts']}")
PY
rm -f "$report"
