package topology

import (
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// TestSelectOneAgreesWithSelectCPUs checks the quick path against the full
// one on every machine of testdata and this machine: the same CPU, or the
// same refusal.
func TestSelectOneAgreesWithSelectCPUs(t *testing.T) {
	roots := []string{"/"}
	entries, err := os.ReadDir(filepath.Join("testdata", "machines"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		roots = append(roots, filepath.Join("testdata", "machines", e.Name()))
	}
	for _, root := range roots {
		topo, err := ReadForSelection(fsroot.Root(root))
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		for cpu := 0; cpu <= topo.Possible.Len()+1; cpu++ {
			want, wantErr := topo.SelectCPUs(cpuset.Of(cpu))
			got, gotErr := SelectOne(fsroot.Root(root), cpu)
			switch {
			case (wantErr == nil) != (gotErr == nil):
				t.Errorf("%s CPU %d: SelectOne %v, SelectCPUs %v", root, cpu, gotErr, wantErr)
			case wantErr != nil && gotErr.Error() != wantErr.Error():
				t.Errorf("%s CPU %d: SelectOne says %q, SelectCPUs %q", root, cpu, gotErr, wantErr)
			case wantErr == nil && (got.ExactCPU != want.ExactCPU || !got.SoftCPUs.Equal(want.SoftCPUs)):
				t.Errorf("%s CPU %d: SelectOne %d %s, SelectCPUs %d %s", root, cpu, got.ExactCPU, got.SoftCPUs, want.ExactCPU, want.SoftCPUs)
			}
		}
	}
}
