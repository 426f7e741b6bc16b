package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The slow tests are the top-level ones of go test -v's output at or above
// the limit, slowest first; subtests and lines of a test's own log are not
// among them.
func TestSlowTests(t *testing.T) {
	out := "=== RUN   TestA\n" +
		"--- PASS: TestA (12.50s)\n" +
		"=== RUN   TestB\n" +
		"    --- PASS: TestB/sub (40.00s)\n" +
		"--- SKIP: TestB (41.02s)\n" +
		"    x_test.go:3: --- FAIL: TestC (99.00s)\n" +
		"--- FAIL: TestD (9.99s)\r\n" +
		"--- FAIL: TestE (10.00s)\r\n" +
		"PASS\n"
	want := []testTime{{"TestB", "SKIP", 41.02}, {"TestA", "PASS", 12.5}, {"TestE", "FAIL", 10}}
	if got := slowTests(out, 10*time.Second); !reflect.DeepEqual(got, want) {
		t.Errorf("slowTests:\n got %v\nwant %v", got, want)
	}
	if got := slowTests("ok\n", time.Second); got != nil {
		t.Errorf("no tests: %v", got)
	}
}

// A failed test's lines are kept from its start to its end, whatever
// came after it.
func TestFailures(t *testing.T) {
	out := "=== RUN   TestA\n--- PASS: TestA (0.10s)\n=== RUN   TestB\n    b_test.go:9: wrong\n--- FAIL: TestB (1.00s)\n=== RUN   TestC\n--- PASS: TestC (0.00s)\nFAIL\n"
	want := "=== RUN   TestB\n    b_test.go:9: wrong\n--- FAIL: TestB (1.00s)\n...\n"
	if got := failures(out); got != want {
		t.Errorf("failures:\n%s\nwant\n%s", got, want)
	}
}

// The console's lines between the markers are the command's; every line,
// the boot's included, tells the watch for a silent guest that it lives,
// but the kernel's reports of a stuck CPU.
func TestCopyCommandOutput(t *testing.T) {
	stuck := "[  944.388574] watchdog: BUG: soft lockup - CPU#0 stuck for 719s! [cmd_corepin_int:1182]\r\n"
	console := "SeaBIOS\r\n" + markBegin + "\r\n== nocgroup\r\ntopo ok\r\n" + stuck + markEnd + "\r\npower off\r\n"
	var out strings.Builder
	var log bytes.Buffer
	heard := 0
	began, ended := copyCommandOutput(strings.NewReader(console), &out, &log, func() { heard++ })
	if !began || !ended || out.String() != "== nocgroup\ntopo ok\n"+strings.TrimSuffix(stuck, "\r\n")+"\n" || log.String() != "SeaBIOS\npower off\n" || heard != 6 {
		t.Errorf("began %v, ended %v, command %q, log %q, %d lines heard", began, ended, out.String(), log.String(), heard)
	}
}
