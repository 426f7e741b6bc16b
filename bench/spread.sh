#!/usr/bin/env bash
# Spread of the Fibonacci benchmark with corepin's default pinning and
# scheduling against the same workload started plainly, while a competing
# busy process runs on the other CPU. The two are interleaved (A B A B ...)
# so that drift on a shared machine hits both alike.
#
#   bench/spread.sh [RUNS] [SIZE]     (default 20 runs, size full)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
size=${2:-full}
tmp=$(mktemp -d)
trap 'kill "$busy" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
target=$("$tmp/corepin" topo --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["exact_cpu"])')
other=$(( target == 0 ? 1 : 0 ))
taskset -c "$other" sh -c 'while :; do :; done' &
busy=$!
echo "target CPU $target; a busy loop runs on CPU $other; $runs runs of fib ($size) each way"
for i in $(seq "$runs"); do
  "$tmp/corepin" exec -q -- "$tmp/corepin" workload fib --size "$size" >>"$tmp/pinned.json"
  GOMAXPROCS=1 "$tmp/corepin" workload fib --size "$size" >>"$tmp/plain.json"
done
python3 - "$tmp" <<'PY'
import json, statistics, sys, os
def load(name):
    text = open(os.path.join(sys.argv[1], name)).read()
    dec, i, out = json.JSONDecoder(), 0, []
    while i < len(text):
        while i < len(text) and text[i].isspace(): i += 1
        if i == len(text): break
        obj, i = dec.raw_decode(text, i)
        assert obj["valid"], obj
        out.append(obj["seconds"])
    return out
for name, label in (("pinned.json", "corepin exec (target CPU, default ladder)"), ("plain.json", "started plainly")):
    v = load(name)
    cv = statistics.stdev(v) / statistics.mean(v)
    print(f"{label:42s} n={len(v)} median {statistics.median(v)*1000:8.1f} ms  min {min(v)*1000:7.1f}  max {max(v)*1000:7.1f}  CV {cv*100:5.1f}%")
PY
