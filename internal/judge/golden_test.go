package judge

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with the file testdata/name, which -update rewrites:
// the judge's texts are read there, whole, as a person reads them.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(g), len(w)) {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Errorf("%s differs at line %d (go test -update rewrites it):\ngot:  %s\nwant: %s", path, i+1, gl, wl)
				return
			}
		}
	}
}

// runFlags are a run command's flags, as corepin run hands them.
var runFlags = Flags{MaxOthers: "--max-others", AllowSharing: "--allow-sharing", Warmup: "--warmup", SpeedGate: "--speed-gate", Watch: "--watch", WaitOnline: "--wait-online"}

// mustSet is the CPU list s.
func mustSet(t *testing.T, s string) cpuset.Set {
	t.Helper()
	set, err := cpuset.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return set
}
