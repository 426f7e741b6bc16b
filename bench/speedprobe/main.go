//go:build linux

// Command speedprobe measures what a speed probe on the target says of the
// run beside it: for each round it starts a command of fixed work on the
// target as corepin run does (launch.Run, the geekbench ladder), and reads
// probes of one length (0.1, 1 and 10 ms in turn) on a corepin thread
// pinned to the target at four places:
//
//   - before: just before launch.Run (corepin's old "probe before");
//   - exit: the moment the command says its last line, while it exits
//     and corepin ends its tree and removes its cgroups;
//   - teardown: right after launch.Run returns (corepin's old "after"),
//     five probes in a row, for the best of three and of five;
//   - later: one probe 50 ms after those, off the fork and exit path.
//
// It prints one JSON line per round: the probes' rates and their time on
// the CPU, the command's own time for its fixed work, its CPU time, the
// others' time on the target and the steal, so that a script can say how
// each reading varies with its length and place and whether any of them
// explains the run's own time (bench/speed-witness.sh).
//
//	speedprobe -cpu N [-rounds R] [-steps S]
//	speedprobe spin STEPS     (the command: S additions, its time on stdout)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/internal/speed"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

var sink atomic.Uint64

// spin is the command: steps additions in one register, then its own
// time and CPU time on stdout, the last thing it does before exiting.
//
//go:noinline
func spin(steps int) {
	c0, _ := sched.ThreadCPUTime(0)
	start := time.Now()
	x := sink.Load()
	for i := range steps {
		x += uint64(i)
	}
	sink.Store(x)
	wall := time.Since(start)
	c1, _ := sched.ThreadCPUTime(0)
	fmt.Printf("%d %d\n", wall.Nanoseconds(), (c1 - c0).Nanoseconds())
}

type reading struct {
	Rate  float64 `json:"rate"`
	OnCPU float64 `json:"on_cpu"`
}

type round struct {
	LengthMs   float64   `json:"length_ms"`
	Before     reading   `json:"before"`
	Exit       reading   `json:"exit"`
	Teardown   []reading `json:"teardown"` // five in a row
	Later      reading   `json:"later"`
	RunS       float64   `json:"run_s"` // the command's own time for its work
	RunCPUS    float64   `json:"run_cpu_s"`
	OthersS    *float64  `json:"others_s"`
	StealS     *float64  `json:"steal_s"`
	Load1      float64   `json:"load1"`
	LaunchWall float64   `json:"launch_wall_s"`
}

// notify tells, once, that the command wrote its line.
type notify struct {
	once sync.Once
	ch   chan struct{}
	buf  []byte
	mu   sync.Mutex
}

func (n *notify) Write(p []byte) (int, error) {
	n.mu.Lock()
	n.buf = append(n.buf, p...)
	n.mu.Unlock()
	n.once.Do(func() { close(n.ch) })
	return len(p), nil
}

func main() {
	launch.Dispatch(os.Args)
	if len(os.Args) == 3 && os.Args[1] == "spin" {
		n, _ := strconv.Atoi(os.Args[2])
		spin(n)
		return
	}
	cpu := flag.Int("cpu", 1, "the target CPU")
	rounds := flag.Int("rounds", 30, "rounds (each length gets a third)")
	steps := flag.Int("steps", 600_000_000, "the command's additions")
	flag.Parse()
	target := cpuset.Of(*cpu)
	th, err := speed.NewThread(target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer th.Stop()
	lengths := []time.Duration{100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond}
	probes := make([]speed.Probe, len(lengths))
	th.Do(func() {
		for i, d := range lengths {
			probes[i] = speed.Calibrate(d)
		}
	})
	self, _ := os.Executable()
	req := session.Request{CPU: *cpu, Ladder: session.GeekbenchLadder(), Accept: session.ExactRule()}
	read := func(p speed.Probe) reading {
		var r speed.Reading
		th.Do(func() { r = p.Read() })
		out := reading{Rate: r.Rate / p.Rate}
		if r.OnCPU != nil {
			out.OnCPU = *r.OnCPU
		}
		return out
	}
	enc := json.NewEncoder(os.Stdout)
	for i := range *rounds {
		p := probes[i%len(probes)]
		rd := round{LengthMs: float64(p.Duration) / 1e6}
		steal0 := steal(*cpu)
		rd.Before = read(p)
		out := &notify{ch: make(chan struct{})}
		done := make(chan struct{})
		var rep *launch.Report
		var lerr error
		t0 := time.Now()
		go func() {
			rep, lerr = launch.Run(context.Background(), launch.Config{Request: req, Self: self,
				Args: []string{self, "spin", strconv.Itoa(*steps)}, Stdout: out, Stderr: os.Stderr, WatchPeriod: 10 * time.Millisecond})
			close(done)
		}()
		select {
		case <-out.ch:
			rd.Exit = read(p)
		case <-done:
		}
		<-done
		rd.LaunchWall = time.Since(t0).Seconds()
		for range 5 {
			rd.Teardown = append(rd.Teardown, read(p))
		}
		if lerr != nil {
			fmt.Fprintln(os.Stderr, lerr)
			os.Exit(1)
		}
		time.Sleep(50 * time.Millisecond)
		rd.Later = read(p)
		var wall, cpuNs int64
		fmt.Sscan(string(out.buf), &wall, &cpuNs)
		rd.RunS, rd.RunCPUS = float64(wall)/1e9, float64(cpuNs)/1e9
		if rep.Sharing != nil && rep.Sharing.Others != nil {
			rd.OthersS = &rep.Sharing.Others.S
		}
		if s1 := steal(*cpu); s1 >= 0 && steal0 >= 0 {
			s := float64(s1-steal0) * procfs.Tick.Seconds()
			rd.StealS = &s
		}
		if data, err := os.ReadFile("/proc/loadavg"); err == nil {
			fmt.Sscan(string(data), &rd.Load1)
		}
		enc.Encode(rd)
	}
}

// steal is the target's steal ticks; -1 when unknown.
func steal(cpu int) int64 {
	st, err := procfs.ReadStat("/")
	if err != nil {
		return -1
	}
	return int64(st[cpu].Steal)
}
