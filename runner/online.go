package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/cpuset"
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
// waits up to WaitOnline for it to come back (noting so), and returns the
// warning to record; stop is set when the run must end early instead: a
// run on another CPU would not describe the target at all.
func (cfg *Config) awaitTarget(ctx context.Context, next string) (warning string, stop bool) {
	why := cfg.targetOffline()
	if why == "" {
		return "", false
	}
	if cfg.WaitOnline <= 0 {
		return fmt.Sprintf("stopped early before %s: %s (--wait-online waits for it to come back)", next, why), true
	}
	if n, ok := cfg.Events.(Noter); ok {
		n.Note(fmt.Sprintf("%s; waiting up to %v for it", why, cfg.WaitOnline))
	}
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for cfg.targetOffline() != "" {
		if time.Since(start) >= cfg.WaitOnline {
			return fmt.Sprintf("stopped early before %s: %s and did not come back within %v", next, why, cfg.WaitOnline), true
		}
		select {
		case <-ctx.Done():
			return "", false // the loop sees the cancellation
		case <-tick.C:
		}
	}
	return fmt.Sprintf("%s before %s; waited %.1f s for it to come back", why, next, time.Since(start).Seconds()), false
}
