package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/traceevent"
)

// TestRunTrace runs one short built-in and holds the folder's trace.json
// to the trace-event format's rules and to its run.json: each run a slice
// over its measured window and, where corepin traced the scheduler's
// switches, the slices outside the work adding up to the run's others'
// time within a millisecond. corepin report --trace writes the same trace
// from the folder.
func TestRunTrace(t *testing.T) {
	requireExec(t)
	out, errOut, code := corepin(t, "run", "--quick", "--only", "fib", "--runs", "2", "--warmup", "0", "--allow-sharing", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	dir := lastLine(out)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, traceevent.Name))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := traceevent.Check(data)
	if err != nil {
		t.Fatalf("%s: %v", traceevent.Name, err)
	}
	agreements, err := traceevent.Verify(run, tr)
	if err != nil {
		t.Error(err)
	}
	compared := 0
	for _, a := range agreements {
		t.Logf("%s: others %.3f ms, slices outside the work %.3f ms (%s)", a.Run, 1000*a.OthersS, 1000*a.SlicesS, a.Why)
		if a.Compared {
			compared++
		}
	}

	file := filepath.Join(t.TempDir(), "run.trace.json")
	if out, errOut, code := corepin(t, "report", dir, "--trace", file); code != 0 {
		t.Fatalf("report --trace: exit %d\n%s\n%s", code, out, errOut)
	}
	again, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("report --trace of the folder differs from the trace run wrote")
	}
	if compared == 0 && len(agreements) > 0 {
		t.Skipf("the slices' half is not checked: %s", agreements[0].Why)
	}
}
