#!/usr/bin/env bash
# What the oncpu tracer costs the work on the CPU it watches, measured side
# by side on this machine (needs root, kernel BTF and a C compiler).
#
#   bench/oncpu-cost.sh [ROUNDS] [CPU]      (default 30 rounds, CPU 1)
#
# Two fixed-work programs run pinned to CPU (taskset), each once without
# and once with the tracer watching that CPU, in every round, the order
# swapped from round to round so that drift on a shared machine hits both
# alike. The tracer is held by a small Go program on another CPU, started
# and ready before the timed run and stopped after it, so that only its
# presence on the switches is timed, not its load. The timer spawns each
# program with posix_spawn and waits for it.
#
#   spin       a C loop of 200 M additions: switches only when something
#              else wants the CPU (the case the tracer is for)
#   pingpong   two processes on CPU passing one byte back and forth
#              20 000 times through pipes: two switches per round trip,
#              the worst case for a program that runs on every switch
#
# Printed for each, for its wall time and for its CPU time (user+sys, which
# leaves out other tasks' time on the shared CPU but keeps the tracer's,
# which runs in the work's own switches): the medians without and with the
# tracer, the median and range of the per-round ratios with/without, and
# the tracer's own account of the last round (its busiest processes on CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
cpu=${2:-1}
other=$(python3 -c "import os; print(min(c for c in os.sched_getaffinity(0) if c != $cpu))")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/work.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (argc > 1 && strcmp(argv[1], "spin") == 0) {
		volatile unsigned long sum = 0;
		for (long i = 0; i < n; i++)
			sum += i;
		return 0;
	}
	int there[2], back[2];
	if (pipe(there) || pipe(back))
		return 1;
	char c = 0;
	pid_t pid = fork();
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(there[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			return 1;
	int status;
	waitpid(pid, &status, 0);
	return status != 0;
}
C
cc -O2 -o "$tmp/work" "$tmp/work.c"

# The holder is built from a generated file laid over the module (go build
# -overlay), so that nothing is written into the source tree.
cat >"$tmp/hold.go" <<'GO'
// Command hold starts the oncpu tracer on one CPU, says "ready", and when
// its stdin closes stops it and prints the busiest processes it saw.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/oncpu"
)

func main() {
	cpu, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tr, err := oncpu.Start(cpuset.Of(cpu))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	a, err := tr.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("CPU %d: busy %v, idle %v, %d threads, lost %+v;", cpu, a.Busy[cpu], a.Idle[cpu], len(a.Tasks), a.Lost)
	for _, p := range a.Top(3, nil) {
		fmt.Printf(" %d %s %v (waited %v);", p.PID, p.Comm, p.OnCPU, p.Waited)
	}
	fmt.Println()
}
GO
printf '{"Replace": {"%s/bench/oncpuhold/main.go": "%s/hold.go"}}' "$PWD" "$tmp" >"$tmp/overlay.json"
CGO_ENABLED=0 go build -overlay "$tmp/overlay.json" -o "$tmp/hold" ./bench/oncpuhold

python3 - "$rounds" "$cpu" "$other" "$tmp" <<'PY'
import os, statistics, subprocess, sys, time
rounds, cpu, other, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
taskset = subprocess.run(["sh", "-c", "command -v taskset"], capture_output=True, text=True).stdout.strip()
works = [("spin", ["spin", "200000000"]), ("pingpong", ["pingpong", "20000"])]

def timed(args):
    """Runs the work once; its wall time and its CPU time (user+sys, its
    own and its child's) in ms. The CPU time leaves out what other tasks on
    the CPU took, which on a shared machine is most of the wall time's
    noise; the tracer runs inside the work's switches, so it is in both."""
    argv = [taskset, "-c", cpu, f"{tmp}/work"] + args
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return (t1 - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3

def traced(args):
    hold = subprocess.Popen([taskset, "-c", other, f"{tmp}/hold", cpu],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = hold.stdout.readline()
    if line.strip() != "ready":
        hold.kill()
        sys.exit(f"the tracer did not start: {line!r}")
    ms = timed(args)
    hold.stdin.close()
    summary = hold.stdout.read().strip()
    if hold.wait() != 0:
        sys.exit("the tracer failed to stop")
    return ms, summary

def show(what, without, with_):
    ratios = [b / a for a, b in zip(without, with_)]
    print(f"  {what:4} without {statistics.median(without):7.1f} ms, with {statistics.median(with_):7.1f} ms (medians); "
          f"with/without per round: median {statistics.median(ratios):.4f}, "
          f"min {min(ratios):.4f}, max {max(ratios):.4f}; ratio of medians "
          f"{statistics.median(with_) / statistics.median(without):.4f}")

for name, args in works:
    timed(args)  # warm-up
    without, with_, summary = [], [], ""
    for r in range(rounds):
        if r % 2 == 0:
            a = timed(args); b, summary = traced(args)
        else:
            b, summary = traced(args); a = timed(args)
        without.append(a); with_.append(b)
    print(f"{name} on CPU {cpu}, {rounds} rounds:")
    show("wall", [a[0] for a in without], [b[0] for b in with_])
    show("cpu", [a[1] for a in without], [b[1] for b in with_])
    print(f"  last traced round: {summary}")
PY
