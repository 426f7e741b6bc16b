#!/usr/bin/env bash
# Launch overhead of `corepin exec` against taskset + chrt, and the
# watcher's own cost, measured side by side on this machine.
#
#   bench/launch.sh [RUNS]      (default 200 rounds)
#
# Each round starts every command once, in turn, so that drift on a shared
# machine hits them alike. The timer spawns each command with posix_spawn
# and waits for it; its own cost is in every figure alike. Printed: each
# command's median, and its ratio to taskset + chrt (ratio of medians, and
# median of the per-round ratios) and to launchfloor (per round).
#
# The commands:
#   corepin exec --replace       corepin sets up its own thread and becomes the command
#   corepin exec                 as `go build` makes it (static), forked start, watcher, report
#   corepin exec --launcher      the same, through the re-executed launcher
#   launchfloor                  the least a Go launcher can do (bench/launchfloor)
#   launchfloor -replace         the same without the fork: the floor under exec --replace
#   corepin's imports only       every package corepin imports, and a main that returns:
#                                what corepin's start costs before its main runs
#   Go program that only exits   the Go runtime's own start
#   taskset + chrt               the baseline
#
# The target CPU is the one corepin selects (corepin topo), so that the
# figures hold on any machine shape.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
go build -o "$tmp/launchfloor" ./bench/launchfloor
# The two programs with an empty main are built from generated files laid
# over the module (go build -overlay; the first under cmd/corepin, whose
# internal packages it imports), so that they import what corepin
# imports today and nothing is written into the source tree.
imports=$(go list -f '{{join .Imports " "}}' ./cmd/corepin)
{
  echo 'package main'
  echo 'import ('
  for p in $imports; do echo "_ \"$p\""; done
  echo ')'
  echo 'func main() {}'
} >"$tmp/imports.go"
printf 'package main\n\nfunc main() {}\n' >"$tmp/empty.go"
printf '{"Replace": {"%s/cmd/corepin/importsonly/main.go": "%s/imports.go", "%s/bench/emptymain/main.go": "%s/empty.go"}}' \
  "$PWD" "$tmp" "$PWD" "$tmp" >"$tmp/overlay.json"
go build -overlay "$tmp/overlay.json" -o "$tmp/importsonly" ./cmd/corepin/importsonly
go build -overlay "$tmp/overlay.json" -o "$tmp/emptymain" ./bench/emptymain
file "$tmp/corepin" 2>/dev/null | grep -q 'statically linked' || echo "note: corepin is not statically linked here"
cpu=$("$tmp/corepin" topo --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["exact_cpu"])')

python3 - "$runs" "$cpu" "$tmp" <<'PY'
import os, statistics, sys, time, shutil
runs, cpu, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
true = shutil.which("true")
cmds = [
    ("corepin exec --replace", [f"{tmp}/corepin", "exec", "--replace", "-q", "--cpu", cpu, "--", true]),
    ("corepin exec", [f"{tmp}/corepin", "exec", "-q", "--cpu", cpu, "--", true]),
    ("corepin exec --launcher", [f"{tmp}/corepin", "exec", "-q", "--launcher", "--cpu", cpu, "--", true]),
    ("launchfloor", [f"{tmp}/launchfloor", cpu, "true"]),
    ("launchfloor -replace", [f"{tmp}/launchfloor", "-replace", cpu, "true"]),
    ("corepin's imports only", [f"{tmp}/importsonly"]),
    ("Go program that only exits", [f"{tmp}/emptymain"]),
    ("taskset + chrt", [shutil.which("taskset"), "-c", cpu, shutil.which("chrt"), "-o", "0", true]),
]
devnull = os.open(os.devnull, os.O_RDWR)
def once(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    t = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed with status {status}")
    return t / 1e6
for _ in range(10):                      # warm the page cache and the CPUs
    for _, argv in cmds: once(argv)
times = {name: [] for name, _ in cmds}
for _ in range(runs):
    for name, argv in cmds: times[name].append(once(argv))
base = times["taskset + chrt"]
mb = statistics.median(base)
print(f"{runs} rounds, target CPU {cpu}")
floor = times["launchfloor"]
print(f"{'command':26} {'median ms':>10} {'÷ baseline':>11} {'paired':>8} {'÷ floor':>8}")
for name, _ in cmds:
    t = times[name]
    paired = statistics.median(a / b for a, b in zip(t, base))
    vs_floor = statistics.median(a / b for a, b in zip(t, floor))
    print(f"{name:26} {statistics.median(t):10.3f} {statistics.median(t)/mb:11.2f} {paired:8.2f} {vs_floor:8.2f}")
PY

# The watcher's own CPU time per followed thread per second, at 100 ms,
# on a program with 4 busy threads, and where it was allowed to run.
report=$tmp/report.json
"$tmp/corepin" exec -q --cpu "$cpu" --report "$report" -- sh -c 'for i in 1 2 3 4; do (timeout 3 sh -c "while :; do :; done") & done; wait'
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
