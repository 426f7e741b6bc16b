package launch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/session"
)

// rssProgram touches 24 MiB and exits.
const rssProgram = `#include <stdlib.h>
#include <string.h>
int main(void) {
	size_t n = 24u << 20;
	volatile char *p = malloc(n);
	memset((char *)p, 1, n);
	return p[n / 2] - 1;
}
`

// The command's max_rss_kb is its own high-water mark, not corepin's: it
// agrees with /usr/bin/time's figure for a small C program, forked and
// through the launcher.
func TestMaxRSSIsTheCommandsOwn(t *testing.T) {
	cpu := needsTwoCPUs(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("needs a C compiler (cc)")
	}
	gnuTime := "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skip("needs GNU time at /usr/bin/time")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel's taskstats records")
	}
	dir := t.TempDir()
	src, prog := filepath.Join(dir, "rss.c"), filepath.Join(dir, "rss")
	os.WriteFile(src, []byte(rssProgram), 0o644)
	if out, err := exec.Command(cc, "-O1", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	out, err := exec.Command(gnuTime, "-f", "%M", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("time: %v\n%s", err, out)
	}
	want, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("time printed %q", out)
	}
	for _, launcher := range []bool{false, true} {
		rep, err := Run(context.Background(), Config{
			Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{prog}, Launcher: launcher,
		})
		if err != nil || rep.ExitCode() != 0 {
			t.Fatalf("%v, exit %d", err, rep.ExitCode())
		}
		got := float64(rep.Child.MaxRSSKB)
		t.Logf("%s: max_rss_kb %v (%s), /usr/bin/time %v", rep.Start, got, rep.Child.MaxRSSSource, want)
		if rep.Child.MaxRSSSource != "taskstats" || got < 0.8*want || got > 1.2*want {
			t.Errorf("%s: max_rss_kb %v (%s), /usr/bin/time -f %%M %v: not within 20%%", rep.Start, got, rep.Child.MaxRSSSource, want)
		}
		wallSource := "taskstats"
		if launcher {
			wallSource = "proc_events"
		}
		if rep.Child.WallSource != wallSource || rep.Child.WallS <= 0 {
			t.Errorf("%s: wall_s %v (%s), want one from %s", rep.Start, rep.Child.WallS, rep.Child.WallSource, wallSource)
		}
	}
}
