#!/usr/bin/env bash
# wall_s of `true` under `corepin run` against hyperfine -N's figure for
# it, measured side by side, and the same through the re-executed
# launcher: --launcher, and --qos (which always goes through it).
#
#   bench/true-wall.sh [RUNS] [ROUNDS]   (default 100 runs each, in 5 rounds)
#
# corepin's wall_s is the command alone: from just before its exec to its
# exit. hyperfine -N times a spawn and a wait of the same program, without
# a shell. The four take turns, RUNS/ROUNDS runs at a time, so that all of
# them share the machine's load as it comes and goes. Printed: the medians
# of all runs, corepin's ratio to hyperfine's and where corepin's figure
# came from (wall_source: taskstats, proc_events or clock; as root the
# kernel's); the claim is a ratio of at most 1.3.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
rounds=${2:-5}
per=$(((runs + rounds - 1) / rounds))
command -v hyperfine >/dev/null || { echo "needs hyperfine"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
true=$(command -v true)
cat >"$tmp/suite.toml" <<TOML
[settings]
runs = $per
warmup = 3

[[benchmark]]
name = "true"
cmd = "$true"
TOML
variants=("" "--launcher" "--qos user-interactive --accept any")
for round in $(seq "$rounds"); do
	for i in "${!variants[@]}"; do
		# shellcheck disable=SC2086
		dir=$("$tmp/corepin" run -q --allow-sharing --out "$tmp/out$i" ${variants[$i]} "$tmp/suite.toml" | tail -1)
		cp "$dir/run.json" "$tmp/c$i-$round.json"
	done
	hyperfine -N --warmup 10 --runs "$per" --export-json "$tmp/h-$round.json" "$true" >/dev/null 2>&1
done
python3 - "$tmp" "$rounds" "${variants[@]}" <<'PY'
import glob, json, statistics, sys
tmp, rounds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
h = statistics.median(t for f in glob.glob(f"{tmp}/h-*.json") for t in json.load(open(f))["results"][0]["times"])
for i, v in enumerate(variants):
    walls, sources = [], set()
    for f in glob.glob(f"{tmp}/c{i}-*.json"):
        for b in json.load(open(f))["benchmarks"]:
            for x in b["runs"]:
                if not x["warmup"] and not x.get("error"):
                    walls.append(x["wall_s"])
                    sources.add(x["scheduling"]["child"].get("wall_source", "?"))
    c = statistics.median(walls)
    print(f"corepin run {v or '(forked)'}: wall_s median {c*1e3:.3f} ms ({','.join(sorted(sources))}, {len(walls)} runs), "
          f"hyperfine -N {h*1e3:.3f} ms, ratio {c/h:.2f}")
PY
