#!/usr/bin/env bash
# How early a SIGINT reaches corepin exec, against the earliest any Go
# program catches one (bench/signalfloor).
#
#   bench/early-signal.sh [TRIES] [DELAY_MS...]   (default 100 tries at 0.5 1 1.5 2 3 ms)
#
# Each try starts the program, spins until DELAY ms after the start
# returned (the exec has happened by then), and sends SIGINT. Counted: the
# tries in which the program died of the signal's default action (it had
# not caught it yet), and those in which it caught it (exit 130: corepin
# passed it on to the command, or stopped before starting one). The two
# programs take turns, so that drift on a shared machine hits them alike.
set -euo pipefail
cd "$(dirname "$0")/.."
tries=${1:-100}
shift || true
delays=${*:-0.5 1 1.5 2 3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corepin" ./cmd/corepin
go build -o "$tmp/signalfloor" ./bench/signalfloor
python3 - "$tmp" "$tries" $delays <<'PY'
import signal, subprocess, sys, time
tmp, tries, delays = sys.argv[1], int(sys.argv[2]), [float(d) for d in sys.argv[3:]]
progs = [("corepin exec", [f"{tmp}/corepin", "exec", "--watch", "0", "-q", "--", "sleep", "3"]),
         ("signalfloor", [f"{tmp}/signalfloor"])]
print(f"{tries} tries per delay; died = ended by SIGINT's default action, caught = exit 130")
print(f"{'delay ms':>8}  " + "  ".join(f"{name:>22}" for name, _ in progs))
for d in delays:
    counts = {name: [0, 0, 0] for name, _ in progs}
    for _ in range(tries):
        for name, argv in progs:
            p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t = time.perf_counter()
            while time.perf_counter() - t < d / 1000:
                pass
            p.send_signal(signal.SIGINT)
            rc = p.wait()
            counts[name][0 if rc == -signal.SIGINT else 1 if rc == 130 else 2] += 1
    cells = [f"died {c[0]:3} caught {c[1]:3}" + (f" other {c[2]}" if c[2] else "") for c in counts.values()]
    print(f"{d:8.1f}  " + "  ".join(f"{c:>22}" for c in cells))
PY
