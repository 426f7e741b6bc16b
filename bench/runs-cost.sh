#!/bin/sh
# runs-cost.sh N: does a run's cost grow with the runs before it? Runs a
# suite of one trivial command N times (no warm-up, no watcher) and prints
# the mean time per run over the first and the last tenth of the runs, and
# over each tenth (so that a shared machine's drift shows as noise and a
# growing cost as a rising line), from the start times in the journal. A
# quadratic store (run.json rewritten after every run) makes the last tenth
# much slower; the journal keeps both the same.
set -eu
n=${1:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/suite.toml" <<TOML
[[benchmark]]
name = "true"
cmd = "/bin/true"
TOML
go build -o "$dir/corepin" ./cmd/corepin
"$dir/corepin" run "$dir/suite.toml" --runs "$n" --warmup 0 --watch 0 --telemetry 1s -q --out "$dir/out" >/dev/null || true
journal=$(ls -d "$dir"/out/*/journal.jsonl)
python3 - "$journal" "$n" <<'PY'
import json, sys, datetime
starts = []
for line in open(sys.argv[1]):
    s = json.loads(line)["record"]["started"]
    starts.append(datetime.datetime.fromisoformat(s.replace("Z", "+00:00")[:26] + s[-6:] if s[-6] in "+-" else s.replace("Z", "")[:26]))
n = len(starts)
if n < 11:
    sys.exit(f"{n} runs: too few to split into tenths")
bounds = [round(j * (n - 1) / 10) for j in range(11)]
tenths = [(starts[b] - starts[a]).total_seconds() / (b - a) * 1000 for a, b in zip(bounds, bounds[1:])]
first, last = tenths[0], tenths[-1]
print(f"{n} runs: {first:.2f} ms per run over the first tenth, {last:.2f} ms over the last (ratio {last/first:.2f})")
print("each tenth, ms per run: " + " ".join(f"{t:.2f}" for t in tenths))
PY
