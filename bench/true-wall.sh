#!/usr/bin/env bash
# wall_s of `true` under `corepin run` against hyperfine -N's figure for
# it, measured side by side, and the same through the re-executed
# launcher: --launcher, and --qos (which always goes through it).
#
#   bench/true-wall.sh [RUNS]      (default 100 runs each)
#
# corepin's wall_s is the command alone: from just before its exec to its
# exit. hyperfine -N times a spawn and a wait of the same program, without
# a shell; it runs right after each corepin variant, so the two share the
# machine's moment. Printed: the medians, corepin's ratio to hyperfine's
# and where corepin's figure came from (wall_source: taskstats, proc_events
# or clock; as root the kernel's); the claim is a ratio of at most 1.3.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
command -v hyperfine >/dev/null || { echo "needs hyperfine"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
true=$(command -v true)
cat >"$tmp/suite.toml" <<TOML
[settings]
runs = $runs
warmup = 3

[[benchmark]]
name = "true"
cmd = "$true"
TOML
median() { python3 -c 'import json,statistics,sys; r=json.load(open(sys.argv[1])); print(statistics.median([x["wall_s"] for b in r["benchmarks"] for x in b["runs"] if not x["warmup"] and not x.get("error")]))' "$1"; }
sources() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(",".join(sorted({x["scheduling"]["child"].get("wall_source", "?") for b in r["benchmarks"] for x in b["runs"] if not x["warmup"]})))' "$1"; }
hyper() { hyperfine -N --warmup 10 --runs "$runs" --export-json "$tmp/h.json" "$true" >/dev/null 2>&1; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json"; }
for variant in "" "--launcher" "--qos user-interactive --accept any"; do
	# shellcheck disable=SC2086
	dir=$("$tmp/corepin" run -q --allow-sharing --out "$tmp/out" $variant "$tmp/suite.toml" | tail -1)
	c=$(median "$dir/run.json")
	src=$(sources "$dir/run.json")
	h=$(hyper)
	python3 -c 'import sys; c, h, v, src = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3] or "(forked)", sys.argv[4]; print(f"corepin run {v}: wall_s median {c*1e3:.3f} ms ({src}), hyperfine -N {h*1e3:.3f} ms, ratio {c/h:.2f}")' "$c" "$h" "$variant" "$src"
done
