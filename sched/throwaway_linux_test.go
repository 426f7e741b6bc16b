package sched

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
)

// The helper must run on the process's main thread. Only an init function
// can promise that: the runtime starts main (and TestMain) on it, but may
// move the goroutine to another thread before TestMain could lock it.
func init() {
	if os.Getenv("COREPIN_SCHED_HELPER") == "main" {
		runtime.LockOSThread()
	}
}

// With COREPIN_SCHED_HELPER=main the test binary pins and renices its own
// main thread inside Throwaway, calls the returned function, and prints
// what the main thread is left with.
func TestMain(m *testing.M) {
	if os.Getenv("COREPIN_SCHED_HELPER") == "main" {
		before, _ := GetAffinity(0)
		done := Throwaway()
		usable, _ := usableNow()
		SetAffinity(0, cpuset.Of(usable.Last()))
		SetNice(0, 7)
		done()
		after, _ := GetAffinity(0)
		nice, _ := GetNice(0)
		fmt.Printf("main=%v before=%s after=%s nice=%d\n", Gettid() == Getpid(), before, after, nice)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestThrowawayPutsTheMainThreadBack(t *testing.T) {
	otherCPU(t)
	if !NiceLowering().Supported {
		t.Skip("needs CAP_SYS_NICE: without it nice 7 cannot be lowered back: " + NiceLowering().Evidence)
	}
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "COREPIN_SCHED_HELPER=main")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var main bool
	var before, after string
	var nice int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "main=%t before=%s after=%s nice=%d", &main, &before, &after, &nice); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	if !main || before != after || nice != 0 {
		t.Errorf("on the main thread: mask %s -> %s, nice %d (main %v)", before, after, nice, main)
	}
}
