package launch

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"corepin.dev/corepin/session"
)

// The test binary doubles as the launcher.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		Main()
	}
	os.Exit(m.Run())
}

// BenchmarkLaunchTrue is a whole launch of /bin/true on the last CPU with
// the default ladder and the watcher, as corepin exec does it (without the
// command line's own start-up).
func BenchmarkLaunchTrue(b *testing.B) {
	cpu := runtime.NumCPU() - 1
	for b.Loop() {
		rep, err := Run(context.Background(), Config{
			Spec:        Spec{CPU: cpu, Ladder: session.Geekbench, Args: []string{"true"}},
			WatchPeriod: 100e6,
		})
		if err != nil || rep.ExitCode() != 0 {
			b.Fatalf("%v, exit %d", err, rep.ExitCode())
		}
	}
}

// BenchmarkTasksetChrt is the baseline: taskset -c CPU chrt -o 0 true.
func BenchmarkTasksetChrt(b *testing.B) {
	taskset, err1 := exec.LookPath("taskset")
	chrt, err2 := exec.LookPath("chrt")
	if err1 != nil || err2 != nil {
		b.Skip("needs taskset and chrt")
	}
	cpu := runtime.NumCPU() - 1
	for b.Loop() {
		if err := exec.Command(taskset, "-c", strconv.Itoa(cpu), chrt, "-o", "0", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLaunchRefusesNothingToRun(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); err == nil {
		t.Error("a launch without a command succeeded")
	}
}
