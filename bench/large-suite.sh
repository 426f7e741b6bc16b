#!/bin/sh
# large-suite.sh [RUNS]: what a suite file at corepin's largest (1 MiB)
# costs over RUNS runs (default 40): the bytes of run.json and of the
# journal, and corepin's peak resident memory (GNU time). The suite's one
# benchmark is /bin/true with eight arguments of 120 KiB each, so that the
# command itself is nearly the whole file: a run record that copied it
# would make both files grow by a MiB a run.
set -eu
runs=${1:-40}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir/suite.toml" <<'PY'
import sys
arg = "x" * (120 << 10)
with open(sys.argv[1], "w") as f:
    f.write('[[benchmark]]\nname = "large"\ncmd = "/bin/true"\nargs = [\n')
    f.write(",\n".join(f'  "{arg}"' for _ in range(8)))
    f.write("\n]\n")
PY
go build -o "$dir/corepin" ./cmd/corepin
code=0
/usr/bin/time -f '%M' -o "$dir/rss" "$dir/corepin" run "$dir/suite.toml" --runs "$runs" --warmup 0 -q --out "$dir/out" >/dev/null || code=$?
folder=$(ls -d "$dir"/out/*/)
suite=$(wc -c <"$dir/suite.toml")
runjson=$(wc -c <"$folder/run.json")
journal=$(cat "$folder"/journal.jsonl 2>/dev/null | wc -c)
recorded=$(cat "$folder"/journal.jsonl 2>/dev/null | wc -l)
echo "suite $suite bytes, $runs runs (exit $code, $recorded recorded): run.json $runjson bytes, journal $journal bytes, together $(( (runjson + journal) / 1024 )) KiB; peak RSS $(cat "$dir/rss") KiB"
