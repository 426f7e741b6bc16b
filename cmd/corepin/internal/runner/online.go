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
func onlinePath(cfg Config) string {
	root := cfg.Root.String()
	if cfg.Topology != nil && cfg.Topology.Root != "" {
		root = cfg.Topology.Root
	}
	return filepath.Join(root, "sys", "devices", "system", "cpu", "online")
}

// targetOffline returns, when no target CPU is online, the reason in
// words ("CPU 3 is offline (/sys/devices/system/cpu/online says 0-2)");
// "" when the target is there or the list cannot be read.
func targetOffline(cfg Config) string {
	path := onlinePath(cfg)
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
// waits up to WaitOnline for it to come back (noting so), and keeps what
// that did to the run for its end; it returns false, with the reason in
// the run's StoppedEarly, when the run must end early instead: a run on
// another CPU would not describe the target at all.
func (r *suiteRun) awaitTarget(ctx context.Context, next string) bool {
	cfg := r.cfg
	why := targetOffline(cfg)
	if why == "" {
		return true
	}
	say := func(waited time.Duration, stop bool) bool {
		f := judge.Offline(next, why, waited, cfg.WaitOnline, stop)
		r.offline = append(r.offline, f)
		if stop {
			r.res.StoppedEarly = r.words.Text(f)
		}
		return !stop
	}
	if cfg.WaitOnline <= 0 {
		return say(0, true)
	}
	r.note(fmt.Sprintf("%s; waiting up to %v for it", why, cfg.WaitOnline))
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for targetOffline(cfg) != "" {
		if time.Since(start) >= cfg.WaitOnline {
			return say(time.Since(start), true)
		}
		select {
		case <-ctx.Done():
			return true // the loop sees the cancellation
		case <-tick.C:
		}
	}
	return say(time.Since(start), false)
}
