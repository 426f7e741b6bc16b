//go:build linux && cgo

package cgotest

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/watch"
)

// FuzzTaskStat: the C library reads a /proc stat line as the watcher does.
func FuzzTaskStat(f *testing.F) {
	f.Add([]byte("4242 (bench) R 1 4242 4242 0 -1 4194304 100 0 0 0 120 3 0 0 20 0 1 0 291472 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"))
	f.Add([]byte("7 (a (weird) name) S 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0"))
	f.Add([]byte("7 (x) SS 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0"))
	f.Add([]byte("7 (x) S 1 7 7 0 -1 0 0 0 0 0 -5 6 0 0 20 0 1 0 99 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0"))
	f.Add([]byte("7 (x) S 1 7"))
	f.Add([]byte("no name here"))
	f.Fuzz(func(t *testing.T, line []byte) {
		// ASCII without NUL: the kernel's text, and what C strings hold
		for _, b := range line {
			if b == 0 || b >= 0x80 {
				return
			}
		}
		want, err := watch.ParseTaskStat(line)
		comm, state, utime, stime, start, cpu, ok := parseTaskStat(line)
		if ok != (err == nil) {
			t.Fatalf("%q: C ok %v, Go %v", line, ok, err)
		}
		if !ok {
			return
		}
		wcomm := want.Comm
		if len(wcomm) > 31 {
			wcomm = wcomm[:31]
		}
		if i := strings.IndexByte(wcomm, 0); i >= 0 {
			wcomm = wcomm[:i]
		}
		if comm != wcomm || state != want.State || utime != want.UTime || stime != want.STime || start != want.StartTime || cpu != want.Processor {
			t.Errorf("%q: C read %q %c %d %d %d %d, Go %+v", line, comm, state, utime, stime, start, cpu, want)
		}
	})
}

// FuzzCPUList: a CPU list the C library accepts means the same CPUs to
// corepin's cpuset.Parse.
func FuzzCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3,8-11", "1,3,5", "0-1\n", "", "3-1", "a", "1,,2", "4095", "4096", "0-4095"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		if strings.IndexByte(list, 0) >= 0 || bytes.ContainsAny([]byte(list), "\x80") {
			return
		}
		got, ok := parseCPUList(list)
		if !ok {
			return
		}
		want, err := cpuset.Parse(list)
		if err != nil {
			t.Fatalf("%q: C reads %s, Go refuses it: %v", list, got, err)
		}
		if !got.Equal(want) {
			t.Errorf("%q: C reads %s, Go %s", list, got, want)
		}
	})
}

// TestPreambleIncludesEverySource: a source added to native/src is
// compiled into these tests too.
func TestPreambleIncludesEverySource(t *testing.T) {
	files, err := librarySources()
	if err != nil || len(files) == 0 {
		t.Fatalf("library sources: %v %v", files, err)
	}
	preamble, err := os.ReadFile("native.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !bytes.Contains(preamble, []byte(`#include "../`+f+`"`)) {
			t.Errorf("native.go does not include %s", f)
		}
	}
}
