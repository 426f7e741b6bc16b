package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/judge"
)

// Noter is implemented by Events that can show a passing note, such as
// "CPU 3 is offline; waiting up to 30s for it".
type Noter interface{ Note(string) }

// onlinePath is the kernel's list of online CPUs under the topology's root.
func (cfg *Config) onlinePath() string {
	root := cfg.Root.String()
	if cfg.Topology != nil && cfg.Topology.Root != "" {
		root = cfg.Topology.Root
	}
	return filepath.Join(root, "sys", "devices", "system", "cpu", "online")
}

// targetOffline returns, when no target CPU is online, the reason in
// words ("CPU 3 is offline (/sys/devices/system/cpu/online says 0-2)");
// "" when the target is there or the list cannot be read.
func (cfg *Config) targetOffline() string {
	path := cfg.onlinePath()
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	online, err := cpuset.Parse(strings.TrimSpace(string(data)))
	target := cfg.Request.Mask()
	if err != nil || target.IsEmpty() || !online.Intersect(target).IsEmpty() {
		return ""
	}
	return fmt.Sprintf("CPU %s is offline (%s says %s)", target, path, online)
}

// awaitTarget is called before each run. When the target is offline it
// waits up to WaitOnline for it to come back (noting so), and returns what
// that did to the run (nil when the target is there); stop is set when the
// run must end early instead: a run on another CPU would not describe the
// target at all.
func (cfg *Config) awaitTarget(ctx context.Context, next string) (gone *judge.Finding, stop bool) {
	why := cfg.targetOffline()
	if why == "" {
		return nil, false
	}
	say := func(waited time.Duration, stop bool) (*judge.Finding, bool) {
		f := judge.Offline(next, why, waited, cfg.WaitOnline, stop)
		return &f, stop
	}
	if cfg.WaitOnline <= 0 {
		return say(0, true)
	}
	if n, ok := cfg.Events.(Noter); ok {
		n.Note(fmt.Sprintf("%s; waiting up to %v for it", why, cfg.WaitOnline))
	}
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for cfg.targetOffline() != "" {
		if time.Since(start) >= cfg.WaitOnline {
			return say(time.Since(start), true)
		}
		select {
		case <-ctx.Done():
			return nil, false // the loop sees the cancellation
		case <-tick.C:
		}
	}
	return say(time.Since(start), false)
}
